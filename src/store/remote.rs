//! Runs in object storage (`s3://`, `gs://`, `az://`, `memory://`) through the `object_store`
//! crate. The stages keep working on a plain run directory: each process works in a local
//! mirror of the run (one per role, kept between processes, so a learner does not download its
//! window again every generation), pulls what others wrote before it reads, and pushes what it
//! wrote. The store's contract:
//!
//! - shards, candidates, promoted and rejected networks are written create-only (a conditional
//!   put that fails if the name exists): no writer overwrites another's object;
//! - the config snapshot and the trainer checkpoint are replaced only on the version this process
//!   read (a conditional put on the ETag): a second learner gets a clean error, not a lost update;
//! - a candidate is decided by creating `verdicts/gen-NNNN` first: of two gatekeepers only one
//!   can, the other gets an error naming the generation; a candidate with a verdict is no longer
//!   waiting, whatever is still listed under candidates/;
//! - each process appends its events to its own `metrics/<writer>.jsonl`, which only it writes;
//!   readers merge all of them by time;
//! - an object is visible only when its single put has completed, so a writer killed mid-upload
//!   leaves nothing a reader takes for complete; downloads land in the mirror atomically.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use futures_util::TryStreamExt;
use object_store::path::Path as ObjectPath;
use object_store::{ObjectStore, ObjectStoreExt, PutMode, PutOptions, PutPayload, UpdateVersion};
use serde::{Deserialize, Serialize};

use super::StoreError;

/// Whether `spec` (a `--run` argument) names a run in object storage rather than a directory.
pub fn is_remote(spec: &str) -> bool {
    match spec.split_once("://") {
        Some((scheme, _)) => scheme != "file",
        None => false,
    }
}

/// The local directory of a `file://` URL or a plain path.
pub fn local_path(spec: &str) -> PathBuf {
    PathBuf::from(spec.strip_prefix("file://").unwrap_or(spec))
}

/// How an object of the run is written, from its name.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// Written once, never replaced (shards, networks, verdicts, old config snapshots).
    Created,
    /// Replaced on the version read (config.toml, the trainer checkpoint).
    Replaced,
    /// Only this process writes it (its own metrics file, report files): plain overwrite.
    Owned,
    /// Another process's metrics file: downloaded when it changed, never uploaded.
    Foreign,
    /// Never leaves the machine (locks, the sync index, temporaries, a local metrics.jsonl).
    Local,
}

/// A run in object storage and its local mirror.
pub struct Remote {
    url: String,
    store: Arc<dyn ObjectStore>,
    prefix: ObjectPath,
    mirror: PathBuf,
    writer: String,
    runtime: tokio::runtime::Runtime,
    index: Mutex<Index>,
}

impl std::fmt::Debug for Remote {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Remote").field("url", &self.url).field("mirror", &self.mirror).field("writer", &self.writer).finish()
    }
}

/// What the mirror knows about each synced file: the object's version and the local file's
/// size and modification time when they matched.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
struct Index {
    files: BTreeMap<String, Synced>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
struct Synced {
    e_tag: Option<String>,
    version: Option<String>,
    size: u64,
    mtime_ns: u128,
}

const INDEX: &str = ".sync.json";

fn store_error(action: &'static str, what: &str, e: impl std::fmt::Display) -> StoreError {
    StoreError::new(action, Path::new(what), std::io::Error::other(e.to_string()))
}

fn conflict(action: &'static str, what: &str, why: &str) -> StoreError {
    StoreError::new(action, Path::new(what), std::io::Error::new(std::io::ErrorKind::AlreadyExists, why.to_string()))
}

/// The folder that holds the mirrors: `JZ_CACHE_DIR`, else `$XDG_CACHE_HOME/junglezero`, else
/// `~/.cache/junglezero`.
pub fn cache_root() -> PathBuf {
    if let Some(d) = std::env::var_os("JZ_CACHE_DIR") {
        return PathBuf::from(d);
    }
    if let Some(d) = std::env::var_os("XDG_CACHE_HOME") {
        return PathBuf::from(d).join("junglezero");
    }
    std::env::var_os("HOME").map_or_else(|| PathBuf::from(".junglezero-cache"), |h| PathBuf::from(h).join(".cache").join("junglezero"))
}

/// Creates `mirror` and reads its sync index; starts the runtime the store's calls run on.
fn open_mirror(url: &str, mirror: &Path) -> Result<(tokio::runtime::Runtime, Index), StoreError> {
    std::fs::create_dir_all(mirror).map_err(|e| StoreError::new("cannot create directory", mirror, e))?;
    let index =
        super::read_capped(&mirror.join(INDEX), super::caps::METRICS, "sync index").ok().and_then(|b| serde_json::from_slice(&b).ok()).unwrap_or_default();
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| StoreError::new("cannot start the I/O runtime for", Path::new(url), e))?;
    Ok((runtime, index))
}

