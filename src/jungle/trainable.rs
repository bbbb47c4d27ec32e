//! Jungle as a [`Trainable`] game: records start from a FEN, samples keep the position and
//! its repetition flag.

use super::encode::{chase_marks, encode_parts, mirror_action, try_action_index};
use super::notation::{FenError, fen, parse_fen};
use super::{JungleGame, Move, Position, Rules};
use crate::game::{Game, Seat, Turn};
use crate::trainable::Trainable;

/// A Jungle training position: the position, whether it had occurred before in its game, and
/// what the anti-chase rules forbid in it (`encode::chase_marks`).
#[derive(Clone, Copy, Debug)]
pub struct JungleSnapshot {
    pub pos: Position,
    pub repeated: bool,
    pub chase: (u64, u64),
}

impl Trainable for JungleGame {
    type Rules = Rules;
    type Snapshot = JungleSnapshot;

    fn game_rules(&self) -> &Rules {
        self.rules()
    }

    fn start_under(rules: &Rules) -> JungleGame {
        JungleGame::start(*rules)
    }

    type RootError = FenError;

    fn from_root(text: &str, rules: &Rules) -> Result<JungleGame, FenError> {
        Ok(JungleGame::new(parse_fen(text)?, *rules))
    }

    fn root_text(&self) -> String {
        fen(self.position())
    }

    fn seat_to_move(&self) -> Option<Seat> {
        match self.turn() {
            Turn::Over(_) => None,
            _ => Some(self.side_to_move().player()),
        }
    }

    fn move_code(mv: Move) -> u16 {
        mv.raw()
    }

    fn move_from_code(code: u16) -> Option<Move> {
        Move::from_raw(code)
    }

    fn try_action(&self, mv: Move) -> Option<usize> {
        try_action_index(self.side_to_move(), mv)
    }

    fn snapshot(&self) -> JungleSnapshot {
        JungleSnapshot { pos: *self.position(), repeated: self.history().current_reps() >= 2, chase: chase_marks(self) }
    }

    fn encode_snapshot(s: &JungleSnapshot, rules: &Rules, out: &mut [f32]) {
        encode_parts(&s.pos, rules, s.repeated, s.chase, out);
    }

    fn from_snapshot(s: &JungleSnapshot, rules: &Rules) -> JungleGame {
        JungleGame::new(s.pos, *rules)
    }

    const PLANE_NAMES: &'static [&'static str] = &super::encode::PLANE_NAMES;
    const ACTION_LAYOUT: &'static str = super::encode::ACTION_LAYOUT;

    fn mirror_action(action: usize) -> usize {
        mirror_action(action)
    }

    /// Only a capture resets the count of plies without one, and a game has at most 15
    /// captures (the 16th piece taken would be a side's last but one).
    fn ply_bound(rules: &Rules) -> Option<u32> {
        let quiet = (rules.no_capture_plies > 0).then(|| 16 * (u32::from(rules.no_capture_plies) + 1));
        let cap = (rules.max_plies > 0).then_some(u32::from(rules.max_plies));
        match (cap, quiet) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::Encode;

    #[test]
    fn snapshots_encode_as_the_game_does_and_mirroring_is_an_involution() {
        let mut g = JungleGame::default();
        for t in ["a3a4", "g7g6", "a4a5"] {
            g.play_text(t).unwrap();
        }
        let (mut a, mut b) = (vec![0.0; JungleGame::INPUT_SIZE], vec![0.0; JungleGame::INPUT_SIZE]);
        g.encode(&mut a);
        JungleGame::encode_snapshot(&g.snapshot(), g.rules(), &mut b);
        assert_eq!(a, b);
        let moves = g.legal_moves();
        for &m in moves.iter() {
            let act = g.try_action(m).unwrap();
            assert_eq!(JungleGame::mirror_action(JungleGame::mirror_action(act)), act);
            assert_eq!(JungleGame::move_from_code(JungleGame::move_code(m)), Some(m));
        }
        let back = JungleGame::from_root(&g.root_text(), g.rules()).unwrap();
        assert_eq!(back.position(), g.position());
        assert!(JungleGame::from_root("not a fen", g.rules()).is_err());
    }

    #[test]
    fn the_ply_bound_follows_the_no_capture_limit_and_the_cap() {
        let r = Rules::default();
        assert_eq!(r.no_capture_plies, 200);
        assert_eq!(JungleGame::ply_bound(&r), Some(16 * 201));
        assert_eq!(JungleGame::ply_bound(&Rules { max_plies: 300, ..r }), Some(300));
        assert_eq!(JungleGame::ply_bound(&Rules { max_plies: 9000, ..r }), Some(16 * 201));
        assert_eq!(JungleGame::ply_bound(&Rules { no_capture_plies: 0, ..r }), None);
        assert_eq!(JungleGame::CHANCE_OUTCOMES, 0);
    }
}
