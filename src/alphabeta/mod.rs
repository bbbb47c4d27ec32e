//! The alpha-beta engine: the yardstick the arena measures networks against.

pub mod bench;
pub mod eval;
pub mod flip;
pub mod level;
pub mod search;
pub mod tt;

use serde::{Deserialize, Serialize};

use crate::check::{ConfigError, check_memory};

pub use crate::player::Limits;
pub use eval::{Eval, EvalWeights};
pub use search::{Engine, Info, Score, SearchResult};

/// Larger than any score.
pub const INF: i32 = 32_000;
/// The score of a win on the board now; a win in `n` plies scores `WIN - n`.
pub const WIN: i32 = 31_000;
/// Scores at least this far from zero are forced results.
pub const WIN_BOUND: i32 = WIN - 1_000;

/// The deepest search a setting or a player may ask for, in plies (the engine's tables hold
/// `search::MAX_PLY` plies, with room for extensions beyond the nominal depth).
pub const MAX_DEPTH: u32 = 88;
/// The transposition table's size range in MiB (also checked against the machine's memory).
pub const HASH_MB: (usize, usize) = (1, 1 << 20);

crate::settings! {
    /// `[search]`: the alpha-beta engine's settings.
    #[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
    #[serde(deny_unknown_fields, default)]
    pub struct SearchConfig in "search", about "The alpha-beta engine (the arena's yardstick, `search`, `play`, the protocol's default)." {
        /// Transposition table size in MiB.
        pub hash_mb: usize = 64 => "transposition table size in MiB", range(HASH_MB.0, HASH_MB.1), option("Hash");
        /// Search threads sharing the table (lazy SMP).
        pub threads: usize = 1 => "search threads sharing the table", range(1, 256), option("Threads");
        /// Deepest iteration when no other limit stops the search.
        pub max_depth: u32 = 64 => "deepest iteration without another limit", range(1, MAX_DEPTH);
        /// Half-width of the first aspiration window, in centi-units.
        pub aspiration_window: i32 = 25 => "first aspiration half-width (centi-units)", range(1, 1000);
        /// Null-move pruning.
        pub null_move: bool = true => "null-move pruning";
        /// Late-move reductions.
        pub lmr: bool = true => "late-move reductions";
        /// Time kept back per move for communication, in ms (clock-based searches).
        pub move_overhead_ms: u64 = 20 => "time kept back per move under a clock", range(0, 10_000);
    }
}

impl SearchConfig {
    pub fn validate(&self) -> Result<(), ConfigError> {
        crate::settings::Section::check_ranges(self)?;
        check_memory("search.hash_mb", (self.hash_mb as u128) << 20)?;
        Ok(())
    }
}
