//! Self-play: many games in flight per worker, their leaves batched into one network call.

pub mod bench;
pub mod bootstrap;
pub mod pool;
pub mod record;
pub mod shards;
pub mod slot;
pub mod stage;
pub mod teacher;
pub mod worker;

use serde::{Deserialize, Serialize};

use crate::check::{ConfigError, check_range};

pub use worker::{Counters, RunOptions, play_plain, run};

/// `[selfplay]`: how games are generated.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct SelfplayConfig {
    /// Worker threads (0: one per CPU core).
    pub workers: usize,
    /// Games each worker keeps in flight; their leaves form one network batch.
    pub games_in_flight: usize,
    /// Simulations of a full search (recorded as a policy target).
    pub full_sims: u32,
    /// Simulations of a fast search (played, not recorded as a target).
    pub fast_sims: u32,
    /// Probability that a move gets a full search (playout-cap randomisation).
    pub full_search_prob: f32,
    /// Move-choice temperature at the first move...
    pub temperature_start: f32,
    /// ...decaying towards this...
    pub temperature_end: f32,
    /// ...halving its distance every this many plies.
    pub temperature_halflife: f32,
    /// A side resigns when its search value stays below this (-1 disables resignation).
    pub resign_threshold: f32,
    /// ...for this many of its consecutive moves.
    pub resign_consecutive: u32,
    /// Fraction of games played out with resignation disabled, to measure false resignations.
    /// Draw adjudication is off in those games too.
    pub resign_playout_fraction: f32,
    /// From this ply on (0: never), a game whose search values stayed within
    /// ±`draw_value` for `draw_plies` consecutive plies ends as a draw (`Reason::Adjudication`):
    /// level shuffles stop before the ply cap.
    pub draw_after_plies: u32,
    pub draw_value: f32,
    pub draw_plies: u32,
    /// Games per shard file.
    pub games_per_shard: usize,
    /// Keep the chosen move's subtree for the next search.
    pub tree_reuse: bool,
    /// Weight of the handcrafted evaluation in the leaf values while the best network is
    /// generation 0 (see `selfplay::bootstrap`); 0 disables the blend.
    pub heuristic_weight: f32,
    /// The weight falls linearly to 0 once this many generations have been promoted.
    pub heuristic_generations: u32,
    /// Evaluation score (centi-units, a Dog is ~300) mapped to a value of tanh(1) ~ 0.76.
    pub heuristic_scale: f32,
    /// Once a game has this many plies the alpha-beta teacher plays both sides to the end,
    /// its moves recorded with teacher targets (0: never; see `teacher::Finisher`).
    pub finish_after_plies: u32,
    /// Search depth of that teacher (each legal move scored to this depth).
    pub finish_depth: u32,
    /// Send the workers' batches to one inference thread that merges them into larger network
    /// calls (`mcts::server`); for GPUs, where only large batches are cheap per position.
    pub inference_server: bool,
    /// The server calls the network once this many positions wait...
    pub inference_max_batch: usize,
    /// ...or once every worker has a batch waiting, or after this many microseconds.
    pub inference_wait_us: u64,
}

impl Default for SelfplayConfig {
    fn default() -> Self {
        SelfplayConfig {
            workers: 0,
            games_in_flight: 64,
            full_sims: 100,
            fast_sims: 25,
            full_search_prob: 0.25,
            temperature_start: 1.0,
            temperature_end: 0.1,
            temperature_halflife: 15.0,
            resign_threshold: -0.95,
            resign_consecutive: 3,
            resign_playout_fraction: 0.1,
            draw_after_plies: 0,
            draw_value: 0.1,
            draw_plies: 40,
            games_per_shard: 32,
            tree_reuse: true,
            heuristic_weight: 0.0,
            heuristic_generations: 10,
            heuristic_scale: 500.0,
            finish_after_plies: 0,
            finish_depth: 4,
            inference_server: false,
            inference_max_batch: 4096,
            inference_wait_us: 1000,
        }
    }
}

impl SelfplayConfig {
    pub fn validate(&self) -> Result<(), ConfigError> {
        check_range("selfplay.workers", self.workers, 0, 1024)?;
        check_range("selfplay.games_in_flight", self.games_in_flight, 1, 65_536)?;
        check_range("selfplay.full_sims", self.full_sims, 1, 1_000_000)?;
        check_range("selfplay.fast_sims", self.fast_sims, 1, 1_000_000)?;
        check_range("selfplay.full_search_prob", self.full_search_prob, 0.0, 1.0)?;
        check_range("selfplay.temperature_start", self.temperature_start, 0.0, 10.0)?;
        check_range("selfplay.temperature_end", self.temperature_end, 0.0, 10.0)?;
        check_range("selfplay.temperature_halflife", self.temperature_halflife, 0.1, 10_000.0)?;
        check_range("selfplay.resign_threshold", self.resign_threshold, -1.0, 1.0)?;
        check_range("selfplay.resign_consecutive", self.resign_consecutive, 1, 1000)?;
        check_range("selfplay.resign_playout_fraction", self.resign_playout_fraction, 0.0, 1.0)?;
        check_range("selfplay.draw_after_plies", self.draw_after_plies, 0, 100_000)?;
        check_range("selfplay.draw_value", self.draw_value, 0.0, 1.0)?;
        check_range("selfplay.draw_plies", self.draw_plies, 1, 100_000)?;
        check_range("selfplay.games_per_shard", self.games_per_shard, 1, 1_000_000)?;
        check_range("selfplay.heuristic_weight", self.heuristic_weight, 0.0, 1.0)?;
        check_range("selfplay.heuristic_generations", self.heuristic_generations, 1, 1_000_000)?;
        check_range("selfplay.heuristic_scale", self.heuristic_scale, 1.0, 100_000.0)?;
        check_range("selfplay.finish_after_plies", self.finish_after_plies, 0, 100_000)?;
        check_range("selfplay.finish_depth", self.finish_depth, 1, 32)?;
        check_range("selfplay.inference_max_batch", self.inference_max_batch, 1, 1 << 20)?;
        check_range("selfplay.inference_wait_us", self.inference_wait_us, 0, 10_000_000)?;
        Ok(())
    }

    /// The handcrafted evaluation's weight in the leaf values when the best network is
    /// generation `best`: `heuristic_weight`, falling linearly to 0 at `heuristic_generations`.
    pub fn heuristic_weight_for(&self, best: u64) -> f32 {
        let left = 1.0 - best as f64 / self.heuristic_generations as f64;
        (self.heuristic_weight as f64 * left.max(0.0)) as f32
    }

    /// The inference server's settings, when it is on.
    pub fn server_config(&self) -> Option<crate::mcts::server::ServerConfig> {
        self.inference_server.then(|| crate::mcts::server::ServerConfig {
            max_batch: self.inference_max_batch,
            max_wait: std::time::Duration::from_micros(self.inference_wait_us),
            clients: self.worker_count(),
        })
    }

    /// Worker threads to start.
    pub fn worker_count(&self) -> usize {
        if self.workers == 0 { std::thread::available_parallelism().map_or(1, |n| n.get()) } else { self.workers }
    }
}
