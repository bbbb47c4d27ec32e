//! Hostile input, fourth round: a killed tournament's PGN agrees with its journal; nothing a
//! run appends to is written through a link; `play` reads bounded lines; the flip game's engine
//! stops when told; the commands waiting behind a search are bounded, and so is a player's
//! tree; a network too large for the machine is refused before it is built; one NaN weight
//! keeps a network from loading; `verify` names the networks that are gone.

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

fn bin() -> String {
    std::env::var("JZ_TEST_BIN").unwrap_or_else(|_| env!("CARGO_BIN_EXE_junglezero").to_string())
}

const SAMPLE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/checkpoints/sample-cpu-1h/gen-0072.jzm");

fn smoke_config() -> String {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("configs/smoke.toml").display().to_string()
}

fn tmp(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("jz-hostile4-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// Waits for `child`; one that has not ended within `secs` is killed and fails the test (a
/// hang, or memory growing without bound).
fn finish(mut child: Child, secs: u64, what: &str) -> Output {
    let start = Instant::now();
    while child.try_wait().unwrap().is_none() {
        if start.elapsed() > Duration::from_secs(secs) {
            let _ = child.kill();
            let _ = child.wait();
            panic!("{what} did not end within {secs} s");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    child.wait_with_output().unwrap()
}

/// Runs the binary with `args` and nothing on its input, at most 60 s.
fn junglezero(args: &[&str]) -> Output {
    let child = Command::new(bin()).args(args).stdin(Stdio::null()).stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().unwrap();
    finish(child, 60, &format!("junglezero {}", args.join(" ")))
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// The last line of stderr of a command that must fail with exit code 2.
fn refused(o: &Output) -> String {
    assert_eq!(o.status.code(), Some(2), "expected a refusal: {}", stderr(o));
    stderr(o).lines().last().unwrap_or("").to_string()
}

// Point 1: a tournament killed between a game's journal line and its PGN text.

#[test]
fn a_resumed_tournament_rebuilds_its_pgn_from_the_journal() {
    let dir = tmp("pgn");
    let out = dir.join("t");
    let o = out.to_str().unwrap();
    let args = ["tournament", "--players", "alphabeta:depth=1", "random", "--games", "4", "--out-dir", o];
    let first = junglezero(&args);
    assert!(first.status.success(), "{}", stderr(&first));
    let journal_games = || std::fs::read_to_string(out.join("games.jsonl")).unwrap().lines().skip(1).filter(|l| !l.trim().is_empty()).count();
    let pgn = || std::fs::read_to_string(out.join("games.pgn")).unwrap();
    assert_eq!(journal_games(), 4);
    let whole = pgn();
    assert_eq!(whole.matches("[Event ").count(), 4, "{whole}");
    // The kill: the last game's PGN text never written, and a torn start of another.
    let last = whole.rfind("[Event ").unwrap();
    std::fs::write(out.join("games.pgn"), format!("{}[Event \"junglez", &whole[..last])).unwrap();
    let again = junglezero(&args);
    assert!(again.status.success(), "{}", stderr(&again));
    assert_eq!(journal_games(), 4, "nothing was played twice");
    assert_eq!(pgn(), whole, "games.pgn holds exactly the journal's games again");
    std::fs::remove_dir_all(&dir).unwrap();
}

// Point 2: metrics.jsonl as a link or a FIFO.

#[test]
fn a_run_never_appends_through_a_linked_or_special_metrics_file() {
    let dir = tmp("metrics-link");
    let run = dir.join("run");
    std::fs::create_dir_all(&run).unwrap();
    let outside = dir.join("outside.txt");
    std::fs::write(&outside, "mine\n").unwrap();
    std::os::unix::fs::symlink(&outside, run.join("metrics.jsonl")).unwrap();
    let r = run.to_str().unwrap();
    let line = refused(&junglezero(&["train", "--config", &smoke_config(), "--run", r, "--set", "train.iterations=1"]));
    assert!(line.contains("metrics.jsonl") && line.contains("symbolic link"), "{line}");
    assert_eq!(std::fs::read_to_string(&outside).unwrap(), "mine\n", "nothing appended through the link");
    std::fs::remove_file(run.join("metrics.jsonl")).unwrap();
    let fifo = std::ffi::CString::new(run.join("metrics.jsonl").to_str().unwrap()).unwrap();
    // SAFETY: a plain mkfifo(3) on a path we own.
    assert_eq!(unsafe { libc::mkfifo(fifo.as_ptr(), 0o644) }, 0);
    let line = refused(&junglezero(&["train", "--config", &smoke_config(), "--run", r, "--set", "train.iterations=1"]));
    assert!(line.contains("metrics.jsonl") && line.contains("FIFO"), "{line}");
    std::fs::remove_dir_all(&dir).unwrap();
}

// Point 3: `play` on an endless line, and a long bad move quoted short.

#[test]
fn play_refuses_an_endless_line_and_quotes_a_long_move_short() {
    let child = Command::new(bin())
        .args(["play", "--movetime", "100"])
        .stdin(std::fs::File::open("/dev/zero").unwrap())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let o = finish(child, 30, "play < /dev/zero");
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("line longer than 1 MiB"), "{}", stderr(&o));

    let mut child =
        Command::new(bin()).args(["play", "--movetime", "100"]).stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().unwrap();
    let mut text = "x".repeat(300_000);
    text.push_str("\nquit\n");
    let mut stdin = child.stdin.take().unwrap();
    let writer = std::thread::spawn(move || stdin.write_all(text.as_bytes()));
    let o = finish(child, 30, "play with a long line");
    writer.join().unwrap().unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
    let out = String::from_utf8_lossy(&o.stdout).into_owned();
    assert!(out.contains("is not a move"), "{out}");
    let longest = out.lines().map(str::len).max().unwrap_or(0);
    assert!(longest < 400, "a line of {longest} bytes came back");
}

// Point 4: the flip game's engine stops when told.

/// A `uci --game flip` session; the lines it prints arrive on the receiver.
fn flip_engine() -> (Child, std::process::ChildStdin, std::sync::mpsc::Receiver<String>) {
    let mut child = Command::new(bin()).args(["uci", "--game", "flip"]).stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::null()).spawn().unwrap();
    let stdin = child.stdin.take().unwrap();
    let rx = lines_of(child.stdout.take().unwrap());
    (child, stdin, rx)
}

/// The lines `out` prints, as they come, on a receiver.
fn lines_of(out: std::process::ChildStdout) -> std::sync::mpsc::Receiver<String> {
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(out).lines().map_while(Result::ok) {
            if tx.send(line).is_err() {
                break;
            }
        }
    });
    rx
}

/// The next `bestmove` line within `secs`.
fn bestmove_within(rx: &std::sync::mpsc::Receiver<String>, secs: u64) -> String {
    let end = Instant::now() + Duration::from_secs(secs);
    loop {
        let left = end.saturating_duration_since(Instant::now());
        match rx.recv_timeout(left) {
            Ok(l) if l.starts_with("bestmove") => return l,
            Ok(_) => {}
            Err(_) => panic!("no bestmove within {secs} s"),
        }
    }
}

#[test]
fn the_flip_engine_answers_stop_ponderhit_and_the_end_of_input_at_once() {
    let (mut child, mut stdin, rx) = flip_engine();
    // `go infinite`, `go depth 30` and `go ponder`, each stopped.
    for go in ["go infinite", "go depth 30", "go ponder"] {
        writeln!(stdin, "position startpos\n{go}").unwrap();
        std::thread::sleep(Duration::from_millis(300));
        writeln!(stdin, "stop").unwrap();
        let best = bestmove_within(&rx, 5);
        assert_ne!(best, "bestmove (none)", "{go}");
    }
    // `ponderhit` turns the pondering search into `go depth 30`, which `stop` ends.
    writeln!(stdin, "position startpos\ngo ponder depth 30").unwrap();
    std::thread::sleep(Duration::from_millis(300));
    writeln!(stdin, "ponderhit\nisready").unwrap();
    let end = Instant::now() + Duration::from_secs(5);
    while rx.recv_timeout(end.saturating_duration_since(Instant::now())).expect("readyok after ponderhit") != "readyok" {}
    writeln!(stdin, "stop").unwrap();
    bestmove_within(&rx, 5);
    // The end of the input during `go infinite` ends the session.
    writeln!(stdin, "position startpos\ngo infinite").unwrap();
    drop(stdin);
    let start = Instant::now();
    while child.try_wait().unwrap().is_none() {
        if start.elapsed() > Duration::from_secs(10) {
            let _ = child.kill();
            panic!("the flip engine outlived its input by 10 s");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

// Point 6: lines waiting behind a search.

#[test]
fn commands_waiting_behind_a_search_are_bounded() {
    let mut child = Command::new(bin()).arg("uci").stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::null()).spawn().unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let rx = lines_of(child.stdout.take().unwrap());
    // A position line of about half a MiB (a legal game of moves back and forth), twenty times,
    // behind a long search: at most 4 MiB of them may wait.
    let shuffle = " a3a4 g7g6 a4a3 g6g7".repeat(25_000);
    writeln!(stdin, "position startpos\ngo movetime 120000").unwrap();
    for _ in 0..20 {
        writeln!(stdin, "position startpos moves{shuffle}").unwrap();
    }
    writeln!(stdin, "isready").unwrap();
    let mut ignored = 0;
    let end = Instant::now() + Duration::from_secs(30);
    loop {
        let line = rx.recv_timeout(end.saturating_duration_since(Instant::now())).expect("readyok");
        if line == "readyok" {
            break;
        }
        if line.contains("was ignored") {
            assert!(line.len() < 400, "the refused line is quoted short");
            ignored += 1;
        }
    }
    assert!((10..=20).contains(&ignored), "{ignored} of 20 waiting lines refused");
    writeln!(stdin, "stop\nquit").unwrap();
    drop(stdin);
    let o = finish(child, 30, "uci after quit");
    assert!(o.status.success());
}

// Point 7: a player's tree, whatever the budget.

#[test]
fn a_huge_node_budget_stops_at_the_tree_memory_and_says_so() {
    let mut child =
        Command::new(bin()).args(["uci", "--set", "mcts.play_tree_mb=16"]).stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::null()).spawn().unwrap();
    let mut stdin = child.stdin.take().unwrap();
    writeln!(stdin, "setoption name Engine value mcts\nsetoption name Model value {SAMPLE}\nposition startpos\ngo nodes 4294967295").unwrap();
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines().map_while(Result::ok);
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let seen: Vec<String> = lines.by_ref().take_while(|l| !l.starts_with("bestmove")).collect();
        let _ = tx.send(seen);
    });
    let seen = rx.recv_timeout(Duration::from_secs(120)).expect("the search ends at its tree's memory");
    let stopped = seen.iter().find(|l| l.contains("search stopped at")).unwrap_or_else(|| panic!("{seen:?}"));
    assert!(stopped.contains("16 MiB") && stopped.contains("mcts.play_tree_mb"), "{stopped}");
    writeln!(stdin, "quit").unwrap();
    drop(stdin);
    assert!(finish(child, 30, "uci after quit").status.success());
}

