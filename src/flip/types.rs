//! Squares, pieces, cells and moves of the 4×4 board. Files `a`–`d` left to right from Red's
//! side, ranks `1`–`4` (Red's half is ranks 1–2); `square = (rank - 1) * 4 + file`.

use std::fmt;

use crate::animals::{Kind, Side};

pub const FILES: usize = 4;
pub const RANKS: usize = 4;
pub const SQUARES: usize = FILES * RANKS;

/// A square of the 4×4 board.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub struct Square(pub u8);

impl Square {
    pub const fn new(file: usize, rank: usize) -> Square {
        Square((rank * FILES + file) as u8)
    }

    pub const fn index(self) -> usize {
        self.0 as usize
    }

    pub const fn file(self) -> usize {
        self.0 as usize % FILES
    }

    pub const fn rank(self) -> usize {
        self.0 as usize / FILES
    }

    /// All sixteen squares, a1 first.
    pub fn all() -> impl Iterator<Item = Square> {
        (0..SQUARES as u8).map(Square)
    }

    /// The orthogonal neighbours.
    pub fn neighbours(self) -> impl Iterator<Item = Square> {
        let (f, r) = (self.file() as i32, self.rank() as i32);
        [(0, 1), (1, 0), (0, -1), (-1, 0)].into_iter().filter_map(move |(df, dr)| {
            let (nf, nr) = (f + df, r + dr);
            ((0..FILES as i32).contains(&nf) && (0..RANKS as i32).contains(&nr)).then(|| Square::new(nf as usize, nr as usize))
        })
    }

    /// Parses `a1` … `d4`.
    pub fn parse(s: &str) -> Option<Square> {
        let b = s.as_bytes();
        if b.len() != 2 {
            return None;
        }
        let f = b[0].wrapping_sub(b'a') as usize;
        let r = b[1].wrapping_sub(b'1') as usize;
        (f < FILES && r < RANKS).then(|| Square::new(f, r))
    }

    /// The half a square lies in under `own_half`: Red's ranks 1–2, Blue's ranks 3–4.
    pub const fn half(self) -> Side {
        if self.rank() < RANKS / 2 { Side::Red } else { Side::Blue }
    }
}

impl fmt::Display for Square {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}{}", (b'a' + self.file() as u8) as char, self.rank() + 1)
    }
}

/// A piece: an animal of one colour.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Piece {
    pub side: Side,
    pub kind: Kind,
}

impl Piece {
    pub const fn new(side: Side, kind: Kind) -> Piece {
        Piece { side, kind }
    }

    /// 0..16: Red's eight animals, then Blue's.
    pub const fn index(self) -> usize {
        self.side.index() * 8 + self.kind.index()
    }

    pub const fn from_index(i: usize) -> Piece {
        Piece { side: if i < 8 { Side::Red } else { Side::Blue }, kind: Kind::from_index(i % 8) }
    }

    /// The animal's letter, upper case for Red and lower case for Blue.
    pub fn letter(self) -> char {
        let c = self.kind.letter();
        if self.side == Side::Red { c } else { c.to_ascii_lowercase() }
    }

    pub fn from_letter(c: char) -> Option<Piece> {
        let kind = Kind::from_letter(c)?;
        Some(Piece { side: if c.is_ascii_uppercase() { Side::Red } else { Side::Blue }, kind })
    }
}

/// What a square holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum Cell {
    #[default]
    Empty,
    /// A face-down piece. Face-down pieces never move, so under the `own_half` setup its
    /// colour is that of its half ([`Square::half`]); under `mixed` it may be either.
    Hidden,
    Up(Piece),
}

/// A move of the flip game. A flip is a decision (`Flip`) followed by nature's draw (`Reveal`);
/// records keep the `Reveal`, which says what appeared.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum FlipMove {
    /// A player with no legal move passes (only when `no_move_loses` is off).
    #[default]
    Pass,
    /// Turn the face-down piece on a square (the player's choice).
    Flip(Square),
    /// What the flip on a square revealed (the chance outcome).
    Reveal(Square, Piece),
    /// A face-up piece steps onto an empty neighbour, or captures the enemy piece there.
    Step { from: Square, to: Square, capture: bool },
}

impl fmt::Display for FlipMove {
    /// `pass`, `f:b3`, `f:b3=L` (a Red Lion appeared; lower case for Blue), `b3b4`, `b3xb4`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            FlipMove::Pass => f.write_str("pass"),
            FlipMove::Flip(s) => write!(f, "f:{s}"),
            FlipMove::Reveal(s, p) => write!(f, "f:{s}={}", p.letter()),
            FlipMove::Step { from, to, capture } => write!(f, "{from}{}{to}", if capture { "x" } else { "" }),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn squares_and_pieces_round_trip() {
        for s in Square::all() {
            assert_eq!(Square::parse(&s.to_string()), Some(s));
        }
        assert_eq!(Square::parse("e1"), None);
        assert_eq!(Square::parse("a5"), None);
        assert_eq!(Square::new(1, 2).to_string(), "b3");
        for i in 0..16 {
            let p = Piece::from_index(i);
            assert_eq!(p.index(), i);
            assert_eq!(Piece::from_letter(p.letter()), Some(p));
        }
        let mut n: Vec<String> = Square::parse("a1").unwrap().neighbours().map(|s| s.to_string()).collect();
        n.sort();
        assert_eq!(n, ["a2", "b1"]);
        assert_eq!(Square::parse("b2").unwrap().neighbours().count(), 4);
        assert_eq!((Square::parse("d2").unwrap().half(), Square::parse("a3").unwrap().half()), (Side::Red, Side::Blue));
    }
}
