//! Hostile input and faults, by class: a run never loses a promoted network, numbers that are
//! not numbers are refused, every read of outside input has a cap, no process outlives the
//! command that started it, the protocol answers during a search, output paths that are
//! devices or pipes are written through (links never are), and the smaller cases (impossible positions, section
//! overrides, errors said once and cut to a line).

use std::io::{BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use junglezero::jungle::parse_fen;
use junglezero::store::run::RunDir;

/// The binary under test: this build's, or another build named by `JZ_TEST_BIN` (to show
/// that a test fails on an older build).
fn bin() -> String {
    std::env::var("JZ_TEST_BIN").unwrap_or_else(|_| env!("CARGO_BIN_EXE_junglezero").to_string())
}

fn junglezero(args: &[&str]) -> Output {
    Command::new(bin()).args(args).output().expect("binary runs")
}

fn tmp(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("jz-hostile-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn smoke_config() -> String {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("configs/smoke.toml").display().to_string()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// The last line of stderr of a command that must fail with exit code 2.
fn refused(o: &Output) -> String {
    assert_eq!(o.status.code(), Some(2), "expected a refusal: {}", stderr(o));
    let err = stderr(o);
    err.lines().last().unwrap_or("").to_string()
}

/// Every file under the run's models/, rejected/ and games/ with its bytes.
fn run_files(dir: &Path) -> Vec<(PathBuf, Vec<u8>)> {
    let mut out = Vec::new();
    for sub in ["models", "rejected", "games"] {
        for e in std::fs::read_dir(dir.join(sub)).into_iter().flatten().flatten() {
            out.push((e.path(), std::fs::read(e.path()).unwrap()));
        }
    }
    out.sort();
    out
}

fn assert_kept(before: &[(PathBuf, Vec<u8>)]) {
    for (p, b) in before {
        assert_eq!(&std::fs::read(p).unwrap_or_default(), b, "{} changed or vanished", p.display());
    }
}

fn verify_problems(dir: &Path) -> Vec<String> {
    let o = junglezero(&["verify", "--run", dir.to_str().unwrap(), "--json"]);
    let v: serde_json::Value =
        serde_json::from_slice(&o.stdout).unwrap_or_else(|_| panic!("verify --json: {}{}", String::from_utf8_lossy(&o.stdout), stderr(&o)));
    v["problems"].as_array().unwrap().iter().map(|p| p.as_str().unwrap().to_string()).collect()
}

// 1. A run never loses a promoted network.

#[test]
fn a_run_without_its_checkpoint_is_refused_then_rebuilt_without_losing_a_network() {
    let dir = tmp("no-checkpoint");
    let d = dir.to_str().unwrap();
    let o = junglezero(&["train", "--config", &smoke_config(), "--run", d, "--set", "train.iterations=1"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let run = RunDir::new(&dir);
    assert!(verify_problems(&dir).is_empty(), "a sound run has no problems");
    let before = run_files(&dir);
    std::fs::remove_file(run.checkpoint_path()).unwrap();

    let problems = verify_problems(&dir);
    assert!(problems.iter().any(|p| p.contains("checkpoint is missing")), "{problems:?}");
    let line = refused(&junglezero(&["train", "--run", d, "--set", "train.iterations=2"]));
    assert!(line.contains("gen-0001") && line.contains("--rebuild"), "{line}");
    assert_kept(&before);

    let o = junglezero(&["train", "--run", d, "--rebuild", "--set", "train.iterations=2"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_kept(&before);
    assert_eq!(run.highest_generation(), Some(2), "training went on from generation 1");
    assert!(verify_problems(&dir).is_empty(), "{:?}", verify_problems(&dir));

    // A checkpoint older than the run's networks is refused the same way.
    let stale = tmp("stale-checkpoint");
    let o = junglezero(&["train", "--config", &smoke_config(), "--run", stale.to_str().unwrap(), "--set", "train.iterations=1"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let old = RunDir::new(&stale).checkpoint_path();
    std::fs::copy(&old, run.checkpoint_path()).unwrap();
    let line = refused(&junglezero(&["learn", "--run", d]));
    assert!(line.contains("generation 1") && line.contains("gen-0002") && line.contains("--rebuild"), "{line}");

    // A network of another run is told apart by verify.
    let o = junglezero(&["train", "--run", d, "--rebuild", "--set", "train.iterations=2"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let foreign = RunDir::new(&stale).generation_file(1).unwrap();
    let ours = run.generation_file(1).unwrap();
    std::fs::copy(&foreign, &ours).unwrap();
    let problems = verify_problems(&dir);
    assert!(problems.iter().any(|p| p.contains("another run")), "{problems:?}");

    // A missing models/ folder is a problem too.
    std::fs::rename(run.models_dir(), dir.join("models-moved")).unwrap();
    let problems = verify_problems(&dir);
    assert!(problems.iter().any(|p| p.contains("models/") && p.contains("missing")), "{problems:?}");
    std::fs::remove_dir_all(&dir).unwrap();
    std::fs::remove_dir_all(&stale).unwrap();
}

#[test]
fn promoting_over_an_existing_network_is_refused() {
    let dir = tmp("promote");
    let run = RunDir::new(&dir);
    run.create_dirs().unwrap();
    std::fs::write(run.model_path(3), b"the promoted network").unwrap();
    std::fs::write(run.candidate_path(3), b"a candidate of the same generation").unwrap();
    let e = run.promote(3).unwrap_err().to_string();
    assert!(e.contains("never replaced"), "{e}");
    assert_eq!(std::fs::read(run.model_path(3)).unwrap(), b"the promoted network");
    assert!(run.candidate_path(3).exists(), "the candidate stays where it was");
    std::fs::remove_dir_all(&dir).unwrap();
}

// 2. Numbers that are not numbers.

#[test]
fn non_finite_and_out_of_range_numbers_are_refused_by_name() {
    for (args, want) in [
        (vec!["train", "--run", "/nonexistent/x", "--set", "train.lr=nan"], "train.lr"),
        (vec!["train", "--run", "/nonexistent/x", "--set", "mcts.c_puct=inf"], "mcts.c_puct"),
        (vec!["train", "--run", "/nonexistent/x", "--set", "train={lr=0.5}"], "section"),
        (vec!["arena", "--a", "random", "--b", "mcts:model=x.jzm,cpuct=-1", "--games", "2"], "cpuct"),
        (vec!["arena", "--a", "random", "--b", "mcts:model=x.jzm,cpuct=nan", "--games", "2"], "cpuct"),
        (vec!["arena", "--a", "random", "--b", "alphabeta:depth=1000000", "--games", "2"], "depth"),
        (vec!["arena", "--a", "random", "--b", "alphabeta:movetime=99999999999", "--games", "2"], "movetime"),
        (vec!["arena", "--a", "random", "--b", "alphabeta:depth=2,hash=1048576", "--games", "2"], "hash"),
    ] {
        let line = refused(&junglezero(&args));
        assert!(line.contains(want), "{args:?}: {line}");
    }
}

#[test]
fn a_network_with_nan_weights_does_not_load() {
    use junglezero::nn::model::ModelConfig;
    use junglezero::nn::modelfile;
    let dir = tmp("nan-net");
    let shape = junglezero::jungle::encode::SHAPE;
    let model = ModelConfig { blocks: 1, channels: 8, policy_channels: 4, value_channels: 2, value_hidden: 16, ..ModelConfig::default() };
    let device = junglezero::nn::device::parse_device("flex").unwrap();
    let net = model.init(shape, &device);
    let poisoned = junglezero::nn::model::average::blend(&net, &net, f64::NAN).unwrap();
    let path = dir.join("nan.jzm");
    let meta = modelfile::fresh_meta(&model, shape, &junglezero::jungle::Rules::default().to_string(), "nan");
    std::fs::write(&path, modelfile::encode(&poisoned, &meta).unwrap()).unwrap();
    let e = modelfile::load(&path, &device, shape).expect_err("refused").to_string();
    assert!(e.contains("NaN"), "{e}");
    let spec = format!("mcts:model={},sims=8", path.display());
    let line = refused(&junglezero(&["arena", "--a", "random", "--b", &spec, "--games", "2"]));
    assert!(line.contains("NaN") && line.contains("nan.jzm"), "{line}");
    std::fs::remove_dir_all(&dir).unwrap();
}

// 3. Sizes without a limit.

#[test]
fn endless_and_oversized_inputs_are_refused_after_a_bounded_read() {
    let line = refused(&junglezero(&["search", "--config", "/dev/zero", "--depth", "1"]));
    assert!(line.contains("/dev/zero") && line.contains("config"), "{line}");
    let line = refused(&junglezero(&["arena", "--a", "random", "--b", "mcts:model=/dev/zero", "--games", "2"]));
    assert!(line.contains("/dev/zero") && line.contains("not a regular file"), "{line}");
    let dir = tmp("big");
    let big = dir.join("big.toml");
    std::fs::write(&big, format!("# {}\n", "x".repeat(2 << 20))).unwrap();
    let line = refused(&junglezero(&["search", "--config", big.to_str().unwrap(), "--depth", "1"]));
    assert!(line.contains("larger than 1 MiB"), "{line}");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// The peak memory of a live process, in KiB (Linux).
fn peak_kib(pid: u32) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
    status.lines().find(|l| l.starts_with("VmHWM:")).and_then(|l| l.split_whitespace().nth(1)?.parse().ok()).unwrap_or(0)
}

#[test]
fn a_300_mb_protocol_line_is_refused_with_bounded_memory() {
    let mut child = Command::new(bin()).arg("uci").stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::null()).spawn().unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let stdout = child.stdout.take().unwrap();
    let writer = std::thread::spawn(move || {
        let chunk = vec![b'x'; 1 << 20];
        stdin.write_all(b"position fen ").unwrap();
        for _ in 0..300 {
            stdin.write_all(&chunk).unwrap();
        }
        stdin.write_all(b"\nisready\n").unwrap();
        stdin
    });
    let mut lines = BufReader::new(stdout).lines();
    let first = lines.next().unwrap().unwrap();
    assert!(first.starts_with("info string error") && first.contains("longer than 1 MiB") && first.len() < 200, "{first}");
    assert_eq!(lines.next().unwrap().unwrap(), "readyok");
    let peak = peak_kib(child.id());
    let mut stdin = writer.join().unwrap();
    stdin.write_all(b"quit\n").unwrap();
    assert!(child.wait().unwrap().success());
    assert!(peak > 0 && peak < 150 * 1024, "peak memory {peak} KiB while reading a 300 MB line");
}

// 4. Processes left behind.

/// Processes whose command line contains `marker`.
fn processes_with(marker: &str) -> Vec<u32> {
    let mut out = Vec::new();
    for e in std::fs::read_dir("/proc").unwrap().flatten() {
        let Ok(pid) = e.file_name().to_string_lossy().parse::<u32>() else { continue };
        let cmdline = std::fs::read(e.path().join("cmdline")).unwrap_or_default();
        let text = String::from_utf8_lossy(&cmdline).replace('\0', " ");
        if text.contains(marker) && !text.contains("jz-engine-script") {
            out.push(pid);
        }
    }
    out
}

/// An engine that completes the handshake, starts a helper that would run for ever, and then
/// answers every search with a move that cannot be read (so each game is a forfeit).
fn confused_engine(dir: &Path, marker: &str) -> String {
    let script = dir.join("jz-engine-script.sh");
    std::fs::write(
        &script,
        format!(
            "sleep {marker} &\nwhile read line; do\n  case \"$line\" in\n    uci) echo 'id name confused'; echo uciok;;\n    isready) echo readyok;;\n    go*) echo 'bestmove zz99';;\n  esac\ndone\n"
        ),
    )
    .unwrap();
    format!("sh {}", script.display())
}

#[test]
fn an_external_engine_and_what_it_started_end_with_the_match() {
    let dir = tmp("engine-group");
    let marker = format!("{}.{}", 4000 + std::process::id() % 1000, 17);
    let spec = format!("external:cmd=\"{}\",movetime=50", confused_engine(&dir, &marker));
    let o = junglezero(&["arena", "--a", "random", "--b", &spec, "--games", "2", "--set", "arena.max_consecutive_forfeits=0", "--set", "arena.concurrency=1"]);
    assert!(o.status.success(), "{}", stderr(&o));
    std::thread::sleep(Duration::from_millis(200));
    assert_eq!(processes_with(&format!("sleep {marker}")), Vec::<u32>::new(), "the engine's helper outlived the match");

    // Ended by a signal mid-match: the same.
    let mut child = Command::new(bin())
        .args([
            "arena",
            "--a",
            "alphabeta:depth=3",
            "--b",
            &spec,
            "--games",
            "400",
            "--set",
            "arena.max_consecutive_forfeits=0",
            "--set",
            "arena.concurrency=1",
        ])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let start = Instant::now();
    while processes_with(&format!("sleep {marker}")).is_empty() && start.elapsed() < Duration::from_secs(20) {
        std::thread::sleep(Duration::from_millis(20));
    }
    assert!(!processes_with(&format!("sleep {marker}")).is_empty(), "the engine never started");
    // SAFETY: a plain signal to our own child.
    unsafe { libc::kill(child.id() as i32, libc::SIGTERM) };
    child.wait().unwrap();
    std::thread::sleep(Duration::from_millis(200));
    assert_eq!(processes_with(&format!("sleep {marker}")), Vec::<u32>::new(), "the engine's helper outlived a terminated match");
    std::fs::remove_dir_all(&dir).unwrap();
}

// 5. The protocol answers during a search.

#[test]
fn stop_isready_and_quit_are_answered_during_any_search() {
    let mut child =
        Command::new(bin()).args(["uci", "--set", "search.threads=1"]).stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::null()).spawn().unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let (tx, rx) = std::sync::mpsc::channel();
    let stdout = child.stdout.take().unwrap();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines().map_while(Result::ok) {
            let _ = tx.send(line);
        }
    });
    let wait_for = |want: &str, within: Duration| -> Vec<String> {
        let deadline = Instant::now() + within;
        let mut seen = Vec::new();
        while let Ok(line) = rx.recv_timeout(deadline.saturating_duration_since(Instant::now())) {
            let done = line.starts_with(want);
            seen.push(line);
            if done {
                return seen;
            }
        }
        panic!("no '{want}' within {within:?}; saw {seen:?}");
    };
    stdin.write_all(b"position startpos\ngo depth 30\ngo depth 1\nisready\n").unwrap();
    wait_for("readyok", Duration::from_secs(2));
    stdin.write_all(b"stop\n").unwrap();
    // The first search's answer, then the second search (depth 1) runs and answers too.
    wait_for("bestmove", Duration::from_secs(3));
    wait_for("bestmove", Duration::from_secs(3));
    stdin.write_all(b"go depth 30\nquit\n").unwrap();
    let start = Instant::now();
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            assert!(status.success());
            break;
        }
        assert!(start.elapsed() < Duration::from_secs(3), "quit was not answered during a search");
        std::thread::sleep(Duration::from_millis(10));
    }
}

// 7. Output paths that are not regular files.

#[test]
fn outputs_to_pipes_are_written_through_and_links_never_are() {
    let dir = tmp("outputs");
    let target = dir.join("target.json");
    let link = dir.join("link.json");
    std::os::unix::fs::symlink(&target, &link).unwrap();
    let fifo = dir.join("games.fifo");
    let c = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
    // SAFETY: a plain mkfifo(3) on a path we own.
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o644) }, 0);
    let reader = {
        let fifo = fifo.clone();
        std::thread::spawn(move || {
            let mut text = String::new();
            std::fs::File::open(&fifo).unwrap().read_to_string(&mut text).unwrap();
            text
        })
    };
    let line = refused(&junglezero(&["arena", "--a", "random", "--b", "random", "--games", "2", "--json", link.to_str().unwrap()]));
    assert!(line.contains("symbolic link"), "{line}");
    assert!(!target.exists(), "nothing written through the link");
    let json_path = dir.join("result.json");
    let o =
        junglezero(&["arena", "--a", "random", "--b", "random", "--games", "2", "--json", json_path.to_str().unwrap(), "--games-out", fifo.to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
    let json: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&json_path).unwrap()).unwrap();
    assert!(json["games"].as_u64().is_some() || json.get("score").is_some(), "{json}");
    let games = reader.join().unwrap();
    assert!(games.contains("[Event"), "{games}");
    use std::os::unix::fs::FileTypeExt;
    assert!(std::fs::symlink_metadata(&fifo).unwrap().file_type().is_fifo(), "the FIFO is still a FIFO");
    let line = refused(&junglezero(&["arena", "--a", "random", "--b", "random", "--games", "2", "--json", dir.to_str().unwrap()]));
    assert!(line.contains("directory"), "{line}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_fifo_or_a_link_as_the_run_lock_is_refused_without_waiting() {
    let dir = tmp("fifo-lock");
    let d = dir.to_str().unwrap();
    let lock = dir.join("train.lock");
    let c = std::ffi::CString::new(lock.to_str().unwrap()).unwrap();
    // SAFETY: a plain mkfifo(3) on a path we own.
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o644) }, 0);
    // train, learn and gate take the lock alike (RunDir::lock_trainer). A process blocked on
    // the FIFO never ends: wait a bounded time, then fail.
    let args = ["train", "--config", &smoke_config(), "--run", d, "--set", "train.iterations=1"];
    let mut child = Command::new(bin()).args(args).stdout(std::process::Stdio::null()).stderr(std::process::Stdio::piped()).spawn().unwrap();
    let start = Instant::now();
    while child.try_wait().unwrap().is_none() {
        if start.elapsed() > Duration::from_secs(20) {
            let _ = child.kill();
            let _ = child.wait();
            panic!("train waits on a FIFO train.lock");
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    let line = refused(&child.wait_with_output().unwrap());
    assert!(line.contains("train.lock") && line.contains("FIFO"), "{line}");
    std::fs::remove_file(&lock).unwrap();
    let elsewhere = dir.join("elsewhere");
    std::os::unix::fs::symlink(&elsewhere, &lock).unwrap();
    let line = refused(&junglezero(&["train", "--config", &smoke_config(), "--run", d, "--set", "train.iterations=1"]));
    assert!(line.contains("train.lock") && line.contains("link"), "{line}");
    assert!(!elsewhere.exists(), "nothing created through the link");
    std::fs::remove_dir_all(&dir).unwrap();
}

// 8. The smaller cases.

#[test]
fn impossible_positions_are_refused() {
    let e = parse_fen("7/7/7/7/7/7/7/7/7 w 0 1").unwrap_err().to_string();
    assert!(e.contains("no pieces"), "{e}");
    // A Red piece in Blue's den and a Blue piece in Red's.
    let e = parse_fen("3R3/7/7/7/7/7/7/7/3r3 w 0 1").unwrap_err().to_string();
    assert!(e.contains("both dens"), "{e}");
    // One den entered is a finished game, which is a position.
    assert!(parse_fen("3R3/7/7/7/7/7/7/7/6r b 0 1").is_ok());
}

#[test]
fn errors_say_each_cause_once_and_fit_on_a_line() {
    let dir = tmp("errors");
    let model = dir.join("corrupt.jzm");
    // A model file with a bad checksum.
    let mut bytes = b"JZNM\x01\x00".to_vec();
    bytes.extend_from_slice(&[0u8; 64]);
    std::fs::write(&model, &bytes).unwrap();
    let spec = format!("mcts:model={}", model.display());
    let line = refused(&junglezero(&["arena", "--a", "random", "--b", &spec, "--games", "2"]));
    assert_eq!(line.matches("checksum mismatch").count(), 1, "{line}");
    let huge = format!("{} w 0 1", "7/".repeat(40_000));
    let o = junglezero(&["show", "--fen", &huge]);
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(2));
    assert!(err.len() < 1200 && err.lines().count() == 1, "{} bytes: {}", err.len(), &err[..err.len().min(300)]);
    std::fs::remove_dir_all(&dir).unwrap();
}

// 6. The web server cannot be starved.

mod web {
    use std::sync::Arc;
    use std::time::{Duration, Instant};

    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    use tokio::net::{TcpListener, TcpStream};

    use junglezero::config::Config;
    use junglezero::serve::{ConnectionLimits, ServeState, router, serve_until};

    /// A server on a free port with `searches` search slots and `limits`; dropping the sender
    /// stops it.
    async fn start(searches: usize, report: Option<std::path::PathBuf>, limits: ConnectionLimits) -> (std::net::SocketAddr, tokio::sync::oneshot::Sender<()>) {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let app = router(Arc::new(ServeState::new(Config::default(), None, None, report, searches)));
        let (tx, rx) = tokio::sync::oneshot::channel::<()>();
        tokio::spawn(serve_until(listener, app, limits, async {
            let _ = rx.await;
        }));
        (addr, tx)
    }

    /// Sends one request on a new connection; the status code and the body.
    async fn request(addr: std::net::SocketAddr, method: &str, path: &str, body: &str) -> (u16, String) {
        let mut s = TcpStream::connect(addr).await.unwrap();
        let req = format!(
            "{method} {path} HTTP/1.1\r\nHost: t\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
            body.len()
        );
        s.write_all(req.as_bytes()).await.unwrap();
        let mut out = String::new();
        tokio::time::timeout(Duration::from_secs(20), s.read_to_string(&mut out)).await.expect("an answer").unwrap();
        let status = out.split_whitespace().nth(1).and_then(|c| c.parse().ok()).unwrap_or(0);
        (status, out.split("\r\n\r\n").nth(1).unwrap_or("").to_string())
    }

    /// Whether the server closes `s` (end of stream or an error) within `within`.
    async fn closed_within(s: &mut TcpStream, within: Duration) -> bool {
        let mut buf = [0u8; 4096];
        let deadline = Instant::now() + within;
        loop {
            match tokio::time::timeout(deadline.saturating_duration_since(Instant::now()), s.read(&mut buf)).await {
                Ok(Ok(0)) | Ok(Err(_)) => return true,
                Ok(Ok(_)) => continue,
                Err(_) => return false,
            }
        }
    }

    #[tokio::test]
    async fn slow_and_surplus_connections_are_closed_and_requests_still_served() {
        let limits = ConnectionLimits { connections: 4, header_timeout: Duration::from_millis(500), ..ConnectionLimits::default() };
        let (addr, _stop) = start(1, None, limits).await;
        let mut slow = Vec::new();
        for _ in 0..4 {
            let mut s = TcpStream::connect(addr).await.unwrap();
            s.write_all(b"GET /api/info HT").await.unwrap();
            slow.push(s);
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
        let mut surplus = TcpStream::connect(addr).await.unwrap();
        let _ = surplus.write_all(b"GET /api/info HTTP/1.1\r\nHost: t\r\n\r\n").await;
        assert!(closed_within(&mut surplus, Duration::from_millis(400)).await, "a connection past the limit is closed at once");
        for s in &mut slow {
            assert!(closed_within(s, Duration::from_secs(3)).await, "a client that never finishes its headers is cut off");
        }
        let (status, body) = request(addr, "GET", "/api/info", "").await;
        assert_eq!(status, 200, "{body}");
    }

    #[tokio::test]
    async fn a_client_that_goes_away_frees_its_search_slot() {
        let (addr, _stop) = start(1, None, ConnectionLimits::default()).await;
        let long = r#"{"position": {}, "engine": "alphabeta", "movetime": 30000, "session": "gone"}"#;
        let mut s = TcpStream::connect(addr).await.unwrap();
        let req = format!("POST /api/engine HTTP/1.1\r\nHost: t\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n{long}", long.len());
        s.write_all(req.as_bytes()).await.unwrap();
        tokio::time::sleep(Duration::from_millis(300)).await;
        drop(s);
        let start = Instant::now();
        let short = r#"{"position": {}, "engine": "alphabeta", "movetime": 100, "session": "next"}"#;
        let (status, body) = request(addr, "POST", "/api/engine", short).await;
        assert_eq!(status, 200, "the slot is still held by a client that left: {body}");
        assert!(start.elapsed() < Duration::from_secs(5));
    }

    #[tokio::test]
    async fn the_report_folder_serves_plain_files_only() {
        let dir = super::tmp("report-links");
        std::fs::write(dir.join("report.md"), "# Report\n").unwrap();
        let secret = super::tmp("report-secret").join("secret.txt");
        std::fs::write(&secret, "not for the web").unwrap();
        std::os::unix::fs::symlink(&secret, dir.join("link.md")).unwrap();
        let (addr, _stop) = start(1, Some(dir.clone()), ConnectionLimits::default()).await;
        let (status, body) = request(addr, "GET", "/report/report.md", "").await;
        assert_eq!((status, body.as_str()), (200, "# Report\n"));
        let (status, body) = request(addr, "GET", "/report/link.md", "").await;
        assert_eq!(status, 404, "{body}");
        assert!(!body.contains("not for the web"));
        let (status, _) = request(addr, "GET", "/report/..%2F..%2Fetc%2Fpasswd", "").await;
        assert_eq!(status, 404);
    }

    #[tokio::test]
    async fn an_upload_past_the_limit_is_refused_in_json() {
        let (addr, _stop) = start(1, None, ConnectionLimits::default()).await;
        let mut s = TcpStream::connect(addr).await.unwrap();
        let len = junglezero::serve::MAX_UPLOAD + 1;
        let head = format!("POST /api/records HTTP/1.1\r\nHost: t\r\nContent-Length: {len}\r\nConnection: close\r\n\r\n");
        s.write_all(head.as_bytes()).await.unwrap();
        let _ = s.write_all(&vec![b'x'; 1 << 16]).await;
        // The answer comes while the body is still unsent: read until its JSON has ended.
        let mut out = Vec::new();
        let deadline = Instant::now() + Duration::from_secs(10);
        let mut buf = [0u8; 4096];
        while !String::from_utf8_lossy(&out).trim_end().ends_with('}') {
            match tokio::time::timeout(deadline.saturating_duration_since(Instant::now()), s.read(&mut buf)).await {
                Ok(Ok(n)) if n > 0 => out.extend_from_slice(&buf[..n]),
                _ => break,
            }
        }
        let text = String::from_utf8_lossy(&out);
        assert!(text.starts_with("HTTP/1.1 413"), "{text}");
        let body = text.split("\r\n\r\n").nth(1).unwrap_or("");
        let v: serde_json::Value = serde_json::from_str(body).unwrap_or_else(|_| panic!("not JSON: {body}"));
        assert!(v["error"].as_str().is_some_and(|e| e.contains("MiB")), "{v}");
    }
}
