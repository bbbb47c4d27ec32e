//! The protocol's `go searchmoves`, `go mate N`, `go ponder` with `ponderhit`, and the `Ponder`
//! option's `bestmove M ponder R`, through the binary, for both engines.

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{Receiver, channel};
use std::time::Duration;

use super::mcts_solver::MODEL;

/// Red wins in two moves (three plies) whatever Blue does: e8d8 or e8e9, then the den.
const WIN_IN_TWO: &str = "7/4D2/7/7/7/7/7/7/r6 w";

/// A protocol session kept open: lines go in one at a time, answers are read as they come.
pub(crate) struct Session {
    child: Child,
    input: ChildStdin,
    lines: Receiver<String>,
}

impl Session {
    pub(crate) fn start() -> Session {
        let mut child = Command::new(env!("CARGO_BIN_EXE_junglezero"))
            .arg("uci")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("binary starts");
        let input = child.stdin.take().unwrap();
        let stdout = child.stdout.take().unwrap();
        let (tx, lines) = channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines().map_while(Result::ok) {
                let _ = tx.send(line);
            }
        });
        Session { child, input, lines }
    }

    pub(crate) fn send(&mut self, text: &str) {
        self.input.write_all(text.as_bytes()).unwrap();
        self.input.write_all(b"\n").unwrap();
        self.input.flush().unwrap();
    }

    /// Lines up to and including the first that starts with `end` (a minute at most).
    pub(crate) fn until(&mut self, end: &str) -> Vec<String> {
        let mut out = Vec::new();
        while let Ok(l) = self.lines.recv_timeout(Duration::from_secs(60)) {
            let done = l.starts_with(end);
            out.push(l);
            if done {
                return out;
            }
        }
        panic!("no '{end}' line: {out:?}");
    }

    /// The lines that come within `wait`.
    fn within(&mut self, wait: Duration) -> Vec<String> {
        let deadline = std::time::Instant::now() + wait;
        let mut out = Vec::new();
        while let Ok(l) = self.lines.recv_timeout(deadline.saturating_duration_since(std::time::Instant::now())) {
            out.push(l);
        }
        out
    }

    pub(crate) fn bestmove(&mut self) -> (String, Vec<String>) {
        let lines = self.until("bestmove");
        let best = lines.last().unwrap().strip_prefix("bestmove ").unwrap().to_string();
        (best, lines)
    }
}

impl Drop for Session {
    fn drop(&mut self) {
        let _ = self.input.write_all(b"quit\n");
        let _ = self.child.wait();
    }
}

fn with_mcts(s: &mut Session) {
    s.send("setoption name Engine value mcts");
    s.send(&format!("setoption name Model value {MODEL}"));
}

#[test]
fn searchmoves_restricts_both_engines_and_refuses_what_is_not_legal() {
    for mcts in [false, true] {
        let mut s = Session::start();
        if mcts {
            with_mcts(&mut s);
        }
        s.send("position startpos");
        // One move: that move; two: one of them, also from a tree kept from an earlier search.
        s.send(if mcts { "go nodes 64 searchmoves a3a4" } else { "go depth 3 searchmoves a3a4" });
        assert_eq!(s.bestmove().0, "a3a4");
        s.send(if mcts { "go nodes 64 searchmoves g3g4 a1a2" } else { "go depth 4 searchmoves g3g4 a1a2" });
        let (best, lines) = s.bestmove();
        assert!(best == "g3g4" || best == "a1a2", "{lines:?}");
        let pv = lines.iter().rev().find(|l| l.contains(" pv ")).unwrap();
        assert!(pv.contains(&format!(" pv {best}")), "{pv}");
        // A den entry the filter leaves out is not played.
        s.send(&format!("position fen {WIN_IN_TWO}"));
        s.send(if mcts { "go nodes 200 searchmoves e8f8" } else { "go depth 5 searchmoves e8f8" });
        assert_eq!(s.bestmove().0, "e8f8");
        // Without a filter the next search sees every move again.
        s.send(if mcts { "go nodes 2000" } else { "go depth 5" });
        let best = s.bestmove().0;
        assert!(best == "e8d8" || best == "e8e9", "{best}");
        s.send("position startpos");
        s.send("go depth 2 searchmoves a3a4 z9z9");
        let lines = s.until("bestmove");
        assert_eq!(lines, ["info string error: searchmoves: 'z9z9' is not a legal move here", "bestmove (none)"]);
    }
    // The parser: a searchmoves list ends at the next word of `go`.
    let mut s = Session::start();
    s.send("go searchmoves");
    assert_eq!(s.until("info string"), ["info string error: 'go searchmoves' needs at least one move"]);
}

#[test]
fn go_mate_finds_the_forced_win_with_either_engine() {
    for mcts in [false, true] {
        let mut s = Session::start();
        if mcts {
            with_mcts(&mut s);
        }
        s.send(&format!("position fen {WIN_IN_TWO}"));
        s.send("go mate 2");
        let (best, lines) = s.bestmove();
        assert!(best == "e8d8" || best == "e8e9", "{lines:?}");
        let last = lines.iter().rev().find(|l| l.starts_with("info depth")).unwrap();
        assert!(last.contains(" score mate 2 "), "{lines:?}");
    }
    let mut s = Session::start();
    s.send("go mate 0");
    assert_eq!(s.until("info string"), ["info string error: 'go mate 0': mate must be from 1 to 40 moves"]);
}

#[test]
fn pondering_waits_for_ponderhit_and_keeps_the_tree() {
    let mut s = Session::start();
    with_mcts(&mut s);
    s.send("setoption name Ponder value true");
    s.send("position startpos");
    s.send("go nodes 400");
    let (answer, _) = s.bestmove();
    let (best, reply) = answer.split_once(" ponder ").unwrap_or_else(|| panic!("no ponder move: {answer}"));
    // The engine ponders on the reply it expects: no answer until ponderhit, however long.
    s.send(&format!("position startpos moves {best} {reply}"));
    s.send("go ponder nodes 10");
    let early = s.within(Duration::from_millis(1500));
    assert!(early.iter().all(|l| !l.starts_with("bestmove")), "{early:?}");
    s.send("ponderhit");
    let (_, lines) = s.bestmove();
    // The real search ran 10 simulations on top of the tree grown while pondering.
    let last = lines.iter().rev().find(|l| l.starts_with("info depth")).unwrap();
    let nodes: u64 = last.split_whitespace().skip_while(|w| *w != "nodes").nth(1).unwrap().parse().unwrap();
    assert!(nodes > 100, "{last}");
    // `stop` during pondering answers at once; `ponderhit` with nothing pondering is an error.
    s.send("go ponder");
    std::thread::sleep(Duration::from_millis(200));
    s.send("stop");
    let (best, _) = s.bestmove();
    assert_ne!(best, "(none)");
    s.send("ponderhit");
    assert_eq!(s.until("info string"), ["info string error: ponderhit without a 'go ponder' search"]);
    s.send("uci");
    assert!(s.until("uciok").iter().any(|l| l == "option name Ponder type check default false"));
}
