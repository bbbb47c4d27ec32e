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

use crate::check::ConfigError;

pub use worker::{Counters, RunOptions, play_plain, run};

crate::settings! {
    /// `[selfplay]`: how games are generated.
    #[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
    #[serde(deny_unknown_fields, default)]
    pub struct SelfplayConfig in "selfplay", about "Self-play: how games are generated." {
        /// Worker threads (0: one per CPU core).
        pub workers: usize = 0 => "worker threads (0: one per CPU core)", range(0, 1024);
        /// Games each worker keeps in flight; their leaves form one network batch.
        pub games_in_flight: usize = 64 => "games per worker; their leaves form one network batch", range(1, 65_536);
        /// Simulations of a full search (recorded as a policy target).
        pub full_sims: u32 = 100 => "simulations of a full search (recorded as a training target)", range(1, 1_000_000);
        /// Simulations of a fast search (played, not recorded as a target).
        pub fast_sims: u32 = 25 => "simulations of a fast search (played, not recorded)", range(1, 1_000_000);
        /// Probability that a move gets a full search (playout-cap randomisation).
        pub full_search_prob: f32 = 0.25 => "probability of a full search per move (playout-cap randomisation)", range(0.0, 1.0);
        /// Move-choice temperature at the first move...
        pub temperature_start: f32 = 1.0 => "move-choice temperature at the first move", range(0.0, 10.0);
        /// ...decaying towards this...
        pub temperature_end: f32 = 0.1 => "the temperature it decays towards", range(0.0, 10.0);
        /// ...halving its distance every this many plies.
        pub temperature_halflife: f32 = 15.0 => "plies that halve the distance between them", range(0.1, 10_000.0);
        /// A side resigns when its search value stays below this (-1 disables resignation).
        pub resign_threshold: f32 = -0.95 => "resign when the search value stays below this (-1 disables)", range(-1.0, 1.0);
        /// ...for this many of its consecutive moves.
        pub resign_consecutive: u32 = 3 => "...for this many of the side's consecutive moves", range(1, 1000);
        /// Fraction of games played out with resignation disabled, to measure false resignations.
        /// Draw adjudication is off in those games too.
        pub resign_playout_fraction: f32 = 0.1 => "fraction of games played out anyway, to measure false resigns", range(0.0, 1.0);
        /// From this ply on (0: never), a game whose search values stayed within
        /// ±`draw_value` for `draw_plies` consecutive plies ends as a draw (`Reason::Adjudication`):
        /// level shuffles stop before the ply cap.
        pub draw_after_plies: u32 = 0 => "self-play adjudicates a draw from this ply on (0: never)...", range(0, 100_000);
        pub draw_value: f32 = 0.1 => "...once the search values stayed within +- this...", range(0.0, 1.0);
        pub draw_plies: u32 = 40 => "...for this many consecutive plies (not in the games played out to measure resignations)", range(1, 100_000);
        /// Games per shard file.
        pub games_per_shard: usize = 32 => "games per shard file (a kill loses at most this many games)", range(1, 1_000_000);
        /// Keep the chosen move's subtree for the next search.
        pub tree_reuse: bool = true => "keep the chosen move's subtree for the next search";
        /// Weight of the handcrafted evaluation in the leaf values while the best network is
        /// generation 0 (see `selfplay::bootstrap`); 0 disables the blend.
        pub heuristic_weight: f32 = 0.0 => "leaf value = (1-w) x network + w x tanh(eval / scale) while the best network is young (0 disables; with teacher.games = 0, a pure zero run)", range(0.0, 1.0);
        /// The weight falls linearly to 0 once this many generations have been promoted.
        pub heuristic_generations: u32 = 10 => "w falls linearly to 0 over this many promoted generations", range(1, 1_000_000);
        /// Evaluation score (centi-units, a Dog is ~300) mapped to a value of tanh(1) ~ 0.76.
        pub heuristic_scale: f32 = 500.0 => "handcrafted score (a Dog ~ 300) giving tanh(1) = 0.76", range(1.0, 100_000.0);
        /// Once a game has this many plies the alpha-beta teacher plays both sides to the end,
        /// its moves recorded with teacher targets (0: never; see `teacher::Finisher`).
        pub finish_after_plies: u32 = 0 => "after this many plies the alpha-beta teacher plays both sides to the end, its moves recorded with teacher targets (0: never)", range(0, 100_000);
        /// Search depth of that teacher (each legal move scored to this depth).
        pub finish_depth: u32 = 4 => "...scoring every legal move with a search this deep", range(1, 32);
        /// Send the workers' batches to one inference thread that merges them into larger network
        /// calls (`mcts::server`); for GPUs, where only large batches are cheap per position.
        pub inference_server: bool = false => "workers send their batches to one inference thread that merges them into larger network calls (for GPUs; slower on the CPU)";
        /// The server calls the network once this many positions wait...
        pub inference_max_batch: usize = 4096 => "...which calls the network once this many positions wait...", range(1, 1 << 20);
        /// ...or once every worker has a batch waiting, or after this many microseconds.
        pub inference_wait_us: u64 = 1000 => "...or every worker has a batch waiting, or after this many us", range(0, 10_000_000);
    }
}

impl SelfplayConfig {
    pub fn validate(&self) -> Result<(), ConfigError> {
        crate::settings::Section::check_ranges(self)?;
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
