//! `junglezero bench ...`: benchmarks that print figures. The generic ones run for the game
//! the config names; the endgame tables' and the alpha-beta engine's are Jungle's (`jungle/`).

use std::io::Write;
use std::path::PathBuf;
use std::time::Instant;

use clap::Subcommand;

use crate::cli::{ConfigArgs, declared};
use crate::config::Config;
use crate::entries::HouseGame;
use crate::pipeline::RunGame;

use super::bench_game::BenchGame;

pub fn run(cmd: BenchCommand) -> anyhow::Result<()> {
    match cmd {
        BenchCommand::Perft { depth, runs, rules, moves } => {
            // No config flags: the default config's game and rules, with --rules over them.
            let c = Config::default();
            crate::with_game!(c.game, G => bench_perft::<G>(depth, runs, rules, moves, &c))
        }
        BenchCommand::Mcts { sims, runs, config } => {
            let c = super::load_config(&config)?;
            crate::with_game!(c.game, G => bench_mcts::<G>(sims, runs, &c))
        }
        BenchCommand::Search { depth, hash_mb } => super::jungle::bench_search::run(depth, hash_mb),
        BenchCommand::Nn { max_batch, threads, seconds, config } => {
            let c = super::load_config(&config)?;
            crate::with_game!(c.game, G => super::bench_nn::nn::<G>(max_batch, threads, seconds, &c))
        }
        BenchCommand::Selfplay { seconds, config } => {
            let c = super::load_config(&config)?;
            crate::with_game!(c.game, G => super::bench_nn::selfplay::<G>(seconds, &c))
        }
        BenchCommand::Train { steps, agree, run, config } => {
            let c = super::load_config(&config)?;
            let run = run.as_deref();
            match agree {
                Some(steps) => crate::with_game!(c.game, G => super::bench_nn::train_agree::<G>(steps, run, &c)),
                None => crate::with_game!(c.game, G => super::bench_nn::train::<G>(steps, run, &c)),
            }
        }
        BenchCommand::Agree { positions, batch, model, half_reference, config } => {
            let c = super::load_config(&config)?;
            crate::with_game!(c.game, G => super::bench_agree::run::<G>(positions, batch, model.as_deref(), half_reference, &c))
        }
        BenchCommand::Gate { draws, trials, config } => bench_gate(draws, trials, &config),
        BenchCommand::Player { model, sims, combos, tactics, config } => {
            let c = super::load_config(&config)?;
            crate::with_game!(c.game, G => super::bench_player::run::<G>(&model, sims, &combos, tactics, &c))
        }
        BenchCommand::Levels { elo, games, depths, opponents, out, force, concurrency, seed, config } => {
            let c = super::load_config(&config)?;
            let plan = super::bench_levels::Plan { elos: elo, games, depths, opponents: opponents as usize, dir: out, force, concurrency, seed };
            crate::with_game!(c.game, G => super::bench_levels::run::<G>(&plan, &c))
        }
        BenchCommand::Tb { tb, positions, depth, min_plies, config } => super::jungle::bench_tb::run(&tb, positions, depth, min_plies, &config),
        BenchCommand::Races { tb, model, sims, positions, min_plies, tactics, config } => {
            super::jungle::bench_races::run(&tb, &model, sims, positions, min_plies, tactics, &config)
        }
    }
}

/// MCTS without a network from every bench position at once (see `mcts::bench`).
fn bench_mcts<G: BenchGame>(sims: u32, runs: u32, config: &Config) -> anyhow::Result<()> {
    let roots = G::bench_roots(&<G as RunGame>::rules(config))?;
    let mut out = std::io::stdout().lock();
    let mut best = 0f64;
    let mut last = None;
    for run in 1..=runs.max(1) {
        let r = crate::mcts::bench::run(&roots, &config.mcts, sims);
        best = best.max(r.per_second());
        writeln!(out, "run {run} simulations {} time {:.3} sims/s {:.0} signature {:016x}", r.simulations, r.seconds, r.per_second(), r.signature)?;
        last = Some(r);
    }
    if let Some(r) = last {
        writeln!(out, "bench mcts positions {} sims {sims} simulations {} best sims/s {best:.0} signature {:016x}", roots.len(), r.simulations, r.signature)?;
    }
    Ok(())
}

