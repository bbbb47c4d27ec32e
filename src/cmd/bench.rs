//! `junglezero bench ...`: benchmarks that print figures.

use std::io::Write;
use std::time::Instant;

use junglezero::alphabeta::bench::BENCH_FENS;
use junglezero::jungle::{JungleGame, parse_fen, perft};
use junglezero::nn::NetEvaluator;
use junglezero::nn::device::parse_device;
use junglezero::nn::measure::bench::raw_throughput;
use junglezero::nn::model::ModelConfig;

use crate::cli::{BenchCommand, ConfigArgs};

pub fn run(cmd: BenchCommand) -> anyhow::Result<()> {
    match cmd {
        BenchCommand::Perft { depth, runs, rules, moves } => bench_perft(depth, runs, rules, moves),
        BenchCommand::Mcts { sims, runs, config } => bench_mcts(sims, runs, &config),
        BenchCommand::Search { depth, hash_mb } => bench_search(depth, hash_mb),
        BenchCommand::Nn { max_batch, threads, seconds, config } => bench_nn(max_batch, threads, seconds, &config),
        BenchCommand::Selfplay { seconds, config } => bench_selfplay(seconds, &config),
        BenchCommand::Train { steps, config } => bench_train(steps, &config),
        BenchCommand::Agree { positions, batch, model, half_reference, config } => {
            let c = super::load_config(&config)?;
            junglezero::with_game!(c.game, G => bench_agree::<G>(positions, batch, model.as_deref(), half_reference, &c))
        }
        BenchCommand::Gate { draws, trials, config } => bench_gate(draws, trials, &config),
        BenchCommand::Player { model, sims, combos, tactics, config } => super::bench_player::run(&model, sims, &combos, tactics, &config),
        BenchCommand::Tb { tb, positions, depth, min_plies, config } => super::bench_tb::run(&tb, positions, depth, min_plies, &config),
        BenchCommand::Races { tb, model, sims, positions, min_plies, tactics, config } => {
            super::bench_races::run(&tb, &model, sims, positions, min_plies, tactics, &config)
        }
    }
}

/// Each bench position searched to `depth` on one thread from an empty table (see
/// `alphabeta::bench::run`).
fn bench_search(depth: u32, hash_mb: usize) -> anyhow::Result<()> {
    let mut out = std::io::stdout().lock();
    let rows = junglezero::alphabeta::bench::run(depth, hash_mb);
    for (i, r) in rows.iter().enumerate() {
        let best = r.result.best.map_or_else(|| "(none)".into(), |m| m.to_string());
        writeln!(out, "position {:2} nodes {:>10} time {:7.3} best {best} score {}  {}", i + 1, r.result.nodes, r.seconds, r.result.score, r.fen)?;
    }
    let nodes: u64 = rows.iter().map(|r| r.result.nodes).sum();
    let secs: f64 = rows.iter().map(|r| r.seconds).sum();
    writeln!(out, "bench search depth {depth} positions {} nodes {nodes} time {secs:.3} nps {}", rows.len(), super::perft::rate(nodes, secs))?;
    Ok(())
}

/// MCTS without a network from every bench position at once (see `mcts::bench`).
fn bench_mcts(sims: u32, runs: u32, args: &ConfigArgs) -> anyhow::Result<()> {
    let config = super::load_config(args)?;
    let roots = BENCH_FENS.iter().map(|f| Ok(JungleGame::new(parse_fen(f)?, config.rules))).collect::<anyhow::Result<Vec<_>>>()?;
    let mut out = std::io::stdout().lock();
    let mut best = 0f64;
    let mut last = None;
    for run in 1..=runs.max(1) {
        let r = junglezero::mcts::bench::run(&roots, &config.mcts, sims);
        best = best.max(r.per_second());
        writeln!(out, "run {run} simulations {} time {:.3} sims/s {:.0} signature {:016x}", r.simulations, r.seconds, r.per_second(), r.signature)?;
        last = Some(r);
    }
    if let Some(r) = last {
        writeln!(out, "bench mcts positions {} sims {sims} simulations {} best sims/s {best:.0} signature {:016x}", roots.len(), r.simulations, r.signature)?;
    }
    Ok(())
}

