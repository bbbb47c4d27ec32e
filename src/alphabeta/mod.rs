//! The alpha-beta engine: the yardstick the arena measures networks against.

pub mod bench;
pub mod eval;
pub mod flip;
pub mod search;
pub mod tt;

use serde::{Deserialize, Serialize};

use crate::check::{ConfigError, check_memory, check_range};

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

/// `[search]`: the alpha-beta engine's settings.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct SearchConfig {
    /// Transposition table size in MiB.
    pub hash_mb: usize,
    /// Search threads sharing the table (lazy SMP).
    pub threads: usize,
    /// Deepest iteration when no other limit stops the search.
    pub max_depth: u32,
    /// Half-width of the first aspiration window, in centi-units.
    pub aspiration_window: i32,
    /// Null-move pruning.
    pub null_move: bool,
    /// Late-move reductions.
    pub lmr: bool,
    /// Time kept back per move for communication, in ms (clock-based searches).
    pub move_overhead_ms: u64,
}

impl Default for SearchConfig {
    fn default() -> Self {
        SearchConfig { hash_mb: 64, threads: 1, max_depth: 64, aspiration_window: 25, null_move: true, lmr: true, move_overhead_ms: 20 }
    }
}

impl SearchConfig {
    pub fn validate(&self) -> Result<(), ConfigError> {
        check_range("search.hash_mb", self.hash_mb, HASH_MB.0, HASH_MB.1)?;
        check_memory("search.hash_mb", (self.hash_mb as u128) << 20)?;
        check_range("search.threads", self.threads, 1, 512)?;
        check_range("search.max_depth", self.max_depth, 1, MAX_DEPTH)?;
        check_range("search.aspiration_window", self.aspiration_window, 1, 1000)?;
        check_range("search.move_overhead_ms", self.move_overhead_ms, 0, 10_000)?;
        Ok(())
    }
}
