//! What the training loop needs from a game besides search ([`Game`]) and the network's view
//! ([`Encode`]): its rules as text, a root that a record can name, moves as small codes,
//! compact training positions and the board's left-right symmetry. Jungle and the flip game
//! implement it; self-play records, the replay window and training batches are generic over it.

use std::fmt::{Debug, Display};
use std::str::FromStr;

use crate::game::{Encode, Seat};

pub trait Trainable: Encode {
    /// The rule switches a game is played under (records and model files keep them as text).
    type Rules: Clone + PartialEq + Debug + Display + FromStr<Err: Display> + Send + Sync + 'static;
    /// What a training sample keeps of a position: everything `encode` reads, compactly.
    type Snapshot: Clone + Debug + Send + Sync + 'static;

    /// The rules this game is played under.
    fn game_rules(&self) -> &Self::Rules;

    /// The usual start under `rules`.
    fn start_under(rules: &Self::Rules) -> Self;

    /// Range checks of rule switches a config gives (none by default).
    fn check_rules(rules: &Self::Rules) -> Result<(), crate::check::ConfigError> {
        let _ = rules;
        Ok(())
    }

    /// Why a root position's text does not parse.
    type RootError: std::error::Error + Send + Sync + 'static;

    /// The game from a root position written as [`root_text`](Self::root_text) writes it.
    fn from_root(text: &str, rules: &Self::Rules) -> Result<Self, Self::RootError>;

    /// The current position as text a record can start from (Jungle: FEN; flip: its
    /// position string).
    fn root_text(&self) -> String;

    /// The seat to move, also at a chance node (the one whose flip is being resolved); `None`
    /// once the game is over.
    fn seat_to_move(&self) -> Option<Seat>;

    /// A move as a 16-bit code for records, and back (`None` for a code no move has).
    fn move_code(mv: Self::Move) -> u16;
    fn move_from_code(code: u16) -> Option<Self::Move>;

    /// The policy index of `mv` from this position, or `None` for a move that has no action
    /// here (a damaged record's).
    fn try_action(&self, mv: Self::Move) -> Option<usize>;

    fn snapshot(&self) -> Self::Snapshot;

    /// The position of a snapshot as a game (without the history before it: Jungle's
    /// repetition rule then forbids nothing), for its text and legal moves.
    fn from_snapshot(snapshot: &Self::Snapshot, rules: &Self::Rules) -> Self;

    /// What each input plane holds, and the action layout, in words (for dumped data).
    const PLANE_NAMES: &'static [&'static str];
    const ACTION_LAYOUT: &'static str;

    /// Writes the encoding of a snapshot (as [`Encode::encode`] would of its position).
    fn encode_snapshot(snapshot: &Self::Snapshot, rules: &Self::Rules, out: &mut [f32]);

    /// Mirrors encoded planes left-right in place (the rules are left-right symmetric, so a
    /// mirrored position with a mirrored policy target is as true a sample as the original).
    fn mirror_planes(planes: &mut [f32]) {
        let cols = Self::SHAPE.cols;
        for row in planes.chunks_exact_mut(cols) {
            row.reverse();
        }
    }

    /// The action of the mirrored move.
    fn mirror_action(action: usize) -> usize;

    /// Whether `mv` is nature's (a chance outcome) rather than a player's decision.
    fn is_chance_move(_mv: Self::Move) -> bool {
        false
    }

    /// How many chance outcomes the game numbers (0 for a game without chance): outside APIs
    /// that give each outcome a number (OpenSpiel's chance actions) use [`chance_index`].
    ///
    /// [`chance_index`]: Trainable::chance_index
    const CHANCE_OUTCOMES: usize = 0;

    /// The number of chance outcome `mv`, below [`CHANCE_OUTCOMES`](Trainable::CHANCE_OUTCOMES)
    /// and distinct among the outcomes of one chance node.
    fn chance_index(_mv: Self::Move) -> usize {
        0
    }

    /// An upper bound on a game's length in plies under `rules`, if the rules set one (a
    /// cap, or a limit on plies without progress that the game's captures can only reset so
    /// often); `None` when nothing but the repetition rule ends a long game.
    fn ply_bound(rules: &Self::Rules) -> Option<u32>;
}
