//! Model files (`.jzm`): the network's shape and provenance in a TOML header, then burn's
//! burnpack weights, with a CRC-32 over everything.
//!
//! `magic "JZNM" | version u16 | header length u32 | header (TOML) | weights length u64 |
//! weights (burnpack) | crc32 u32`. A loader refuses other magic numbers, unknown versions,
//! bad checksums and shapes that do not match the weights, naming the file and the reason.

use std::path::Path;

use burn::module::Module;
use burn::prelude::Device;
use burn::store::ModuleRecord;
use burn::tensor::Bytes;
use serde::{Deserialize, Serialize};

use super::model::{ModelConfig, Net};
use crate::jungle::Rules;
use crate::store::{self, StoreError};

pub const MODEL_MAGIC: [u8; 4] = *b"JZNM";
pub const MODEL_VERSION: u16 = 1;

/// What a model file says about itself.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ModelMeta {
    pub model: ModelConfig,
    /// The rules it was trained under (as `Rules` displays them).
    pub rules: String,
    /// A short name, e.g. `gen-0007` or `random-init`.
    pub id: String,
    pub generation: u64,
    pub train_steps: u64,
    /// Self-play games the run had produced when this network was written.
    #[serde(default)]
    pub games: u64,
    /// Unix time when it was written.
    #[serde(default)]
    pub created: f64,
    pub input_planes: usize,
    pub actions: usize,
}

#[derive(Debug, thiserror::Error)]
pub enum ModelFileError {
    #[error("{path}: not a junglezero model (bad magic number)")]
    BadMagic { path: String },
    #[error("{path}: model format version {version} is not supported (this build reads version {MODEL_VERSION})")]
    Version { path: String, version: u16 },
    #[error("{path}: checksum mismatch, the file is corrupt")]
    Checksum { path: String },
    #[error("{path}: the file is truncated")]
    Truncated { path: String },
    #[error("{path}: bad header: {message}")]
    Header { path: String, message: String },
    #[error("{path}: the weights do not fit the network described in the header: {message}")]
    Weights { path: String, message: String },
    #[error("{path}: this model has {found} input planes and {actions} actions; this build uses {expected} planes and 252 actions")]
    Incompatible { path: String, found: usize, expected: usize, actions: usize },
    #[error(transparent)]
    Store(#[from] StoreError),
}

/// The file's bytes for `net` with `meta`.
pub fn encode(net: &Net, meta: &ModelMeta) -> Result<Vec<u8>, String> {
    let header = toml::to_string(meta).map_err(|e| e.to_string())?;
    let weights = net.clone().into_record().into_bytes().map_err(|e| e.to_string())?;
    let mut out = Vec::with_capacity(weights.len() + header.len() + 32);
    out.extend_from_slice(&MODEL_MAGIC);
    out.extend_from_slice(&MODEL_VERSION.to_le_bytes());
    out.extend_from_slice(&(header.len() as u32).to_le_bytes());
    out.extend_from_slice(header.as_bytes());
    out.extend_from_slice(&(weights.len() as u64).to_le_bytes());
    out.extend_from_slice(&weights);
    let crc = crc32fast::hash(&out);
    out.extend_from_slice(&crc.to_le_bytes());
    Ok(out)
}

/// Saves atomically.
pub fn save(path: &Path, net: &Net, meta: &ModelMeta) -> Result<(), StoreError> {
    let bytes = encode(net, meta).map_err(|e| StoreError::new("cannot serialise model for", path, std::io::Error::other(e)))?;
    store::write_atomic(path, &bytes)
}

/// Splits and checks a model file's bytes: (meta, burnpack weights).
pub fn decode(bytes: &[u8], path: &str) -> Result<(ModelMeta, Vec<u8>), ModelFileError> {
    let p = || path.to_string();
    if bytes.len() < 4 || bytes[..4] != MODEL_MAGIC {
        return Err(ModelFileError::BadMagic { path: p() });
    }
    if bytes.len() < 22 {
        return Err(ModelFileError::Truncated { path: p() });
    }
    let version = u16::from_le_bytes([bytes[4], bytes[5]]);
    if version != MODEL_VERSION {
        return Err(ModelFileError::Version { path: p(), version });
    }
    let (body, tail) = bytes.split_at(bytes.len() - 4);
    if crc32fast::hash(body) != u32::from_le_bytes([tail[0], tail[1], tail[2], tail[3]]) {
        return Err(ModelFileError::Checksum { path: p() });
    }
    let hlen = u32::from_le_bytes([body[6], body[7], body[8], body[9]]) as usize;
    let wstart = 10 + hlen + 8;
    if body.len() < wstart {
        return Err(ModelFileError::Truncated { path: p() });
    }
    let header = std::str::from_utf8(&body[10..10 + hlen]).map_err(|_| ModelFileError::Header { path: p(), message: "not UTF-8".into() })?;
    let meta: ModelMeta = toml::from_str(header).map_err(|e| ModelFileError::Header { path: p(), message: e.message().to_string() })?;
    let wlen = u64::from_le_bytes(body[10 + hlen..wstart].try_into().map_err(|_| ModelFileError::Truncated { path: p() })?) as usize;
    if body.len() != wstart + wlen {
        return Err(ModelFileError::Truncated { path: p() });
    }
    if meta.input_planes != crate::jungle::encode::PLANES || meta.actions != crate::jungle::encode::ACTIONS {
        return Err(ModelFileError::Incompatible {
            path: p(),
            found: meta.input_planes,
            expected: crate::jungle::encode::PLANES,
            actions: meta.actions,
        });
    }
    meta.model.validate().map_err(|e| ModelFileError::Header { path: p(), message: e.to_string() })?;
    Ok((meta, body[wstart..].to_vec()))
}

/// Builds the network from a model file's parts on `device`.
pub fn build(meta: &ModelMeta, weights: Vec<u8>, device: &Device, path: &str) -> Result<Net, ModelFileError> {
    let record = ModuleRecord::from_bytes(Bytes::from_bytes_vec(weights))
        .map_err(|e| ModelFileError::Weights { path: path.into(), message: e.to_string() })?;
    meta.model
        .init(device)
        .try_load_record(record)
        .map_err(|e| ModelFileError::Weights { path: path.into(), message: one_line(&e.to_string()) })
}

fn one_line(s: &str) -> String {
    let s = s.replace('\n', " ");
    if s.len() > 300 { format!("{}...", &s[..300]) } else { s }
}

/// Reads only a model file's header (checksum verified).
pub fn read_meta(path: &Path) -> Result<ModelMeta, ModelFileError> {
    let bytes = store::read(path)?;
    Ok(decode(&bytes, &path.display().to_string())?.0)
}

/// Loads a model file onto `device`.
pub fn load(path: &Path, device: &Device) -> Result<(Net, ModelMeta), ModelFileError> {
    let name = path.display().to_string();
    let bytes = store::read(path)?;
    let (meta, weights) = decode(&bytes, &name)?;
    let net = build(&meta, weights, device, &name)?;
    Ok((net, meta))
}

/// Metadata for a fresh network.
pub fn fresh_meta(model: &ModelConfig, rules: &Rules, id: &str) -> ModelMeta {
    ModelMeta {
        model: model.clone(),
        rules: rules.to_string(),
        id: id.into(),
        generation: 0,
        train_steps: 0,
        games: 0,
        created: std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0.0, |d| d.as_secs_f64()),
        input_planes: crate::jungle::encode::PLANES,
        actions: crate::jungle::encode::ACTIONS,
    }
}
