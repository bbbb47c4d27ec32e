//! Leaf values blended with the handcrafted evaluation while the network is young.
//!
//! An untrained network values every position about the same, so its self-play games drift
//! until the no-capture rule draws them: nothing to learn from. For the first generations the
//! leaf value is therefore `(1 − w) · network + w · tanh(eval / scale)`, with `eval` the alpha-beta
//! engine's static evaluation, so that captures and den attacks happen and games end decisively.
//! The weight falls linearly to zero as the network gets promoted (see
//! [`SelfplayConfig::heuristic_weight_for`](super::SelfplayConfig::heuristic_weight_for)); gating
//! and the arena always play the bare network.

use std::marker::PhantomData;

use crate::game::Encode;
use crate::mcts::{Evaluator, Outputs};

/// A handcrafted value of a position in [-1, 1] for its player to move (each game's is in its
/// entry, `crate::entries`).
pub trait Heuristic<G>: Send + Sync {
    fn value(&self, state: &G) -> f32;
}

pub struct HeuristicBlend<'a, G, E: ?Sized> {
    inner: &'a E,
    heuristic: Option<&'a dyn Heuristic<G>>,
    weight: f32,
    game: PhantomData<fn(&G)>,
}

impl<'a, G: Encode, E: Evaluator<G> + ?Sized> HeuristicBlend<'a, G, E> {
    /// `weight` in [0, 1] (no blend without a heuristic).
    pub fn new(inner: &'a E, heuristic: Option<&'a dyn Heuristic<G>>, weight: f32) -> Self {
        let weight = if heuristic.is_some() { weight } else { 0.0 };
        HeuristicBlend { inner, heuristic, weight, game: PhantomData }
    }
}

impl<G: Encode, E: Evaluator<G> + ?Sized> Evaluator<G> for HeuristicBlend<'_, G, E> {
    fn evaluate(&self, states: &[&G], inputs: &[f32], mut out: Outputs<'_>) {
        self.inner.evaluate(states, inputs, out.reborrow());
        if let Some(h) = self.heuristic.filter(|_| self.weight > 0.0) {
            for (v, s) in out.value.iter_mut().zip(states) {
                *v = (1.0 - self.weight) * *v + self.weight * h.value(s);
            }
        }
    }

    fn name(&self) -> String {
        format!("{} + {:.2} x handcrafted eval", self.inner.name(), self.weight)
    }
}
