//! Measurements of the network alone (`junglezero bench nn` and the raw half of `bench
//! selfplay`).

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Instant;

use crate::game::Turn;
use crate::nn::NetEvaluator;
use crate::trainable::Trainable;

/// `batch` encoded positions from one game played along fixed move choices (new games as
/// games end): inputs as the network sees them in play.
pub fn sample_inputs<G: Trainable>(rules: &G::Rules, batch: usize) -> Vec<f32> {
    let size = G::INPUT_SIZE;
    let mut inputs = vec![0.0f32; batch * size];
    let mut g = G::start_under(rules);
    let mut outcomes = Vec::new();
    for i in 0..batch {
        g.encode(&mut inputs[i * size..(i + 1) * size]);
        // Chance events (the flip game's reveals) take their first outcome.
        let next = if matches!(g.turn(), Turn::Chance) {
            g.chance_outcomes(&mut outcomes);
            outcomes.first().map(|o| o.0)
        } else {
            g.legal_moves().get(i % 5).copied()
        };
        if let Some(m) = next {
            g.play_unchecked(m);
        }
        if g.outcome().is_some() {
            g = G::start_under(rules);
        }
    }
    inputs
}

/// Positions per second for `threads` threads each running batches of `batch` through
/// `eval` for about `seconds` (after one warm-up batch).
pub fn raw_throughput<G: Trainable>(eval: &NetEvaluator, rules: &G::Rules, batch: usize, threads: usize, seconds: f64) -> f64 {
    let inputs = sample_inputs::<G>(rules, batch);
    let _ = eval.forward(&inputs, batch);
    let start = Instant::now();
    let done = AtomicU64::new(0);
    std::thread::scope(|s| {
        for _ in 0..threads.max(1) {
            s.spawn(|| {
                while start.elapsed().as_secs_f64() < seconds {
                    let _ = eval.forward(&inputs, batch);
                    done.fetch_add(batch as u64, Ordering::Relaxed);
                }
            });
        }
    });
    done.load(Ordering::Relaxed) as f64 / start.elapsed().as_secs_f64()
}
