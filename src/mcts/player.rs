//! MCTS as a [`Player`] (protocol, terminal play, arena): a search per move that keeps the
//! subtree of the position reached since the last one (`mcts.play_tree_reuse`), the best move
//! by visits, no noise; leaves evaluated one at a time, or by `mcts.play_threads` threads
//! sending `mcts.play_minibatch` leaves at a time (see [`super::parallel`]).

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

use super::oracle::{Oracle, best_move};
use super::parallel::{Budget, Lane, search_parallel};
use super::search::Proof;
use super::tactics::Tactics;
use super::{Algorithm, Batch, MctsConfig, Search};
use crate::game::Encode;
use crate::mcts::Evaluator;
use crate::player::{Failure, Limits, Player};

/// MCTS with evaluator `E` playing a game of `G`.
pub struct MctsPlayer<G: Encode, E> {
    evaluator: Arc<E>,
    config: MctsConfig,
    /// Simulations per move when the limits give no node count or time.
    default_sims: u32,
    /// The driver's cache and buffers (one evaluator, one search).
    batch: Batch,
    /// The last move's search, kept for its subtree (`None` before the first move of a game).
    search: Option<Search<G>>,
    /// Each search thread's buffers (`mcts.play_threads` of them; empty until a parallel
    /// search).
    lanes: Vec<Lane<G>>,
    /// Exact values (endgame tables): leaves in the tree, and the move outright at a root it
    /// knows.
    oracle: Option<Arc<dyn Oracle<G>>>,
    /// A shallow exhaustive check of each root before the search (`mcts.play_tactics`).
    tactics: Option<Arc<dyn Tactics<G>>>,
    stop: Arc<AtomicBool>,
    name: String,
    /// Set when a search met a network output that is not a finite number.
    failed: bool,
}

impl<G: Encode, E: Evaluator<G>> MctsPlayer<G, E> {
    pub fn new(evaluator: Arc<E>, config: &MctsConfig, default_sims: u32) -> MctsPlayer<G, E> {
        let name = format!("mcts({}, sims={default_sims})", evaluator.name());
        MctsPlayer {
            evaluator,
            config: MctsConfig { dirichlet_fraction: 0.0, ..config.clone() },
            default_sims: default_sims.max(1),
            batch: Batch::new::<G>(1, 1, config.cache_entries),
            search: None,
            lanes: Vec::new(),
            oracle: None,
            tactics: None,
            stop: Arc::new(AtomicBool::new(false)),
            name,
            failed: false,
        }
    }
}

impl<G: Encode, E> MctsPlayer<G, E> {
    /// The same player with exact values from `oracle`.
    pub fn with_oracle(mut self, oracle: Option<Arc<dyn Oracle<G>>>) -> Self {
        self.oracle = oracle;
        self
    }

    /// The same player checking each root with `tactics` before it searches.
    pub fn with_tactics(mut self, tactics: Option<Arc<dyn Tactics<G>>>) -> Self {
        self.tactics = tactics;
        self
    }

    /// The last move's search (its tree kept for the next move), if this game had one.
    pub fn last_search(&self) -> Option<&Search<G>> {
        self.search.as_ref()
    }
}

/// A value in [-1, 1] as centi-units, on the scale other engines print (lc0's mapping).
pub fn value_to_cp(q: f32) -> i32 {
    (90.0 * (1.563_754_2 * q.clamp(-0.999, 0.999)).tan()).round() as i32
}

impl<G: Encode, E: Evaluator<G>> Player<G> for MctsPlayer<G, E> {
    fn name(&self) -> String {
        self.name.clone()
    }

