//! Evaluators that need no network, for tests and baselines: uniform priors with a zero value,
//! and uniform priors with the value of random playouts.

use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;

use super::{Evaluator, Outputs};
use crate::game::{Encode, Turn};

/// Uniform priors (all logits 0) and a constant value.
#[derive(Clone, Debug, Default)]
pub struct UniformEvaluator {
    pub value: f32,
}

impl<G: Encode> Evaluator<G> for UniformEvaluator {
    fn evaluate(&self, states: &[&G], _: &[f32], out: Outputs<'_>) {
        out.policy[..states.len() * G::ACTIONS].fill(0.0);
        out.value[..states.len()].fill(self.value);
        out.moves_left[..states.len()].fill(f32::NAN);
        out.draw[..states.len()].fill(f32::NAN);
    }

    fn name(&self) -> String {
        format!("uniform(value={})", self.value)
    }
}

/// Uniform priors; the value is the mean result of `playouts` random games from the position,
/// each cut off after `max_plies` plies (a draw). Seeded by the position, so deterministic.
#[derive(Clone, Debug)]
pub struct RolloutEvaluator {
    pub playouts: u32,
    pub max_plies: u32,
}

impl Default for RolloutEvaluator {
    fn default() -> Self {
        RolloutEvaluator { playouts: 4, max_plies: 200 }
    }
}

impl RolloutEvaluator {
    fn rollout_value<G: Encode>(&self, state: &G) -> f32 {
        // Search evaluates only states where a player is to move (it scores finished games
        // exactly and samples chance nodes itself).
        let Turn::Player(me) = state.turn() else { return 0.0 };
        let mut rng = ChaCha8Rng::seed_from_u64(state.input_hash());
        let mut total = 0.0;
        let mut g = state.clone();
        let mut outcomes = Vec::new();
        for _ in 0..self.playouts {
            g.clone_from(state);
            let mut plies = 0;
            let result = loop {
                match g.turn() {
                    Turn::Over(o) => break o.value_for(me),
                    _ if plies >= self.max_plies => break 0.0,
                    Turn::Player(_) => {
                        let moves = g.legal_moves();
                        g.play_unchecked(moves[rng.random_range(0..moves.len())]);
                    }
                    Turn::Chance => {
                        g.chance_outcomes(&mut outcomes);
                        let mut x: f32 = rng.random();
                        let mut pick = outcomes[0].0;
                        for &(m, p) in &outcomes {
                            pick = m;
                            x -= p;
                            if x <= 0.0 {
                                break;
                            }
                        }
                        g.play_unchecked(pick);
                    }
                }
                plies += 1;
            };
            total += result;
        }
        total / self.playouts.max(1) as f32
    }
}

impl<G: Encode> Evaluator<G> for RolloutEvaluator {
    fn evaluate(&self, states: &[&G], _: &[f32], out: Outputs<'_>) {
        out.policy[..states.len() * G::ACTIONS].fill(0.0);
        out.moves_left[..states.len()].fill(f32::NAN);
        out.draw[..states.len()].fill(f32::NAN);
        for (v, s) in out.value.iter_mut().zip(states) {
            *v = self.rollout_value(*s);
        }
    }

    fn name(&self) -> String {
        format!("rollout(playouts={})", self.playouts)
    }
}
