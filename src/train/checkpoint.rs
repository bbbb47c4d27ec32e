//! Trainer checkpoints (`train/checkpoint.jzc`): everything needed to continue exactly.
//!
//! `magic "JZCK" | version u16 | header length u32 | header (TOML) | weights length u64 |
//! weights (burnpack) | optimiser length u64 | optimiser state (burnpack) | crc32 u32`, framed
//! by [`crate::store::framed`].
//! The header holds the counters, the random generator's state, the replay-window manifest and
//! the model shape. Written atomically (temporary file, fsync, rename); a reader refuses a bad
//! magic number, an unknown version, a checksum mismatch or a shape that does not fit, with
//! one line naming the file and the reason.

use std::path::Path;

use burn::module::Module;
use burn::optim::{ModuleOptimizer, OptimizerRecord};
use burn::prelude::Device;
use burn::store::ModuleRecord;
use burn::tensor::Bytes;
use serde::{Deserialize, Serialize};

use super::TrainConfig;
use super::trainer::{Trainer, optimizer};
use crate::game::Shape;
use crate::nn::model::ModelConfig;
use crate::store::framed::{self, BodyReader, BodyWriter, Format, FrameError};
use crate::store::{self, StoreError};

/// The checkpoint file format.
pub const CHECKPOINT_FORMAT: Format = Format { magic: *b"JZCK", version: 1, what: "checkpoint" };

/// The counters and state around the weights.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CheckpointMeta {
    /// The game the run trains ("jungle" or "flip"; checkpoints written before the flip game
    /// read as "jungle").
    #[serde(default = "jungle")]
    pub game: String,
    pub model: ModelConfig,
    pub rules: String,
    /// The optimiser the state belongs to.
    pub optimizer: super::OptimizerKind,
    /// Optimiser steps taken.
    pub step: u64,
    /// Generations trained (the last candidate written is `gen-{iteration}`).
    pub iteration: u64,
    /// Training samples drawn so far.
    pub samples_trained: u64,
    /// Self-play games and samples read from the run so far.
    pub games_seen: u64,
    pub samples_seen: u64,
    /// The trainer's random generator: seed and position in its stream (decimal, it is 128-bit).
    #[serde(with = "crate::check::wide_u64")]
    pub rng_seed: u64,
    pub rng_word_pos: String,
    /// Shard files in the replay window, oldest first (relative to the run directory).
    pub window: Vec<String>,
    /// Shard files already read (relative to the run directory; a set, so that finding one
    /// is a lookup, not a scan of every shard the run has written).
    pub seen_shards: std::collections::BTreeSet<String>,
    /// The run's config when the checkpoint was written (TOML).
    #[serde(default)]
    pub config: String,
    /// The run's identity, written into every network it trains (`ModelMeta::run`), so that a
    /// network copied in from another run is told apart. Empty in runs created before
    /// identities; such a run gets one when it resumes.
    #[serde(default)]
    pub run_id: String,
}

#[derive(Debug, thiserror::Error)]
pub enum CheckpointError {
    #[error("{path}: {source}")]
    Frame { path: String, source: FrameError },
    #[error("{path}: bad checkpoint header: {message}")]
    Header { path: String, message: String },
    #[error("{path}: {message}")]
    Incompatible { path: String, message: String },
    /// The checkpoint trains another game or network shape than the config asks for: the
    /// config is not the run's (the checkpoint itself is sound).
    #[error("{path}: {message}")]
    Disagrees { path: String, message: String },
    #[error(transparent)]
    Store(#[from] StoreError),
}

/// Saves the trainer and `meta` atomically.
pub fn save(path: &Path, trainer: &Trainer, meta: &CheckpointMeta) -> Result<(), StoreError> {
    let fail = |m: String| StoreError::new("cannot serialise checkpoint", path, std::io::Error::other(m));
    let header = toml::to_string(meta).map_err(|e| fail(e.to_string()))?;
    let weights = trainer.synced_net().clone().into_record().into_bytes().map_err(|e| fail(e.to_string()))?;
    let optim = trainer.optim.into_bytes().map_err(|e| fail(e.to_string()))?;
    let mut out = framed::begin(&CHECKPOINT_FORMAT, weights.len() + optim.len() + header.len() + 32);
    out.put_bytes32(header.as_bytes());
    out.put_bytes64(&weights);
    out.put_bytes64(&optim);
    store::write_atomic(path, &framed::seal(out))
}

/// Reads and checks a checkpoint: (meta, weights bytes, optimiser bytes).
pub fn read(path: &Path) -> Result<(CheckpointMeta, Vec<u8>, Vec<u8>), CheckpointError> {
    let bytes = store::read_framed(path, &CHECKPOINT_FORMAT, store::caps::CHECKPOINT)?;
    decode(&bytes, &path.display().to_string())
}

/// Checks a checkpoint's bytes (`name` is used in errors): (meta, weights, optimiser state).
pub fn decode(bytes: &[u8], name: &str) -> Result<(CheckpointMeta, Vec<u8>, Vec<u8>), CheckpointError> {
    let name = name.to_string();
    let frame = |source| CheckpointError::Frame { path: name.clone(), source };
    let mut r = BodyReader::new(&CHECKPOINT_FORMAT, framed::open(&CHECKPOINT_FORMAT, bytes).map_err(frame)?);
    let header = r.str32().map_err(frame)?;
    let meta: CheckpointMeta = toml::from_str(header).map_err(|e| CheckpointError::Header { path: name.clone(), message: e.message().to_string() })?;
    let weights = r.bytes64().map_err(frame)?.to_vec();
    let optim = r.bytes64().map_err(frame)?.to_vec();
    r.finish().map_err(frame)?;
    Ok((meta, weights, optim))
}

fn jungle() -> String {
    "jungle".into()
}

/// Rebuilds a trainer for a game of `shape` on `device` (an autodiff device) from a checkpoint.
pub fn load(path: &Path, device: &Device, config: &TrainConfig, model: &ModelConfig, shape: Shape) -> Result<(Trainer, CheckpointMeta), CheckpointError> {
    let name = path.display().to_string();
    let (meta, weights, optim_bytes) = read(path)?;
    if meta.game != shape.game {
        return Err(CheckpointError::Disagrees { path: name, message: format!("the run trains the {} game but the config plays {}", meta.game, shape.game) });
    }
    if meta.model != *model {
        return Err(CheckpointError::Disagrees {
            path: name,
            message: format!("the run trains a {} network but the config asks for {}", meta.model.describe(), model.describe()),
        });
    }
    let bad = |m: String| CheckpointError::Incompatible { path: name.clone(), message: m };
    let record = ModuleRecord::from_bytes(Bytes::from_bytes_vec(weights)).map_err(|e| bad(e.to_string()))?;
    let net = model.init(shape, device).try_load_record(record).map_err(|e| bad(format!("weights do not fit: {e}")))?;
    if let Some(problem) = net.weights_problem() {
        return Err(bad(problem));
    }
    let optim: ModuleOptimizer = if meta.optimizer == config.optimizer {
        let record = OptimizerRecord::from_bytes(Bytes::from_bytes_vec(optim_bytes)).map_err(|e| bad(e.to_string()))?;
        optimizer(config).load_record(record)
    } else {
        tracing::warn!("{name}: the optimiser changed from {:?} to {:?}; starting its state afresh", meta.optimizer, config.optimizer);
        optimizer(config)
    };
    Ok((Trainer::new(net, optim, device.clone(), model, config, meta.step), meta))
}
