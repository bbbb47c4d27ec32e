//! Where a position sits in its table. A table covers every placement of its material's
//! pieces (in [`Material::pieces`] order) with either side to move; the first piece stands on
//! files a-d only: a position whose first piece is on e-g is looked up mirrored (the board and
//! the rules are the same in a left-right mirror), which cuts a table to 36/63 of the board's
//! placements. Colour-flipped materials are looked up through the colour flip (board turned,
//! colours swapped), so only canonical materials have tables.

use super::material::Material;
use crate::jungle::tables::{DEN, WATER};
use crate::jungle::{Kind, Position, Side, Square};

pub const SQUARES: usize = 63;
/// Squares on files a-d.
pub const HALF: usize = 36;

/// Entries of a table of `n` pieces: side to move x first piece on a-d x the rest anywhere.
pub fn table_len(n: usize) -> usize {
    2 * HALF * SQUARES.pow(n as u32 - 1)
}

/// Entries of the whole board's index of `n` pieces (the building tables).
pub fn full_len(n: usize) -> usize {
    2 * SQUARES.pow(n as u32)
}

/// A square on files a-d as 0..36 (rank-major), `None` on e-g.
pub fn half_square(sq: usize) -> Option<usize> {
    let (file, rank) = (sq % 7, sq / 7);
    (file <= 3).then_some(rank * 4 + file)
}

/// The placement behind a whole-board index: (side to move, squares in piece order).
pub fn decode_full(mut idx: usize, n: usize, squares: &mut [usize]) -> Side {
    for i in (0..n).rev() {
        squares[i] = idx % SQUARES;
        idx /= SQUARES;
    }
    if idx == 0 { Side::Red } else { Side::Blue }
}

/// The whole-board index of a placement.
pub fn encode_full(stm: Side, squares: &[usize]) -> usize {
    squares.iter().fold(stm.index(), |acc, &s| acc * SQUARES + s)
}

/// The table index of a placement (mirrored first when its first piece is on files e-g).
pub fn encode_table(stm: Side, squares: &[usize]) -> usize {
    let mirror = squares[0] % 7 > 3;
    let sq = |s: usize| if mirror { Square::new(s as u8).mirror().index() } else { s };
    let first = half_square(sq(squares[0])).unwrap_or(0);
    squares[1..].iter().fold(stm.index() * HALF + first, |acc, &s| acc * SQUARES + sq(s))
}

/// Whether a placement is a position the tables hold: distinct squares, no piece on either
/// den (its own is forbidden, the enemy's ends the game), only the Rat in the water.
pub fn valid(pieces: &[crate::jungle::Piece], squares: &[usize]) -> bool {
    let mut seen = 0u64;
    for (p, &s) in pieces.iter().zip(squares) {
        let bit = 1u64 << s;
        if seen & bit != 0 || (DEN[0] | DEN[1]) & bit != 0 || (WATER & bit != 0 && p.kind() != Kind::Rat) {
            return false;
        }
        seen |= bit;
    }
    true
}

/// The position of a placement.
pub fn position(pieces: &[crate::jungle::Piece], squares: &[usize], stm: Side) -> Position {
    let mut pos = Position::empty();
    for (&p, &s) in pieces.iter().zip(squares) {
        pos.put(p, Square::new(s as u8));
    }
    pos.set_side(stm);
    pos
}

/// Squares of a located position, in piece order (no allocation: probing runs at search nodes).
pub type Placement = arrayvec::ArrayVec<usize, 16>;

/// Where `pos` is looked up: its canonical material, side to move and squares in piece order
/// after the colour flip if its material needs one. `squares` gets the squares.
pub fn locate(pos: &Position, squares: &mut Placement) -> (Material, Side) {
    let mut m = Material { red: 0, blue: 0 };
    for (_, p) in pos.pieces() {
        let bit = 1u8 << p.kind().index();
        match p.side() {
            Side::Red => m.red |= bit,
            Side::Blue => m.blue |= bit,
        }
    }
    let flip = !m.is_canonical();
    let m = m.canonical();
    squares.clear();
    for p in m.each_piece() {
        // After the flip, the canonical Red piece is the position's Blue one, turned.
        let (side, kind) = if flip { (p.side().flip(), p.kind()) } else { (p.side(), p.kind()) };
        let sq = pos.square_of(side, kind).map_or(0, |s| s.index());
        squares.push(if flip { Square::new(sq as u8).rotate().index() } else { sq });
    }
    let stm = if flip { pos.side_to_move().flip() } else { pos.side_to_move() };
    (m, stm)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn indices_round_trip_and_mirrors_share_an_entry() {
        let mut sq = [0usize; 3];
        for idx in [0usize, 1, 62, 63 * 63 * 63 + 5, full_len(3) - 1] {
            let stm = decode_full(idx, 3, &mut sq);
            assert_eq!(encode_full(stm, &sq), idx);
        }
        let a = [8usize, 20, 40];
        let m: Vec<usize> = a.iter().map(|&s| Square::new(s as u8).mirror().index()).collect();
        assert_eq!(encode_table(Side::Blue, &a), encode_table(Side::Blue, &m));
        assert!(encode_table(Side::Blue, &a) < table_len(3));
        assert_ne!(encode_table(Side::Red, &a), encode_table(Side::Blue, &a));
    }
}
