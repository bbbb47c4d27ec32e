//! `junglezero bench nn|selfplay|train`: the network's speed alone, in self-play, and in
//! training, for the game the config names.

use std::io::Write;

use crate::config::Config;
use crate::nn::NetEvaluator;
use crate::nn::device::parse_device;
use crate::nn::measure::bench::raw_throughput;
use crate::nn::model::ModelConfig;
use crate::pipeline::RunGame;

/// Raw inference: positions per second at each power-of-two batch up to `max_batch`.
pub fn nn<G: RunGame>(max_batch: usize, threads: usize, seconds: f64, config: &Config) -> anyhow::Result<()> {
    let rules = <G as RunGame>::rules(config);
    let eval = NetEvaluator::random_init(&config.model, G::SHAPE, &config.hardware, 1)?;
    let flops = config.model.flops_per_position(G::SHAPE) as f64;
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
        let rate = raw_throughput::<G>(&eval, &rules, batch, threads, seconds);
        writeln!(out, "batch {batch:5} evals/s {rate:9.0} GFLOP/s {:7.2}", rate * flops / 1e9)?;
        out.flush()?;
        batch *= 2;
    }
    if let Some(tunings) = eval.gpu_tunings() {
        writeln!(out, "cuDNN algorithm tunings: {tunings} (one per stream and power-of-two batch bucket)")?;
    }
    Ok(())
}

