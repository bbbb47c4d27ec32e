//! One self-play game in progress: its search, the move-by-move record, and the decisions
//! taken at each move (full or fast search, noise, temperature, resignation).
//!
//! Both drivers (one game at a time, and many games batched) go through this type, so they
//! play identical games for identical seeds and a deterministic evaluator.

use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;

use super::SelfplayConfig;
use super::record::{GameRecord, MoveRecord};
use crate::game::{Outcome, Reason, Turn, by_weight};
use crate::mcts::cache::NnCache;
use crate::mcts::oracle::Oracle;
use crate::mcts::{Algorithm, InFlight, MctsConfig, Search, Step};
use crate::trainable::Trainable;
use std::sync::Arc;

/// Sum of the integer counts an improved-policy target is written as.
const TARGET_TOTAL: f32 = 1000.0;

/// The seed of game `index` in a run seeded with `base`.
pub fn game_seed(base: u64, index: u64) -> u64 {
    let mut z = base ^ index.wrapping_mul(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// Plays a self-play game to its end from where it stands, appending its moves (with
/// whatever targets it has) to the record (the alpha-beta teacher of `selfplay.finish_*`).
pub trait PlayOut<G: Trainable> {
    fn play_out(&mut self, g: &mut G, moves: &mut Vec<MoveRecord<G::Move>>) -> Outcome;
}

pub struct Slot<G: Trainable> {
    search: Search<G>,
    rng: ChaCha8Rng,
    record: GameRecord<G>,
    config: SelfplayConfig,
    full: bool,
    sims_target: u32,
    sims_done: u32,
    resign_run: [u32; 2],
    /// Consecutive plies whose search value stayed within ±`draw_value`.
    draw_run: u32,
    /// Decisions played so far (the record's moves without nature's): what the temperature
    /// schedule and draw adjudication count.
    decisions: u32,
    /// Resignation (and draw adjudication) disabled for this game (to measure false
    /// resignations).
    no_resign: bool,
    active: bool,
    policy_buf: Vec<(G::Move, f32)>,
    chance_buf: Vec<(G::Move, f32)>,
    /// Exact values: the game ends at the first position it knows (see [`Slot::set_oracle`]).
    oracle: Option<Arc<dyn Oracle<G>>>,
}

/// The driver runs a game's simulations until its move's budget is spent (one evaluator).
impl<G: Trainable> InFlight<G> for Slot<G> {
    fn gather(&mut self, caches: &mut [NnCache]) -> Option<usize> {
        self.advance_until_eval(&mut caches[0]).then_some(0)
    }

    fn search(&self, _: usize) -> &Search<G> {
        &self.search
    }

    fn search_mut(&mut self, _: usize) -> &mut Search<G> {
        &mut self.search
    }
}

impl<G: Trainable> Slot<G> {
    pub fn new(root: &G, mcts: &MctsConfig, config: &SelfplayConfig) -> Slot<G> {
        let mut record = GameRecord::starting(root, "", 0);
        record.moves.reserve(256);
        Slot {
            search: Search::new(root.clone(), mcts, 0),
            rng: ChaCha8Rng::seed_from_u64(0),
            record,
            config: config.clone(),
            full: false,
            sims_target: 0,
            sims_done: 0,
            resign_run: [0; 2],
            draw_run: 0,
            decisions: 0,
            no_resign: false,
            active: false,
            policy_buf: Vec::with_capacity(G::MAX_MOVES),
            chance_buf: Vec::with_capacity(G::MAX_MOVES),
            oracle: None,
        }
    }

    /// Ends games at the first position `oracle` knows, with its result (reason
    /// `tablebase`), and lets the search value such positions exactly: the game's value
    /// targets are then the exact result.
    pub fn set_oracle(&mut self, oracle: Option<Arc<dyn Oracle<G>>>) {
        self.search.set_oracle(oracle.clone());
        self.oracle = oracle;
    }

    /// The oracle's result for the position the game has reached, as the game's outcome.
    fn known_result(&self) -> Option<Outcome> {
        let root = self.search.root_state();
        let Turn::Player(mover) = root.turn() else { return None };
        Some(self.oracle.as_ref()?.exact(root)?.outcome(mover))
    }

    pub fn is_active(&self) -> bool {
        self.active
    }

    pub fn search(&self) -> &Search<G> {
        &self.search
    }

    pub fn search_mut(&mut self) -> &mut Search<G> {
        &mut self.search
    }

    /// Starts a new game from `root` with `seed`.
    pub fn start(&mut self, root: &G, seed: u64, model_id: &str) {
        self.search.reset(root);
        self.search.reseed(seed);
        self.rng = ChaCha8Rng::seed_from_u64(seed ^ 0x5EED_5EED_5EED_5EED);
        self.record.rules = root.game_rules().clone();
        self.record.model_id.clear();
        self.record.model_id.push_str(model_id);
        self.record.seed = seed;
        self.record.root = root.root_text();
        self.record.moves.clear();
        self.record.winner = None;
        self.record.would_resign = None;
        self.resign_run = [0; 2];
        self.draw_run = 0;
        self.decisions = 0;
        self.no_resign = self.rng.random::<f32>() < self.config.resign_playout_fraction;
        self.active = true;
        // A root at a chance node (a flip waiting for its draw): nature moves first.
        if let Some(o) = self.resolve_chance().or_else(|| self.known_result()) {
            self.finish(o);
            return;
        }
        self.begin_move();
    }

    /// Plays nature's draws at the root until a player is to move, recording each; the outcome
    /// if the game ended.
    fn resolve_chance(&mut self) -> Option<Outcome> {
        loop {
            match self.search.root_state().turn() {
                Turn::Over(o) => return Some(o),
                Turn::Player(_) => return None,
                Turn::Chance => {}
            }
            self.search.root_state().chance_outcomes(&mut self.chance_buf);
            let mv = by_weight(self.chance_buf.iter().copied(), self.rng.random())?;
            self.record.moves.push(MoveRecord { mv, full_search: false, root_value: f32::NAN, visits: Vec::new() });
            self.advance(mv);
        }
    }

    /// Moves the search's root along `mv` (keeping the subtree with `tree_reuse`).
    fn advance(&mut self, mv: G::Move) {
        if self.config.tree_reuse {
            self.search.advance(mv);
        } else {
            let mut next = self.search.root_state().clone();
            next.play_unchecked(mv);
            self.search.reset(&next);
        }
    }

    fn begin_move(&mut self) {
        self.full = self.rng.random::<f32>() < self.config.full_search_prob;
        self.sims_target = if self.full { self.config.full_sims } else { self.config.fast_sims }.max(1);
        self.sims_done = 0;
        self.search.set_budget(self.sims_target);
        // Gumbel search explores through its Gumbel noise on every move; PUCT gets Dirichlet
        // noise on full searches only.
        if self.full || self.search.config().algorithm == Algorithm::Gumbel {
            self.search.request_noise();
        }
    }

    /// Whether this move's search still wants simulations.
    pub fn wants_sims(&self) -> bool {
        self.active && self.sims_done < self.sims_target
    }

    /// Runs simulations until one needs the network (returned `true`; the leaf is waiting in
    /// the search) or the move's budget is spent (`false`).
    pub fn advance_until_eval(&mut self, cache: &mut NnCache) -> bool {
        while self.wants_sims() {
            self.sims_done += 1;
            if let Step::NeedsEval(_) = self.search.select(cache) {
                return true;
            }
        }
        false
    }

    /// Whether the move's search is done and a move should be played.
    pub fn ready_to_move(&self) -> bool {
        self.active && self.sims_done >= self.sims_target && !self.search.is_pending()
    }

    /// Plays the searched move. Returns the finished record if the game ended.
    pub fn play_move(&mut self) -> Option<GameRecord<G>> {
        let Some(mover) = self.search.root_state().seat_to_move() else {
            let o = self.search.root_state().outcome().unwrap_or(Outcome::draw(Reason::MoveCap));
            return Some(self.finish(o));
        };
        let value = self.search.root_value();
        let visits = if !self.full {
            Vec::new()
        } else if self.search.config().algorithm == Algorithm::Gumbel {
            // The improved policy, as integer counts summing to about TARGET_TOTAL.
            self.search.improved_policy(&mut self.policy_buf);
            self.policy_buf.iter().map(|&(m, p)| (m, (p * TARGET_TOTAL).round() as u32)).filter(|&(_, n)| n > 0).collect()
        } else {
            let mut target = Vec::new();
            self.search.policy_target(&mut target);
            target
        };
        // Resignation: the mover's value stayed below the threshold for enough of its moves.
        if self.config.resign_threshold > -1.0 {
            let run = &mut self.resign_run[mover.index()];
            *run = if value < self.config.resign_threshold { *run + 1 } else { 0 };
            if *run >= self.config.resign_consecutive.max(1) {
                if self.no_resign {
                    self.record.would_resign.get_or_insert(mover);
                } else {
                    return Some(self.finish(Outcome::win(mover.other(), Reason::Resignation)));
                }
            }
        }
        // Draw adjudication: a level game past `draw_after_plies` ends as a draw.
        if self.config.draw_after_plies > 0 && !self.no_resign {
            self.draw_run = if value.abs() <= self.config.draw_value { self.draw_run + 1 } else { 0 };
            if self.decisions >= self.config.draw_after_plies && self.draw_run >= self.config.draw_plies {
                return Some(self.finish(Outcome::draw(Reason::Adjudication)));
            }
        }
        let plies = self.decisions as f32;
        let c = &self.config;
        let t = c.temperature_end + (c.temperature_start - c.temperature_end) * 0.5f32.powf(plies / c.temperature_halflife.max(1e-3));
        let Some(mv) = self.search.choose_move(t) else {
            // No legal move at the root cannot happen in a live game; end it as the rules would.
            return Some(self.finish(Outcome::win(mover.other(), Reason::NoMoves)));
        };
        self.record.moves.push(MoveRecord { mv, full_search: self.full, root_value: value, visits });
        self.decisions += 1;
        self.advance(mv);
        if let Some(o) = self.resolve_chance().or_else(|| self.known_result()) {
            return Some(self.finish(o));
        }
        self.begin_move();
        None
    }

    /// Plies played so far in the current game.
    pub fn plies(&self) -> usize {
        self.record.moves.len()
    }

    /// Hands the game to `teacher`, which plays both sides to the end; returns the record.
    pub fn finish_with(&mut self, teacher: &mut dyn PlayOut<G>) -> GameRecord<G> {
        let mut g = self.search.root_state().clone();
        let o = teacher.play_out(&mut g, &mut self.record.moves);
        self.finish(o)
    }

    fn finish(&mut self, o: Outcome) -> GameRecord<G> {
        self.active = false;
        self.record.winner = o.winner;
        self.record.reason = o.reason;
        self.record.clone()
    }
}
