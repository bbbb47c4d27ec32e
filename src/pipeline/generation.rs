//! The generation loop: self-play until a generation's games are in, train, gate, until the
//! run's iterations or time are done.

use super::*;

impl<G: RunGame> Pipeline<G> {
    /// The whole loop until the configured number of generations or time is reached, or `stop`.
    pub fn run(&mut self, progress: &mut ProgressFn, stop: &AtomicBool) -> Result<()> {
        let started = Instant::now();
        let c = self.trainer.config().clone();
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
            if let Some(factor) = self.trainer.set_elapsed(started.elapsed().as_secs_f64() / 60.0) {
                tracing::info!("final phase of the timed run: learning rate x {factor}");
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