    fn choose(&mut self, game: &G, limits: &Limits, info: &mut dyn FnMut(&str)) -> Option<G::Move> {
        if game.outcome().is_some() {
            return None;
        }
        let start = Instant::now();
        // `go searchmoves`: the root gets only these moves (and no shortcut below may pick
        // another).
        let allowed = crate::player::chosen_moves(game, &limits.searchmoves);
        let whole = allowed.is_empty();
        // A root the oracle knows: its best move, no search.
        if whole
            && let Some(o) = &self.oracle
            && let Some((mv, e)) = best_move(&**o, game)
        {
            // Moves (not plies) to the end, as `score mate` counts them.
            let score = if e.value > 0.0 {
                format!("mate {}", e.plies.div_ceil(2))
            } else if e.value < 0.0 {
                format!("mate -{}", e.plies / 2)
            } else {
                "cp 0".to_string()
            };
            info(&format!("info depth 1 seldepth 1 time {} nodes 0 nps 0 score {score} pv {mv}", start.elapsed().as_millis()));
            info(&format!("info string {}", e.describe(o.source())));
            self.search = None;
            return Some(mv);
        }
        // A shallow exhaustive check: a forced win is played at once; moves it refutes are
        // proven lost in the tree below.
        let verdict = self.tactics.as_ref().filter(|_| whole).map(|t| {
            let time = if limits.infinite { None } else { limits.target_time().map(|t| t / TACTICS_SHARE) };
            (t.check(game, time), t.describe())
        });
        if let Some((v, what)) = &verdict
            && let Some((mv, plies)) = v.win
        {
            let ms = start.elapsed().as_millis();
            let nps = (v.nodes as f64 / start.elapsed().as_secs_f64().max(1e-6)) as u64;
            info(&format!("info depth 1 seldepth {plies} time {ms} nodes {} nps {nps} score mate {} pv {mv}", v.nodes, plies.div_ceil(2)));
            info(&format!("info string {what}: win in {plies}"));
            self.search = None;
            return Some(mv);
        }
        // `go infinite` runs until stopped, up to a tree the memory can hold.
        // `go mate N` alone searches until the root is proven, as `go infinite` until stopped.
        let mate_only = limits.mate.is_some() && limits.nodes.is_none() && limits.hard_time().is_none();
        let sims = if limits.infinite || mate_only {
            u32::MAX
        } else {
            limits.nodes.map_or(if limits.hard_time().is_some() { u32::MAX } else { self.default_sims }, |n| n.clamp(1, u32::MAX as u64) as u32)
        };
        // No iterations to finish: aim at the clock's target, not its hard limit...
        let deadline = limits.target_time().map(|t| start + t).filter(|_| !limits.infinite);
        // ...and on a clock (no fixed move time), go on past it while the move is unclear, up
        // to EXTEND times the target and never past the hard limit.
        let extend_to = match (limits.clock, limits.movetime, limits.infinite) {
            (Some((soft, hard)), None, false) => Some(start + hard.min(soft.mul_f32(EXTEND))),
            _ => None,
        };
        // Plies from the last search's root to this one: our move and the reply, with a flip
        // game's revealed pieces between them.
        const FOLLOW_PLIES: usize = 4;
        let mut search = self.search.take().unwrap_or_else(|| Search::new(game.clone(), &self.config, game.hash()));
        // A tree grown for other root moves than these is not kept.
        let refiltered = !whole || search.root_filtered();
        if refiltered || !(self.config.play_tree_reuse && search.follow(game, FOLLOW_PLIES)) {
            search.reset(game);
            search.reseed(game.hash());
        }
        search.set_root_moves(&allowed);
        search.set_oracle(self.oracle.clone());
        search.set_solver(self.config.play_solver);
        search.set_budget(if sims >= INFINITE_SIMULATIONS { self.config.playouts } else { sims });
        let mut done = 0u32;
        // The refuted moves need the root's moves in the tree: the first simulation expands it.
        if let Some((v, _)) = verdict.filter(|(v, _)| !v.lost.is_empty() && self.config.play_solver) {
            if !search.root_expanded() {
                let evaluators: [&dyn Evaluator<G>; 1] = [&*self.evaluator];
                self.batch.round(std::slice::from_mut(&mut search), &evaluators);
                done += 1;
            }
            for (mv, plies) in v.lost {
                search.mark_lost(mv, plies);
            }
        }
        let mut last_report = start;
        // Whatever was asked, the tree stops growing at the memory it may take.
        let max_tree_bytes = (self.config.play_tree_mb as usize) << 20;
        // Several threads or leaves in flight (PUCT only: Gumbel search plans each visit).
        let (threads, minibatch) = match self.config.algorithm {
            Algorithm::Puct => (self.config.play_threads.max(1), self.config.play_minibatch.max(1)),
            Algorithm::Gumbel => (1, 1),
        };
        if threads > 1 || minibatch > 1 {
            if self.lanes.len() != threads || self.lanes[0].capacity() != minibatch {
                self.lanes = (0..threads).map(|_| Lane::new(minibatch)).collect();
            }
            let budget = Budget { sims, deadline, stop: &self.stop, max_tree_bytes };
            let mut progress = |s: &Search<G>, n: u32| {
                if last_report.elapsed() >= REPORT_EVERY {
                    last_report = Instant::now();
                    report(s, n, start, limits, info);
                }
            };
            done = search_parallel(&mut search, &mut self.batch.caches[0], &*self.evaluator, &mut self.lanes, minibatch, &budget, &mut progress);
        } else {
            let evaluators: [&dyn Evaluator<G>; 1] = [&*self.evaluator];
            // A timed search without a node limit stops once its move is settled (PUCT: the
            // move played is the most visited).
            let prune = limits.nodes.is_none() && self.config.algorithm == Algorithm::Puct;
            // A proven root ends the search: more simulations would change nothing.
            while done < sims && !self.stop.load(Ordering::Relaxed) && !search.root_proven() {
                // One simulation a round (the deadline is checked between them).
                self.batch.round(std::slice::from_mut(&mut search), &evaluators);
                done += 1;
                if done.is_multiple_of(8) {
                    if search.tree_bytes() >= max_tree_bytes {
                        break;
                    }
                    if let Some(d) = deadline {
                        let now = Instant::now();
                        let over = now >= d && extend_to.is_none_or(|h| now >= h || !unclear(&search));
                        if over || (now < d && prune && settled(&search, done, now - start, d - now)) {
                            break;
                        }
                    }
                    if last_report.elapsed() >= REPORT_EVERY {
                        last_report = Instant::now();
                        report(&search, done, start, limits, info);
                    }
                }
            }
        }
        if search.tree_bytes() >= max_tree_bytes {
            info(&format!(
                "info string search stopped at {done} simulations: its tree holds {} MiB, the most mcts.play_tree_mb allows",
                search.tree_bytes() >> 20
            ));
        }
        self.stop.store(false, Ordering::Relaxed);
        // Stopped before the first simulation: one more, whatever the stop says, expands the
        // root so that the answer is the network's likeliest move rather than none.
        if search.best_move().is_none() {
            let evaluators: [&dyn Evaluator<G>; 1] = [&*self.evaluator];
            self.batch.round(std::slice::from_mut(&mut search), &evaluators);
            done += 1;
        }
        report(&search, done, start, limits, info);
        if search.network_failed() {
            // No move from a broken network; the search is not kept.
            self.failed = true;
            return None;
        }
        // Any legal move if even that left none (a position the game still has moves in).
        let best = search.best_move().or_else(|| game.legal_moves().first().copied());
        self.search = Some(search);
        best
    }

