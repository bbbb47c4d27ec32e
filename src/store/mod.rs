//! The run directory and atomic file writes. Stages (self-play, training, gating) talk only
//! through files here; every file is written to a temporary name, synced and renamed, so a
//! reader never sees half a file and a kill never leaves one behind under the real name.

pub mod events;
pub mod framed;
pub mod hooks;
pub mod lines;
pub mod remote;
pub mod run;

use std::fs::{self, File};
use std::io::{Read, Write};
use std::path::{Path, PathBuf};

/// A file-system error with the path it concerns.
#[derive(Debug, thiserror::Error)]
#[error("{action} {path}: {source}")]
pub struct StoreError {
    pub action: &'static str,
    pub path: PathBuf,
    pub source: std::io::Error,
}

impl StoreError {
    pub fn new(action: &'static str, path: &Path, source: std::io::Error) -> StoreError {
        StoreError { action, path: path.to_path_buf(), source }
    }
}

/// Writes `bytes` to `path` atomically: a temporary file in the same directory, fsync, rename,
/// then fsync of the directory so the rename itself survives a crash.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> Result<(), StoreError> {
    write_atomic_with(path, |f| {
        fail::fail_point!("store::write", |fault| injected_fault(fault.as_deref(), &mut *f, bytes));
        f.write_all(bytes)
    })
}

/// [`write_atomic`] for a file too big to hold in memory first: `write` fills the temporary
/// file (which it may seek in), then it is synced and renamed into place.
pub fn write_atomic_with(path: &Path, write: impl FnOnce(&mut File) -> std::io::Result<()>) -> Result<(), StoreError> {
    let dir = path.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new("."));
    fs::create_dir_all(dir).map_err(|e| StoreError::new("cannot create directory", dir, e))?;
    let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    let tmp = dir.join(format!(".{name}.tmp-{}", std::process::id()));
    let result = (|| {
        let mut f = File::create(&tmp)?;
        write(&mut f)?;
        f.sync_all()?;
        fs::rename(&tmp, path)?;
        if let Ok(d) = File::open(dir) {
            let _ = d.sync_all();
        }
        Ok(())
    })();
    result.map_err(|e| {
        let _ = fs::remove_file(&tmp);
        StoreError::new("cannot write", path, e)
    })
}

/// Renames `from` to `to` unless `to` exists (then an error that says so, and both stay as
/// they were). A hard link claims the new name atomically; where the file system has none,
/// the check and the rename are two steps.
pub fn rename_no_replace(from: &Path, to: &Path) -> std::io::Result<()> {
    let exists = || std::io::Error::new(std::io::ErrorKind::AlreadyExists, format!("{} already exists and is never replaced", to.display()));
    match fs::hard_link(from, to) {
        Ok(()) => fs::remove_file(from),
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => Err(exists()),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Err(e),
        Err(_) if to.exists() => Err(exists()),
        Err(_) => fs::rename(from, to),
    }
}

/// Writes a file the user named on the command line (`--json`, `--games-out`, `--out`): a
/// regular file (or a new name) atomically as [`write_atomic`] does; a symbolic link at its
/// target, so the link stays; anything else that is not a directory (a device such as
/// `/dev/stdout` or `/dev/null`, a FIFO) by writing through to it, since replacing it with a
/// file would destroy what the user named.
pub fn write_output(path: &Path, bytes: &[u8]) -> Result<(), StoreError> {
    write_output_with(path, |f| f.write_all(bytes))
}

/// [`write_output`] for a writer that fills a file (and may seek in it).
pub fn write_output_with(path: &Path, write: impl FnOnce(&mut File) -> std::io::Result<()>) -> Result<(), StoreError> {
    let target = output_target(path).map_err(|e| StoreError::new("cannot write", path, e))?;
    match fs::metadata(&target) {
        Ok(m) if m.is_dir() => Err(StoreError::new("cannot write", path, std::io::Error::other("is a directory"))),
        Ok(m) if !m.is_file() => write_through(&target, write).map_err(|e| StoreError::new("cannot write", path, e)),
        _ => write_atomic_with(&target, write),
    }
}

