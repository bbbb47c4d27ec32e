//! Text forms: FEN positions, move text and board diagrams.

use std::fmt::Write as _;

use super::position::Position;
use super::tables::{DEN, TRAPS, WATER};
use super::types::{FILES, Kind, Move, Piece, RANKS, Side, Square};

/// The standard start position.
pub const START_FEN: &str = "l5t/1d3c1/r1p1w1e/7/7/7/E1W1P1R/1C3D1/T5L w 0 1";

/// What is wrong with a FEN string.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum FenError {
    #[error("empty FEN")]
    Empty,
    #[error("FEN board has {found} ranks separated by '/', expected 9")]
    RankCount { found: usize },
    #[error("FEN rank {rank} is {width} squares wide, expected 7")]
    RankWidth { rank: usize, width: usize },
    #[error("unknown letter '{letter}' in FEN rank {rank} (pieces are E L T P W D C R, upper case Red)")]
    UnknownLetter { letter: char, rank: usize },
    #[error("bad empty-square count '{digit}' in FEN rank {rank} (expected 1 to 7)")]
    BadDigit { digit: char, rank: usize },
    #[error("two {side} {plural} in FEN (each side has one of each animal)")]
    Duplicate { side: Side, plural: &'static str },
    #[error("{piece} in its own den at {square}")]
    OwnDen { piece: Piece, square: Square },
    #[error("{kind} in water at {square} (only the Rat may enter water)")]
    InWater { kind: Kind, square: Square },
    #[error("FEN has no pieces at all")]
    NoPieces,
    #[error("pieces stand in both dens: both sides cannot have won")]
    BothDens,
    #[error("FEN has no side to move")]
    MissingSide,
    #[error("unknown side to move '{0}' in FEN (expected w or r for Red, b for Blue)")]
    UnknownSide(String),
    #[error("bad {field} '{value}' in FEN (expected a whole number{})", if *field == "move number" { " from 1" } else { "" })]
    BadCounter { field: &'static str, value: String },
    #[error("unexpected text '{0}' after the FEN move number")]
    Trailing(String),
}

fn plural(kind: Kind) -> &'static str {
    match kind {
        Kind::Rat => "Rats",
        Kind::Cat => "Cats",
        Kind::Dog => "Dogs",
        Kind::Wolf => "Wolves",
        Kind::Leopard => "Leopards",
        Kind::Tiger => "Tigers",
        Kind::Lion => "Lions",
        Kind::Elephant => "Elephants",
    }
}

/// Parses a FEN: board, side to move, then optionally `- -` placeholders, the plies since the
/// last capture and the move number.
pub fn parse_fen(fen: &str) -> Result<Position, FenError> {
    let mut fields = fen.split_whitespace();
    let board = fields.next().ok_or(FenError::Empty)?;
    let ranks: Vec<&str> = board.split('/').collect();
    if ranks.len() != RANKS {
        return Err(FenError::RankCount { found: ranks.len() });
    }
    let mut pos = Position::empty();
    let mut seen = [[false; 8]; 2];
    for (i, text) in ranks.iter().enumerate() {
        let rank = RANKS - i; // 9 down to 1
        let mut file = 0usize;
        for c in text.chars() {
            if c.is_ascii_digit() {
                if !('1'..='7').contains(&c) {
                    return Err(FenError::BadDigit { digit: c, rank });
                }
                file += c as usize - '0' as usize;
                continue;
            }
            let piece = Piece::from_letter(c).ok_or(FenError::UnknownLetter { letter: c, rank })?;
            if file >= FILES {
                file += 1; // counted for the width error below
                continue;
            }
            let square = Square::from_coords(file, rank - 1).expect("file and rank are in range");
            let (side, kind) = (piece.side(), piece.kind());
            if std::mem::replace(&mut seen[side.index()][kind.index()], true) {
                return Err(FenError::Duplicate { side, plural: plural(kind) });
            }
            if DEN[side.index()] & square.bit() != 0 {
                return Err(FenError::OwnDen { piece, square });
            }
            if WATER & square.bit() != 0 && kind != Kind::Rat {
                return Err(FenError::InWater { kind, square });
            }
            pos.put(piece, square);
            file += 1;
        }
        if file != FILES {
            return Err(FenError::RankWidth { rank, width: file });
        }
    }
    if pos.all_occupied() == 0 {
        return Err(FenError::NoPieces);
    }
    // A piece in the other side's den has won the game; both at once cannot happen.
    if Side::BOTH.iter().all(|&s| pos.occupied(s) & DEN[s.flip().index()] != 0) {
        return Err(FenError::BothDens);
    }
    let side = match fields.next() {
        None => return Err(FenError::MissingSide),
        Some("w" | "r" | "W" | "R") => Side::Red,
        Some("b" | "B") => Side::Blue,
        Some(other) => return Err(FenError::UnknownSide(crate::check::clip(other))),
    };
    pos.set_side(side);
    let mut rest: Vec<&str> = fields.collect();
    // Other programs write two placeholder fields after the side.
    while rest.first() == Some(&"-") {
        rest.remove(0);
    }
    let halfmove = match rest.first() {
        Some(v) => v.parse::<u16>().map_err(|_| FenError::BadCounter { field: "plies since capture", value: crate::check::clip(v) })?,
        None => 0,
    };
    let fullmove = match rest.get(1) {
        Some(v) => match v.parse::<u32>() {
            Ok(n) if (1..=1_000_000).contains(&n) => n,
            _ => return Err(FenError::BadCounter { field: "move number", value: crate::check::clip(v) }),
        },
        None => 1,
    };
    if let Some(extra) = rest.get(2) {
        return Err(FenError::Trailing(crate::check::clip(extra)));
    }
    pos.set_counters(halfmove, (fullmove - 1) * 2 + side.index() as u32);
    Ok(pos)
}