    fn failure(&self) -> Option<Failure> {
        self.failed.then_some(Failure::Network)
    }

    fn new_game(&mut self) {
        self.search = None;
    }

    fn stop_handle(&self) -> Option<Arc<AtomicBool>> {
        Some(self.stop.clone())
    }

    fn takes_searchmoves(&self) -> bool {
        true
    }
}

/// Whether the most visited root move can no longer be overtaken: it is the only move not
/// proven lost, or it leads the next by more visits than the search would run in the time
/// `left` at the speed it ran for `spent` (lc0's smart pruning). The time saved goes to later
/// moves on a clock.
fn settled<G: Encode>(search: &Search<G>, sims: u32, spent: std::time::Duration, left: std::time::Duration) -> bool {
    const AT_LEAST: u32 = 64;
    if sims < AT_LEAST {
        return false;
    }
    let rate = f64::from(sims) / spent.as_secs_f64().max(1e-6);
    let lead = search.visit_lead();
    lead == u32::MAX || f64::from(lead) > rate * left.as_secs_f64()
}

/// How far past its target a move on a clock may search while unclear (see [`unclear`]).
const EXTEND: f32 = 2.5;

/// Whether the search has not yet settled its move (a clock's time manager extends the search
/// then): the most visited root move is not the one valued best among the moves with at least
/// a tenth of its visits, or it leads the next by less than a fifth of its own visits. Proven
/// moves settle at once.
pub fn unclear<G: Encode>(search: &Search<G>) -> bool {
    if search.root_proven() {
        return false;
    }
    // The most visited move (first of equals, as the move played is), the runner-up's visits.
    let (mut top, mut top_q, mut second) = (0u32, f32::NEG_INFINITY, 0u32);
    for (_, visits, _, q) in search.root_children() {
        if visits > top {
            (second, top, top_q) = (top, visits, q);
        } else if visits > second {
            second = visits;
        }
    }
    if top < 8 {
        return true;
    }
    let best_q = search.root_children().filter(|c| c.1 * 10 >= top).map(|c| c.3).fold(f32::NEG_INFINITY, f32::max);
    best_q > top_q + 1e-6 || (top - second) * 5 < top
}

