//! What the page needs of a game's positions (`Board`) and of a game (`ServeGame`): the
//! handlers and the record reader both build boards through these, and each game's entry
//! implements them.

use std::sync::Arc;
use std::sync::atomic::AtomicBool;

use super::analysis::{AlphaBetaView, Budget, MctsView, NetworkView};
use super::position::{PositionRequest, PositionView};
use super::{ApiError, ServeState};
use crate::nn::NetEvaluator;
use crate::pipeline::RunGame;
use crate::registry::GameName;
use crate::trainable::Trainable;

/// What the page needs of a position of any game, as a request describes it.
pub trait Board: Send {
    /// The position as the page draws it.
    fn view(&self) -> PositionView;
    /// The game it is a position of.
    fn name(&self) -> GameName;
    fn is_over(&self) -> bool;
    /// The network's own outputs (a network of this game).
    fn network_view(&self, net: &NetEvaluator) -> NetworkView;
    /// Whether the server's endgame tables can serve this position's rules (tables built
    /// under other capture rules are refused, as the protocol refuses them): checked before
    /// an MCTS search starts. Games without tables have nothing to check.
    fn check_tables(&self, _st: &ServeState) -> Result<(), ApiError> {
        Ok(())
    }
    /// MCTS with `net` (a network of this game), see [`super::analysis::run_mcts`].
    fn mcts(&self, st: &ServeState, net: &Arc<NetEvaluator>, budget: Budget, stop: &AtomicBool, report: &mut dyn FnMut(&MctsView) -> bool) -> MctsView;
    /// The game's classical engine (alpha-beta; expectiminimax for the flip game).
    fn alphabeta(&self, st: &ServeState, budget: Budget, stop: &Arc<AtomicBool>, report: &mut dyn FnMut(&AlphaBetaView) -> bool) -> AlphaBetaView;
}

/// What the page needs of a game: the board a position describes, a request's or one of an
/// uploaded record's games.
pub trait ServeGame: RunGame {
    /// The board after `moves` (as the protocol writes them) from `root` (none or empty: the
    /// usual start) under `rules` with the switches `spec` (`key=value,...`) over them; each
    /// move that is not legal is named in the error.
    fn replay<S: AsRef<str>>(rules: <Self as Trainable>::Rules, root: Option<&str>, moves: &[S], spec: Option<&str>) -> Result<Box<dyn Board>, ApiError>;

    /// The board a request describes, under the server's rules.
    fn board(st: &ServeState, req: &PositionRequest) -> Result<Box<dyn Board>, ApiError> {
        Self::replay(<Self as RunGame>::rules(&st.config), req.fen.as_deref(), &req.moves, req.rules.as_deref())
    }
}
