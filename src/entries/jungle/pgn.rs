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

/// `value` as a PGN tag's string: a quote or a backslash escaped by a backslash (PGN standard
/// 7.1), and a line break or another control character, which a tag cannot hold, as a space.
pub fn tag_value(value: &str) -> String {
    let mut out = String::with_capacity(value.len());
    for c in value.chars() {
        match c {
            '"' | '\\' => {
                out.push('\\');
                out.push(c);
            }
            c if c.is_control() => out.push(' '),
            c => out.push(c),
        }
    }
    out
}

/// One game as PGN text.
pub fn game_pgn(g: &PlayedGame<JungleGame>, round: usize, a: &str, b: &str, rules: &Rules, date: &str) -> String {
    let (red, blue) = if g.a_red { (a, b) } else { (b, a) };
    let result = result_text(g);
    let mut s = String::new();
    let tags: [(&str, String); 13] = [
        ("Event", "junglezero arena".into()),
        ("Site", "?".into()),
        ("Date", date.into()),
        ("Round", round.to_string()),
        ("White", red.into()),
        ("Black", blue.into()),
        ("Result", result.into()),
        ("Variant", "jungle".into()),
        ("FEN", g.root.clone().unwrap_or_else(|| fen(&Position::start()))),
        ("SetUp", "1".into()),
        ("Rules", rules.to_string()),
        ("Termination", g.outcome.reason.to_string()),
        ("OpeningPlies", g.opening_plies.to_string()),
    ];
    for (name, value) in tags {
        let _ = writeln!(s, "[{name} \"{}\"]", tag_value(&value));
    }
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::{Outcome, Reason, Seat};

    #[test]
    fn tag_values_escape_quotes_and_backslashes() {
        assert_eq!(tag_value(r#"external:cmd="/path/x.sh",movetime=50"#), r#"external:cmd=\"/path/x.sh\",movetime=50"#);
        assert_eq!(tag_value(r"C:\engines\x"), r"C:\\engines\\x");
        assert_eq!(tag_value("two\nlines"), "two lines");
        let g = PlayedGame::<JungleGame>::new(0, true, 0, Vec::new(), Outcome { winner: Some(Seat::First), reason: Reason::Den });
        let text = game_pgn(&g, 1, r#"a "b" \c"#, "plain", &Rules::default(), "2026.12.07");
        assert!(text.contains(r#"[White "a \"b\" \\c"]"#), "{text}");
        // Every tag line is one string: its quotes balance once the escaped ones are left out.
        for line in text.lines().filter(|l| l.starts_with('[')) {
            let bare = line.replace(r"\\", "").replace(r#"\""#, "");
            assert_eq!(bare.matches('"').count(), 2, "{line}");
        }
    }
}
