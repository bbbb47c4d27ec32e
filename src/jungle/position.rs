//! The board: piece placement, side to move, counters and an incremental Zobrist hash.
//!
//! `Position` is `Copy` (about 120 bytes) and holds no history; the repetition rule lives in
//! [`super::History`] and the full game in [`super::JungleGame`].

use super::tables::{BIT, DEN, NO_SQUARE, ZOBRIST, ZOBRIST_BLUE};
use super::types::{Kind, Move, NUM_SQUARES, Piece, Side, Square};

const EMPTY: u8 = 0xFF;

#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Position {
    /// Piece index per square, or `EMPTY`. Entry 63 is padding.
    board: [u8; 64],
    /// Occupancy per side.
    occ: [u64; 2],
    /// Square of each animal per side, or `NO_SQUARE` once captured (each side has at most
    /// one of each animal).
    squares: [[u8; 8]; 2],
    side: Side,
    /// Plies since the last capture.
    halfmove: u16,
    /// Plies since the start of the game (derived from the FEN move number).
    ply: u32,
    hash: u64,
}

/// The standard start position as (square, piece letter).
const START: [(&str, char); 16] = [
    ("a3", 'E'),
    ("g1", 'L'),
    ("a1", 'T'),
    ("e3", 'P'),
    ("c3", 'W'),
    ("f2", 'D'),
    ("b2", 'C'),
    ("g3", 'R'),
    ("g7", 'e'),
    ("a9", 'l'),
    ("g9", 't'),
    ("c7", 'p'),
    ("e7", 'w'),
    ("b8", 'd'),
    ("f8", 'c'),
    ("a7", 'r'),
];

impl Default for Position {
    fn default() -> Self {
        Position::start()
    }
}

impl Position {
    /// An empty board with Red to move.
    pub const fn empty() -> Position {
        Position { board: [EMPTY; 64], occ: [0; 2], squares: [[NO_SQUARE; 8]; 2], side: Side::Red, halfmove: 0, ply: 0, hash: 0 }
    }

    /// The standard start position.
    pub fn start() -> Position {
        let mut p = Position::empty();
        for (s, c) in START {
            let (sq, pc) = (Square::parse(s), Piece::from_letter(c));
            if let (Some(sq), Some(pc)) = (sq, pc) {
                p.put(pc, sq);
            }
        }
        p
    }

    /// Places `piece` on an empty square. The caller keeps the one-per-animal invariant
    /// (the FEN parser checks it).
    pub(crate) fn put(&mut self, piece: Piece, sq: Square) {
        debug_assert!(self.board[sq.index()] == EMPTY);
        self.board[sq.index()] = piece.index() as u8;
        self.occ[piece.side().index()] |= sq.bit();
        self.squares[piece.side().index()][piece.kind().index()] = sq.index() as u8;
        self.hash ^= ZOBRIST[piece.index()][sq.index()];
    }

    pub(crate) fn set_side(&mut self, side: Side) {
        if side != self.side {
            self.hash ^= ZOBRIST_BLUE;
        }
        self.side = side;
    }

    pub(crate) fn set_counters(&mut self, halfmove: u16, ply: u32) {
        self.halfmove = halfmove;
        self.ply = ply;
    }

    #[inline(always)]
    pub fn piece_at(&self, sq: Square) -> Option<Piece> {
        let v = self.board[sq.index()];
        (v != EMPTY).then(|| Piece::from_index(v as usize))
    }

    #[inline(always)]
    pub fn side_to_move(&self) -> Side {
        self.side
    }

    #[inline(always)]
    pub fn occupied(&self, side: Side) -> u64 {
        self.occ[side.index()]
    }

    #[inline(always)]
    pub fn all_occupied(&self) -> u64 {
        self.occ[0] | self.occ[1]
    }

    /// The square of `side`'s `kind`, if that piece is on the board.
    #[inline(always)]
    pub fn square_of(&self, side: Side, kind: Kind) -> Option<Square> {
        let s = self.squares[side.index()][kind.index()];
        (s != NO_SQUARE).then(|| Square::new(s))
    }

    /// Bitboard of `side`'s `kind` (0 or 1 bit).
    #[inline(always)]
    pub fn bb(&self, side: Side, kind: Kind) -> u64 {
        BIT[self.squares[side.index()][kind.index()] as usize]
    }

    /// Plies since the last capture.
    #[inline(always)]
    pub fn halfmove(&self) -> u16 {
        self.halfmove
    }

    /// Plies since the start of the game.
    #[inline(always)]
    pub fn ply(&self) -> u32 {
        self.ply
    }

