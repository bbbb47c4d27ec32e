//! Precomputed board geometry: terrain masks, steps, river jumps and Zobrist keys.
//!
//! Bitboards are plain `u64`s with bit `sq` set for square `sq` (63 squares; bit 63 is never set).
//! Everything here is computed at compile time.

use super::types::{FILES, NUM_SQUARES, RANKS};

/// Every square of the board.
pub const BOARD: u64 = (1u64 << NUM_SQUARES) - 1;

/// A sentinel for "no square" in piece-square lists; `BIT[NO_SQUARE]` is 0.
pub const NO_SQUARE: u8 = 63;

/// `BIT[sq] = 1 << sq` for real squares and 0 for [`NO_SQUARE`], so absent pieces vanish from
/// masks without a branch.
pub const BIT: [u64; 64] = {
    let mut t = [0u64; 64];
    let mut i = 0;
    while i < NUM_SQUARES {
        t[i] = 1u64 << i;
        i += 1;
    }
    t
};

const fn sq(file: usize, rank: usize) -> u64 {
    1u64 << ((rank - 1) * FILES + file)
}

/// The two rivers: b4 c4 b5 c5 b6 c6 and e4 f4 e5 f5 e6 f6.
pub const WATER: u64 = {
    let mut m = 0u64;
    let mut rank = 4;
    while rank <= 6 {
        m |= sq(1, rank) | sq(2, rank) | sq(4, rank) | sq(5, rank);
        rank += 1;
    }
    m
};

/// Dens by owner: Red's d1, Blue's d9.
pub const DEN: [u64; 2] = [sq(3, 1), sq(3, 9)];

/// Den squares by owner, as indices.
pub const DEN_SQUARE: [u8; 2] = [3, 59];

/// Traps by owner: Red's c1 e1 d2, Blue's c9 e9 d8.
pub const TRAPS: [u64; 2] = [sq(2, 1) | sq(4, 1) | sq(3, 2), sq(2, 9) | sq(4, 9) | sq(3, 8)];

/// Directions in action-encoding order, as seen from Red's side: up (towards rank 9), right,
/// down, left.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[repr(u8)]
pub enum Dir {
    Up = 0,
    Right = 1,
    Down = 2,
    Left = 3,
}

impl Dir {
    pub const ALL: [Dir; 4] = [Dir::Up, Dir::Right, Dir::Down, Dir::Left];

    pub const fn index(self) -> usize {
        self as usize
    }

    /// (file delta, rank delta)
    const fn delta(self) -> (isize, isize) {
        match self {
            Dir::Up => (0, 1),
            Dir::Right => (1, 0),
            Dir::Down => (0, -1),
            Dir::Left => (-1, 0),
        }
    }
}

const fn offset(s: usize, d: Dir) -> Option<usize> {
    let (df, dr) = d.delta();
    let f = (s % FILES) as isize + df;
    let r = (s / FILES) as isize + dr;
    if f < 0 || r < 0 || f >= FILES as isize || r >= RANKS as isize { None } else { Some(r as usize * FILES + f as usize) }
}

/// `STEP[dir][sq]`: the neighbouring square in that direction, or [`NO_SQUARE`].
pub const STEP: [[u8; NUM_SQUARES]; 4] = {
    let mut t = [[NO_SQUARE; NUM_SQUARES]; 4];
    let mut d = 0;
    while d < 4 {
        let mut s = 0;
        while s < NUM_SQUARES {
            if let Some(to) = offset(s, Dir::ALL[d]) {
                t[d][s] = to as u8;
            }
            s += 1;
        }
        d += 1;
    }
    t
};

/// `NEIGHBOURS[sq]`: the orthogonally adjacent squares.
pub const NEIGHBOURS: [u64; NUM_SQUARES] = {
    let mut t = [0u64; NUM_SQUARES];
    let mut s = 0;
    while s < NUM_SQUARES {
        let mut d = 0;
        while d < 4 {
            t[s] |= BIT[STEP[d][s] as usize];
            d += 1;
        }
        s += 1;
    }
    t
};

/// A river jump: landing square and the water squares crossed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Jump {
    pub to: u8,
    pub path: u64,
}

const NO_JUMP: Jump = Jump { to: NO_SQUARE, path: 0 };

