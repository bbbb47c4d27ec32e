//! The generation loop: self-play until a generation's games are in, train, gate, until the
//! run's iterations or time are done.

use super::*;

impl<G: RunGame> Pipeline<G> {
    /// The whole loop until the configured number of generations or time is reached, or `stop`.
    /// The time limit covers every stage: the teacher and self-play stop at it (their finished
    /// games kept), the run trains on what it has, gates without a ladder, and ends.
    pub fn run(&mut self, progress: &mut ProgressFn, stop: &AtomicBool) -> Result<()> {
        let started = Instant::now();
        let c = self.trainer.config().clone();
        let deadline = (c.time_limit_minutes > 0.0).then(|| started + std::time::Duration::from_secs_f64(c.time_limit_minutes * 60.0));
        // What the game-playing stages watch: `stop`, or the deadline reached.
        let stages = AtomicBool::new(false);
        let ended = AtomicBool::new(false);
        std::thread::scope(|scope| {
            if let Some(d) = deadline {
                let (stages, ended) = (&stages, &ended);
                scope.spawn(move || {
                    while !ended.load(Ordering::Relaxed) {
                        if stop.load(Ordering::Relaxed) || Instant::now() >= d {
                            stages.store(true, Ordering::Relaxed);
                        }
                        std::thread::sleep(std::time::Duration::from_millis(50));
                    }
                });
            }
            let r = self.generations(progress, stop, if deadline.is_some() { &stages } else { stop }, deadline);
            ended.store(true, Ordering::Relaxed);
            r
        })
    }

    /// [`Pipeline::run`]'s loop; `stages` is what the teacher and self-play stop at.
    fn generations(&mut self, progress: &mut ProgressFn, stop: &AtomicBool, stages: &AtomicBool, deadline: Option<Instant>) -> Result<()> {
        let started = Instant::now();
        let c = self.trainer.config().clone();
        let time_up = || deadline.is_some_and(|d| Instant::now() >= d);
        self.run.append_event(&Event::Start(StartEvent { time: now(), generation: self.meta.iteration }))?;
        // Rounds in a row that trained nothing: self-play that yields no readable data would
        // otherwise write shards for ever.
        let mut idle = 0;
        loop {
            self.sync()?;
            // Past the time limit the candidate is gated, but no ladder starts.
            if time_up() {
                self.gate_without_ladder(progress)?
            } else {
                self.gate(progress)?
            }
            if c.iterations > 0 && self.meta.iteration >= c.iterations {
                tracing::info!("reached train.iterations = {} (generation {}); stopping", c.iterations, self.meta.iteration);
                return Ok(());
            }
            if time_up() {
                tracing::info!("reached train.time_limit_minutes = {}; stopping", c.time_limit_minutes);
                return Ok(());
            }
            if stop.load(Ordering::Relaxed) {
                return Ok(());
            }
            if self.meta.iteration == 0 {
                self.teach(progress, stages)?;
                if stop.load(Ordering::Relaxed) {
                    return Ok(());
                }
            }
            if self.pending_games < c.games_per_iteration && !time_up() {
                self.selfplay(c.games_per_iteration - self.pending_games, progress, stages)?;
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
