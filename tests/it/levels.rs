//! Play at a chosen strength (`alphabeta:elo=E`, `temp=`, the protocol's `UCI_LimitStrength` and
//! `UCI_Elo`, the page's `elo`), its measurement (`bench levels`), tournaments of chosen
//! pairings, and the book of balanced openings (`book`, and the shipped one `arena` plays by
//! default), through the binary.

use std::collections::HashSet;
use std::path::Path;

use super::common::{fresh_dir, junglezero};
use super::protocol_go::Session;

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

fn stdout(o: &std::process::Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

/// The one line a refused command printed.
fn refused(o: &std::process::Output) -> String {
    assert_eq!(o.status.code(), Some(2), "{}", String::from_utf8_lossy(&o.stdout));
    let e = String::from_utf8_lossy(&o.stderr).trim().to_string();
    assert_eq!(e.lines().count(), 1, "{e}");
    e
}

#[test]
fn the_protocol_plays_at_a_level_only_when_asked() {
    let mut p = Session::start();
    p.send("uci");
    let options = p.until("uciok");
    assert!(options.contains(&"option name UCI_LimitStrength type check default false".to_string()), "{options:?}");
    let elo = options.iter().find(|l| l.starts_with("option name UCI_Elo type spin")).expect("UCI_Elo is offered");
    let words: Vec<&str> = elo.split_whitespace().collect();
    let (lo, hi): (i32, i32) = (words[words.len() - 3].parse().unwrap(), words[words.len() - 1].parse().unwrap());
    assert!(lo < 0 && hi > 0, "{elo}");
    p.send(&format!("setoption name UCI_Elo value {}", hi + 1));
    p.send("isready");
    let said = p.until("readyok");
    assert!(said.iter().any(|l| l.starts_with("info string") && l.contains(&format!("from {lo} to {hi}"))), "{said:?}");

    // At full strength the same position gets the same move; at the weakest level the engine
    // draws among the moves by their scores, so twenty searches give several moves.
    let moves = |p: &mut Session| -> HashSet<String> {
        (0..20)
            .map(|_| {
                p.send("position startpos moves c3d3 e7d7");
                p.send("go depth 3");
                p.bestmove().0
            })
            .collect()
    };
    assert_eq!(moves(&mut p).len(), 1, "full strength is deterministic");
    p.send("setoption name UCI_LimitStrength value true");
    p.send(&format!("setoption name UCI_Elo value {lo}"));
    let weak = moves(&mut p);
    assert!(weak.len() >= 3, "the weakest level varies its moves: {weak:?}");
    // Its depth is its own (one ply at the weakest level), whatever `go` asks.
    p.send("position startpos");
    p.send("go depth 9");
    let (_, lines) = p.bestmove();
    assert!(lines.iter().any(|l| l.starts_with("info depth 1 score")), "{lines:?}");
}

#[test]
fn a_game_without_levels_refuses_them_in_one_line() {
    let mut p = Session::start();
    p.send("setoption name UCI_Variant value flip");
    p.send("uci");
    let options = p.until("uciok");
    assert!(!options.iter().any(|l| l.contains("UCI_Elo") || l.contains("UCI_LimitStrength")), "{options:?}");
    p.send("setoption name UCI_LimitStrength value true");
    p.send("isready");
    let said = p.until("readyok");
    assert!(said.iter().any(|l| l.starts_with("info string") && l.contains("no strength levels")), "{said:?}");
}

#[test]
fn level_specs_are_checked_and_a_low_level_loses_to_depth_four() {
    for (spec, needle) in [("alphabeta:elo=99999", "out of range"), ("alphabeta:elo=0,depth=2", "give it alone"), ("alphabeta:depth=2,temp=0", "out of range")]
    {
        let e = refused(&junglezero(&["arena", "--a", spec, "--b", "random", "--games", "2"]));
        assert!(e.contains(needle), "{spec}: {e}");
    }
    let o = junglezero(&["arena", "--a", "alphabeta:elo=-400", "--b", "alphabeta:depth=4", "--games", "8", "--concurrency", "2"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let out = stdout(&o);
    let score = out.lines().find(|l| l.starts_with("Score of alphabeta:elo=-400 vs alphabeta:depth=4")).unwrap_or_else(|| panic!("{out}"));
    let wins: u32 = score.split(": ").nth(1).and_then(|r| r.split(" - ").next()).and_then(|w| w.trim().parse().ok()).unwrap();
    assert!(wins <= 1, "{score}");
}

#[test]
fn play_takes_a_level_for_the_game_that_has_levels() {
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_junglezero"))
        .args(["play", "--elo", "-300"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    std::io::Write::write_all(&mut child.stdin.take().unwrap(), b"quit\n").unwrap();
    let o = child.wait_with_output().unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(stdout(&o).contains("against alphabeta:elo=-300"), "{}", stdout(&o));
    let e = refused(&junglezero(&["play", "--game", "flip", "--elo", "0"]));
    assert!(e.contains("no strength levels"), "{e}");
    let e = refused(&junglezero(&["play", "--elo", "5000"]));
    assert!(e.contains("outside the levels"), "{e}");
}

#[test]
fn a_tournament_plays_only_the_pairings_named() {
    let d = fresh_dir("levels", "pairings");
    let players = ["alphabeta:depth=1", "alphabeta:depth=2", "random"];
    let mut args = vec!["tournament", "--players"];
    args.extend(players);
    args.extend(["--games", "2", "--pairings", "1-3,2-3", "--out-dir", s(&d)]);
    let o = junglezero(&args);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let journal = std::fs::read_to_string(d.join("games.jsonl")).unwrap();
    let pairs: HashSet<(u64, u64)> = journal
        .lines()
        .skip(1)
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap())
        .map(|v| (v["a"].as_u64().unwrap(), v["b"].as_u64().unwrap()))
        .collect();
    assert_eq!(pairs, HashSet::from([(0, 2), (1, 2)]));
    for (bad, needle) in [("1-1", "'1-1'"), ("1-4", "'1-4'"), ("1-2,2-1", "named twice"), ("x", "'x'")] {
        let mut args = vec!["tournament", "--players"];
        args.extend(players);
        args.extend(["--games", "2", "--pairings", bad, "--out-dir", s(&d)]);
        let o = junglezero(&args);
        assert!(!o.status.success());
        assert!(String::from_utf8_lossy(&o.stderr).contains(needle), "{bad}: {}", String::from_utf8_lossy(&o.stderr));
    }
    std::fs::remove_dir_all(&d).unwrap();
}

#[test]
fn bench_levels_rates_each_level_against_the_nearest_anchors_and_resumes() {
    let d = fresh_dir("levels", "bench");
    let args = ["bench", "levels", "--elo", "-300,200", "--games", "2", "--depths", "3", "--opponents", "1", "--concurrency", "2", "--out-dir", s(&d)];
    let o = junglezero(&args);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let out = stdout(&o);
    let table: Vec<&str> = out.lines().skip_while(|l| !l.starts_with("level")).collect();
    assert!(table[0].contains("requested") && table[0].contains("measured"), "{out}");
    assert!(table.iter().any(|l| l.starts_with("alphabeta:elo=-300") && l.contains("-300")), "{out}");
    assert!(table.iter().any(|l| l.starts_with("alphabeta:elo=200") && l.contains("+200")), "{out}");
    // Anchors: depth 1-2, 1-3, 2-3; then each level against one anchor, and the two levels
    // against each other: 6 pairings of 2 games.
    let count = |p: &str| std::fs::read_to_string(d.join(p)).unwrap().lines().count() - 1;
    assert_eq!((count("anchors/games.jsonl"), count("levels/games.jsonl")), (6, 6));
    // The same command plays nothing more and prints the same table.
    let again = junglezero(&args);
    assert!(again.status.success());
    assert_eq!((count("anchors/games.jsonl"), count("levels/games.jsonl")), (6, 6));
    assert_eq!(stdout(&again).lines().skip_while(|l| !l.starts_with("level")).collect::<Vec<_>>(), table);
    let e = refused(&junglezero(&["bench", "levels", "--elo", "99999", "--out-dir", s(&d)]));
    assert!(e.contains("outside the levels"), "{e}");
    std::fs::remove_dir_all(&d).unwrap();
}

#[test]
fn a_book_keeps_the_balanced_openings_and_arena_plays_it() {
    let d = fresh_dir("levels", "book");
    let book = d.join("book.txt");
    let work = d.join("work");
    let args = [
        "book",
        "--players",
        "alphabeta:depth=1,temp=50",
        "--candidates",
        "12",
        "--games",
        "2",
        "--keep",
        "5",
        "--plies",
        "2",
        "--out",
        s(&book),
        "--work-dir",
        s(&work),
    ];
    let o = junglezero(&args);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let text = std::fs::read_to_string(&book).unwrap();
    let openings: Vec<&str> = text.lines().filter(|l| !l.starts_with('#')).collect();
    assert_eq!(openings.len(), 5, "{text}");
    assert!(openings.iter().all(|l| l.split_whitespace().count() == 2), "{text}");
    assert!(text.lines().any(|l| l.starts_with("# judge 1: alphabeta:depth=1,temp=50, 2 games an opening: first player")), "{text}");
    // The book is a new file: the same command refuses to replace it.
    let e = refused(&junglezero(&args));
    assert!(e.contains("exists"), "{e}");
    // arena plays it (pair N opening N) and writes its first moves into the games.
    let pgn = d.join("g.pgn");
    let o = junglezero(&["arena", "--a", "alphabeta:depth=1", "--b", "random", "--games", "2", "--openings", s(&book), "--games-out", s(&pgn)]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let games = std::fs::read_to_string(&pgn).unwrap();
    let first: Vec<&str> = openings[0].split_whitespace().collect();
    assert!(games.contains(&format!("1. {} {}", first[0], first[1])), "{games}");
    let e = refused(&junglezero(&["book", "--game", "flip", "--players", "random", "--out", s(&d.join("f.txt")), "--work-dir", s(&d.join("fw"))]));
    assert!(e.contains("no book"), "{e}");
    std::fs::remove_dir_all(&d).unwrap();
}

#[test]
fn arena_plays_the_shipped_book_by_default_and_random_openings_when_asked() {
    let d = fresh_dir("levels", "shipped");
    let shipped = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("books/jungle-balanced.txt")).unwrap();
    let first: Vec<&str> = shipped.lines().find(|l| !l.starts_with('#')).unwrap().split_whitespace().collect();
    let opening = format!("1. {} {} 2. {} {}", first[0], first[1], first[2], first[3]);
    let game = |extra: &[&str], name: &str| -> (String, String) {
        let pgn = d.join(name);
        let mut args = vec!["arena", "--a", "alphabeta:depth=1", "--b", "random", "--games", "2", "--games-out", s(&pgn)];
        args.extend(extra);
        let o = junglezero(&args);
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        (std::fs::read_to_string(&pgn).unwrap(), String::from_utf8_lossy(&o.stderr).into_owned())
    };
    let (book, _) = game(&[], "book.pgn");
    assert!(book.contains(&opening), "the shipped book's first opening, {opening}: {book}");
    let (random, _) = game(&["--openings", "random"], "random.pgn");
    assert!(!random.contains(&opening), "{random}");
    // Under other rules the book's statistics do not hold: random openings, said once.
    let (other, note) = game(&["--rules", "repetition=off"], "other.pgn");
    assert!(!other.contains(&opening), "{other}");
    assert!(note.contains("shipped book of openings is for the default rules"), "{note}");
    std::fs::remove_dir_all(&d).unwrap();
}
