//! Endgame tablebases against plain exhaustive search, against their own moves, under the
//! mirror and the colour flip, and through the binary.

use std::collections::HashMap;
use std::process::{Command, Stdio};
use std::sync::{Arc, OnceLock};

use junglezero::jungle::movegen::pseudo_moves;
use junglezero::jungle::tables::{DEN, WATER};
use junglezero::jungle::{Kind, MoveList, Piece, Position, Rules, Side, Square};
use junglezero::tb::generate::{build_dir, to_table};
use junglezero::tb::{Material, Table, Tablebase, Value, probe_in};
use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// Every table of up to three pieces under the default rules, built once for these tests.
fn tables() -> &'static Tablebase {
    static TB: OnceLock<Tablebase> = OnceLock::new();
    TB.get_or_init(|| {
        let dir = std::env::temp_dir().join(format!("jz-tb-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        build_dir(&dir, &Rules::default(), &Material::all_up_to(3), &|_| {}).expect("tables build");
        let tb = Tablebase::open(&dir, &Rules::default()).expect("tables open");
        assert_eq!(tb.max_pieces(), 3);
        tb
    })
}

/// A random legal position of 2 or 3 pieces (no piece on a den, only Rats in the water).
fn random_position(rng: &mut ChaCha8Rng) -> Position {
    loop {
        let n = rng.random_range(2..=3usize);
        let mut kinds: Vec<Piece> = Vec::new();
        let red = rng.random_range(1..n);
        while kinds.len() < n {
            let side = if kinds.len() < red { Side::Red } else { Side::Blue };
            let p = Piece::new(side, Kind::ALL[rng.random_range(0..8)]);
            if !kinds.contains(&p) {
                kinds.push(p);
            }
        }
        let mut seen = 0u64;
        let mut placed = Vec::new();
        for p in &kinds {
            let s = rng.random_range(0..63usize);
            let bit = 1u64 << s;
            if seen & bit != 0 || (DEN[0] | DEN[1]) & bit != 0 || (WATER & bit != 0 && p.kind() != Kind::Rat) {
                break;
            }
            seen |= bit;
            placed.push(format!("{}{}", p.letter(), Square::new(s as u8)));
        }
        if placed.len() < kinds.len() {
            continue;
        }
        let stm = if rng.random::<bool>() { 'w' } else { 'b' };
        return junglezero::jungle::parse_fen(&crate::common::fen_of(&placed.join(" "), stm)).expect("a valid position");
    }
}

/// Plain exhaustive search: the exact result when it ends within `depth` plies with best play,
/// otherwise nothing (a draw is never proved).
fn solve(pos: &Position, rules: &Rules, depth: u32) -> Option<Value> {
    let mut moves = MoveList::new();
    pseudo_moves(pos, rules, &mut moves);
    if moves.is_empty() {
        return Some(Value::Loss(0));
    }
    let us = pos.side_to_move();
    let (mut win, mut all_lose, mut longest) = (None::<u16>, true, 0u16);
    for &mv in &moves {
        if DEN[us.flip().index()] & mv.to().bit() != 0 {
            win = Some(1);
            continue;
        }
        let mut after = *pos;
        after.play_unchecked(mv);
        if after.count(us.flip()) == 0 {
            win = Some(1);
            continue;
        }
        match if depth > 1 { solve(&after, rules, depth - 1) } else { None } {
            Some(Value::Loss(k)) => win = Some(win.map_or(k + 1, |w| w.min(k + 1))),
            Some(Value::Win(k)) => longest = longest.max(k + 1),
            _ => all_lose = false,
        }
    }
    match win {
        Some(w) => Some(Value::Win(w)),
        None if all_lose => Some(Value::Loss(longest)),
        None => None,
    }
}

/// The tables agree with exhaustive search on random positions of two and three pieces:
/// every result within the search's horizon, value and distance; nothing proved beyond it.
#[test]
fn tables_agree_with_exhaustive_search() {
    let tb = tables();
    let rules = Rules::default();
    let mut rng = ChaCha8Rng::seed_from_u64(7);
    let (mut exact, mut beyond) = (0, 0);
    for _ in 0..400 {
        let pos = random_position(&mut rng);
        let v = tb.probe(&pos).unwrap();
        let depth = if pos.count(Side::Red) + pos.count(Side::Blue) == 2 { 7 } else { 5 };
        let s = solve(&pos, &rules, depth);
        match v {
            Value::Win(d) | Value::Loss(d) if u32::from(d) <= depth => {
                assert_eq!(s, Some(v), "{}", junglezero::jungle::fen(&pos));
                exact += 1;
            }
            _ => {
                assert_eq!(s, None, "{} is {v} in the tables", junglezero::jungle::fen(&pos));
                beyond += 1;
            }
        }
    }
    assert!(exact > 100 && beyond > 20, "exact {exact}, beyond the horizon {beyond}");
}

/// The result a move leads to, for the side that made it.
fn after_move(tb: &HashMap<Material, Arc<Table>>, pos: &Position, mv: junglezero::jungle::Move) -> Value {
    let us = pos.side_to_move();
    if DEN[us.flip().index()] & mv.to().bit() != 0 {
        return Value::Win(1);
    }
    let mut after = *pos;
    after.play_unchecked(mv);
    if after.count(us.flip()) == 0 {
        return Value::Win(1);
    }
    probe_in(tb, &after).expect("every smaller table is there").from_mover()
}

/// Every position of the tables checked against its moves: a win in N has a move that wins in
/// N and none faster; a loss in N has only losing moves, the longest in N; a draw has no
/// winning move and a drawing one.
#[test]
fn every_result_is_what_its_moves_give() {
    let tb = tables();
    let rules = Rules::default();
    let dir = std::env::temp_dir().join(format!("jz-tb-{}", std::process::id()));
    let mut map = HashMap::new();
    for m in Material::all_up_to(3) {
        map.insert(m, Arc::new(Table::load(&dir.join(Table::file_name(m)), m).unwrap()));
    }
    let mut checked = 0;
    for text in ["E-r", "R-e", "L-t", "C-d", "ER-l", "TR-e", "LD-w", "RC-r"] {
        let m = Material::parse(text).unwrap();
        let pieces = m.pieces();
        let n = m.count();
        let mut squares = vec![0usize; n];
        for idx in 0..junglezero::tb::index::full_len(n) {
            let stm = junglezero::tb::index::decode_full(idx, n, &mut squares);
            if !junglezero::tb::index::valid(&pieces, &squares) {
                continue;
            }
            let pos = junglezero::tb::index::position(&pieces, &squares, stm);
            let v = tb.probe(&pos).unwrap();
            let mut moves = MoveList::new();
            pseudo_moves(&pos, &rules, &mut moves);
            let results: Vec<Value> = moves.iter().map(|&mv| after_move(&map, &pos, mv)).collect();
            let wins = results.iter().filter_map(|r| if let Value::Win(d) = r { Some(*d) } else { None });
            let losses = results.iter().filter_map(|r| if let Value::Loss(d) = r { Some(*d) } else { None });
            match v {
                Value::Win(d) => assert_eq!(wins.min(), Some(d), "{text} {}", junglezero::jungle::fen(&pos)),
                Value::Loss(d) => {
                    assert!(results.iter().all(|r| matches!(r, Value::Loss(_))), "{text} {}", junglezero::jungle::fen(&pos));
                    assert_eq!(losses.max().unwrap_or(0), d, "{text} {}", junglezero::jungle::fen(&pos));
                }
                Value::Draw => {
                    assert_eq!(wins.count(), 0, "{text} {}", junglezero::jungle::fen(&pos));
                    assert!(results.contains(&Value::Draw), "{text} {}", junglezero::jungle::fen(&pos));
                }
            }
            checked += 1;
        }
    }
    assert!(checked > 500_000, "{checked}");
}

/// A position, its mirror and its colour flip have one value; a material stored flipped is
/// probed through the flip.
#[test]
fn mirror_and_colour_flip_keep_the_value() {
    let tb = tables();
    let mut rng = ChaCha8Rng::seed_from_u64(11);
    let mut flipped = 0;
    for _ in 0..3000 {
        let pos = random_position(&mut rng);
        let v = tb.probe(&pos).unwrap();
        assert_eq!(tb.probe(&pos.mirror()).unwrap(), v, "{}", junglezero::jungle::fen(&pos));
        assert_eq!(tb.probe(&pos.colour_flipped()).unwrap(), v, "{}", junglezero::jungle::fen(&pos));
        flipped += usize::from(pos.count(Side::Blue) > pos.count(Side::Red));
    }
    assert!(flipped > 500);
    // Beyond the tables, and over.
    let four = junglezero::jungle::parse_fen("l5t/7/7/7/7/7/7/7/T5L w").unwrap();
    assert!(tb.probe(&four).unwrap_err().to_string().contains("4 pieces"));
}

/// A mirror-symmetric fold: the whole-board build and its table give each position one code.
#[test]
fn folding_a_build_into_the_table_loses_nothing() {
    let m = Material::parse("L-r").unwrap();
    let full = junglezero::tb::build::build(m, &Rules::default(), &|_| None).unwrap();
    let t = to_table(m, "x", &full);
    let n = m.count();
    let mut squares = vec![0usize; n];
    for (idx, &c) in full.iter().enumerate() {
        let stm = junglezero::tb::index::decode_full(idx, n, &mut squares);
        assert_eq!(t.codes[junglezero::tb::index::encode_table(stm, &squares)], c);
    }
}

/// Through the binary: `tb build --pieces 2` from nothing, again (kept), and `tb probe`
/// answering every line, errors included.
#[test]
fn tb_build_and_probe_from_the_command_line() {
    let dir = std::env::temp_dir().join(format!("jz-tb-cli-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let run = |args: &[&str]| Command::new(env!("CARGO_BIN_EXE_junglezero")).args(args).output().unwrap();
    let o = run(&["tb", "build", "--pieces", "2", "--out", dir.to_str().unwrap()]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let out = String::from_utf8_lossy(&o.stdout).into_owned();
    assert!(out.lines().any(|l| l.split_whitespace().take(2).eq(["2", "36"])), "{out}");
    assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 36);
    let o = run(&["tb", "build", "--pieces", "2", "--out", dir.to_str().unwrap()]);
    assert!(String::from_utf8_lossy(&o.stdout).contains("36 kept"), "{}", String::from_utf8_lossy(&o.stdout));
    let o = run(&["tb", "build", "--pieces", "2", "--rules", "icga2014", "--out", dir.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("was built for rules"), "{}", String::from_utf8_lossy(&o.stderr));

    let mut child = Command::new(env!("CARGO_BIN_EXE_junglezero"))
        .args(["tb", "probe", "--tb", dir.to_str().unwrap()])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    // Red Elephant next to the Blue den's trap with Blue's Rat far away: wins at once.
    let lines = "7/3E3/7/7/7/7/7/7/r6 w\n7/3E3/7/7/7/7/7/7/r6 b\nnot a fen\nl5t/7/7/7/7/7/7/7/T5L w\n\n";
    use std::io::Write;
    child.stdin.take().unwrap().write_all(lines.as_bytes()).unwrap();
    let o = child.wait_with_output().unwrap();
    let out = String::from_utf8_lossy(&o.stdout).into_owned();
    let answers: Vec<&str> = out.lines().collect();
    assert_eq!(answers.len(), 4, "{out}");
    assert_eq!(answers[0], "win 1");
    assert!(answers[1].starts_with("loss ") || answers[1].starts_with("win ") || answers[1] == "draw", "{out}");
    assert!(answers[2].starts_with("error: ") && answers[3].starts_with("error: 4 pieces"), "{out}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// What the shipped network scored on the report's 512 table positions when `tb score` came
/// (0.678), less a margin: a sample labelled the wrong way round or a misread network falls
/// below it.
const SHIPPED_ACCURACY_FLOOR: f64 = 0.6;

/// `tb score`: the shipped network measured against the tables, one line; a bad model file and
/// a folder without tables are one-line errors.
#[test]
fn tb_score_measures_a_network_against_the_tables() {
    let dir = tb_dir();
    let sample = concat!(env!("CARGO_MANIFEST_DIR"), "/checkpoints/sample-cpu-1h/gen-0072.jzm");
    let run = |args: &[&str]| Command::new(env!("CARGO_BIN_EXE_junglezero")).args(args).output().unwrap();
    let o = run(&["tb", "score", "--tb", dir.to_str().unwrap(), sample]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let out = String::from_utf8_lossy(&o.stdout).into_owned();
    assert!(out.lines().count() == 1 && out.ends_with("on 512 tablebase positions\n"), "{out}");
    let accuracy: f64 = out.split("value accuracy ").nth(1).and_then(|r| r.split(',').next()).unwrap().parse().unwrap();
    let error: f64 = out.split("error| ").nth(1).and_then(|r| r.split(' ').next()).unwrap().parse().unwrap();
    assert!(accuracy > SHIPPED_ACCURACY_FLOOR && accuracy <= 1.0 && (0.0..1.0).contains(&error), "{out}");

    let bad = std::env::temp_dir().join(format!("jz-tb-score-{}.jzm", std::process::id()));
    std::fs::write(&bad, b"not a network").unwrap();
    let o = run(&["tb", "score", "--tb", dir.to_str().unwrap(), bad.to_str().unwrap()]);
    let e = String::from_utf8_lossy(&o.stderr).into_owned();
    assert!(!o.status.success() && e.trim().lines().count() == 1 && e.contains("jz-tb-score-"), "{e}");
    let _ = std::fs::remove_file(&bad);
    let empty = std::env::temp_dir().join(format!("jz-tb-score-empty-{}", std::process::id()));
    std::fs::create_dir_all(&empty).unwrap();
    let o = run(&["tb", "score", "--tb", empty.to_str().unwrap(), sample]);
    let e = String::from_utf8_lossy(&o.stderr).into_owned();
    assert!(!o.status.success() && e.trim().lines().count() == 1, "{e}");
    let _ = std::fs::remove_dir_all(&empty);
}

/// A 3-piece win the tables hold: Red Elephant and Rat against the Blue Lion.
const WIN_FEN: &str = "7/3l3/7/7/7/7/2E4/R6/7 w";

fn tb_dir() -> std::path::PathBuf {
    tables();
    std::env::temp_dir().join(format!("jz-tb-{}", std::process::id()))
}

/// Alpha-beta with the tables plays a fastest win and scores it as a mate in the tables'
/// distance; MCTS with them plays the tables' move outright and says so; below its root the
/// tables' positions are leaves with exact values.
#[test]
fn engines_play_and_value_tablebase_positions_exactly() {
    use junglezero::alphabeta::{Engine, Eval, EvalWeights, SearchConfig};
    use junglezero::jungle::JungleGame;
    use junglezero::mcts::oracle::Oracle;
    use junglezero::player::{Limits, Player};
    let tb = Arc::new(Tablebase::open(&tb_dir(), &Rules::default()).unwrap());
    let rules = Rules::default();
    let game = JungleGame::from_fen(WIN_FEN, rules).unwrap();
    let Value::Win(d) = tb.probe(game.position()).unwrap() else { panic!("a win") };
    let fastest = |mv: junglezero::jungle::Move| {
        use junglezero::game::Game;
        let mut g = game.clone();
        g.play_unchecked(mv);
        g.outcome().is_some() || tb.probe(g.position()).unwrap() == Value::Loss(d - 1)
    };
    let mut engine = Engine::new(&SearchConfig::default(), Eval::new(&EvalWeights::default(), rules)).with_tablebase(Some(tb.clone()));
    let r = engine.search(&game, &Limits { depth: Some(4), ..Limits::default() }, &mut |_| {});
    assert!(fastest(r.best.unwrap()), "alpha-beta played {:?}", r.best);
    assert_eq!(r.score.to_string(), format!("mate {}", d.div_ceil(2)));

    let net = Arc::new(junglezero::mcts::baseline::UniformEvaluator::default());
    let oracle: Arc<dyn Oracle<JungleGame>> = tb.clone();
    let mut player = junglezero::mcts::MctsPlayer::new(net.clone(), &junglezero::mcts::MctsConfig::default(), 50).with_oracle(Some(oracle.clone()));
    let mut lines = Vec::new();
    let mv = player.choose(&game, &Limits::default(), &mut |l| lines.push(l.to_string())).unwrap();
    assert!(fastest(mv), "mcts played {mv}");
    assert!(lines.iter().any(|l| l == &format!("info string tablebase win in {d}")), "{lines:?}");

    // Four pieces, tables of three: every capture leads to a position valued exactly.
    let four = JungleGame::from_fen("7/7/7/7/7/7/1e5/1El4/R6 w", rules).unwrap();
    let mut s = junglezero::mcts::Search::new(four, &junglezero::mcts::MctsConfig { dirichlet_fraction: 0.0, ..Default::default() }, 1);
    s.set_oracle(Some(oracle));
    let mut cache = junglezero::mcts::cache::NnCache::new(0, 32);
    let mut buf = junglezero::mcts::EvalBuffers::new::<JungleGame>(1);
    junglezero::mcts::run_plain(&mut s, &*net, &mut cache, 200, &mut buf);
    let exact_leaves = s.tree().nodes.iter().filter(|n| n.state == junglezero::mcts::tree::TERMINAL && n.terminal_value != 0.0).count();
    assert!(exact_leaves > 0, "no position below the root was valued by the tables");
}

/// Through the protocol: `TablebasePath` makes alpha-beta report tbhits and MCTS say the
/// tables' result; a folder without tables is refused at once.
#[test]
fn the_protocol_takes_a_tablebase_path() {
    use std::io::{BufRead, BufReader, Write};
    let dir = tb_dir();
    let model = concat!(env!("CARGO_MANIFEST_DIR"), "/checkpoints/sample-cpu-1h/gen-0072.jzm");
    let mut child = Command::new(env!("CARGO_BIN_EXE_junglezero")).arg("uci").stdin(Stdio::piped()).stdout(Stdio::piped()).spawn().unwrap();
    let mut input = child.stdin.take().unwrap();
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines().map_while(Result::ok);
    let mut until = |prefix: &str| -> Vec<String> {
        let mut got = Vec::new();
        for l in lines.by_ref() {
            let done = l.starts_with(prefix);
            got.push(l);
            if done {
                return got;
            }
        }
        panic!("no '{prefix}' line: {got:?}");
    };
    writeln!(input, "setoption name TablebasePath value {}\nposition fen {WIN_FEN}\ngo depth 3", dir.display()).unwrap();
    let out = until("bestmove");
    assert!(out.iter().any(|l| l.starts_with("info depth") && l.contains(" tbhits ") && l.contains("score mate 14")), "{out:?}");
    // The line MCTS prints for a root the tables hold (below), alpha-beta prints too.
    assert!(out.contains(&"info string tablebase win in 27".to_string()), "{out:?}");
    writeln!(input, "setoption name Engine value mcts\nsetoption name Model value {model}\ngo nodes 50").unwrap();
    let mcts_out = until("bestmove");
    assert!(mcts_out.contains(&"info string tablebase win in 27".to_string()), "{mcts_out:?}");
    // (`isready` may be answered before the option while the search thread ends: wait for
    // the error itself.)
    writeln!(input, "setoption name TablebasePath value /nonexistent").unwrap();
    let out = until("info string error");
    assert!(out.last().is_some_and(|l| l.contains("/nonexistent")), "{out:?} after {mcts_out:?}");
    writeln!(input, "quit").unwrap();
    assert!(child.wait().unwrap().success());
}

/// `play`'s hint in a position the tables hold gives the move with the search's evaluation
/// and the tables' result; a hint elsewhere has no tables' result.
#[test]
fn a_hint_in_a_table_position_says_the_tables_result() {
    use std::io::Write;
    let play = |fen: &str| {
        let dir = format!("tablebase.dir={}", tb_dir().display());
        let mut child = Command::new(env!("CARGO_BIN_EXE_junglezero"))
            .args(["play", "--fen", fen, "--set", &dir, "--movetime", "100"])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .unwrap();
        child.stdin.take().unwrap().write_all(b"hint\nquit\n").unwrap();
        let o = child.wait_with_output().unwrap();
        assert!(o.status.success());
        String::from_utf8_lossy(&o.stdout).into_owned()
    };
    let out = play(WIN_FEN);
    let hint = out.lines().find_map(|l| l.split("your move> ").last().filter(|h| h.starts_with("hint: "))).unwrap_or_else(|| panic!("no hint in:\n{out}"));
    assert!(hint.contains("a win in 14 moves for you") && hint.ends_with("tablebase win in 27)"), "{hint}");
    // Five pieces: beyond the three-piece tables.
    let out = play("6t/3l3/7/7/7/7/2E4/RC5/7 w");
    let hint = out.lines().find_map(|l| l.split("your move> ").last().filter(|h| h.starts_with("hint: "))).unwrap_or_else(|| panic!("no hint in:\n{out}"));
    assert!(hint.contains(" for you at depth ") && !hint.contains("tablebase"), "{hint}");
}

/// Self-play with the tables ends each game at its first position they hold, with their
/// result; the shard records it as `tablebase`. Matches do the same (arena's count and PGN).
#[test]
fn self_play_and_matches_end_at_the_tables() {
    use junglezero::game::{Game, Reason, Seat};
    use junglezero::jungle::JungleGame;
    use junglezero::mcts::oracle::Oracle;
    use junglezero::selfplay::{RunOptions, SelfplayConfig, play_plain};
    let tb = Arc::new(Tablebase::open(&tb_dir(), &Rules::default()).unwrap());
    let rules = Rules::default();
    // Four pieces, captures at hand: the first one reaches the tables.
    let root = JungleGame::from_fen("7/7/7/7/7/7/1e5/1El4/R6 w", rules).unwrap();
    let config = SelfplayConfig { full_sims: 16, fast_sims: 8, ..SelfplayConfig::default() };
    let mcts = junglezero::mcts::MctsConfig::default();
    let oracle: Arc<dyn Oracle<JungleGame>> = tb.clone();
    let opts = RunOptions { root: root.clone(), oracle: Some(oracle), ..RunOptions::from_start(6, 3, "t", &rules) };
    let games = play_plain(&junglezero::mcts::baseline::UniformEvaluator::default(), &mcts, &config, &opts);
    let mut by_tables = 0;
    for g in &games {
        // Replay to the end: the last position is the tables' and its result is the game's.
        let mut pos = root.clone();
        for m in &g.moves {
            pos.play_unchecked(m.mv);
        }
        if g.reason == Reason::Tablebase {
            by_tables += 1;
            let v = tb.probe(pos.position()).unwrap();
            let mover = pos.side_to_move().player();
            let expected = match v {
                Value::Win(_) => Some(mover),
                Value::Loss(_) => Some(mover.other()),
                Value::Draw => None,
            };
            assert_eq!(g.winner, expected, "{:?}", g.moves.len());
            let _ = Seat::First;
        }
    }
    assert!(by_tables >= 5, "{by_tables} of {} games ended by the tables", games.len());
    let plain =
        play_plain(&junglezero::mcts::baseline::UniformEvaluator::default(), &mcts, &config, &RunOptions { root, ..RunOptions::from_start(2, 3, "t", &rules) });
    assert!(plain.iter().all(|g| g.reason != Reason::Tablebase), "no tables, no tablebase endings");

    let dir = std::env::temp_dir().join(format!("jz-tb-arena-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("book.txt"), "7/7/7/7/7/7/1e5/1El4/R6 w\n").unwrap();
    let o = Command::new(env!("CARGO_BIN_EXE_junglezero"))
        .args(["arena", "--a", "alphabeta:depth=2", "--b", "random", "--games", "4", "--openings"])
        .arg(dir.join("book.txt"))
        .args(["--json"])
        .arg(dir.join("m.json"))
        .args(["--set", &format!("tablebase.dir={}", tb_dir().display())])
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(String::from_utf8_lossy(&o.stdout).contains("Ended by the endgame tables"), "{}", String::from_utf8_lossy(&o.stdout));
    let v: serde_json::Value = serde_json::from_slice(&std::fs::read(dir.join("m.json")).unwrap()).unwrap();
    assert!(v["tablebase"].as_u64().unwrap() >= 1, "{v}");
    let _ = std::fs::remove_dir_all(&dir);
}
