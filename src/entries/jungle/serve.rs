//! Jungle on the web page: the board a request or a record describes (a FEN and moves), the
//! page's view of it, its network view and analyses (MCTS with the endgame tables, alpha-beta's
//! iterations as they complete).

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use crate::alphabeta::level::{self, LevelPlayer};
use crate::alphabeta::{Engine, Eval, Info, Score, SearchConfig};
use crate::config::Config;
use crate::game::{Game, Outcome, Turn};
use crate::jungle::{JungleGame, Move, Position, Rules, Side, describe_outcome, fen, parse_fen};
use crate::nn::NetEvaluator;
use crate::pipeline::RunGame;
use crate::player::Limits;
use crate::registry::GameName;
use crate::serve::analysis::{self, AlphaBetaView, Budget, MctsView, NetworkView};
use crate::serve::board::{Board, ServeGame};
use crate::serve::position::{PieceView, PositionView, ResultView, check_length, side_name, with_overrides};
use crate::serve::{ApiError, ServeState};

/// The alpha-beta engine's hash table for one request.
const HASH_MB: usize = 32;

/// A Jungle position.
pub struct JungleBoard(pub JungleGame);

impl ServeGame for JungleGame {
    fn replay<S: AsRef<str>>(rules: Rules, root: Option<&str>, moves: &[S], spec: Option<&str>) -> Result<Box<dyn Board>, ApiError> {
        Ok(Box::new(JungleBoard(game_of(rules, root, moves, spec)?)))
    }
}

impl Board for JungleBoard {
    fn view(&self) -> PositionView {
        view_of(&self.0)
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
        match budget.elo {
            Some(elo) => level_move(&st.config, &self.0, elo, &budget.alphabeta_limits(), stop.clone()),
            None => run_alphabeta(&st.config, &self.0, &budget.alphabeta_limits(), stop.clone(), report),
        }
    }
}

/// The game from `root` (a FEN; none or empty: the start) under `base` with the switches `spec`
/// over them, after `moves`, each named in the error when it is not legal.
fn game_of<S: AsRef<str>>(base: Rules, root: Option<&str>, moves: &[S], spec: Option<&str>) -> Result<JungleGame, ApiError> {
    let r = with_overrides(base, spec)?;
    let start = match root.map(str::trim).filter(|f| !f.is_empty()) {
        None => Position::start(),
        Some(f) => parse_fen(f).map_err(|e| ApiError::bad(format!("bad FEN: {e}")))?,
    };
    check_length(moves.len())?;
    let mut game = JungleGame::new(start, r);
    for (i, text) in moves.iter().enumerate() {
        let text = text.as_ref();
        game.play_text(text).map_err(|e| ApiError::bad(format!("move {} ('{text}'): {e}", i + 1)))?;
    }
    Ok(game)
}

/// The result with the winner's colour, in words.
fn result_of(o: &Outcome) -> ResultView {
    ResultView { winner: o.winner.map(|p| side_name(Side::from_player(p)).to_string()), reason: o.reason.name().to_string(), text: describe_outcome(o) }
}

/// The page's view of a Jungle position.
fn view_of(game: &JungleGame) -> PositionView {
    let pos = game.position();
    let rules = game.rules();
    let pieces = pos.pieces().map(|(sq, p)| PieceView::new(sq.to_string(), p.side(), p.kind(), p.letter(), rules.dog_over_wolf)).collect();
    let result = match game.turn() {
        Turn::Over(o) => Some(result_of(&o)),
        _ => None,
    };
    let legal = if result.is_some() { Vec::new() } else { game.legal_moves().iter().map(|m| m.to_string()).collect() };
    PositionView {
        game: GameName::Jungle.name().into(),
        root_fen: fen(game.root()),
        fen: game.fen(),
        moves: game.moves().iter().map(|m| m.to_string()).collect(),
        rules: rules.to_string(),
        side_to_move: side_name(game.side_to_move()).to_string(),
        ply: pos.ply(),
        halfmove: pos.halfmove(),
        pieces,
        legal,
        last_move: game.moves().last().map(|m| m.to_string()),
        result,
        flip: None,
    }
}

/// One iteration's result as the page shows it.
fn alphabeta_view(depth: u32, seldepth: u32, score: Score, nodes: u64, time: Duration, pv: &[Move]) -> AlphaBetaView {
    let (cp, mate) = match score {
        Score::Cp(c) => (Some(c), None),
        Score::Mate(m) => (None, Some(m)),
    };
    AlphaBetaView {
        depth,
        seldepth,
        score: score.to_string(),
        cp,
        mate,
        nodes,
        time_ms: time.as_millis() as u64,
        pv: pv.iter().map(|m| m.to_string()).collect(),
        best: pv.first().map(|m| m.to_string()),
    }
}

/// Runs the alpha-beta engine on `game` within `limits`, stopped by `stop`; `report` sees each
/// completed iteration (returning false stops the search). Returns the final result.
/// A move of the engine held to level `elo` (its own limits, capped by the request's).
fn level_move(config: &Config, game: &JungleGame, elo: i32, limits: &Limits, stop: Arc<AtomicBool>) -> AlphaBetaView {
    let search = SearchConfig { hash_mb: config.search.hash_mb.min(HASH_MB), threads: 1, ..config.search.clone() };
    let engine = Engine::new(&search, Eval::new(&config.eval, *game.rules())).with_stop(stop);
    let seed = game.position().hash() ^ game.moves().len() as u64;
    let mut player = LevelPlayer::new(engine, level::for_elo(elo), seed, format!("alphabeta:elo={elo}"));
    let start = std::time::Instant::now();
    let Some((m, value, depth)) = player.choose_scored(game, limits) else {
        return alphabeta_view(0, 0, Score::Cp(0), 0, start.elapsed(), &[]);
    };
    alphabeta_view(depth, depth, Score::from_internal(value), 0, start.elapsed(), &[m])
}

fn run_alphabeta(config: &Config, game: &JungleGame, limits: &Limits, stop: Arc<AtomicBool>, report: &mut dyn FnMut(&AlphaBetaView) -> bool) -> AlphaBetaView {
    let search = SearchConfig { hash_mb: config.search.hash_mb.min(HASH_MB), threads: 1, ..config.search.clone() };
    let mut engine = Engine::new(&search, Eval::new(&config.eval, *game.rules())).with_stop(stop.clone());
    let r = engine.search(game, limits, &mut |info: &Info| {
        if !report(&alphabeta_view(info.depth, info.seldepth, info.score, info.nodes, info.time, &info.pv)) {
            stop.store(true, Ordering::Relaxed);
        }
    });
    let mut view = alphabeta_view(r.depth, r.depth, r.score, r.nodes, r.time, &r.pv);
    view.best = r.best.map(|m| m.to_string());
    view
}
