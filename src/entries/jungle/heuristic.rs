//! Jungle's handcrafted leaf value for young networks (see [`crate::selfplay::bootstrap`]): the
//! alpha-beta engine's static evaluation through `tanh(eval / scale)`.

use crate::alphabeta::eval::{Eval, EvalWeights};
use crate::jungle::{JungleGame, Rules};
use crate::selfplay::bootstrap::Heuristic;

/// The alpha-beta engine's static evaluation through `tanh(eval / scale)`.
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::Encode;
    use crate::mcts::baseline::UniformEvaluator;
    use crate::mcts::{Evaluator, Outputs};
    use crate::selfplay::bootstrap::HeuristicBlend;

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
