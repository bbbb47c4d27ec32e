//! The self-play drivers. `run` starts worker threads; each keeps `games_in_flight` games and
//! every round gathers one pending leaf per game into a single batch for the evaluator.
//! `play_plain` plays games one at a time with batches of one (the reference for tests).

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::mpsc;
use std::time::Instant;

use std::sync::Arc;

use super::SelfplayConfig;
use super::record::GameRecord;
use super::slot::{PlayOut, Slot, game_seed};
use crate::mcts::oracle::Oracle;
use crate::mcts::{Batch, Evaluator, MctsConfig};
use crate::trainable::Trainable;

/// Live counters for progress displays (shared by the workers).
#[derive(Default, Debug)]
pub struct Counters {
    pub games: AtomicU64,
    pub moves: AtomicU64,
    /// Positions sent to the network.
    pub evals: AtomicU64,
    pub batches: AtomicU64,
    /// Seconds spent inside the evaluator, in microseconds, summed over workers.
    pub eval_micros: AtomicU64,
    /// Games the teacher finished (`selfplay.finish_after_plies`).
    pub finished: AtomicU64,
}

/// How long games are handed over: once a game has `after_plies` plies, a player built by
/// `build` (one per worker thread) plays both sides to the end.
pub struct Handover<G: Trainable> {
    pub after_plies: u32,
    pub build: Arc<dyn Fn() -> Box<dyn PlayOut<G>> + Send + Sync>,
    /// What the player is, for logs.
    pub name: String,
}

impl<G: Trainable> Clone for Handover<G> {
    fn clone(&self) -> Self {
        Handover { after_plies: self.after_plies, build: self.build.clone(), name: self.name.clone() }
    }
}

impl<G: Trainable> std::fmt::Debug for Handover<G> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Handover({} after {} plies)", self.name, self.after_plies)
    }
}

/// What to play.
#[derive(Clone, Debug)]
pub struct RunOptions<G: Trainable> {
    pub games: u64,
    /// Index of the first game (seeds follow the index, so resumed runs do not repeat games).
    pub first_index: u64,
    pub seed: u64,
    pub model_id: String,
    pub root: G,
    /// Stop (abandoning games in flight) at this time.
    pub deadline: Option<Instant>,
    /// The teacher that finishes long games (`None`: games run to their end or the cap).
    pub finish: Option<Handover<G>>,
    /// Exact values (endgame tables): a game ends at its first position they know, with their
    /// result, and searches value such positions exactly.
    pub oracle: Option<Arc<dyn Oracle<G>>>,
}

impl<G: Trainable> RunOptions<G> {
    /// `games` games from the start position under `rules`, numbered from 0, with no deadline.
    pub fn from_start(games: u64, seed: u64, model_id: &str, rules: &G::Rules) -> RunOptions<G> {
        RunOptions { games, first_index: 0, seed, model_id: model_id.to_string(), root: G::start_under(rules), deadline: None, finish: None, oracle: None }
    }
}

/// Plays `opts.games` games one at a time, each leaf evaluated alone.
pub fn play_plain<G: Trainable, E: Evaluator<G>>(evaluator: &E, mcts: &MctsConfig, config: &SelfplayConfig, opts: &RunOptions<G>) -> Vec<GameRecord<G>> {
    let mut batch = Batch::new::<G>(1, 1, mcts.cache_entries);
    let evaluators: [&dyn Evaluator<G>; 1] = [evaluator];
    let mut slot = Slot::new(&opts.root, mcts, config);
    slot.set_oracle(opts.oracle.clone());
    let mut finisher = Finishing::new(opts);
    let mut out = Vec::new();
    for i in 0..opts.games {
        let index = opts.first_index + i;
        slot.start(&opts.root, game_seed(opts.seed, index), &opts.model_id);
        loop {
            batch.run_item(&mut slot, &evaluators);
            if let Some(rec) = slot.play_move().or_else(|| finisher.maybe_finish(&mut slot)) {
                out.push(rec);
                break;
            }
        }
    }
    out
}

/// A worker's teacher for long games, built on first use.
struct Finishing<'a, G: Trainable> {
    spec: Option<&'a Handover<G>>,
    teacher: Option<Box<dyn PlayOut<G>>>,
}

