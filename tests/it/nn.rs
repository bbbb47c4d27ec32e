//! The burn network: shapes and finiteness on every compiled backend, model files, and the
//! network evaluator behind MCTS.

use junglezero::flip::{FlipGame, FlipRules};
use junglezero::game::{Encode, Game, Shape, Turn};
use junglezero::jungle::encode::{ACTIONS, INPUT_SIZE, SHAPE, encode};
use junglezero::jungle::{JungleGame, Rules};
use junglezero::mcts::{Evaluator, Outputs};
use junglezero::nn::NetEvaluator;
use junglezero::nn::device::{compiled_backends, parse_device};
use junglezero::nn::model::ModelConfig;
use junglezero::nn::modelfile::{self, ModelFileError, fresh_meta};
use junglezero::store::framed::FrameError;

fn small() -> ModelConfig {
    ModelConfig {
        blocks: 1,
        channels: 8,
        policy_channels: 4,
        value_channels: 2,
        value_hidden: 16,
        moves_left: false,
        opponent_policy: false,
        short_value: false,
    }
}

fn batch(n: usize) -> (Vec<JungleGame>, Vec<f32>) {
    let mut games = vec![JungleGame::default()];
    let mut g = JungleGame::default();
    while games.len() < n {
        let m = g.legal_moves()[games.len() % 3];
        g.play_checked(m).unwrap();
        games.push(g.clone());
    }
    let mut x = vec![0.0; n * INPUT_SIZE];
    for (i, g) in games.iter().enumerate() {
        encode(g, &mut x[i * INPUT_SIZE..(i + 1) * INPUT_SIZE]);
    }
    (games, x)
}

#[test]
fn forward_pass_is_finite_with_the_right_shapes_on_every_backend() {
    let backends = compiled_backends();
    assert!(!backends.is_empty());
    for name in backends {
        for cfg in [small(), ModelConfig { moves_left: true, ..small() }] {
            let device = parse_device(name).unwrap();
            let net = cfg.init(SHAPE, &device);
            let eval = NetEvaluator::new(net, device, "test", &cfg);
            let (_, x) = batch(3);
            let o = eval.forward(&x, 3);
            let ml = if cfg.moves_left { 3 } else { 0 };
            assert_eq!((o.policy.len(), o.wdl.len(), o.moves_left.len()), (3 * ACTIONS, 9, ml), "{name}");
            assert!(o.policy.iter().chain(&o.wdl).all(|v| v.is_finite()), "{name}");
            assert!(o.moves_left.iter().all(|v| v.is_finite() && *v >= 0.0), "{name}: {:?}", o.moves_left);
            for row in o.wdl.chunks(3) {
                assert!((row.iter().sum::<f32>() - 1.0).abs() < 1e-4, "{name}: {row:?}");
            }
        }
    }
}

#[test]
fn a_random_network_is_the_same_for_the_same_seed() {
    // Made first, used later and in the other order: the weights are drawn when the network is
    // made, not when it is first used.
    let (_, x) = batch(3);
    let net = |seed| NetEvaluator::random(&ModelConfig::default(), SHAPE, parse_device("flex").unwrap(), seed);
    let (na, nb, nc) = (net(7), net(7), net(8));
    let (c, b, a) = (nc.forward(&x, 3), nb.forward(&x, 3), na.forward(&x, 3));
    assert_eq!(a.policy, b.policy, "seed 7 twice");
    assert_eq!(a.wdl, b.wdl, "seed 7 twice");
    assert_ne!(a.policy, c.policy, "seeds 7 and 8");
}

