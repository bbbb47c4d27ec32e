//! Scripted sessions against the spawned binary: the UCI-style protocol (garbage included) and
//! terminal play.

use std::io::Write;
use std::process::{Command, Stdio};

use junglezero::game::Game;
use junglezero::jungle::{JungleGame, Rules, parse_move};

fn run(args: &[&str], script: &str) -> (String, i32) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_junglezero"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("binary starts");
    child.stdin.take().unwrap().write_all(script.as_bytes()).unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(!String::from_utf8_lossy(&out.stderr).contains("panicked"), "{}", String::from_utf8_lossy(&out.stderr));
    (String::from_utf8_lossy(&out.stdout).into_owned(), out.status.code().unwrap_or(-1))
}

fn legal_after(moves: &[&str], mv: &str) -> bool {
    let mut g = JungleGame::start(Rules::default());
    for m in moves {
        g.play_text(m).unwrap();
    }
    parse_move(mv).is_ok_and(|m| g.is_legal(m))
}

#[test]
fn scripted_protocol_session() {
    let script = "\
uci
isready
hello world
position startpos moves a3a4 a4a9
position fen not/a/fen w
go depth x
go depth 0
setoption name Hash value -1
setoption name Colour value red
setoption name Hash value 16

position startpos moves a3a4
go depth 5
position fen 7/3C3/7/7/7/7/7/7/6r w
go depth 3
setoption name repetition value sometimes
position fen 3C3/7/7/7/7/7/7/7/6r b
go depth 2
ucinewgame
position startpos
go nodes 2000
ucinewgame
isready
";
    let (out, code) = run(&["uci"], script);
    assert_eq!(code, 0, "{out}");
    let lines: Vec<&str> = out.lines().collect();
    // Searches print progress; every bestmove of a live position follows at least one.
    let mut saw_info = false;
    let mut answers = Vec::new();
    for l in &lines {
        if l.starts_with("info depth") {
            saw_info = true;
            continue;
        }
        if l.starts_with("bestmove") && *l != "bestmove (none)" {
            assert!(saw_info, "bestmove without info lines: {out}");
        }
        if l.starts_with("bestmove") {
            saw_info = false;
        }
        answers.push(*l);
    }
    assert!(answers[0].starts_with("id name junglezero"), "{out}");
    assert!(answers[1].starts_with("id author"));
    let options = answers.iter().take_while(|l| l.starts_with("option name") || l.starts_with("id ")).count() - 2;
    assert!(options >= 9, "{out}");
    for key in [
        "Hash",
        "Threads",
        "dog_over_wolf",
        "rat_captures_across_shore",
        "elephant_takes_trapped_rat",
        "elephant_takes_rat",
        "repetition",
        "no_capture_plies",
        "max_plies",
        "anti_chase",
    ] {
        assert!(answers.iter().any(|l| l.starts_with(&format!("option name {key} type"))), "option {key}: {out}");
    }
    // `isready` is answered at once, also while a search runs and commands wait behind it, so
    // its answers are counted apart from the ordered ones.
    let rest: Vec<&str> = answers[2 + options..].iter().copied().filter(|l| *l != "readyok").collect();
    assert_eq!(answers.iter().filter(|l| **l == "readyok").count(), 2, "{out}");
    let want: [&dyn Fn(&str) -> bool; 14] = [
        &|l| l == "uciok",
        &|l| l == "info string error: unknown command 'hello'",
        &|l| l.starts_with("info string error: move 2 ('a4a9')"),
        &|l| l.starts_with("info string error: bad FEN"),
        &|l| l.starts_with("info string error: 'go depth x'"),
        &|l| l.starts_with("info string error: 'go depth 0'"),
        &|l| l.starts_with("info string error: option 'Hash'"),
        &|l| l == "info string error: unknown option 'Colour'",
        &|l| l.strip_prefix("bestmove ").is_some_and(|m| legal_after(&["a3a4"], m)),
        &|l| l == "bestmove d8d9",
        &|l| l.starts_with("info string error: bad value 'sometimes' for rule 'repetition'"),
        &|l| l.starts_with("info string game over: Red wins by entering the den"),
        &|l| l == "bestmove (none)",
        &|l| l.strip_prefix("bestmove ").is_some_and(|m| legal_after(&[], m)),
    ];
    assert_eq!(rest.len(), want.len(), "answers: {rest:#?}");
    for (i, (line, ok)) in rest.iter().zip(want).enumerate() {
        assert!(ok(line), "answer {i} is wrong: {line:?}\nall answers: {rest:#?}");
    }
}

