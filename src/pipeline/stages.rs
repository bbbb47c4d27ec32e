//! The stages' glue: reading new shards into the replay window, self-play with the best
//! network, the teacher's games, syncing with object storage, and the gate.

use super::*;

impl<G: RunGame> Pipeline<G> {
    /// Reloads the window's shards listed in the checkpoint.
    pub(super) fn restore_window(&mut self) -> Result<()> {
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

    /// [`Pipeline::gate`] without the ladder (a run past its time limit).
    pub fn gate_without_ladder(&mut self, progress: &mut ProgressFn) -> Result<()> {
        let mut config = self.config.clone();
        config.ladder.every = 0;
        gate_run::<G>(&self.run, &config, progress)
    }
}

/// Whether a shard file holds the alpha-beta teacher's games (by its name).
pub fn is_teacher_shard(path: &Path) -> bool {
    let prefix = format!("{}-", teacher::SHARD_PREFIX);
    path.file_name().and_then(|n| n.to_str()).is_some_and(|n| n.starts_with(&prefix))
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
