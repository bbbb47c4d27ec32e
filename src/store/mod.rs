//! The run directory and atomic file writes. Stages (self-play, training, gating) talk only
//! through files here; every file is written to a temporary name, synced and renamed, so a
//! reader never sees half a file and a kill never leaves one behind under the real name.

pub mod events;
pub mod framed;
pub mod hooks;
pub mod remote;
pub mod run;

use std::fs::{self, File};
use std::io::Write;
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

/// Reads a whole file, naming it in the error.
pub fn read(path: &Path) -> Result<Vec<u8>, StoreError> {
    fs::read(path).map_err(|e| StoreError::new("cannot read", path, e))
}

/// Removes temporary files left by writers that were killed (`.NAME.tmp-PID`).
pub fn remove_stale_temporaries(dir: &Path) {
    if let Ok(entries) = fs::read_dir(dir) {
        for e in entries.flatten() {
            let n = e.file_name().to_string_lossy().into_owned();
            if let Some((_, pid)) = n.strip_prefix('.').and_then(|n| n.rsplit_once(".tmp-")) {
                if !writer_may_be_alive(pid, &e) {
                    let _ = fs::remove_file(e.path());
                }
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
