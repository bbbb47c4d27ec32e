//! The layout of a run directory:
//!
//! ```text
//! checkpoints/<run>/
//!   config.toml          the config snapshot (older ones kept as config-<time>.toml)
//!   models/gen-NNNN.jzm  promoted networks; the highest generation is the current best
//!   candidates/          trained networks waiting for the gate
//!   rejected/            candidates the gate turned down
//!   games/*.jzg          self-play shards gen-NNNN-* (from any number of self-play processes)
//!                        and the alpha-beta teacher's teacher-*, played before generation 1
//!   train/checkpoint.jzc the trainer's state
//!   metrics.jsonl        one JSON object per line: training, self-play and gate events
//!   metrics/*.jsonl      the same, one file per process, in a run in object storage
//!   verdicts/gen-NNNN    in object storage: the gate's claim on a candidate (see `remote`)
//!   train.lock           held by the one train/learn/gate process working on the run
//!   report/              `junglezero report` output
//! ```

use std::fs;
use std::io::{Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use super::StoreError;
use super::remote::{Remote, is_remote, local_path};

/// Held while a process owns a run's trainer; see [`RunDir::lock_trainer`].
#[derive(Debug)]
pub struct TrainerLock {
    _file: fs::File,
}

/// A run: a directory, or a run in object storage worked on through a local mirror (then
/// `root` is the mirror; see [`super::remote`]).
#[derive(Clone, Debug)]
pub struct RunDir {
    root: PathBuf,
    remote: Option<Arc<Remote>>,
}

/// A metrics file's text, plain or gzipped (by its name), at most [`super::caps::METRICS`]
/// bytes of text either way.
fn read_metrics_text(path: &Path) -> std::io::Result<String> {
    if path.extension().is_some_and(|e| e == "gz") {
        let file = super::open_regular(path, super::caps::METRICS, "metrics file")?;
        let mut text = String::new();
        flate2::read::GzDecoder::new(file).take(super::caps::METRICS + 1).read_to_string(&mut text)?;
        if text.len() as u64 > super::caps::METRICS {
            return Err(std::io::Error::other("larger than the most a metrics file may be"));
        }
        return Ok(text);
    }
    super::read_text_capped(path, super::caps::METRICS, "metrics file")
}

fn generation_of(name: &str) -> Option<u64> {
    name.strip_prefix("gen-")?.strip_suffix(".jzm")?.parse().ok()
}

fn list_generations(dir: &Path) -> Vec<(u64, PathBuf)> {
    let mut v: Vec<(u64, PathBuf)> =
        fs::read_dir(dir).into_iter().flatten().flatten().filter_map(|e| generation_of(&e.file_name().to_string_lossy()).map(|g| (g, e.path()))).collect();
    v.sort();
    v
}

impl RunDir {
    pub fn new(root: impl Into<PathBuf>) -> RunDir {
        RunDir { root: root.into(), remote: None }
    }

    /// The run a `--run` argument names: a directory (a plain path or `file://`), or a URL of
    /// object storage (`s3://`, `gs://`, `az://`, `memory://`) opened with a mirror for `role`.
    /// Nothing is downloaded yet (see [`RunDir::pull`]).
    pub fn open(spec: &str, role: &str) -> Result<RunDir, StoreError> {
        if is_remote(spec) { Ok(RunDir::remote(Remote::open(spec, role)?)) } else { Ok(RunDir::new(local_path(spec))) }
    }

    /// A run in object storage through `remote`'s mirror.
    pub fn remote(remote: Remote) -> RunDir {
        RunDir { root: remote.mirror().to_path_buf(), remote: Some(Arc::new(remote)) }
    }

    /// The store behind a run in object storage.
    pub fn store(&self) -> Option<&Remote> {
        self.remote.as_deref()
    }

    /// Where the run lives, for messages: its URL or its directory.
    pub fn location(&self) -> String {
        self.remote.as_ref().map_or_else(|| self.root.display().to_string(), |r| r.url().to_string())
    }

    /// In object storage: downloads what other processes wrote (everything, or only the given
    /// folders and files). A directory needs nothing.
    pub fn pull(&self, only: Option<&[&str]>) -> Result<usize, StoreError> {
        self.remote.as_ref().map_or(Ok(0), |r| r.pull(only))
    }

    /// In object storage: finishes the verdicts a gatekeeper claimed but did not apply (it was
    /// killed between the claim and the upload of the network). A directory needs nothing: there
    /// a verdict is the rename itself.
    pub fn settle(&self) -> Result<usize, StoreError> {
        self.remote.as_ref().map_or(Ok(0), |r| r.settle())
    }

    /// In object storage: uploads what this process wrote. A directory needs nothing.
    pub fn push(&self) -> Result<usize, StoreError> {
        self.remote.as_ref().map_or(Ok(0), |r| r.push())
    }

    /// In object storage: uploads one file this process wrote (a shard as soon as it is cut).
    pub fn publish(&self, path: &Path) -> Result<(), StoreError> {
        match &self.remote {
            Some(r) => r.publish(path).map(|_| ()),
            None => Ok(()),
        }
    }

    pub fn root(&self) -> &Path {
        &self.root
    }

    pub fn name(&self) -> String {
        if let Some(r) = &self.remote {
            return r.url().rsplit('/').find(|s| !s.is_empty()).unwrap_or("run").to_string();
        }
        self.root.file_name().map_or_else(|| self.root.display().to_string(), |n| n.to_string_lossy().into_owned())
    }

    pub fn config_path(&self) -> PathBuf {
        self.root.join("config.toml")
    }
    pub fn models_dir(&self) -> PathBuf {
        self.root.join("models")
    }
    pub fn candidates_dir(&self) -> PathBuf {
        self.root.join("candidates")
    }
    pub fn rejected_dir(&self) -> PathBuf {
        self.root.join("rejected")
    }
    pub fn games_dir(&self) -> PathBuf {
        self.root.join("games")
    }
    pub fn checkpoint_path(&self) -> PathBuf {
        self.root.join("train").join("checkpoint.jzc")
    }
    /// The file this process appends its events to: metrics.jsonl in a directory, its own
    /// metrics/<writer>.jsonl in object storage.
    pub fn metrics_path(&self) -> PathBuf {
        match &self.remote {
            Some(r) => self.root.join(r.metrics_rel()),
            None => self.root.join("metrics.jsonl"),
        }
    }
    pub fn report_dir(&self) -> PathBuf {
        self.root.join("report")
    }

    pub fn model_path(&self, generation: u64) -> PathBuf {
        self.models_dir().join(format!("gen-{generation:04}.jzm"))
    }
    pub fn candidate_path(&self, generation: u64) -> PathBuf {
        self.candidates_dir().join(format!("gen-{generation:04}.jzm"))
    }
    pub fn rejected_path(&self, generation: u64) -> PathBuf {
        self.rejected_dir().join(format!("gen-{generation:04}.jzm"))
    }

    /// Whether this looks like a run directory (it has a config snapshot).
    pub fn exists(&self) -> bool {
        self.config_path().is_file()
    }

    pub fn create_dirs(&self) -> Result<(), StoreError> {
        for d in [self.models_dir(), self.candidates_dir(), self.rejected_dir(), self.games_dir(), self.root.join("train")] {
            fs::create_dir_all(&d).map_err(|e| StoreError::new("cannot create directory", &d, e))?;
        }
        Ok(())
    }

    /// Claims the run's trainer for this process (`train`, `learn` and `gate` change the
    /// trainer state and the model directories, so only one of them may run at a time;
    /// self-play processes need no claim). The operating system releases the claim when the
    /// process ends, however it ends.
    pub fn lock_trainer(&self) -> Result<TrainerLock, StoreError> {
        let path = self.root.join("train.lock");
        fs::create_dir_all(&self.root).map_err(|e| StoreError::new("cannot create directory", &self.root, e))?;
        // A FIFO would block the open until a reader came, and a link would be written through:
        // the name must be a regular file or nothing. The open neither waits nor follows a
        // link, and the opened handle's own type is checked too.
        if let Ok(meta) = fs::symlink_metadata(&path)
            && !meta.is_file()
        {
            let what = super::file_kind(&meta);
            return Err(StoreError::new("cannot use lock file", &path, std::io::Error::other(format!("not a regular file ({what})"))));
        }
        let mut options = fs::OpenOptions::new();
        options.create(true).truncate(false).write(true);
        #[cfg(unix)]
        std::os::unix::fs::OpenOptionsExt::custom_flags(&mut options, libc::O_NONBLOCK | libc::O_NOFOLLOW);
        let file = options.open(&path).map_err(|e| StoreError::new("cannot open lock file", &path, e))?;
        match file.metadata() {
            Ok(meta) if !meta.is_file() => {
                let what = super::file_kind(&meta);
                return Err(StoreError::new("cannot use lock file", &path, std::io::Error::other(format!("not a regular file ({what})"))));
            }
            Err(e) => return Err(StoreError::new("cannot open lock file", &path, e)),
            Ok(_) => {}
        }
        match file.try_lock() {
            Ok(()) => Ok(TrainerLock { _file: file }),
            Err(fs::TryLockError::WouldBlock) => Err(StoreError::new(
                "run is busy:",
                &self.root,
                std::io::Error::new(std::io::ErrorKind::WouldBlock, "another train, learn or gate process is working on it"),
            )),
            Err(fs::TryLockError::Error(e)) => Err(StoreError::new("cannot lock", &path, e)),
        }
    }

    /// The current best network: the highest promoted generation.
    pub fn best(&self) -> Option<(u64, PathBuf)> {
        list_generations(&self.models_dir()).pop()
    }

    /// Every promoted generation, oldest first.
    pub fn promoted(&self) -> Vec<(u64, PathBuf)> {
        list_generations(&self.models_dir())
    }

    /// Every rejected generation, oldest first.
    pub fn rejected(&self) -> Vec<(u64, PathBuf)> {
        list_generations(&self.rejected_dir())
    }

    /// Candidates waiting for the gate, oldest first.
    pub fn candidates(&self) -> Vec<(u64, PathBuf)> {
        list_generations(&self.candidates_dir())
    }

    /// Whether generation `g` was produced (waiting, promoted or rejected).
    pub fn generation_exists(&self, g: u64) -> bool {
        self.generation_file(g).is_some()
    }

    /// Generation `g`'s network wherever the gate left it: promoted, waiting or rejected.
    pub fn generation_file(&self, g: u64) -> Option<PathBuf> {
        [self.model_path(g), self.candidate_path(g), self.rejected_path(g)].into_iter().find(|p| p.exists())
    }

    /// The highest generation the run has produced (promoted, waiting or rejected).
    pub fn highest_generation(&self) -> Option<u64> {
        [self.promoted(), self.candidates(), self.rejected()].into_iter().filter_map(|l| l.last().map(|g| g.0)).max()
    }

    /// Whether the run holds work that a trainer produced: a trained network (any generation
    /// past 0) or a shard of games.
    pub fn holds_work(&self) -> bool {
        self.highest_generation().is_some_and(|g| g > 0) || !self.shards().is_empty()
    }

    /// Game shards, oldest first: those not named after a generation (the teacher's, played
    /// before generation 1) first, then by name (model generation, then time).
    pub fn shards(&self) -> Vec<PathBuf> {
        let mut v: Vec<PathBuf> =
            fs::read_dir(self.games_dir()).into_iter().flatten().flatten().map(|e| e.path()).filter(|p| p.extension().is_some_and(|e| e == "jzg")).collect();
        v.sort();
        v.sort_by_key(|p| p.file_name().and_then(|n| n.to_str()).is_some_and(|n| n.starts_with("gen-")));
        v
    }

    /// A path as stored in manifests: relative to the run directory.
    pub fn relative(&self, path: &Path) -> String {
        path.strip_prefix(&self.root).unwrap_or(path).to_string_lossy().into_owned()
    }

    pub fn resolve(&self, relative: &str) -> PathBuf {
        self.root.join(relative)
    }

    /// Appends one event as a line to metrics.jsonl (one write, so lines never interleave
    /// mid-line; a reader reports a torn last line after a crash and reads the rest). A torn
    /// last line (a kill or a full disk mid-write) is ended first, so it costs only itself.
    pub fn append_event(&self, event: &super::events::Event) -> Result<(), StoreError> {
        let path = self.metrics_path();
        if let Some(dir) = path.parent() {
            fs::create_dir_all(dir).map_err(|e| StoreError::new("cannot create directory", dir, e))?;
        }
        let mut f = super::open_append(&path).map_err(|e| StoreError::new("cannot append to", &path, e))?;
        let torn = (|| -> std::io::Result<bool> {
            let len = f.seek(SeekFrom::End(0))?;
            if len == 0 {
                return Ok(false);
            }
            let mut last = [0u8];
            f.seek(SeekFrom::End(-1))?;
            f.read_exact(&mut last)?;
            Ok(last[0] != b'\n')
        })()
        .map_err(|e| StoreError::new("cannot read", &path, e))?;
        let mut line = if torn { "\n".to_string() } else { String::new() };
        line += &super::events::to_line(event);
        line.push('\n');
        let result = (|| -> std::io::Result<()> {
            fail::fail_point!("store::append", |fault| match fault.as_deref() {
                Some("short") => f.write_all(&line.as_bytes()[..line.len() / 2]).and(Err(std::io::Error::from(std::io::ErrorKind::StorageFull))),
                _ => Err(std::io::Error::from(std::io::ErrorKind::StorageFull)),
            });
            f.write_all(line.as_bytes())
        })();
        result.map_err(|e| StoreError::new("cannot append to", &path, e))
    }

    /// Every event in metrics.jsonl, and the lines that could not be read (line number and
    /// reason). A missing file has no events; a run kept as a record may hold its metrics
    /// gzipped instead (`metrics.jsonl.gz`, read when `metrics.jsonl` is not there).
    /// In object storage every process's metrics/*.jsonl is read and the events merged by time.
    pub fn read_events(&self) -> (Vec<super::events::Event>, Vec<String>) {
        let plain = self.root.join("metrics.jsonl");
        let zipped = self.root.join("metrics.jsonl.gz");
        let mut files = vec![if !plain.exists() && zipped.exists() { zipped } else { plain }];
        if self.remote.is_some() {
            let mut more: Vec<PathBuf> = fs::read_dir(self.root.join("metrics"))
                .into_iter()
                .flatten()
                .flatten()
                .map(|e| e.path())
                .filter(|p| p.extension().is_some_and(|e| e == "jsonl"))
                .collect();
            more.sort();
            files.extend(more);
        }
        let (mut events, mut problems) = (Vec::new(), Vec::new());
        for path in &files {
            match read_metrics_text(path) {
                Ok(text) => {
                    let (e, p) = super::events::parse(&text);
                    events.extend(e);
                    if files.len() > 1 {
                        problems.extend(p.into_iter().map(|p| format!("{}: {p}", self.relative(path))));
                    } else {
                        problems.extend(p);
                    }
                }
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
                Err(e) => problems.push(format!("cannot read {}: {e}", path.display())),
            }
        }
        if files.len() > 1 {
            events.sort_by(|a, b| a.time().total_cmp(&b.time()));
        }
        (events, problems)
    }

    /// Promotes a candidate by renaming it into models/. In object storage the verdict is
    /// claimed first (one gatekeeper wins) and the network uploaded at once.
    pub fn promote(&self, generation: u64) -> Result<PathBuf, StoreError> {
        self.decide(generation, "promoted", self.model_path(generation))
    }

    /// Moves a candidate to rejected/ (in object storage: claims the verdict first, as
    /// [`RunDir::promote`]).
    pub fn reject(&self, generation: u64) -> Result<PathBuf, StoreError> {
        self.decide(generation, "rejected", self.rejected_path(generation))
    }

    fn decide(&self, generation: u64, verdict: &str, to: PathBuf) -> Result<PathBuf, StoreError> {
        let from = self.candidate_path(generation);
        // A mirror has only the folders it has downloaded into: make the target's before the
        // verdict is claimed, so a claimed verdict is not left without its network.
        if let Some(dir) = to.parent() {
            fs::create_dir_all(dir).map_err(|e| StoreError::new("cannot create directory", dir, e))?;
        }
        if let Some(r) = &self.remote {
            r.claim_verdict(generation, verdict)?;
        }
        let action = if verdict == "promoted" { "cannot promote" } else { "cannot reject" };
        // Never over a network already there: a promoted network is never replaced.
        super::rename_no_replace(&from, &to).map_err(|e| StoreError::new(action, &from, e))?;
        if let Some(r) = &self.remote {
            r.publish(&to)?;
            r.forget_candidate(generation);
        }
        Ok(to)
    }
}
