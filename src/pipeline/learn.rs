//! The training stage: a generation's steps on the replay window, the checkpoint, and the
//! candidate network it writes.

use super::*;

impl<G: RunGame> Pipeline<G> {
    pub(super) fn model_meta(&self, id: &str, generation: u64) -> ModelMeta {
        let (steps, games) = if generation == 0 { (0, 0) } else { (self.meta.step, self.meta.games_seen) };
        let mut m = modelfile::fresh_meta(&self.config.model, G::SHAPE, &G::rules(&self.config).to_string(), id);
        m.generation = generation;
        m.train_steps = steps;
        m.games = games;
        m.run = self.meta.run_id.clone();
        m
    }

    /// After a crash between writing the checkpoint and the candidate, rewrite the candidate.
    pub(super) fn ensure_candidate(&mut self) -> Result<()> {
        let g = self.meta.iteration;
        if g > 0 && !self.run.generation_exists(g) {
            tracing::info!("rewriting candidate gen-{g:04} from the checkpoint");
            self.write_candidate()?;
        }
        Ok(())
    }

    pub(super) fn write_candidate(&self) -> Result<PathBuf> {
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
    pub(super) fn candidate_net(&self, g: u64) -> Result<crate::nn::model::Net> {
        let trained = self.trainer.inference_net();
        let decay = self.trainer.config().average_decay;
        if decay <= 0.0 || g < 2 {
            return Ok(trained);
        }
        let device = parse_device(&self.config.hardware.device)?;
        let averaged = match self.run.generation_file(g - 1) {
            None => Err(format!("generation {} is missing", g - 1)),
            Some(prev) => modelfile::load(&prev, &device, G::SHAPE)
                .map_err(|e| e.to_string())
                .and_then(|(prev_net, _)| crate::nn::model::average::blend(&trained, &prev_net, decay).map_err(|e| format!("{}: {e}", prev.display()))),
        };
        Ok(averaged.unwrap_or_else(|e| {
            tracing::warn!("{e}; the weight average starts again at generation {g}");
            trained
        }))
    }

    /// Trains on the window for the new data, saves the checkpoint and writes a candidate.
    /// Returns the candidate's generation, or `None` when there was no new data.
    pub fn learn(&mut self, progress: &mut ProgressFn, stop: &AtomicBool) -> Result<Option<u64>> {
        if self.pending_samples == 0 {
            return Ok(None);
        }
        phase("train");
        let c = self.trainer.config().clone();
        let rules = G::rules(&self.config);
        let window_size = c.window_size(self.meta.samples_seen as usize);
        // Never drop data not trained on yet (a large first batch of teacher games).
        self.window.trim(window_size.max(self.pending_samples as usize));
        let teacher_samples = self.pending_teacher_samples.min(self.pending_samples);
        let steps = c.steps_for(self.pending_samples - teacher_samples, teacher_samples);
        let start = Instant::now();
        let mut sum = crate::train::trainer::StepStats::default();
        // Where the steps since the last event went: drawing the batch, and the step's parts.
        let (mut drawing, mut split) = (0.0, crate::train::trainer::StepTiming::default());
        let mut since_log = 0u64;
        let mut log_start = Instant::now();
        for i in 0..steps {
            if stop.load(Ordering::Relaxed) {
                return Err(PipelineError::Interrupted("during training; the last checkpoint is kept"));
            }
            let targets = Targets { mirror: c.mirror, q_ratio: c.value_q_ratio, opponent_policy: self.config.model.opponent_policy };
            let drawn = Instant::now();
            let Some(batch) = sample_batch(&self.window, &rules, c.batch_size, targets, &mut self.rng) else { break };
            drawing += drawn.elapsed().as_secs_f64();
            let mut s = self.trainer.step(&batch);
            split += s.timing;
            // Tests make a step diverge here (a fault point: inert unless a test arms it).
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
                    step_seconds: Some({
                        let mean = split / f64::from(k);
                        StepSeconds {
                            batch: drawing / f64::from(k),
                            inputs: mean.inputs,
                            forward: mean.forward,
                            backward: mean.backward,
                            optimizer: mean.optimizer,
                        }
                    }),
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
                (drawing, split) = (0.0, Default::default());
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
    pub(super) fn measure_on_tablebase(&mut self, path: &Path) -> Result<()> {
        if self.yardstick.is_none() {
            self.yardstick = Some(G::yardstick(&self.config));
        }
        let Some(sample) = self.yardstick.as_ref().filter(|s| !s.is_empty()) else { return Ok(()) };
        let net = NetEvaluator::load(path, &self.config.hardware, G::SHAPE)?;
        let (accuracy, value_error) = crate::nn::measure::yardstick::measure(&net, sample);
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
}
