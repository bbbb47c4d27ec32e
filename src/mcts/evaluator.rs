//! The seam between search and the network: MCTS asks an [`Evaluator`] for priors and values in
//! batches and never sees what computes them (the burn network in `nn/`, or the evaluators in
//! [`super::baseline`]).

use crate::game::Encode;

/// Where an evaluator writes a batch's results.
///
/// For position `i`: `policy[i * G::ACTIONS..][..G::ACTIONS]` (logits; illegal actions are
/// ignored by the caller), `value[i]`, the expected result in [-1, 1] for the side to move, and
/// `moves_left[i]`, the expected plies to the end of the game, or NaN from an evaluator that
/// does not predict it (search then ignores moves left), and `draw[i]`, the probability of a
/// draw, or NaN from an evaluator that does not predict it (reports then show none).
pub struct Outputs<'a> {
    pub policy: &'a mut [f32],
    pub value: &'a mut [f32],
    pub moves_left: &'a mut [f32],
    pub draw: &'a mut [f32],
}

impl Outputs<'_> {
    /// The same slices, for a nested call.
    pub fn reborrow(&mut self) -> Outputs<'_> {
        Outputs { policy: self.policy, value: self.value, moves_left: self.moves_left, draw: self.draw }
    }
}

/// Evaluates a batch of positions: prior logits over the action space, a value and (optionally)
/// the plies left. `states[i]` is encoded in `inputs[i * G::INPUT_SIZE..]`.
pub trait Evaluator<G: Encode>: Send + Sync {
    fn evaluate(&self, states: &[&G], inputs: &[f32], out: Outputs<'_>);

    /// A short description for logs and records.
    fn name(&self) -> String;
}

impl<G: Encode, E: Evaluator<G> + ?Sized> Evaluator<G> for std::sync::Arc<E> {
    fn evaluate(&self, states: &[&G], inputs: &[f32], out: Outputs<'_>) {
        (**self).evaluate(states, inputs, out);
    }

    fn name(&self) -> String {
        (**self).name()
    }
}
