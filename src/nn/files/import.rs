//! Importing a network written by [`super::export`] (or changed outside, in the same names and
//! shapes): `X.safetensors` with its `X.json` description back into a model file.

use std::path::{Path, PathBuf};

use burn::store::{ModuleSnapshot, PyTorchToBurnAdapter, SafetensorsStore};
use serde_json::Value;

use super::modelfile::ModelMeta;
use crate::nn::model::{ModelConfig, Net};
use crate::store;
use burn::prelude::Device;

#[derive(Debug, thiserror::Error)]
pub enum ImportError {
    #[error("{path}: {message}")]
    Read { path: String, message: String },
    #[error("{path}: {message}")]
    Description { path: String, message: String },
    #[error("{path}: the weights do not fit the network its description names: {message}")]
    Weights { path: String, message: String },
    #[error("{path}: {message}")]
    Values { path: String, message: String },
}

/// The description beside an export's weights (`X.safetensors` → `X.json`).
pub fn description_path(weights: &Path) -> Result<PathBuf, ImportError> {
    let s = weights.to_string_lossy();
    let base =
        s.strip_suffix(".safetensors").ok_or_else(|| ImportError::Read { path: s.to_string(), message: "the weights file must end in .safetensors".into() })?;
    Ok(PathBuf::from(format!("{base}.json")))
}

/// Reads `weights` (safetensors, PyTorch names and layout) and its description into a network
/// on `device` and the header of its model file. Every tensor of the network must be there in
/// its shape, nothing else may be, and every value must be finite.
pub fn import(weights: &Path, device: &Device) -> Result<(Net, ModelMeta), ImportError> {
    let json_path = description_path(weights)?;
    let jp = json_path.display().to_string();
    let describe = |message: String| ImportError::Description { path: jp.clone(), message };
    let text = store::read_text_capped(&json_path, store::caps::CONFIG, "export description")
        .map_err(|e| ImportError::Read { path: jp.clone(), message: e.to_string() })?;
    let d: Value = serde_json::from_str(&text).map_err(|e| describe(format!("not JSON: {e}")))?;
    if d["format"] != "junglezero-export" || d["format_version"] != super::export::EXPORT_FORMAT_VERSION {
        return Err(describe(format!("not a junglezero export of format version {}", super::export::EXPORT_FORMAT_VERSION)));
    }
    let game = d["game"].as_str().unwrap_or("");
    let shape = crate::registry::shape_named(game).ok_or_else(|| describe(format!("unknown game '{}'", crate::check::clip(game))))?;
    let m = &d["model"];
    let size = |key: &str, max: u64| match m[key].as_u64() {
        Some(v) if (1..=max).contains(&v) => Ok(v as usize),
        _ => Err(describe(format!("model.{key} must be a whole number from 1 to {max}"))),
    };
    let flag = |key: &str| m[key].as_bool().unwrap_or(false);
    let model = ModelConfig {
        blocks: size("blocks", 64)?,
        channels: size("channels", 1024)?,
        policy_channels: size("policy_channels", 1024)?,
        value_channels: size("value_channels", 1024)?,
        value_hidden: size("value_hidden", 4096)?,
        moves_left: flag("moves_left"),
        opponent_policy: flag("opponent_policy"),
        short_value: flag("short_value"),
    };
    let text_of = |v: &Value| v.as_str().unwrap_or("").to_string();
    let rules = text_of(&d["trained_rules"]);
    crate::registry::check_rules(game, &rules).map_err(|e| describe(format!("trained_rules: {e}")))?;
    // The rules of the samples: not kept in the model file, but an export names them, so
    // rules this build cannot read mean a description that is not one of its exports.
    let sample_rules = d["rules"].as_str().ok_or_else(|| describe("rules must be the rule switches of the samples, as text".into()))?;
    crate::registry::check_rules(game, sample_rules).map_err(|e| describe(format!("rules: {e}")))?;

    let wp = weights.display().to_string();
    let bytes = store::read_capped(weights, store::caps::MODEL, "weights file").map_err(|e| ImportError::Read { path: wp.clone(), message: e.to_string() })?;
    let needed = model.weight_count(shape) * 4;
    if (bytes.len() as u64) < needed {
        return Err(ImportError::Weights {
            path: wp,
            message: format!("{} bytes cannot hold a {} network (at least {needed})", bytes.len(), model.describe()),
        });
    }
    let mut net = model.init(shape, device);
    let mut st = SafetensorsStore::from_bytes(Some(bytes)).with_from_adapter(PyTorchToBurnAdapter);
    let applied = net.load_from(&mut st).map_err(|e| ImportError::Weights { path: wp.clone(), message: super::modelfile::one_line(&format!("{e}")) })?;
    let wrong = |what: &str, names: Vec<String>| ImportError::Weights {
        path: wp.clone(),
        message: super::modelfile::one_line(&format!("{what}: {}", names.join(", "))),
    };
    if !applied.errors.is_empty() {
        return Err(wrong("tensors of the wrong shape or type", applied.errors.iter().map(|e| format!("{e:?}")).collect()));
    }
    if !applied.missing.is_empty() {
        return Err(wrong("missing tensors", applied.missing.into_iter().map(|m| m.0).collect()));
    }
    if !applied.unused.is_empty() {
        return Err(wrong("tensors this network does not have", applied.unused));
    }
    if let Some(problem) = net.weights_problem() {
        return Err(ImportError::Values { path: wp, message: problem });
    }
    let count = |v: &Value| v.as_u64().unwrap_or(0);
    let meta = ModelMeta {
        game: game.to_string(),
        model,
        rules,
        id: Some(text_of(&m["id"])).filter(|s| !s.is_empty() && s.len() <= 64).unwrap_or_else(|| "imported".into()),
        run: Some(text_of(&m["run"])).filter(|s| s.len() <= 64).unwrap_or_default(),
        generation: count(&m["generation"]),
        train_steps: count(&m["train_steps"]),
        games: count(&m["games"]),
        created: std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0.0, |d| d.as_secs_f64()),
        input_planes: shape.planes,
        actions: shape.actions(),
    };
    Ok((net, meta))
}