/// Whether `mv` is a legal flip-game move after `moves` from the all-face-down start (a flip
/// without its outcome counts: the host then draws what it reveals).
fn flip_legal_after(moves: &[&str], mv: &str, rules: junglezero::flip::FlipRules) -> bool {
    let mut g = junglezero::flip::FlipGame::start(rules);
    for m in moves {
        junglezero::flip::play_text(&mut g, m).unwrap();
    }
    junglezero::flip::play_text(&mut g, mv).is_ok()
}

#[test]
fn the_flip_game_through_uci_variant() {
    let script = "\
uci
setoption name UCI_Variant value flip
uci
position startpos
go depth 2
position startpos moves f:a1=L f:b2
go depth 2
position startpos moves f:a1=L f:b2=e
go depth 3
position startpos moves f:a1=L a1a2
position fen not a position
setoption name UCI_Variant value chess
setoption name Engine value alphabeta
position startpos
setoption name setup value own_half
setoption name no_progress_plies value 7
position startpos moves f:a1=L
go nodes 500
setoption name UCI_Variant value jungle
isready
position startpos moves a3a4
go depth 2
";
    let (out, code) = run(&["uci"], script);
    assert_eq!(code, 0, "{out}");
    let answers: Vec<&str> = out.lines().filter(|l| !l.starts_with("info depth")).collect();
    // The first `uci` lists the variant option with Jungle's options; the second, in the flip
    // game, the flip game's engine and rules.
    let first_ok = answers.iter().position(|l| *l == "uciok").unwrap();
    assert!(answers[..first_ok].contains(&"option name UCI_Variant type combo default jungle var jungle var flip"), "{out}");
    assert!(answers[..first_ok].contains(&"option name Engine type combo default alphabeta var alphabeta var mcts"), "{out}");
    let second_ok = first_ok + 1 + answers[first_ok + 1..].iter().position(|l| *l == "uciok").unwrap();
    let flip_options = &answers[first_ok + 1..second_ok];
    assert!(flip_options.contains(&"option name UCI_Variant type combo default flip var jungle var flip"), "{out}");
    assert!(flip_options.contains(&"option name Engine type combo default expectiminimax var expectiminimax var mcts"), "{out}");
    for key in ["no_move_loses", "no_progress_plies", "setup", "dog_over_wolf"] {
        assert!(flip_options.iter().any(|l| l.starts_with(&format!("option name {key} type"))), "option {key}: {out}");
    }
    assert!(!flip_options.iter().any(|l| l.starts_with("option name anti_chase")), "{out}");
    let own_half = junglezero::flip::FlipRules { setup: junglezero::flip::Setup::OwnHalf, no_progress_plies: 7, ..Default::default() };
    // `isready` is answered at once (see the session above), so it is counted apart.
    assert_eq!(answers.iter().filter(|l| **l == "readyok").count(), 1, "{out}");
    let rest: Vec<&str> = answers[second_ok + 1..].iter().copied().filter(|l| *l != "readyok").collect();
    let want: [&dyn Fn(&str) -> bool; 10] = [
        // From the all-face-down start every move is a flip.
        &|l| l.strip_prefix("bestmove f:").is_some_and(|m| flip_legal_after(&[], &format!("f:{m}"), Default::default())),
        &|l| l.starts_with("info string error: a flip is waiting for what it reveals"),
        &|l| l == "bestmove (none)",
        &|l| l.strip_prefix("bestmove ").is_some_and(|m| flip_legal_after(&["f:a1=L", "f:b2=e"], m, Default::default())),
        &|l| l.starts_with("info string error: move 2 ('a1a2')"),
        &|l| l.starts_with("info string error: bad position string"),
        &|l| l == "info string error: unknown variant 'chess' (available: jungle, flip)",
        &|l| l == "info string error: unknown engine 'alphabeta' (available: expectiminimax, mcts)",
        &|l| l.strip_prefix("bestmove ").is_some_and(|m| flip_legal_after(&["f:a1=L"], m, own_half)),
        &|l| l.strip_prefix("bestmove ").is_some_and(|m| legal_after(&["a3a4"], m)),
    ];
    assert_eq!(rest.len(), want.len(), "answers: {rest:#?}");
    for (i, (line, ok)) in rest.iter().zip(want).enumerate() {
        assert!(ok(line), "answer {i} is wrong: {line:?}\nall answers: {rest:#?}");
    }
}

