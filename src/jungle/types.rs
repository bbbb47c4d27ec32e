//! Sides, animals, pieces, squares and moves.

use std::fmt;

pub use crate::animals::{Kind, Side};

/// What only Jungle's animals do.
impl Kind {
    /// Lion and Tiger jump across rivers.
    #[inline(always)]
    pub const fn jumps(self) -> bool {
        matches!(self, Kind::Lion | Kind::Tiger)
    }
}

/// A coloured animal, packed as `side * 8 + kind`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Piece(u8);

impl Piece {
    #[inline(always)]
    pub const fn new(side: Side, kind: Kind) -> Piece {
        Piece(((side as u8) << 3) | kind as u8)
    }

    #[inline(always)]
    pub const fn side(self) -> Side {
        if self.0 & 8 == 0 { Side::Red } else { Side::Blue }
    }

    #[inline(always)]
    pub const fn kind(self) -> Kind {
        Kind::from_index(self.0 as usize)
    }

    /// 0..16, for table lookups.
    #[inline(always)]
    pub const fn index(self) -> usize {
        self.0 as usize
    }

    #[inline(always)]
    pub const fn from_index(i: usize) -> Piece {
        Piece((i & 15) as u8)
    }

    /// FEN letter: upper case for Red, lower case for Blue.
    pub const fn letter(self) -> char {
        let c = self.kind().letter();
        match self.side() {
            Side::Red => c,
            Side::Blue => c.to_ascii_lowercase(),
        }
    }

    pub fn from_letter(c: char) -> Option<Piece> {
        let kind = Kind::from_letter(c)?;
        let side = if c.is_ascii_uppercase() { Side::Red } else { Side::Blue };
        Some(Piece::new(side, kind))
    }
}

impl fmt::Display for Piece {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} {}", self.side(), self.kind())
    }
}

pub const FILES: usize = 7;
pub const RANKS: usize = 9;
pub const NUM_SQUARES: usize = 63;

/// A square, `(rank - 1) * 7 + file` with files a..g = 0..6 (a1 = 0, g9 = 62).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Square(u8);

impl Square {
    #[inline(always)]
    pub const fn new(index: u8) -> Square {
        debug_assert!(index < NUM_SQUARES as u8);
        Square(index)
    }

    pub const fn try_new(index: usize) -> Option<Square> {
        if index < NUM_SQUARES { Some(Square(index as u8)) } else { None }
    }

    /// `file` 0..7 (a..g), `rank` 0..9 (1..9).
    pub const fn from_coords(file: usize, rank: usize) -> Option<Square> {
        if file < FILES && rank < RANKS { Some(Square((rank * FILES + file) as u8)) } else { None }
    }

    #[inline(always)]
    pub const fn index(self) -> usize {
        self.0 as usize
    }

    #[inline(always)]
    pub const fn bit(self) -> u64 {
        1u64 << self.0
    }

    pub const fn file(self) -> usize {
        self.0 as usize % FILES
    }

    pub const fn rank(self) -> usize {
        self.0 as usize / FILES
    }

    /// The square seen in a left-right mirror (file a <-> g).
    pub const fn mirror(self) -> Square {
        Square((self.rank() * FILES + (FILES - 1 - self.file())) as u8)
    }

    /// The square seen with the board turned 180 degrees.
    pub const fn rotate(self) -> Square {
        Square((NUM_SQUARES - 1 - self.0 as usize) as u8)
    }

    /// Parses `a1`..`g9`.
    pub fn parse(s: &str) -> Option<Square> {
        let b = s.as_bytes();
        if b.len() != 2 {
            return None;
        }
        let file = b[0].to_ascii_lowercase().checked_sub(b'a')? as usize;
        let rank = b[1].checked_sub(b'1')? as usize;
        Square::from_coords(file, rank)
    }

    pub fn all() -> impl Iterator<Item = Square> {
        (0..NUM_SQUARES as u8).map(Square)
    }
}

impl fmt::Display for Square {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}{}", (b'a' + self.file() as u8) as char, self.rank() + 1)
    }
}

/// A move from one square to another (a step, or a Lion/Tiger jump), packed in 12 bits.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub struct Move(u16);

impl Move {
    #[inline(always)]
    pub const fn new(from: Square, to: Square) -> Move {
        Move(from.0 as u16 | ((to.0 as u16) << 6))
    }

    #[inline(always)]
    pub const fn from(self) -> Square {
        Square((self.0 & 63) as u8)
    }

    #[inline(always)]
    pub const fn to(self) -> Square {
        Square((self.0 >> 6) as u8)
    }

    pub const fn raw(self) -> u16 {
        self.0
    }

    /// Rebuilds a move from [`Move::raw`]; `None` if either square is off the board.
    pub fn from_raw(raw: u16) -> Option<Move> {
        let from = Square::try_new((raw & 63) as usize)?;
        let to = Square::try_new(((raw >> 6) & 63) as usize)?;
        (raw >> 12 == 0).then(|| Move::new(from, to))
    }

    pub const fn mirror(self) -> Move {
        Move::new(self.from().mirror(), self.to().mirror())
    }
}

impl fmt::Display for Move {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}{}", self.from(), self.to())
    }
}

impl fmt::Debug for Move {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}
