//! `junglezero train`, `learn`, `gate` and `selfplay --run`: the pipeline's stages over a run
//! directory.

use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;

use indicatif::ProgressBar;
use junglezero::config::Config;
use junglezero::flip::FlipGame;
use junglezero::games::GameName;
use junglezero::jungle::JungleGame;
use junglezero::pipeline::{Pipeline, RunGame};
use junglezero::selfplay::stage::play_into_run;
use junglezero::store::run::RunDir;

use super::progress::bar;
use crate::cli::{DumpArgs, RunArgs, TrainArgs};

/// One progress bar per stage, replaced when the stage changes. When stderr is not a terminal
/// (bars hidden), a progress line is logged every 30 s instead.
struct StageBars {
    current: Option<(String, ProgressBar)>,
    terminal: bool,
    last_log: std::time::Instant,
}

impl StageBars {
    fn new() -> StageBars {
        use std::io::IsTerminal;
        StageBars { current: None, terminal: std::io::stderr().is_terminal(), last_log: std::time::Instant::now() }
    }

    fn update(&mut self, stage: &str, done: u64, total: u64, msg: &str) {
        if !self.terminal {
            if self.last_log.elapsed().as_secs() >= 30 || (done == total && total > 0 && stage == "train") {
                self.last_log = std::time::Instant::now();
                tracing::info!("{stage} {done}/{total}: {msg}");
            }
            return;
        }
        let fresh = match &self.current {
            Some((s, pb)) if s == stage && pb.length() == Some(total) => false,
            _ => true,
        };
        if fresh {
            if let Some((_, pb)) = self.current.take() {
                pb.finish_and_clear();
            }
            let unit = if stage == "train" { "steps" } else { "games" };
            let pb = bar(total, unit);
            pb.set_prefix(stage.to_string());
            self.current = Some((stage.to_string(), pb));
        }
        if let Some((_, pb)) = &self.current {
            pb.set_position(done);
            pb.set_message(format!("{stage}: {msg}"));
        }
    }

    fn finish(&mut self) {
        if let Some((_, pb)) = self.current.take() {
            pb.finish_and_clear();
        }
    }
}

/// The config for a run: `--config` if given, else the run's snapshot, else the defaults;
/// then each `--set`.
fn run_config(run: &Path, file: Option<&Path>, set: &[String]) -> anyhow::Result<Config> {
    let snapshot = run.join("config.toml");
    let source = match file {
        Some(f) => Some(f.to_path_buf()),
        None if snapshot.is_file() => Some(snapshot),
        None => None,
    };
    let config = Config::load(source.as_deref(), set)?;
    config.hardware.validate()?;
    Ok(config)
}

fn default_run_path(config_file: Option<&Path>) -> PathBuf {
    let name = config_file.and_then(|p| p.file_stem()).map_or_else(|| "default".to_string(), |s| s.to_string_lossy().into_owned());
    PathBuf::from("checkpoints").join(name)
}

pub fn train(args: TrainArgs) -> anyhow::Result<()> {
    let run_path = args.run.clone().unwrap_or_else(|| default_run_path(args.config.config.as_deref()));
    let config = run_config(&run_path, args.config.config.as_deref(), &args.config.set)?;
    let _lock = RunDir::new(&run_path).lock_trainer()?;
    match config.game {
        GameName::Jungle => train_game::<JungleGame>(&run_path, config),
        GameName::Flip => train_game::<FlipGame>(&run_path, config),
    }
}

fn train_game<G: RunGame>(run_path: &Path, config: Config) -> anyhow::Result<()> {
    let mut pipeline = Pipeline::<G>::open(RunDir::new(run_path), config)?;
    let c = &pipeline.config;
    tracing::info!(
        "training {} ({}) in {}: {} games per generation, {} net on {}, {} self-play workers x {} games in flight",
        pipeline.run.name(),
        G::SHAPE.game,
        run_path.display(),
        c.train.games_per_iteration,
        c.model.describe(),
        c.hardware.describe(),
        c.selfplay.worker_count(),
        c.selfplay.games_in_flight
    );
    let stop = AtomicBool::new(false);
    let mut bars = StageBars::new();
    let result = pipeline.run(&mut |stage, done, total, msg| bars.update(stage, done, total, msg), &stop);
    bars.finish();
    result?;
    let best = pipeline.run.best().map_or_else(|| "none".into(), |(g, p)| format!("gen-{g:04} ({})", p.display()));
    println!(
        "run {} generation {} steps {} games {} best {best}",
        run_path.display(),
        pipeline.meta.iteration,
        pipeline.meta.step,
        pipeline.meta.games_seen
    );
    Ok(())
}

