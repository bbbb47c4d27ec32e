//! `junglezero dump`: a run's training positions as NumPy arrays (`.npz`) with a JSON sidecar
//! describing them, for training code outside this project. The positions are the replay
//! window's (or the newest shards'), encoded exactly as the trainer feeds them.
//!
//! Arrays (N positions): `inputs` f32 `[N, planes, rows, cols]`, `policy` f32 `[N, actions]`
//! (the search's visit distribution), `legal` u8 `[N, actions]` (1 for each legal move's
//! action), `wdl` f32 `[N, 3]` (the game's result for the player to move: win, draw, loss),
//! `q` f32 `[N]` (the search's root value for the player to move), `result` i8 `[N]` (+1, 0, -1),
//! `ply` i32 `[N]` and `moves_left` i32 `[N]`. The sidecar names every plane, the action
//! layout, the rules and the source shards, and holds each position as text (a FEN for Jungle).

use std::path::{Path, PathBuf};

use ndarray::{Array1, Array2, Array4, Axis};
use serde::Serialize;

use super::TrainConfig;
use super::replay::{ShardSamples, load_shard};
use crate::selfplay::record::ShardError;
use crate::store::{self, StoreError};
use crate::trainable::Trainable;

/// Why a dump failed.
#[derive(Debug, thiserror::Error)]
pub enum DumpError {
    #[error("no game shards in {0}")]
    NoShards(PathBuf),
    #[error("the chosen shards hold no training positions")]
    Empty,
    #[error(transparent)]
    Shard(#[from] ShardError),
    #[error(transparent)]
    Store(#[from] StoreError),
    #[error("cannot write the sidecar {path}: {message}")]
    Sidecar { path: PathBuf, message: String },
}

/// What was written.
#[derive(Debug, Clone)]
pub struct DumpSummary {
    pub positions: usize,
    pub shards: usize,
    /// Games left out (other rules, or damaged).
    pub skipped_games: usize,
    pub sidecar: PathBuf,
}

/// Loads the shards to dump: the newest `last` of `shards` (sorted oldest first), or without
/// `last` the newest ones holding the trainer's window for all of them
/// (`TrainConfig::window_size` of their total). Returns them oldest first, with the games
/// skipped.
pub fn window_shards<G: Trainable>(
    shards: &[PathBuf],
    rules: &G::Rules,
    train: &TrainConfig,
    last: Option<usize>,
) -> Result<(Vec<ShardSamples<G>>, usize), DumpError> {
    let mut loaded = Vec::new();
    let mut skipped = 0;
    let take = last.unwrap_or(shards.len()).min(shards.len());
    for path in &shards[shards.len() - take..] {
        let (s, k) = load_shard::<G>(path, rules)?;
        skipped += k;
        loaded.push(s);
    }
    if last.is_none() {
        let total: usize = loaded.iter().map(|s| s.samples.len()).sum();
        let window = train.window_size(total);
        let (mut kept, mut first) = (0, loaded.len());
        while first > 0 && kept < window {
            first -= 1;
            kept += loaded[first].samples.len();
        }
        loaded.drain(..first);
    }
    Ok((loaded, skipped))
}

#[derive(Serialize)]
struct ArrayDoc {
    name: &'static str,
    dtype: &'static str,
    shape: Vec<usize>,
    meaning: &'static str,
}

#[derive(Serialize)]
struct Sidecar<'a> {
    format: &'static str,
    version: u32,
    game: &'static str,
    rules: String,
    positions: usize,
    input_shape: [usize; 3],
    actions: usize,
    planes: &'a [&'static str],
    action_layout: &'static str,
    arrays: Vec<ArrayDoc>,
    shards: Vec<String>,
    /// Each position as text, in array order.
    position_text: Vec<String>,
}