/// Perft from the start position (after `moves`, under `rules`) on this thread, `runs` times;
/// the best run is the figure.
fn bench_perft(depth: u32, runs: u32, rules: Option<String>, moves: Option<String>) -> anyhow::Result<()> {
    let position = crate::cli::PositionArgs { fen: None, rules, moves };
    let rules = super::rules_from_args::<junglezero::jungle::JungleGame>(&position, &junglezero::config::Config::default())?;
    let game = super::game_from_args::<junglezero::jungle::JungleGame>(&position, &rules)?;
    let mut out = std::io::stdout().lock();
    let mut best = f64::INFINITY;
    let mut nodes = 0;
    for run in 1..=runs.max(1) {
        let start = Instant::now();
        nodes = perft::perft_game(&game, depth);
        let secs = start.elapsed().as_secs_f64();
        best = best.min(secs);
        writeln!(out, "run {run} perft {depth} nodes {nodes} time {secs:.3} nps {}", super::perft::rate(nodes, secs))?;
    }
    writeln!(out, "bench perft depth {depth} nodes {nodes} best {best:.3} s leaves/s {}", super::perft::rate(nodes, best))?;
    Ok(())
}

fn bench_nn(max_batch: usize, threads: usize, seconds: f64, args: &ConfigArgs) -> anyhow::Result<()> {
    let config = super::load_config(args)?;
    let eval = NetEvaluator::random_init(&config.model, config.game.shape(), &config.hardware, 1)?;
    let flops = config.model.flops_per_position(config.game.shape()) as f64;
    let mut out = std::io::stdout().lock();
    writeln!(
        out,
        "net {} ({:.1} MFLOP/position) device {}{} threads {threads}",
        config.model.describe(),
        flops / 1e6,
        config.hardware.describe(),
        match eval.fused_options() {
            Some(o) => format!(" (fused CPU path: {})", o.describe()),
            None => " (burn kernels)".into(),
        }
    )?;
    let mut batch = 1;
    while batch <= max_batch.max(1) {
        let rate = raw_throughput(&eval, batch, threads, seconds);
        writeln!(out, "batch {batch:5} evals/s {rate:9.0} GFLOP/s {:7.2}", rate * flops / 1e9)?;
        out.flush()?;
        batch *= 2;
    }
    if let Some(tunings) = eval.gpu_tunings() {
        writeln!(out, "cuDNN algorithm tunings: {tunings} (one per stream and power-of-two batch bucket)")?;
    }
    Ok(())
}