impl<'a, G: Trainable> Finishing<'a, G> {
    fn new(opts: &'a RunOptions<G>) -> Finishing<'a, G> {
        Finishing { spec: opts.finish.as_ref(), teacher: None }
    }

    /// Finishes the slot's game with the teacher if it has reached the hand-over ply.
    fn maybe_finish(&mut self, slot: &mut Slot<G>) -> Option<GameRecord<G>> {
        let spec = self.spec?;
        if slot.plies() < spec.after_plies as usize {
            return None;
        }
        Some(slot.finish_with(self.teacher.get_or_insert_with(|| (spec.build)()).as_mut()))
    }
}

/// What every worker of one run shares.
struct Shared<'a, G: Trainable, E> {
    evaluator: &'a E,
    mcts: &'a MctsConfig,
    config: &'a SelfplayConfig,
    opts: &'a RunOptions<G>,
    /// The next game index to claim.
    next: AtomicU64,
    counters: &'a Counters,
}

/// One worker: keeps up to `games_in_flight` games going, claiming game indices from `next`,
/// until they are all played or `stop` rises.
fn worker_loop<G: Trainable, E: Evaluator<G>>(w: &Shared<G, E>, stop: &AtomicBool, tx: mpsc::Sender<GameRecord<G>>) {
    let Shared { evaluator, mcts, config, opts, ref next, counters } = *w;
    // Each worker keeps at most its share of the games in flight: with 48 games and 64 slots
    // per worker, the first worker would otherwise claim them all and the others would idle.
    let share = opts.games.div_ceil(config.worker_count() as u64).max(1);
    let slots_n = config.games_in_flight.max(1).min(usize::try_from(share).unwrap_or(usize::MAX));
    let mut batch = Batch::new::<G>(1, slots_n, mcts.cache_entries);
    let evaluators: [&dyn Evaluator<G>; 1] = [evaluator];
    let mut slots: Vec<Slot<G>> = (0..slots_n)
        .map(|_| {
            let mut s = Slot::new(&opts.root, mcts, config);
            s.set_oracle(opts.oracle.clone());
            s
        })
        .collect();
    let mut finisher = Finishing::new(opts);
    let claim = || {
        let i = next.fetch_add(1, Ordering::Relaxed);
        (i < opts.games).then_some(opts.first_index + i)
    };
    for s in slots.iter_mut() {
        if let Some(i) = claim() {
            s.start(&opts.root, game_seed(opts.seed, i), &opts.model_id);
        }
    }
    loop {
        if stop.load(Ordering::Relaxed) || opts.deadline.is_some_and(|d| Instant::now() >= d) {
            return;
        }
        // Every game runs simulations until one needs the network; one batch evaluates them.
        let round = batch.round(&mut slots, &evaluators);
        if round.evals > 0 {
            counters.eval_micros.fetch_add(round.eval_time.as_micros() as u64, Ordering::Relaxed);
            counters.evals.fetch_add(round.evals as u64, Ordering::Relaxed);
            counters.batches.fetch_add(round.batches as u64, Ordering::Relaxed);
        }
        // Move: games whose search is done play their move; finished games are replaced.
        let mut any_active = false;
        for s in slots.iter_mut() {
            if s.ready_to_move() {
                counters.moves.fetch_add(1, Ordering::Relaxed);
                let rec = s.play_move().or_else(|| {
                    let rec = finisher.maybe_finish(s);
                    counters.finished.fetch_add(u64::from(rec.is_some()), Ordering::Relaxed);
                    rec
                });
                if let Some(rec) = rec {
                    counters.games.fetch_add(1, Ordering::Relaxed);
                    if tx.send(rec).is_err() {
                        return;
                    }
                    if let Some(i) = claim() {
                        s.start(&opts.root, game_seed(opts.seed, i), &opts.model_id);
                    }
                }
            }
            any_active |= s.is_active();
        }
        if !any_active {
            return;
        }
    }
}

/// Plays `opts.games` games on `workers` threads, handing each finished game to `on_game` (on
/// the calling thread, in completion order). `on_tick` runs about every 200 ms for progress.
pub fn run<G: Trainable, E: Evaluator<G>, Er>(
    evaluator: &E,
    mcts: &MctsConfig,
    config: &SelfplayConfig,
    opts: &RunOptions<G>,
    counters: &Counters,
    on_game: impl FnMut(GameRecord<G>) -> Result<(), Er>,
    on_tick: impl FnMut(),
) -> Result<(), Er> {
    let shared = Shared { evaluator, mcts, config, opts, next: AtomicU64::new(0), counters };
    super::pool::run_pool(config.worker_count(), |tx, stop| worker_loop(&shared, stop, tx), on_game, on_tick)
}
