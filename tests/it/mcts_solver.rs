//! Proven values in the players' trees (`mcts.play_solver`): finished games prove their
//! nodes, proofs go up the tree, the search plays a proven win and reports `score mate N`.

use std::io::Write;
use std::process::{Command, Stdio};

use junglezero::jungle::{JungleGame, Rules, parse_fen};
use junglezero::mcts::baseline::UniformEvaluator;
use junglezero::mcts::cache::NnCache;
use junglezero::mcts::search::Proof;
use junglezero::mcts::{EvalBuffers, MctsConfig, Search, run_plain};

/// Red's Dog on e8, two steps from Blue's den on d9 (through d8 or e9); Blue's only piece, a Rat
/// on a1, is three steps from Red's den: Red wins in two moves (three plies) whatever Blue does.
const WIN_IN_TWO: &str = "7/4D2/7/7/7/7/7/7/r6 w";

fn searched(fen: &str, sims: u32, solver: bool) -> Search<JungleGame> {
    let g = JungleGame::new(parse_fen(fen).unwrap(), Rules::default());
    let mut s = Search::new(g, &MctsConfig { dirichlet_fraction: 0.0, ..MctsConfig::default() }, 1);
    s.set_solver(solver);
    let mut cache = NnCache::new(1 << 12, 32);
    let mut buf = EvalBuffers::new::<JungleGame>(1);
    run_plain(&mut s, &UniformEvaluator::default(), &mut cache, sims, &mut buf);
    s
}

#[test]
fn a_den_entry_proves_the_root_won_in_one() {
    // The Red Dog on e9 can enter Blue's den among two dozen other moves.
    let s = searched("l3D1t/1d3c1/r1p1w1e/7/7/7/E1W1P1R/1C5/T5L w", 200, true);
    assert_eq!(s.root_proof(), Some(Proof { win: true, plies: 1 }));
    assert_eq!(s.best_move().unwrap().to_string(), "e9d9");
    assert_eq!(s.root_proof().unwrap().mate_moves(), 1);
}

#[test]
fn a_win_through_every_reply_is_proven_in_three_plies() {
    let s = searched(WIN_IN_TWO, 3000, true);
    assert_eq!(s.root_proof(), Some(Proof { win: true, plies: 3 }), "root visits {}", s.root_visits());
    assert_eq!(s.root_proof().unwrap().mate_moves(), 2);
    let best = s.best_move().unwrap().to_string();
    assert!(best == "e8d8" || best == "e8e9", "{best}");
    // Without the solver (self-play's searches) nothing is proven.
    let plain = searched(WIN_IN_TWO, 3000, false);
    assert_eq!(plain.root_proof(), None);
}

#[test]
fn moves_proven_lost_are_not_played_and_a_lost_root_says_how_long() {
    // The Blue Wolf on Red's trap e1 enters the den next move unless the Dog on f1 takes it:
    // every other Red move is proven lost, and the capture is played.
    let s = searched("l5t/1d3c1/r1p3e/7/7/7/E1W1P1R/1C5/T3wDL w", 800, true);
    assert_eq!(s.best_move().unwrap().to_string(), "f1e1");
    let lost = (0..s.tree().root().num_children as usize)
        .map(|i| s.tree().root().first_child as usize + i)
        .filter(|&c| s.child_proof(c).is_some_and(|p| !p.win))
        .count();
    assert!(lost >= 3, "{lost} root moves proven lost");
    // Blue to move with its Wolf beside Red's den and nothing of Red's near: won for Blue in
    // one; seen from Red after any Red move, the position is lost in two plies.
    let s = searched("7/7/7/7/7/7/7/3w3/6R b", 100, true);
    assert_eq!(s.root_proof(), Some(Proof { win: true, plies: 1 }));
    let s = searched("7/7/7/7/7/7/7/3w3/6R w", 400, true);
    assert_eq!(s.root_proof(), Some(Proof { win: false, plies: 2 }));
    assert_eq!(s.root_proof().unwrap().mate_moves(), -1);
}

/// The protocol's lines from `info` to `bestmove` after `script` (the input stays open until
/// the answer: at its end the search would be stopped).
fn protocol_answer(script: &str) -> Vec<String> {
    protocol_answer_with(&[], script)
}

/// The same with `uci`'s command-line arguments (`--set KEY=VALUE`).
pub fn protocol_answer_with(args: &[&str], script: &str) -> Vec<String> {
    use std::io::{BufRead, BufReader};
    use std::time::Duration;
    let mut child = Command::new(env!("CARGO_BIN_EXE_junglezero"))
        .arg("uci")
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("binary starts");
    let mut input = child.stdin.take().unwrap();
    // An engine that refuses its command line exits at once, maybe before the script is
    // written: a closed pipe then is its answer, and the caller checks what it printed.
    match input.write_all(script.as_bytes()).and_then(|()| input.flush()) {
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => {}
        other => other.unwrap(),
    }
    let (tx, rx) = std::sync::mpsc::channel::<String>();
    let stdout = child.stdout.take().unwrap();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines().map_while(Result::ok) {
            let _ = tx.send(line);
        }
    });
    let mut lines = Vec::new();
    while let Ok(l) = rx.recv_timeout(Duration::from_secs(60)) {
        let done = l.starts_with("bestmove");
        lines.push(l);
        if done {
            break;
        }
    }
    drop(input);
    let _ = child.wait();
    lines
}

/// The `nodes` of the last `info` line.
fn last_nodes(lines: &[String]) -> u64 {
    let last = lines.iter().rev().find(|l| l.starts_with("info depth")).unwrap_or_else(|| panic!("no info: {lines:?}"));
    last.split_whitespace().skip_while(|w| *w != "nodes").nth(1).unwrap().parse().unwrap()
}

pub const MODEL: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/checkpoints/sample-cpu-1h/gen-0072.jzm");

#[test]
fn the_protocol_reports_a_proven_win_as_mate_and_stops_early() {
    let lines = protocol_answer(&format!("setoption name Engine value mcts\nsetoption name Model value {MODEL}\nposition fen {WIN_IN_TWO}\ngo nodes 100000\n"));
    let best = lines.iter().find_map(|l| l.strip_prefix("bestmove ")).unwrap_or_else(|| panic!("no bestmove: {lines:?}"));
    assert!(best == "e8d8" || best == "e8e9", "{lines:?}");
    let last = lines.iter().rev().find(|l| l.starts_with("info depth")).unwrap();
    assert!(last.contains(" score mate 2 "), "{last}");
    assert!(last_nodes(&lines) < 100_000, "the proven root ends the search: {last}");
}

#[test]
fn a_timed_search_stops_once_its_move_cannot_change() {
    // Red's only piece, a Rat in the corner beside a Blue Cat it cannot take, has one move.
    let lines = protocol_answer(&format!(
        "setoption name Engine value mcts\nsetoption name Model value {MODEL}\nposition fen Rc5/7/7/7/7/7/7/7/7 w\ngo movetime 5000\n"
    ));
    assert_eq!(lines.last().map(String::as_str), Some("bestmove a9a8"), "{lines:?}");
    // Five seconds would be tens of thousands of simulations; once the only move leads by more
    // than the time left can bring, the search ends.
    assert!(last_nodes(&lines) < 2_000, "{lines:?}");
}
