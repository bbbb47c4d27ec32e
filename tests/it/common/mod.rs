//! Helpers shared by the integration tests.
#![allow(dead_code)]

use junglezero::game::Game;
use junglezero::jungle::{JungleGame, Rules, Square, parse_fen};

/// A FEN from a list like `"Ea3 rb5 Lg1"` (letter then square) and the side to move (`w`/`b`).
pub fn fen_of(pieces: &str, side: char) -> String {
    let mut grid = [['.'; 7]; 9];
    for tok in pieces.split_whitespace() {
        let mut chars = tok.chars();
        let letter = chars.next().unwrap();
        let sq = Square::parse(chars.as_str()).unwrap_or_else(|| panic!("bad square in {tok}"));
        grid[sq.rank()][sq.file()] = letter;
    }
    let mut ranks = Vec::new();
    for rank in (0..9).rev() {
        let mut s = String::new();
        let mut empty = 0;
        for c in grid[rank] {
            if c == '.' {
                empty += 1;
            } else {
                if empty > 0 {
                    s.push_str(&empty.to_string());
                    empty = 0;
                }
                s.push(c);
            }
        }
        if empty > 0 {
            s.push_str(&empty.to_string());
        }
        ranks.push(s);
    }
    format!("{} {side}", ranks.join("/"))
}

pub fn game(pieces: &str, side: char, rules: Rules) -> JungleGame {
    let fen = fen_of(pieces, side);
    JungleGame::new(parse_fen(&fen).unwrap_or_else(|e| panic!("{fen}: {e}")), rules)
}

/// The legal moves of the piece on `from`, sorted, as text.
pub fn moves_from(g: &JungleGame, from: &str) -> Vec<String> {
    let mut v: Vec<String> = g.legal_moves().iter().map(|m| m.to_string()).filter(|m| m.starts_with(from)).collect();
    v.sort();
    v
}

pub fn is_legal(g: &JungleGame, mv: &str) -> bool {
    g.legal_moves().iter().any(|m| m.to_string() == mv)
}

pub fn rules(spec: &str) -> Rules {
    spec.parse().unwrap()
}

/// Like [`game`] with the FEN counters set: plies since the last capture, move number 1.
pub fn game_with_counters(pieces: &str, side: char, halfmove: u16, rules: Rules) -> JungleGame {
    let fen = format!("{} {halfmove} 1", fen_of(pieces, side));
    JungleGame::new(parse_fen(&fen).unwrap(), rules)
}

/// Like [`game`] at a given FEN move number.
pub fn game_with_move_number(pieces: &str, side: char, fullmove: u32, rules: Rules) -> JungleGame {
    let fen = format!("{} 0 {fullmove}", fen_of(pieces, side));
    JungleGame::new(parse_fen(&fen).unwrap(), rules)
}
pub mod slow;

/// The path of configs/smoke.toml (a training loop of seconds).
pub fn smoke_config() -> String {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("configs/smoke.toml").display().to_string()
}

/// A fresh directory under the system's temporary one, `jz-{prefix}-{name}-{pid}`, emptied
/// first (the process id keeps parallel test runs apart).
pub fn fresh_dir(prefix: &str, name: &str) -> std::path::PathBuf {
    let d = std::env::temp_dir().join(format!("jz-{prefix}-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    d
}

/// Runs the binary with `args` (no colour in its output); what it printed and its status.
pub fn junglezero(args: &[&str]) -> std::process::Output {
    std::process::Command::new(env!("CARGO_BIN_EXE_junglezero")).args(args).env("NO_COLOR", "1").output().expect("binary runs")
}