#[test]
fn stop_ends_an_infinite_search_and_end_of_input_exits() {
    let (out, code) = run(&["uci"], "position startpos\ngo infinite\nisready\nstop\n");
    assert_eq!(code, 0);
    let answers: Vec<&str> = out.lines().filter(|l| !l.starts_with("info depth")).collect();
    assert_eq!(answers.len(), 2, "{out}");
    assert_eq!(answers[0], "readyok");
    assert!(answers[1].strip_prefix("bestmove ").is_some_and(|m| legal_after(&[], m)), "{out}");
}

#[test]
fn terminal_play_session() {
    let (out, code) = run(&["play", "--movetime", "50"], "a3a4\nhint\nxx\na4a9\nmoves\nundo\nquit\n");
    assert_eq!(code, 0, "{out}");
    for want in ["You play Red", "junglezero plays ", "hint: ", "'xx' is not a move", "a4a9 is illegal: an Elephant moves one square", "legal moves: "] {
        assert!(out.contains(want), "missing {want:?} in:\n{out}");
    }
    // After undo the start position is back on the board.
    let last_board = out.rsplit("  9  ").next().unwrap();
    assert!(last_board.contains("  3  E . W . P . R"), "{out}");

    let (out, code) = run(&["play", "--fen", "7/3C3/7/7/7/7/7/7/6r w"], "d8d9\n");
    assert_eq!(code, 0);
    assert!(out.contains("Game over: Red wins by entering the den."), "{out}");

    // Playing Blue: the engine moves first; end of input ends the session cleanly.
    let (out, code) = run(&["play", "--human", "blue", "--movetime", "30"], "");
    assert_eq!(code, 0);
    assert!(out.contains("junglezero plays "), "{out}");
}

/// Twelve plies after which Red's Dog, shuffled f2-f1-f2, would enter f1 a fourth time within
/// seven of Red's moves (Blue moves forward, so no position repeats).
const CHASE_SHUFFLE: &str = "f2f1 a7a6 f1f2 a6a5 f2f1 a5a4 f1f2 g7g6 f2f1 g6g5 f1f2 g5g4";

#[test]
fn the_anti_chase_rules_in_the_protocol_and_in_play() {
    let script = format!(
        "position startpos moves {CHASE_SHUFFLE} f2f1\n\
         setoption name anti_chase value true\n\
         position startpos moves {CHASE_SHUFFLE} f2f1\n\
         position startpos moves {CHASE_SHUFFLE}\n\
         go depth 3\n\
         isready\n"
    );
    let (out, code) = run(&["uci"], &script);
    assert_eq!(code, 0);
    // Accepted without the rule; switching it on replays the position and refuses the same
    // move (the first error), as does setting the position again (the second).
    let errors: Vec<&str> = out.lines().filter(|l| l.starts_with("info string error")).collect();
    assert_eq!(errors.len(), 2, "{out}");
    for e in errors {
        assert!(e.contains("move 13 ('f2f1')") && e.contains("anti-chase rule 7-3"), "{out}");
    }
    let best = out.lines().find_map(|l| l.strip_prefix("bestmove ")).expect("a best move");
    assert_ne!(best, "f2f1", "{out}");

    let (out, code) = run(&["play", "--rules", "anti_chase=on", "--moves", CHASE_SHUFFLE, "--movetime", "30"], "f2f1\nquit\n");
    assert_eq!(code, 0, "{out}");
    assert!(out.contains("f2f1 is illegal: the anti-chase rule 7-3"), "{out}");
}

