//! The training pipeline over a run directory: generations of self-play with the current best
//! network, training on the replay window, and gating the candidate.
//!
//! Every stage reads and writes only the run directory, so each is also a subcommand and a
//! killed process restarts from what is on disk:
//!
//! - shards are written atomically; on start every shard not listed in the checkpoint is new
//!   data, so completed games are never lost;
//! - the checkpoint (weights, optimiser, counters, random state, window manifest) is written
//!   atomically at the end of each training stage, *then* the candidate; if the candidate is
//!   missing on start it is rewritten from the checkpoint;
//! - candidates are gated by renaming them into `models/` or `rejected/`.
//!
//! Its rooms: [`state`] opens or resumes a run, [`stages`] glues the stages (shards in,
//! self-play, the teacher, sync, the gate), [`learn`] trains a generation and writes its
//! candidate, [`generation`] loops over generations.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

use crate::arena::gate::{GateError, GateSettings, gate_candidates};
use crate::arena::match_game::ArenaGame;
use crate::config::Config;
use crate::nn::NetEvaluator;
use crate::nn::device::{DeviceError, parse_device};
use crate::nn::modelfile::{self, ModelFileError, ModelMeta};
use crate::selfplay::record::{RecordError, ShardError};
use crate::selfplay::stage::{StageGames, StageSettings, play_into_run};
use crate::selfplay::teacher;
use crate::store::events::{Event, StartEvent, StepSeconds, TrainEvent, now};
use crate::store::hooks::phase;
use crate::store::run::RunDir;
use crate::store::{self, StoreError};
use crate::train::batch::{Targets, sample_batch};
use crate::train::checkpoint::{self, CheckpointError, CheckpointMeta};
use crate::train::replay::{ReplayWindow, load_shard};
use crate::train::trainer::{Trainer, optimizer};
use crate::trainable::Trainable;

mod generation;
mod learn;
mod stages;
mod state;

use state::rebuild_hint;

pub use crate::selfplay::stage::SelfplaySummary;
pub use stages::{gate_run, gate_settings, is_teacher_shard};

#[derive(Debug, thiserror::Error)]
pub enum PipelineError {
    #[error(transparent)]
    Store(#[from] StoreError),
    #[error(transparent)]
    Checkpoint(#[from] CheckpointError),
    #[error(transparent)]
    Model(#[from] ModelFileError),
    #[error(transparent)]
    Shard(#[from] ShardError),
    #[error(transparent)]
    Record(#[from] RecordError),
    #[error(transparent)]
    Device(#[from] DeviceError),
    #[error(transparent)]
    Gate(#[from] GateError),
    #[error("{0}: no model in models/")]
    NoModel(String),
    /// The run's files do not fit together (what, and how to continue).
    #[error("{0}")]
    Unfit(String),
    /// The config asks for another game or network than the run trains (what differs); the
    /// run is sound and resumes with its own config.
    #[error("{0}; resume the run with its own config (its config.toml), or start a new run in another directory")]
    ConfigDisagrees(String),
    /// Training produced non-finite losses or weights.
    #[error("training diverged: {0}")]
    Diverged(String),
    /// Stopped by the caller's flag; what was finished is on disk.
    #[error("interrupted {0}")]
    Interrupted(&'static str),
}

type Result<T> = std::result::Result<T, PipelineError>;

/// Called with live progress: (stage, done, total, message).
pub type ProgressFn<'a> = dyn FnMut(&str, u64, u64, &str) + 'a;

/// What the training loop needs of a game beyond [`Trainable`] and its players
/// ([`ArenaGame`]): its rules and self-play settings from the config, and the teacher games (if
/// any) that come before the first generation. Every game implements it in its entry
/// (`crate::entries`).
pub trait RunGame: Trainable + ArenaGame<Rules = <Self as Trainable>::Rules> {
    /// The rules the config says to play.
    fn rules(config: &Config) -> <Self as Trainable>::Rules;

    /// The self-play stage's settings.
    fn stage(config: &Config) -> StageSettings<'_, Self>;

    /// A fixed sample of positions whose exact result is known (Jungle: positions of the
    /// endgame tables, when `[tablebase]` names them), to measure each generation's value
    /// accuracy on; none by default.
    fn yardstick(_config: &Config) -> Vec<(Self, crate::mcts::oracle::Exact)> {
        Vec::new()
    }

    /// Exact values the config provides for this game under the config's rules (Jungle: the
    /// endgame tables of `[tablebase]`).
    fn oracle(config: &Config) -> anyhow::Result<Option<std::sync::Arc<dyn crate::mcts::oracle::Oracle<Self>>>> {
        Self::oracle_under(config, &Self::rules(config))
    }

    /// The same under `rules` (a request's own rules): an error when the config's tables were
    /// built under other capture rules, as the protocol refuses them; none by default.
    fn oracle_under(_config: &Config, _rules: &<Self as Trainable>::Rules) -> anyhow::Result<Option<std::sync::Arc<dyn crate::mcts::oracle::Oracle<Self>>>> {
        Ok(None)
    }

    /// Plays the teacher's games before the first generation; the games played.
    fn teach(_: &mut Pipeline<Self>, _: &mut ProgressFn, _: &AtomicBool) -> Result<u64> {
        Ok(0)
    }
}

/// A run opened for training.
pub struct Pipeline<G: RunGame> {
    pub run: RunDir,
    pub config: Config,
    trainer: Trainer,
    pub meta: CheckpointMeta,
    window: ReplayWindow<G>,
    rng: ChaCha8Rng,
    /// Self-play games and samples read since the last training stage.
    pending_games: u64,
    pending_samples: u64,
    /// Of `pending_samples`, those from the teacher's games.
    pending_teacher_samples: u64,
    /// The positions each generation's value accuracy is measured on (drawn on first use).
    yardstick: Option<Vec<(G, crate::mcts::oracle::Exact)>>,
}

impl<G: RunGame> Pipeline<G> {
    /// New games waiting to be trained on.
    pub fn pending_games(&self) -> u64 {
        self.pending_games
    }
}