// Point 8: a network too large for the machine.

#[test]
fn a_network_too_large_for_the_machine_is_refused_before_it_is_built() {
    let dir = tmp("huge-net");
    let r = dir.join("run");
    let line = refused(&junglezero(&[
        "train",
        "--config",
        &smoke_config(),
        "--run",
        r.to_str().unwrap(),
        "--set",
        "model.blocks=64",
        "--set",
        "model.channels=1024",
        "--set",
        "train.batch_size=65536",
    ]));
    assert!(line.contains("model.channels") && line.contains("memory") && line.contains("64x1024"), "{line}");
    std::fs::remove_dir_all(&dir).unwrap();
}

// Point 9: one NaN among a tensor's weights.

#[test]
fn one_nan_weight_in_an_export_keeps_it_from_importing() {
    let dir = tmp("nan-export");
    let st = dir.join("net.safetensors");
    let o = junglezero(&["export", "--model", SAMPLE, "--out", st.to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
    // The first tensor's second weight (of many) made NaN; safetensors: an 8-byte header
    // length, the JSON header, then the data the header's offsets point into.
    let mut bytes = std::fs::read(&st).unwrap();
    let n = u64::from_le_bytes(bytes[..8].try_into().unwrap()) as usize;
    let header: serde_json::Value = serde_json::from_slice(&bytes[8..8 + n]).unwrap();
    let (_, first) = header
        .as_object()
        .unwrap()
        .iter()
        .find(|(k, v)| *k != "__metadata__" && v["dtype"] == "F32" && v["data_offsets"][1].as_u64().unwrap() - v["data_offsets"][0].as_u64().unwrap() >= 64)
        .unwrap();
    let at = 8 + n + first["data_offsets"][0].as_u64().unwrap() as usize + 4;
    bytes[at..at + 4].copy_from_slice(&f32::NAN.to_le_bytes());
    std::fs::write(&st, &bytes).unwrap();
    let out = dir.join("net.jzm");
    let line = refused(&junglezero(&["import", st.to_str().unwrap(), "--out", out.to_str().unwrap()]));
    assert!(line.contains("NaN"), "{line}");
    assert!(!out.exists());
    std::fs::remove_dir_all(&dir).unwrap();
}

// Point 10: `verify` names the networks that are gone.

#[test]
fn verify_names_a_promoted_network_that_is_gone() {
    let dir = tmp("verify-gone");
    let run = dir.join("run");
    let r = run.to_str().unwrap();
    let o = junglezero(&["train", "--config", &smoke_config(), "--run", r, "--set", "train.iterations=2", "--set", "gate.enabled=false"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let ok = junglezero(&["verify", "--run", r]);
    assert!(ok.status.success(), "{}", String::from_utf8_lossy(&ok.stdout));
    let best = std::fs::read_dir(run.join("models")).unwrap().flatten().map(|e| e.path()).max().unwrap();
    let name = best.file_stem().unwrap().to_string_lossy().into_owned();
    assert_ne!(name, "gen-0000", "the run promoted a network");
    std::fs::remove_file(&best).unwrap();
    let line = refused(&junglezero(&["verify", "--run", r]));
    assert!(line.contains(&name) && line.contains("missing"), "{line}");
    for e in std::fs::read_dir(run.join("models")).unwrap().flatten() {
        std::fs::remove_file(e.path()).unwrap();
    }
    let o = junglezero(&["verify", "--run", r]);
    let text = String::from_utf8_lossy(&o.stdout).into_owned();
    assert!(text.contains("models/ holds no network"), "{text}");
    std::fs::remove_dir_all(&dir).unwrap();
}

// Point 12: what an external engine started, after `kill -9` of the match.

/// Processes whose command line contains `marker` (the engine's script itself left out).
fn processes_with(marker: &str) -> Vec<u32> {
    let mut out = Vec::new();
    for e in std::fs::read_dir("/proc").unwrap().flatten() {
        let Ok(pid) = e.file_name().to_string_lossy().parse::<u32>() else { continue };
        let text = String::from_utf8_lossy(&std::fs::read(e.path().join("cmdline")).unwrap_or_default()).replace('\0', " ");
        if text.contains(marker) && !text.contains("jz-h4-engine") {
            out.push(pid);
        }
    }
    out
}

#[test]
fn an_external_engine_s_helper_dies_with_a_killed_tournament() {
    let dir = tmp("kill9-engine");
    let marker = format!("{}.{}", 5000 + std::process::id() % 1000, 23);
    let script = dir.join("jz-h4-engine.sh");
    std::fs::write(
        &script,
        format!("sleep {marker} &\nwhile read line; do\n  case \"$line\" in\n    uci) echo uciok;;\n    isready) echo readyok;;\n    go*) echo 'bestmove zz99';;\n  esac\ndone\n"),
    )
    .unwrap();
    let spec = format!("external:cmd=\"sh {}\",movetime=50", script.display());
    let out = dir.join("t");
    let mut child = Command::new(bin())
        .args(["tournament", "--players", "alphabeta:depth=3", &spec, "--games", "400", "--out-dir", out.to_str().unwrap()])
        .args(["--set", "arena.max_consecutive_forfeits=0", "--set", "arena.concurrency=1"])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let start = Instant::now();
    while processes_with(&format!("sleep {marker}")).is_empty() && start.elapsed() < Duration::from_secs(20) {
        std::thread::sleep(Duration::from_millis(20));
    }
    assert!(!processes_with(&format!("sleep {marker}")).is_empty(), "the engine never started");
    child.kill().unwrap();
    child.wait().unwrap();
    let start = Instant::now();
    while !processes_with(&format!("sleep {marker}")).is_empty() && start.elapsed() < Duration::from_secs(5) {
        std::thread::sleep(Duration::from_millis(20));
    }
    let left = processes_with(&format!("sleep {marker}"));
    for pid in &left {
        // SAFETY: a plain signal to the helper this test started.
        unsafe { libc::kill(*pid as i32, libc::SIGKILL) };
    }
    assert_eq!(left, Vec::<u32>::new(), "the engine's helper outlived kill -9 of the tournament");
    std::fs::remove_dir_all(&dir).unwrap();
}

// Point 12: the smaller cases, through the binary.

#[test]
fn the_smaller_cases_through_the_binary() {
    // A spec key twice, an over-large whole number, a key twice in --each, --set of a game that
    // does not exist: one line each, naming the right thing.
    let line = refused(&junglezero(&["arena", "--a", "random", "--b", "alphabeta:depth=3,depth=4", "--games", "2"]));
    assert!(line.contains("depth") && line.contains("twice"), "{line}");
    let line = refused(&junglezero(&["arena", "--a", "random", "--b", "alphabeta:depth=99999999999999999999", "--games", "2"]));
    assert!(line.contains("out of range") && !line.contains("not a number"), "{line}");
    let line = refused(&junglezero(&["arena", "--a", "random", "--b", "random", "--games", "2", "--each", "tc=0/5+0,tc=0/9+0"]));
    assert!(line.contains("twice"), "{line}");
    let line = refused(&junglezero(&["search", "--depth", "1", "--set", "game=chess"]));
    assert!(line.contains("--set") && !line.contains("(defaults)"), "{line}");

    // `setoption name Model value <empty>` (the default the engine advertises) is accepted.
    let mut child = Command::new(bin()).arg("uci").stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::null()).spawn().unwrap();
    child.stdin.take().unwrap().write_all(b"setoption name Model value <empty>\nisready\nquit\n").unwrap();
    let out = String::from_utf8_lossy(&finish(child, 30, "uci").stdout).into_owned();
    assert!(out.contains("readyok") && !out.contains("error"), "{out}");

    // The analysis engine: a line that is not UTF-8 is refused, not rewritten; `terminate` is
    // acknowledged after the stopped search's final answer.
    let mut child = Command::new(bin())
        .args(["analysis", "--model", SAMPLE, "--threads", "1"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let rx = lines_of(child.stdout.take().unwrap());
    stdin.write_all(b"{\"id\":\"\xff\",\"maxVisits\":8}\n").unwrap();
    let first = rx.recv_timeout(Duration::from_secs(30)).expect("an answer");
    assert!(first.contains("not UTF-8") && !first.contains('\u{fffd}'), "{first}");
    stdin.write_all(b"{\"id\":\"a\",\"maxVisits\":100000,\"maxTime\":60}\n").unwrap();
    std::thread::sleep(Duration::from_millis(500));
    stdin.write_all(b"{\"id\":\"t\",\"action\":\"terminate\",\"terminateId\":\"a\"}\n").unwrap();
    let mut seen = Vec::new();
    let end = Instant::now() + Duration::from_secs(30);
    while !seen.iter().any(|l: &String| l.contains("\"action\":\"terminate\"")) {
        seen.push(rx.recv_timeout(end.saturating_duration_since(Instant::now())).expect("the acknowledgement"));
    }
    let ack = seen.len() - 1;
    let answer = seen.iter().position(|l| l.contains("\"id\":\"a\"") && l.contains("\"isDuringSearch\":false")).unwrap_or(usize::MAX);
    assert!(answer < ack, "the final answer comes before the acknowledgement: {seen:?}");
    drop(stdin);
    assert!(finish(child, 30, "analysis").status.success());
}