/// A URL as one folder name: anything but letters, digits, `-`, `_` and `.` becomes `_`.
fn folder_name(url: &str) -> String {
    super::name_part(url)
}

fn file_stamp(path: &Path) -> Option<(u64, u128)> {
    let m = std::fs::metadata(path).ok()?;
    let t = m.modified().ok()?.duration_since(std::time::UNIX_EPOCH).ok()?.as_nanos();
    Some((m.len(), t))
}

/// The generation of `verdicts/gen-NNNN` or `candidates/gen-NNNN.jzm`.
fn generation_in(rel: &str, dir: &str) -> Option<u64> {
    let name = rel.strip_prefix(dir)?.strip_prefix('/')?;
    name.strip_prefix("gen-")?.trim_end_matches(".jzm").parse().ok()
}

/// Without credentials in the environment the S3 client asks the cloud's instance-metadata
/// address for a role's, as the AWS tools do. `AWS_EC2_METADATA_DISABLED=true` (the AWS
/// tools' own switch) turns that look-up off: then an `s3://` run without credentials is
/// refused at once, saying what to set.
fn s3_without_credentials(url: &url::Url, env: &[(String, String)]) -> Option<String> {
    let set = |k: &str| env.iter().any(|(key, v)| key == k && !v.is_empty());
    let off = env.iter().any(|(k, v)| k == "AWS_EC2_METADATA_DISABLED" && v.eq_ignore_ascii_case("true"));
    let given = ["AWS_ACCESS_KEY_ID", "AWS_WEB_IDENTITY_TOKEN_FILE", "AWS_CONTAINER_CREDENTIALS_RELATIVE_URI", "AWS_CONTAINER_CREDENTIALS_FULL_URI"]
        .iter()
        .any(|k| set(k))
        || env.iter().any(|(k, v)| k == "AWS_SKIP_SIGNATURE" && v.eq_ignore_ascii_case("true"));
    (matches!(url.scheme(), "s3" | "s3a") && off && !given).then(|| {
        "no credentials: set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY (or AWS_SKIP_SIGNATURE=true for a public bucket); the instance-metadata look-up is off (AWS_EC2_METADATA_DISABLED)".to_string()
    })
}

impl Remote {
    /// Opens the run at `url` for a process in `role` (its mirror is `<cache>/runs/<url>/<role>`).
    /// Credentials and endpoints come from the environment (`AWS_*`, `GOOGLE_*`, `AZURE_*`).
    pub fn open(url: &str, role: &str) -> Result<Remote, StoreError> {
        Remote::open_in(url, role, &cache_root())
    }

    /// [`Remote::open`] with the mirrors under `cache` instead of [`cache_root`].
    pub fn open_in(url: &str, role: &str, cache: &Path) -> Result<Remote, StoreError> {
        let parsed = url::Url::parse(url).map_err(|e| store_error("not a run URL:", url, e))?;
        // rustls is built with ring alone; reqwest needs it installed as the process's provider
        // before a client is made (a second install is refused, which is fine).
        let _ = rustls::crypto::ring::default_provider().install_default();
        let env: Vec<(String, String)> = std::env::vars_os().filter_map(|(k, v)| Some((k.into_string().ok()?, v.into_string().ok()?))).collect();
        if let Some(why) = s3_without_credentials(&parsed, &env) {
            return Err(store_error("cannot open object store", url, std::io::Error::other(why)));
        }
        let (store, prefix) = object_store::parse_url_opts(&parsed, env).map_err(|e| store_error("cannot open object store", url, e))?;
        let mirror = cache.join("runs").join(folder_name(url)).join(role);
        let (runtime, index) = open_mirror(url, &mirror)?;
        let host = std::env::var("HOSTNAME").ok().filter(|h| !h.is_empty()).unwrap_or_else(|| "host".into());
        let writer = format!("{role}-{}-{}-{}", folder_name(&host), std::process::id(), (super::events::now() * 1000.0) as u64);
        Ok(Remote { url: url.trim_end_matches('/').to_string(), store: Arc::from(store), prefix, mirror, writer, runtime, index: Mutex::new(index) })
    }