/// The FEN of a position (always with both counters).
pub fn fen(pos: &Position) -> String {
    let mut s = String::with_capacity(64);
    for rank in (0..RANKS).rev() {
        let mut empty = 0;
        for file in 0..FILES {
            let sq = Square::from_coords(file, rank).expect("on board");
            match pos.piece_at(sq) {
                Some(p) => {
                    if empty > 0 {
                        s.push((b'0' + empty) as char);
                        empty = 0;
                    }
                    s.push(p.letter());
                }
                None => empty += 1,
            }
        }
        if empty > 0 {
            s.push((b'0' + empty) as char);
        }
        if rank > 0 {
            s.push('/');
        }
    }
    let side = if pos.side_to_move() == Side::Red { 'w' } else { 'b' };
    let _ = write!(s, " {side} {} {}", pos.halfmove(), pos.fullmove());
    s
}

/// What is wrong with a move's text.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum MoveTextError {
    #[error("'{0}' is not a move: write the from and to squares, like a3a4 (or a3xa4 for a capture)")]
    Malformed(String),
}

/// Parses `a3a4`, `a3xa4` or `a3-a4` (no legality check).
pub fn parse_move(text: &str) -> Result<Move, MoveTextError> {
    let t = text.trim();
    let bad = || MoveTextError::Malformed(t.into());
    if !t.is_ascii() || t.len() < 4 {
        return Err(bad());
    }
    let from = Square::parse(&t[..2]).ok_or_else(bad)?;
    let rest = &t[2..];
    let rest = rest.strip_prefix(['x', 'X', '-']).unwrap_or(rest);
    let to = Square::parse(rest).ok_or_else(bad)?;
    if from == to {
        return Err(bad());
    }
    Ok(Move::new(from, to))
}

/// A board diagram with ranks 9..1 top to bottom, as in docs/rules.md:
/// upper case Red, lower case Blue, `~` water, `#` trap, `*` den.
pub fn diagram(pos: &Position) -> String {
    diagram_from(pos, false)
}

/// The board as Blue sees it across the table: rank 1 at the top, file g on the left.
pub fn diagram_turned(pos: &Position) -> String {
    diagram_from(pos, true)
}

fn diagram_from(pos: &Position, turned: bool) -> String {
    let mut s = String::new();
    let ranks: Vec<usize> = if turned { (0..RANKS).collect() } else { (0..RANKS).rev().collect() };
    let files: Vec<usize> = if turned { (0..FILES).rev().collect() } else { (0..FILES).collect() };
    for rank in ranks {
        let _ = write!(s, "  {}  ", rank + 1);
        for (i, &file) in files.iter().enumerate() {
            let sq = Square::from_coords(file, rank).expect("on board");
            let c = match pos.piece_at(sq) {
                Some(p) => p.letter(),
                None if WATER & sq.bit() != 0 => '~',
                None if (TRAPS[0] | TRAPS[1]) & sq.bit() != 0 => '#',
                None if (DEN[0] | DEN[1]) & sq.bit() != 0 => '*',
                None => '.',
            };
            s.push(c);
            if i + 1 < FILES {
                s.push(' ');
            }
        }
        s.push('\n');
    }
    s.push_str(if turned { "     g f e d c b a\n" } else { "     a b c d e f g\n" });
    s
}