/// Where writing `path` should land: `path` itself, or for a symbolic link (a chain of them)
/// the file it points to, existing or not.
fn output_target(path: &Path) -> std::io::Result<PathBuf> {
    let mut at = path.to_path_buf();
    for _ in 0..40 {
        match fs::symlink_metadata(&at) {
            Ok(m) if m.file_type().is_symlink() => {
                let link = fs::read_link(&at)?;
                at = match at.parent() {
                    Some(dir) if link.is_relative() => dir.join(link),
                    _ => link,
                };
            }
            _ => return Ok(at),
        }
    }
    Err(std::io::Error::other("too many levels of symbolic links"))
}

/// Writes into an existing file that is not a regular file. The writer may seek, which a pipe
/// cannot: it fills an unnamed temporary file, which is then copied over.
fn write_through(target: &Path, write: impl FnOnce(&mut File) -> std::io::Result<()>) -> std::io::Result<()> {
    let mut out = fs::OpenOptions::new().write(true).open(target)?;
    let scratch = std::env::temp_dir().join(format!(".junglezero-out.tmp-{}-{}", std::process::id(), clock_seed()));
    let mut tmp = fs::OpenOptions::new().read(true).write(true).create_new(true).open(&scratch)?;
    let _ = fs::remove_file(&scratch);
    write(&mut tmp)?;
    std::io::Seek::seek(&mut tmp, std::io::SeekFrom::Start(0))?;
    std::io::copy(&mut tmp, &mut out)?;
    out.flush()
}

/// The failure a test asked for at the `store::write` fault point (tests build with
/// `fail/failpoints`; otherwise the point does not exist): `enospc` (the disk is full), `short`
/// (half the bytes reach the file, then the disk fills), anything else a plain I/O error.
#[allow(dead_code)]
fn injected_fault(kind: Option<&str>, f: &mut File, bytes: &[u8]) -> std::io::Result<()> {
    match kind {
        Some("enospc") => Err(std::io::Error::from(std::io::ErrorKind::StorageFull)),
        Some("short") => {
            f.write_all(&bytes[..bytes.len() / 2])?;
            Err(std::io::Error::new(std::io::ErrorKind::WriteZero, "short write: the disk filled up mid-file"))
        }
        _ => Err(std::io::Error::other("injected I/O error")),
    }
}

/// How much of each kind of outside input is read at most: a longer file (or an endless one,
/// such as `/dev/zero` or a pipe) is refused once the cap is passed, never read whole.
pub mod caps {
    /// A config file (TOML).
    pub const CONFIG: u64 = 1 << 20;
    /// A model file: the largest network `model` settings allow is well under this.
    pub const MODEL: u64 = 1 << 30;
    /// A trainer checkpoint: weights and two optimiser moments.
    pub const CHECKPOINT: u64 = 4 << 30;
    /// A game shard.
    pub const SHARD: u64 = 1 << 30;
    /// A run's metrics file.
    pub const METRICS: u64 = 1 << 30;
    /// One line of the text protocol, or of an external engine's output.
    pub const LINE: usize = 1 << 20;
    /// A text file of positions or moves given on the command line.
    pub const TEXT: u64 = 64 << 20;
}

/// `bytes` in words for messages: "1 MiB", "4 GiB".
pub fn human_bytes(bytes: u64) -> String {
    match bytes {
        b if b >= 1 << 30 && b % (1 << 30) == 0 => format!("{} GiB", b >> 30),
        b if b >= 1 << 20 && b % (1 << 20) == 0 => format!("{} MiB", b >> 20),
        b if b >= 1 << 10 && b % (1 << 10) == 0 => format!("{} KiB", b >> 10),
        b => format!("{b} bytes"),
    }
}

