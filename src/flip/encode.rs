//! How the flip game is shown to a network: 39 planes over the 4×4 board, and 80 actions laid
//! out as 5 planes over the board, `plane * 16 + square`: plane 0 flips the square, planes 1–4
//! step from it up, right, down and left (towards rank 4 is up). The 16 flips and the 48 steps
//! that stay on the board are the 64 that can ever be legal; the layout lets a convolutional
//! policy head produce them the way the big game's does.
//!
//! Planes, seen from the player to move ("mine": the colour they own; before the first flip,
//! when nobody owns one, Red counts as mine):
//!
//! - 0–7: my face-up pieces by animal (Rat … Elephant); 8–15: the opponent's;
//! - 16: face-down squares; 17: face-down squares known to hold my colour (`own_half`);
//!   18: those known to hold the opponent's;
//! - 19–26: 1 where my animal of that kind is still face down (the whole plane); 27–34: the
//!   opponent's;
//! - 35: colours decided; 36: plies since the last flip or capture / `no_progress_plies` (0
//!   when off); 37: `dog_over_wolf`; 38: `no_move_loses`.
//!
//! The board is not turned: under `own_half` the halves keep their places. A pass (the only
//! legal move when it is legal) takes action 0.

use super::state::FlipGame;
use super::types::{Cell, FILES, FlipMove, Piece, RANKS, SQUARES, Square};
use crate::animals::Side;
use crate::game::{Encode, Game, Shape};

pub const PLANES: usize = 39;
pub const INPUT_SIZE: usize = PLANES * SQUARES;
/// Policy planes: a flip and the four step directions.
pub const POLICY_PLANES: usize = 5;
pub const ACTIONS: usize = POLICY_PLANES * SQUARES;

/// What each input plane holds (the list above), for tools that read dumped positions.
pub const PLANE_NAMES: [&str; PLANES] = [
    "my face-up rat",
    "my face-up cat",
    "my face-up dog",
    "my face-up wolf",
    "my face-up leopard",
    "my face-up tiger",
    "my face-up lion",
    "my face-up elephant",
    "opponent face-up rat",
    "opponent face-up cat",
    "opponent face-up dog",
    "opponent face-up wolf",
    "opponent face-up leopard",
    "opponent face-up tiger",
    "opponent face-up lion",
    "opponent face-up elephant",
    "face-down squares",
    "face-down squares of my colour",
    "face-down squares of the opponent's colour",
    "my rat face down",
    "my cat face down",
    "my dog face down",
    "my wolf face down",
    "my leopard face down",
    "my tiger face down",
    "my lion face down",
    "my elephant face down",
    "opponent rat face down",
    "opponent cat face down",
    "opponent dog face down",
    "opponent wolf face down",
    "opponent leopard face down",
    "opponent tiger face down",
    "opponent lion face down",
    "opponent elephant face down",
    "colours decided",
    "plies since flip or capture / no_progress_plies",
    "rule dog_over_wolf",
    "rule no_move_loses",
];

/// The action layout in words.
pub const ACTION_LAYOUT: &str = "plane * 16 + square: square = rank * 4 + file (the board is not turned), plane 0 flips the square, planes 1..4 step from it up, right, down, left; a pass is action 0";

/// The direction of a step from `from` to `to` (up, right, down, left), if they are neighbours.
fn direction(from: Square, to: Square) -> Option<usize> {
    let (df, dr) = (to.file() as i32 - from.file() as i32, to.rank() as i32 - from.rank() as i32);
    match (df, dr) {
        (0, 1) => Some(0),
        (1, 0) => Some(1),
        (0, -1) => Some(2),
        (-1, 0) => Some(3),
        _ => None,
    }
}

/// The action of a move: a flip (or what it revealed) on plane 0, a step on the plane of its
/// direction, both at the square it starts from; a pass 0.
pub fn action_index(mv: FlipMove) -> usize {
    match mv {
        FlipMove::Pass => 0,
        FlipMove::Flip(s) | FlipMove::Reveal(s, _) => s.index(),
        FlipMove::Step { from, to, .. } => match direction(from, to) {
            Some(d) => (1 + d) * SQUARES + from.index(),
            None => 0,
        },
    }
}

/// The colour the player to move owns (Red before colours are decided).
fn mine(g: &FlipGame) -> Side {
    g.colour_of(g.to_move()).unwrap_or(Side::Red)
}

