//! The seam between search and the network: MCTS asks an [`Evaluator`] for priors and values in
//! batches and never sees what computes them (the burn network in `nn/`, or the evaluators in
//! [`super::testing`]).

use crate::game::Encode;

/// Evaluates a batch of positions: prior logits over the action space and a value.
///
/// `states[i]` is encoded in `inputs[i * G::INPUT_SIZE..]`. Implementations write
/// `policy[i * G::ACTIONS..][..G::ACTIONS]` (logits; illegal actions are ignored by the caller)
/// and `value[i]`, the expected result in [-1, 1] for the side to move in `states[i]`.
pub trait Evaluator<G: Encode>: Send + Sync {
    fn evaluate(&self, states: &[&G], inputs: &[f32], policy: &mut [f32], value: &mut [f32]);

    /// A short description for logs and records.
    fn name(&self) -> String;
}

impl<G: Encode, E: Evaluator<G> + ?Sized> Evaluator<G> for std::sync::Arc<E> {
    fn evaluate(&self, states: &[&G], inputs: &[f32], policy: &mut [f32], value: &mut [f32]) {
        (**self).evaluate(states, inputs, policy, value);
    }

    fn name(&self) -> String {
        (**self).name()
    }
}
