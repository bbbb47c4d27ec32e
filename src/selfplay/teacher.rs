//! Games played by the alpha-beta engine to teach the first network (the warm start of expert
//! iteration).
//!
//! A network trained from random weights has to discover captures and den attacks by itself
//! before its games teach it anything. The shipped alpha-beta engine already knows them, and it
//! is cheap: scoring every root move by a shallow search costs a few thousand nodes. So before
//! the first self-play generation, `train` can have the engine play `[teacher] games` games and
//! record, for every position, a policy target `softmax(score / policy_temperature)` over the
//! scores of all legal moves and the value `tanh(best score / value_scale)`. They are written as
//! ordinary game shards (the target as integer "visits" per move, the value as the root value),
//! so the replay window, training, resume and reports treat them like any other games; after the
//! first generations the window fills with self-play and the teacher's games leave it.

//!
//! This module holds what any game's teacher shares: the `[teacher]` settings, the shards'
//! prefix and the value of a score. Jungle's teacher, the alpha-beta engine's games, is in its
//! entry (`crate::entries::jungle::teacher`).

use serde::{Deserialize, Serialize};

use crate::alphabeta::WIN_BOUND;
use crate::check::ConfigError;

/// Prefix of the shard files holding teacher games (the run directory's games/).
pub const SHARD_PREFIX: &str = "teacher";

/// Sum of the integer "visits" a policy target is written as.
pub const TARGET_TOTAL: f32 = 1000.0;

crate::settings! {
    /// `[teacher]`: alpha-beta games that train the first network.
    #[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
    #[serde(deny_unknown_fields, default)]
    pub struct TeacherConfig in "teacher", about "The teacher: before the first generation the alpha-beta engine plays games whose positions train the first network (policy: softmax of every legal move's score; value: tanh of the best score). Self-play takes over from generation 2 and the teacher's games leave the window as self-play fills it. games = 0 (with selfplay.heuristic_weight = 0) trains from scratch." {
        /// Games the engine plays before the first self-play generation (0: none, a pure zero run).
        pub games: u64 = 1200 => "alpha-beta games before the first generation (0: none)", range(0, 100_000_000);
        /// Each legal move is scored by a search this deep (the reply searched to `depth - 1`).
        pub depth: u32 = 6 => "each legal move scored by a search this deep", range(1, 32);
        /// Policy target: softmax of the move scores divided by this (centi-units).
        pub policy_temperature: f32 = 50.0 => "policy target: softmax(score / this), scores in centi-units", range(1.0, 100_000.0);
        /// Moves played: sampled from the softmax of the scores divided by this (centi-units)...
        pub play_temperature: f32 = 50.0 => "moves played: sampled from softmax(score / this)...", range(1.0, 100_000.0);
        /// ...for this many plies after the opening, then the best-scored move.
        pub sample_plies: u32 = 20 => "...for this many plies after the opening, then the best move", range(0, 10_000);
        /// Random plies opening each game (not recorded as targets).
        pub opening_plies: u32 = 4 => "random plies opening each game (not training targets)", range(0, 100);
        /// Value target: tanh(best score / this).
        pub value_scale: f32 = 500.0 => "value target: tanh(best score / this)", range(1.0, 100_000.0);
        /// Transposition table of each teacher thread, MiB.
        pub hash_mb: usize = 16 => "transposition table per teacher thread (MiB)", range(1, 1 << 16);
    }
}

impl TeacherConfig {
    pub fn validate(&self) -> Result<(), ConfigError> {
        crate::settings::Section::check_ranges(self)?;
        Ok(())
    }
}

/// The value of an alpha-beta score (side to move) in [-1, 1]: forced results are ±1.
pub fn score_value(score: i32, scale: f32) -> f32 {
    if score >= WIN_BOUND {
        1.0
    } else if score <= -WIN_BOUND {
        -1.0
    } else {
        (score as f32 / scale).tanh()
    }
}