    /// The same store under another role's mirror (tests: two processes' views of one
    /// `memory://` store, which lives only inside one process).
    pub fn with_role(&self, role: &str) -> Result<Remote, StoreError> {
        let mirror = self.mirror.parent().map_or_else(|| self.mirror.clone(), |p| p.join(role));
        let (runtime, index) = open_mirror(&self.url, &mirror)?;
        let writer = format!("{role}-{}-{}", std::process::id(), (super::events::now() * 1e6) as u64);
        Ok(Remote { url: self.url.clone(), store: self.store.clone(), prefix: self.prefix.clone(), mirror, writer, runtime, index: Mutex::new(index) })
    }

    pub fn url(&self) -> &str {
        &self.url
    }

    pub fn mirror(&self) -> &Path {
        &self.mirror
    }

    /// This process's metrics file, relative to the run.
    pub fn metrics_rel(&self) -> String {
        format!("metrics/{}.jsonl", self.writer)
    }

    fn object(&self, rel: &str) -> ObjectPath {
        ObjectPath::from(format!("{}/{rel}", self.prefix.as_ref()).trim_start_matches('/'))
    }

    fn rel_of(&self, location: &ObjectPath) -> Option<String> {
        let p = self.prefix.as_ref();
        let l = location.as_ref();
        if p.is_empty() {
            return Some(l.to_string());
        }
        l.strip_prefix(p)?.strip_prefix('/').map(str::to_string)
    }

    fn show(&self, rel: &str) -> String {
        format!("{}/{rel}", self.url)
    }

    /// How `rel` is written.
    pub fn kind(&self, rel: &str) -> Kind {
        let name = rel.rsplit('/').next().unwrap_or(rel);
        if name.starts_with('.') || rel == "train.lock" || rel == "metrics.jsonl" || rel.contains('\\') {
            return Kind::Local;
        }
        if rel == "config.toml" || rel == "train/checkpoint.jzc" {
            return Kind::Replaced;
        }
        if let Some(m) = rel.strip_prefix("metrics/") {
            return if rel == self.metrics_rel() {
                Kind::Owned
            } else if m.ends_with(".jsonl") {
                Kind::Foreign
            } else {
                Kind::Local
            };
        }
        if rel.starts_with("report/") {
            return Kind::Owned;
        }
        let created_dir = ["games/", "models/", "candidates/", "rejected/", "verdicts/"].iter().any(|d| rel.starts_with(d));
        if created_dir || (name.starts_with("config-") && name.ends_with(".toml") && !rel.contains('/')) {
            return Kind::Created;
        }
        Kind::Local
    }

    fn save_index(&self, index: &Index) -> Result<(), StoreError> {
        let bytes = serde_json::to_vec(index).map_err(|e| store_error("cannot encode the sync index of", &self.url, e))?;
        super::write_atomic(&self.mirror.join(INDEX), &bytes)
    }

    fn list(&self, sub: Option<&str>) -> Result<Vec<object_store::ObjectMeta>, StoreError> {
        let prefix = match sub {
            Some(s) => self.object(s.trim_end_matches('/')),
            None => self.prefix.clone(),
        };
        let prefix = (!prefix.as_ref().is_empty()).then_some(prefix);
        self.runtime
            .block_on(self.store.list(prefix.as_ref()).try_collect::<Vec<_>>())
            .map_err(|e| store_error("cannot list", &self.show(sub.unwrap_or("")), e))
    }

