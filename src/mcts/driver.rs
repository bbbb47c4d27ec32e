//! Drivers that run simulations and feed leaves to an evaluator: one search at a time (batch of
//! one, the reference), or many searches at once with one network call per round.

use super::search::{Search, Step};
use crate::game::Encode;
use crate::mcts::{Evaluator, Outputs};
use crate::mcts::cache::NnCache;

/// Reusable input and output buffers for batches of up to `capacity` positions.
pub struct EvalBuffers {
    pub inputs: Vec<f32>,
    pub policy: Vec<f32>,
    pub value: Vec<f32>,
    pub moves_left: Vec<f32>,
}

impl EvalBuffers {
    pub fn new<G: Encode>(capacity: usize) -> EvalBuffers {
        EvalBuffers {
            inputs: vec![0.0; capacity * G::INPUT_SIZE],
            policy: vec![0.0; capacity * G::ACTIONS],
            value: vec![0.0; capacity],
            moves_left: vec![f32::NAN; capacity],
        }
    }

    /// The inputs of the first `n` positions and the outputs to write for them.
    pub fn split<G: Encode>(&mut self, n: usize) -> (&[f32], Outputs<'_>) {
        let out = Outputs {
            policy: &mut self.policy[..n * G::ACTIONS],
            value: &mut self.value[..n],
            moves_left: &mut self.moves_left[..n],
        };
        (&self.inputs[..n * G::INPUT_SIZE], out)
    }

    /// The outputs of position `k` of the last batch: (logits, value, moves left).
    pub fn result<G: Encode>(&self, k: usize) -> (&[f32], f32, f32) {
        (&self.policy[k * G::ACTIONS..(k + 1) * G::ACTIONS], self.value[k], self.moves_left[k])
    }

    pub fn capacity<G: Encode>(&self) -> usize {
        self.value.len().min(self.inputs.len() / G::INPUT_SIZE.max(1))
    }
}

/// Runs `sims` simulations on one search, evaluating each leaf on its own.
pub fn run_plain<G: Encode, E: Evaluator<G> + ?Sized>(
    search: &mut Search<G>,
    evaluator: &E,
    cache: &mut NnCache,
    sims: u32,
    buf: &mut EvalBuffers,
) {
    for _ in 0..sims {
        if let Step::NeedsEval(state) = search.select(cache) {
            state.encode(&mut buf.inputs[..G::INPUT_SIZE]);
            let (inputs, out) = buf.split::<G>(1);
            evaluator.evaluate(&[state], inputs, out);
            let (logits, value, moves_left) = buf.result::<G>(0);
            search.complete(logits, value, moves_left, cache);
        }
    }
}

/// Runs `sims` simulations on each search, all in lockstep: every round each search runs one
/// simulation, the leaves that need the network are evaluated in one batch, and the searches
/// complete. With deterministic evaluation every search does exactly what `run_plain` would.
pub fn run_batched<G: Encode, E: Evaluator<G> + ?Sized>(
    searches: &mut [Search<G>],
    evaluator: &E,
    cache: &mut NnCache,
    sims: u32,
    buf: &mut EvalBuffers,
) {
    let mut waiting: Vec<usize> = Vec::with_capacity(searches.len());
    for _ in 0..sims {
        waiting.clear();
        for (i, s) in searches.iter_mut().enumerate() {
            if let Step::NeedsEval(state) = s.select(cache) {
                let k = waiting.len();
                state.encode(&mut buf.inputs[k * G::INPUT_SIZE..(k + 1) * G::INPUT_SIZE]);
                waiting.push(i);
            }
        }
        evaluate_waiting(searches, &waiting, evaluator, cache, buf);
    }
}

/// Evaluates the pending leaves of `searches[waiting[..]]` (already encoded in order in
/// `buf.inputs`) in one call and completes them.
pub fn evaluate_waiting<G: Encode, E: Evaluator<G> + ?Sized>(
    searches: &mut [Search<G>],
    waiting: &[usize],
    evaluator: &E,
    cache: &mut NnCache,
    buf: &mut EvalBuffers,
) {
    let n = waiting.len();
    if n == 0 {
        return;
    }
    {
        let states: Vec<&G> = waiting.iter().map(|&i| searches[i].leaf_state()).collect();
        let (inputs, out) = buf.split::<G>(n);
        evaluator.evaluate(&states, inputs, out);
    }
    for (k, &i) in waiting.iter().enumerate() {
        let (logits, value, moves_left) = buf.result::<G>(k);
        searches[i].complete(logits, value, moves_left, cache);
    }
}
