//! The network's view of a position: input planes and the 252-move action space.
//!
//! Everything is from the point of view of the side to move: for Blue the board is turned 180
//! degrees, so the network always sees its own pieces starting at the bottom and heading up,
//! its own den at the bottom (d1) and the enemy den at the top.
//!
//! Input planes, each 9 × 7 (row 0 = the mover's home rank, column 0 = the mover's left):
//!
//! | planes | content |
//! |---|---|
//! | 0–7 | own Rat, Cat, Dog, Wolf, Leopard, Tiger, Lion, Elephant (one-hot) |
//! | 8–15 | the opponent's, same order |
//! | 16 | water |
//! | 17, 18 | own traps, enemy traps |
//! | 19, 20 | own den, enemy den |
//! | 21 | 1 if the current position already occurred earlier (a repeat may be forbidden next) |
//! | 22 | plies since the last capture / `no_capture_plies` (0 when the limit is off) |
//! | 23 | plies played / `max_plies` (0 when there is no cap) |
//! | 24–26 | rule switches: `dog_over_wolf`, `rat_captures_across_shore`, `elephant_takes_trapped_rat` |
//! | 27, 28 | repetition rule is `draw`, is `off` (both 0 for `forbidden`) |
//! | 29 | rule switch `anti_chase` |
//! | 30 | squares the anti-chase rules forbid the side to move's restricted pieces to enter |
//! | 31 | the squares of those restricted pieces |
//!
//! The terrain planes are constant, but a convolutional network cannot otherwise tell a river
//! square from land without learning it from the board edges; the progress planes tell the value
//! head how close a forced draw is; the rule planes let one network serve several variants.
//!
//! Actions: `dir * 63 + from`, where `from` is the moving piece's square and `dir` (up, right,
//! down, left) the direction of the step, both in the mover's frame. A Lion or Tiger jump is the
//! action of its direction. This order matches a fully convolutional policy head whose four
//! output channels are the directions.

use super::position::Position;
use super::rules::{Repetition, Rules};
use super::state::JungleGame;
use super::tables::{DEN, Dir, JUMP, STEP, TRAPS, WATER, direction};
use super::types::{Kind, Move, NUM_SQUARES, Side, Square};
use crate::game::{Encode, Shape};

pub const PLANES: usize = 32;
pub const BOARD_SQUARES: usize = NUM_SQUARES;
/// Floats per encoded position: `[PLANES, 9, 7]`.
pub const INPUT_SIZE: usize = PLANES * BOARD_SQUARES;
pub const ACTIONS: usize = 4 * BOARD_SQUARES;

/// What each input plane holds (the table above), for tools that read dumped positions.
pub const PLANE_NAMES: [&str; PLANES] = [
    "own rat",
    "own cat",
    "own dog",
    "own wolf",
    "own leopard",
    "own tiger",
    "own lion",
    "own elephant",
    "opponent rat",
    "opponent cat",
    "opponent dog",
    "opponent wolf",
    "opponent leopard",
    "opponent tiger",
    "opponent lion",
    "opponent elephant",
    "water",
    "own traps",
    "enemy traps",
    "own den",
    "enemy den",
    "position occurred before",
    "plies since capture / no_capture_plies",
    "plies played / max_plies",
    "rule dog_over_wolf",
    "rule rat_captures_across_shore",
    "rule elephant_takes_trapped_rat",
    "rule repetition draw",
    "rule repetition off",
    "rule anti_chase",
    "anti-chase forbidden squares",
    "anti-chase restricted pieces",
];

/// The action layout in words.
pub const ACTION_LAYOUT: &str = "dir * 63 + from: from = rank * 7 + file in the mover's frame (Blue's board turned 180 degrees), dir 0..3 = up, right, down, left in that frame; a Lion or Tiger jump is the action of its direction";

/// The square as the side to move sees it.
#[inline(always)]
fn view(sq: Square, side: Side) -> Square {
    match side {
        Side::Red => sq,
        Side::Blue => sq.rotate(),
    }
}

/// The direction as the side to move sees it (turning the board swaps up/down, left/right).
#[inline(always)]
fn view_dir(d: Dir, side: Side) -> Dir {
    match side {
        Side::Red => d,
        Side::Blue => Dir::ALL[(d.index() + 2) % 4],
    }
}

/// Writes the planes of `game`'s position into `out` (`INPUT_SIZE` floats, `[plane][row][col]`).
pub fn encode(game: &JungleGame, out: &mut [f32]) {
    encode_parts(game.position(), game.rules(), game.history().current_reps() >= 2, chase_marks(game), out);
}

