//! Hostile input to the engines that answer other programs: the JSON analysis engine (long
//! move lists, a queue a client can fill, empty and out-of-range fields), the web server (a
//! body that trickles in), an external engine that floods its output, endgame tables built
//! under other rules, `go` numbers out of range, and a search stopped before its first visit.

use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Child, Command, Output, Stdio};
use std::time::Duration;

use junglezero::game::Game;
use junglezero::jungle::JungleGame;

// The binary under test (this build's, or another named by `JZ_TEST_BIN`), scratch folders
// and stderr, as the files' tests have them.
use super::hostile3_files::{bin, stderr, tmp};

fn junglezero(args: &[&str]) -> Output {
    Command::new(bin()).args(args).output().expect("binary runs")
}

const SAMPLE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/checkpoints/sample-cpu-1h/gen-0072.jzm");

/// `analysis` on the sample network with `args` added, its input and output piped.
fn analysis(args: &[&str]) -> Child {
    Command::new(bin()).args(["analysis", "--model", SAMPLE]).args(args).stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().unwrap()
}

/// Sends `lines` to a fresh `analysis` and returns every answer once the input has ended.
fn ask(args: &[&str], lines: &[String]) -> Vec<serde_json::Value> {
    let mut child = analysis(args);
    let mut stdin = child.stdin.take().unwrap();
    let text = lines.join("\n") + "\n";
    let writer = std::thread::spawn(move || stdin.write_all(text.as_bytes()));
    let o = child.wait_with_output().unwrap();
    writer.join().unwrap().unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
    String::from_utf8_lossy(&o.stdout).lines().map(|l| serde_json::from_str(l).unwrap_or_else(|_| panic!("not JSON: {l}"))).collect()
}

/// The peak memory of a live process, in KiB (Linux).
fn peak_kib(pid: u32) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
    status.lines().find(|l| l.starts_with("VmHWM:")).and_then(|l| l.split_whitespace().nth(1)?.parse().ok()).unwrap_or(0)
}

// Point 4 and 11: the analysis engine's queries.

#[test]
fn analysis_answers_empty_long_and_out_of_range_queries_with_one_error_each() {
    let long: Vec<String> = (0..5000).map(|i| if i % 2 == 0 { "a1a2" } else { "a2a1" }.to_string()).collect();
    let queries = [
        serde_json::json!({ "id": "long", "moves": long, "maxVisits": 1 }).to_string(),
        r#"{"id":"empty","analyzeTurns":[]}"#.to_string(),
        r#"{"id":"moves0","maxVisits":1,"maxMoves":0}"#.to_string(),
        r#"{"id":"moves300","maxVisits":1,"maxMoves":300}"#.to_string(),
        r#"{"id":"visits","maxVisits":1000000}"#.to_string(),
        r#"{"id":"turns","moves":["a3a4"],"analyzeTurns":[0,1,1],"maxVisits":1}"#.to_string(),
        r#"{"id":"twice","moves":["a3a4"],"analyzeTurns":[1,1],"maxVisits":1}"#.to_string(),
        r#"{"id":"string","maxVisits":1,"maxTime":"NaN"}"#.to_string(),
        r#"{"id":"fine","maxVisits":1,"maxMoves":256}"#.to_string(),
    ];
    let answers = ask(&["--threads", "2"], &queries);
    let of = |id: &str| answers.iter().filter(|a| a["id"] == id).collect::<Vec<_>>();
    for (id, says) in [
        ("long", "moves: 5000 moves given, at most 4096"),
        ("empty", "analyzeTurns is empty"),
        ("moves0", "maxMoves must be a whole number from 1 to 256"),
        ("moves300", "maxMoves must be a whole number from 1 to 256"),
        ("visits", "maxVisits must be a whole number from 1 to 100000"),
        ("turns", "analyzeTurns: 3 turns given for 2 positions"),
        ("string", "bad query: maxTime: invalid type"),
    ] {
        let a = of(id);
        assert_eq!(a.len(), 1, "{id}: {a:?}");
        assert!(a[0]["error"].as_str().is_some_and(|e| e.contains(says)), "{id}: {}", a[0]);
    }
    // A turn named twice is searched once.
    let twice = of("twice");
    assert_eq!(twice.len(), 1, "{twice:?}");
    assert_eq!(twice[0]["turnNumber"], 1);
    assert_eq!(of("fine").len(), 1);
    assert!(of("fine")[0]["moveInfos"].is_array(), "{:?}", of("fine"));
    assert_eq!(answers.len(), 9, "{answers:?}");
}

