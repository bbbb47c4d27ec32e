//! `junglezero train`, `learn`, `gate` and `selfplay --run`: the pipeline's stages over a run
//! directory.

use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;

use clap::Args;

use crate::cli::ConfigArgs;
use crate::config::Config;
use crate::pipeline::{Pipeline, PipelineError, RunGame};
use crate::selfplay::stage::play_into_run;
use crate::store::run::RunDir;
use indicatif::ProgressBar;

use super::progress::bar;

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
        let fresh = !matches!(&self.current, Some((s, pb)) if s == stage && pb.length() == Some(total));
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
fn run_config(run: &RunDir, file: Option<&Path>, set: &[String]) -> anyhow::Result<Config> {
    let snapshot = run.config_path();
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
    let spec = args.run.clone().unwrap_or_else(|| default_run_path(args.config.config.as_deref()).display().to_string());
    let run = RunDir::open(&spec, "train")?;
    run.pull(None)?;
    let config = run_config(&run, args.config.config.as_deref(), &args.config.set)?;
    let _lock = run.lock_trainer()?;
    let from = ConfigFrom { file: args.config.config.is_some(), set: !args.config.set.is_empty(), command: "train" };
    crate::with_game!(config.game, G => train_game::<G>(run, config, args.rebuild, &from))
}

/// Where a command's config came from, to say how to undo a config that is not the run's.
struct ConfigFrom {
    /// `--config FILE` was given.
    file: bool,
    /// `--set` was given.
    set: bool,
    command: &'static str,
}

/// Opens the run; a config that asks for another game or network than the run trains is
/// refused with the fix for the flags that brought it.
fn open<G: RunGame>(run: RunDir, config: Config, rebuild: bool, from: &ConfigFrom) -> anyhow::Result<Pipeline<G>> {
    let location = run.location();
    Pipeline::<G>::open_with(run, config, rebuild).map_err(|e| match e {
        PipelineError::ConfigDisagrees(what) => {
            let fix = match (from.file, from.set) {
                (true, _) => format!(
                    "the run keeps its own config in config.toml: drop --config to resume it (`junglezero {} --run {location}`), or give a new --run directory to start a run with this config",
                    from.command
                ),
                (false, true) => "drop the --set that changes it to resume the run, or give a new --run directory to start a run with it".to_string(),
                (false, false) => "the run's config.toml no longer fits its trainer checkpoint".to_string(),
            };
            anyhow::anyhow!("{what}; {fix}")
        }
        e => e.into(),
    })
}

fn train_game<G: RunGame>(run: RunDir, config: Config, rebuild: bool, from: &ConfigFrom) -> anyhow::Result<()> {
    let location = run.location();
    // A `[tablebase]` folder that cannot be used is said before anything runs.
    if let Some(tb) = G::oracle(&config).map_err(|e| anyhow::anyhow!("[tablebase] dir: {e}"))? {
        tracing::info!(
            "endgame tables: {} (self-play {}, matches {})",
            config.tablebase.dir,
            onoff(config.tablebase.selfplay),
            onoff(config.tablebase.adjudicate)
        );
        drop(tb);
    }
    let mut pipeline = open::<G>(run, config, rebuild, from)?;
    let c = &pipeline.config;
    tracing::info!(
        "training {} ({}) in {location}: {} games per generation, {} net on {}, {} self-play workers x {} games in flight",
        pipeline.run.name(),
        G::SHAPE.game,
        c.train.games_per_iteration,
        c.model.describe(),
        c.hardware.describe(),
        c.selfplay.worker_count(),
        c.selfplay.games_in_flight
    );
    let stop = super::interrupt::on_ctrl_c();
    let mut bars = StageBars::new();
    let result = pipeline.run(&mut |stage, done, total, msg| bars.update(stage, done, total, msg), &stop);
    bars.finish();
    // What was finished reaches the store even when the loop stopped on an error.
    let pushed = pipeline.run.push();
    result?;
    pushed?;
    let best = pipeline.run.best().map_or_else(|| "none".into(), |(g, p)| format!("gen-{g:04} ({})", p.display()));
    println!("run {location} generation {} steps {} games {} best {best}", pipeline.meta.iteration, pipeline.meta.step, pipeline.meta.games_seen);
    Ok(())
}

