//! Exporting a network for other tools: `FILE.safetensors` (weights in PyTorch naming and
//! layout), `FILE.json` (architecture, input planes, action encoding, rules, format version)
//! and `FILE.samples.npz` (32 varied positions' input planes with junglezero's outputs), which
//! `scripts/verify_export.py` checks with numpy alone.

use std::path::{Path, PathBuf};

use burn::store::{BurnToPyTorchAdapter, ModuleSnapshot, SafetensorsStore};
use ndarray::{Array1, Array2, Array4};
use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde_json::json;

use super::modelfile::ModelMeta;
use crate::flip::{FlipGame, FlipRules};
use crate::game::{Encode, Game, Turn};
use crate::jungle::{JungleGame, Rules};
use crate::nn::NetEvaluator;
use crate::store::{self, StoreError};

/// Version of the exported description (`FILE.json`).
pub const EXPORT_FORMAT_VERSION: u32 = 1;
/// Positions in the samples file.
pub const SAMPLES: usize = 32;

#[derive(Debug, thiserror::Error)]
pub enum ExportError {
    #[error("{path}: the output must end in {wanted}")]
    Extension { path: String, wanted: &'static str },
    #[error("writing {path}: {message}")]
    Write { path: String, message: String },
    #[error(transparent)]
    Store(#[from] StoreError),
}

/// The three files of an export to `out` (`X.safetensors` → `X.json`, `X.samples.npz`).
pub fn export_paths(out: &Path) -> Result<(PathBuf, PathBuf, PathBuf), ExportError> {
    let s = out.to_string_lossy();
    let base = s.strip_suffix(".safetensors").ok_or_else(|| ExportError::Extension { path: s.to_string(), wanted: ".safetensors" })?;
    Ok((out.to_path_buf(), PathBuf::from(format!("{base}.json")), PathBuf::from(format!("{base}.samples.npz"))))
}

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

fn write_err(path: &Path, e: impl std::fmt::Display) -> ExportError {
    ExportError::Write { path: path.display().to_string(), message: e.to_string() }
}

/// 32 flip-game positions from seeded random games (nature's draws sampled too), the first
/// the all-face-down start, all with a player to move.
pub fn flip_sample_positions(rules: &FlipRules, seed: u64) -> Vec<FlipGame> {
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

/// What an export says about one game: sample positions (encoded) and how its planes and
/// actions are laid out.
pub struct GameExport {
    pub shape: crate::game::Shape,
    /// `SAMPLES` encodings.
    pub inputs: Vec<f32>,
    /// The sample positions as text (FEN, or the flip game's position string).
    pub positions: Vec<String>,
    pub rules: String,
    pub input: serde_json::Value,
    pub policy: serde_json::Value,
}

/// The encodings of `games`, one after another.
fn encode_all<G: Encode>(games: &[G]) -> Vec<f32> {
    let mut inputs = vec![0.0f32; games.len() * G::INPUT_SIZE];
    for (g, slot) in games.iter().zip(inputs.chunks_exact_mut(G::INPUT_SIZE)) {
        g.encode(slot);
    }
    inputs
}

/// Jungle's part of an export.
pub fn jungle_export(rules: &Rules) -> GameExport {
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

/// The flip game's part of an export.
pub fn flip_export(rules: &FlipRules) -> GameExport {
    let games = flip_sample_positions(rules, 2026);
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

/// Writes the export of `eval` (described by `meta`) to `out`, with `game`'s sample positions
/// and layout. Returns the three paths. The three files are written as one (see
/// [`store::Outputs`]): none replaces an existing file unless `force`, and a failure leaves
/// none of them behind.
pub fn export(eval: &NetEvaluator, meta: &ModelMeta, game: &GameExport, out: &Path, force: bool) -> Result<(PathBuf, PathBuf, PathBuf), ExportError> {
    let shape = game.shape;
    let (planes, rows, cols, actions) = (shape.planes, shape.rows, shape.cols, shape.actions());
    let (st_path, json_path, npz_path) = export_paths(out)?;
    let mut files = store::Outputs::new(&[&st_path, &json_path, &npz_path], force)?;
    // Weights: serialised in memory, then written as any output the user names.
    let mut store = SafetensorsStore::from_bytes(None).with_to_adapter(BurnToPyTorchAdapter);
    eval.net().clone().save_into(&mut store).map_err(|e| write_err(&st_path, format!("{e:?}")))?;
    let weights = store.get_bytes().map_err(|e| write_err(&st_path, format!("{e:?}")))?;
    files.add(&st_path, &weights)?;

    write_samples(eval, game, &npz_path, &mut files)?;

    // Description.
    let m = &meta.model;
    let description = json!({
        "format": "junglezero-export",
        "format_version": EXPORT_FORMAT_VERSION,
        "game": shape.game,
        "model": {
            "id": meta.id, "run": meta.run, "generation": meta.generation, "train_steps": meta.train_steps, "games": meta.games,
            "architecture": format!("residual tower; policy head 1x1 conv -> BN -> ReLU -> 1x1 conv with bias to {} channels; value head 1x1 conv -> BN -> ReLU -> flatten (C,H,W) -> linear -> ReLU -> linear to 3", shape.policy_planes),
            "blocks": m.blocks, "channels": m.channels, "policy_channels": m.policy_channels,
            "value_channels": m.value_channels, "value_hidden": m.value_hidden,
            "moves_left": m.moves_left,
            "opponent_policy": m.opponent_policy,
            "short_value": m.short_value,
            "batch_norm_epsilon": 1e-5,
            "convolutions": "3x3 with padding 1 in the stem and the blocks, no bias; 1x1 in the heads",
            "residual_block": "x + BN(conv(ReLU(BN(conv(x))))) then ReLU",
        },
        "weights": {
            "file": st_path.file_name().map(|f| f.to_string_lossy().into_owned()),
            "naming": "PyTorch: stem_conv.weight, stem_bn.{weight,bias,running_mean,running_var}, blocks.N.conv1/bn1/conv2/bn2, policy_conv, policy_bn, policy_out.{weight,bias}, value_conv, value_bn, value_fc1, value_fc2",
            "layout": "convolutions [out, in, kh, kw]; linear [out, in]",
        },
        "input": game.input,
        "policy": game.policy,
        "value": {"output": "3 logits: win, draw, loss for the side to move (softmax); value = P(win) - P(loss)"},
        "moves_left": if m.moves_left {
            json!({"weights": "moves_left.conv, moves_left.bn, moves_left.fc1, moves_left.fc2", "layers": "1x1 conv -> BN -> ReLU -> flatten (C,H,W) -> linear -> ReLU -> linear to 1 -> ReLU", "output": format!("plies to the end of the game / {}", crate::nn::model::MOVES_LEFT_UNIT)})
        } else {
            json!(null)
        },
        "opponent_policy": if m.opponent_policy {
            json!({"weights": "opponent_out.{weight,bias}", "layers": "1x1 conv with bias to the policy planes on the policy head's hidden layer (after its BN and ReLU)", "output": "logits of the opponent's reply in the policy's layout (a training target only; not exported in the samples)"})
        } else {
            json!(null)
        },
        "short_value": if m.short_value {
            json!({"weights": "short_value_out.{weight,bias}", "layers": "linear from the value head's hidden layer (after its ReLU) to 1, then tanh", "output": "discounted search values of the next plies (a training target only; not exported in the samples)"})
        } else {
            json!(null)
        },
        "rules": game.rules,
        "trained_rules": meta.rules,
        "samples": {
            "file": npz_path.file_name().map(|f| f.to_string_lossy().into_owned()),
            "arrays": {"inputs": [SAMPLES, planes, rows, cols], "policy_logits": [SAMPLES, actions], "wdl": [SAMPLES, 3], "value": [SAMPLES], "moves_left": if m.moves_left { json!([SAMPLES]) } else { json!(null) }},
            "fens": game.positions,
        },
    });
    let text = serde_json::to_string_pretty(&description).map_err(|e| write_err(&json_path, e))?;
    files.add(&json_path, text.as_bytes())?;
    files.commit()?;
    Ok((st_path, json_path, npz_path))
}

/// Writes `game`'s sample positions with `eval`'s outputs to `npz_path` (with a `moves_left`
/// array for networks with the head).
fn write_samples(eval: &NetEvaluator, game: &GameExport, npz_path: &Path, files: &mut store::Outputs) -> Result<(), ExportError> {
    let shape = game.shape;
    let (planes, rows, cols, actions) = (shape.planes, shape.rows, shape.cols, shape.actions());
    let inputs = game.inputs.clone();
    let out = eval.forward(&inputs, SAMPLES);
    let (policy, wdl) = (out.policy, out.wdl);
    let value: Vec<f32> = wdl.chunks(3).map(|w| w[0] - w[2]).collect();
    let has_moves_left = !out.moves_left.is_empty();
    let moves_left_arr = Array1::from_vec(out.moves_left);
    let inputs_arr = Array4::from_shape_vec((SAMPLES, planes, rows, cols), inputs).map_err(|e| write_err(npz_path, e))?;
    let policy_arr = Array2::from_shape_vec((SAMPLES, actions), policy).map_err(|e| write_err(npz_path, e))?;
    let wdl_arr = Array2::from_shape_vec((SAMPLES, 3), wdl).map_err(|e| write_err(npz_path, e))?;
    let value_arr = Array1::from_vec(value);
    let mut bytes = Vec::new();
    {
        let mut npz = ndarray_npy::NpzWriter::new(std::io::Cursor::new(&mut bytes));
        npz.add_array("inputs", &inputs_arr).map_err(|e| write_err(npz_path, e))?;
        npz.add_array("policy_logits", &policy_arr).map_err(|e| write_err(npz_path, e))?;
        npz.add_array("wdl", &wdl_arr).map_err(|e| write_err(npz_path, e))?;
        npz.add_array("value", &value_arr).map_err(|e| write_err(npz_path, e))?;
        if has_moves_left {
            npz.add_array("moves_left", &moves_left_arr).map_err(|e| write_err(npz_path, e))?;
        }
        npz.finish().map_err(|e| write_err(npz_path, e))?;
    }
    files.add(npz_path, &bytes)?;
    Ok(())
}

/// Writes `eval`'s network as ONNX to `out` (ending in .onnx; see `nn::files::onnx`) with the sample
/// positions and outputs beside it (`X.samples.npz`), both or neither, as [`export`] writes.
/// Returns both paths.
pub fn export_onnx(eval: &NetEvaluator, meta: &ModelMeta, game: &GameExport, out: &Path, force: bool) -> Result<(PathBuf, PathBuf), ExportError> {
    let s = out.to_string_lossy();
    let base = s.strip_suffix(".onnx").ok_or_else(|| ExportError::Extension { path: s.to_string(), wanted: ".onnx" })?;
    let npz_path = PathBuf::from(format!("{base}.samples.npz"));
    let mut files = store::Outputs::new(&[out, &npz_path], force)?;
    let doc = format!("junglezero {} network {} ({}), generation {}, rules: {}", meta.game, meta.id, meta.model.describe(), meta.generation, meta.rules);
    files.add(out, &super::onnx::onnx_model(eval.net(), &doc))?;
    write_samples(eval, game, &npz_path, &mut files)?;
    files.commit()?;
    Ok((out.to_path_buf(), npz_path))
}
