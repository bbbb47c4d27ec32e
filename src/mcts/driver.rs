//! The one batched driver: many searches in flight, their leaves sent to the evaluators in
//! one call per evaluator and round. Self-play, batched matches, the MCTS player and the tests'
//! reference drivers all run their simulations through [`Batch::round`] (or [`round`] with
//! buffers of their own); what happens between rounds (playing moves, starting games) stays
//! with them.

use std::time::{Duration, Instant};

use super::search::{Leaf, Search, Step};
use crate::game::Encode;
use crate::mcts::cache::NnCache;
use crate::mcts::{Evaluator, Outputs};

/// Reusable input and output buffers for batches of up to `capacity` positions.
pub struct EvalBuffers {
    pub inputs: Vec<f32>,
    pub policy: Vec<f32>,
    pub value: Vec<f32>,
    pub moves_left: Vec<f32>,
    pub draw: Vec<f32>,
}

impl EvalBuffers {
    pub fn new<G: Encode>(capacity: usize) -> EvalBuffers {
        EvalBuffers {
            inputs: vec![0.0; capacity * G::INPUT_SIZE],
            policy: vec![0.0; capacity * G::ACTIONS],
            value: vec![0.0; capacity],
            moves_left: vec![f32::NAN; capacity],
            draw: vec![f32::NAN; capacity],
        }
    }

    /// The inputs of the first `n` positions and the outputs to write for them.
    pub fn split<G: Encode>(&mut self, n: usize) -> (&[f32], Outputs<'_>) {
        let out = Outputs {
            policy: &mut self.policy[..n * G::ACTIONS],
            value: &mut self.value[..n],
            moves_left: &mut self.moves_left[..n],
            draw: &mut self.draw[..n],
        };
        (&self.inputs[..n * G::INPUT_SIZE], out)
    }

    /// The outputs of position `k` of the last batch.
    pub fn result<G: Encode>(&self, k: usize) -> Leaf<'_> {
        Leaf { logits: &self.policy[k * G::ACTIONS..(k + 1) * G::ACTIONS], value: self.value[k], moves_left: self.moves_left[k], draw: self.draw[k] }
    }

    pub fn capacity<G: Encode>(&self) -> usize {
        self.value.len().min(self.inputs.len() / G::INPUT_SIZE.max(1))
    }
}

/// Something the driver keeps in flight: a game or a bare search, with one search per
/// evaluator it uses (a match between two networks has two).
pub trait InFlight<G: Encode> {
    /// Runs simulations until a leaf needs an evaluator and returns that evaluator's index (the
    /// leaf then waits in `search(index)`), or `None` when nothing is needed this round (the
    /// move's budget is spent, or the item is idle). `caches[e]` is evaluator `e`'s cache.
    fn gather(&mut self, caches: &mut [NnCache]) -> Option<usize>;

    /// The search fed by evaluator `e`.
    fn search(&self, e: usize) -> &Search<G>;

    fn search_mut(&mut self, e: usize) -> &mut Search<G>;
}

/// A bare search runs one simulation a round on evaluator 0.
impl<G: Encode> InFlight<G> for Search<G> {
    fn gather(&mut self, caches: &mut [NnCache]) -> Option<usize> {
        matches!(self.select(&mut caches[0]), Step::NeedsEval(_)).then_some(0)
    }

    fn search(&self, _: usize) -> &Search<G> {
        self
    }

    fn search_mut(&mut self, _: usize) -> &mut Search<G> {
        self
    }
}

/// What one round sent to the evaluators.
#[derive(Clone, Copy, Debug, Default)]
pub struct RoundStats {
    /// Positions evaluated.
    pub evals: usize,
    /// Evaluator calls (at most one per evaluator).
    pub batches: usize,
    /// Time spent inside the evaluators.
    pub eval_time: Duration,
}