#[test]
fn a_position_evaluates_the_same_alone_and_in_a_batch() {
    let device = parse_device("flex").unwrap();
    let eval = NetEvaluator::new(small().init(SHAPE, &device), device, "test", &small());
    let (games, x) = batch(4);
    let refs: Vec<&JungleGame> = games.iter().collect();
    let (mut p4, mut v4, mut m4, mut d4) = (vec![0.0; 4 * ACTIONS], vec![0.0; 4], vec![0.0; 4], vec![0.0; 4]);
    eval.evaluate(&refs, &x, Outputs { policy: &mut p4, value: &mut v4, moves_left: &mut m4, draw: &mut d4 });
    let (mut p1, mut v1, mut m1, mut d1) = (vec![0.0; ACTIONS], vec![0.0; 1], vec![0.0; 1], vec![0.0; 1]);
    eval.evaluate(&refs[2..3], &x[2 * INPUT_SIZE..3 * INPUT_SIZE], Outputs { policy: &mut p1, value: &mut v1, moves_left: &mut m1, draw: &mut d1 });
    assert!(m1[0].is_nan() && m4.iter().all(|m| m.is_nan()), "no head: moves left unknown");
    assert!((v1[0] - v4[2]).abs() < 1e-5 && (d1[0] - d4[2]).abs() < 1e-5);
    // The draw chance is the network's: in [0, 1] and no more than the value leaves room for.
    assert!(v4.iter().zip(&d4).all(|(v, d)| (0.0..=1.0).contains(d) && v.abs() + d <= 1.0 + 1e-5), "{v4:?} {d4:?}");
    assert!(p1.iter().zip(&p4[2 * ACTIONS..3 * ACTIONS]).all(|(a, b)| (a - b).abs() < 1e-4));
}

