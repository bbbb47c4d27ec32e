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

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

use crate::arena::game::ArenaGame;
use crate::arena::gate::{GateError, GateSettings, gate_candidates};
use crate::config::Config;
use crate::nn::burn_eval::NetEvaluator;
use crate::nn::device::{DeviceError, parse_device};
use crate::nn::modelfile::{self, ModelFileError, ModelMeta};
use crate::selfplay::record::{RecordError, ShardError};
use crate::selfplay::stage::{StageGames, StageSettings, play_into_run};
use crate::selfplay::teacher;
use crate::store::events::{Event, StartEvent, TrainEvent, now};
use crate::store::hooks::phase;
use crate::store::run::RunDir;
use crate::store::{self, StoreError};
use crate::train::batch::{Targets, sample_batch};
use crate::train::checkpoint::{self, CheckpointError, CheckpointMeta};
use crate::train::replay::{ReplayWindow, load_shard};
use crate::train::trainer::{Trainer, optimizer};
use crate::trainable::Trainable;

pub use crate::selfplay::stage::SelfplaySummary;

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
    /// Opens `run`, creating it (config snapshot, random generation 0, first checkpoint) if it
    /// does not exist yet. `config` is the config to use from now on; if it differs from the
    /// run's snapshot the snapshot is replaced and the old one kept alongside.
    ///
    /// A run that holds trained networks or shards but whose trainer checkpoint is missing,
    /// unreadable or older than its networks is refused (training on would count generations
    /// again over networks the run has), unless `rebuild` is set: then the trainer is rebuilt
    /// from the newest network and the shards (see [`Pipeline::rebuilt`]).
    pub fn open(run: RunDir, config: Config) -> Result<Pipeline<G>> {
        Pipeline::open_with(run, config, false)
    }

    /// [`Pipeline::open`], rebuilding a missing or broken trainer checkpoint when `rebuild`.
    pub fn open_with(run: RunDir, mut config: Config, rebuild: bool) -> Result<Pipeline<G>> {
        let infer_device = parse_device(&config.hardware.device)?;
        let train_device = infer_device.clone().autodiff();
        store::remove_stale_temporaries(run.root());
        let previous = store::read_text_capped(&run.config_path(), store::caps::CONFIG, "config file").ok();
        if config.train.seed == 0 {
            // Keep the run's seed on resume; a new run takes one from the clock.
            let old_seed = previous.as_deref().and_then(|t| Config::from_toml(t).ok()).map_or(0, |c| c.train.seed);
            config.train.seed = if old_seed != 0 { old_seed } else { crate::store::clock_seed().max(1) };
        }
        run.create_dirs()?;
        for d in [run.models_dir(), run.candidates_dir(), run.rejected_dir(), run.games_dir(), run.root().join("train")] {
            store::remove_stale_temporaries(&d);
        }
        let checkpoint = Self::checkpoint_state(&run, &config, &train_device);
        let resumed = matches!(checkpoint, Ok(Some(_)));
        let loaded = match checkpoint {
            Ok(state) => state,
            // Not a broken trainer, so nothing to rebuild: the config is another run's.
            Err(Unusable::Disagrees(what)) => return Err(PipelineError::ConfigDisagrees(what)),
            Err(Unusable::Broken(problem)) if rebuild => {
                tracing::warn!("{problem}; rebuilding the trainer");
                Self::set_aside_checkpoint(&run)?;
                None
            }
            Err(Unusable::Broken(problem)) => return Err(PipelineError::Unfit(format!("{problem}; {}", rebuild_hint(&run)))),
        };
        let mut rebuilt = false;
        let (trainer, meta) = match loaded {
            Some(state) => state,
            None if run.holds_work() => {
                rebuilt = true;
                Self::rebuilt(&run, &config, &train_device)?
            }
            None => {
                let seed = config.train.seed;
                let net = config.model.init_seeded(G::SHAPE, &train_device, seed);
                let trainer = Trainer::new(net, optimizer(&config.train), train_device.clone(), &config.model, &config.train, 0);
                let meta = Self::fresh_meta(&config, 0, 0);
                checkpoint::save(&run.checkpoint_path(), &trainer, &meta)?;
                tracing::info!("created run {} ({} network, seed {seed})", run.root().display(), config.model.describe());
                (trainer, meta)
            }
        };
        if let Some(old) = &previous
            && Config::from_toml(old).ok().as_ref() != Some(&config)
        {
            let backup = run.root().join(format!("config-{}.toml", now() as u64));
            store::write_atomic(&backup, old.as_bytes())?;
            tracing::info!("config changed; the previous snapshot is kept as {}", backup.display());
        }
        store::write_atomic(&run.config_path(), config.to_toml().as_bytes())?;

        let rules = G::rules(&config);
        if meta.rules != rules.to_string() {
            tracing::warn!("the run was trained under rules '{}' and the config now says '{rules}'; games under other rules are skipped", meta.rules);
        }
        let mut rng = ChaCha8Rng::seed_from_u64(meta.rng_seed);
        rng.set_word_pos(meta.rng_word_pos.parse::<u128>().unwrap_or(0));
        let mut p = Pipeline {
            run,
            config,
            trainer,
            meta,
            window: ReplayWindow::new(),
            rng,
            pending_games: 0,
            pending_samples: 0,
            pending_teacher_samples: 0,
            yardstick: None,
        };
        p.trainer.config = p.config.train.clone();
        if p.meta.run_id.is_empty() {
            p.meta.run_id = new_run_id();
        }
        if p.run.best().is_none() && p.meta.iteration == 0 {
            // Generation 0 is the trainer's starting point (written after the checkpoint, so a
            // crash in between is repaired here).
            let m = p.model_meta("gen-0000", 0);
            modelfile::save(&p.run.model_path(0), &p.trainer.inference_net(), &m)?;
        }
        p.restore_window()?;
        p.ingest()?;
        if resumed {
            // Counted after the shards are read: the games of an interrupted first generation
            // (the teacher's) are on disk but in no checkpoint yet.
            let (teacher, pending) = (p.teacher_games(), p.pending_games);
            let mut kept = Vec::new();
            if teacher > 0 {
                kept.push(format!("{teacher} of them the teacher's"));
            }
            if pending > 0 {
                kept.push(format!("{pending} not trained on yet"));
            }
            let kept = if kept.is_empty() { String::new() } else { format!(" ({})", kept.join(", ")) };
            tracing::info!(
                "resumed run {} at generation {}, step {}, {} games seen{kept}",
                p.run.root().display(),
                p.meta.iteration,
                p.meta.step,
                p.meta.games_seen
            );
        }
        if rebuilt {
            // Every shard on disk counts as trained on: the rebuilt trainer starts from the
            // newest network, which was trained on them (or on most of them).
            p.window.trim(p.config.train.window_size(p.meta.samples_seen as usize));
            (p.pending_games, p.pending_samples, p.pending_teacher_samples) = (0, 0, 0);
            p.meta.window = p.window.paths().map(|path| p.run.relative(path)).collect();
            checkpoint::save(&p.run.checkpoint_path(), &p.trainer, &p.meta)?;
            tracing::info!(
                "rebuilt the trainer at generation {} from {} shards ({} games); the optimiser starts afresh",
                p.meta.iteration,
                p.meta.seen_shards.len(),
                p.meta.games_seen
            );
        }
        p.ensure_candidate()?;
        Ok(p)
    }

    /// The checkpoint's trainer and counters; `None` when there is none; `Err` with what is
    /// wrong when it does not load or is older than the run's networks, or when the config
    /// asks for another game or network than it trains.
    fn checkpoint_state(run: &RunDir, config: &Config, device: &burn::prelude::Device) -> std::result::Result<Option<(Trainer, CheckpointMeta)>, Unusable> {
        let path = run.checkpoint_path();
        if !path.exists() {
            return match run.highest_generation().filter(|&g| g > 0) {
                Some(g) => Err(Unusable::Broken(format!("{} holds networks up to gen-{g:04} but no trainer checkpoint ({})", run.location(), path.display()))),
                None if run.holds_work() => {
                    Err(Unusable::Broken(format!("{} holds game shards but no trainer checkpoint ({})", run.location(), path.display())))
                }
                None => Ok(None),
            };
        }
        let (trainer, meta) = checkpoint::load(&path, device, &config.train, &config.model, G::SHAPE).map_err(|e| match e {
            CheckpointError::Disagrees { .. } => Unusable::Disagrees(e.to_string()),
            e => Unusable::Broken(e.to_string()),
        })?;
        if let Some(g) = run.highest_generation().filter(|&g| g > meta.iteration) {
            return Err(Unusable::Broken(format!(
                "{}: the trainer checkpoint is at generation {} but the run holds gen-{g:04}",
                run.location(),
                meta.iteration
            )));
        }
        Ok(Some((trainer, meta)))
    }

    /// Moves a checkpoint that cannot be used out of the way (kept as `checkpoint.jzc.bad-TIME`).
    fn set_aside_checkpoint(run: &RunDir) -> Result<()> {
        let path = run.checkpoint_path();
        if path.exists() {
            let aside = path.with_extension(format!("jzc.bad-{}", now() as u64));
            store::rename_no_replace(&path, &aside).map_err(|e| StoreError::new("cannot move aside", &path, e))?;
            tracing::warn!("the old checkpoint is kept as {}", aside.display());
        }
        Ok(())
    }

    /// Counters of a new trainer at generation `iteration` after `step` optimiser steps.
    fn fresh_meta(config: &Config, iteration: u64, step: u64) -> CheckpointMeta {
        CheckpointMeta {
            game: G::SHAPE.game.into(),
            model: config.model.clone(),
            rules: G::rules(config).to_string(),
            optimizer: config.train.optimizer,
            step,
            iteration,
            samples_trained: step * config.train.batch_size as u64,
            games_seen: 0,
            samples_seen: 0,
            rng_seed: config.train.seed,
            rng_word_pos: "0".into(),
            window: vec![],
            seen_shards: Default::default(),
            config: config.to_toml(),
            run_id: new_run_id(),
        }
    }

    /// A trainer rebuilt from what the run holds: the newest network's weights (whichever
    /// directory the gate left it in) and its step count, a fresh optimiser, and the run's
    /// identity taken from its networks. The shards are read by the caller.
    fn rebuilt(run: &RunDir, config: &Config, device: &burn::prelude::Device) -> Result<(Trainer, CheckpointMeta)> {
        let g = run.highest_generation().unwrap_or(0);
        let path = run.generation_file(g).ok_or_else(|| PipelineError::NoModel(run.root().display().to_string()))?;
        let (net, m) = modelfile::load(&path, device, G::SHAPE)?;
        if m.model != config.model {
            return Err(PipelineError::Unfit(format!(
                "{}: a {} network, but the config asks for {}; rebuild with the run's own config",
                path.display(),
                m.model.describe(),
                config.model.describe()
            )));
        }
        let trainer = Trainer::new(net, optimizer(&config.train), device.clone(), &config.model, &config.train, m.train_steps);
        let mut meta = Self::fresh_meta(config, g, m.train_steps);
        if !m.run.is_empty() {
            meta.run_id = m.run;
        }
        Ok((trainer, meta))
    }

    fn model_meta(&self, id: &str, generation: u64) -> ModelMeta {
        let (steps, games) = if generation == 0 { (0, 0) } else { (self.meta.step, self.meta.games_seen) };
        let mut m = modelfile::fresh_meta(&self.config.model, G::SHAPE, &G::rules(&self.config).to_string(), id);
        m.generation = generation;
        m.train_steps = steps;
        m.games = games;
        m.run = self.meta.run_id.clone();
        m
    }

    /// Reloads the window's shards listed in the checkpoint.
    fn restore_window(&mut self) -> Result<()> {
        let rules = G::rules(&self.config);
        for rel in self.meta.window.clone() {
            let path = self.run.resolve(&rel);
            match load_shard::<G>(&path, &rules) {
                Ok((s, _)) => self.window.push(s),
                Err(e) => tracing::warn!("window shard missing or unreadable, skipped: {e}"),
            }
        }
        Ok(())
    }

    /// Reads shards not seen before into the window; they count as new data.
    pub fn ingest(&mut self) -> Result<u64> {
        let rules = G::rules(&self.config);
        let mut added = 0;
        for path in self.run.shards() {
            let rel = self.run.relative(&path);
            if self.meta.seen_shards.contains(&rel) {
                continue;
            }
            match load_shard::<G>(&path, &rules) {
                Ok((s, skipped)) => {
                    if skipped > 0 {
                        tracing::warn!("{}: {skipped} games under other rules or unreadable, skipped", path.display());
                    }
                    self.pending_games += s.games as u64;
                    self.pending_samples += s.samples.len() as u64;
                    if is_teacher_shard(&path) {
                        self.pending_teacher_samples += s.samples.len() as u64;
                    }
                    self.meta.games_seen += s.games as u64;
                    self.meta.samples_seen += s.samples.len() as u64;
                    added += s.games as u64;
                    self.window.push(s);
                }
                Err(e) => tracing::warn!("skipping unreadable shard: {e}"),
            }
            self.meta.seen_shards.insert(rel);
        }
        Ok(added)
    }

    /// After a crash between writing the checkpoint and the candidate, rewrite the candidate.
    fn ensure_candidate(&mut self) -> Result<()> {
        let g = self.meta.iteration;
        if g > 0 && !self.run.generation_exists(g) {
            tracing::info!("rewriting candidate gen-{g:04} from the checkpoint");
            self.write_candidate()?;
        }
        Ok(())
    }

    fn write_candidate(&self) -> Result<PathBuf> {
        let g = self.meta.iteration;
        // A generation the gate has decided is never written again.
        if let Some(decided) = [self.run.model_path(g), self.run.rejected_path(g)].into_iter().find(|p| p.exists()) {
            return Err(PipelineError::Unfit(format!(
                "{} exists already; the trainer's counters are behind the run ({})",
                decided.display(),
                rebuild_hint(&self.run)
            )));
        }
        let path = self.run.candidate_path(g);
        let net = self.candidate_net(g)?;
        if !net.is_finite() {
            return Err(PipelineError::Diverged(format!(
                "generation {g}'s weights are NaN or infinite; no candidate was written and the last good network stays the best"
            )));
        }
        let m = self.model_meta(&format!("gen-{g:04}"), g);
        modelfile::save(&path, &net, &m)?;
        Ok(path)
    }

    /// Generation `g`'s network: the trained weights, or with `train.average_decay` their
    /// moving average, blended with generation `g - 1`'s file (itself the average before it).
    /// Generation 1, and a run whose previous file is missing, unreadable or of another
    /// architecture, start the average afresh. Rewriting a lost candidate gives the same
    /// network again.
    fn candidate_net(&self, g: u64) -> Result<crate::nn::model::Net> {
        let trained = self.trainer.inference_net();
        let decay = self.config.train.average_decay;
        if decay <= 0.0 || g < 2 {
            return Ok(trained);
        }
        let device = parse_device(&self.config.hardware.device)?;
        let averaged = match self.run.generation_file(g - 1) {
            None => Err(format!("generation {} is missing", g - 1)),
            Some(prev) => modelfile::load(&prev, &device, G::SHAPE)
                .map_err(|e| e.to_string())
                .and_then(|(prev_net, _)| crate::nn::average::blend(&trained, &prev_net, decay).map_err(|e| format!("{}: {e}", prev.display()))),
        };
        Ok(averaged.unwrap_or_else(|e| {
            tracing::warn!("{e}; the weight average starts again at generation {g}");
            trained
        }))
    }

    /// New games waiting to be trained on.
    pub fn pending_games(&self) -> u64 {
        self.pending_games
    }

    /// The current best network as an evaluator.
    pub fn best_evaluator(&self) -> Result<NetEvaluator> {
        let (_, path) = self.run.best().ok_or_else(|| PipelineError::NoModel(self.run.root().display().to_string()))?;
        Ok(NetEvaluator::load(&path, &self.config.hardware, G::SHAPE)?)
    }

    /// Plays `games` self-play games with the current best network into games/.
    pub fn selfplay(&mut self, games: u64, progress: &mut ProgressFn, stop: &AtomicBool) -> Result<SelfplaySummary> {
        phase("selfplay");
        let evaluator = self.best_evaluator()?;
        let generation = self.run.best().map_or(0, |(g, _)| g);
        let stage = G::stage(&self.config);
        let server = crate::mcts::server::ServerStats::default();
        let summary = crate::mcts::server::maybe_served(&evaluator, self.config.selfplay.server_config(), &server, |e| {
            let which = StageGames { model_id: evaluator.id(), generation, games, iteration: self.meta.iteration + 1 };
            play_into_run(&self.run, &stage, e, which, progress, stop)
        })?;
        if self.config.selfplay.inference_server {
            tracing::info!(
                "inference server: {} network calls, mean batch {:.0}",
                server.calls.load(std::sync::atomic::Ordering::Relaxed),
                server.mean_batch()
            );
        }
        self.ingest()?;
        Ok(summary)
    }

    /// Teacher games in the window (written before the first generation).
    pub fn teacher_games(&self) -> u64 {
        self.window.shards().filter(|s| is_teacher_shard(&s.path)).map(|s| s.games as u64).sum()
    }

    /// Before the first generation is trained: the teacher's games into games/ (see
    /// [`RunGame::teach`]). Returns the games played now.
    pub fn teach(&mut self, progress: &mut ProgressFn, stop: &AtomicBool) -> Result<u64> {
        G::teach(self, progress, stop)
    }
}