/// Moves that shuffle a Tiger each side back and forth from the start (legal for ever with
/// repetitions allowed and no capture limit).
fn shuffle(plies: usize) -> Vec<String> {
    let cycle = ["a1a2", "g9g8", "a2a1", "g8g9"];
    let moves: Vec<String> = (0..plies).map(|i| cycle[i % 4].to_string()).collect();
    let mut game = JungleGame::new(junglezero::jungle::Position::start(), "repetition=off,no_capture_plies=0".parse().unwrap());
    for m in &moves {
        let mv = game.legal_moves().iter().copied().find(|x| x.to_string() == *m).unwrap_or_else(|| panic!("{m} is not legal"));
        game.play(mv).unwrap();
    }
    moves
}

#[test]
fn every_turn_of_a_long_game_is_analysed_with_bounded_memory() {
    let plies = 3000;
    let turns: Vec<usize> = (0..=plies).collect();
    let q = serde_json::json!({ "id": "all", "moves": shuffle(plies), "rules": "repetition=off,no_capture_plies=0", "analyzeTurns": turns, "maxVisits": 1, "maxMoves": 1 });
    let mut child = analysis(&["--threads", "2"]);
    let mut stdin = child.stdin.take().unwrap();
    let text = q.to_string() + "\n";
    let writer = std::thread::spawn(move || {
        stdin.write_all(text.as_bytes()).unwrap();
        stdin
    });
    let mut seen = vec![false; plies + 1];
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    for _ in 0..=plies {
        let line = lines.next().expect("an answer").unwrap();
        let a: serde_json::Value = serde_json::from_str(&line).unwrap();
        let t = a["turnNumber"].as_u64().unwrap_or_else(|| panic!("{a}")) as usize;
        assert!(a["moveInfos"].is_array() && !std::mem::replace(&mut seen[t], true), "{a}");
    }
    // Every position of the game made at once (as it was) peaked at 180 MB; one at a time, 31 MB.
    let peak = peak_kib(child.id());
    drop(writer.join().unwrap());
    let o = child.wait_with_output().unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(peak > 0 && peak < 100 * 1024, "peak memory {peak} KiB");
}