/// What the letters and marks of [`diagram`] mean.
pub fn legend() -> String {
    let animals: Vec<String> = Kind::ALL.iter().map(|k| format!("{} {}", k.letter(), k.name())).collect();
    format!("Red is upper case, Blue lower case: {}; ~ water, # trap, * den, . empty", animals.join(", "))
}

/// A position shows as its FEN in debug output (written here, beside the FEN, so that the
/// position's own file needs nothing of notation).
impl std::fmt::Debug for Position {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Position({})", fen(self))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn start_fen_round_trips() {
        let p = parse_fen(START_FEN).unwrap();
        assert_eq!(p, Position::start());
        assert_eq!(fen(&p), START_FEN);
    }

    #[test]
    fn other_programs_forms_are_accepted() {
        let a = parse_fen("l5t/1d3c1/r1p1w1e/7/7/7/E1W1P1R/1C3D1/T5L w - - 0 1").unwrap();
        let b = parse_fen("l5t/1d3c1/r1p1w1e/7/7/7/E1W1P1R/1C3D1/T5L r").unwrap();
        assert_eq!(a, b);
        let c = parse_fen("l5t/1d3c1/r1p1w1e/7/7/7/E1W1P1R/1C3D1/T5L b 12 30").unwrap();
        assert_eq!(c.side_to_move(), Side::Blue);
        assert_eq!((c.halfmove(), c.fullmove(), c.ply()), (12, 30, 59));
    }

    #[test]
    fn errors_name_the_problem() {
        let cases = [
            ("", "empty"),
            ("7/7/7 w", "3 ranks"),
            ("l5t/1d3c1/r1p1w1e/7/7/7/E1W1P1R/1C3D1/T6L w", "rank 1 is 8 squares"),
            ("l5t/1d3c1/r1p1w1e/7/7/7/E1W1P1R/1C3D1/T4L w", "rank 1 is 6 squares"),
            ("l5t/1d3c1/r1p1w1e/7/7/7/E1W1P1R/1C3D1/T5X w", "unknown letter 'X' in FEN rank 1"),
            ("l5t/1d3c1/r1p1w1e/7/7/7/E1W1P1R/1C3D1/T5L x", "unknown side to move 'x'"),
            ("l5t/1d3c1/r1p1w1e/7/7/7/E1W1P1R/1C3D1/T5L", "no side to move"),
            ("L5t/1d3c1/r1p1w1e/7/7/7/E1W1P1R/1C3D1/T5L w", "two Red Lions"),
            ("l5t/1d3c1/r1p1w1e/7/1E5/7/2W1P1R/1C3D1/T5L w", "Elephant in water at b5"),
            ("l5t/1d3c1/r1p1w1e/7/7/7/E1W1P1R/5D1/T2C2L w", "Red Cat in its own den at d1"),
            ("l5t/1d3c1/r1p1w1e/7/7/7/E1W1P1R/1C3D1/T5L w 0 0", "move number '0'"),
            ("l5t/1d3c1/r1p1w1e/7/7/7/E1W1P1R/1C3D1/T5L w x 1", "plies since capture 'x'"),
            ("l5t/1d3c1/r1p1w1e/7/7/7/E1W1P1R/1C3D1/T5L w 0 1 zz", "unexpected text 'zz'"),
            ("l5t/1d3c1/r1p1w1e/7/7/7/E1W1P1R/1C3D1/T9 w", "count '9'"),
        ];
        for (f, want) in cases {
            let e = parse_fen(f).unwrap_err().to_string();
            assert!(e.contains(want), "FEN {f:?}: error {e:?} should mention {want:?}");
        }
    }

    #[test]
    fn move_text() {
        let m = parse_move("a3a4").unwrap();
        assert_eq!(m.to_string(), "a3a4");
        assert_eq!(parse_move("a3xa4").unwrap(), m);
        assert_eq!(parse_move(" A3-A4 ").unwrap(), m);
        for bad in ["", "a3", "a3a", "a0a1", "h1h2", "a3a3", "a3aa4", "é3a4", "a3a10"] {
            assert!(parse_move(bad).is_err(), "{bad:?} should be rejected");
        }
    }

    #[test]
    fn diagram_shows_terrain() {
        let d = diagram(&Position::start());
        assert!(d.starts_with("  9  l . # * # . t\n"), "{d}");
        assert!(d.contains("  5  . ~ ~ . ~ ~ .\n"));
        assert!(d.contains("  1  T . # * # . L\n"));
    }
}
