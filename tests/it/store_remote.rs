//! The object-store run layer's contract (src/store/remote.rs), on `memory://` and, when
//! `JZ_TEST_STORE_URL` names one (`.ci/run` starts an S3 server on 127.0.0.1 and sets it, with
//! `AWS_ENDPOINT_URL` and keys), on a real S3 endpoint: create-only objects, the checkpoint
//! replaced only on the version read, one verdict per candidate among concurrent gatekeepers,
//! listings while shards are being written, and every process's metrics merged.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

use junglezero::store::events::{Event, GateEvent};
use junglezero::store::remote::Remote;
use junglezero::store::run::RunDir;

static COUNTER: AtomicU64 = AtomicU64::new(0);

/// A fresh run URL and a cache folder for its mirrors.
fn fresh(name: &str) -> (String, PathBuf) {
    let n = COUNTER.fetch_add(1, Ordering::Relaxed);
    let stamp = format!("{}-{}-{n}", std::process::id(), std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_nanos());
    let base = std::env::var("JZ_TEST_STORE_URL").unwrap_or_else(|_| "memory:///".into());
    let url = format!("{}/{name}-{stamp}", base.trim_end_matches('/'));
    let cache = std::env::temp_dir().join(format!("jz-store-test-{stamp}"));
    (url, cache)
}

/// Processes' views of one run, one per role: separate mirrors (and for a real store separate
/// clients; a `memory://` store lives inside one client, so there the views share it).
fn views<const N: usize>(url: &str, cache: &Path, roles: [&str; N]) -> [RunDir; N] {
    let first = Remote::open_in(url, roles[0], cache).unwrap();
    let others: Vec<Remote> = roles[1..]
        .iter()
        .map(|role| if url.starts_with("memory:") { first.with_role(role).unwrap() } else { Remote::open_in(url, role, cache).unwrap() })
        .collect();
    let all: Vec<RunDir> = std::iter::once(first).chain(others).map(RunDir::remote).collect();
    all.try_into().unwrap()
}

fn write(run: &RunDir, rel: &str, bytes: &[u8]) -> PathBuf {
    let path = run.root().join(rel);
    junglezero::store::write_atomic(&path, bytes).unwrap();
    path
}

#[test]
fn created_objects_are_never_overwritten() {
    let (url, cache) = fresh("create");
    let [a, b, c] = views(&url, &cache, ["selfplay", "learn", "check"]);
    let shard = write(&a, "games/g-1-1-00000.jzg", b"first writer");
    a.publish(&shard).unwrap();
    // The same name with other bytes from another process: refused, the first object kept.
    let other = write(&b, "games/g-1-1-00000.jzg", b"second writer");
    let err = b.publish(&other).unwrap_err().to_string();
    assert!(err.contains("another process already wrote"), "{err}");
    // The same bytes again (a retry after a kill between upload and bookkeeping) are fine.
    write(&b, "games/g-1-1-00000.jzg", b"first writer");
    b.publish(&other).unwrap();
    assert_eq!(c.pull(None).unwrap(), 1);
    assert_eq!(std::fs::read(c.root().join("games/g-1-1-00000.jzg")).unwrap(), b"first writer");
    let _ = std::fs::remove_dir_all(cache);
}

#[test]
fn the_checkpoint_is_replaced_only_on_the_version_read() {
    let (url, cache) = fresh("swap");
    let [a, b, c] = views(&url, &cache, ["learn", "learn2", "reader"]);
    write(&a, "train/checkpoint.jzc", b"v1");
    assert_eq!(a.push().unwrap(), 1);
    b.pull(None).unwrap();
    assert_eq!(std::fs::read(b.root().join("train/checkpoint.jzc")).unwrap(), b"v1");
    // a replaces v1 with v2; b, still on v1, cannot replace it with its own.
    write(&a, "train/checkpoint.jzc", b"v2 from a, a longer file");
    assert_eq!(a.push().unwrap(), 1);
    write(&b, "train/checkpoint.jzc", b"v2 from b");
    let err = b.push().unwrap_err().to_string();
    assert!(err.contains("changed in the store since this process read it"), "{err}");
    // A fresh reader sees a's version, whole.
    c.pull(None).unwrap();
    assert_eq!(std::fs::read(c.root().join("train/checkpoint.jzc")).unwrap(), b"v2 from a, a longer file");
    // a, on the version it wrote, goes on replacing it.
    write(&a, "train/checkpoint.jzc", b"v3");
    assert_eq!(a.push().unwrap(), 1);
    // b's local change is kept through a pull (not overwritten), and still refused.
    b.pull(None).unwrap();
    assert_eq!(std::fs::read(b.root().join("train/checkpoint.jzc")).unwrap(), b"v2 from b");
    assert!(b.push().is_err());
    let _ = std::fs::remove_dir_all(cache);
}

