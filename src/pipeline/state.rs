//! Opening a run: creating it, or resuming it from its checkpoint (or rebuilding a trainer
//! whose checkpoint cannot be used), and the run's identity.

use super::*;

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
        let trainer = trainer.with_kernels(config.hardware.cpu_kernels).map_err(PipelineError::Unfit)?;
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
        // The trainer holds the training settings; every way of building it above took them
        // from this config.
        debug_assert!(p.trainer.config() == &p.config.train, "the trainer's settings are the run's");
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
            p.window.trim(p.trainer.config().window_size(p.meta.samples_seen as usize));
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
    pub(super) fn checkpoint_state(
        run: &RunDir,
        config: &Config,
        device: &burn::prelude::Device,
    ) -> std::result::Result<Option<(Trainer, CheckpointMeta)>, Unusable> {
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
    pub(super) fn set_aside_checkpoint(run: &RunDir) -> Result<()> {
        let path = run.checkpoint_path();
        if path.exists() {
            let aside = path.with_extension(format!("jzc.bad-{}", now() as u64));
            store::rename_no_replace(&path, &aside).map_err(|e| StoreError::new("cannot move aside", &path, e))?;
            tracing::warn!("the old checkpoint is kept as {}", aside.display());
        }
        Ok(())
    }

    /// Counters of a new trainer at generation `iteration` after `step` optimiser steps.
    pub(super) fn fresh_meta(config: &Config, iteration: u64, step: u64) -> CheckpointMeta {
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
    pub(super) fn rebuilt(run: &RunDir, config: &Config, device: &burn::prelude::Device) -> Result<(Trainer, CheckpointMeta)> {
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
}

/// Why a run's trainer checkpoint cannot be used.
pub(super) enum Unusable {
    /// Missing, unreadable or older than the run's networks: `--rebuild` can make a new one.
    Broken(String),
    /// Sound, but of another game or network shape than the config asks for.
    Disagrees(String),
}

/// How to continue a run whose trainer checkpoint cannot be used.
pub(super) fn rebuild_hint(run: &RunDir) -> String {
    format!(
        "to continue, rebuild the trainer from the run's networks and shards with 'junglezero train --run {} --rebuild' (the optimiser starts afresh)",
        run.location()
    )
}

/// A new run's identity: 16 hex digits from the clock and the process.
pub(super) fn new_run_id() -> String {
    let mut x = store::clock_seed() ^ (u64::from(std::process::id()) << 32);
    // splitmix64's finaliser spreads nearby clocks over all digits.
    x = (x ^ (x >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    format!("{:016x}", x ^ (x >> 31))
}
