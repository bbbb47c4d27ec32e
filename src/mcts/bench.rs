//! Tree-search speed without a network: searches from given roots with uniform priors and a
//! zero value (so the figures measure the tree, move generation and the driver alone), all
//! batched through the driver as self-play runs them. Its signature, a hash of every root's
//! visit counts, changes only when search behaviour does.

use std::time::Instant;

use super::baseline::UniformEvaluator;
use super::cache::NnCache;
use super::{EvalBuffers, MctsConfig, Search, run_batched};
use crate::game::Encode;

/// What [`run`] measured.
#[derive(Clone, Copy, Debug)]
pub struct MctsBench {
    /// Simulations run, over all roots.
    pub simulations: u64,
    pub seconds: f64,
    /// FNV-1a over each root's (visits, prior bits) per child, in move-generation order.
    pub signature: u64,
}

impl MctsBench {
    pub fn per_second(&self) -> f64 {
        self.simulations as f64 / self.seconds.max(1e-9)
    }
}

/// Runs `sims` simulations on a fresh search from each of `roots`, one leaf of every search per
/// round in one batch, with `config` minus root noise and with no network cache (every leaf is
/// expanded, as it would be when a network is cheap).
pub fn run<G: Encode>(roots: &[G], config: &MctsConfig, sims: u32) -> MctsBench {
    let config = MctsConfig { dirichlet_fraction: 0.0, ..config.clone() };
    let mut searches: Vec<Search<G>> = roots.iter().enumerate().map(|(i, g)| Search::new(g.clone(), &config, i as u64)).collect();
    let mut cache = NnCache::new(0, G::MAX_MOVES);
    let mut buf = EvalBuffers::new::<G>(roots.len().max(1));
    let start = Instant::now();
    run_batched(&mut searches, &UniformEvaluator::default(), &mut cache, sims, &mut buf);
    let seconds = start.elapsed().as_secs_f64();
    let mut signature = 0xcbf2_9ce4_8422_2325u64;
    let mut mix = |x: u64| {
        for b in x.to_le_bytes() {
            signature = (signature ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3);
        }
    };
    for s in &searches {
        for (_, visits, prior, _) in s.root_children() {
            mix(u64::from(visits));
            mix(u64::from(prior.to_bits()));
        }
    }
    MctsBench { simulations: u64::from(sims) * roots.len() as u64, seconds, signature }
}