fn existing_run(spec: &str, role: &str, only: Option<&[&str]>) -> anyhow::Result<RunDir> {
    let run = RunDir::open(spec, role)?;
    run.pull(only)?;
    if !run.exists() {
        anyhow::bail!("{spec} is not a training run (no config.toml); start one with `junglezero train --run {spec}`");
    }
    Ok(run)
}

pub fn learn(args: LearnArgs) -> anyhow::Result<()> {
    let run = RunDir::open(&args.run, "learn")?;
    run.pull(None)?;
    if !run.exists() && args.config.is_none() {
        anyhow::bail!(
            "{} is not a training run (no config.toml); create it with `junglezero learn --run {} --config FILE` or `junglezero train`",
            args.run,
            args.run
        );
    }
    let config = run_config(&run, args.config.as_deref(), &args.set)?;
    let _lock = run.lock_trainer()?;
    let from = ConfigFrom { file: args.config.is_some(), set: !args.set.is_empty(), command: "learn" };
    crate::with_game!(config.game, G => learn_game::<G>(run, config, args.min_games, args.rebuild, &from))
}

/// "on" or "off".
fn onoff(b: bool) -> &'static str {
    if b { "on" } else { "off" }
}

fn learn_game<G: RunGame>(run: RunDir, config: Config, min_games: u64, rebuild: bool, from: &ConfigFrom) -> anyhow::Result<()> {
    let mut pipeline = open::<G>(run, config, rebuild, from)?;
    let stop = AtomicBool::new(false);
    let mut bars = StageBars::new();
    let mut progress = |s: &str, d: u64, t: u64, m: &str| bars.update(s, d, t, m);
    let out = (|| {
        if pipeline.meta.iteration == 0 {
            pipeline.teach(&mut progress, &stop)?;
        }
        if pipeline.pending_games() < min_games.max(1) {
            return Ok(None);
        }
        pipeline.learn(&mut progress, &stop)
    })();
    bars.finish();
    let pushed = pipeline.run.push();
    let out = out?;
    pushed?;
    match out {
        Some(g) => println!("learn: wrote candidate gen-{g:04} (step {})", pipeline.meta.step),
        None => println!("learn: {} new games waiting, fewer than {}; nothing to do", pipeline.pending_games(), min_games.max(1)),
    }
    Ok(())
}

pub fn gate(args: RunArgs) -> anyhow::Result<()> {
    let run = existing_run(&args.run, "gate", Some(&["config.toml", "models", "candidates", "rejected", "metrics"]))?;
    let config = run_config(&run, None, &args.set)?;
    let _lock = run.lock_trainer()?;
    if run.settle()? > 0 {
        // The networks of finished verdicts are now in models/ or rejected/: read them again.
        run.pull(Some(&["models", "candidates", "rejected"]))?;
    }
    let waiting = run.candidates().len();
    let mut bars = StageBars::new();
    let mut progress = |s: &str, d: u64, t: u64, m: &str| bars.update(s, d, t, m);
    let gated = crate::with_game!(config.game, G => crate::pipeline::gate_run::<G>(&run, &config, &mut progress));
    bars.finish();
    let pushed = run.push();
    gated?;
    pushed?;
    let best = run.best().map_or_else(|| "none".into(), |(g, _)| format!("gen-{g:04}"));
    // The newest generation with a verdict (promoted or rejected), for drivers that wait on it.
    let decided = run.promoted().into_iter().chain(run.rejected()).map(|(g, _)| g).max().unwrap_or(0);
    println!("gate: {waiting} candidate(s) gated; best is {best}; newest decided gen-{decided:04}");
    Ok(())
}

/// `dump --run DIR [--last N] --out FILE`
pub fn dump(args: DumpArgs) -> anyhow::Result<()> {
    let run = existing_run(&args.run, "dump", Some(&["config.toml", "games", "train"]))?;
    let config = run_config(&run, None, &[])?;
    crate::with_game!(config.game, G => dump_game::<G>(&run, &config, &args))
}