impl<G: RunGame> Pipeline<G> {
    /// Trains on the window for the new data, saves the checkpoint and writes a candidate.
    /// Returns the candidate's generation, or `None` when there was no new data.
    pub fn learn(&mut self, progress: &mut ProgressFn, stop: &AtomicBool) -> Result<Option<u64>> {
        if self.pending_samples == 0 {
            return Ok(None);
        }
        phase("train");
        let c = self.config.train.clone();
        let rules = G::rules(&self.config);
        let window_size = c.window_size(self.meta.samples_seen as usize);
        // Never drop data not trained on yet (a large first batch of teacher games).
        self.window.trim(window_size.max(self.pending_samples as usize));
        let teacher_samples = self.pending_teacher_samples.min(self.pending_samples);
        let steps = c.steps_for(self.pending_samples - teacher_samples, teacher_samples);
        let start = Instant::now();
        let mut sum = crate::train::trainer::StepStats::default();
        let mut since_log = 0u64;
        let mut log_start = Instant::now();
        for i in 0..steps {
            if stop.load(Ordering::Relaxed) {
                return Err(PipelineError::Interrupted("during training; the last checkpoint is kept"));
            }
            let targets = Targets { mirror: c.mirror, q_ratio: c.value_q_ratio, opponent_policy: self.config.model.opponent_policy };
            let Some(batch) = sample_batch(&self.window, &rules, c.batch_size, targets, &mut self.rng) else { break };
            let mut s = self.trainer.step(&batch);
            // Tests make a step diverge here (the fault point exists in test builds only).
            if (|| {
                fail::fail_point!("train::loss", |_| true);
                false
            })() {
                s.policy_loss = f32::NAN;
            }
            if ![s.policy_loss, s.value_loss, s.moves_left_loss, s.opponent_policy_loss, s.short_value_loss].iter().all(|l| l.is_finite()) {
                // The weights in memory are lost now; the checkpoint and networks on disk are
                // the last good ones, and are kept.
                return Err(PipelineError::Diverged(format!(
                    "step {} of generation {} gave policy loss {} and value loss {}; the last checkpoint and best network are kept (lower train.lr, now {})",
                    self.trainer.step,
                    self.meta.iteration + 1,
                    s.policy_loss,
                    s.value_loss,
                    c.lr
                )));
            }
            self.meta.samples_trained += batch.len() as u64;
            sum.policy_loss += s.policy_loss;
            sum.value_loss += s.value_loss;
            sum.moves_left_loss += s.moves_left_loss;
            sum.opponent_policy_loss += s.opponent_policy_loss;
            sum.short_value_loss += s.short_value_loss;
            sum.policy_entropy += s.policy_entropy;
            sum.value_accuracy += s.value_accuracy;
            sum.lr = s.lr;
            since_log += 1;
            if since_log >= c.log_every_steps || i + 1 == steps {
                let k = since_log as f32;
                let rate = since_log as f64 * c.batch_size as f64 / log_start.elapsed().as_secs_f64().max(1e-9);
                self.run.append_event(&Event::Train(TrainEvent {
                    time: now(),
                    iteration: self.meta.iteration + 1,
                    step: self.trainer.step,
                    samples_trained: self.meta.samples_trained,
                    policy_loss: f64::from(sum.policy_loss / k),
                    value_loss: f64::from(sum.value_loss / k),
                    policy_entropy: f64::from(sum.policy_entropy / k),
                    value_accuracy: f64::from(sum.value_accuracy / k),
                    lr: sum.lr,
                    samples_per_sec: rate,
                    window: self.window.len() as u64,
                    moves_left_loss: f64::from(sum.moves_left_loss / k),
                    opponent_policy_loss: f64::from(sum.opponent_policy_loss / k),
                    short_value_loss: f64::from(sum.short_value_loss / k),
                }))?;
                progress(
                    "train",
                    i + 1,
                    steps,
                    &format!(
                        "policy {:.3} value {:.3} entropy {:.2} acc {:.2} lr {:.4} {:.0} samples/s",
                        sum.policy_loss / k,
                        sum.value_loss / k,
                        sum.policy_entropy / k,
                        sum.value_accuracy / k,
                        sum.lr,
                        rate
                    ),
                );
                sum = Default::default();
                since_log = 0;
                log_start = Instant::now();
            }
        }
        // Weights can overflow while every loss still reads as a number: nothing is saved
        // from a trainer whose weights are not finite.
        if !self.trainer.inference_net().is_finite() {
            return Err(PipelineError::Diverged(format!(
                "after step {} of generation {} the weights are NaN or infinite; the last checkpoint and best network are kept (lower train.lr, now {})",
                self.trainer.step,
                self.meta.iteration + 1,
                c.lr
            )));
        }
        self.meta.iteration += 1;
        self.meta.step = self.trainer.step;
        self.meta.rng_word_pos = self.rng.get_word_pos().to_string();
        self.meta.window = self.window.paths().map(|p| self.run.relative(p)).collect();
        self.meta.config = self.config.to_toml();
        self.pending_games = 0;
        self.pending_samples = 0;
        self.pending_teacher_samples = 0;
        checkpoint::save(&self.run.checkpoint_path(), &self.trainer, &self.meta)?;
        let cand = self.write_candidate()?;
        self.measure_on_tablebase(&cand)?;
        tracing::info!(
            "generation {}: {steps} steps in {:.1} s on a window of {} samples; candidate {}",
            self.meta.iteration,
            start.elapsed().as_secs_f64(),
            self.window.len(),
            cand.display()
        );
        Ok(Some(self.meta.iteration))
    }

