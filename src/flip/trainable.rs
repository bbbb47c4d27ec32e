//! The flip game as a [`Trainable`] game: records start from a position string, a sample keeps
//! the whole (small) state, moves pack into 16-bit codes.

use super::encode::{self, POLICY_PLANES};
use super::notation::{PositionError, parse_position, position};
use super::rules::FlipRules;
use super::state::FlipGame;
use super::types::{FILES, FlipMove, Piece, SQUARES, Square};
use crate::game::{Game, Seat, Turn};
use crate::trainable::Trainable;

const FLIP: u16 = 0x0100;
const REVEAL: u16 = 0x0200;
const STEP: u16 = 0x1000;

/// The direction of a step on each policy plane after a left-right mirror: flips, up and down
/// stay, right and left swap.
const MIRRORED_PLANE: [usize; POLICY_PLANES] = [0, 1, 4, 3, 2];

impl Trainable for FlipGame {
    type Rules = FlipRules;
    type Snapshot = FlipGame;

    fn game_rules(&self) -> &FlipRules {
        self.rules()
    }

    fn start_under(rules: &FlipRules) -> FlipGame {
        FlipGame::start(*rules)
    }

    fn check_rules(rules: &FlipRules) -> Result<(), crate::check::ConfigError> {
        rules.validate()
    }

    type RootError = PositionError;

    fn from_root(text: &str, rules: &FlipRules) -> Result<FlipGame, PositionError> {
        parse_position(text, *rules)
    }

    fn root_text(&self) -> String {
        position(self)
    }

    fn seat_to_move(&self) -> Option<Seat> {
        match self.turn() {
            Turn::Over(_) => None,
            _ => Some(self.to_move()),
        }
    }

    fn move_code(mv: FlipMove) -> u16 {
        match mv {
            FlipMove::Pass => 0,
            FlipMove::Flip(s) => FLIP | s.0 as u16,
            FlipMove::Reveal(s, p) => REVEAL | (p.index() as u16) << 4 | s.0 as u16,
            FlipMove::Step { from, to, capture } => STEP | u16::from(capture) << 8 | (from.0 as u16) << 4 | to.0 as u16,
        }
    }

    fn move_from_code(code: u16) -> Option<FlipMove> {
        let sq = |v: u16| Square((v & 0xF) as u8);
        match code & 0xFF00 {
            0 if code == 0 => Some(FlipMove::Pass),
            FLIP if code & 0xF0 == 0 => Some(FlipMove::Flip(sq(code))),
            REVEAL => Some(FlipMove::Reveal(sq(code), Piece::from_index(usize::from((code >> 4) & 0xF)))),
            c if c & 0xFE00 == STEP => Some(FlipMove::Step { from: sq(code >> 4), to: sq(code), capture: code & 0x100 != 0 }),
            _ => None,
        }
    }

    fn try_action(&self, mv: FlipMove) -> Option<usize> {
        match mv {
            FlipMove::Step { from, to, .. } if !from.neighbours().any(|n| n == to) => None,
            _ => Some(encode::action_index(mv)),
        }
    }

    fn snapshot(&self) -> FlipGame {
        self.clone()
    }

    fn encode_snapshot(s: &FlipGame, _: &FlipRules, out: &mut [f32]) {
        encode::encode(s, out);
    }

    fn from_snapshot(s: &FlipGame, _: &FlipRules) -> FlipGame {
        s.clone()
    }