fn dump_game<G: RunGame>(run: &RunDir, config: &Config, args: &DumpArgs) -> anyhow::Result<()> {
    use crate::train::dump::{DumpError, window_shards, write_dump};
    let rules = G::rules(config);
    // The outputs are checked before the shards are read.
    crate::store::Outputs::new(&[&args.out, &args.out.with_extension("json")], args.force)?;
    let paths = run.shards();
    if paths.is_empty() {
        return Err(DumpError::NoShards(run.games_dir()).into());
    }
    let (shards, skipped) = window_shards::<G>(&paths, &rules, &config.train, args.last)?;
    let names = shards.iter().map(|s| run.relative(&s.path)).collect();
    let summary = write_dump(&shards, &rules, &args.out, names, skipped, args.force)?;
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

/// `selfplay --run DIR|URL --games N`
pub fn selfplay_for_run(spec: &str, games: u64, set: &[String]) -> anyhow::Result<()> {
    let run = existing_run(spec, "selfplay", Some(&["config.toml", "models"]))?;
    let config = run_config(&run, None, set)?;
    let played = crate::with_game!(config.game, G => selfplay_game::<G>(spec, &run, &config, games));
    let pushed = run.push();
    played?;
    pushed?;
    Ok(())
}

fn selfplay_game<G: RunGame>(spec: &str, run: &RunDir, config: &Config, games: u64) -> anyhow::Result<()> {
    let (g, model) = run.best().ok_or_else(|| anyhow::anyhow!("{spec}: no model in models/"))?;
    let evaluator = crate::nn::NetEvaluator::load(&model, &config.hardware, G::SHAPE)?;
    tracing::info!("self-play for run {spec} with gen-{g:04}: {games} games");
    let stop = AtomicBool::new(false);
    let mut bars = StageBars::new();
    let stage = G::stage(config);
    let which = crate::selfplay::stage::StageGames { model_id: evaluator.id(), generation: g, games, iteration: g + 1 };
    let s = play_into_run(run, &stage, &evaluator, which, &mut |st, d, t, m| bars.update(st, d, t, m), &stop);
    bars.finish();
    let s = s?;
    println!("selfplay games {} moves {} evals {} time {:.1} s", s.games, s.moves, s.evals, s.seconds);
    Ok(())
}

#[derive(Args, Debug)]
pub struct TrainArgs {
    /// The run: a directory (default: checkpoints/<config name>) or an object-store URL
    /// (s3://bucket/prefix, gs://…, az://…, memory://). An existing run resumes.
    #[arg(long, value_name = "DIR|URL")]
    pub run: Option<String>,
    #[command(flatten)]
    pub config: ConfigArgs,
    /// Rebuild a missing, unreadable or outdated trainer checkpoint from the run's newest
    /// network and its shards (the optimiser starts afresh) instead of refusing the run.
    #[arg(long)]
    pub rebuild: bool,
}

#[derive(Args, Debug)]
pub struct LearnArgs {
    /// The run: a directory or an object-store URL.
    #[arg(long, value_name = "DIR|URL")]
    pub run: String,
    /// Create the run from this config if it does not exist yet (otherwise the run's snapshot
    /// is used).
    #[arg(long, value_name = "PATH")]
    pub config: Option<PathBuf>,
    /// Train only when at least this many new games are waiting (otherwise exit at once).
    #[arg(long, value_name = "N", default_value_t = 1)]
    pub min_games: u64,
    /// Override one setting of the run's config (repeatable).
    #[arg(long = "set", value_name = "KEY=VALUE")]
    pub set: Vec<String>,
    /// Rebuild a missing, unreadable or outdated trainer checkpoint from the run's newest
    /// network and its shards (the optimiser starts afresh) instead of refusing the run.
    #[arg(long)]
    pub rebuild: bool,
}

#[derive(Args, Debug)]
pub struct RunArgs {
    /// The run: a directory or an object-store URL.
    #[arg(long, value_name = "DIR|URL")]
    pub run: String,
    /// Override one setting of the run's config (repeatable).
    #[arg(long = "set", value_name = "KEY=VALUE")]
    pub set: Vec<String>,
}

#[derive(Args, Debug)]
pub struct DumpArgs {
    /// The run: a directory or an object-store URL.
    #[arg(long, value_name = "DIR|URL")]
    pub run: String,
    /// Dump the newest N shards (default: the shards of the trainer's replay window).
    #[arg(long, value_name = "N")]
    pub last: Option<usize>,
    /// The .npz file to write; its sidecar is the same name with .json.
    #[arg(long, value_name = "FILE")]
    pub out: PathBuf,
    /// Replace existing output files (a symbolic link is replaced itself; what it points to is
    /// never written). Without it an existing file is refused.
    #[arg(long)]
    pub force: bool,
}