#[test]
fn of_two_gatekeepers_one_decides() {
    let (url, cache) = fresh("gate");
    let [learner, g1, g2, reader] = views(&url, &cache, ["learn", "gate", "gate2", "report"]);
    write(&learner, "config.toml", b"# config\n");
    write(&learner, "models/gen-0000.jzm", b"network 0");
    write(&learner, "candidates/gen-0001.jzm", b"network 1");
    assert_eq!(learner.push().unwrap(), 3);
    g1.pull(None).unwrap();
    g2.pull(None).unwrap();
    // What a self-play process pulls: the config file and the networks, nothing else.
    let [selfplay] = views(&url, &cache, ["selfplay"]);
    let selfplay = if url.starts_with("memory:") { RunDir::remote(g1.store().unwrap().with_role("selfplay").unwrap()) } else { selfplay };
    assert_eq!(selfplay.pull(Some(&["config.toml", "models"])).unwrap(), 2);
    assert!(selfplay.exists() && selfplay.best().is_some() && selfplay.candidates().is_empty());
    assert_eq!(g1.candidates().len(), 1);
    assert_eq!(g2.candidates().len(), 1);
    // Two gatekeepers decide at once, in threads: exactly one wins.
    let (r1, r2) = std::thread::scope(|s| {
        let t1 = s.spawn(|| g1.promote(1).map_err(|e| e.to_string()));
        let t2 = s.spawn(|| g2.reject(1).map_err(|e| e.to_string()));
        (t1.join().unwrap(), t2.join().unwrap())
    });
    assert!(r1.is_ok() != r2.is_ok(), "exactly one gatekeeper decides: {r1:?} {r2:?}");
    let loser = r1.as_ref().err().or(r2.as_ref().err()).unwrap();
    assert!(loser.contains("cannot gate gen-0001") && loser.contains("another gatekeeper"), "{loser}");
    // Everyone who pulls now sees the winner's verdict and no waiting candidate.
    reader.pull(None).unwrap();
    assert!(reader.candidates().is_empty());
    let promoted = r1.is_ok();
    assert_eq!(reader.best().map(|(g, _)| g), Some(if promoted { 1 } else { 0 }));
    assert_eq!(reader.rejected().len(), usize::from(!promoted));
    // The losing gatekeeper's next pull drops the decided candidate from its mirror.
    let loser_run = if promoted { &g2 } else { &g1 };
    loser_run.pull(None).unwrap();
    assert!(loser_run.candidates().is_empty());
    let _ = std::fs::remove_dir_all(cache);
}

#[test]
fn a_verdict_left_by_a_killed_gatekeeper_is_finished() {
    let (url, cache) = fresh("settle");
    let [learner, killed, next, reader] = views(&url, &cache, ["learn", "gate", "gate2", "report"]);
    write(&learner, "config.toml", b"# config\n");
    write(&learner, "models/gen-0000.jzm", b"network 0");
    write(&learner, "candidates/gen-0001.jzm", b"network 1");
    write(&learner, "candidates/gen-0002.jzm", b"network 2");
    assert_eq!(learner.push().unwrap(), 4);
    // A gatekeeper claims both verdicts and dies before it uploads either network.
    killed.pull(None).unwrap();
    killed.store().unwrap().claim_verdict(1, "rejected").unwrap();
    killed.store().unwrap().claim_verdict(2, "promoted").unwrap();
    // Its successor's mirror has no rejected/ folder yet; settling finishes both verdicts.
    next.pull(None).unwrap();
    assert!(next.candidates().is_empty(), "decided candidates are not waiting");
    assert_eq!(next.settle().unwrap(), 2);
    assert_eq!(next.settle().unwrap(), 0, "nothing is left to finish");
    reader.pull(None).unwrap();
    assert!(reader.candidates().is_empty());
    assert_eq!(reader.best().map(|(g, _)| g), Some(2));
    assert_eq!(std::fs::read(reader.model_path(2)).unwrap(), b"network 2");
    assert_eq!(std::fs::read(reader.rejected_path(1)).unwrap(), b"network 1");
    // A gatekeeper whose mirror has never seen a rejection can still reject.
    write(&learner, "candidates/gen-0003.jzm", b"network 3");
    learner.push().unwrap();
    let [fresh_gate] = views(&url, &cache, ["gate3"]);
    let fresh_gate = if url.starts_with("memory:") { RunDir::remote(learner.store().unwrap().with_role("gate3").unwrap()) } else { fresh_gate };
    fresh_gate.pull(Some(&["config.toml", "models", "candidates"])).unwrap();
    assert!(!fresh_gate.rejected_dir().exists());
    fresh_gate.reject(3).unwrap();
    reader.pull(None).unwrap();
    assert_eq!(reader.rejected().len(), 2);
    let _ = std::fs::remove_dir_all(cache);
}