    const PLANE_NAMES: &'static [&'static str] = &encode::PLANE_NAMES;
    const ACTION_LAYOUT: &'static str = encode::ACTION_LAYOUT;

    fn is_chance_move(mv: FlipMove) -> bool {
        matches!(mv, FlipMove::Reveal(..))
    }

    /// A flip reveals one of the 16 pieces (8 animals of each colour).
    const CHANCE_OUTCOMES: usize = 16;

    fn chance_index(mv: FlipMove) -> usize {
        match mv {
            FlipMove::Reveal(_, p) => p.index(),
            _ => 0,
        }
    }

    /// Every flip and capture resets the count of plies without progress, and a game holds
    /// 16 pieces to flip and at most 15 captures.
    fn ply_bound(rules: &FlipRules) -> Option<u32> {
        let progress = (rules.no_progress_plies > 0).then(|| (16 + 15 + 1) * (u32::from(rules.no_progress_plies) + 1));
        let cap = (rules.max_plies > 0).then_some(u32::from(rules.max_plies));
        match (cap, progress) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }

    fn mirror_action(action: usize) -> usize {
        let (plane, sq) = (action / SQUARES, action % SQUARES);
        let (file, rank) = (sq % FILES, sq / FILES);
        MIRRORED_PLANE[plane] * SQUARES + rank * FILES + (FILES - 1 - file)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::animals::{Kind, Side};
    use crate::game::Encode;

    #[test]
    fn move_codes_round_trip_and_mirrored_moves_take_mirrored_actions() {
        let mut moves = vec![FlipMove::Pass];
        for s in Square::all() {
            moves.push(FlipMove::Flip(s));
            moves.push(FlipMove::Reveal(s, Piece::new(Side::Blue, Kind::Lion)));
            for to in s.neighbours() {
                moves.push(FlipMove::Step { from: s, to, capture: true });
                moves.push(FlipMove::Step { from: s, to, capture: false });
            }
        }
        let mirror = |s: Square| Square::new(FILES - 1 - s.file(), s.rank());
        let g = FlipGame::start(FlipRules::default());
        for m in moves {
            let code = FlipGame::move_code(m);
            assert_eq!(FlipGame::move_from_code(code), Some(m), "{m} as {code:#x}");
            let mirrored = match m {
                FlipMove::Flip(s) => FlipMove::Flip(mirror(s)),
                FlipMove::Step { from, to, capture } => FlipMove::Step { from: mirror(from), to: mirror(to), capture },
                _ => continue,
            };
            let a = g.try_action(m).unwrap();
            assert!(a < FlipGame::ACTIONS);
            assert_eq!(FlipGame::mirror_action(a), g.try_action(mirrored).unwrap(), "{m}");
        }
        assert_eq!(FlipGame::move_from_code(0x0110), None);
        assert_eq!(FlipGame::move_from_code(0x4000), None);
        let far = FlipMove::Step { from: Square::parse("a1").unwrap(), to: Square::parse("c3").unwrap(), capture: false };
        assert_eq!(g.try_action(far), None);
    }

    #[test]
    fn mirrored_planes_are_the_mirrored_position_s_planes() {
        let rules = FlipRules::default();
        let a = parse_position("R1?e/4/4/4 2 r C 3 17", rules).unwrap();
        let b = parse_position("e?1R/4/4/4 2 r C 3 17", rules).unwrap();
        let (mut x, mut y) = (vec![0.0; FlipGame::INPUT_SIZE], vec![0.0; FlipGame::INPUT_SIZE]);
        FlipGame::encode_snapshot(&a.snapshot(), &rules, &mut x);
        b.encode(&mut y);
        FlipGame::mirror_planes(&mut x);
        assert_eq!(x, y);
        assert_eq!(FlipGame::from_root(&a.root_text(), &rules).unwrap(), a);
    }

    #[test]
    fn chance_outcomes_are_numbered_apart_and_the_ply_bound_follows_the_rules() {
        let mut g = FlipGame::start(FlipRules::default());
        let flip = g.legal_moves().iter().copied().find(|m| matches!(m, FlipMove::Flip(_))).unwrap();
        g.play_unchecked(flip);
        let mut out = Vec::new();
        g.chance_outcomes(&mut out);
        let mut numbers: Vec<usize> = out.iter().map(|&(m, _)| FlipGame::chance_index(m)).collect();
        assert_eq!(numbers.len(), 16, "a first flip may reveal any of the 16 pieces");
        numbers.sort_unstable();
        numbers.dedup();
        assert_eq!(numbers.len(), 16);
        assert!(numbers.iter().all(|&n| n < FlipGame::CHANCE_OUTCOMES));
        let r = FlipRules::default();
        assert_eq!(FlipGame::ply_bound(&r), Some(32 * 41));
        assert_eq!(FlipGame::ply_bound(&FlipRules { max_plies: 100, ..r }), Some(100));
        assert_eq!(FlipGame::ply_bound(&FlipRules { no_progress_plies: 0, max_plies: 70, ..r }), Some(70));
    }
}
