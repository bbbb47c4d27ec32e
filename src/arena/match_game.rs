//! What a match needs of a game beyond [`Game`]: its start, and how nature's luck is dealt.
//!
//! A pair of games plays one opening twice with the seats swapped. In a game with chance
//! events (the flip game's face-down pieces) the pair also shares its luck: before the pair a
//! *deal* is drawn (which piece lies face down on which square, as a real shuffle would lay
//! them), and every flip in both games reveals what the deal put there. Each single game is
//! still a fair draw of the rules' chance events (a uniformly shuffled board reveals a
//! uniformly drawn hidden piece at every flip), and the luck of the deal cancels over the pair.

use std::fmt::Debug;
use std::hash::Hash;
use std::sync::Arc;

use rand_chacha::ChaCha8Rng;

use super::spec::{Contestants, PlayerError, PlayerSettings, PlayerSpec};
use crate::game::{Game, Seat, Turn};
use crate::nn::NetEvaluator;

pub trait MatchGame: Game {
    /// The game's name ("jungle", "flip").
    const SHAPE_NAME: &'static str;
    /// The rule switches a match is played under.
    type Rules: Clone + Debug + Send + Sync;
    /// Nature's luck for one pair of games (Jungle has none).
    type Deal: Clone + Debug + Hash + Eq + Send + Sync;

    /// The start position under `rules`.
    fn match_start(rules: &Self::Rules) -> Self;

    /// A position written as the game writes positions (an opening's root), or why not.
    fn match_root(text: &str, rules: &Self::Rules) -> Result<Self, String>;

    /// A random deal for a game under `rules`.
    fn random_deal(rules: &Self::Rules, rng: &mut ChaCha8Rng) -> Self::Deal;

    /// Nature's move at a chance node under `deal`.
    fn dealt(&self, deal: &Self::Deal) -> Option<Self::Move>;

    /// The seat to move (at a chance node: the one whose flip is being resolved).
    fn mover(&self) -> Seat;

    /// What tells openings apart (the position and its counters).
    fn opening_key(&self) -> (u64, u32);
}

/// What the arena, the gate and its ladder, the protocol and `play` need of a game's players.
/// Every game implements it in its entry (`crate::entries`).
pub trait ArenaGame: MatchGame {
    /// The game's classical engine searching `depth` plies: the ladder's rungs; depth 1 is the
    /// rating scale's anchor.
    fn engine_at(depth: u32) -> PlayerSpec;

    /// The classical engine as the protocol and `play` run it (searching as their limits say),
    /// with the settings' hash and threads where it has them.
    fn classical(settings: &PlayerSettings) -> PlayerSpec;

    /// The levels of the Elo scale the classical engine can be held to (weakest, strongest);
    /// none when it has no levels.
    const LEVELS: Option<(i32, i32)> = None;

    /// The classical engine held to level `elo` (within [`Self::LEVELS`]) with the settings'
    /// hash; none when the game's engine has no levels.
    fn at_level(_elo: i32, _settings: &PlayerSettings) -> Option<PlayerSpec> {
        None
    }

    /// Contestants of `spec` in games under `rules`: an `mcts` spec plays with `net` when it is
    /// given, otherwise with its model file, loaded now; a spec of another game's engine is
    /// refused.
    fn factory(
        spec: PlayerSpec,
        settings: &PlayerSettings,
        rules: &Self::Rules,
        net: Option<Arc<NetEvaluator>>,
    ) -> Result<Box<dyn Contestants<Self>>, PlayerError>;
}

/// Why `elo` is no level of `G`'s classical engine (none: it is one).
pub fn check_level<G: ArenaGame>(elo: i32) -> Result<(), String> {
    match G::LEVELS {
        None => Err(format!("the {} game's engine has no strength levels", G::SHAPE_NAME)),
        Some((lo, hi)) if !(lo..=hi).contains(&elo) => Err(format!("outside the levels {lo} to {hi}")),
        Some(_) => Ok(()),
    }
}

/// The anchors of the rating scale: every game's classical engine at depth 1.
pub fn anchors() -> Vec<String> {
    crate::registry::GameName::ALL.iter().map(|g| crate::with_game!(*g, G => G::engine_at(1).to_string())).collect()
}

/// Plays nature's moves under `deal` until a player is to move (or the game is over);
/// each move is also appended to `moves`.
pub fn resolve_chance<G: MatchGame>(g: &mut G, deal: &G::Deal, moves: &mut Vec<G::Move>) {
    while matches!(g.turn(), Turn::Chance) {
        let Some(m) = g.dealt(deal) else { return };
        g.play_unchecked(m);
        moves.push(m);
    }
}