fn existing_run(path: &Path) -> anyhow::Result<RunDir> {
    let run = RunDir::new(path);
    if !run.exists() {
        anyhow::bail!("{} is not a training run (no config.toml); start one with `junglezero train --run {}`", path.display(), path.display());
    }
    Ok(run)
}

pub fn learn(args: RunArgs) -> anyhow::Result<()> {
    let run = existing_run(&args.run)?;
    let config = run_config(&args.run, None, &args.set)?;
    let _lock = run.lock_trainer()?;
    match config.game {
        GameName::Jungle => learn_game::<JungleGame>(run, config),
        GameName::Flip => learn_game::<FlipGame>(run, config),
    }
}

fn learn_game<G: RunGame>(run: RunDir, config: Config) -> anyhow::Result<()> {
    let mut pipeline = Pipeline::<G>::open(run, config)?;
    let stop = AtomicBool::new(false);
    let mut bars = StageBars::new();
    let out = pipeline.learn(&mut |s, d, t, m| bars.update(s, d, t, m), &stop);
    bars.finish();
    match out? {
        Some(g) => println!("learn: wrote candidate gen-{g:04} (step {})", pipeline.meta.step),
        None => println!("learn: no new games since the last training stage; nothing to do"),
    }
    Ok(())
}

pub fn gate(args: RunArgs) -> anyhow::Result<()> {
    let run = existing_run(&args.run)?;
    let config = run_config(&args.run, None, &args.set)?;
    let _lock = run.lock_trainer()?;
    let waiting = run.candidates().len();
    match config.game {
        GameName::Jungle => JungleGame::gate(&run, &config)?,
        GameName::Flip => FlipGame::gate(&run, &config)?,
    }
    let best = run.best().map_or_else(|| "none".into(), |(g, _)| format!("gen-{g:04}"));
    println!("gate: {waiting} candidate(s) gated; best is {best}");
    Ok(())
}

/// `dump --run DIR [--last N] --out FILE`
pub fn dump(args: DumpArgs) -> anyhow::Result<()> {
    let run = existing_run(&args.run)?;
    let config = run_config(&args.run, None, &[])?;
    match config.game {
        GameName::Jungle => dump_game::<JungleGame>(&run, &config, &args),
        GameName::Flip => dump_game::<FlipGame>(&run, &config, &args),
    }
}

fn dump_game<G: RunGame>(run: &RunDir, config: &Config, args: &DumpArgs) -> anyhow::Result<()> {
    use junglezero::train::dump::{DumpError, window_shards, write_dump};
    let rules = G::rules(config);
    let paths = run.shards();
    if paths.is_empty() {
        return Err(DumpError::NoShards(run.games_dir()).into());
    }
    let (shards, skipped) = window_shards::<G>(&paths, &rules, &config.train, args.last)?;
    let names = shards.iter().map(|s| run.relative(&s.path)).collect();
    let summary = write_dump(&shards, &rules, &args.out, names, skipped)?;
    println!(
        "dump: {} positions from {} shards ({} games skipped) to {} and {}",
        summary.positions,
        summary.shards,
        summary.skipped_games,
        args.out.display(),
        summary.sidecar.display()
    );
    Ok(())
}

/// `selfplay --run DIR --games N`
pub fn selfplay_for_run(path: &Path, games: u64, set: &[String]) -> anyhow::Result<()> {
    let run = existing_run(path)?;
    let config = run_config(path, None, set)?;
    match config.game {
        GameName::Jungle => selfplay_game::<JungleGame>(path, run, &config, games),
        GameName::Flip => selfplay_game::<FlipGame>(path, run, &config, games),
    }
}

fn selfplay_game<G: RunGame>(path: &Path, run: RunDir, config: &Config, games: u64) -> anyhow::Result<()> {
    let (g, model) = run.best().ok_or_else(|| anyhow::anyhow!("{}: no model in models/", path.display()))?;
    let evaluator = junglezero::nn::burn_eval::NetEvaluator::load(&model, &config.hardware, G::SHAPE)?;
    tracing::info!("self-play for run {} with gen-{g:04}: {games} games", path.display());
    let stop = AtomicBool::new(false);
    let mut bars = StageBars::new();
    let stage = G::stage(config);
    let s = play_into_run(&run, &stage, &evaluator, evaluator.id(), g, games, g + 1, &mut |st, d, t, m| bars.update(st, d, t, m), &stop);
    bars.finish();
    let s = s?;
    println!("selfplay games {} moves {} evals {} time {:.1} s", s.games, s.moves, s.evals, s.seconds);
    Ok(())
}