/// What the anti-chase planes show for `game`: the squares its restricted pieces may not
/// enter, and where those pieces stand (both 0 when the rules are off or nothing is restricted).
pub fn chase_marks(game: &JungleGame) -> (u64, u64) {
    if !game.rules().anti_chase {
        return (0, 0);
    }
    super::chase::restriction(game.position(), game.rules(), game.history()).marks(game.position())
}

/// [`encode`] from the parts it reads: the position, the rules, whether the position has
/// occurred before and the anti-chase marks (the only things taken from the history).
pub fn encode_parts(pos: &Position, rules: &Rules, repeated: bool, chase: (u64, u64), out: &mut [f32]) {
    debug_assert_eq!(out.len(), INPUT_SIZE);
    out.fill(0.0);
    let us = pos.side_to_move();
    for side in Side::BOTH {
        let base = if side == us { 0 } else { 8 };
        for kind in Kind::ALL {
            if let Some(sq) = pos.square_of(side, kind) {
                out[(base + kind.index()) * BOARD_SQUARES + view(sq, us).index()] = 1.0;
            }
        }
    }
    let mut mark = |plane: usize, bb: u64| {
        for s in super::tables::squares(bb) {
            out[plane * BOARD_SQUARES + view(Square::new(s as u8), us).index()] = 1.0;
        }
    };
    mark(16, WATER);
    mark(17, TRAPS[us.index()]);
    mark(18, TRAPS[us.flip().index()]);
    mark(19, DEN[us.index()]);
    mark(20, DEN[us.flip().index()]);
    mark(30, chase.0);
    mark(31, chase.1);
    let mut fill = |plane: usize, v: f32| {
        if v != 0.0 {
            out[plane * BOARD_SQUARES..(plane + 1) * BOARD_SQUARES].fill(v);
        }
    };
    fill(21, if repeated { 1.0 } else { 0.0 });
    if rules.no_capture_plies > 0 {
        fill(22, (f32::from(pos.halfmove()) / f32::from(rules.no_capture_plies)).min(1.0));
    }
    if rules.max_plies > 0 {
        fill(23, (pos.ply() as f32 / f32::from(rules.max_plies)).min(1.0));
    }
    fill(24, f32::from(u8::from(rules.dog_over_wolf)));
    fill(25, f32::from(u8::from(rules.rat_captures_across_shore)));
    fill(26, f32::from(u8::from(rules.elephant_takes_trapped_rat)));
    fill(27, f32::from(u8::from(rules.repetition == Repetition::Draw)));
    fill(28, f32::from(u8::from(rules.repetition == Repetition::Off)));
    fill(29, f32::from(u8::from(rules.anti_chase)));
}

/// The action index of a legal move of the side to move.
#[inline]
pub fn action_index(side: Side, mv: Move) -> usize {
    try_action_index(side, mv).expect("a move is a step or a jump")
}

/// The action index of any step or jump seen from `side`'s end of the board (a move of either
/// side); `None` for a move that is neither (as a damaged record can hold).
#[inline]
pub fn try_action_index(side: Side, mv: Move) -> Option<usize> {
    let d = direction(mv.from().index(), mv.to().index())?;
    Some(view_dir(d, side).index() * BOARD_SQUARES + view(mv.from(), side).index())
}

/// The move an action stands for in `game`'s position, if that piece can move that way at all
/// (legality is not checked beyond the geometry).
pub fn action_move(game: &JungleGame, action: usize) -> Option<Move> {
    if action >= ACTIONS {
        return None;
    }
    let pos = game.position();
    let us = pos.side_to_move();
    let d_view = Dir::ALL[action / BOARD_SQUARES];
    let from = view(Square::new((action % BOARD_SQUARES) as u8), us); // view is its own inverse
    let d = view_dir(d_view, us);
    let piece = pos.piece_at(from)?;
    let step = STEP[d.index()][from.index()];
    if step as usize >= NUM_SQUARES {
        return None;
    }
    let to = if WATER & (1u64 << step) != 0 && piece.kind().jumps() { JUMP[d.index()][from.index()].to } else { step };
    Square::try_new(to as usize).map(|t| Move::new(from, t))
}

/// The left-right mirror of an action (directions left and right swap).
#[inline]
pub fn mirror_action(action: usize) -> usize {
    let d = action / BOARD_SQUARES;
    let sq = Square::new((action % BOARD_SQUARES) as u8).mirror();
    let d = match Dir::ALL[d] {
        Dir::Left => Dir::Right,
        Dir::Right => Dir::Left,
        other => other,
    };
    d.index() * BOARD_SQUARES + sq.index()
}