/// One round: every item gathers (at most) one leaf, each evaluator gets its leaves in one
/// call, and the searches complete in item order. `caches`, `bufs` and `waiting` hold one entry
/// per evaluator; each buffer must hold as many positions as there are items.
pub fn round<G: Encode, T: InFlight<G>>(
    items: &mut [T],
    evaluators: &[&dyn Evaluator<G>],
    caches: &mut [NnCache],
    bufs: &mut [EvalBuffers],
    waiting: &mut [Vec<usize>],
) -> RoundStats {
    debug_assert!(caches.len() >= evaluators.len() && bufs.len() >= evaluators.len() && waiting.len() >= evaluators.len());
    for w in waiting.iter_mut() {
        w.clear();
    }
    for (i, item) in items.iter_mut().enumerate() {
        if let Some(e) = item.gather(caches) {
            let k = waiting[e].len();
            item.search(e).leaf_state().encode(&mut bufs[e].inputs[k * G::INPUT_SIZE..(k + 1) * G::INPUT_SIZE]);
            waiting[e].push(i);
        }
    }
    let mut stats = RoundStats::default();
    for (e, evaluator) in evaluators.iter().enumerate() {
        let n = waiting[e].len();
        if n == 0 {
            continue;
        }
        let start = Instant::now();
        let (inputs, out) = bufs[e].split::<G>(n);
        if n == 1 {
            // One leaf (the plain drivers, every simulation): no list to build.
            evaluator.evaluate(&[items[waiting[e][0]].search(e).leaf_state()], inputs, out);
        } else {
            let states: Vec<&G> = waiting[e].iter().map(|&i| items[i].search(e).leaf_state()).collect();
            evaluator.evaluate(&states, inputs, out);
        }
        stats.eval_time += start.elapsed();
        stats.evals += n;
        stats.batches += 1;
        for (k, &i) in waiting[e].iter().enumerate() {
            items[i].search_mut(e).complete(bufs[e].result::<G>(k), &mut caches[e]);
        }
    }
    stats
}

/// The driver with its own buffers: one cache, buffer and waiting list per evaluator.
pub struct Batch {
    pub caches: Vec<NnCache>,
    bufs: Vec<EvalBuffers>,
    waiting: Vec<Vec<usize>>,
}

impl Batch {
    /// For `evaluators` evaluators and up to `capacity` items, each evaluator with a cache of
    /// `cache_entries` entries.
    pub fn new<G: Encode>(evaluators: usize, capacity: usize, cache_entries: usize) -> Batch {
        Batch {
            caches: (0..evaluators).map(|_| NnCache::new(cache_entries, G::MAX_MOVES)).collect(),
            bufs: (0..evaluators).map(|_| EvalBuffers::new::<G>(capacity.max(1))).collect(),
            waiting: (0..evaluators).map(|_| Vec::with_capacity(capacity)).collect(),
        }
    }

    /// One round over `items` (see [`round`]).
    pub fn round<G: Encode, T: InFlight<G>>(&mut self, items: &mut [T], evaluators: &[&dyn Evaluator<G>]) -> RoundStats {
        round(items, evaluators, &mut self.caches, &mut self.bufs, &mut self.waiting)
    }

    /// Rounds over one item until it needs nothing more (its move's budget is spent).
    pub fn run_item<G: Encode, T: InFlight<G>>(&mut self, item: &mut T, evaluators: &[&dyn Evaluator<G>]) {
        while self.round(std::slice::from_mut(item), evaluators).evals > 0 {}
    }
}

/// Runs `sims` simulations on one search, evaluating each leaf on its own (the reference).
pub fn run_plain<G: Encode, E: Evaluator<G>>(search: &mut Search<G>, evaluator: &E, cache: &mut NnCache, sims: u32, buf: &mut EvalBuffers) {
    let mut waiting = [Vec::with_capacity(1)];
    for _ in 0..sims {
        round(std::slice::from_mut(search), &[evaluator], std::slice::from_mut(cache), std::slice::from_mut(buf), &mut waiting);
    }
}

/// Runs `sims` simulations on each search, all in lockstep: every round each search runs one
/// simulation, the leaves that need the network are evaluated in one batch, and the searches
/// complete. With deterministic evaluation every search does exactly what `run_plain` would.
pub fn run_batched<G: Encode, E: Evaluator<G>>(searches: &mut [Search<G>], evaluator: &E, cache: &mut NnCache, sims: u32, buf: &mut EvalBuffers) {
    let mut waiting = [Vec::with_capacity(searches.len())];
    for _ in 0..sims {
        round(searches, &[evaluator], std::slice::from_mut(cache), std::slice::from_mut(buf), &mut waiting);
    }
}