/// Perft from the start position (after `moves`, under `rules` over `config`'s) on this thread,
/// `runs` times; the best run is the figure.
fn bench_perft<G: HouseGame>(depth: u32, runs: u32, rules: Option<String>, moves: Option<String>, config: &Config) -> anyhow::Result<()> {
    let position = crate::cli::PositionArgs { fen: None, rules, moves };
    let rules = super::rules_from_args::<G>(&position, config)?;
    let game = super::game_from_args::<G>(&position, &rules)?;
    let mut out = std::io::stdout().lock();
    let mut best = f64::INFINITY;
    let mut nodes = 0;
    for run in 1..=runs.max(1) {
        let start = Instant::now();
        nodes = game.perft(depth);
        let secs = start.elapsed().as_secs_f64();
        best = best.min(secs);
        writeln!(out, "run {run} perft {depth} nodes {nodes} time {secs:.3} nps {}", super::perft::rate(nodes, secs))?;
    }
    writeln!(out, "bench perft depth {depth} nodes {nodes} best {best:.3} s leaves/s {}", super::perft::rate(nodes, best))?;
    Ok(())
}

/// The gate's operating curve: promotion probability against the true Elo difference.
fn bench_gate(draws: f64, trials: u32, args: &ConfigArgs) -> anyhow::Result<()> {
    use crate::arena::gate_curve::{best_case_llr, promotion_curve};
    let config = super::load_config(args)?;
    let g = &config.gate;
    let mut out = std::io::stdout().lock();
    let (lo, hi) = g.sprt().bounds();
    writeln!(
        out,
        "gate: enabled {} max_games {} SPRT elo0 {} elo1 {} alpha {} beta {} (LLR bounds {lo:.2} / {hi:.2}), undecided: accept at score >= {}",
        g.enabled, g.max_games, g.elo0, g.elo1, g.alpha, g.beta, g.undecided_min_score
    )?;
    writeln!(
        out,
        "best-case LLR within max_games: {:.2} ({})",
        best_case_llr(g),
        if best_case_llr(g) >= hi { "the SPRT can accept" } else { "the SPRT can never accept H1" }
    )?;
    writeln!(out, "simulated: {trials} matches per point, draw ratio {draws}")?;
    writeln!(out, "{:>8} {:>10} {:>14} {:>10}", "elo", "P(promote)", "P(by SPRT H1)", "games")?;
    let elos = [-200.0, -100.0, -50.0, -25.0, 0.0, 25.0, 50.0, 100.0, 200.0];
    for p in promotion_curve(g, &elos, draws, trials, 1) {
        writeln!(out, "{:>8.0} {:>10.3} {:>14.3} {:>10.1}", p.elo, p.promote, p.promote_by_sprt, p.games)?;
    }
    Ok(())
}