    /// Downloads what changed in the store into the mirror: every object under the run, or only
    /// those under the given folders and files (`["models", "config.toml"]`). Created objects are
    /// fetched once; replaced and foreign ones when their version changed, unless the local copy
    /// has changes not pushed yet. Candidates that have a verdict are dropped from the mirror.
    pub fn pull(&self, only: Option<&[&str]>) -> Result<usize, StoreError> {
        let mut metas = Vec::new();
        match only {
            None => metas = self.list(None)?,
            Some(parts) => {
                let mut parts: Vec<&str> = parts.to_vec();
                if parts.contains(&"candidates") && !parts.contains(&"verdicts") {
                    parts.push("verdicts");
                }
                for p in parts {
                    if p.contains('.') {
                        // A file: a listing takes its name as a folder, so ask for the object itself.
                        match self.runtime.block_on(self.store.head(&self.object(p))) {
                            Ok(meta) => metas.push(meta),
                            Err(object_store::Error::NotFound { .. }) => {}
                            Err(e) => return Err(store_error("cannot read", &self.show(p), e)),
                        }
                    } else {
                        metas.extend(self.list(Some(p))?);
                    }
                }
            }
        }
        let decided: BTreeSet<u64> = metas.iter().filter_map(|m| generation_in(&self.rel_of(&m.location)?, "verdicts")).collect();
        let mut index = self.index.lock().unwrap_or_else(|e| e.into_inner());
        let mut fetched = 0;
        for meta in metas {
            let Some(rel) = self.rel_of(&meta.location) else { continue };
            let kind = self.kind(&rel);
            if matches!(kind, Kind::Local | Kind::Owned) {
                continue;
            }
            let local = self.mirror.join(&rel);
            if let Some(g) = generation_in(&rel, "candidates")
                && decided.contains(&g)
            {
                let _ = std::fs::remove_file(&local);
                index.files.remove(&rel);
                continue;
            }
            let stamp = file_stamp(&local);
            let known = index.files.get(&rel);
            let unchanged_locally = match (known, stamp) {
                (Some(k), Some((size, mtime))) => k.size == size && k.mtime_ns == mtime,
                _ => false,
            };
            let wanted = match kind {
                Kind::Created => stamp.is_none(),
                _ => match known {
                    Some(k) if stamp.is_some() => k.e_tag != meta.e_tag && unchanged_locally,
                    _ => true,
                },
            };
            if !wanted {
                continue;
            }
            let shown = self.show(&rel);
            let bytes =
                self.runtime.block_on(async { self.store.get(&meta.location).await?.bytes().await }).map_err(|e| store_error("cannot download", &shown, e))?;
            super::write_atomic(&local, &bytes)?;
            if let Some((size, mtime_ns)) = file_stamp(&local) {
                index.files.insert(rel, Synced { e_tag: meta.e_tag.clone(), version: meta.version.clone(), size, mtime_ns });
            }
            fetched += 1;
        }
        // A decided candidate may already be gone from the store; drop the mirror's copy too.
        for g in decided {
            let rel = format!("candidates/gen-{g:04}.jzm");
            let _ = std::fs::remove_file(self.mirror.join(&rel));
            index.files.remove(&rel);
        }
        self.save_index(&index)?;
        Ok(fetched)
    }

    /// Uploads one file of the mirror (`path` inside it) by its kind's rule, if it changed since
    /// it was last synced. A created object that already exists with the same bytes counts as
    /// uploaded (a retry after a kill); with other bytes it is an error.
    pub fn publish(&self, path: &Path) -> Result<bool, StoreError> {
        let Ok(rel) = path.strip_prefix(&self.mirror) else {
            return Err(conflict("not in the run's mirror:", &path.display().to_string(), "only files of the run are uploaded"));
        };
        let rel = rel.to_string_lossy().replace(std::path::MAIN_SEPARATOR, "/");
        let mut index = self.index.lock().unwrap_or_else(|e| e.into_inner());
        let done = self.publish_locked(&rel, &mut index)?;
        if done {
            self.save_index(&index)?;
        }
        Ok(done)
    }