/// Self-play evals/s against raw inference at the same batch size and thread count. The last
/// line is exactly `selfplay evals/s X raw evals/s Y ratio Z`.
pub fn selfplay<G: RunGame>(seconds: f64, config: &Config) -> anyhow::Result<()> {
    let rules = <G as RunGame>::rules(config);
    let eval = NetEvaluator::random_init(&config.model, G::SHAPE, &config.hardware, 1)?;
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
    let server = crate::mcts::server::ServerStats::default();
    let r = crate::mcts::server::maybe_served(&eval, config.selfplay.server_config(), &server, |e| {
        crate::selfplay::bench::measure::<G, _>(e, &config.mcts, &config.selfplay, rules.clone(), seconds)
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
    let y = raw_throughput::<G>(&eval, &rules, mean_batch, threads, (seconds / 3.0).clamp(2.0, 10.0));
    if let Some(tunings) = eval.gpu_tunings() {
        writeln!(out, "cuDNN algorithm tunings: {tunings} (one per stream and power-of-two batch bucket)")?;
    }
    writeln!(out, "selfplay evals/s {x:.0} raw evals/s {y:.0} ratio {:.3}", x / y)?;
    Ok(())
}

/// `bench train --agree N`: the configured net trained `steps` steps from one seed with the
/// fused tower (on the configured and a second instruction set) and with burn's (twice), on
/// the same batches; prints the largest relative differences of the loss curves.
pub fn train_agree<G: RunGame>(steps: u32, run: Option<&str>, config: &Config) -> anyhow::Result<()> {
    use crate::train::TowerKernels;
    use crate::train::bench::loss_curve;
    let device = parse_device(&config.hardware.device)?.autodiff();
    let b = config.train.batch_size;
    let batches: Vec<_> = match run {
        // Real data: up to 50 different batches of the run's window, then again.
        Some(dir) => replay_batches::<G>(dir, config, b, (steps as usize).min(50))?.0,
        None => (1..=4).map(|k| crate::train::bench::synthetic_batch::<G>(&<G as RunGame>::rules(config), b + k)).collect(),
    };
    let curve_on = |tower, kernels| {
        let train = crate::train::TrainConfig { tower, ..config.train.clone() };
        loss_curve(&config.model, G::SHAPE, &train, kernels, &device, &batches, steps)
    };
    let curve = |tower| curve_on(tower, config.hardware.cpu_kernels);
    let fused = curve(TowerKernels::Fused)?;
    // The fused step on a second instruction set: the same arithmetic rounded otherwise.
    let other = match crate::nn::infer::cpu::kernels::KernelSet::choose(config.hardware.cpu_kernels).map(|k| k.lanes()) {
        Ok(16) => crate::nn::infer::cpu::kernels::CpuKernels::Avx2,
        _ => crate::nn::infer::cpu::kernels::CpuKernels::Portable,
    };
    let fused_other = curve_on(TowerKernels::Fused, other)?;
    let burn = curve(TowerKernels::Burn)?;
    // burn against itself: the yardstick for how far two runs of one path may drift.
    let burn_again = curve(TowerKernels::Burn)?;
    let mut out = std::io::stdout().lock();
    let data = run.map_or_else(|| "synthetic batches".to_string(), |d| format!("batches of {d}'s replay window"));
    let label = format!("agree net {} batch {b} tower {}: {steps} steps from seed 1 on {data}", config.model.describe(), tower_name(config));
    writeln!(out, "{label}, loss {:.4} -> {:.4} (fused), {:.4} -> {:.4} (burn)", fused[0], fused[fused.len() - 1], burn[0], burn[burn.len() - 1])?;
    let other_name = format!("fused on {other:?} against fused");
    for (name, a, b) in [("fused against burn", &fused, &burn), ("burn against burn", &burn_again, &burn), (other_name.as_str(), &fused_other, &fused)] {
        let (step, at) = largest_gap(a, b, 1);
        let (window, wat) = largest_gap(a, b, 10);
        writeln!(
            out,
            "  {name}: largest relative difference {:.3}% (step {at}), of 10-step means {:.3}% (steps {}-{})",
            step * 100.0,
            window * 100.0,
            wat,
            wat + 9
        )?;
    }
    Ok(())
}

/// The largest relative difference of two loss curves' means over windows of `w` steps, and the
/// first step of that window (from 1).
fn largest_gap(a: &[f32], b: &[f32], w: usize) -> (f32, usize) {
    let windows = a.len().min(b.len()).saturating_sub(w - 1);
    (0..windows)
        .map(|i| {
            let (x, y) = (a[i..i + w].iter().sum::<f32>(), b[i..i + w].iter().sum::<f32>());
            ((x - y).abs() / y.abs().max(1e-6), i + 1)
        })
        .fold((0.0, 1), |m, x| if x.0 > m.0 { x } else { m })
}

/// What runs the tower in `bench train`: the fused step's instruction set, or burn.
fn tower_name(config: &Config) -> String {
    use crate::nn::infer::cpu::kernels::KernelSet;
    match (config.train.tower, KernelSet::choose(config.hardware.cpu_kernels)) {
        (crate::train::TowerKernels::Fused, Ok(k)) => format!("fused {}", k.name().split(' ').next().unwrap_or("?")),
        _ => "burn".into(),
    }
}

/// Optimiser steps per second on synthetic batches for the configured net and the GPU-sized
/// net, on the configured device.
pub fn train<G: RunGame>(steps: u32, run: Option<&str>, config: &Config) -> anyhow::Result<()> {
    use crate::train::bench::{seconds_per_step, synthetic_batch};
    let device = parse_device(&config.hardware.device)?.autodiff();
    let b = config.train.batch_size;
    let mut out = std::io::stdout().lock();
    let mut shapes = vec![("configured", config.model.clone())];
    if config.model != ModelConfig::gpu_sized() {
        shapes.push(("gpu-sized", ModelConfig::gpu_sized()));
    }
    let batch = match run {
        Some(dir) => {
            let (mut batches, draw) = replay_batches::<G>(dir, config, b, 20)?;
            writeln!(out, "batch of {b} drawn from {dir}'s replay window (augmentation and targets included): {:.2} ms", draw * 1e3)?;
            batches.swap_remove(0)
        }
        None => synthetic_batch::<G>(&<G as RunGame>::rules(config), b),
    };
    for (label, model) in shapes {
        let (per_step, t) = seconds_per_step(&model, G::SHAPE, &config.train, config.hardware.cpu_kernels, &device, &batch, steps)?;
        writeln!(
            out,
            "train {label} net {} batch {b} device {} tower {} optimizer {:?}: {:.0} samples/s ({per_step:.3} s/step)",
            model.describe(),
            config.hardware.describe(),
            tower_name(config),
            config.train.optimizer,
            b as f64 / per_step
        )?;
        let ms = |s: f64| s * 1e3;
        writeln!(
            out,
            "  per step: inputs {:.1} ms, forward and losses {:.1} ms, backward {:.1} ms, optimiser {:.1} ms",
            ms(t.inputs),
            ms(t.forward),
            ms(t.backward),
            ms(t.optimizer)
        )?;
    }
    Ok(())
}

/// `count` batches of `size` drawn as training draws them (`train::batch::sample_batch`, seeded)
/// from the replay window of the run at `dir` (its checkpoint's window; without a checkpoint,
/// every shard), and the mean seconds of one draw.
fn replay_batches<G: RunGame>(dir: &str, config: &Config, size: usize, count: usize) -> anyhow::Result<(Vec<crate::train::batch::Batch>, f64)> {
    use anyhow::Context;
    use rand::SeedableRng;

    use crate::train::batch::{Targets, sample_batch};
    use crate::train::replay::{ReplayWindow, load_shard};
    let run = crate::store::run::RunDir::open(dir, "bench")?;
    run.pull(None)?;
    let paths: Vec<std::path::PathBuf> = match crate::train::checkpoint::read(&run.checkpoint_path()) {
        Ok((meta, _, _)) => meta.window.iter().map(|rel| run.resolve(rel)).collect(),
        Err(_) => run.shards(),
    };
    let rules = <G as RunGame>::rules(config);
    let mut window = ReplayWindow::<G>::new();
    for path in &paths {
        window.push(load_shard::<G>(path, &rules).with_context(|| path.display().to_string())?.0);
    }
    anyhow::ensure!(!window.is_empty(), "{dir}: no games in its replay window");
    let c = &config.train;
    let targets = Targets { mirror: c.mirror, q_ratio: c.value_q_ratio, opponent_policy: config.model.opponent_policy };
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(1);
    let start = std::time::Instant::now();
    let batches =
        (0..count.max(1)).map(|_| sample_batch(&window, &rules, size, targets, &mut rng)).collect::<Option<Vec<_>>>().context("the window gave no batch")?;
    Ok((batches, start.elapsed().as_secs_f64() / count.max(1) as f64))
}