/// Mirrors encoded planes left-right in place.
pub fn mirror_planes(planes: &mut [f32]) {
    for plane in planes.chunks_exact_mut(BOARD_SQUARES) {
        for row in plane.chunks_exact_mut(7) {
            row.reverse();
        }
    }
}

/// The network's view of the big game: 32 planes over 9 × 7, four policy planes.
pub const SHAPE: Shape = Shape { game: "jungle", rows: 9, cols: 7, planes: PLANES, policy_planes: 4 };

impl Encode for JungleGame {
    const SHAPE: Shape = SHAPE;

    fn encode(&self, out: &mut [f32]) {
        encode(self, out);
    }

    fn action_index(&self, mv: Move) -> usize {
        action_index(self.side_to_move(), mv)
    }

    fn input_hash(&self) -> u64 {
        // Everything `encode` reads besides the pieces and side to move (which the Zobrist hash
        // covers): the repetition flag, the counters when their planes are on, and the rules.
        let pos = self.position();
        let rules = self.rules();
        let mut extra = u64::from(self.history().current_reps() >= 2);
        let chase = if rules.anti_chase {
            let (squares, pieces) = chase_marks(self);
            mix(squares ^ pieces.rotate_left(32) ^ 1)
        } else {
            0
        };
        if rules.no_capture_plies > 0 {
            extra |= u64::from(pos.halfmove()) << 1;
        }
        if rules.max_plies > 0 {
            extra |= u64::from(pos.ply()) << 17;
        }
        let r = (u64::from(rules.dog_over_wolf) | u64::from(rules.rat_captures_across_shore) << 1)
            | u64::from(rules.elephant_takes_trapped_rat) << 2
            | (rules.repetition as u64) << 3
            | u64::from(rules.no_capture_plies) << 5
            | u64::from(rules.max_plies) << 21
            | u64::from(rules.anti_chase) << 37;
        pos.hash() ^ mix(extra) ^ mix(r.wrapping_add(0x9E37_79B9)) ^ chase
    }
}

/// A 64-bit finaliser (splitmix64) so small integers spread over all bits.
fn mix(mut z: u64) -> u64 {
    z = z.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::Game;
    use crate::jungle::parse_fen;

    #[test]
    fn start_position_planes() {
        let g = JungleGame::default();
        let mut x = vec![0.0; INPUT_SIZE];
        encode(&g, &mut x);
        // Red to move: own Elephant on a3 = row 2, column 0.
        assert_eq!(x[Kind::Elephant.index() * 63 + 14], 1.0);
        // Blue's Elephant on g7 appears, turned, in the opponent planes... for Red not turned.
        assert_eq!(x[(8 + Kind::Elephant.index()) * 63 + 48], 1.0);
        assert_eq!(x[..16 * 63].iter().sum::<f32>(), 16.0);
        assert_eq!(x[16 * 63..17 * 63].iter().sum::<f32>(), 12.0);
        // After a Red move Blue sees its Elephant (g7) at a3's place: turned 180 degrees.
        let mut g2 = g.clone();
        g2.play_text("a3a4").unwrap();
        encode(&g2, &mut x);
        assert_eq!(x[Kind::Elephant.index() * 63 + 14], 1.0);
        assert_eq!(x[19 * 63 + 3], 1.0, "own den at the bottom for Blue too");
        assert_eq!(x[20 * 63 + 59], 1.0);
    }

    #[test]
    fn actions_are_distinct_and_decode() {
        for fen in [
            "l5t/1d3c1/r1p1w1e/7/7/7/E1W1P1R/1C3D1/T5L w",
            "l5t/1d3c1/r1p1w1e/7/7/7/E1W1P1R/1C3D1/T5L b",
            "7/7/2e4/7/l2TR2/2r4/2L4/7/7 w",
            "7/7/2e4/7/l2TR2/2r4/2L4/7/7 b",
        ] {
            let g = JungleGame::new(parse_fen(fen).unwrap(), Rules::default());
            let moves = g.legal_moves();
            let mut seen = std::collections::HashSet::new();
            for &m in moves.iter() {
                let a = action_index(g.side_to_move(), m);
                assert!(a < ACTIONS);
                assert!(seen.insert(a), "{m} shares action {a}");
                assert_eq!(action_move(&g, a), Some(m), "{fen}: action {a}");
            }
        }
    }
}
