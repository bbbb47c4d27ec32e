//! Exporting a network for other tools: `FILE.safetensors` (weights in PyTorch naming and
//! layout), `FILE.json` (architecture, input planes, action encoding, rules, format version)
//! and `FILE.samples.npz` (32 varied positions' input planes with junglezero's outputs), which
//! `scripts/verify_export.py` checks with numpy alone.

use std::path::{Path, PathBuf};

use burn::store::{BurnToPyTorchAdapter, ModuleSnapshot, SafetensorsStore};
use ndarray::{Array1, Array2, Array4};
use serde_json::json;

use super::modelfile::ModelMeta;
use crate::game::Encode;
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

fn write_err(path: &Path, e: impl std::fmt::Display) -> ExportError {
    ExportError::Write { path: path.display().to_string(), message: e.to_string() }
}

/// What an export says about one game: sample positions (encoded) and how its planes and
/// actions are laid out. Each game writes its own in its entry (`HouseGame::export`).
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
pub fn encode_all<G: Encode>(games: &[G]) -> Vec<f32> {
    let mut inputs = vec![0.0f32; games.len() * G::INPUT_SIZE];
    for (g, slot) in games.iter().zip(inputs.chunks_exact_mut(G::INPUT_SIZE)) {
        g.encode(slot);
    }
    inputs
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
