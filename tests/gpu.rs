//! The GPU path on the wgpu backend against the CPU backend (`flex`): forward passes, one
//! training step and model files agree, and a tiny training run completes on the device.
//! Without a GPU, Debian's `mesa-vulkan-drivers` gives wgpu a software Vulkan device (lavapipe).
//!
//! ```sh
//! cargo test --release --features wgpu --test gpu
//! ```
#![cfg(feature = "wgpu")]

use std::path::{Path, PathBuf};
use std::process::Command;

use burn::prelude::*;
use junglezero::game::Game;
use junglezero::jungle::encode::{ACTIONS, INPUT_SIZE, SHAPE, encode};
use junglezero::jungle::{JungleGame, Rules};
use junglezero::nn::NetEvaluator;
use junglezero::nn::device::{check_device, parse_device};
use junglezero::nn::infer::cpu::HostOutputs;
use junglezero::nn::model::{ModelConfig, Net};
use junglezero::nn::modelfile::{self, fresh_meta};
use junglezero::store::run::RunDir;
use junglezero::train::TrainConfig;
use junglezero::train::bench::synthetic_batch;
use junglezero::train::trainer::{Trainer, optimizer};
use rand::{RngExt, SeedableRng};

const TOLERANCE: f32 = 1e-3;

fn model() -> ModelConfig {
    ModelConfig {
        blocks: 2,
        channels: 16,
        policy_channels: 8,
        value_channels: 3,
        value_hidden: 24,
        moves_left: true,
        opponent_policy: false,
        short_value: false,
    }
}

