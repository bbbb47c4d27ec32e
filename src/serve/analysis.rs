//! What the page shows about a position: the network's own view (policy, win/draw/loss), MCTS
//! root statistics as they grow, and alpha-beta's iterations. Each search reports as it goes
//! through a callback that returns `false` once nobody is listening, and stops on a shared flag.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};

use super::ApiError;
use crate::game::Encode;
use crate::mcts::oracle::Oracle;
use crate::mcts::{Batch, Evaluator, MctsConfig, Search};
use crate::nn::NetEvaluator;
use crate::nn::model::MOVES_LEFT_UNIT;
use crate::player::Limits;

/// The most simulations one request may ask of MCTS.
pub const MAX_SIMS: u32 = 50_000;
/// The longest time one request may ask for, and the time after which every search stops.
pub const MAX_MOVETIME_MS: u64 = 30_000;
/// The deepest alpha-beta search one request may ask for.
pub const MAX_DEPTH: u32 = 40;

/// A search budget as a request gives it, checked against the caps.
#[derive(Clone, Copy, Debug, Default, Deserialize, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub struct Budget {
    pub sims: Option<u32>,
    pub depth: Option<u32>,
    pub movetime: Option<u64>,
    /// The classical engine plays at this level of the Elo scale (a move, not an analysis).
    #[serde(default)]
    pub elo: Option<i32>,
}

impl Budget {
    /// Refuses a budget past the caps (rather than running something else than asked).
    pub fn check(&self) -> Result<(), ApiError> {
        if let Some(s) = self.sims.filter(|&s| s == 0 || s > MAX_SIMS) {
            return Err(ApiError::bad(format!("sims must be 1..={MAX_SIMS}, not {s}")));
        }
        if let Some(d) = self.depth.filter(|&d| d == 0 || d > MAX_DEPTH) {
            return Err(ApiError::bad(format!("depth must be 1..={MAX_DEPTH}, not {d}")));
        }
        if let Some(t) = self.movetime.filter(|&t| t == 0 || t > MAX_MOVETIME_MS) {
            return Err(ApiError::bad(format!("movetime must be 1..={MAX_MOVETIME_MS} ms, not {t}")));
        }
        Ok(())
    }

    /// The alpha-beta limits: the depth and time asked for, never past the time cap; neither
    /// asked: one second.
    pub fn alphabeta_limits(&self) -> Limits {
        let cap = Duration::from_millis(MAX_MOVETIME_MS);
        let movetime = match (self.depth, self.movetime) {
            (_, Some(t)) => Duration::from_millis(t),
            (Some(_), None) => cap,
            (None, None) => Duration::from_millis(1000),
        };
        Limits { depth: self.depth, movetime: Some(movetime.min(cap)), ..Limits::default() }
    }

    /// MCTS's simulations and time: as asked, 800 simulations when neither is given, and
    /// never past the time cap.
    pub fn mcts_limits(&self) -> (u32, Duration) {
        let sims = match (self.sims, self.movetime) {
            (Some(s), _) => s,
            (None, Some(_)) => MAX_SIMS,
            (None, None) => 800,
        };
        (sims, Duration::from_millis(self.movetime.unwrap_or(MAX_MOVETIME_MS).min(MAX_MOVETIME_MS)))
    }
}

#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct MoveProb {
    #[serde(rename = "move")]
    pub mv: String,
    pub p: f32,
}

/// The network's outputs for one position, from the side to move's point of view.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct NetworkView {
    pub model: String,
    /// Win, draw and loss probabilities.
    pub wdl: [f32; 3],
    /// win − loss, in [-1, 1].
    pub value: f32,
    /// Plies to the end of the game, for networks with that head.
    pub moves_left: Option<f32>,
    /// The legal moves' prior probabilities, most likely first.
    pub policy: Vec<MoveProb>,
}

/// One forward pass of `net` on `game`'s position (a player's turn).
pub fn network_view<G: Encode>(net: &NetEvaluator, game: &G) -> NetworkView {
    let mut input = vec![0.0f32; G::INPUT_SIZE];
    game.encode(&mut input);
    let out = net.forward(&input, 1);
    let legal = game.legal_moves();
    let logits: Vec<f32> = legal.iter().map(|&m| out.policy[game.action_index(m)]).collect();
    let max = logits.iter().copied().fold(f32::NEG_INFINITY, f32::max);
    let exp: Vec<f32> = logits.iter().map(|l| (l - max).exp()).collect();
    let sum: f32 = exp.iter().sum();
    let mut policy: Vec<MoveProb> = legal.iter().zip(&exp).map(|(m, e)| MoveProb { mv: m.to_string(), p: e / sum }).collect();
    policy.sort_by(|a, b| b.p.total_cmp(&a.p));
    let wdl = [out.wdl[0], out.wdl[1], out.wdl[2]];
    NetworkView { model: net.describe(), wdl, value: wdl[0] - wdl[2], moves_left: out.moves_left.first().map(|m| m * MOVES_LEFT_UNIT), policy }
}