/// Reads a whole file of the run's own (for upload), up to the largest cap of any kind,
/// naming it in the error.
pub fn read(path: &Path) -> Result<Vec<u8>, StoreError> {
    read_capped(path, caps::CHECKPOINT, "run file").map_err(|e| StoreError::new("cannot read", path, e))
}

/// Reads at most `cap` bytes of `path`; more is an error that names `what` and the cap. A
/// directory is refused by name rather than read.
pub fn read_capped(path: &Path, cap: u64, what: &str) -> std::io::Result<Vec<u8>> {
    read_rest(File::open(path)?, Vec::new(), cap, what)
}

/// The rest of `f` after `bytes` (already read from it), `cap` bytes in all at most.
fn read_rest(f: File, mut bytes: Vec<u8>, cap: u64, what: &str) -> std::io::Result<Vec<u8>> {
    let meta = f.metadata()?;
    if meta.is_dir() {
        return Err(std::io::Error::other("is a directory"));
    }
    let too_big = || std::io::Error::other(format!("larger than {}, the most a {what} may be", human_bytes(cap)));
    if meta.is_file() && meta.len() > cap {
        return Err(too_big());
    }
    if meta.is_file() {
        bytes.reserve(meta.len() as usize);
    }
    let left = (cap + 1).saturating_sub(bytes.len() as u64);
    f.take(left).read_to_end(&mut bytes)?;
    if bytes.len() as u64 > cap {
        return Err(too_big());
    }
    Ok(bytes)
}

/// [`read_capped`] for text: the file as UTF-8.
pub fn read_text_capped(path: &Path, cap: u64, what: &str) -> std::io::Result<String> {
    String::from_utf8(read_capped(path, cap, what)?).map_err(|_| std::io::Error::other(format!("not a text file (a {what} is UTF-8 text)")))
}

/// Reads a binary file of `format` (at most `cap` bytes), naming it in the error. Its first
/// bytes are checked for the format's magic number before the rest is read, so a file of
/// another kind (or an endless stream) costs a few bytes, not its whole size: then only those
/// bytes are returned, and the format's reader refuses them as it refuses any wrong magic.
pub fn read_framed(path: &Path, format: &framed::Format, cap: u64) -> Result<Vec<u8>, StoreError> {
    let err = |e| StoreError::new("cannot read", path, e);
    let f = File::open(path).map_err(err)?;
    if f.metadata().map_err(err)?.is_dir() {
        return Err(err(std::io::Error::other("is a directory")));
    }
    let mut head = Vec::with_capacity(4);
    (&f).take(4).read_to_end(&mut head).map_err(err)?;
    if head != format.magic {
        return Ok(head);
    }
    read_rest(f, head, cap, format.what).map_err(err)
}

/// Removes temporary files left by writers that were killed (`.NAME.tmp-PID`).
pub fn remove_stale_temporaries(dir: &Path) {
    if let Ok(entries) = fs::read_dir(dir) {
        for e in entries.flatten() {
            let n = e.file_name().to_string_lossy().into_owned();
            if let Some((_, pid)) = n.strip_prefix('.').and_then(|n| n.rsplit_once(".tmp-"))
                && !writer_may_be_alive(pid, &e)
            {
                let _ = fs::remove_file(e.path());
            }
        }
    }
}

/// Whether the process that is writing a temporary file (its pid is in the name) may still be
/// writing it: other self-play processes share a run directory. Where `/proc` is missing,
/// a temporary untouched for ten minutes counts as abandoned.
fn writer_may_be_alive(pid: &str, entry: &fs::DirEntry) -> bool {
    let Ok(pid) = pid.parse::<u32>() else { return false };
    if pid == std::process::id() {
        return false;
    }
    if Path::new("/proc/self").exists() {
        return Path::new("/proc").join(pid.to_string()).exists();
    }
    let age = entry.metadata().and_then(|m| m.modified()).ok().and_then(|t| t.elapsed().ok());
    age.is_none_or(|a| a < std::time::Duration::from_secs(600))
}

/// A seed from the clock, for runs that were not given one.
pub fn clock_seed() -> u64 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_nanos() as u64)
}
