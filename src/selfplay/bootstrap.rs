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

use crate::alphabeta::eval::{Eval, EvalWeights};
use crate::game::Encode;
use crate::jungle::JungleGame;
use crate::jungle::Rules;
use crate::mcts::{Evaluator, Outputs};

/// A handcrafted value of a position in [-1, 1] for its player to move.
pub trait Heuristic<G>: Send + Sync {
    fn value(&self, state: &G) -> f32;
}

/// Jungle's: the alpha-beta engine's static evaluation through `tanh(eval / scale)`.
pub struct JungleHeuristic {
    eval: Eval,
    scale: f32,
}

impl JungleHeuristic {
    /// `scale` in the evaluation's centi-units.
    pub fn new(weights: &EvalWeights, rules: Rules, scale: f32) -> JungleHeuristic {
        JungleHeuristic { eval: Eval::new(weights, rules), scale }
    }
}

impl Heuristic<JungleGame> for JungleHeuristic {
    fn value(&self, state: &JungleGame) -> f32 {
        (self.eval.evaluate(state.position()) as f32 / self.scale).tanh()
    }
}

/// The flip game's: the expectiminimax engine's material evaluation (already in (-1, 1)).
pub struct FlipHeuristic;

impl Heuristic<crate::flip::FlipGame> for FlipHeuristic {
    fn value(&self, state: &crate::flip::FlipGame) -> f32 {
        crate::alphabeta::flip::evaluate(state)
    }
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mcts::baseline::UniformEvaluator;

    fn value_of(fen: &str, weight: f32) -> f32 {
        let rules = Rules::default();
        let g = JungleGame::from_fen(fen, rules).unwrap();
        let inner = UniformEvaluator::default();
        let h = JungleHeuristic::new(&EvalWeights::default(), rules, 500.0);
        let b = HeuristicBlend::new(&inner, Some(&h as &dyn Heuristic<JungleGame>), weight);
        let inputs = vec![0.0; JungleGame::INPUT_SIZE];
        let (mut p, mut v, mut m, mut d) = (vec![0.0; JungleGame::ACTIONS], vec![0.0; 1], vec![0.0; 1], vec![0.0; 1]);
        b.evaluate(&[&g], &inputs, Outputs { policy: &mut p, value: &mut v, moves_left: &mut m, draw: &mut d });
        v[0]
    }

    #[test]
    fn a_material_edge_raises_the_value_of_its_owner_only_in_proportion_to_the_weight() {
        // Red to move, Blue's Elephant is missing.
        let fen = "l5t/1d3c1/r1p1w2/7/7/7/E1W1P1R/1C3D1/T5L w";
        let (full, half, none) = (value_of(fen, 1.0), value_of(fen, 0.5), value_of(fen, 0.0));
        assert!(full > 0.8, "a whole Elephant up is nearly winning: {full}");
        assert!((half - full / 2.0).abs() < 1e-6, "{half} vs {full}");
        assert_eq!(none, 0.0, "weight 0 leaves the network's value alone");
        // The same position with Blue to move is bad for the side to move.
        let blue = "l5t/1d3c1/r1p1w2/7/7/7/E1W1P1R/1C3D1/T5L b";
        assert!(value_of(blue, 1.0) < -0.8);
    }
}