/// The shallow check's share of a timed move: at most 1/`TACTICS_SHARE` of its target time.
const TACTICS_SHARE: u32 = 10;

/// How often a search reports its progress.
const REPORT_EVERY: std::time::Duration = std::time::Duration::from_millis(500);

/// Budgets from this many simulations up (`go infinite`, a huge node count) are planned as
/// the default playouts by Gumbel search's sequential halving.
pub const INFINITE_SIMULATIONS: u32 = 1_000_000;

/// One `info` line per reported move (`multipv` of them, most visited first): `info depth D
/// seldepth S time T nodes N nps X [multipv K] score cp C [wdl W D L] pv ...`. Depth is the
/// simulations' mean depth below the root, seldepth their deepest; nodes counts the tree's
/// visits (a kept subtree's included), nps this search's simulations a second; `wdl` (with
/// `limits.wdl`) is the line's win, draw and loss chances per mille for the side to move.
fn report<G: Encode>(search: &Search<G>, sims: u32, start: Instant, limits: &Limits, info: &mut dyn FnMut(&str)) {
    let secs = start.elapsed().as_secs_f64().max(1e-6);
    let (mean, max) = search.depth_stats();
    let head = format!(
        "info depth {} seldepth {max} time {} nodes {} nps {}",
        mean.round() as u32,
        (secs * 1000.0) as u64,
        search.root_visits(),
        (sims as f64 / secs) as u64
    );
    let wdl_text = |split: Option<[f32; 3]>| match split.filter(|_| limits.wdl) {
        Some(p) => {
            let [w, d, l] = permille(p);
            format!(" wdl {w} {d} {l}")
        }
        None => String::new(),
    };
    let multipv = limits.multipv;
    let lines = search.lines(multipv.max(1) as usize, 64);
    let score = |q: f32, proof: Option<Proof>| match proof {
        Some(p) => format!("mate {}", p.mate_moves()),
        None => format!("cp {}", value_to_cp(q)),
    };
    if lines.is_empty() {
        info(&format!("{head} score {}{}", score(search.root_value(), search.root_proof()), wdl_text(search.root_wdl())));
        return;
    }
    let several = lines.len() > 1 || multipv > 1;
    for (k, (_, q, split, line, proof)) in lines.iter().enumerate() {
        let pv: Vec<String> = line.iter().map(|m| m.to_string()).collect();
        // The best line's score is the root's value (what the search believes of the position,
        // or its proven result); the others', their own mean or proof.
        let (text, split) = if k == 0 { (score(search.root_value(), search.root_proof().or(*proof)), search.root_wdl()) } else { (score(*q, *proof), *split) };
        let multi = if several { format!(" multipv {}", k + 1) } else { String::new() };
        info(&format!("{head}{multi} score {text}{} pv {}", wdl_text(split), pv.join(" ")));
    }
}

/// Probabilities as whole per mille adding up to exactly 1000 (the draw takes the rounding).
pub fn permille(p: [f32; 3]) -> [u32; 3] {
    let w = (p[0] * 1000.0).round().clamp(0.0, 1000.0) as u32;
    let l = ((p[2] * 1000.0).round().clamp(0.0, 1000.0) as u32).min(1000 - w);
    [w, 1000 - w - l, l]
}
