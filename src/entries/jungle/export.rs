//! Jungle's part of a network's export (see [`crate::nn::files::export`]): its sample positions
//! and the layout of its planes and actions.

use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde_json::json;

use crate::game::{Encode, Game};
use crate::jungle::{JungleGame, Rules};
use crate::nn::files::export::{GameExport, SAMPLES, encode_all};

/// 32 positions from seeded random games: both sides to move, openings to endgames, some
/// repeated positions, under `rules`.
pub fn sample_positions(rules: &Rules, seed: u64) -> Vec<JungleGame> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut out = vec![JungleGame::start(*rules)];
    while out.len() < SAMPLES {
        let mut g = JungleGame::start(*rules);
        let plies = rng.random_range(1..160);
        for _ in 0..plies {
            if g.outcome().is_some() {
                break;
            }
            let moves = g.legal_moves();
            // Sometimes step back and forth so repetition planes are exercised.
            let undo =
                g.moves().len().checked_sub(2).map(|i| g.moves()[i]).and_then(|m| moves.iter().copied().find(|c| c.from() == m.to() && c.to() == m.from()));
            let m = match undo {
                Some(u) if rng.random_bool(0.3) => u,
                _ => moves[rng.random_range(0..moves.len())],
            };
            g.play_move_unchecked(m);
        }
        if g.outcome().is_none() {
            out.push(g);
        }
    }
    out
}

/// Jungle's part of an export.
pub fn export(rules: &Rules) -> GameExport {
    let games = sample_positions(rules, 2026);
    let shape = JungleGame::SHAPE;
    GameExport {
        shape,
        inputs: encode_all(&games),
        positions: games.iter().map(|g| g.fen()).collect(),
        rules: rules.to_string(),
        input: json!({
            "shape": [shape.planes, shape.rows, shape.cols],
            "layout": "NCHW float32; row 0 is the side to move's home rank, column 0 its left; the board is turned 180 degrees when Blue is to move",
            "planes": [
                "0-7: own Rat, Cat, Dog, Wolf, Leopard, Tiger, Lion, Elephant",
                "8-15: opponent's pieces in the same order",
                "16: water", "17: own traps", "18: enemy traps", "19: own den", "20: enemy den",
                "21: 1 if the position occurred before",
                "22: plies since the last capture / no_capture_plies (0 if off)",
                "23: plies played / max_plies (0 if no cap)",
                "24: dog_over_wolf", "25: rat_captures_across_shore", "26: elephant_takes_trapped_rat",
                "27: repetition = draw", "28: repetition = off",
            ],
        }),
        policy: json!({
            "size": shape.actions(),
            "encoding": "index = direction * 63 + square, both in the mover's frame; square = row * 7 + column; directions 0 up (towards the enemy den), 1 right, 2 down, 3 left; a Lion or Tiger river jump is the action of its direction",
            "output": "logits (softmax over the legal moves)",
        }),
    }
}
