//! The flip game's handcrafted leaf value for young networks (see
//! [`crate::selfplay::bootstrap`]).

use crate::flip::FlipGame;
use crate::selfplay::bootstrap::Heuristic;

/// The expectiminimax engine's material evaluation (already in (-1, 1)).
pub struct FlipHeuristic;

impl Heuristic<FlipGame> for FlipHeuristic {
    fn value(&self, state: &FlipGame) -> f32 {
        crate::alphabeta::flip::evaluate(state)
    }
}
