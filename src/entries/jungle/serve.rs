//! Jungle on the web page: the board a request describes, its network view and analyses.

use std::sync::Arc;
use std::sync::atomic::AtomicBool;

use crate::game::Game;
use crate::jungle::JungleGame;
use crate::nn::NetEvaluator;
use crate::pipeline::RunGame;
use crate::registry::GameName;
use crate::serve::analysis::{self, AlphaBetaView, Budget, MctsView, NetworkView};
use crate::serve::handlers::{Board, ServeGame};
use crate::serve::position::{PositionRequest, PositionView};
use crate::serve::{ApiError, ServeState};

/// A Jungle position.
pub struct JungleBoard(pub JungleGame);

impl ServeGame for JungleGame {
    fn board(st: &ServeState, req: &PositionRequest) -> Result<Box<dyn Board>, ApiError> {
        Ok(Box::new(JungleBoard(req.game(st.config.rules)?)))
    }
}

impl Board for JungleBoard {
    fn view(&self) -> PositionView {
        PositionView::of(&self.0)
    }
    fn name(&self) -> GameName {
        GameName::Jungle
    }
    fn is_over(&self) -> bool {
        self.0.outcome().is_some()
    }
    fn network_view(&self, net: &NetEvaluator) -> NetworkView {
        analysis::network_view(net, &self.0)
    }
    fn check_tables(&self, st: &ServeState) -> Result<(), ApiError> {
        <JungleGame as RunGame>::oracle_under(&st.config, self.0.rules())
            .map(drop)
            .map_err(|e| ApiError::conflict(format!("the endgame tables cannot serve these rules: {e}")))
    }
    fn mcts(&self, st: &ServeState, net: &Arc<NetEvaluator>, budget: Budget, stop: &AtomicBool, report: &mut dyn FnMut(&MctsView) -> bool) -> MctsView {
        let (sims, time) = budget.mcts_limits();
        // Tables for the position's own rules (`check_tables` refused the request otherwise).
        let oracle = <JungleGame as RunGame>::oracle_under(&st.config, self.0.rules()).ok().flatten();
        analysis::run_mcts(&**net, &st.config.mcts, &self.0, analysis::MctsBudget { sims, time, stop }, oracle, report)
    }
    fn alphabeta(&self, st: &ServeState, budget: Budget, stop: &Arc<AtomicBool>, report: &mut dyn FnMut(&AlphaBetaView) -> bool) -> AlphaBetaView {
        analysis::run_alphabeta(&st.config, &self.0, &budget.alphabeta_limits(), stop.clone(), report)
    }
}