    fn publish_locked(&self, rel: &str, index: &mut Index) -> Result<bool, StoreError> {
        let kind = self.kind(rel);
        if matches!(kind, Kind::Local | Kind::Foreign) {
            return Ok(false);
        }
        let local = self.mirror.join(rel);
        let Some((size, mtime_ns)) = file_stamp(&local) else { return Ok(false) };
        let known = index.files.get(rel).cloned();
        if known.as_ref().is_some_and(|k| k.size == size && k.mtime_ns == mtime_ns) {
            return Ok(false);
        }
        let bytes = super::read(&local)?;
        let mode = match (kind, &known) {
            (Kind::Replaced, Some(k)) if k.e_tag.is_some() => PutMode::Update(UpdateVersion { e_tag: k.e_tag.clone(), version: k.version.clone() }),
            (Kind::Created | Kind::Replaced, _) => PutMode::Create,
            _ => PutMode::Overwrite,
        };
        let location = self.object(rel);
        let shown = self.show(rel);
        let payload = PutPayload::from(bytes.clone());
        let result = self.runtime.block_on(self.store.put_opts(&location, payload, PutOptions { mode, ..Default::default() }));
        let (e_tag, version) = match result {
            Ok(r) => (r.e_tag, r.version),
            Err(object_store::Error::AlreadyExists { .. }) if kind == Kind::Created => {
                let (same, meta) = self
                    .runtime
                    .block_on(async {
                        let got = self.store.get(&location).await?;
                        let meta = got.meta.clone();
                        Ok::<_, object_store::Error>((got.bytes().await? == bytes, meta))
                    })
                    .map_err(|e| store_error("cannot download", &shown, e))?;
                if !same {
                    return Err(conflict("cannot upload", &shown, "another process already wrote an object under this name"));
                }
                (meta.e_tag, meta.version)
            }
            Err(object_store::Error::AlreadyExists { .. } | object_store::Error::Precondition { .. }) => {
                return Err(conflict(
                    "cannot replace",
                    &shown,
                    "it changed in the store since this process read it (another learner or trainer is working on the run)",
                ));
            }
            Err(e) => return Err(store_error("cannot upload", &shown, e)),
        };
        index.files.insert(rel.to_string(), Synced { e_tag, version, size, mtime_ns });
        Ok(true)
    }

    /// Uploads every file of the mirror that changed since it was synced: the trainer checkpoint
    /// first, then shards, candidates and networks, then the rest.
    pub fn push(&self) -> Result<usize, StoreError> {
        let mut files = Vec::new();
        walk(&self.mirror, &self.mirror, &mut files);
        let rank = |r: &String| match r.split('/').next().unwrap_or("") {
            "train" => 0,
            "games" => 1,
            "candidates" => 2,
            "models" | "rejected" => 3,
            _ => 4,
        };
        files.sort_by_key(|r| (rank(r), r.clone()));
        let mut index = self.index.lock().unwrap_or_else(|e| e.into_inner());
        let mut sent = 0;
        let mut result = Ok(());
        for rel in files {
            match self.publish_locked(&rel, &mut index) {
                Ok(true) => sent += 1,
                Ok(false) => {}
                Err(e) => {
                    result = Err(e);
                    break;
                }
            }
        }
        self.save_index(&index)?;
        result.map(|()| sent)
    }

    /// Claims generation `g`'s verdict (`"promoted"` or `"rejected"`): succeeds for exactly one
    /// gatekeeper.
    pub fn claim_verdict(&self, g: u64, verdict: &str) -> Result<(), StoreError> {
        let rel = format!("verdicts/gen-{g:04}");
        let body = serde_json::json!({ "generation": g, "verdict": verdict, "writer": self.writer, "time": super::events::now() });
        let location = self.object(&rel);
        let shown = self.show(&rel);
        let opts = PutOptions { mode: PutMode::Create, ..Default::default() };
        match self.runtime.block_on(self.store.put_opts(&location, PutPayload::from(body.to_string().into_bytes()), opts)) {
            Ok(r) => {
                let local = self.mirror.join(&rel);
                super::write_atomic(&local, body.to_string().as_bytes())?;
                let mut index = self.index.lock().unwrap_or_else(|e| e.into_inner());
                if let Some((size, mtime_ns)) = file_stamp(&local) {
                    index.files.insert(rel, Synced { e_tag: r.e_tag, version: r.version, size, mtime_ns });
                }
                self.save_index(&index)
            }
            Err(object_store::Error::AlreadyExists { .. } | object_store::Error::Precondition { .. }) => {
                Err(conflict("cannot gate", &format!("gen-{g:04}"), "another gatekeeper has already decided this candidate"))
            }
            Err(e) => Err(store_error("cannot write", &shown, e)),
        }
    }