/// The configured inference path (or, with `half_reference`, the CPU reference of the NVIDIA
/// path's half-precision arithmetic) against burn on the CPU, over `positions` positions of
/// random games of `G`, `batch` at a time. The last line is exactly `agree positions N policy
/// max-diff X value max-diff Y top-move Z %`; exit status 2 beyond half precision's tolerance
/// (`nn::measure::agree::HALF_PRECISION`).
fn bench_agree<G: junglezero::entries::HouseGame>(
    positions: usize,
    batch: usize,
    model: Option<&std::path::Path>,
    half_reference: bool,
    config: &junglezero::config::Config,
) -> anyhow::Result<()> {
    use junglezero::game::Turn;
    use junglezero::nn::infer::cpu::HostOutputs;
    use junglezero::nn::infer::gpu::plan::{GpuPlan, Precision};
    use junglezero::nn::measure::agree::{Agreement, HALF_PRECISION};
    use rand::{RngExt, SeedableRng};
    let hw_cpu = junglezero::nn::device::HardwareConfig { device: "flex".into(), fused_cpu: false, ..Default::default() };
    // Without a model, one random network, drawn on the CPU and written to a temporary file, so
    // both paths run the same weights (each device draws random numbers of its own).
    let temporary = std::env::temp_dir().join(format!("junglezero-agree-{}.jzm", std::process::id()));
    let path = match model {
        Some(path) => path,
        None => {
            let net = NetEvaluator::random_init(&config.model, G::SHAPE, &hw_cpu, 7)?;
            let meta =
                junglezero::nn::modelfile::fresh_meta(&config.model, G::SHAPE, &<G as junglezero::pipeline::RunGame>::rules(config).to_string(), "random-init");
            junglezero::nn::modelfile::save(&temporary, net.net(), &meta)?;
            &temporary
        }
    };
    // The tested path: the configured device, or the NVIDIA path's arithmetic on the CPU.
    enum Tested {
        Device(NetEvaluator),
        Half(GpuPlan),
    }
    let loaded = NetEvaluator::load(path, &hw_cpu, G::SHAPE).and_then(|r| {
        let tested = if half_reference {
            Tested::Half(GpuPlan::from_fused(&junglezero::nn::infer::cpu::FusedNet::from_net(r.net())))
        } else {
            Tested::Device(NetEvaluator::load(path, &config.hardware, G::SHAPE)?)
        };
        Ok((r, tested))
    });
    if model.is_none() {
        let _ = std::fs::remove_file(&temporary);
    }
    let (reference, tested) = loaded?;
    let (per, actions) = (G::INPUT_SIZE, G::SHAPE.actions());
    let tested_forward = |inputs: &[f32], n: usize| -> HostOutputs {
        match &tested {
            Tested::Device(t) => t.forward(inputs, n),
            Tested::Half(plan) => {
                // The reference is plain loops on one thread: a few positions on each.
                use rayon::prelude::*;
                let parts: Vec<HostOutputs> = inputs[..n * per].par_chunks(per * 4).map(|x| plan.reference(x, x.len() / per, Precision::Half)).collect();
                let join = |f: fn(&HostOutputs) -> &Vec<f32>| parts.iter().flat_map(|o| f(o).iter().copied()).collect();
                HostOutputs { policy: join(|o| &o.policy), wdl: join(|o| &o.wdl), moves_left: join(|o| &o.moves_left) }
            }
        }
    };
    // Positions of random games from the start (a game that ends starts again).
    let rules = <G as junglezero::pipeline::RunGame>::rules(config);
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(2026);
    let mut games: Vec<G> = Vec::with_capacity(positions);
    let mut g = G::start_under(&rules);
    let mut outcomes = Vec::new();
    while games.len() < positions {
        match g.turn() {
            Turn::Over(_) => g = G::start_under(&rules),
            Turn::Chance => {
                g.chance_outcomes(&mut outcomes);
                let m = outcomes[rng.random_range(0..outcomes.len())].0;
                g.play_unchecked(m);
            }
            Turn::Player(_) => {
                games.push(g.clone());
                let moves = g.legal_moves();
                let m = moves[rng.random_range(0..moves.len())];
                g.play_unchecked(m);
            }
        }
    }
    let mut agreement = Agreement::default();
    let mut out = std::io::stdout().lock();
    let tested_name = match &tested {
        Tested::Device(t) => format!("{} on {}", t.describe(), config.hardware.describe()),
        Tested::Half(_) => "the NVIDIA path's half-precision arithmetic, on the CPU (GpuPlan::reference)".into(),
    };
    writeln!(out, "reference: {} on the CPU through burn; tested: {tested_name}", reference.describe())?;
    for chunk in games.chunks(batch.max(1)) {
        let n = chunk.len();
        let mut inputs = vec![0.0f32; n * per];
        for (g, slot) in chunk.iter().zip(inputs.chunks_exact_mut(per)) {
            g.encode(slot);
        }
        let (a, b) = (reference.forward(&inputs, n), tested_forward(&inputs, n));
        for (i, game) in chunk.iter().enumerate() {
            let legal: Vec<usize> = game.legal_moves().iter().filter_map(|&m| game.try_action(m)).collect();
            agreement.add(&a, &b, i, actions, &legal);
        }
    }
    writeln!(out, "{}", agreement.limits(&HALF_PRECISION))?;
    writeln!(out, "{}", agreement.line())?;
    if !agreement.within(&HALF_PRECISION) {
        anyhow::bail!("the tested path disagrees with burn beyond half precision's tolerance ({})", agreement.limits(&HALF_PRECISION));
    }
    Ok(())
}

