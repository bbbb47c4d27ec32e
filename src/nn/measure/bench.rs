//! Measurements of the network alone (`junglezero bench nn` and the raw half of `bench
//! selfplay`).

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Instant;

use crate::game::{Encode, Game};
use crate::jungle::JungleGame;
use crate::nn::NetEvaluator;

/// `batch` encoded positions from one game played along fixed move choices (new games as
/// games end): inputs as the network sees them in play.
pub fn sample_inputs(batch: usize) -> Vec<f32> {
    let size = JungleGame::INPUT_SIZE;
    let mut inputs = vec![0.0f32; batch * size];
    let mut g = JungleGame::default();
    for i in 0..batch {
        g.encode(&mut inputs[i * size..(i + 1) * size]);
        if let Some(&m) = g.legal_moves().get(i % 5) {
            g.play_unchecked(m);
        }
        if g.outcome().is_some() {
            g = JungleGame::default();
        }
    }
    inputs
}

/// Positions per second for `threads` threads each running batches of `batch` through
/// `eval` for about `seconds` (after one warm-up batch).
pub fn raw_throughput(eval: &NetEvaluator, batch: usize, threads: usize, seconds: f64) -> f64 {
    let inputs = sample_inputs(batch);
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
