//! The flip game in the benches: positions of seeded random games, and no root check (its
//! players search without one).

use std::sync::Arc;

use crate::config::Config;
use crate::flip::{FlipGame, FlipRules};
use crate::mcts::tactics::Tactics;

use crate::cmd::bench_game::{BenchGame, random_positions};

/// How many bench positions, and the seed of the games they come from.
const POSITIONS: usize = 24;
const SEED: u64 = 2026;

impl BenchGame for FlipGame {
    fn bench_roots(rules: &FlipRules) -> anyhow::Result<Vec<FlipGame>> {
        Ok(random_positions::<FlipGame>(rules, POSITIONS, SEED))
    }

    fn root_check(_config: &Config, _rules: &FlipRules, plies: u32) -> anyhow::Result<Option<Arc<dyn Tactics<FlipGame>>>> {
        if plies > 0 {
            anyhow::bail!("the flip game has no root check: --tactics must be 0");
        }
        Ok(None)
    }
}
