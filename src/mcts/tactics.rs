//! A shallow exhaustive check of a player's root before its tree search (MCTS–minimax hybrids,
//! Baier and Winands 2015): a game's registry entry may offer a [`Tactics`] (for Jungle, the
//! alpha-beta engine a few plies deep), which proves a forced win the network has not seen, to
//! be played at once, or refutes root moves that lose by force within its horizon, which the
//! tree then never searches (they are proven lost, as MCTS-Solver marks them).

use std::time::Duration;

/// What the check proved at a root, for the side to move there.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Verdict<M> {
    /// A move that wins by force, and the plies to the end with best play.
    pub win: Option<(M, u32)>,
    /// Moves that lose by force, each with the plies to the end with best play.
    pub lost: Vec<(M, u32)>,
    /// Positions the check searched (for reports).
    pub nodes: u64,
}

/// Proves what a shallow full-width search can about a root of `G`.
pub trait Tactics<G: crate::game::Game>: Send + Sync {
    /// Checks `root` within `time` (none: the check's own depth alone bounds it). A check cut
    /// short returns what it had proven by then.
    fn check(&self, root: &G, time: Option<Duration>) -> Verdict<G::Move>;

    /// The check's name and horizon in reports ("alpha-beta 6 plies").
    fn describe(&self) -> String;
}
