//! Monte-Carlo tree search with PUCT, generic over the game and the evaluator.

pub mod driver;
pub mod player;
pub mod search;
pub mod tree;

use serde::{Deserialize, Serialize};

use crate::config::{ConfigError, check_range};

pub use driver::{EvalBuffers, run_batched, run_plain};
pub use player::MctsPlayer;
pub use search::{Search, Step};

/// `[mcts]`: the tree search's settings (self-play, the arena and the protocol share them).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct MctsConfig {
    /// Exploration constant of PUCT.
    pub c_puct: f32,
    /// First-play urgency: an unvisited child is valued at the parent's value minus this times
    /// the square root of the policy mass already visited.
    pub fpu_reduction: f32,
    /// The same at the root (where noise wants wider exploration).
    pub fpu_reduction_root: f32,
    /// Softmax temperature applied to the policy logits.
    pub policy_temperature: f32,
    /// Dirichlet noise at the root of self-play searches: concentration...
    pub dirichlet_alpha: f32,
    /// ...and weight (0 disables).
    pub dirichlet_fraction: f32,
    /// Network cache entries per worker (0 disables the cache).
    pub cache_entries: usize,
    /// Simulations per move when playing (protocol, terminal play, arena) without a node or
    /// time limit.
    pub playouts: u32,
}

impl Default for MctsConfig {
    fn default() -> Self {
        MctsConfig {
            c_puct: 1.5,
            fpu_reduction: 0.25,
            fpu_reduction_root: 0.1,
            policy_temperature: 1.0,
            dirichlet_alpha: 0.4,
            dirichlet_fraction: 0.25,
            cache_entries: 1 << 16,
            playouts: 400,
        }
    }
}

impl MctsConfig {
    pub fn validate(&self) -> Result<(), ConfigError> {
        check_range("mcts.c_puct", self.c_puct, 0.0, 100.0)?;
        check_range("mcts.fpu_reduction", self.fpu_reduction, -2.0, 2.0)?;
        check_range("mcts.fpu_reduction_root", self.fpu_reduction_root, -2.0, 2.0)?;
        check_range("mcts.policy_temperature", self.policy_temperature, 0.05, 10.0)?;
        check_range("mcts.dirichlet_alpha", self.dirichlet_alpha, 0.001, 100.0)?;
        check_range("mcts.dirichlet_fraction", self.dirichlet_fraction, 0.0, 1.0)?;
        check_range("mcts.cache_entries", self.cache_entries, 0, 1 << 26)?;
        check_range("mcts.playouts", self.playouts, 1, 10_000_000)?;
        Ok(())
    }
}
