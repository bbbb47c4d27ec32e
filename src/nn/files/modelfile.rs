//! Model files (`.jzm`): the network's shape and provenance in a TOML header, then burn's
//! burnpack weights, with a CRC-32 over everything.
//!
//! `magic "JZNM" | version u16 | header length u32 | header (TOML) | weights length u64 |
//! weights (burnpack) | crc32 u32`, framed by [`crate::store::framed`]. A loader refuses other
//! magic numbers, unknown versions, bad checksums and shapes that do not match the weights,
//! naming the file and the reason.

use std::path::Path;

use burn::module::Module;
use burn::prelude::Device;
use burn::store::ModuleRecord;
use burn::tensor::Bytes;
use serde::{Deserialize, Serialize};

use crate::game::Shape;
use crate::nn::model::{ModelConfig, Net};
use crate::registry;
use crate::store::framed::{self, BodyReader, BodyWriter, Format, FrameError};
use crate::store::{self, StoreError};

/// The model file format.
pub const MODEL_FORMAT: Format = Format { magic: *b"JZNM", version: 1, what: "model" };

/// What a model file says about itself.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ModelMeta {
    /// The game it plays ("jungle" or "flip"; files written before the flip game existed
    /// read as "jungle").
    #[serde(default = "jungle")]
    pub game: String,
    pub model: ModelConfig,
    /// The rules it was trained under (as the game's rules display them).
    pub rules: String,
    /// A short name, e.g. `gen-0007` or `random-init`.
    pub id: String,
    /// The identity of the run that trained it (its trainer checkpoint's `run_id`; empty for a
    /// network made outside a run, or by a build older than run identities).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub run: String,
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
    #[error("{path}: {source}")]
    Frame { path: String, source: FrameError },
    #[error("{path}: bad header: {message}")]
    Header { path: String, message: String },
    #[error("{path}: the weights do not fit the network described in the header: {message}")]
    Weights { path: String, message: String },
    #[error("{path}: {message}")]
    Values { path: String, message: String },
    #[error("{path}: this {game} model has {found} input planes and {actions} actions; this build's {game} network has {planes} planes and {wanted} actions")]
    Incompatible { path: String, game: String, found: usize, actions: usize, planes: usize, wanted: usize },
    #[error("{path}: this is a model of the {found} game; this command plays {expected}")]
    WrongGame { path: String, found: String, expected: String },
    #[error(transparent)]
    Store(#[from] StoreError),
}