#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct ChildView {
    #[serde(rename = "move")]
    pub mv: String,
    pub visits: u32,
    pub prior: f32,
    /// Mean value for the side to move (none before the first visit).
    pub q: Option<f32>,
}

/// MCTS's root after some simulations.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct MctsView {
    pub sims: u32,
    pub time_ms: u64,
    /// The root's mean value for the side to move.
    pub value: f32,
    /// The same split into win, draw and loss chances by the simulations' draw estimates.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub wdl: Option<[f32; 3]>,
    /// The root's children, most visited first (the first `TOP` of them).
    pub children: Vec<ChildView>,
    /// The most-visited line.
    pub pv: Vec<String>,
    pub best: Option<String>,
    /// The root's exact result when the endgame tables hold it ("tablebase win in 17").
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub exact: Option<String>,
    /// The root's result when the search proved it (`mcts.play_solver`), as `score mate N`
    /// counts: moves of the winner, negative when the side to move loses.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mate: Option<i64>,
}

/// Root children shown.
const TOP: usize = 12;

fn mcts_view<G: Encode>(search: &Search<G>, sims: u32, start: Instant, exact: &Option<String>) -> MctsView {
    let mut children: Vec<ChildView> =
        search.root_children().map(|(m, visits, prior, q)| ChildView { mv: m.to_string(), visits, prior, q: (visits > 0).then_some(q) }).collect();
    children.sort_by(|a, b| b.visits.cmp(&a.visits).then(b.prior.total_cmp(&a.prior)));
    children.truncate(TOP);
    let pv = search.principal_variation(32).iter().map(|m| m.to_string()).collect();
    MctsView {
        sims,
        time_ms: start.elapsed().as_millis() as u64,
        value: search.root_value(),
        wdl: search.root_wdl(),
        best: search.best_move().map(|m| m.to_string()),
        children,
        pv,
        exact: exact.clone(),
        mate: search.root_proof().map(|p| p.mate_moves()),
    }
}

/// How long [`run_mcts`] searches: simulations, time, and a flag that stops it.
pub struct MctsBudget<'a> {
    pub sims: u32,
    pub time: Duration,
    pub stop: &'a AtomicBool,
}

/// Runs MCTS with `net` from `game` for `sims` simulations or `time`, whichever ends first, or
/// until `stop` is raised or `report` returns false. `report` sees the root about five times
/// a second and once at the end; the last view is returned. Positions `oracle` knows are
/// leaves with their exact values, and a root it knows is said in the view.
pub fn run_mcts<G: Encode>(
    net: &dyn Evaluator<G>,
    config: &MctsConfig,
    game: &G,
    budget: MctsBudget<'_>,
    oracle: Option<Arc<dyn Oracle<G>>>,
    report: &mut dyn FnMut(&MctsView) -> bool,
) -> MctsView {
    let MctsBudget { sims, time, stop } = budget;
    let start = Instant::now();
    let config = MctsConfig { dirichlet_fraction: 0.0, ..config.clone() };
    let mut batch = Batch::new::<G>(1, 1, config.cache_entries.min(1 << 14));
    let mut search = Search::new(game.clone(), &config, game.hash());
    search.set_budget(sims);
    search.set_solver(config.play_solver);
    let exact = oracle.as_ref().and_then(|o| o.exact(game).map(|e| e.describe(o.source())));
    search.set_oracle(oracle);
    let evaluators: [&dyn Evaluator<G>; 1] = [net];
    let mut done = 0u32;
    let mut last = start;
    if game.outcome().is_none() {
        while done < sims && !stop.load(Ordering::Relaxed) && !search.root_proven() {
            batch.round(std::slice::from_mut(&mut search), &evaluators);
            done += 1;
            if done.is_multiple_of(8) {
                // The tree's memory caps an analysis as it caps a player's search.
                if start.elapsed() >= time || search.tree_bytes() >= (config.play_tree_mb as usize) << 20 {
                    break;
                }
                if last.elapsed() >= Duration::from_millis(200) {
                    last = Instant::now();
                    if !report(&mcts_view(&search, done, start, &exact)) {
                        stop.store(true, Ordering::Relaxed);
                        break;
                    }
                }
            }
        }
    }
    let view = mcts_view(&search, done, start, &exact);
    report(&view);
    view
}

/// One alpha-beta iteration's result (each game's entry runs its own engine and fills it in).
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct AlphaBetaView {
    pub depth: u32,
    pub seldepth: u32,
    /// `cp N` or `mate N`, for the side to move.
    pub score: String,
    pub cp: Option<i32>,
    pub mate: Option<i32>,
    pub nodes: u64,
    pub time_ms: u64,
    pub pv: Vec<String>,
    pub best: Option<String>,
}