    /// Logs the value accuracy of the network in `path` on the yardstick positions (nothing
    /// without them).
    fn measure_on_tablebase(&mut self, path: &Path) -> Result<()> {
        if self.yardstick.is_none() {
            self.yardstick = Some(G::yardstick(&self.config));
        }
        let Some(sample) = self.yardstick.as_ref().filter(|s| !s.is_empty()) else { return Ok(()) };
        let net = NetEvaluator::load(path, &self.config.hardware, G::SHAPE)?;
        let (accuracy, value_error) = crate::nn::yardstick::measure(&net, sample);
        tracing::info!("generation {}: value accuracy {:.3} on {} tablebase positions", self.meta.iteration, accuracy, sample.len());
        self.run.append_event(&Event::Tablebase(crate::store::events::TablebaseEvent {
            time: now(),
            generation: self.meta.iteration,
            positions: sample.len() as u64,
            accuracy,
            value_error,
        }))?;
        Ok(())
    }

    /// In object storage: uploads what this process wrote and reads the shards other self-play
    /// processes uploaded. A directory needs nothing.
    pub fn sync(&mut self) -> Result<()> {
        if self.run.store().is_some() {
            self.run.push()?;
            self.run.pull(Some(&["games"]))?;
            self.ingest()?;
        }
        Ok(())
    }

