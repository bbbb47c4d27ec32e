//! `junglezero selfplay (--model PATH | --random-init) --games N --out-dir DIR`

use std::path::PathBuf;
use std::sync::atomic::Ordering;
use std::time::Instant;

use clap::Args;

use crate::cli::{ConfigArgs, ModelChoice};
use crate::config::Config;
use crate::pipeline::RunGame;
use crate::selfplay::shards::ShardWriter;
use crate::selfplay::{Counters, RunOptions, run as run_selfplay};

use super::progress::{bar, per_sec};

pub fn run(args: SelfplayArgs) -> anyhow::Result<()> {
    if let Some(run) = &args.run {
        return super::train::selfplay_for_run(run, args.games, &args.config.set);
    }
    let Some(out) = args.out.clone() else {
        anyhow::bail!("selfplay needs --out-dir DIR (with --model PATH or --random-init) or --run DIR");
    };
    if args.network.model.is_none() && !args.network.random_init {
        anyhow::bail!("selfplay --out-dir needs --model PATH or --random-init");
    }
    let config = super::load_config(&args.config)?;
    crate::with_game!(config.game, G => play_out::<G>(&args, &config, &out))
}

/// `--games` games of `G` into `out`.
fn play_out<G: RunGame>(args: &SelfplayArgs, config: &Config, out: &std::path::Path) -> anyhow::Result<()> {
    let seed = args.seed.unwrap_or_else(super::clock_seed);
    let evaluator = super::evaluator_from(&args.network, config, G::SHAPE, seed)?;
    std::fs::create_dir_all(out).map_err(|e| anyhow::anyhow!("cannot create {}: {e}", out.display()))?;
    tracing::info!(
        "self-play: {} games, network {}, seed {seed}, {} workers x {} games in flight, output {}",
        args.games,
        evaluator.describe(),
        config.selfplay.worker_count(),
        config.selfplay.games_in_flight,
        out.display()
    );
    let stage = G::stage(config);
    let opts = RunOptions::<G> { finish: stage.finish.clone(), ..RunOptions::from_start(args.games, seed, evaluator.id(), &stage.rules) };
    let counters = Counters::default();
    let pb = bar(args.games, "games");
    let start = Instant::now();
    let plies = std::cell::Cell::new(0u64);
    let mut writer = ShardWriter::<G>::new(out, "selfplay", config.selfplay.games_per_shard);
    let server = crate::mcts::server::ServerStats::default();
    let result = crate::mcts::server::maybe_served(&evaluator, config.selfplay.server_config(), &server, |evaluator| {
        run_selfplay(
            evaluator,
            &config.mcts,
            &config.selfplay,
            &opts,
            &counters,
            |rec| {
                plies.set(plies.get() + rec.moves.len() as u64);
                if let Some(path) = writer.push(rec)? {
                    tracing::debug!("wrote {}", path.display());
                }
                Ok::<(), crate::store::StoreError>(())
            },
            || {
                let secs = start.elapsed().as_secs_f64();
                let games = counters.games.load(Ordering::Relaxed);
                pb.set_position(games);
                pb.set_message(format!(
                    "{:.0} moves/s, {:.0} evals/s, mean length {:.1}",
                    per_sec(counters.moves.load(Ordering::Relaxed), secs),
                    per_sec(counters.evals.load(Ordering::Relaxed), secs),
                    if games > 0 { plies.get() as f64 / games as f64 } else { 0.0 },
                ));
            },
        )
    });
    // Finished games are written even when a shard write failed part way.
    let last = writer.flush();
    result?;
    last?;
    let shards = writer.shards();
    pb.finish_and_clear();
    let secs = start.elapsed().as_secs_f64();
    let games = counters.games.load(Ordering::Relaxed);
    println!(
        "selfplay games {games} shards {shards} moves {} evals {} time {secs:.1} s evals/s {:.0} mean length {:.1} seed {seed}",
        counters.moves.load(Ordering::Relaxed),
        counters.evals.load(Ordering::Relaxed),
        per_sec(counters.evals.load(Ordering::Relaxed), secs),
        if games > 0 { plies.get() as f64 / games as f64 } else { 0.0 }
    );
    if config.selfplay.inference_server {
        println!("inference server: {} network calls, mean batch {:.1}", server.calls.load(Ordering::Relaxed), server.mean_batch());
    }
    Ok(())
}

#[derive(Args, Debug)]
pub struct SelfplayArgs {
    #[command(flatten)]
    pub network: ModelChoice,
    /// Number of games.
    #[arg(long)]
    pub games: u64,
    /// Directory for the game shards (with --model or --random-init; `--out` is the old
    /// spelling).
    #[arg(long = "out-dir", alias = "out", value_name = "DIR", conflicts_with = "run")]
    pub out: Option<PathBuf>,
    /// A training run (a directory or an object-store URL such as s3://bucket/run): play with
    /// its current best network into its games/ (several self-play processes, on any number of
    /// machines, may feed one trainer this way).
    #[arg(long, value_name = "DIR|URL", conflicts_with_all = ["model", "random_init"])]
    pub run: Option<String>,
    /// Random seed (default: from the clock; printed).
    #[arg(long)]
    pub seed: Option<u64>,
    #[command(flatten)]
    pub config: ConfigArgs,
}