#[test]
fn analysis_reads_no_further_while_its_queue_is_full() {
    // One search thread, busy for a second; 4 positions may wait for it. The line that is not
    // JSON comes after 30 more queries, so it can be read (and its error said) only once the
    // long search has ended and the waiting ones have started.
    let mut queries = vec![r#"{"id":"long","maxVisits":100000,"maxTime":1}"#.to_string()];
    queries.extend((0..30).map(|i| format!(r#"{{"id":"short{i}","maxVisits":1}}"#)));
    queries.push("not json".to_string());
    let answers = ask(&["--threads", "1"], &queries);
    assert_eq!(answers.len(), 32, "{answers:?}");
    let long = answers.iter().position(|a| a["id"] == "long").unwrap();
    let bad = answers.iter().position(|a| a["id"].is_null()).unwrap();
    assert!(answers[bad]["error"].as_str().is_some_and(|e| e.starts_with("bad query")), "{}", answers[bad]);
    assert!(long < bad, "the whole input was read while a search held the only thread: {answers:?}");
}

// Point 8: endgame tables built under other rules.

#[test]
fn tables_built_under_other_rules_are_refused_per_query() {
    let dir = tmp("tables");
    let tb = dir.join("tb");
    let o = junglezero(&["tb", "build", "--material", "E-r", "--out", tb.to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
    let set = format!("tablebase.dir={}", tb.display());
    let queries = [
        r#"{"id":"same","initialFen":"7/3E3/7/7/7/7/7/7/r6 w","maxVisits":4}"#.to_string(),
        r#"{"id":"other","initialFen":"7/3E3/7/7/7/7/7/7/r6 w","maxVisits":4,"rules":"icga2014"}"#.to_string(),
        r#"{"id":"repetition","initialFen":"7/3E3/7/7/7/7/7/7/r6 w","maxVisits":4,"rules":"repetition=off"}"#.to_string(),
    ];
    let answers = ask(&["--threads", "1", "--set", &set], &queries);
    assert_eq!(answers.len(), 3, "{answers:?}");
    let of = |id: &str| answers.iter().find(|a| a["id"] == id).unwrap();
    // The tables know this position: a win in one.
    assert!(of("same")["rootInfo"]["exact"].as_str().is_some_and(|e| e.contains("tablebase")), "{}", of("same"));
    assert!(of("repetition")["rootInfo"].is_object(), "the repetition rule is not one the tables depend on: {}", of("repetition"));
    let e = of("other")["error"].as_str().unwrap_or_default().to_string();
    assert!(e.contains("rules") && e.contains("was built for rules"), "{}", of("other"));
    std::fs::remove_dir_all(&dir).unwrap();
}

// Point 11 and 12: the protocol's numbers, and a search stopped before its first visit.

/// Runs the protocol over `input` and returns its output lines.
fn protocol(input: &str) -> Vec<String> {
    let mut child = Command::new(bin()).arg("uci").stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::null()).spawn().unwrap();
    child.stdin.take().unwrap().write_all(input.as_bytes()).unwrap();
    let o = child.wait_with_output().unwrap();
    assert!(o.status.success());
    String::from_utf8_lossy(&o.stdout).lines().map(str::to_string).collect()
}

#[test]
fn go_numbers_out_of_range_are_refused_by_token() {
    let out = protocol("go movetime -5\ngo nodes 0\ngo winc -5\ngo depth -1\ngo wtime 99999999999999999999 btime 100 depth 1\nisready\nquit\n");
    let errors: Vec<&String> = out.iter().filter(|l| l.starts_with("info string error")).collect();
    assert_eq!(errors.len(), 4, "{out:?}");
    for (line, token) in errors.iter().zip(["'go movetime -5'", "'go nodes 0'", "'go winc -5'", "'go depth -1'"]) {
        assert!(line.contains(token), "{line} should name {token}");
    }
    // A huge clock is the largest there is: a search, and its move.
    let best: Vec<&String> = out.iter().filter(|l| l.starts_with("bestmove")).collect();
    assert_eq!(best.len(), 1, "{out:?}");
    assert_ne!(best[0], "bestmove (none)");
    assert!(out.iter().any(|l| l == "readyok"), "{out:?}");
}

#[test]
fn an_mcts_search_stopped_at_once_still_names_a_legal_move() {
    let legal: Vec<String> = JungleGame::new(junglezero::jungle::Position::start(), Default::default()).legal_moves().iter().map(|m| m.to_string()).collect();
    let mut child = Command::new(bin()).arg("uci").stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::null()).spawn().unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    writeln!(stdin, "setoption name Engine value mcts\nsetoption name Model value {SAMPLE}\nisready").unwrap();
    assert_eq!(lines.next().unwrap().unwrap(), "readyok");
    // `stop` right behind `go`: the search often ends before its first simulation.
    for _ in 0..6 {
        stdin.write_all(b"position startpos\ngo infinite\nstop\n").unwrap();
        let best = lines.by_ref().map(Result::unwrap).find(|l| l.starts_with("bestmove")).expect("a bestmove");
        let mv = best.trim_start_matches("bestmove ");
        assert!(legal.iter().any(|m| m == mv), "'{best}' is not a legal move");
    }
    stdin.write_all(b"quit\n").unwrap();
    assert!(child.wait().unwrap().success());
}

#[test]
fn stops_sent_all_at_once_each_end_the_search_before_them() {
    // An alpha-beta search, then eight `go infinite` / `stop` pairs, arrive together, before
    // the first search has even answered: each `stop` is for the `go` just before it, so every
    // search answers and the session ends with the input (a `stop` spent only on the search
    // running when it came would leave the next `go infinite` searching for ever).
    let mut child = Command::new(bin()).arg("uci").stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::null()).spawn().unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let mut text = format!("go depth 2\nsetoption name Engine value mcts\nsetoption name Model value {SAMPLE}\n");
    text.push_str(&"position startpos\ngo infinite\nstop\n".repeat(8));
    stdin.write_all(text.as_bytes()).unwrap();
    drop(stdin);
    let (tx, rx) = std::sync::mpsc::channel();
    let stdout = child.stdout.take().unwrap();
    std::thread::spawn(move || {
        let best = BufReader::new(stdout).lines().map_while(Result::ok).filter(|l| l.starts_with("bestmove")).collect::<Vec<_>>();
        let _ = tx.send(best);
    });
    let best = rx.recv_timeout(std::time::Duration::from_secs(30));
    let _ = child.kill();
    let best = best.expect("the session ends with its input: every search was stopped");
    assert_eq!(best.len(), 9, "{best:?}");
    assert!(best.iter().all(|b| b != "bestmove (none)"), "{best:?}");
    assert!(child.wait().is_ok());
}

// Point 6: an external engine that floods its output.

/// An engine that completes the handshake and answers `go` with `flood` (a shell command run
/// in the background, which the engine's process group must take with it).
fn flooding_engine(dir: &Path, flood: &str) -> String {
    let script = dir.join("jz-flood-engine.sh");
    std::fs::write(
        &script,
        format!("while read line; do\n  case \"$line\" in\n    uci) echo uciok;;\n    isready) echo readyok;;\n    go*) {flood} &;;\n  esac\ndone\n"),
    )
    .unwrap();
    format!("sh {}", script.display())
}

/// Processes whose command line contains `marker`.
fn processes_with(marker: &str) -> Vec<u32> {
    let mut out = Vec::new();
    for e in std::fs::read_dir("/proc").unwrap().flatten() {
        let Ok(pid) = e.file_name().to_string_lossy().parse::<u32>() else { continue };
        let text = String::from_utf8_lossy(&std::fs::read(e.path().join("cmdline")).unwrap_or_default()).replace('\0', " ");
        if text.contains(marker) && !text.contains("jz-flood-engine") {
            out.push(pid);
        }
    }
    out
}

#[test]
fn an_engine_that_floods_its_output_loses_in_one_line_and_is_ended() {
    let dir = tmp("flood");
    let marker = format!("flood{}", std::process::id());
    for (flood, says) in [
        // One endless line: refused once it passes the cap.
        (format!("yes {marker} | tr -d '\\n'"), "a line over 64 KiB"),
        // Endless lines that are not an answer: the clock runs out whatever they say.
        (format!("yes {marker}"), "no answer in time"),
    ] {
        let spec = format!("external:cmd=\"{}\",tc=40/0.3+0", flooding_engine(&dir, &flood));
        let o = junglezero(&["arena", "--a", "random", "--b", &spec, "--games", "2", "--set", "arena.concurrency=1"]);
        let err = stderr(&o);
        assert!(o.status.success(), "{err}");
        let out = String::from_utf8_lossy(&o.stdout).into_owned();
        assert!(out.contains(": 2 - 0 - 0 "), "the flooding engine should lose both games: {out}");
        assert_eq!(err.lines().filter(|l| l.contains(says)).count(), 2, "one line a game saying '{says}': {err}");
        assert!(err.lines().all(|l| l.len() < 300), "{err}");
        std::thread::sleep(Duration::from_millis(200));
        assert_eq!(processes_with(&marker), Vec::<u32>::new(), "the flood outlived the match");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

// Point 5: the web server cuts a body that trickles in.

mod web {
    use std::sync::Arc;
    use std::time::Duration;

    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    use tokio::net::{TcpListener, TcpStream};

    use junglezero::config::Config;
    use junglezero::serve::{ConnectionLimits, ServeState, router, serve_until};

    async fn start(limits: ConnectionLimits) -> (std::net::SocketAddr, tokio::sync::oneshot::Sender<()>) {
        start_with(ServeState::new(Config::default(), None, None, None, 1), limits).await
    }

    async fn start_with(state: ServeState, limits: ConnectionLimits) -> (std::net::SocketAddr, tokio::sync::oneshot::Sender<()>) {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let app = router(Arc::new(state));
        let (tx, rx) = tokio::sync::oneshot::channel::<()>();
        tokio::spawn(serve_until(listener, app, limits, async {
            let _ = rx.await;
        }));
        (addr, tx)
    }

    /// Sends one request on a new connection; the status code and the body.
    async fn request(addr: std::net::SocketAddr, head: &str, body: &str) -> (u16, String) {
        let mut s = TcpStream::connect(addr).await.unwrap();
        let req = format!("{head}\r\nHost: t\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}", body.len());
        s.write_all(req.as_bytes()).await.unwrap();
        let mut out = String::new();
        tokio::time::timeout(Duration::from_secs(20), s.read_to_string(&mut out)).await.expect("an answer").unwrap();
        let status = out.split_whitespace().nth(1).and_then(|c| c.parse().ok()).unwrap_or(0);
        (status, out.split("\r\n\r\n").nth(1).unwrap_or("").to_string())
    }

    #[tokio::test]
    async fn bodies_sent_a_byte_at_a_time_are_cut_off_and_new_clients_served() {
        let limits = ConnectionLimits { connections: 4, header_timeout: Duration::from_millis(500), body_timeout: Duration::from_millis(600) };
        let (addr, _stop) = start(limits).await;
        let mut slow = Vec::new();
        for _ in 0..4 {
            let s = TcpStream::connect(addr).await.unwrap();
            let (mut rd, mut wr) = s.into_split();
            wr.write_all(b"POST /api/position HTTP/1.1\r\nHost: t\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n").await.unwrap();
            // A byte every 100 ms, for longer than the test waits, until the server closes.
            let writer = tokio::spawn(async move {
                for _ in 0..100 {
                    if wr.write_all(b" ").await.is_err() {
                        break;
                    }
                    tokio::time::sleep(Duration::from_millis(100)).await;
                }
            });
            let reader = tokio::spawn(async move {
                let mut out = Vec::new();
                let _ = tokio::time::timeout(Duration::from_secs(5), rd.read_to_end(&mut out)).await;
                String::from_utf8_lossy(&out).into_owned()
            });
            slow.push((writer, reader));
        }
        for (writer, reader) in slow {
            let answer = reader.await.unwrap();
            writer.abort();
            assert!(answer.starts_with("HTTP/1.1 408"), "a trickling body was not cut off: {answer:?}");
            let body = answer.split("\r\n\r\n").nth(1).unwrap_or("");
            let v: serde_json::Value = serde_json::from_str(body).unwrap_or_else(|_| panic!("not JSON: {body}"));
            assert!(v["error"].as_str().is_some_and(|e| e.contains("did not arrive within")), "{v}");
        }
        let (status, body) = request(addr, "GET /api/info HTTP/1.1", "").await;
        assert_eq!(status, 200, "{body}");
    }

    #[tokio::test]
    async fn a_body_of_the_wrong_type_or_shape_is_refused_in_json() {
        let (addr, _stop) = start(ConnectionLimits::default()).await;
        for (head, body, status, says) in [
            ("POST /api/position HTTP/1.1", "{}", 415, "Content-Type"),
            ("POST /api/position HTTP/1.1\r\nContent-Type: application/json", r#"{"moves": 3}"#, 422, "moves"),
            ("POST /api/position HTTP/1.1\r\nContent-Type: application/json", r#"{"bogus": 1}"#, 422, "bogus"),
            ("POST /api/position HTTP/1.1\r\nContent-Type: application/json", "{", 400, ""),
        ] {
            let (got, text) = request(addr, head, body).await;
            assert_eq!(got, status, "{body}: {text}");
            let v: serde_json::Value = serde_json::from_str(&text).unwrap_or_else(|_| panic!("not JSON: {text}"));
            assert!(v["error"].as_str().is_some_and(|e| e.contains(says)), "{body}: {v}");
        }
    }

    #[tokio::test]
    async fn the_page_refuses_tables_built_under_other_rules() {
        let dir = super::tmp("page-tables");
        let tb = dir.join("tb");
        let o = super::junglezero(&["tb", "build", "--material", "E-r", "--out", tb.to_str().unwrap()]);
        assert!(o.status.success(), "{}", super::stderr(&o));
        let mut config = Config::default();
        config.tablebase.dir = tb.display().to_string();
        let state = ServeState::new(config, Some(crate::serve::small_net()), Some("test.jzm".into()), None, 1);
        let (addr, _stop) = start_with(state, ConnectionLimits::default()).await;
        let head = "POST /api/engine HTTP/1.1\r\nContent-Type: application/json";
        let ask = |rules: &str| format!(r#"{{"position": {{"fen": "7/3E3/7/7/7/7/7/7/r6 w", "rules": "{rules}"}}, "engine": "network", "sims": 8}}"#);
        let (status, body) = request(addr, head, &ask("default")).await;
        assert_eq!(status, 200, "{body}");
        let v: serde_json::Value = serde_json::from_str(&body).unwrap();
        assert!(v["mcts"]["exact"].as_str().is_some_and(|e| e.contains("tablebase")), "the tables know this position: {v}");
        let (status, body) = request(addr, head, &ask("icga2014")).await;
        assert_eq!(status, 409, "{body}");
        assert!(body.contains("was built for rules"), "{body}");
        let (status, body) = request(addr, "GET /api/analyse?fen=7/3E3/7/7/7/7/7/7/r6%20w&rules=icga2014&engines=mcts&sims=8 HTTP/1.1", "").await;
        assert_eq!(status, 409, "{body}");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
