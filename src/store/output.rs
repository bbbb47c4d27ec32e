//! Files written under names the user gave (`--out`, `--json-out`, `--games-out`): every command
//! writes them through [`Outputs`], which
//!
//! - never replaces an existing file unless the user said so (`--force`),
//! - never writes through a symbolic link (with `--force` the link itself is replaced by the
//!   new file; what it pointed to is never touched),
//! - writes each file atomically (a temporary file beside it, synced, then renamed), and
//! - for a command that writes several files, writes all of them or none: every file is
//!   written to its temporary name first, and only when all are written are they renamed into
//!   place; a failure on the way removes the temporaries and the files already placed.
//!
//! A name that is a device or a FIFO (`/dev/null`, a pipe another program reads), or one of the
//! descriptors under `/dev` and `/proc/self/fd` (`/dev/stdout`, wherever the shell sent it), is
//! written into, since that replaces no file.

use std::fs::{self, File};
use std::io::{Seek, Write};
use std::path::{Path, PathBuf};

use super::StoreError;

/// What writing a name will do.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Dest {
    /// Nothing has the name: a new file.
    New,
    /// A file or a link the user allowed to be replaced (`--force`).
    Replace,
    /// A device or a FIFO (perhaps reached through links): written into.
    Through,
}

/// One file written to its temporary place, waiting for [`Outputs::commit`].
struct Staged {
    path: PathBuf,
    dest: Dest,
    /// The temporary file beside `path` (`New`, `Replace`).
    tmp: Option<PathBuf>,
    /// The unnamed scratch file whose bytes go to a device (`Through`).
    scratch: Option<File>,
}

/// The files one command writes, placed all at once by [`Outputs::commit`]. Dropped without a
/// commit, it removes every temporary file it wrote.
pub struct Outputs {
    force: bool,
    staged: Vec<Staged>,
}

fn refuse(path: &Path, message: String) -> StoreError {
    StoreError::new("cannot write", path, std::io::Error::other(message))
}

/// How `path` would be written, or why it may not be.
fn destination(path: &Path, force: bool) -> Result<Dest, StoreError> {
    let meta = match fs::symlink_metadata(path) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Dest::New),
        Err(e) => return Err(StoreError::new("cannot write", path, e)),
        Ok(m) => m,
    };
    let t = meta.file_type();
    // A descriptor the shell opened (`--json-out /dev/stdout > out.json`, `/dev/fd/3`,
    // `/proc/self/fd/1`) is written into, whatever it leads to: it is a link, but to what the
    // user redirected, and replacing it would replace the system's own link.
    if (path.starts_with("/dev") || path.starts_with("/proc/self/fd")) && fs::metadata(path).is_ok_and(|m| !m.is_dir()) {
        return Ok(Dest::Through);
    }
    if t.is_symlink() {
        // A link to a device (`/dev/stdout` is one) is written into: no file is replaced.
        if let Ok(target) = fs::metadata(path)
            && !target.is_file()
            && !target.is_dir()
        {
            return Ok(Dest::Through);
        }
        if force {
            return Ok(Dest::Replace);
        }
        return Err(refuse(path, "is a symbolic link, and outputs are never written through links (--force replaces the link itself)".into()));
    }
    if t.is_dir() {
        return Err(refuse(path, "is a directory".into()));
    }
    if t.is_file() {
        if force {
            return Ok(Dest::Replace);
        }
        return Err(refuse(path, "exists; name a new file, or pass --force to replace it".into()));
    }
    Ok(Dest::Through)
}

impl Outputs {
    /// The files `paths` for one command, all checked before anything is written: an
    /// existing file or a link is refused unless `force`, a directory always.
    pub fn new(paths: &[&Path], force: bool) -> Result<Outputs, StoreError> {
        for (i, p) in paths.iter().enumerate() {
            destination(p, force)?;
            if paths[..i].contains(p) {
                return Err(refuse(p, "is named twice".into()));
            }
        }
        Ok(Outputs { force, staged: Vec::new() })
    }

    /// Writes `bytes` for `path` to its temporary place.
    pub fn add(&mut self, path: &Path, bytes: &[u8]) -> Result<(), StoreError> {
        self.add_with(path, |f| f.write_all(bytes))
    }

