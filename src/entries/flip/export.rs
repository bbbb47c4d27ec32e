//! The flip game's part of a network's export (see [`crate::nn::files::export`]): its sample
//! positions and the layout of its planes and actions.

use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde_json::json;

use crate::flip::{FlipGame, FlipRules};
use crate::game::{Encode, Game, Turn};
use crate::nn::files::export::{GameExport, SAMPLES, encode_all};

/// 32 flip-game positions from seeded random games (nature's draws sampled too), the first
/// the all-face-down start, all with a player to move.
pub fn sample_positions(rules: &FlipRules, seed: u64) -> Vec<FlipGame> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut out = vec![FlipGame::start(*rules)];
    let mut outcomes = Vec::new();
    while out.len() < SAMPLES {
        let mut g = FlipGame::start(*rules);
        let plies = rng.random_range(1..60);
        for _ in 0..plies {
            match g.turn() {
                Turn::Over(_) => break,
                Turn::Chance => {
                    g.chance_outcomes(&mut outcomes);
                    g.play_unchecked(outcomes[rng.random_range(0..outcomes.len())].0);
                }
                Turn::Player(_) => {
                    let moves = g.legal_moves();
                    g.play_unchecked(moves[rng.random_range(0..moves.len())]);
                }
            }
        }
        if matches!(g.turn(), Turn::Player(_)) {
            out.push(g);
        }
    }
    out
}

/// The flip game's part of an export.
pub fn export(rules: &FlipRules) -> GameExport {
    let games = sample_positions(rules, 2026);
    let shape = FlipGame::SHAPE;
    GameExport {
        shape,
        inputs: encode_all(&games),
        positions: games.iter().map(crate::flip::position).collect(),
        rules: rules.to_string(),
        input: json!({
            "shape": [shape.planes, shape.rows, shape.cols],
            "layout": "NCHW float32; row 0 is rank 1 (Red's side), column 0 file a; the board is not turned. 'Mine' is the colour the player to move owns (Red before the first flip decides colours)",
            "planes": [
                "0-7: my face-up Rat, Cat, Dog, Wolf, Leopard, Tiger, Lion, Elephant",
                "8-15: the opponent's face-up pieces in the same order",
                "16: face-down squares", "17: face-down squares known to hold my colour (own_half)", "18: those known to hold the opponent's",
                "19-26: 1 over the whole plane while my animal of that kind is still face down",
                "27-34: the same for the opponent's animals",
                "35: colours decided", "36: plies since the last flip or capture / no_progress_plies (0 if off)",
                "37: dog_over_wolf", "38: no_move_loses",
            ],
        }),
        policy: json!({
            "size": shape.actions(),
            "encoding": "index = plane * 16 + square; square = (rank - 1) * 4 + file; plane 0 flips the square, planes 1-4 step from it up (towards rank 4), right, down, left; a pass (when it is the only move) is action 0",
            "output": "logits (softmax over the legal moves)",
        }),
    }
}