/// `JUMP[dir][sq]`: the jump from land square `sq` straight across the river in `dir`, if the
/// neighbour in that direction is water; `to == NO_SQUARE` otherwise.
pub const JUMP: [[Jump; NUM_SQUARES]; 4] = {
    let mut t = [[NO_JUMP; NUM_SQUARES]; 4];
    let mut d = 0;
    while d < 4 {
        let mut s = 0;
        while s < NUM_SQUARES {
            if WATER & (1u64 << s) == 0 {
                let mut path = 0u64;
                let mut cur = s;
                loop {
                    match offset(cur, Dir::ALL[d]) {
                        Some(n) if WATER & (1u64 << n) != 0 => {
                            path |= 1u64 << n;
                            cur = n;
                        }
                        Some(n) => {
                            if path != 0 {
                                t[d][s] = Jump { to: n as u8, path };
                            }
                            break;
                        }
                        None => break,
                    }
                }
            }
            s += 1;
        }
        d += 1;
    }
    t
};

/// The jumps available from each square, packed densely: `JUMPS_FROM[sq]` holds up to two
/// jumps (no land square borders two rivers in more than two directions) and a count.
pub const JUMPS_FROM: [([Jump; 2], u8); NUM_SQUARES] = {
    let mut t = [([NO_JUMP; 2], 0u8); NUM_SQUARES];
    let mut s = 0;
    while s < NUM_SQUARES {
        let mut d = 0;
        while d < 4 {
            let j = JUMP[d][s];
            if j.to != NO_SQUARE {
                let n = t[s].1 as usize;
                t[s].0[n] = j;
                t[s].1 += 1;
            }
            d += 1;
        }
        s += 1;
    }
    t
};

/// The direction of the single step or jump from `from` to `to`, if it is one.
pub fn direction(from: usize, to: usize) -> Option<Dir> {
    Dir::ALL.into_iter().find(|&d| STEP[d.index()][from] as usize == to || JUMP[d.index()][from].to as usize == to)
}

const fn splitmix64(state: u64) -> (u64, u64) {
    let s = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = s;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    (s, z ^ (z >> 31))
}

/// Zobrist keys `ZOBRIST[piece index][square]`.
pub const ZOBRIST: [[u64; 64]; 16] = {
    let mut t = [[0u64; 64]; 16];
    let mut state = 0x4A75_6E67_6C65_5A30; // "JungleZ0"
    let mut p = 0;
    while p < 16 {
        let mut s = 0;
        while s < NUM_SQUARES {
            let (ns, v) = splitmix64(state);
            state = ns;
            t[p][s] = v;
            s += 1;
        }
        p += 1;
    }
    t
};

/// Zobrist key xored in when Blue is to move.
pub const ZOBRIST_BLUE: u64 = splitmix64(0x5A30_426C_7565).1;

/// Iterates the squares of a bitboard, lowest first.
#[inline(always)]
pub fn squares(mut bb: u64) -> impl Iterator<Item = usize> {
    std::iter::from_fn(move || {
        if bb == 0 {
            None
        } else {
            let s = bb.trailing_zeros() as usize;
            bb &= bb - 1;
            Some(s)
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn terrain_counts() {
        assert_eq!(WATER.count_ones(), 12);
        assert_eq!(TRAPS[0].count_ones() + TRAPS[1].count_ones(), 6);
        assert_eq!(DEN[0].trailing_zeros(), DEN_SQUARE[0] as u32);
        assert_eq!(DEN[1].trailing_zeros(), DEN_SQUARE[1] as u32);
        assert_eq!(BOARD.count_ones(), 63);
    }

    #[test]
    fn jumps_cover_every_river_edge() {
        // Horizontal jumps: a4..a6 <-> d4..d6 <-> g4..g6 (2 per row each way * 3 rows * 2 rivers).
        // Vertical jumps: b3 c3 e3 f3 <-> b7 c7 e7 f7 (4 files * 2 directions).
        let n: usize = JUMPS_FROM.iter().map(|(_, c)| *c as usize).sum();
        assert_eq!(n, 12 + 8);
        let d4 = 3 * 7 + 3;
        assert_eq!(JUMP[Dir::Left.index()][d4].to, 3 * 7);
        assert_eq!(JUMP[Dir::Right.index()][d4].to, 3 * 7 + 6);
        let b3 = 2 * 7 + 1;
        assert_eq!(JUMP[Dir::Up.index()][b3].to, 6 * 7 + 1);
        assert_eq!(JUMP[Dir::Up.index()][b3].path.count_ones(), 3);
    }
}