/// Self-play evals/s against raw inference at the same batch size and thread count. The last
/// line is exactly `selfplay evals/s X raw evals/s Y ratio Z`.
fn bench_selfplay(seconds: f64, args: &ConfigArgs) -> anyhow::Result<()> {
    let config = super::load_config(args)?;
    let eval = NetEvaluator::random_init(&config.model, config.game.shape(), &config.hardware, 1)?;
    let workers = config.selfplay.worker_count();
    let mut out = std::io::stdout().lock();
    writeln!(
        out,
        "net {} device {} workers {workers} games in flight {} sims {}/{} (full/fast)",
        config.model.describe(),
        config.hardware.describe(),
        config.selfplay.games_in_flight,
        config.selfplay.full_sims,
        config.selfplay.fast_sims
    )?;
    let server = junglezero::mcts::server::ServerStats::default();
    let r = junglezero::mcts::server::maybe_served(&eval, config.selfplay.server_config(), &server, |e| {
        junglezero::selfplay::bench::measure(e, &config.mcts, &config.selfplay, config.rules, seconds)
    });
    let x = r.evals_per_second();
    // Raw inference is measured the way the device was fed: the workers' own batches from as
    // many threads, or the server's merged batches from its one thread.
    let (mean_batch, threads) =
        if config.selfplay.inference_server { (server.mean_batch().round().max(1.0) as usize, 1) } else { (r.mean_batch().round().max(1.0) as usize, workers) };
    writeln!(
        out,
        "self-play: {} evals in {} batches (mean batch {:.0}), {} moves, {} games, {:.1} s, {:.0}% of worker time in the network",
        r.evals,
        r.batches.max(1),
        r.mean_batch(),
        r.moves,
        r.games,
        r.seconds,
        100.0 * r.eval_seconds / (r.seconds * workers as f64)
    )?;
    if config.selfplay.inference_server {
        writeln!(
            out,
            "inference server: {} network calls, mean batch {:.1} on the device",
            server.calls.load(std::sync::atomic::Ordering::Relaxed),
            server.mean_batch()
        )?;
    } else {
        writeln!(out, "no inference server: each worker calls the network, mean batch {mean_batch} on the device")?;
    }
    let y = raw_throughput(&eval, mean_batch, threads, (seconds / 3.0).clamp(2.0, 10.0));
    if let Some(tunings) = eval.gpu_tunings() {
        writeln!(out, "cuDNN algorithm tunings: {tunings} (one per stream and power-of-two batch bucket)")?;
    }
    writeln!(out, "selfplay evals/s {x:.0} raw evals/s {y:.0} ratio {:.3}", x / y)?;
    Ok(())
}

/// The gate's operating curve: promotion probability against the true Elo difference.
fn bench_gate(draws: f64, trials: u32, args: &ConfigArgs) -> anyhow::Result<()> {
    use junglezero::arena::gate_curve::{best_case_llr, promotion_curve};
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

/// Optimiser steps per second on synthetic batches for the configured net and the GPU-sized
/// net, on the configured device.
fn bench_train(steps: u32, args: &ConfigArgs) -> anyhow::Result<()> {
    use junglezero::train::bench::{seconds_per_step, synthetic_batch};
    let config = super::load_config(args)?;
    let device = parse_device(&config.hardware.device)?.autodiff();
    let b = config.train.batch_size;
    let mut out = std::io::stdout().lock();
    let mut shapes = vec![("configured", config.model.clone())];
    if config.model != ModelConfig::gpu_sized() {
        shapes.push(("gpu-sized", ModelConfig::gpu_sized()));
    }
    let batch = synthetic_batch::<junglezero::jungle::JungleGame>(&config.rules, b);
    for (label, model) in shapes {
        let per_step = seconds_per_step(&model, config.game.shape(), &config.train, &device, &batch, steps);
        writeln!(
            out,
            "train {label} net {} batch {b} device {} optimizer {:?}: {:.0} samples/s ({per_step:.3} s/step)",
            model.describe(),
            config.hardware.describe(),
            config.train.optimizer,
            b as f64 / per_step
        )?;
    }
    Ok(())
}