    /// Gates every waiting candidate (see [`gate_run`]).
    pub fn gate(&mut self, progress: &mut ProgressFn) -> Result<()> {
        gate_run::<G>(&self.run, &self.config, progress)
    }

    /// The whole loop until the configured number of generations or time is reached, or `stop`.
    pub fn run(&mut self, progress: &mut ProgressFn, stop: &AtomicBool) -> Result<()> {
        let started = Instant::now();
        let c = self.config.train.clone();
        self.run.append_event(&Event::Start(StartEvent { time: now(), generation: self.meta.iteration }))?;
        // Rounds in a row that trained nothing: self-play that yields no readable data would
        // otherwise write shards for ever.
        let mut idle = 0;
        loop {
            self.sync()?;
            self.gate(progress)?;
            if c.iterations > 0 && self.meta.iteration >= c.iterations {
                tracing::info!("reached train.iterations = {} (generation {}); stopping", c.iterations, self.meta.iteration);
                return Ok(());
            }
            if c.time_limit_minutes > 0.0 && started.elapsed().as_secs_f64() >= c.time_limit_minutes * 60.0 {
                tracing::info!("reached train.time_limit_minutes = {}; stopping", c.time_limit_minutes);
                return Ok(());
            }
            if stop.load(Ordering::Relaxed) {
                return Ok(());
            }
            if self.meta.iteration == 0 {
                self.teach(progress, stop)?;
                if stop.load(Ordering::Relaxed) {
                    return Ok(());
                }
            }
            if self.pending_games < c.games_per_iteration {
                self.selfplay(c.games_per_iteration - self.pending_games, progress, stop)?;
                if stop.load(Ordering::Relaxed) {
                    return Ok(());
                }
            }
            let factor = c.lr_time_factor(started.elapsed().as_secs_f64() / 60.0);
            if factor != self.trainer.lr_factor {
                tracing::info!("final phase of the timed run: learning rate x {factor}");
                self.trainer.lr_factor = factor;
            }
            match self.learn(progress, stop)? {
                Some(_) => idle = 0,
                None => {
                    idle += 1;
                    if idle >= 3 {
                        return Err(PipelineError::Unfit(format!(
                            "{} rounds of self-play gave no games the trainer could read (see the warnings above); stopping instead of writing more",
                            idle
                        )));
                    }
                }
            }
        }
    }
}

