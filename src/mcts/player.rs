//! MCTS as a [`Player`] (protocol, terminal play, arena): a search per move that keeps the
//! subtree of the position reached since the last one (`mcts.play_tree_reuse`), the best move
//! by visits, no noise, leaves evaluated one at a time.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

use super::{Batch, MctsConfig, Search};
use crate::game::Encode;
use crate::mcts::Evaluator;
use crate::player::{Limits, Player};

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
    stop: Arc<AtomicBool>,
    name: String,
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
            stop: Arc::new(AtomicBool::new(false)),
            name,
        }
    }
}

impl<G: Encode, E> MctsPlayer<G, E> {
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
        let sims = limits.nodes.map_or(if limits.hard_time().is_some() { u32::MAX } else { self.default_sims }, |n| n.clamp(1, u32::MAX as u64) as u32);
        // No iterations to finish: aim at the clock's target, not its hard limit.
        let deadline = limits.target_time().map(|t| start + t);
        // Plies from the last search's root to this one: our move and the reply, with a flip
        // game's revealed pieces between them.
        const FOLLOW_PLIES: usize = 4;
        let mut search = self.search.take().unwrap_or_else(|| Search::new(game.clone(), &self.config, game.hash()));
        if !(self.config.play_tree_reuse && search.follow(game, FOLLOW_PLIES)) {
            search.reset(game);
            search.reseed(game.hash());
        }
        search.set_budget(if sims == u32::MAX { self.config.playouts } else { sims });
        let mut done = 0u32;
        let mut last_report = start;
        let evaluators: [&dyn Evaluator<G>; 1] = [&*self.evaluator];
        while done < sims && !self.stop.load(Ordering::Relaxed) {
            // One simulation a round (the deadline is checked between them).
            self.batch.round(std::slice::from_mut(&mut search), &evaluators);
            done += 1;
            if done.is_multiple_of(8) && deadline.is_some_and(|d| Instant::now() >= d) {
                break;
            }
            if done.is_multiple_of(64) && last_report.elapsed().as_secs_f64() >= 1.0 {
                last_report = Instant::now();
                info(&info_line(&search, done, start));
            }
        }
        self.stop.store(false, Ordering::Relaxed);
        info(&info_line(&search, done, start));
        let best = search.best_move();
        self.search = Some(search);
        best
    }

    fn new_game(&mut self) {
        self.search = None;
    }

    fn stop_handle(&self) -> Option<Arc<AtomicBool>> {
        Some(self.stop.clone())
    }
}

/// `info depth D nodes N nps X score cp S pv ...` with the most-visited line as PV.
fn info_line<G: Encode>(search: &Search<G>, sims: u32, start: Instant) -> String {
    let pv: Vec<String> = search.principal_variation(usize::MAX).iter().map(|m| m.to_string()).collect();
    let secs = start.elapsed().as_secs_f64().max(1e-6);
    format!(
        "info depth {} nodes {sims} nps {} time {} score cp {} pv {}",
        pv.len(),
        (sims as f64 / secs) as u64,
        (secs * 1000.0) as u64,
        value_to_cp(search.root_value()),
        pv.join(" ")
    )
}
