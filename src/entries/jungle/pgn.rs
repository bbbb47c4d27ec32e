//! PGN-style game records for matches (`--games-out`).
//!
//! Standard seven-tag roster (White = Red, the first player; Black = Blue) plus
//! `[Variant "jungle"]`, `[FEN]` (the position the game started from: the start, or an opening file's position; the
//! opening's moves are part of the game),
//! `[Rules]` (the switches that differ from the standard rules), `[Termination]` (the reason
//! the game ended: den, annihilation, no-moves, no-capture-limit, repetition, move-cap,
//! resignation, forfeit, adjudication, time, tablebase) and `[OpeningPlies]`.

use std::fmt::Write as _;

use crate::arena::play::PlayedGame;
use crate::jungle::{JungleGame, Position, Rules, Side, fen};

pub fn result_text(g: &PlayedGame<JungleGame>) -> &'static str {
    match g.outcome.winner.map(Side::from_player) {
        Some(Side::Red) => "1-0",
        Some(Side::Blue) => "0-1",
        None => "1/2-1/2",
    }
}

/// One game as PGN text.
pub fn game_pgn(g: &PlayedGame<JungleGame>, round: usize, a: &str, b: &str, rules: &Rules, date: &str) -> String {
    let (red, blue) = if g.a_red { (a, b) } else { (b, a) };
    let result = result_text(g);
    let mut s = String::new();
    let _ = writeln!(s, "[Event \"junglezero arena\"]");
    let _ = writeln!(s, "[Site \"?\"]");
    let _ = writeln!(s, "[Date \"{date}\"]");
    let _ = writeln!(s, "[Round \"{round}\"]");
    let _ = writeln!(s, "[White \"{red}\"]");
    let _ = writeln!(s, "[Black \"{blue}\"]");
    let _ = writeln!(s, "[Result \"{result}\"]");
    let _ = writeln!(s, "[Variant \"jungle\"]");
    let _ = writeln!(s, "[FEN \"{}\"]", g.root.clone().unwrap_or_else(|| fen(&Position::start())));
    let _ = writeln!(s, "[SetUp \"1\"]");
    let _ = writeln!(s, "[Rules \"{rules}\"]");
    let _ = writeln!(s, "[Termination \"{}\"]", g.outcome.reason);
    let _ = writeln!(s, "[OpeningPlies \"{}\"]", g.opening_plies);
    let _ = writeln!(s, "[PlyCount \"{}\"]", g.moves.len());
    s.push('\n');
    let mut line = String::new();
    for (i, m) in g.moves.iter().enumerate() {
        let token = if i % 2 == 0 { format!("{}. {m}", i / 2 + 1) } else { m.to_string() };
        if line.len() + token.len() + 1 > 79 {
            s.push_str(line.trim_end());
            s.push('\n');
            line.clear();
        }
        line.push_str(&token);
        line.push(' ');
    }
    if line.len() + result.len() > 79 {
        s.push_str(line.trim_end());
        s.push('\n');
        line.clear();
    }
    line.push_str(result);
    s.push_str(&line);
    s.push_str("\n\n");
    s
}

/// Today's date as PGN writes it (`YYYY.MM.DD`, UTC).
pub fn today() -> String {
    chrono::Utc::now().format("%Y.%m.%d").to_string()
}