    /// Finishes every verdict whose candidate is still in the store: a gatekeeper killed after
    /// its claim leaves the network only under candidates/. The network is written to models/ or
    /// rejected/ as the verdict says (create-only, so a second settler's same bytes are accepted),
    /// then the candidate is removed. Returns how many verdicts it finished.
    pub fn settle(&self) -> Result<usize, StoreError> {
        let gens = |sub: &str| -> Result<BTreeSet<u64>, StoreError> {
            Ok(self.list(Some(sub))?.iter().filter_map(|m| generation_in(&self.rel_of(&m.location)?, sub)).collect())
        };
        let waiting = gens("candidates")?;
        if waiting.is_empty() {
            return Ok(0);
        }
        let verdicts = gens("verdicts")?;
        let applied: BTreeSet<u64> = gens("models")?.union(&gens("rejected")?).copied().collect();
        let mut finished = 0;
        for &g in waiting.intersection(&verdicts) {
            if !applied.contains(&g) {
                let rel = format!("verdicts/gen-{g:04}");
                let shown = self.show(&rel);
                let body = self
                    .runtime
                    .block_on(async { self.store.get(&self.object(&rel)).await?.bytes().await })
                    .map_err(|e| store_error("cannot download", &shown, e))?;
                let verdict =
                    serde_json::from_slice::<serde_json::Value>(&body).ok().and_then(|v| v.get("verdict").and_then(|v| v.as_str()).map(str::to_string));
                let dir = match verdict.as_deref() {
                    Some("promoted") => "models",
                    Some("rejected") => "rejected",
                    _ => return Err(conflict("cannot settle", &shown, "the verdict is neither \"promoted\" nor \"rejected\"")),
                };
                let candidate = format!("candidates/gen-{g:04}.jzm");
                let shown = self.show(&candidate);
                let network = self
                    .runtime
                    .block_on(async { self.store.get(&self.object(&candidate)).await?.bytes().await })
                    .map_err(|e| store_error("cannot download", &shown, e))?;
                let local = self.mirror.join(format!("{dir}/gen-{g:04}.jzm"));
                super::write_atomic(&local, &network)?;
                self.publish(&local)?;
            }
            self.forget_candidate(g);
            finished += 1;
        }
        Ok(finished)
    }

    /// Removes a decided candidate from the store (its verdict and network are there; a
    /// failure here only leaves a listed candidate that readers skip).
    pub fn forget_candidate(&self, g: u64) {
        let rel = format!("candidates/gen-{g:04}.jzm");
        let _ = self.runtime.block_on(self.store.delete(&self.object(&rel)));
        self.index.lock().unwrap_or_else(|e| e.into_inner()).files.remove(&rel);
    }
}

/// Every file under `dir`, as paths relative to `root` with `/` separators.
fn walk(root: &Path, dir: &Path, out: &mut Vec<String>) {
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    for e in entries.flatten() {
        let path = e.path();
        match e.file_type() {
            Ok(t) if t.is_dir() => walk(root, &path, out),
            Ok(t) if t.is_file() => {
                if let Ok(rel) = path.strip_prefix(root) {
                    out.push(rel.to_string_lossy().replace(std::path::MAIN_SEPARATOR, "/"));
                }
            }
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn run_specs() {
        assert!(is_remote("s3://bucket/run"));
        assert!(is_remote("memory://"));
        assert!(!is_remote("file:///tmp/run"));
        assert!(!is_remote("checkpoints/default"));
        assert_eq!(local_path("file:///tmp/run"), PathBuf::from("/tmp/run"));
        assert_eq!(folder_name("s3://b/p q"), "s3___b_p_q");
    }

    #[test]
    fn kinds_follow_the_names() {
        let dir = std::env::temp_dir().join(format!("jz-kinds-{}", std::process::id()));
        let r = Remote::open_in("memory:///kinds", "learn", &dir).unwrap();
        assert_eq!(r.kind("games/a-1-2-00000.jzg"), Kind::Created);
        assert_eq!(r.kind("candidates/gen-0003.jzm"), Kind::Created);
        assert_eq!(r.kind("verdicts/gen-0003"), Kind::Created);
        assert_eq!(r.kind("config-1700000000.toml"), Kind::Created);
        assert_eq!(r.kind("config.toml"), Kind::Replaced);
        assert_eq!(r.kind("train/checkpoint.jzc"), Kind::Replaced);
        assert_eq!(r.kind(&r.metrics_rel()), Kind::Owned);
        assert_eq!(r.kind("metrics/selfplay-h-1-2.jsonl"), Kind::Foreign);
        assert_eq!(r.kind("games/.a.jzg.tmp-12"), Kind::Local);
        assert_eq!(r.kind("train.lock"), Kind::Local);
        assert_eq!(r.kind(".sync.json"), Kind::Local);
        assert_eq!(generation_in("verdicts/gen-0012", "verdicts"), Some(12));
        assert_eq!(generation_in("candidates/gen-0012.jzm", "candidates"), Some(12));
        assert_eq!(generation_in("models/gen-0012.jzm", "candidates"), None);
        let _ = std::fs::remove_dir_all(dir);
    }
}