#[derive(Subcommand, Debug)]
pub enum BenchCommand {
    /// Perft from the start position (or after --moves) on one thread; prints leaves per second.
    Perft {
        /// Perft depth.
        #[arg(long, default_value_t = 6)]
        depth: u32,
        /// Runs (the best is reported).
        #[arg(long, default_value_t = 3)]
        runs: u32,
        /// Rule switches, e.g. anti_chase=on.
        #[arg(long)]
        rules: Option<String>,
        /// Moves played from the start position first (the history the rules read).
        #[arg(long)]
        moves: Option<String>,
    },
    /// Tree search without a network (uniform priors, zero value) from the alpha-beta bench
    /// positions, all searches batched as in self-play: simulations per second and a signature
    /// that changes only when search behaviour does.
    Mcts {
        /// Simulations per position.
        #[arg(long, default_value_t = 20_000)]
        sims: u32,
        /// Runs (the best is reported).
        #[arg(long, default_value_t = 3)]
        runs: u32,
        #[command(flatten)]
        config: ConfigArgs,
    },
    /// Raw batched network inference: evals/s and GFLOP/s for batch sizes 1 to 1024.
    Nn {
        /// Largest batch size (powers of two from 1).
        #[arg(long, default_value_t = 1024)]
        max_batch: usize,
        /// Threads calling the network at once (sharing it), as self-play workers do.
        #[arg(long, default_value_t = 1)]
        threads: usize,
        /// Seconds per batch size.
        #[arg(long, default_value_t = 1.0)]
        seconds: f64,
        #[command(flatten)]
        config: ConfigArgs,
    },
    /// The configured inference path (`hardware.device`: the fused CPU path, a GPU through
    /// burn, or cuDNN) against burn on the CPU, with the same weights, over positions from
    /// random games: the largest differences of policy logits and values, and how often the two
    /// agree on the most likely move. Fails above half precision's tolerance.
    Agree {
        /// Positions compared.
        #[arg(long, default_value_t = 2048)]
        positions: usize,
        /// Positions per forward pass.
        #[arg(long, default_value_t = 256)]
        batch: usize,
        /// A model file (default: an untrained network of the config's shape).
        #[arg(long, value_name = "PATH")]
        model: Option<PathBuf>,
        /// Test the NVIDIA path's arithmetic on the CPU instead of the configured device: the
        /// CPU reference of what it computes in half precision (slow; no GPU needed).
        #[arg(long)]
        half_reference: bool,
        #[command(flatten)]
        config: ConfigArgs,
    },
    /// MCTS as a player (protocol, `play`, `analyse`) with a network: simulations per second
    /// from the alpha-beta bench positions for each threads x minibatch combination.
    Player {
        /// The network (.jzm).
        #[arg(long, value_name = "PATH")]
        model: PathBuf,
        /// Simulations per position.
        #[arg(long, default_value_t = 2000)]
        sims: u32,
        /// Combinations THREADSxMINIBATCH to time.
        #[arg(long, value_delimiter = ',', default_value = "1x1,1x8,2x1,2x8")]
        combos: Vec<String>,
        /// Check each root with alpha-beta this many plies deep first (`mcts.play_tactics`;
        /// 0: no check).
        #[arg(long, default_value_t = 0, value_parser = declared::<u32>("mcts.play_tactics"))]
        tactics: u32,
        #[command(flatten)]
        config: ConfigArgs,
    },
    /// Alpha-beta with and without the endgame tables on 3-piece positions the tables know to
    /// be long wins: wins kept, fastest wins played, nodes and time.
    Tb {
        /// The tables' folder (3 pieces at least).
        #[arg(long, value_name = "DIR")]
        tb: PathBuf,
        /// Positions.
        #[arg(long, default_value_t = 100)]
        positions: usize,
        /// Alpha-beta's depth.
        #[arg(long, default_value_t = 8)]
        depth: u32,
        /// The shortest win sampled, in plies.
        #[arg(long, default_value_t = 15)]
        min_plies: u16,
        #[command(flatten)]
        config: ConfigArgs,
    },
    /// Den races the network must search out: MCTS with and without its solver on 3-piece
    /// positions the tables know to be long wins (the tables judge, MCTS does not see them):
    /// wins kept, fastest wins, wins proven at the root.
    Races {
        /// The tables' folder (3 pieces at least).
        #[arg(long, value_name = "DIR")]
        tb: PathBuf,
        /// The network (.jzm).
        #[arg(long, value_name = "PATH")]
        model: PathBuf,
        /// Simulations per position.
        #[arg(long, default_value_t = 800)]
        sims: u32,
        /// Positions.
        #[arg(long, default_value_t = 100)]
        positions: usize,
        /// The shortest win sampled, in plies.
        #[arg(long, default_value_t = 15)]
        min_plies: u16,
        /// Plies of the alpha-beta root check in the third row (`mcts.play_tactics`).
        #[arg(long, default_value_t = 6, value_parser = clap::value_parser!(u32).range(1..=24))]
        tactics: u32,
        #[command(flatten)]
        config: ConfigArgs,
    },
    /// Play at a chosen strength, measured: the classical engine at each level of --elo
    /// against the ladder's anchors (its depths 1 to --depths; depth 1 = 0) and the next level
    /// up, from random openings, all rated together;
    /// prints the requested against the measured Elo. Resumes from its folder like `tournament`.
    Levels {
        /// The levels (Elo), e.g. -300,0,300,600.
        #[arg(long, value_delimiter = ',', allow_hyphen_values = true, required = true)]
        elo: Vec<i32>,
        /// Games of each pairing.
        #[arg(long, default_value_t = 40, value_parser = clap::value_parser!(u32).range(2..=100_000))]
        games: u32,
        /// The deepest anchor.
        #[arg(long, default_value_t = 8, value_parser = clap::value_parser!(u32).range(2..=16))]
        depths: u32,
        /// Anchors each level plays: those rated nearest to it.
        #[arg(long, default_value_t = 3, value_parser = clap::value_parser!(u32).range(1..=16))]
        opponents: u32,
        /// The folder: the anchors' games, the levels' games and results.json.
        #[arg(long = "out-dir", value_name = "DIR", default_value = "levels")]
        out: PathBuf,
        /// Write into a folder whose results.json is not this bench's (it is replaced).
        #[arg(long)]
        force: bool,
        /// Games played at once (0: one per CPU core; default: the config's arena.concurrency).
        #[arg(long, value_parser = declared::<u64>("arena.concurrency"))]
        concurrency: Option<u64>,
        /// Seed of the random openings.
        #[arg(long, default_value_t = 1)]
        seed: u64,
        #[command(flatten)]
        config: ConfigArgs,
    },
    /// Training samples per second for the configured net and the GPU-sized net.
    Train {
        /// Timed optimiser steps per net (after two warm-up steps).
        #[arg(long, default_value_t = 10)]
        steps: u32,
        /// Instead of timing, train the configured net this many steps from one seed with the
        /// fused tower and with burn's, and print how far apart the two loss curves run.
        #[arg(long, value_parser = clap::value_parser!(u32).range(1..=100_000))]
        agree: Option<u32>,
        /// Draw the batches from this run's replay window as training does (augmentation and
        /// targets included) instead of synthetic positions; the time a draw takes is printed.
        #[arg(long, value_name = "DIR")]
        run: Option<String>,
        #[command(flatten)]
        config: ConfigArgs,
    },
    /// Self-play with the configured net for a fixed time, compared with raw batched inference
    /// of the same net at the same batch size and number of calling threads.
    Selfplay {
        /// Seconds of self-play.
        #[arg(long, default_value_t = 30.0)]
        seconds: f64,
        #[command(flatten)]
        config: ConfigArgs,
    },
    /// The configured gate's promotion probability and games played as functions of the
    /// candidate's true Elo difference (simulated matches).
    Gate {
        /// Draw ratio of the simulated games.
        #[arg(long, default_value_t = 0.3)]
        draws: f64,
        /// Simulated matches per Elo difference.
        #[arg(long, default_value_t = 4000)]
        trials: u32,
        #[command(flatten)]
        config: ConfigArgs,
    },
    /// Fixed-depth alpha-beta searches of a fixed set of positions; prints the total node
    /// count (a signature of the search) and nodes per second.
    Search {
        /// Search depth for every position.
        #[arg(long, default_value_t = 14)]
        depth: u32,
        /// Transposition table size in MiB (cleared before each position).
        #[arg(long, default_value_t = 64)]
        hash_mb: usize,
    },
}