fn tmp(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("jz-gpu-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// The wgpu device, after checking that it opens (a failure names the missing adapter).
fn gpu() -> Device {
    match check_device("wgpu") {
        Ok(adapter) => eprintln!("wgpu adapter: {}", adapter.as_deref().unwrap_or("(unnamed)")),
        Err(e) => panic!("{e}"),
    }
    parse_device("wgpu").unwrap()
}

/// `real` positions from seeded random games, then `random` encodings of random 0/1 planes.
fn positions(real: usize, random: usize) -> Vec<f32> {
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(3);
    let mut x = Vec::with_capacity((real + random) * INPUT_SIZE);
    let mut g = JungleGame::default();
    let mut one = vec![0.0; INPUT_SIZE];
    while x.len() < real * INPUT_SIZE {
        if g.outcome().is_some() || g.ply() > 150 {
            g = JungleGame::default();
        }
        encode(&g, &mut one);
        x.extend_from_slice(&one);
        let moves = g.legal_moves();
        let m = moves[rng.random_range(0..moves.len())];
        g.play_unchecked(m);
    }
    for _ in 0..random * INPUT_SIZE {
        x.push(if rng.random_bool(0.15) { 1.0 } else { 0.0 });
    }
    x
}

/// Every output of `b` within `TOLERANCE` (absolute, or relative for large values) of `a`.
fn assert_close(a: &HostOutputs, b: &HostOutputs, what: &str) {
    let check = |x: &[f32], y: &[f32], part: &str| {
        assert_eq!(x.len(), y.len(), "{what}: {part} lengths");
        let (i, worst) =
            x.iter().zip(y).map(|(p, q)| (p - q).abs() / p.abs().max(1.0)).enumerate().fold((0, 0.0f32), |m, (i, d)| if d > m.1 { (i, d) } else { m });
        assert!(worst <= TOLERANCE, "{what}: {part}[{i}] {} vs {} (difference {worst})", x[i], y[i]);
    };
    check(&a.policy, &b.policy, "policy");
    check(&a.wdl, &b.wdl, "value");
    check(&a.moves_left, &b.moves_left, "moves left");
}

/// All of a network's weights, flattened in a fixed order.
fn weights(net: &Net) -> Vec<f32> {
    let p = net.parts();
    let mut t: Vec<Tensor<1>> = Vec::new();
    let mut conv = |c: &burn::nn::conv::Conv2d| {
        t.push(c.weight.val().flatten(0, 3));
        if let Some(b) = &c.bias {
            t.push(b.val());
        }
    };
    conv(p.stem_conv);
    for (c1, _, c2, _) in &p.blocks {
        conv(c1);
        conv(c2);
    }
    conv(p.policy_conv);
    conv(p.policy_out);
    conv(p.value_conv);
    for bn in [p.stem_bn, p.policy_bn, p.value_bn].into_iter().chain(p.blocks.iter().flat_map(|b| [b.1, b.3])) {
        t.push(bn.gamma.val());
        t.push(bn.beta.val());
    }
    for l in [p.value_fc1, p.value_fc2] {
        t.push(l.weight.val().flatten(0, 1));
        if let Some(b) = &l.bias {
            t.push(b.val());
        }
    }
    t.into_iter().flat_map(|x| x.into_data().try_into_vec::<f32>().unwrap()).collect()
}

/// A fresh network written to `dir`/start.jzm (made on the CPU, seeded).
fn saved_network(dir: &Path) -> PathBuf {
    let cpu = parse_device("flex").unwrap();
    let path = dir.join("start.jzm");
    let net = model().init_seeded(SHAPE, &cpu, 11);
    modelfile::save(&path, &net, &fresh_meta(&model(), SHAPE, &Rules::default().to_string(), "start")).unwrap();
    path
}

#[test]
fn forward_passes_match_the_cpu() {
    let gpu = gpu();
    let dir = tmp("forward");
    let path = saved_network(&dir);
    let cpu = NetEvaluator::from_file(&path, parse_device("flex").unwrap(), SHAPE).unwrap();
    let dev = NetEvaluator::from_file(&path, gpu, SHAPE).unwrap();
    // 200 positions from games and 100 random encodings in one batch, and one alone (every new
    // batch size costs the device a kernel tuning, slow on a software device).
    let x = positions(200, 100);
    let n = x.len() / INPUT_SIZE;
    let on_device = dev.forward(&x, n);
    assert_close(&cpu.forward(&x, n), &on_device, "a batch of 300");
    assert_close(&cpu.forward(&x[..INPUT_SIZE], 1), &dev.forward(&x[..INPUT_SIZE], 1), "one position");
    // The fused CPU path (the default for inference on the CPU) agrees as well.
    let fused = NetEvaluator::from_file(&path, parse_device("flex").unwrap(), SHAPE).unwrap().with_fused_cpu();
    assert_close(&fused.forward(&x, n), &on_device, "fused CPU path");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_training_step_matches_the_cpu_and_models_load_across_backends() {
    let gpu = gpu();
    let dir = tmp("train");
    let path = saved_network(&dir);
    let config = TrainConfig { lr: 0.05, lr_warmup_steps: 0, ..TrainConfig::default() };
    let batch = synthetic_batch::<JungleGame>(&Rules::default(), 64);
    let mut trained = Vec::new();
    for device in [parse_device("flex").unwrap().autodiff(), gpu.clone().autodiff()] {
        let (net, _) = modelfile::load(&path, &device, SHAPE).unwrap();
        let mut trainer = Trainer::new(net, optimizer(&config), device, &model(), &config, 0);
        let before = weights(&trainer.inference_net());
        let stats = trainer.step(&batch);
        let after = weights(&trainer.inference_net());
        assert!(before.iter().zip(&after).any(|(a, b)| a != b), "the step changed no weight");
        trained.push((stats, after, trainer.inference_net()));
    }
    let ((s_cpu, w_cpu, _), (s_gpu, w_gpu, net_gpu)) = (&trained[0], &trained[1]);
    for (name, a, b) in [
        ("policy loss", s_cpu.policy_loss, s_gpu.policy_loss),
        ("value loss", s_cpu.value_loss, s_gpu.value_loss),
        ("moves-left loss", s_cpu.moves_left_loss, s_gpu.moves_left_loss),
    ] {
        assert!((a - b).abs() <= TOLERANCE * a.abs().max(1.0), "{name}: cpu {a} wgpu {b}");
    }
    assert_eq!(w_cpu.len(), w_gpu.len());
    for (i, (a, b)) in w_cpu.iter().zip(w_gpu).enumerate() {
        assert!((a - b).abs() <= 1e-4 + TOLERANCE * a.abs(), "weight {i} after the step: cpu {a} wgpu {b}");
    }

    // The network trained on the device, saved there, loads on the CPU and computes the same.
    let moved = dir.join("trained-on-wgpu.jzm");
    modelfile::save(&moved, net_gpu, &fresh_meta(&model(), SHAPE, &Rules::default().to_string(), "moved")).unwrap();
    let x = positions(64, 0);
    let on_gpu = NetEvaluator::from_file(&moved, gpu, SHAPE).unwrap().forward(&x, 64);
    let on_cpu = NetEvaluator::from_file(&moved, parse_device("flex").unwrap(), SHAPE).unwrap().forward(&x, 64);
    assert_close(&on_cpu, &on_gpu, "a model saved from the wgpu device, loaded on both");
    assert_eq!(on_gpu.policy.len(), 64 * ACTIONS);
    std::fs::remove_dir_all(&dir).unwrap();
}

fn junglezero(args: &[&str], env: &[(&str, &str)]) -> std::process::Output {
    let mut c = Command::new(env!("CARGO_BIN_EXE_junglezero"));
    c.args(args);
    for (k, v) in env {
        c.env(k, v);
    }
    c.output().expect("the binary runs")
}

#[test]
fn a_tiny_training_run_completes_a_gated_generation_on_the_device() {
    let _ = gpu();
    let dir = tmp("run");
    let smoke = Path::new(env!("CARGO_MANIFEST_DIR")).join("configs/smoke.toml");
    let o = junglezero(
        &["train", "--config", smoke.to_str().unwrap(), "--run", dir.to_str().unwrap(), "--set", "hardware.device=wgpu", "--set", "train.iterations=1"],
        &[],
    );
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "{stderr}");
    assert!(stderr.contains("on wgpu ("), "the log names the adapter: {stderr}");
    let run = RunDir::new(&dir);
    assert!(run.candidates().is_empty(), "candidates left waiting: {:?}", run.candidates());
    let decided: Vec<u64> = run.promoted().into_iter().chain(run.rejected()).map(|(g, _)| g).collect();
    assert!(decided.contains(&1), "generation 1 was not gated: {decided:?}");
    let (events, problems) = run.read_events();
    assert!(problems.is_empty(), "{problems:?}");
    let kinds: Vec<String> = events.iter().map(|e| serde_json::to_value(e).unwrap()["kind"].as_str().unwrap_or("").to_string()).collect();
    for k in ["train", "gate"] {
        assert!(kinds.iter().any(|x| x == k), "no {k} event: {kinds:?}");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

/// One line on stderr, no panic, a failed exit.
fn assert_one_line_error(o: &std::process::Output, needle: &str) {
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert!(!o.status.success(), "succeeded: {stderr}");
    let lines: Vec<&str> = stderr.lines().filter(|l| !l.trim().is_empty()).collect();
    assert_eq!(lines.len(), 1, "not one line: {stderr}");
    assert!(lines[0].contains(needle) && !stderr.contains("panicked"), "{stderr}");
}

#[test]
fn a_missing_adapter_or_backend_is_one_line() {
    let smoke = Path::new(env!("CARGO_MANIFEST_DIR")).join("configs/smoke.toml");
    let args = |device: &'static str| ["bench", "nn", "--config", smoke.to_str().unwrap().to_string().leak(), "--set", device];
    // A backend this build lacks.
    let o = junglezero(&args("hardware.device=cuda"), &[]);
    assert_one_line_error(&o, "needs a build with the 'cuda' feature");
    // No Vulkan driver and no OpenGL driver: wgpu finds no adapter at all.
    let none = [
        ("VK_ICD_FILENAMES", "/nonexistent/icd.json"),
        ("VK_DRIVER_FILES", "/nonexistent/icd.json"),
        ("__EGL_VENDOR_LIBRARY_FILENAMES", "/nonexistent/egl.json"),
        ("LIBGL_DRIVERS_PATH", "/nonexistent"),
    ];
    let o = junglezero(&args("hardware.device=wgpu"), &none);
    assert_one_line_error(&o, "device 'wgpu' cannot be used");
}