#[test]
fn model_files_round_trip_and_damage_is_refused() {
    let dir = std::env::temp_dir().join(format!("jz-model-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("m.jzm");
    let device = parse_device("flex").unwrap();
    let cfg = ModelConfig { moves_left: true, ..small() };
    let net = cfg.init(SHAPE, &device);
    let meta = fresh_meta(&cfg, SHAPE, &Rules::default().to_string(), "random-init");
    modelfile::save(&path, &net, &meta).unwrap();
    let (loaded, meta2) = modelfile::load(&path, &device, SHAPE).unwrap();
    assert_eq!(meta2, meta);
    let (_, x) = batch(2);
    let a = NetEvaluator::new(net, device.clone(), "a", &cfg).forward(&x, 2);
    let b = NetEvaluator::new(loaded, device.clone(), "b", &cfg).forward(&x, 2);
    assert_eq!(a, b, "weights survive the round trip exactly");
    assert_eq!(a.moves_left.len(), 2, "the moves-left head survives too");

    let bytes = std::fs::read(&path).unwrap();
    let mut bad = bytes.clone();
    let mid = bad.len() / 2;
    bad[mid] ^= 0x40;
    std::fs::write(&path, &bad).unwrap();
    let e = modelfile::load(&path, &device, SHAPE).unwrap_err();
    assert!(matches!(e, ModelFileError::Frame { source: FrameError::Checksum { .. }, .. }), "{e}");
    assert!(e.to_string().contains("m.jzm"), "{e}");
    std::fs::write(&path, &bytes[..bytes.len() / 3]).unwrap();
    assert!(modelfile::load(&path, &device, SHAPE).is_err());
    std::fs::write(&path, b"hello").unwrap();
    assert!(matches!(modelfile::load(&path, &device, SHAPE).unwrap_err(), ModelFileError::Frame { source: FrameError::BadMagic { .. }, .. }));
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn the_fused_cpu_path_computes_what_burn_computes() {
    use junglezero::train::TrainConfig;
    use junglezero::train::batch::Batch;
    use junglezero::train::trainer::{Trainer, optimizer};
    // A few training steps so batch-norm statistics and weights are far from their initial values.
    let model = ModelConfig {
        blocks: 2,
        channels: 16,
        policy_channels: 8,
        value_channels: 3,
        value_hidden: 24,
        moves_left: true,
        opponent_policy: true,
        short_value: true,
    };
    let device = parse_device("flex").unwrap();
    let ad = device.clone().autodiff();
    let config = TrainConfig { lr: 0.05, lr_warmup_steps: 0, ..TrainConfig::default() };
    let mut trainer = Trainer::new(model.init_seeded(SHAPE, &ad, 5), optimizer(&config), ad, &model, &config, 0);
    let (games, x) = batch(16);
    let mut b = Batch {
        inputs: ndarray::Array4::from_shape_vec((16, 32, 9, 7), x.clone()).unwrap(),
        policy: ndarray::Array2::zeros((16, ACTIONS)),
        wdl: ndarray::Array2::zeros((16, 3)),
        moves_left: ndarray::Array1::from_iter((0..16).map(|i| i as f32 / 4.0)),
        opponent_policy: ndarray::Array2::zeros((16, ACTIONS)),
        short_value: ndarray::Array1::from_iter((0..16).map(|i| (i as f32 / 8.0 - 1.0) * 0.9)),
    };
    for i in 0..16 {
        b.policy[[i, (i * 37) % ACTIONS]] = 1.0;
        b.opponent_policy[[i, (i * 11) % ACTIONS]] = 1.0;
        b.wdl[[i, i % 3]] = 1.0;
    }
    let first = trainer.step(&b);
    assert!(first.moves_left_loss > 0.0, "the moves-left head is trained");
    assert!(first.opponent_policy_loss > 0.0, "the opponent-policy head is trained");
    assert!(first.short_value_loss > 0.0, "the short-term value head is trained");
    // Enough steps on the one batch for every head to fit it better than at the start. Single
    // steps spike (16 samples through batch norm at lr 0.05, and the CPU backend's sums change
    // with the threads free), so the last ten steps' mean is compared.
    let tail: Vec<_> = (0..40).map(|_| trainer.step(&b)).skip(30).collect();
    let opponent = tail.iter().map(|s| s.opponent_policy_loss).sum::<f32>() / tail.len() as f32;
    let short = tail.iter().map(|s| s.short_value_loss).sum::<f32>() / tail.len() as f32;
    assert!(opponent < first.opponent_policy_loss, "{} then {opponent} (mean of the last ten steps)", first.opponent_policy_loss);
    assert!(short < first.short_value_loss, "{} then {short} (mean of the last ten steps)", first.short_value_loss);
    let net = trainer.inference_net();
    let burn = NetEvaluator::new(net.clone(), device.clone(), "burn", &model);
    let fused = NetEvaluator::new(net, device, "fused", &model).with_fused_cpu();
    assert!(fused.is_fused() && !burn.is_fused());
    for n in [1, 5, 16] {
        let (a, b) = (burn.forward(&x, n), fused.forward(&x, n));
        assert_eq!((a.moves_left.len(), b.moves_left.len()), (n, n));
        let pairs = a.policy.iter().zip(&b.policy).chain(a.wdl.iter().zip(&b.wdl)).chain(a.moves_left.iter().zip(&b.moves_left));
        let worst = pairs.map(|(a, b)| (a - b).abs()).fold(0.0f32, f32::max);
        assert!(worst < 1e-4, "batch {n}: outputs differ by {worst}");
    }
    // The NVIDIA path's plan (folded, reordered, padded weights): its CPU reference computes
    // what burn computes, in f32 exactly enough, in the GPU's half-precision storage within
    // what half precision allows.
    use junglezero::nn::infer::gpu::plan::{GpuPlan, Precision};
    let plan = GpuPlan::from_fused(&junglezero::nn::infer::cpu::FusedNet::from_net(burn.net()));
    assert_eq!((plan.planes, plan.planes_padded), (32, 32));
    for (precision, tolerance) in [(Precision::F32, 1e-4f32), (Precision::Half, 0.05)] {
        let (a, b) = (burn.forward(&x, 16), plan.reference(&x, 16, precision));
        let worst = |x: &[f32], y: &[f32]| x.iter().zip(y).map(|(a, b)| (a - b).abs()).fold(0.0f32, f32::max);
        let (p, w, m) = (worst(&a.policy, &b.policy), worst(&a.wdl, &b.wdl), worst(&a.moves_left, &b.moves_left));
        eprintln!("GPU plan reference ({precision:?}) against burn: policy {p:.2e}, wdl {w:.2e}, moves left {m:.2e}");
        assert!(p < tolerance && w < tolerance && m < tolerance, "{precision:?}: policy {p}, wdl {w}, moves left {m}");
    }
    let refs: Vec<&JungleGame> = games.iter().collect();
    let (mut p, mut v, mut m, mut d) = (vec![0.0; 16 * ACTIONS], vec![0.0; 16], vec![0.0; 16], vec![0.0; 16]);
    fused.evaluate(&refs, &x, Outputs { policy: &mut p, value: &mut v, moves_left: &mut m, draw: &mut d });
    assert!(v.iter().all(|x| x.is_finite() && x.abs() <= 1.0));
    assert!(m.iter().all(|x| x.is_finite() && *x >= 0.0), "plies left: {m:?}");
}

/// `n` flip-game positions from a game played along fixed choices (nature's draws too), and
/// their encodings.
fn flip_batch(n: usize) -> (Vec<FlipGame>, Vec<f32>) {
    let mut g = FlipGame::start(FlipRules::default());
    let mut games = Vec::new();
    let mut outcomes = Vec::new();
    while games.len() < n {
        match g.turn() {
            Turn::Player(_) => {
                games.push(g.clone());
                let moves = g.legal_moves();
                let m = moves[(games.len() * 5) % moves.len()];
                g.play_unchecked(m);
            }
            Turn::Chance => {
                g.chance_outcomes(&mut outcomes);
                g.play_unchecked(outcomes[games.len() % outcomes.len()].0);
            }
            Turn::Over(_) => g = FlipGame::start(FlipRules::default()),
        }
    }
    let mut x = vec![0.0; n * FlipGame::INPUT_SIZE];
    for (i, g) in games.iter().enumerate() {
        g.encode(&mut x[i * FlipGame::INPUT_SIZE..(i + 1) * FlipGame::INPUT_SIZE]);
    }
    (games, x)
}

#[test]
fn one_network_code_serves_the_flip_game_and_its_model_files_name_the_game() {
    let flip: Shape = FlipGame::SHAPE;
    let device = parse_device("flex").unwrap();
    let cfg = ModelConfig { moves_left: true, ..small() };
    let net = cfg.init_seeded(flip, &device, 3);
    assert_eq!(net.shape(), flip);
    let (games, x) = flip_batch(6);
    let burn = NetEvaluator::new(net.clone(), device.clone(), "burn", &cfg);
    let fused = NetEvaluator::new(net.clone(), device.clone(), "fused", &cfg).with_fused_cpu();
    let (a, b) = (burn.forward(&x, 6), fused.forward(&x, 6));
    assert_eq!((a.policy.len(), a.wdl.len()), (6 * 80, 18));
    let worst = a.policy.iter().zip(&b.policy).chain(a.wdl.iter().zip(&b.wdl)).map(|(a, b)| (a - b).abs()).fold(0.0f32, f32::max);
    assert!(worst < 1e-4, "the fused path on 4x4 differs by {worst}");
    // The GPU plan on 4x4: the flip game's input planes are padded to the channel alignment,
    // and the padding changes nothing.
    let plan = junglezero::nn::infer::gpu::plan::GpuPlan::from_fused(&junglezero::nn::infer::cpu::FusedNet::from_net(&net));
    assert!(plan.planes_padded >= plan.planes && plan.planes_padded.is_multiple_of(8), "{} -> {}", plan.planes, plan.planes_padded);
    let r = plan.reference(&x, 6, junglezero::nn::infer::gpu::plan::Precision::F32);
    let worst = a.policy.iter().zip(&r.policy).chain(a.wdl.iter().zip(&r.wdl)).map(|(a, b)| (a - b).abs()).fold(0.0f32, f32::max);
    assert!(worst < 1e-4, "the GPU plan on 4x4 differs by {worst}");
    let refs: Vec<&FlipGame> = games.iter().collect();
    let (mut p, mut v, mut m, mut d) = (vec![0.0; 6 * 80], vec![0.0; 6], vec![0.0; 6], vec![0.0; 6]);
    fused.evaluate(&refs, &x, Outputs { policy: &mut p, value: &mut v, moves_left: &mut m, draw: &mut d });
    assert!(v.iter().all(|x| x.is_finite() && x.abs() <= 1.0));

    // The file says which game; a flip model does not load for Jungle, nor the reverse.
    let dir = std::env::temp_dir().join(format!("jz-flip-model-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("flip.jzm");
    let meta = fresh_meta(&cfg, flip, &FlipRules::default().to_string(), "gen-0001");
    modelfile::save(&path, &net, &meta).unwrap();
    let (loaded, meta2) = modelfile::load(&path, &device, flip).unwrap();
    assert_eq!((meta2.game.as_str(), meta2.actions, loaded.shape()), ("flip", 80, flip));
    let e = modelfile::load(&path, &device, SHAPE).unwrap_err().to_string();
    assert!(e.contains("flip.jzm") && e.contains("a model of the flip game; this command plays jungle"), "{e}");
    let jpath = dir.join("jungle.jzm");
    modelfile::save(&jpath, &small().init(SHAPE, &device), &fresh_meta(&small(), SHAPE, &Rules::default().to_string(), "j")).unwrap();
    let e = NetEvaluator::load(&jpath, &Default::default(), flip).err().expect("refused").to_string();
    assert!(e.contains("a model of the jungle game; this command plays flip"), "{e}");
    // A header whose planes do not fit its game is refused.
    let mut bad = meta.clone();
    bad.input_planes = 29;
    modelfile::save(&path, &net, &bad).unwrap();
    let e = modelfile::load(&path, &device, flip).unwrap_err().to_string();
    assert!(e.contains("this flip model has 29 input planes"), "{e}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn the_average_command_blends_model_files_and_refuses_mismatched_ones() {
    use junglezero::nn::model::average::flat_values;
    let dir = std::env::temp_dir().join(format!("jz-average-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let device = parse_device("flex").unwrap();
    let rules = Rules::default().to_string();
    let mut paths = Vec::new();
    let mut values = Vec::new();
    for i in 0..3u64 {
        let net = small().init_seeded(SHAPE, &device, 100 + i);
        values.push(flat_values(&net));
        let p = dir.join(format!("gen-{i}.jzm"));
        modelfile::save(&p, &net, &fresh_meta(&small(), SHAPE, &rules, &format!("gen-{i}"))).unwrap();
        paths.push(p.display().to_string());
    }
    let run = |extra: &[&str]| std::process::Command::new(env!("CARGO_BIN_EXE_junglezero")).arg("average").args(extra).output().unwrap();
    let out = dir.join("avg.jzm").display().to_string();
    let read = |p: &str| flat_values(&modelfile::load(std::path::Path::new(p), &device, SHAPE).unwrap().0);
    let close = |got: &[f32], want: &dyn Fn(usize) -> f32| {
        assert_eq!(got.len(), values[0].len());
        for (i, g) in got.iter().enumerate() {
            let w = want(i);
            assert!((g - w).abs() <= 1e-5 * (1.0 + w.abs()), "value {i}: {g} against {w}");
        }
    };
    // The plain mean of three.
    let o = run(&[&paths[0], &paths[1], &paths[2], "--out", &out]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    close(&read(&out), &|i| (values[0][i] + values[1][i] + values[2][i]) / 3.0);
    // An EMA with decay 0.75: (0.75 a + 0.25 b) x 0.75 + 0.25 c.
    // The file written is replaced only when asked.
    let o = run(&[&paths[0], &paths[1], &paths[2], "--out", &out, "--decay", "0.75"]);
    assert!(String::from_utf8_lossy(&o.stderr).contains("--force"), "{}", String::from_utf8_lossy(&o.stderr));
    let o = run(&[&paths[0], &paths[1], &paths[2], "--out", &out, "--decay", "0.75", "--force"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    close(&read(&out), &|i| 0.75 * (0.75 * values[0][i] + 0.25 * values[1][i]) + 0.25 * values[2][i]);
    // A different architecture, and a decay out of range, are refused in one line.
    let other = dir.join("wide.jzm");
    let wide = ModelConfig { channels: 16, ..small() };
    modelfile::save(&other, &wide.init(SHAPE, &device), &fresh_meta(&wide, SHAPE, &rules, "wide")).unwrap();
    let o = run(&[&paths[0], other.to_str().unwrap(), "--out", &out, "--force"]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(!o.status.success() && err.contains("wide.jzm") && err.contains("cannot be averaged"), "{err}");
    assert_eq!(err.trim().lines().count(), 1, "{err}");
    let o = run(&[&paths[0], "--out", &out, "--decay", "1.5"]);
    assert!(!o.status.success() && String::from_utf8_lossy(&o.stderr).contains("1.5"));
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn every_cpu_kernel_set_and_convolution_computes_what_burn_computes() {
    use junglezero::nn::infer::cpu::kernels::{CpuKernels, KernelSet};
    use junglezero::nn::infer::cpu::{CpuConv, FusedOptions};
    // 12 channels and 5 policy channels: whole vectors for no instruction set, so the padded
    // tails run; 9 positions end in the middle of a group of Winograd tiles.
    let model = ModelConfig {
        blocks: 2,
        channels: 12,
        policy_channels: 5,
        value_channels: 3,
        value_hidden: 16,
        moves_left: true,
        opponent_policy: false,
        short_value: false,
    };
    let device = parse_device("flex").unwrap();
    let net = model.init_seeded(SHAPE, &device, 11);
    let burn = NetEvaluator::new(net.clone(), device.clone(), "burn", &model);
    let (_, x) = batch(9);
    let reference = burn.forward(&x, 9);
    let spread = reference.policy.iter().fold(f32::NEG_INFINITY, |a, &b| a.max(b)) - reference.policy.iter().fold(f32::INFINITY, |a, &b| a.min(b));
    assert!(spread > 1e-2, "the logits vary (spread {spread}), so a wrong convolution shows");
    let mut ran = Vec::new();
    for kernels in [CpuKernels::Avx512, CpuKernels::Avx2, CpuKernels::Portable] {
        let Ok(set) = KernelSet::choose(kernels) else { continue };
        for conv in [CpuConv::Winograd4, CpuConv::Winograd2, CpuConv::Im2col] {
            let options = FusedOptions { kernels: set, conv };
            let fused = NetEvaluator::new(net.clone(), device.clone(), "fused", &model).with_fused_options(options);
            for n in [1, 9] {
                let (a, b) = (burn.forward(&x, n), fused.forward(&x, n));
                let pairs = a.policy.iter().zip(&b.policy).chain(a.wdl.iter().zip(&b.wdl)).chain(a.moves_left.iter().zip(&b.moves_left));
                let worst = pairs.map(|(a, b)| (a - b).abs()).fold(0.0f32, f32::max);
                assert!(worst < 1e-4, "{}, batch {n}: outputs differ by {worst}", options.describe());
            }
            ran.push(kernels);
        }
    }
    // Every set this CPU runs was tried: the portable one everywhere, the vector sets where the
    // CPU has them.
    assert!(ran.contains(&CpuKernels::Portable));
    #[cfg(target_arch = "x86_64")]
    {
        assert_eq!(ran.contains(&CpuKernels::Avx2), std::arch::is_x86_feature_detected!("avx2") && std::arch::is_x86_feature_detected!("fma"));
        assert_eq!(ran.contains(&CpuKernels::Avx512), std::arch::is_x86_feature_detected!("avx512f"));
    }
}

#[test]
fn half_precision_on_the_gpu_sized_network_stays_within_bench_agrees_tolerance() {
    // configs/gpu.toml's 10 x 128 network in the NVIDIA path's arithmetic (f16 weights and
    // stored activations, f32 sums), on the CPU, against burn's f32 forward pass.
    use junglezero::nn::infer::gpu::plan::{GpuPlan, Precision};
    use junglezero::nn::measure::agree::{Agreement, HALF_PRECISION};
    use junglezero::trainable::Trainable;
    const N: usize = 24;
    let device = parse_device("flex").unwrap();
    let model = ModelConfig::gpu_sized();
    let burn = NetEvaluator::new(model.init_seeded(SHAPE, &device, 7), device, "gpu-sized", &model);
    let plan = GpuPlan::from_fused(&junglezero::nn::infer::cpu::FusedNet::from_net(burn.net()));
    let (games, x) = batch(N);
    let (a, b) = (burn.forward(&x, N), plan.reference(&x, N, Precision::Half));
    let mut agreement = Agreement::default();
    for (i, g) in games.iter().enumerate() {
        let legal: Vec<usize> = g.legal_moves().iter().filter_map(|&m| g.try_action(m)).collect();
        agreement.add(&a, &b, i, ACTIONS, &legal);
    }
    assert!(agreement.policy_diff > 0.0, "the reference rounds: {}", agreement.line());
    assert!(agreement.within(&HALF_PRECISION), "{}", agreement.line());
}