#[test]
fn listing_while_writing_sees_only_whole_shards() {
    let (url, cache) = fresh("listing");
    let [writer, reader] = views(&url, &cache, ["selfplay", "learn"]);
    const SHARDS: usize = 12;
    // Each shard: its length as 8 bytes, then that many bytes of a pattern.
    let body = |i: usize| {
        let n = 20_000 + 7_919 * i;
        let mut v = (n as u64).to_le_bytes().to_vec();
        v.extend((0..n).map(|k| (k * 31 + i) as u8));
        v
    };
    std::thread::scope(|s| {
        s.spawn(|| {
            for i in 0..SHARDS {
                let p = write(&writer, &format!("games/w-1-1-{i:05}.jzg"), &body(i));
                writer.publish(&p).unwrap();
            }
        });
        let mut seen = 0;
        for _ in 0..10_000 {
            reader.pull(Some(&["games"])).unwrap();
            let shards = reader.shards();
            for p in &shards {
                let bytes = std::fs::read(p).unwrap();
                let n = u64::from_le_bytes(bytes[..8].try_into().unwrap()) as usize;
                assert_eq!(bytes.len(), n + 8, "{} read whole", p.display());
            }
            seen = shards.len();
            if seen == SHARDS {
                break;
            }
        }
        assert_eq!(seen, SHARDS);
    });
    for i in 0..SHARDS {
        assert_eq!(std::fs::read(reader.root().join(format!("games/w-1-1-{i:05}.jzg"))).unwrap(), body(i));
    }
    let _ = std::fs::remove_dir_all(cache);
}

#[test]
fn every_process_keeps_its_own_metrics_and_readers_merge_them() {
    let (url, cache) = fresh("metrics");
    let [a, b, c] = views(&url, &cache, ["learn", "gate", "report"]);
    let gate = |t: f64, g: u64| Event::Gate(GateEvent { time: t, generation: g, accepted: true, reason: "test".into(), ..GateEvent::default() });
    a.append_event(&gate(1.0, 1)).unwrap();
    b.append_event(&gate(2.0, 2)).unwrap();
    a.append_event(&gate(3.0, 3)).unwrap();
    a.push().unwrap();
    b.push().unwrap();
    // a appends again after its first upload: its own object is replaced.
    a.append_event(&gate(4.0, 4)).unwrap();
    a.push().unwrap();
    c.pull(None).unwrap();
    let (events, problems) = c.read_events();
    assert!(problems.is_empty(), "{problems:?}");
    let gens: Vec<u64> = events.iter().map(|e| if let Event::Gate(g) = e { g.generation } else { 0 }).collect();
    assert_eq!(gens, vec![1, 2, 3, 4]);
    // A process never uploads another's metrics file, even if its mirror holds a copy.
    assert_eq!(c.push().unwrap(), 0);
    let _ = std::fs::remove_dir_all(cache);
}

#[test]
fn a_killed_upload_leaves_nothing_and_temporaries_stay_local() {
    let (url, cache) = fresh("temporaries");
    let [a, b] = views(&url, &cache, ["selfplay", "learn"]);
    // What a killed writer leaves in its mirror: a temporary file, and a lock.
    write(&a, "games/.w-1-1-00000.jzg.tmp-4242", b"half a sha");
    write(&a, "train.lock", b"");
    write(&a, ".sync.json.tmp", b"");
    assert_eq!(a.push().unwrap(), 0);
    assert_eq!(b.pull(None).unwrap(), 0);
    assert!(b.shards().is_empty());
    let _ = std::fs::remove_dir_all(cache);
}

#[test]
fn without_credentials_and_with_the_metadata_look_up_off_s3_is_refused_at_once() {
    // Through the binary: its environment is the test's to set (endpoint named, nothing asked
    // of any address).
    let o = std::process::Command::new(env!("CARGO_BIN_EXE_junglezero"))
        .args(["verify", "--run", "s3://jz-none/run"])
        .env_clear()
        .env("AWS_EC2_METADATA_DISABLED", "true")
        .env("AWS_ENDPOINT", "http://127.0.0.1:9")
        .env("AWS_REGION", "us-east-1")
        .env("JZ_CACHE_DIR", std::env::temp_dir().join(format!("jz-nocred-{}", std::process::id())))
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(err.contains("s3://jz-none/run") && err.contains("AWS_ACCESS_KEY_ID") && err.contains("AWS_EC2_METADATA_DISABLED"), "{err}");
}

#[test]
fn bad_urls_are_one_line_errors() {
    let err = RunDir::open("s3://", "train").unwrap_err().to_string();
    assert!(!err.contains('\n') && err.contains("s3://"), "{err}");
    let err = RunDir::open("nosuchscheme://x/y", "train").unwrap_err().to_string();
    assert!(!err.contains('\n') && err.contains("nosuchscheme://x/y"), "{err}");
    // Plain paths and file:// stay directories.
    let run = RunDir::open("file:///tmp/jz-plain", "train").unwrap();
    assert!(run.store().is_none());
    assert_eq!(run.root(), Path::new("/tmp/jz-plain"));
}
