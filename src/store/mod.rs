//! The run directory and atomic file writes. Stages (self-play, training, gating) talk only
//! through files here; every file is written to a temporary name, synced and renamed, so a
//! reader never sees half a file and a kill never leaves one behind under the real name.

pub mod events;
pub mod framed;
pub mod hooks;
pub mod lines;
pub mod output;
pub mod remote;
pub mod run;

use std::fs::{self, File};
use std::io::{Read, Write};
use std::path::{Path, PathBuf};

pub use output::{Outputs, write_output, write_output_with};

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
        // A stale temporary name (a link left there included) is removed, never written through.
        let _ = fs::remove_file(&tmp);
        let mut f = fs::OpenOptions::new().write(true).create_new(true).open(&tmp)?;
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

/// The failure a test asked for at the `store::write` fault point (inert unless a test arms it
/// with `fail::cfg`): `enospc` (the disk is full), `short` (half the bytes reach the file, then
/// the disk fills), anything else a plain I/O error.
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

/// Reads at most `cap` bytes of `path`; more is an error that names `what` and the cap.
/// Anything but a regular file is refused by what it is (see [`open_regular`]).
pub fn read_capped(path: &Path, cap: u64, what: &str) -> std::io::Result<Vec<u8>> {
    read_rest(open_regular(path, cap, what)?, Vec::new(), cap, what)
}

/// Opens `path` for reading when it is a regular file of at most `cap` bytes. A directory,
/// a FIFO, a socket or a device is refused by what it is, and opening never blocks: the file
/// is opened without waiting (`O_NONBLOCK`, which a FIFO without a writer would otherwise
/// wait for) and the opened handle's own type is checked, so a name swapped between a check
/// and the open changes nothing. Every reader of outside input and of the run's files opens
/// through here.
pub fn open_regular(path: &Path, cap: u64, what: &str) -> std::io::Result<File> {
    let mut options = fs::OpenOptions::new();
    options.read(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::custom_flags(&mut options, libc::O_NONBLOCK);
    let f = options.open(path)?;
    let meta = f.metadata()?;
    if !meta.is_file() {
        return Err(std::io::Error::other(format!("not a regular file ({}); only a regular file is read as a {what}", file_kind(&meta))));
    }
    if meta.len() > cap {
        return Err(std::io::Error::other(format!("larger than {}, the most a {what} may be", human_bytes(cap))));
    }
    Ok(f)
}

/// Opens `path` to append to (created when missing; readable too, for a torn last line). A
/// link, a FIFO, a directory or a device is refused by what it is, so nothing is written
/// through a link: the open neither follows a link nor waits for a FIFO's reader, and the
/// opened handle's own type is checked too. Every file a run or a match appends to opens here.
pub fn open_append(path: &Path) -> std::io::Result<File> {
    let refuse = |meta: &fs::Metadata| std::io::Error::other(format!("not a regular file ({}); only a regular file is appended to", file_kind(meta)));
    if let Ok(meta) = fs::symlink_metadata(path)
        && !meta.is_file()
    {
        return Err(refuse(&meta));
    }
    let mut options = fs::OpenOptions::new();
    options.create(true).read(true).append(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::custom_flags(&mut options, libc::O_NONBLOCK | libc::O_NOFOLLOW);
    let f = options.open(path)?;
    let meta = f.metadata()?;
    if !meta.is_file() {
        return Err(refuse(&meta));
    }
    Ok(f)
}

/// `text` (a URL, a host, a player's name) as part of a file name: letters, digits, `-`, `_`
/// and `.` kept, anything else `_`.
pub fn name_part(text: &str) -> String {
    text.chars().map(|c| if c.is_ascii_alphanumeric() || "-_.".contains(c) { c } else { '_' }).collect()
}

/// What a file that is not a regular file is, in words.
pub fn file_kind(meta: &fs::Metadata) -> &'static str {
    let t = meta.file_type();
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if t.is_fifo() {
            return "a FIFO";
        }
        if t.is_socket() {
            return "a socket";
        }
        if t.is_char_device() || t.is_block_device() {
            return "a device";
        }
    }
    if t.is_dir() {
        "a directory"
    } else if t.is_symlink() {
        "a symbolic link"
    } else if t.is_file() {
        "a regular file"
    } else {
        "not a file"
    }
}

/// The rest of `f` after `bytes` (already read from it), `cap` bytes in all at most.
fn read_rest(f: File, mut bytes: Vec<u8>, cap: u64, what: &str) -> std::io::Result<Vec<u8>> {
    let meta = f.metadata()?;
    let too_big = || std::io::Error::other(format!("larger than {}, the most a {what} may be", human_bytes(cap)));
    if meta.len() > cap {
        return Err(too_big());
    }
    bytes.reserve(meta.len() as usize);
    // A file that grows while it is read still stops at the cap.
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
/// another kind costs a few bytes, not its whole size: then only those bytes are returned, and the format's reader refuses them as it refuses any wrong magic.
pub fn read_framed(path: &Path, format: &framed::Format, cap: u64) -> Result<Vec<u8>, StoreError> {
    let err = |e| StoreError::new("cannot read", path, e);
    let f = open_regular(path, cap, format.what).map_err(err)?;
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