/// Writes the encoding of `g` into `out` (`INPUT_SIZE` floats).
pub fn encode(g: &FlipGame, out: &mut [f32]) {
    let out = &mut out[..INPUT_SIZE];
    out.fill(0.0);
    let me = mine(g);
    let mut fill = |plane: usize, v: f32| out[plane * SQUARES..(plane + 1) * SQUARES].fill(v);
    for (i, &n) in g.hidden().iter().enumerate() {
        if n > 0 {
            let p = Piece::from_index(i);
            fill(if p.side == me { 19 } else { 27 } + p.kind.index(), 1.0);
        }
    }
    let decided = g.colour_of(g.to_move()).is_some();
    fill(35, f32::from(u8::from(decided)));
    let r = g.rules();
    if r.no_progress_plies > 0 {
        fill(36, f32::from(g.quiet()) / f32::from(r.no_progress_plies));
    }
    fill(37, f32::from(u8::from(r.dog_over_wolf)));
    fill(38, f32::from(u8::from(r.no_move_loses)));
    for s in Square::all() {
        let at = |plane: usize| plane * SQUARES + s.index();
        match g.cell(s) {
            Cell::Empty => {}
            Cell::Up(p) => out[at(if p.side == me { 0 } else { 8 } + p.kind.index())] = 1.0,
            Cell::Hidden => {
                out[at(16)] = 1.0;
                match g.hidden_colour(s) {
                    Some(c) if c == me => out[at(17)] = 1.0,
                    Some(_) => out[at(18)] = 1.0,
                    None => {}
                }
            }
        }
    }
}

/// The network's view of the flip game: 39 planes over 4 × 4, five policy planes.
pub const SHAPE: Shape = Shape { game: "flip", rows: RANKS, cols: FILES, planes: PLANES, policy_planes: POLICY_PLANES };

impl Encode for FlipGame {
    const SHAPE: Shape = SHAPE;

    fn encode(&self, out: &mut [f32]) {
        encode(self, out);
    }

    fn action_index(&self, mv: FlipMove) -> usize {
        action_index(mv)
    }

    fn input_hash(&self) -> u64 {
        // The position hash covers the board, the pool, the mover and the colours; add what
        // else the planes show.
        let r = self.rules();
        let quiet = if r.no_progress_plies > 0 { u64::from(self.quiet()) } else { 0 };
        let extra = quiet | u64::from(r.no_progress_plies) << 16 | u64::from(r.dog_over_wolf) << 32 | u64::from(r.no_move_loses) << 33 | (r.setup as u64) << 34;
        self.hash() ^ extra.wrapping_mul(0x9E37_79B9_7F4A_7C15).rotate_left(29)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::animals::Kind;
    use crate::flip::{FlipRules, parse_position};

    #[test]
    fn actions_are_distinct_for_the_legal_moves_and_in_range() {
        let mut all = std::collections::HashSet::new();
        for from in Square::all() {
            for to in from.neighbours() {
                let a = action_index(FlipMove::Step { from, to, capture: false });
                assert!((SQUARES..ACTIONS).contains(&a) && a % SQUARES == from.index() && all.insert(a), "{from}{to} -> {a}");
            }
        }
        assert_eq!(all.len(), 48, "the steps that stay on the board");
        for s in Square::all() {
            assert!(all.insert(action_index(FlipMove::Flip(s))));
        }
        assert_eq!(all.len(), 64);
        // b2 up is plane 1; a1 right is plane 2.
        let step = |a: &str, b: &str| action_index(FlipMove::Step { from: Square::parse(a).unwrap(), to: Square::parse(b).unwrap(), capture: false });
        assert_eq!((step("b2", "b3"), step("a1", "b1")), (16 + 5, 32));
    }

    #[test]
    fn planes_show_the_board_from_the_mover_s_side() {
        // Blue (the second player; the first owns Red) to move: a Red Rat, a Blue Elephant, one
        // face-down square holding the Red Cat.
        let g = parse_position("R1?e/4/4/4 2 r C 3 17", FlipRules::default()).unwrap();
        let mut x = vec![0.0; INPUT_SIZE];
        encode(&g, &mut x);
        let at = |plane: usize, sq: &str| x[plane * SQUARES + Square::parse(sq).unwrap().index()];
        assert_eq!(at(7, "d4"), 1.0, "my (Blue) Elephant");
        assert_eq!(at(8, "a4"), 1.0, "the opponent's (Red) Rat");
        assert_eq!(at(16, "c4"), 1.0, "face down");
        assert_eq!((at(27 + Kind::Cat.index(), "a1"), at(19 + Kind::Cat.index(), "a1")), (1.0, 0.0), "the Red Cat is still face down");
        assert_eq!(at(35, "b2"), 1.0);
        assert!((at(36, "b2") - 3.0 / 40.0).abs() < 1e-6);
        assert_eq!(x.iter().filter(|&&v| v != 0.0).count(), 3 + 16 + 16 + 16 + 16, "three squares and four whole planes");
        let other = parse_position("R1?e/4/4/4 2 r C 4 17", FlipRules::default()).unwrap();
        assert_ne!(g.input_hash(), other.input_hash(), "the quiet counter is an input");
    }
}