/// Writes the samples of `shards` to `out` (`.npz`) and its sidecar (`out` with `.json`), both
/// atomically. `shard_names` name the sources in the sidecar.
pub fn write_dump<G: Trainable>(
    shards: &[ShardSamples<G>],
    rules: &G::Rules,
    out: &Path,
    shard_names: Vec<String>,
    skipped_games: usize,
    force: bool,
) -> Result<DumpSummary, DumpError> {
    let path = out.with_extension("json");
    // Both files or neither, never over existing ones unless `force` (see `store::Outputs`).
    let mut files = store::Outputs::new(&[out, &path], force)?;
    let n: usize = shards.iter().map(|s| s.samples.len()).sum();
    if n == 0 {
        return Err(DumpError::Empty);
    }
    let shape = G::SHAPE;
    let actions = G::ACTIONS;
    let mut inputs = Array4::<f32>::zeros((n, shape.planes, shape.rows, shape.cols));
    let mut policy = Array2::<f32>::zeros((n, actions));
    let mut legal = Array2::<u8>::zeros((n, actions));
    let mut wdl = Array2::<f32>::zeros((n, 3));
    let mut q = Array1::<f32>::zeros(n);
    let mut result = Array1::<i8>::zeros(n);
    let mut ply = Array1::<i32>::zeros(n);
    let mut moves_left = Array1::<i32>::zeros(n);
    let mut texts = Vec::with_capacity(n);
    let mut i = 0;
    for shard in shards {
        for (k, s) in shard.samples.iter().enumerate() {
            let mut planes = inputs.index_axis_mut(Axis(0), i);
            let slot = planes.as_slice_mut().expect("a fresh array is contiguous");
            G::encode_snapshot(&s.snapshot, rules, slot);
            for &(a, p) in shard.target(k) {
                policy[[i, usize::from(a)]] += p;
            }
            let game = G::from_snapshot(&s.snapshot, rules);
            for &m in game.legal_moves().iter() {
                if let Some(a) = game.try_action(m) {
                    legal[[i, a]] = 1;
                }
            }
            texts.push(game.root_text());
            wdl[[i, usize::from(s.wdl.min(2))]] = 1.0;
            q[i] = s.q;
            result[i] = 1 - s.wdl.min(2) as i8;
            ply[i] = i32::from(s.ply);
            moves_left[i] = i32::from(s.moves_left);
            i += 1;
        }
    }
    files.add_with(out, |f| {
        let mut npz = ndarray_npy::NpzWriter::new(f);
        let add = |e: ndarray_npy::WriteNpzError| std::io::Error::other(e.to_string());
        npz.add_array("inputs", &inputs).map_err(add)?;
        npz.add_array("policy", &policy).map_err(add)?;
        npz.add_array("legal", &legal).map_err(add)?;
        npz.add_array("wdl", &wdl).map_err(add)?;
        npz.add_array("q", &q).map_err(add)?;
        npz.add_array("result", &result).map_err(add)?;
        npz.add_array("ply", &ply).map_err(add)?;
        npz.add_array("moves_left", &moves_left).map_err(add)?;
        npz.finish().map_err(add)?;
        Ok(())
    })?;
    let (planes, rows, cols) = (shape.planes, shape.rows, shape.cols);
    let arrays = vec![
        ArrayDoc {
            name: "inputs",
            dtype: "float32",
            shape: vec![n, planes, rows, cols],
            meaning: "the network's input planes, as the trainer encodes them (see planes)",
        },
        ArrayDoc {
            name: "policy",
            dtype: "float32",
            shape: vec![n, actions],
            meaning: "the policy target: the search's visit distribution over the actions (sums to 1, zero off legal actions)",
        },
        ArrayDoc {
            name: "legal",
            dtype: "uint8",
            shape: vec![n, actions],
            meaning: "1 for the action of each legal move (Jungle: ignoring the repetition rule, which needs the game's history)",
        },
        ArrayDoc { name: "wdl", dtype: "float32", shape: vec![n, 3], meaning: "the game's result for the player to move, one-hot: win, draw, loss" },
        ArrayDoc {
            name: "q",
            dtype: "float32",
            shape: vec![n],
            meaning: "the search's root value for the player to move, in [-1, 1] (the trainer mixes it into the value target by train.value_q_ratio)",
        },
        ArrayDoc { name: "result", dtype: "int8", shape: vec![n], meaning: "the game's result for the player to move: 1 win, 0 draw, -1 loss" },
        ArrayDoc { name: "ply", dtype: "int32", shape: vec![n], meaning: "plies played in the game before the position" },
        ArrayDoc { name: "moves_left", dtype: "int32", shape: vec![n], meaning: "plies from the position to the end of its game" },
    ];
    let sidecar = Sidecar {
        format: "junglezero-dump",
        version: 1,
        game: shape.game,
        rules: rules.to_string(),
        positions: n,
        input_shape: [planes, rows, cols],
        actions,
        planes: G::PLANE_NAMES,
        action_layout: G::ACTION_LAYOUT,
        arrays,
        shards: shard_names,
        position_text: texts,
    };
    let json = serde_json::to_vec_pretty(&sidecar).map_err(|e| DumpError::Sidecar { path: path.clone(), message: e.to_string() })?;
    files.add(&path, &json)?;
    files.commit()?;
    Ok(DumpSummary { positions: n, shards: shards.len(), skipped_games, sidecar: path })
}
