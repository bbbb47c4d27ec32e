//! Self-play throughput (`junglezero bench selfplay`): the batched workers for a fixed time
//! with any evaluator, counting what the evaluator was asked for.

use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

use super::SelfplayConfig;
use super::worker::{Counters, RunOptions, run};
use crate::mcts::{Evaluator, MctsConfig};
use crate::trainable::Trainable;

/// What the workers did in the time given.
#[derive(Clone, Copy, Debug, Default)]
pub struct SelfplayRate {
    pub evals: u64,
    pub batches: u64,
    pub moves: u64,
    pub games: u64,
    pub seconds: f64,
    /// Seconds spent inside the evaluator, summed over workers.
    pub eval_seconds: f64,
}

impl SelfplayRate {
    pub fn evals_per_second(&self) -> f64 {
        self.evals as f64 / self.seconds.max(1e-9)
    }

    /// Positions per evaluator call.
    pub fn mean_batch(&self) -> f64 {
        self.evals as f64 / self.batches.max(1) as f64
    }
}

/// Plays self-play games from the start position for about `seconds` (games in flight at the
/// end are dropped).
pub fn measure<G: Trainable, E: Evaluator<G>>(evaluator: &E, mcts: &MctsConfig, config: &SelfplayConfig, rules: G::Rules, seconds: f64) -> SelfplayRate {
    let counters = Counters::default();
    let deadline = Instant::now() + Duration::from_secs_f64(seconds);
    let opts = RunOptions { deadline: Some(deadline), ..RunOptions::<G>::from_start(u64::MAX, 7, "bench", &rules) };
    let start = Instant::now();
    if let Err(never) = run(evaluator, mcts, config, &opts, &counters, |_| Ok::<(), std::convert::Infallible>(()), || {}) {
        match never {}
    }
    SelfplayRate {
        evals: counters.evals.load(Ordering::Relaxed),
        batches: counters.batches.load(Ordering::Relaxed),
        moves: counters.moves.load(Ordering::Relaxed),
        games: counters.games.load(Ordering::Relaxed),
        seconds: start.elapsed().as_secs_f64(),
        eval_seconds: counters.eval_micros.load(Ordering::Relaxed) as f64 / 1e6,
    }
}
