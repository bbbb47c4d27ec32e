//! The handcrafted evaluation.
//!
//! Terms, each with a configurable weight (`[eval]` in the config):
//!
//! - **material** by rank, so `dog_over_wolf` swaps the Dog and Wolf values automatically; the
//!   Rat gets `rat_vs_elephant` extra while the enemy Elephant is alive (it is the only piece
//!   that can take it).
//! - **jump lanes**: a Lion or Tiger standing on a river bank gets `jump_lane` for each jump
//!   it can make now (no Rat in the way).
//! - **piece-square tables**, derived from two per-animal weights: `advance` per rank moved
//!   towards the enemy den, and `den_approach × p²` where `p = max(0, 6 − distance to the enemy
//!   den)` pulls attackers in close.
//! - **den and trap defence**: `den_guard` per own piece within two squares of the own den (at
//!   most three count), `trap_guard` per own piece next to one of the own traps (it can take an
//!   intruder standing there).
//! - **mobility**: `mobility` per pseudo-legal move, own minus the opponent's.
//! - **tempo**: `tempo` for the side to move.
//!
//! Scores are in centi-units (a Dog is about 300) from the side to move's point of view.

use serde::{Deserialize, Serialize};

use crate::check::ConfigError;
use crate::jungle::movegen::count_pseudo_for;
use crate::jungle::tables::{DEN, DEN_SQUARE, JUMPS_FROM, NEIGHBOURS, TRAPS};
use crate::jungle::{Kind, Piece, Position, Rules, Side, Square};

crate::settings! {
    /// Evaluation weights. Arrays indexed by animal are in the order Rat, Cat, Dog, Wolf, Leopard,
    /// Tiger, Lion, Elephant; `material` is indexed by rank (1 to 8).
    #[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
    #[serde(deny_unknown_fields, default)]
    pub struct EvalWeights in "eval", about "Evaluation weights (centi-units; arrays by animal: Rat, Cat, Dog, Wolf, Leopard, Tiger, Lion, Elephant; `material` by rank 1 to 8)." {
        /// Value of a piece by rank 1 (Rat) to 8 (Elephant).
        pub material: [i32; 8] = [250, 200, 300, 350, 500, 800, 900, 1000] => "value of a piece by rank: Rat (1) ... Elephant (8)", each(1, 10_000);
        /// Extra value of the Rat while the enemy Elephant is on the board.
        pub rat_vs_elephant: i32 = 150 => "extra for the Rat while the enemy Elephant lives", range(-1_000, 1_000);
        /// Per river jump a Lion or Tiger can make from its square.
        pub jump_lane: i32 = 15 => "per river jump a Lion or Tiger can make from its square", range(-1_000, 1_000);
        /// Per rank advanced towards the enemy den, by animal.
        pub advance: [i32; 8] = [4, 2, 2, 3, 5, 8, 8, 6] => "per rank advanced towards the enemy den, by animal", each(-200, 200);
        /// Weight of the squared closeness to the enemy den, by animal.
        pub den_approach: [i32; 8] = [3, 1, 2, 2, 3, 4, 4, 3] => "times (6 - distance to the enemy den)^2, by animal", each(-200, 200);
        /// Per own piece within two squares of its own den (at most three).
        pub den_guard: i32 = 25 => "per own piece within two squares of the own den (three at most)", range(-1_000, 1_000);
        /// Per own piece next to one of its own traps.
        pub trap_guard: i32 = 8 => "per own piece next to an own trap", range(-1_000, 1_000);
        /// Per pseudo-legal move (own minus opponent's).
        pub mobility: i32 = 3 => "per pseudo-legal move, own minus the opponent's", range(-1_000, 1_000);
        /// For the side to move.
        pub tempo: i32 = 10 => "for the side to move", range(-1_000, 1_000);
    }
}

impl EvalWeights {
    pub fn validate(&self) -> Result<(), ConfigError> {
        crate::settings::Section::check_ranges(self)?;
        Ok(())
    }
}

/// Squares within Manhattan distance `d` of `sq`.
fn manhattan(a: Square, b: Square) -> usize {
    a.file().abs_diff(b.file()) + a.rank().abs_diff(b.rank())
}

/// The evaluation with its tables precomputed for one set of weights and rules.
#[derive(Clone, Debug)]
pub struct Eval {
    rules: Rules,
    /// Material plus piece-square value, `[piece index][square]`.
    psqt: [[i32; 64]; 16],
    rat_vs_elephant: i32,
    jump_lane: i32,
    den_guard: i32,
    trap_guard: i32,
    mobility: i32,
    tempo: i32,
    /// Squares within two of each side's own den.
    den_zone: [u64; 2],
    /// Squares next to each side's own traps.
    trap_zone: [u64; 2],
}