/// Why a network could not be turned into a model file's bytes.
#[derive(Debug, thiserror::Error)]
pub enum EncodeError {
    #[error("cannot write the header: {0}")]
    Header(#[from] toml::ser::Error),
    #[error("cannot serialise the weights: {0}")]
    Weights(#[from] burn::store::RecordError),
}

/// The file's bytes for `net` with `meta`.
pub fn encode(net: &Net, meta: &ModelMeta) -> Result<Vec<u8>, EncodeError> {
    let header = toml::to_string(meta)?;
    let weights = net.clone().into_record().into_bytes()?;
    let mut out = framed::begin(&MODEL_FORMAT, weights.len() + header.len() + 16);
    out.put_bytes32(header.as_bytes());
    out.put_bytes64(&weights);
    Ok(framed::seal(out))
}

/// Saves atomically.
pub fn save(path: &Path, net: &Net, meta: &ModelMeta) -> Result<(), StoreError> {
    let bytes = encode(net, meta).map_err(|e| StoreError::new("cannot serialise model for", path, std::io::Error::other(e)))?;
    store::write_atomic(path, &bytes)
}

/// Saves to a path the user named (see [`store::Outputs`]: an existing file or a link is
/// refused unless `force`).
pub fn save_output(path: &Path, net: &Net, meta: &ModelMeta, force: bool) -> Result<(), StoreError> {
    let bytes = encode(net, meta).map_err(|e| StoreError::new("cannot serialise model for", path, std::io::Error::other(e)))?;
    store::write_output(path, &bytes, force)
}

/// Splits and checks a model file's bytes: (meta, burnpack weights).
pub fn decode(bytes: &[u8], path: &str) -> Result<(ModelMeta, Vec<u8>), ModelFileError> {
    let p = || path.to_string();
    let frame = |source| ModelFileError::Frame { path: p(), source };
    let mut r = BodyReader::new(&MODEL_FORMAT, framed::open(&MODEL_FORMAT, bytes).map_err(frame)?);
    let header = r.str32().map_err(frame)?;
    let meta: ModelMeta = toml::from_str(header).map_err(|e| ModelFileError::Header { path: p(), message: e.message().to_string() })?;
    let weights = r.bytes64().map_err(frame)?;
    r.finish().map_err(frame)?;
    let shape = meta_shape(&meta, path)?;
    if meta.input_planes != shape.planes || meta.actions != shape.actions() {
        return Err(ModelFileError::Incompatible {
            path: p(),
            game: meta.game.clone(),
            found: meta.input_planes,
            actions: meta.actions,
            planes: shape.planes,
            wanted: shape.actions(),
        });
    }
    meta.model.validate().map_err(|e| ModelFileError::Header { path: p(), message: e.to_string() })?;
    if let Err(e) = registry::check_rules(&meta.game, &meta.rules) {
        return Err(ModelFileError::Header { path: p(), message: format!("rules '{}' do not parse: {e}", meta.rules) });
    }
    Ok((meta, weights.to_vec()))
}

fn jungle() -> String {
    "jungle".into()
}

/// The network view of the game a model file's header names.
fn meta_shape(meta: &ModelMeta, path: &str) -> Result<Shape, ModelFileError> {
    registry::shape_named(&meta.game).ok_or_else(|| ModelFileError::Header { path: path.into(), message: format!("unknown game '{}'", meta.game) })
}

/// Refuses a model of another game than `shape`'s.
pub fn check_game(meta: &ModelMeta, shape: Shape, path: &str) -> Result<(), ModelFileError> {
    if meta.game == shape.game { Ok(()) } else { Err(ModelFileError::WrongGame { path: path.into(), found: meta.game.clone(), expected: shape.game.into() }) }
}

/// Builds the network from a model file's parts on `device`.
pub fn build(meta: &ModelMeta, weights: Vec<u8>, device: &Device, path: &str) -> Result<Net, ModelFileError> {
    // A header can claim a network of gigabytes; refuse before allocating one that the file's
    // weights cannot fill (at two bytes a weight, the smallest float burn stores).
    let shape = meta_shape(meta, path)?;
    let needed = meta.model.weight_count(shape).saturating_mul(2);
    if (weights.len() as u64) < needed {
        return Err(ModelFileError::Weights {
            path: path.into(),
            message: format!("{} bytes of weights cannot hold a {} network (at least {needed} bytes)", weights.len(), meta.model.describe()),
        });
    }
    let record = ModuleRecord::from_bytes(Bytes::from_bytes_vec(weights)).map_err(|e| ModelFileError::Weights { path: path.into(), message: e.to_string() })?;
    let net =
        meta.model.init(shape, device).try_load_record(record).map_err(|e| ModelFileError::Weights { path: path.into(), message: one_line(&e.to_string()) })?;
    if let Some(problem) = net.weights_problem() {
        return Err(ModelFileError::Values {
            path: path.into(),
            message: format!("{problem} (the training that wrote them diverged, or the file was changed)"),
        });
    }
    Ok(net)
}

/// The message on one line, cut to about 300 bytes on a character boundary.
pub(crate) fn one_line(s: &str) -> String {
    let s = s.replace('\n', " ");
    if s.len() <= 300 {
        return s;
    }
    let mut cut = 300;
    while !s.is_char_boundary(cut) {
        cut -= 1;
    }
    format!("{}...", &s[..cut])
}

/// Reads only a model file's header (checksum verified).
pub fn read_meta(path: &Path) -> Result<ModelMeta, ModelFileError> {
    let bytes = store::read_framed(path, &MODEL_FORMAT, store::caps::MODEL)?;
    Ok(decode(&bytes, &path.display().to_string())?.0)
}

/// Loads a model file of the game of `shape` onto `device`.
pub fn load(path: &Path, device: &Device, shape: Shape) -> Result<(Net, ModelMeta), ModelFileError> {
    let name = path.display().to_string();
    let bytes = store::read_framed(path, &MODEL_FORMAT, store::caps::MODEL)?;
    let (meta, weights) = decode(&bytes, &name)?;
    check_game(&meta, shape, &name)?;
    let net = build(&meta, weights, device, &name)?;
    Ok((net, meta))
}

/// Loads a model file of whichever game it holds onto `device`.
pub fn load_any(path: &Path, device: &Device) -> Result<(Net, ModelMeta), ModelFileError> {
    let name = path.display().to_string();
    let bytes = store::read_framed(path, &MODEL_FORMAT, store::caps::MODEL)?;
    let (meta, weights) = decode(&bytes, &name)?;
    let net = build(&meta, weights, device, &name)?;
    Ok((net, meta))
}

/// Metadata for a fresh network of the game of `shape`, trained under `rules` (the game's
/// rule switches as text).
pub fn fresh_meta(model: &ModelConfig, shape: Shape, rules: &str, id: &str) -> ModelMeta {
    ModelMeta {
        game: shape.game.into(),
        model: model.clone(),
        rules: rules.to_string(),
        id: id.into(),
        run: String::new(),
        generation: 0,
        train_steps: 0,
        games: 0,
        created: std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0.0, |d| d.as_secs_f64()),
        input_planes: shape.planes,
        actions: shape.actions(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::game::Encode;
    use crate::jungle::{JungleGame, Rules};

    const SHAPE: Shape = JungleGame::SHAPE;

    #[test]
    fn long_messages_are_cut_on_a_character_boundary() {
        let s = "é".repeat(400);
        let short = one_line(&s);
        assert!(short.ends_with("...") && short.len() <= 303, "{}", short.len());
        assert_eq!(one_line("a\nb"), "a b");
    }

    #[test]
    fn a_header_claiming_a_huge_network_is_refused_before_it_is_built() {
        let device = crate::nn::device::parse_device("flex").unwrap();
        for model in [
            ModelConfig::default(),
            ModelConfig { moves_left: true, ..ModelConfig::gpu_sized() },
            ModelConfig { opponent_policy: true, short_value: true, ..ModelConfig::default() },
        ] {
            for shape in registry::GameName::ALL.iter().map(|g| g.shape()) {
                let n = model.init(shape, &device).num_params() as u64;
                let w = model.weight_count(shape);
                assert!(w <= n && n < w * 11 / 10, "{} of {n}", w);
            }
        }
        let small = ModelConfig { blocks: 1, channels: 8, ..ModelConfig::default() };
        let meta = fresh_meta(&small, SHAPE, &Rules::default().to_string(), "gen-0001");
        let bytes = encode(&small.init(SHAPE, &device), &meta).unwrap();
        let (mut meta, weights) = decode(&bytes, "x.jzm").unwrap();
        assert!(build(&meta, weights.clone(), &device, "x.jzm").is_ok());
        meta.model = ModelConfig { blocks: 64, channels: 1024, ..ModelConfig::default() };
        let e = build(&meta, weights, &device, "x.jzm").expect_err("refused").to_string();
        assert!(e.contains("x.jzm") && e.contains("cannot hold a 64x1024 network"), "{e}");
    }
}