/// A whole analysis session with the network, as a GUI drives one: options in any order (the
/// engine before its network), a missing network said at `go`, `go infinite` reporting while it
/// searches and ending only at `stop`, MultiPV lines, and the tree kept for the next `go`.
#[test]
fn the_network_as_an_analysis_engine() {
    use std::io::{BufRead, BufReader};
    use std::time::{Duration, Instant};
    let model = concat!(env!("CARGO_MANIFEST_DIR"), "/checkpoints/sample-cpu-1h/gen-0072.jzm");
    let mut child = Command::new(env!("CARGO_BIN_EXE_junglezero"))
        .arg("uci")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("binary starts");
    let mut input = child.stdin.take().unwrap();
    let (tx, rx) = std::sync::mpsc::channel::<(Instant, String)>();
    let stdout = child.stdout.take().unwrap();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines().map_while(Result::ok) {
            let _ = tx.send((Instant::now(), line));
        }
    });
    let mut send = |s: &str| writeln!(input, "{s}").unwrap();
    // Lines until one that starts with `until` (waiting at most 20 s).
    let until = |prefix: &str| -> Vec<(Instant, String)> {
        let mut got = Vec::new();
        while let Ok((t, l)) = rx.recv_timeout(Duration::from_secs(20)) {
            let done = l.starts_with(prefix);
            got.push((t, l));
            if done {
                return got;
            }
        }
        panic!("no '{prefix}' line; got {got:?}");
    };
    let nodes = |l: &str| -> u64 { l.split_whitespace().skip_while(|w| *w != "nodes").nth(1).and_then(|n| n.parse().ok()).unwrap_or(0) };

    send("setoption name Engine value mcts");
    send("position startpos");
    send("go nodes 10");
    let lines = until("bestmove");
    assert!(lines.iter().any(|(_, l)| l.contains("error") && l.contains("Model")), "{lines:?}");
    assert_eq!(lines.last().unwrap().1, "bestmove (none)");

    send(&format!("setoption name Model value {model}"));
    send("setoption name MultiPV value 3");
    send("go infinite");
    let started = Instant::now();
    std::thread::sleep(Duration::from_millis(1600));
    let stopped = Instant::now();
    send("stop");
    let lines = until("bestmove");
    let infos: Vec<&(Instant, String)> = lines.iter().filter(|(_, l)| l.starts_with("info depth")).collect();
    // Reports arrive while it searches, not only at the end: at least two rounds before `stop`.
    let early = infos.iter().filter(|(t, _)| *t < stopped).count();
    assert!(early >= 6, "{early} info lines before stop (three lines a report): {lines:?}");
    assert!(lines.last().unwrap().0 >= stopped && stopped - started >= Duration::from_millis(1500), "bestmove before stop: {lines:?}");
    for k in 1..=3 {
        assert!(infos.iter().any(|(_, l)| l.contains(&format!(" multipv {k} score cp "))), "no multipv {k}: {infos:?}");
    }
    let last = &infos.last().unwrap().1;
    assert!(last.contains(" seldepth ") && last.contains(" pv "), "{last}");
    let before = nodes(&infos.iter().rev().find(|(_, l)| l.contains("multipv 1 ")).unwrap().1);
    let best = lines.last().unwrap().1.strip_prefix("bestmove ").unwrap().to_string();
    assert!(legal_after(&[], &best), "{best}");

    assert!(infos.iter().all(|(_, l)| !l.contains(" wdl ")), "no wdl unless asked: {infos:?}");

    // The same position again: the tree is kept and grows by what this `go` asks; with
    // UCI_ShowWDL every line carries win, draw and loss per mille after its score.
    send("setoption name UCI_ShowWDL value true");
    send("go nodes 300");
    let lines = until("bestmove");
    let after = nodes(&lines.iter().rev().find(|(_, l)| l.contains("multipv 1 ")).unwrap().1);
    assert!(after >= before + 300, "nodes {before} then {after}: {lines:?}");
    for (_, l) in lines.iter().filter(|(_, l)| l.starts_with("info depth")) {
        let w: Vec<&str> = l.split_whitespace().collect();
        let at = w.iter().position(|x| *x == "wdl").unwrap_or_else(|| panic!("no wdl: {l}"));
        assert_eq!(w[at - 2], "cp", "{l}");
        let sum: u32 = w[at + 1..at + 4].iter().map(|x| x.parse::<u32>().unwrap()).sum();
        assert_eq!((sum, w[at + 4]), (1000, "pv"), "{l}");
    }
    // Two threads sharing the tree, eight leaves a network call each: the tree grows by what
    // the `go` asks.
    send("setoption name Threads value 2");
    send("setoption name MinibatchSize value 8");
    send("go nodes 400");
    let lines = until("bestmove");
    let n = nodes(&lines.iter().rev().find(|(_, l)| l.starts_with("info depth")).unwrap().1);
    assert!(n >= 400, "{lines:?}");
    assert!(legal_after(&[], lines.last().unwrap().1.strip_prefix("bestmove ").unwrap()), "{lines:?}");
    send("setoption name UCI_ShowWDL value maybe");
    let lines = until("info string error");
    assert!(lines.last().unwrap().1.contains("true or false"), "{lines:?}");
    send("quit");
    assert!(child.wait().unwrap().success());
}