impl Eval {
    pub fn new(w: &EvalWeights, rules: Rules) -> Eval {
        let mut psqt = [[0i32; 64]; 16];
        let mut den_zone = [0u64; 2];
        let mut trap_zone = [0u64; 2];
        for side in Side::BOTH {
            let own_den = Square::new(DEN_SQUARE[side.index()]);
            let enemy_den = Square::new(DEN_SQUARE[side.flip().index()]);
            for sq in Square::all() {
                if manhattan(sq, own_den) <= 2 && sq != own_den {
                    den_zone[side.index()] |= sq.bit();
                }
                if NEIGHBOURS[sq.index()] & TRAPS[side.index()] != 0 {
                    trap_zone[side.index()] |= sq.bit();
                }
                let progress = match side {
                    Side::Red => sq.rank() as i32,
                    Side::Blue => 8 - sq.rank() as i32,
                };
                let close = (6 - manhattan(sq, enemy_den) as i32).max(0);
                for kind in Kind::ALL {
                    let k = kind.index();
                    let material = w.material[rules.rank(kind) as usize - 1];
                    psqt[Piece::new(side, kind).index()][sq.index()] = material + w.advance[k] * progress + w.den_approach[k] * close * close;
                }
            }
            trap_zone[side.index()] &= !DEN[side.index()];
        }
        Eval {
            rules,
            psqt,
            rat_vs_elephant: w.rat_vs_elephant,
            jump_lane: w.jump_lane,
            den_guard: w.den_guard,
            trap_guard: w.trap_guard,
            mobility: w.mobility,
            tempo: w.tempo,
            den_zone,
            trap_zone,
        }
    }

    pub fn rules(&self) -> &Rules {
        &self.rules
    }

    /// Material value of a piece (no positional terms), for move ordering and reports.
    pub fn material(&self, kind: Kind) -> i32 {
        // Material is the part of the table that does not depend on the square: read it at a
        // square where advance and approach are zero for Red (rank 1, far from the den: a1 has
        // progress 0 and distance 11).
        self.psqt[Piece::new(Side::Red, kind).index()][0]
    }

    fn side_score(&self, pos: &Position, side: Side) -> i32 {
        let them = side.flip();
        let mut s = 0;
        let rats = pos.bb(Side::Red, Kind::Rat) | pos.bb(Side::Blue, Kind::Rat);
        for kind in Kind::ALL {
            let Some(sq) = pos.square_of(side, kind) else { continue };
            s += self.psqt[Piece::new(side, kind).index()][sq.index()];
            match kind {
                Kind::Rat if pos.bb(them, Kind::Elephant) != 0 => s += self.rat_vs_elephant,
                Kind::Lion | Kind::Tiger => {
                    let (jumps, n) = &JUMPS_FROM[sq.index()];
                    let open = jumps[..*n as usize].iter().filter(|j| j.path & rats == 0).count() as i32;
                    s += open * self.jump_lane;
                }
                _ => {}
            }
        }
        let occ = pos.occupied(side);
        s += (occ & self.den_zone[side.index()]).count_ones().min(3) as i32 * self.den_guard;
        s += (occ & self.trap_zone[side.index()]).count_ones() as i32 * self.trap_guard;
        s += count_pseudo_for(pos, &self.rules, side) as i32 * self.mobility;
        s
    }

    /// The score of `pos` for the side to move.
    #[inline]
    pub fn evaluate(&self, pos: &Position) -> i32 {
        let us = pos.side_to_move();
        self.side_score(pos, us) - self.side_score(pos, us.flip()) + self.tempo
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::jungle::parse_fen;

    #[test]
    fn evaluation_is_symmetric() {
        let e = Eval::new(&EvalWeights::default(), Rules::default());
        let start = Position::start();
        assert_eq!(e.evaluate(&start), EvalWeights::default().tempo, "the start position is balanced");
        for fen in ["l5t/1d3c1/r1p1w1e/7/7/7/E1W1P1R/1C3D1/T5L w", "7/7/2e4/7/l2TR2/2r4/2L4/7/7 w", "4dC1/2cW3/3p3/7/7/7/3R3/3l3/1Er1D2 b"] {
            let p = parse_fen(fen).unwrap();
            assert_eq!(e.evaluate(&p), e.evaluate(&p.mirror()), "mirror of {fen}");
            assert_eq!(e.evaluate(&p), e.evaluate(&p.colour_flipped()), "colour flip of {fen}");
        }
    }

    #[test]
    fn more_material_scores_higher() {
        let e = Eval::new(&EvalWeights::default(), Rules::default());
        let up = parse_fen("l5t/1d3c1/r1p1w1e/7/7/7/E1W1P1R/1C3D1/T5L w").unwrap();
        let down = parse_fen("l5t/1d3c1/r1p1w1e/7/7/7/E1W1P1R/1C3D1/6L w").unwrap();
        assert!(e.evaluate(&up) > e.evaluate(&down) + 500);
        assert_eq!(e.material(Kind::Dog), 300);
        let dow = Eval::new(&EvalWeights::default(), "dog_over_wolf=on".parse().unwrap());
        assert_eq!((dow.material(Kind::Dog), dow.material(Kind::Wolf)), (350, 300));
    }
}