    /// The FEN move number (starts at 1, increments after Blue moves).
    pub fn fullmove(&self) -> u32 {
        self.ply / 2 + 1
    }

    #[inline(always)]
    pub fn hash(&self) -> u64 {
        self.hash
    }

    /// The hash recomputed from scratch (tests compare it with the incremental one).
    pub fn compute_hash(&self) -> u64 {
        let mut h = if self.side == Side::Blue { ZOBRIST_BLUE } else { 0 };
        for s in 0..NUM_SQUARES {
            if self.board[s] != EMPTY {
                h ^= ZOBRIST[self.board[s] as usize][s];
            }
        }
        h
    }

    /// The side whose piece stands in the opponent's den, if any (that side has won).
    #[inline(always)]
    pub fn den_winner(&self) -> Option<Side> {
        if self.occ[0] & DEN[1] != 0 {
            Some(Side::Red)
        } else if self.occ[1] & DEN[0] != 0 {
            Some(Side::Blue)
        } else {
            None
        }
    }

    /// Whether `mv` would capture (the target holds a piece).
    #[inline(always)]
    pub fn is_capture(&self, mv: Move) -> bool {
        self.board[mv.to().index()] != EMPTY
    }

    /// The hash after `mv`, without playing it. Only valid for a non-capture.
    #[inline(always)]
    pub fn hash_after_quiet(&self, mv: Move) -> u64 {
        let pc = self.board[mv.from().index()] as usize;
        self.hash ^ ZOBRIST[pc][mv.from().index()] ^ ZOBRIST[pc][mv.to().index()] ^ ZOBRIST_BLUE
    }

    /// Plays a pseudo-legal move (a piece of the side to move going to a reachable square),
    /// returning the captured piece. No legality checks beyond `debug_assert!`.
    #[inline(always)]
    pub fn play_unchecked(&mut self, mv: Move) -> Option<Piece> {
        let (from, to) = (mv.from().index(), mv.to().index());
        let pc = self.board[from];
        debug_assert!(pc != EMPTY, "no piece on {} for {mv}", mv.from());
        debug_assert!(Piece::from_index(pc as usize).side() == self.side, "{mv}: not the mover's piece");
        let us = self.side.index();
        let captured = self.board[to];
        self.hash ^= ZOBRIST[pc as usize][from] ^ ZOBRIST[pc as usize][to] ^ ZOBRIST_BLUE;
        let result = if captured != EMPTY {
            debug_assert!(Piece::from_index(captured as usize).side() != self.side);
            self.hash ^= ZOBRIST[captured as usize][to];
            self.occ[us ^ 1] ^= 1u64 << to;
            self.squares[us ^ 1][(captured & 7) as usize] = NO_SQUARE;
            self.halfmove = 0;
            Some(Piece::from_index(captured as usize))
        } else {
            self.halfmove = self.halfmove.saturating_add(1);
            None
        };
        self.occ[us] ^= (1u64 << from) | (1u64 << to);
        self.board[from] = EMPTY;
        self.board[to] = pc;
        self.squares[us][(pc & 7) as usize] = to as u8;
        self.side = self.side.flip();
        self.ply += 1;
        result
    }

    /// The position seen in a left-right mirror (file a <-> g). Terrain is symmetric, so the
    /// mirrored position is legal whenever this one is.
    pub fn mirror(&self) -> Position {
        let mut p = Position::empty();
        for s in Square::all() {
            if let Some(pc) = self.piece_at(s) {
                p.put(pc, s.mirror());
            }
        }
        p.set_side(self.side);
        p.set_counters(self.halfmove, self.ply);
        p
    }

    /// The same position with colours swapped and the board turned 180 degrees: what the other
    /// side sees. The rules are symmetric under this, so values simply change sign.
    pub fn colour_flipped(&self) -> Position {
        let mut p = Position::empty();
        for (s, pc) in self.pieces() {
            p.put(Piece::new(pc.side().flip(), pc.kind()), s.rotate());
        }
        p.set_side(self.side.flip());
        p.set_counters(self.halfmove, self.ply);
        p
    }

    /// The side to move passes (search's null move); counters are left alone.
    #[inline]
    pub fn null_move(&self) -> Position {
        let mut p = *self;
        p.side = p.side.flip();
        p.hash ^= ZOBRIST_BLUE;
        p
    }

    /// Every piece on the board with its square.
    pub fn pieces(&self) -> impl Iterator<Item = (Square, Piece)> + '_ {
        Square::all().filter_map(|s| self.piece_at(s).map(|p| (s, p)))
    }

    /// Number of pieces `side` has left.
    pub fn count(&self, side: Side) -> u32 {
        self.occ[side.index()].count_ones()
    }
}