    /// Fills the file for `path` (the writer may seek) at its temporary place.
    pub fn add_with(&mut self, path: &Path, write: impl FnOnce(&mut File) -> std::io::Result<()>) -> Result<(), StoreError> {
        let err = |e| StoreError::new("cannot write", path, e);
        let dest = destination(path, self.force)?;
        if dest == Dest::Through {
            let scratch_path = std::env::temp_dir().join(format!(".junglezero-out.tmp-{}-{}", std::process::id(), super::clock_seed()));
            let mut f = fs::OpenOptions::new().read(true).write(true).create_new(true).open(&scratch_path).map_err(err)?;
            let _ = fs::remove_file(&scratch_path);
            write(&mut f).map_err(err)?;
            self.staged.push(Staged { path: path.to_path_buf(), dest, tmp: None, scratch: Some(f) });
            return Ok(());
        }
        let dir = path.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new("."));
        fs::create_dir_all(dir).map_err(|e| StoreError::new("cannot create directory", dir, e))?;
        let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
        let tmp = dir.join(format!(".{name}.tmp-{}", std::process::id()));
        // Registered first, so that a failure below still removes it.
        self.staged.push(Staged { path: path.to_path_buf(), dest, tmp: Some(tmp.clone()), scratch: None });
        let mut f = fs::OpenOptions::new().write(true).create(true).truncate(true).open(&tmp).map_err(err)?;
        write(&mut f).and_then(|_| f.sync_all()).map_err(err)
    }

    /// Places every file: all, or (on an error) none of the new ones.
    pub fn commit(mut self) -> Result<(), StoreError> {
        let staged = std::mem::take(&mut self.staged);
        let mut placed: Vec<PathBuf> = Vec::new();
        let mut result = Ok(());
        for s in &staged {
            let r = match (&s.dest, &s.tmp, &s.scratch) {
                (Dest::New, Some(tmp), _) => super::rename_no_replace(tmp, &s.path),
                (Dest::Replace, Some(tmp), _) => fs::rename(tmp, &s.path),
                (Dest::Through, _, Some(scratch)) => copy_into(scratch, &s.path),
                _ => Ok(()),
            };
            match r {
                Ok(()) if s.dest == Dest::New => placed.push(s.path.clone()),
                Ok(()) => {}
                Err(e) => {
                    result = Err(StoreError::new("cannot write", &s.path, e));
                    break;
                }
            }
        }
        for s in &staged {
            if let Some(tmp) = &s.tmp {
                let _ = fs::remove_file(tmp);
            }
        }
        if result.is_err() {
            for p in &placed {
                let _ = fs::remove_file(p);
            }
        }
        for s in staged.iter().filter(|s| s.dest != Dest::Through) {
            let dir = s.path.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new("."));
            if let Ok(d) = File::open(dir) {
                let _ = d.sync_all();
            }
        }
        result
    }
}

impl Drop for Outputs {
    fn drop(&mut self) {
        for s in &self.staged {
            if let Some(tmp) = &s.tmp {
                let _ = fs::remove_file(tmp);
            }
        }
    }
}

/// Copies a filled scratch file into an existing device or FIFO.
fn copy_into(scratch: &File, target: &Path) -> std::io::Result<()> {
    let mut out = fs::OpenOptions::new().write(true).open(target)?;
    let mut f = scratch;
    f.seek(std::io::SeekFrom::Start(0))?;
    std::io::copy(&mut f, &mut out)?;
    out.flush()
}

/// Writes one file the user named (see [`Outputs`]).
pub fn write_output(path: &Path, bytes: &[u8], force: bool) -> Result<(), StoreError> {
    write_output_with(path, force, |f| f.write_all(bytes))
}

/// [`write_output`] for a writer that fills a file (and may seek in it).
pub fn write_output_with(path: &Path, force: bool, write: impl FnOnce(&mut File) -> std::io::Result<()>) -> Result<(), StoreError> {
    let mut out = Outputs::new(&[path], force)?;
    out.add_with(path, write)?;
    out.commit()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dir(name: &str) -> PathBuf {
        let d = std::env::temp_dir().join(format!("jz-outputs-{name}-{}", std::process::id()));
        let _ = fs::remove_dir_all(&d);
        fs::create_dir_all(&d).unwrap();
        d
    }

    #[test]
    fn files_are_never_replaced_or_written_through_links_without_force() {
        let d = dir("refuse");
        let old = d.join("old.json");
        fs::write(&old, "old").unwrap();
        let target = d.join("target");
        fs::write(&target, "target").unwrap();
        let link = d.join("link.json");
        #[cfg(unix)]
        std::os::unix::fs::symlink(&target, &link).unwrap();
        assert!(write_output(&old, b"new", false).unwrap_err().to_string().contains("--force"));
        assert_eq!(fs::read_to_string(&old).unwrap(), "old");
        #[cfg(unix)]
        {
            assert!(write_output(&link, b"new", false).unwrap_err().to_string().contains("symbolic link"));
            write_output(&link, b"new", true).unwrap();
            assert_eq!(fs::read_to_string(&target).unwrap(), "target", "the link's target is never written");
            assert!(!fs::symlink_metadata(&link).unwrap().file_type().is_symlink());
        }
        write_output(&old, b"new", true).unwrap();
        assert_eq!(fs::read_to_string(&old).unwrap(), "new");
        assert!(write_output(&d, b"x", true).unwrap_err().to_string().contains("directory"));
        write_output(Path::new("/dev/null"), b"x", false).unwrap();
        fs::remove_dir_all(&d).unwrap();
    }

    #[test]
    fn several_files_are_placed_all_or_none() {
        let d = dir("all-or-none");
        let (a, b) = (d.join("a.bin"), d.join("b.bin"));
        let mut out = Outputs::new(&[&a, &b], false).unwrap();
        out.add(&a, b"a").unwrap();
        assert!(out.add_with(&b, |_| Err(std::io::Error::other("disk full"))).is_err());
        drop(out);
        assert_eq!(fs::read_dir(&d).unwrap().count(), 0, "nothing left behind");
        // One of the names taken between the check and the commit: the other is removed too.
        let mut out = Outputs::new(&[&a, &b], false).unwrap();
        out.add(&a, b"a").unwrap();
        out.add(&b, b"b").unwrap();
        fs::write(&b, "theirs").unwrap();
        assert!(out.commit().is_err());
        assert!(!a.exists());
        assert_eq!(fs::read_to_string(&b).unwrap(), "theirs");
        assert_eq!(fs::read_dir(&d).unwrap().count(), 1);
        fs::remove_dir_all(&d).unwrap();
    }
}