/// Why a run's trainer checkpoint cannot be used.
enum Unusable {
    /// Missing, unreadable or older than the run's networks: `--rebuild` can make a new one.
    Broken(String),
    /// Sound, but of another game or network shape than the config asks for.
    Disagrees(String),
}

/// Whether a shard file holds the alpha-beta teacher's games (by its name).
pub fn is_teacher_shard(path: &Path) -> bool {
    let prefix = format!("{}-", teacher::SHARD_PREFIX);
    path.file_name().and_then(|n| n.to_str()).is_some_and(|n| n.starts_with(&prefix))
}

/// How to continue a run whose trainer checkpoint cannot be used.
fn rebuild_hint(run: &RunDir) -> String {
    format!(
        "to continue, rebuild the trainer from the run's networks and shards with 'junglezero train --run {} --rebuild' (the optimiser starts afresh)",
        run.location()
    )
}

/// A new run's identity: 16 hex digits from the clock and the process.
fn new_run_id() -> String {
    let mut x = store::clock_seed() ^ (u64::from(std::process::id()) << 32);
    // splitmix64's finaliser spreads nearby clocks over all digits.
    x = (x ^ (x >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    format!("{:016x}", x ^ (x >> 31))
}

/// The gate stage of a run of game `G` with the run's networks (see
/// [`crate::arena::gate::gate_candidates`]).
pub fn gate_run<G: RunGame>(run: &RunDir, config: &Config, progress: &mut ProgressFn) -> Result<()> {
    let load = |path: &std::path::Path| NetEvaluator::load(path, &config.hardware, G::SHAPE);
    Ok(gate_candidates(run, &gate_settings::<G>(config), &load, progress)?)
}

/// The gate stage's settings for a run of game `G`.
pub fn gate_settings<G: RunGame>(config: &Config) -> GateSettings<'_, G> {
    GateSettings {
        gate: &config.gate,
        ladder: &config.ladder,
        arena: &config.arena,
        mcts: &config.mcts,
        rules: G::rules(config),
        players: config.players(),
        seed: config.train.seed,
        // A folder that cannot be opened was refused when the run started.
        oracle: if config.tablebase.adjudicate { G::oracle(config).ok().flatten() } else { None },
    }
}
