//! The training pipeline end to end through the binary: the smoke loop, resuming, kills at
//! random moments, corrupted checkpoints and config errors.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::Duration;

use junglezero::config::Config;
use junglezero::selfplay::record::read_shard;
use junglezero::store::run::RunDir;
use junglezero::train::checkpoint;

fn junglezero(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_junglezero")).args(args).output().expect("binary runs")
}

fn tmp(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("jz-train-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    d
}

fn smoke_config() -> String {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("configs/smoke.toml").display().to_string()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// Games in all shards of a run.
fn games_on_disk(run: &RunDir) -> usize {
    run.shards().iter().map(|p| read_shard::<junglezero::jungle::JungleGame>(p).unwrap().len()).sum()
}

/// The generations promoted or rejected, sorted; none may still be waiting. Whether a tiny
/// smoke network wins its gate is up to chance, so tests check that each was decided once.
fn gated_generations(run: &RunDir) -> Vec<u64> {
    assert!(run.candidates().is_empty(), "candidates left waiting: {:?}", run.candidates());
    let mut g: Vec<u64> = run.promoted().into_iter().chain(run.rejected()).map(|(g, _)| g).collect();
    g.sort_unstable();
    g
}

/// The kinds of the run's metrics events; every line must read as a typed event.
fn metric_kinds(run: &RunDir) -> Vec<String> {
    let (events, problems) = run.read_events();
    assert!(problems.is_empty(), "unreadable metrics lines: {problems:?}");
    events.iter().map(|e| serde_json::to_value(e).unwrap()["kind"].as_str().unwrap_or("").to_string()).collect()
}

/// The committed records stay readable by this build: every run folder under checkpoints/
/// (the samples with plain metrics.jsonl, the experiments' gzipped ones) reads as typed events.
#[test]
fn the_committed_runs_metrics_read_as_typed_events() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("checkpoints");
    let mut dirs: Vec<PathBuf> = ["sample-cpu-1h", "sample-flip-1h"].iter().map(|d| root.join(d)).collect();
    dirs.extend(std::fs::read_dir(root.join("learning")).unwrap().map(|e| e.unwrap().path()).filter(|p| p.is_dir()));
    let mut runs = 0;
    for dir in dirs {
        if !dir.join("metrics.jsonl").exists() && !dir.join("metrics.jsonl.gz").exists() {
            continue;
        }
        let (events, problems) = RunDir::new(&dir).read_events();
        assert!(problems.is_empty(), "{}: {problems:?}", dir.display());
        assert!(events.len() > 100, "{}: {} events", dir.display(), events.len());
        runs += 1;
    }
    assert!(runs >= 30, "only {runs} runs read");
}

#[test]
fn smoke_loop_runs_end_to_end() {
    let dir = tmp("smoke");
    let o = junglezero(&["train", "--config", &smoke_config(), "--run", dir.to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
    let run = RunDir::new(&dir);
    assert_eq!(gated_generations(&run), [0, 1, 2]);
    // 8 alpha-beta teacher games (configs/smoke.toml) train generation 1, then 8 self-play games.
    assert_eq!(games_on_disk(&run), 16);
    let teacher: usize = run
        .shards()
        .iter()
        .filter(|p| p.file_name().unwrap().to_str().unwrap().starts_with("teacher-"))
        .map(|p| read_shard::<junglezero::jungle::JungleGame>(p).unwrap().len())
        .sum();
    assert_eq!(teacher, 8);
    let kinds = metric_kinds(&run);
    for k in ["teacher", "selfplay", "train", "gate"] {
        assert!(kinds.iter().any(|x| x == k), "no {k} metrics: {kinds:?}");
    }
    let config = Config::load(Some(&run.config_path()), &[]).unwrap();
    let device = junglezero::nn::device::parse_device("flex").unwrap().autodiff();
    let (_, meta) = checkpoint::load(&run.checkpoint_path(), &device, &config.train, &config.model, junglezero::jungle::encode::SHAPE).unwrap();
    assert_eq!((meta.iteration, meta.games_seen), (2, 16));
    assert!(meta.step > 0 && meta.samples_trained >= meta.step);
    let out = String::from_utf8_lossy(&o.stdout);
    let best = run.best().unwrap().0;
    assert!(out.contains("generation 2") && out.contains(&format!("best gen-{best:04}")), "{out}");
    check_dump(&dir);
    std::fs::remove_dir_all(&dir).unwrap();
}

/// `junglezero dump` of a finished smoke run: the arrays hold the window's positions, policy
/// targets are distributions over legal actions, and each position's FEN, encoded afresh,
/// gives the dumped piece planes.
fn check_dump(dir: &Path) {
    use junglezero::game::{Encode, Game};
    use ndarray::{Array1, Array2, Array4};
    let out = dir.join("dump/data.npz");
    let o = junglezero(&["dump", "--run", dir.to_str().unwrap(), "--out", out.to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
    let mut npz = ndarray_npy::NpzReader::new(std::fs::File::open(&out).unwrap()).unwrap();
    let inputs: Array4<f32> = npz.by_name("inputs.npy").unwrap();
    let policy: Array2<f32> = npz.by_name("policy.npy").unwrap();
    let legal: Array2<u8> = npz.by_name("legal.npy").unwrap();
    let wdl: Array2<f32> = npz.by_name("wdl.npy").unwrap();
    let result: Array1<i8> = npz.by_name("result.npy").unwrap();
    let meta: serde_json::Value = serde_json::from_slice(&std::fs::read(dir.join("dump/data.json")).unwrap()).unwrap();
    let n = meta["positions"].as_u64().unwrap() as usize;
    assert!(n > 10, "{n} positions");
    let rules = Config::load(Some(&dir.join("config.toml")), &[]).unwrap().rules.jungle;
    assert_eq!(inputs.shape(), &[n, 32, 9, 7]);
    assert_eq!((policy.shape(), legal.shape()), (&[n, 252][..], &[n, 252][..]));
    let texts = meta["position_text"].as_array().unwrap();
    assert_eq!(texts.len(), n);
    let mut planes = vec![0.0f32; junglezero::jungle::JungleGame::INPUT_SIZE];
    for i in 0..n {
        let row = policy.row(i);
        assert!((row.sum() - 1.0).abs() < 1e-4, "position {i}: policy sums to {}", row.sum());
        assert!(row.iter().zip(legal.row(i)).all(|(&p, &l)| p == 0.0 || l == 1), "position {i}: policy on an illegal action");
        assert_eq!(i32::from(result[i]), 1 - wdl.row(i).iter().position(|&x| x == 1.0).unwrap() as i32);
        let text = texts[i].as_str().unwrap();
        let game = junglezero::jungle::JungleGame::new(junglezero::jungle::parse_fen(text).unwrap(), rules);
        game.encode(&mut planes);
        let dumped = inputs.index_axis(ndarray::Axis(0), i);
        assert_eq!(&dumped.as_slice().unwrap()[..16 * 63], &planes[..16 * 63], "position {i} ({text}): piece planes");
        let legal_count = legal.row(i).iter().filter(|&&l| l == 1).count();
        assert_eq!(legal_count, game.legal_moves().len(), "position {i} ({text})");
    }
    // The newest shard alone (the last generation's self-play, not the teacher's games played
    // before generation 1) holds fewer positions; a run without games is one error line.
    let o = junglezero(&["dump", "--run", dir.to_str().unwrap(), "--last", "1", "--out", dir.join("dump/last.npz").to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
    let last: serde_json::Value = serde_json::from_slice(&std::fs::read(dir.join("dump/last.json")).unwrap()).unwrap();
    let newest = last["shards"].as_array().unwrap();
    assert_eq!(newest.len(), 1);
    assert!(newest[0].as_str().unwrap().starts_with("games/gen-"), "newest shard {newest:?}");
    assert!(last["positions"].as_u64().unwrap() <= n as u64);
    let empty = tmp("dump-empty");
    RunDir::new(&empty).create_dirs().unwrap();
    std::fs::copy(dir.join("config.toml"), empty.join("config.toml")).unwrap();
    let o = junglezero(&["dump", "--run", empty.to_str().unwrap(), "--out", empty.join("x.npz").to_str().unwrap()]);
    assert!(!o.status.success());
    let e = stderr(&o);
    assert!(e.contains("no game shards") && e.trim().lines().count() == 1, "{e}");
    std::fs::remove_dir_all(&empty).unwrap();
}

#[test]
fn an_interrupted_run_resumes_and_keeps_every_file() {
    let dir = tmp("resume");
    let d = dir.to_str().unwrap();
    let o = junglezero(&["train", "--config", &smoke_config(), "--run", d, "--set", "train.iterations=1"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let run = RunDir::new(&dir);
    let before: Vec<(PathBuf, Vec<u8>)> = run
        .shards()
        .into_iter()
        .chain(run.promoted().into_iter().map(|(_, p)| p))
        .map(|p| {
            let b = std::fs::read(&p).unwrap();
            (p, b)
        })
        .collect();
    let config = Config::load(Some(&run.config_path()), &[]).unwrap();
    let device = junglezero::nn::device::parse_device("flex").unwrap().autodiff();
    let (_, m1) = checkpoint::load(&run.checkpoint_path(), &device, &config.train, &config.model, junglezero::jungle::encode::SHAPE).unwrap();
    assert_eq!(m1.iteration, 1);

    // Restart without --config: the run's own snapshot is used, with the new limit.
    let o = junglezero(&["train", "--run", d, "--set", "train.iterations=2"]);
    assert!(o.status.success(), "{}", stderr(&o));
    for (p, b) in &before {
        assert_eq!(&std::fs::read(p).unwrap(), b, "{} changed or vanished", p.display());
    }
    let (_, m2) = checkpoint::load(&run.checkpoint_path(), &device, &config.train, &config.model, junglezero::jungle::encode::SHAPE).unwrap();
    assert_eq!((m2.iteration, m2.games_seen), (2, 16));
    assert!(m2.step > m1.step && m2.samples_trained > m1.samples_trained);
    assert_eq!(m2.rng_seed, m1.rng_seed, "the run keeps its seed");
    assert_eq!(gated_generations(&run), vec![0, 1, 2], "every candidate was gated exactly once");
    // Each invocation logs its start, and the report counts the two sessions without the
    // pause between them.
    let (events, _) = run.read_events();
    let starts: Vec<u64> = events.iter().filter_map(|e| if let junglezero::store::events::Event::Start(s) = e { Some(s.generation) } else { None }).collect();
    assert_eq!(starts, vec![0, 1]);
    let o = junglezero(&["report", "--run", d]);
    assert!(o.status.success(), "{}", stderr(&o));
    let report = std::fs::read_to_string(dir.join("report/report.md")).unwrap();
    assert!(report.contains("| training time |") && report.contains("in 2 sessions"), "{report}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn kills_at_random_moments_lose_nothing() {
    let dir = tmp("kill");
    let d = dir.to_str().unwrap();
    let cfg = smoke_config();
    let args = ["train", "--config", cfg.as_str(), "--run", d, "--set", "train.iterations=4"];
    for i in 0..6u64 {
        let mut child =
            Command::new(env!("CARGO_BIN_EXE_junglezero")).args(args).stdout(std::process::Stdio::null()).stderr(std::process::Stdio::null()).spawn().unwrap();
        std::thread::sleep(Duration::from_millis(80 + (i * 137) % 600));
        let _ = child.kill(); // SIGKILL
        let _ = child.wait();
    }
    let o = junglezero(&args);
    assert!(o.status.success(), "{}", stderr(&o));
    let run = RunDir::new(&dir);
    let config = Config::load(Some(&run.config_path()), &[]).unwrap();
    let device = junglezero::nn::device::parse_device("flex").unwrap().autodiff();
    let (_, meta) = checkpoint::load(&run.checkpoint_path(), &device, &config.train, &config.model, junglezero::jungle::encode::SHAPE).unwrap();
    assert_eq!(meta.iteration, 4);
    assert_eq!(meta.games_seen, 4 * config.train.games_per_iteration, "every game counted exactly once");
    assert_eq!(games_on_disk(&run) as u64, meta.games_seen);
    assert_eq!(gated_generations(&run), vec![0, 1, 2, 3, 4], "every candidate was gated exactly once");
    // No temporary files are left behind.
    for sub in ["", "games", "models", "train", "candidates"] {
        for e in std::fs::read_dir(dir.join(sub)).unwrap().flatten() {
            assert!(!e.file_name().to_string_lossy().contains(".tmp-"), "{:?}", e.path());
        }
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

/// The learning rates in a run's training events; every line must read as a typed event.
fn logged_learning_rates(dir: &Path) -> Vec<f64> {
    let (events, problems) = RunDir::new(dir).read_events();
    assert!(problems.is_empty(), "unreadable metrics lines: {problems:?}");
    events
        .into_iter()
        .filter_map(|e| match e {
            junglezero::store::events::Event::Train(t) => Some(t.lr),
            _ => None,
        })
        .collect()
}

#[test]
fn a_timed_run_s_final_phase_lowers_the_learning_rate() {
    // With the final phase covering the whole time limit every step trains at lr x factor;
    // without it, at lr.
    for (fraction, want) in [("1.0", 0.005), ("0.0", 0.02)] {
        let dir = tmp(&format!("lr-final-{fraction}"));
        let d = dir.to_str().unwrap();
        let o = junglezero(&[
            "train",
            "--config",
            &smoke_config(),
            "--run",
            d,
            "--set",
            "train.iterations=1",
            "--set",
            "train.time_limit_minutes=60",
            "--set",
            "train.lr=0.02",
            "--set",
            "train.lr_warmup_steps=0",
            "--set",
            &format!("train.lr_final_fraction={fraction}"),
            "--set",
            "train.lr_final_factor=0.25",
        ]);
        assert!(o.status.success(), "{}", stderr(&o));
        let lrs = logged_learning_rates(&dir);
        assert!(!lrs.is_empty(), "no training events");
        for lr in lrs {
            assert!((lr - want).abs() < 1e-9, "fraction {fraction}: lr {lr}, want {want}");
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }
}

#[test]
fn teacher_and_self_play_samples_are_trained_at_their_own_rates() {
    // Generation 1 trains on the teacher's games alone, each sample drawn 8 times on average;
    // generation 2 on the self-play games alone, each drawn twice.
    let dir = tmp("samples-per-sample");
    let d = dir.to_str().unwrap();
    let o = junglezero(&[
        "train",
        "--config",
        &smoke_config(),
        "--run",
        d,
        "--set",
        "train.iterations=2",
        "--set",
        "gate.enabled=false",
        "--set",
        "train.log_every_steps=1",
        "--set",
        "train.samples_per_new_sample=2",
        "--set",
        "train.samples_per_teacher_sample=8",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let run = RunDir::new(&dir);
    let config = Config::load(Some(&run.config_path()), &[]).unwrap();
    let rules = config.rules.jungle;
    let (mut teacher, mut selfplay) = (0u64, 0u64);
    for p in run.shards() {
        let (s, _) = junglezero::train::replay::load_shard::<junglezero::jungle::JungleGame>(&p, &rules).unwrap();
        let n = s.samples.len() as u64;
        if p.file_name().unwrap().to_str().unwrap().starts_with("teacher-") { teacher += n } else { selfplay += n }
    }
    assert!(teacher > 0 && selfplay > 0, "teacher {teacher}, self-play {selfplay}");
    let (events, problems) = run.read_events();
    assert!(problems.is_empty(), "{problems:?}");
    let last_step = |iteration: u64| {
        events
            .iter()
            .filter_map(|e| match e {
                junglezero::store::events::Event::Train(t) if t.iteration == iteration => Some(t.step),
                _ => None,
            })
            .max()
            .unwrap()
    };
    let (s1, s2) = (last_step(1), last_step(2));
    assert_eq!(s1, (8 * teacher).div_ceil(64), "teacher {teacher} samples");
    assert_eq!(s2 - s1, (2 * selfplay).div_ceil(64), "self-play {selfplay} samples");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn averaged_candidates_blend_the_trained_weights_with_the_previous_generation() {
    // With train.average_decay = 0.5, generation 3's network is half generation 2's file and
    // half the weights the trainer holds after its third training stage.
    let dir = tmp("average");
    let d = dir.to_str().unwrap();
    let o = junglezero(&[
        "train",
        "--config",
        &smoke_config(),
        "--run",
        d,
        "--set",
        "train.iterations=3",
        "--set",
        "gate.enabled=false",
        "--set",
        "train.average_decay=0.5",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let run = RunDir::new(&dir);
    let config = Config::load(Some(&run.config_path()), &[]).unwrap();
    let shape = junglezero::jungle::encode::SHAPE;
    let infer = junglezero::nn::device::parse_device("flex").unwrap();
    let (trainer, meta) = checkpoint::load(&run.checkpoint_path(), &infer.clone().autodiff(), &config.train, &config.model, shape).unwrap();
    assert_eq!(meta.iteration, 3);
    let flat = |g: u64| {
        let (net, _) = junglezero::nn::modelfile::load(&run.model_path(g), &infer, shape).unwrap();
        junglezero::nn::model::average::flat_values(&net)
    };
    let (g2, g3) = (flat(2), flat(3));
    let trained = junglezero::nn::model::average::flat_values(&trainer.inference_net());
    assert_eq!((g2.len(), g3.len()), (trained.len(), trained.len()));
    assert!(g3.iter().zip(&trained).any(|(a, b)| (a - b).abs() > 1e-4), "generation 3 is the trained weights unaveraged");
    for ((&p, &t), &got) in g2.iter().zip(&trained).zip(&g3) {
        let want = 0.5 * p + 0.5 * t;
        assert!((got - want).abs() <= 1e-5 * (1.0 + want.abs()), "{got} against {want}");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_second_trainer_on_the_same_run_is_refused() {
    let dir = tmp("busy");
    let d = dir.to_str().unwrap();
    let cfg = smoke_config();
    let mut first = Command::new(env!("CARGO_BIN_EXE_junglezero"))
        .args(["train", "--config", cfg.as_str(), "--run", d, "--set", "train.iterations=50"])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let lock = dir.join("train.lock");
    for _ in 0..100 {
        if lock.exists() && dir.join("config.toml").exists() {
            break;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    std::thread::sleep(Duration::from_millis(200));
    let second = junglezero(&["train", "--config", cfg.as_str(), "--run", d]);
    let learn = junglezero(&["learn", "--run", d]);
    let gate = junglezero(&["gate", "--run", d]);
    let _ = first.kill();
    let _ = first.wait();
    for o in [&second, &learn, &gate] {
        assert!(!o.status.success());
        let e = stderr(o);
        assert!(e.contains("busy") && e.trim().lines().count() == 1, "{e}");
    }
    // Once the first process is gone, the run is free again.
    let again = junglezero(&["gate", "--run", d]);
    assert!(again.status.success(), "{}", stderr(&again));
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_corrupted_checkpoint_is_refused_in_one_line() {
    let dir = tmp("corrupt");
    let d = dir.to_str().unwrap();
    let o = junglezero(&["train", "--config", &smoke_config(), "--run", d, "--set", "train.iterations=1"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let ck = RunDir::new(&dir).checkpoint_path();
    let good = std::fs::read(&ck).unwrap();
    let mut b = good.clone();
    let n = b.len();
    b[n / 2] ^= 0xFF;
    std::fs::write(&ck, &b).unwrap();
    let o = junglezero(&["train", "--run", d, "--set", "train.iterations=2"]);
    assert_eq!(o.status.code(), Some(2));
    let err = stderr(&o);
    let last = err.lines().last().unwrap_or("");
    assert!(last.contains("checkpoint.jzc") && last.contains("checksum"), "{err}");
    // A checkpoint for another network shape is refused too, naming both shapes.
    std::fs::write(&ck, &good).unwrap();
    let o = junglezero(&["learn", "--run", d, "--set", "model.channels=16"]);
    assert_eq!(o.status.code(), Some(2));
    let err = stderr(&o);
    assert!(err.contains("1x8") && err.contains("1x16"), "{err}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn config_errors_name_the_key() {
    let dir = tmp("config");
    std::fs::create_dir_all(&dir).unwrap();
    let bad = dir.join("bad.toml");
    std::fs::write(&bad, "[train]\nbatchsize = 3\n").unwrap();
    let run = dir.join("run");
    let cases: Vec<(Vec<String>, &str)> = vec![
        (vec!["--config".into(), bad.display().to_string()], "batchsize"),
        (vec!["--set".into(), "train.batch_size=0".into()], "train.batch_size"),
        (vec!["--set".into(), "selfplay.full_sims=lots".into()], "selfplay.full_sims"),
        (vec!["--set".into(), "hardware.device=tpu".into()], "hardware.device"),
        (vec!["--set".into(), "train.optimizer=\"adam\"".into()], "adam"),
        (vec!["--config".into(), dir.join("missing.toml").display().to_string()], "missing.toml"),
    ];
    for (extra, want) in cases {
        let mut args = vec!["train".to_string(), "--run".into(), run.display().to_string()];
        args.extend(extra.clone());
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let o = junglezero(&args);
        let err = stderr(&o);
        assert_eq!(o.status.code(), Some(2), "{extra:?}: {err}");
        assert_eq!(err.trim().lines().count(), 1, "{extra:?}: {err}");
        assert!(err.contains(want), "{extra:?}: {err}");
    }
    assert!(!run.exists(), "a bad config must not create a run");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn every_config_file_loads_and_documents_every_key() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("configs");
    for name in ["default.toml", "smoke.toml", "gpu.toml", "flip.toml", "flip-smoke.toml"] {
        let path = root.join(name);
        let c = Config::load(Some(&path), &[]);
        // gpu.toml may name a device this build lacks; everything else must load.
        if let Err(e) = &c {
            assert!(name == "gpu.toml" && e.to_string().contains("hardware.device"), "{name}: {e}");
        }
    }
    // The defaults are the recipe of configs/default.toml, and `train` without --config trains it.
    assert_eq!(Config::load(Some(&root.join("default.toml")), &[]).unwrap(), Config::default(), "Config::default() is not configs/default.toml");
    let text = std::fs::read_to_string(root.join("default.toml")).unwrap();
    let defaults = toml::Value::Table(Config::default().surface().unwrap());
    for (section, table) in defaults.as_table().unwrap() {
        // Top-level keys (`game`) come before the first section, documented on their line.
        let Some(table) = table.as_table() else {
            let line = text.lines().find(|l| l.starts_with(&format!("{section} ="))).unwrap_or_else(|| panic!("default.toml lacks {section}"));
            assert!(line.contains('#'), "{section} is not documented");
            continue;
        };
        assert!(text.contains(&format!("[{section}]")), "default.toml lacks [{section}]");
        for key in table.keys() {
            let line = text.lines().find(|l| l.trim_start().starts_with(&format!("{key} ="))).unwrap_or_else(|| panic!("default.toml lacks {section}.{key}"));
            let documented = line.contains('#') || {
                let i = text.find(line).unwrap();
                text[..i].trim_end().lines().last().is_some_and(|p| p.trim_start().starts_with('#'))
            };
            assert!(documented, "{section}.{key} has no comment in default.toml");
        }
    }
}

#[test]
fn the_flip_game_s_smoke_loop_runs_end_to_end_and_resumes() {
    use junglezero::flip::FlipGame;
    let dir = tmp("flip-smoke");
    let config = Path::new(env!("CARGO_MANIFEST_DIR")).join("configs/flip-smoke.toml").display().to_string();
    let o = junglezero(&["train", "--config", &config, "--run", dir.to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
    let run = RunDir::new(&dir);
    assert_eq!(gated_generations(&run), [0, 1, 2]);
    // No teacher in the flip game: 8 self-play games per generation.
    let games: Vec<_> = run.shards().iter().flat_map(|p| read_shard::<FlipGame>(p).unwrap()).collect();
    assert_eq!(games.len(), 16);
    assert!(games.iter().all(|g| g.moves.iter().any(|m| matches!(m.mv, junglezero::flip::FlipMove::Reveal(..)))));
    let kinds = metric_kinds(&run);
    for k in ["selfplay", "train", "gate", "match", "ratings"] {
        assert!(kinds.iter().any(|x| x == k), "no {k} metrics: {kinds:?}");
    }
    // The ladder is expectiminimax's.
    let (events, _) = run.read_events();
    assert!(events.iter().any(|e| matches!(e, junglezero::store::events::Event::Match(m) if m.b == "expectiminimax:depth=1")));
    // The best network is a flip model; the Jungle commands refuse it with one line.
    let (_, best) = run.best().unwrap();
    let o = junglezero(&["arena", "--a", &format!("mcts:model={},sims=4", best.display()), "--b", "alphabeta:depth=1", "--games", "2"]);
    assert!(!o.status.success());
    assert!(stderr(&o).contains("a model of the flip game; this command plays jungle"), "{}", stderr(&o));
    // Resuming with a Jungle config is refused, naming both games.
    let o = junglezero(&["train", "--config", &smoke_config(), "--run", dir.to_str().unwrap(), "--set", "train.iterations=3"]);
    assert!(!o.status.success());
    assert!(stderr(&o).contains("trains the flip game but the config plays jungle"), "{}", stderr(&o));
    // More generations of the same config resume the run.
    let o = junglezero(&["train", "--config", &config, "--run", dir.to_str().unwrap(), "--set", "train.iterations=3"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(gated_generations(&run), [0, 1, 2, 3]);
    let o = junglezero(&["report", "--run", dir.to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
    let report = std::fs::read_to_string(dir.join("report/report.md")).unwrap();
    assert!(report.contains("expectiminimax depth 1"), "{report}");
    let o = junglezero(&["verify", "--run", dir.to_str().unwrap()]);
    assert!(o.status.success(), "{}{}", String::from_utf8_lossy(&o.stdout), stderr(&o));

    // The export describes the flip encoding, and its weights reproduce its samples.
    let (_, best) = run.best().unwrap();
    let out = dir.join("export/net.safetensors");
    let o = junglezero(&["export", "--model", best.to_str().unwrap(), "--out", out.to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
    let meta: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(dir.join("export/net.json")).unwrap()).unwrap();
    assert_eq!(
        (meta["game"].as_str(), meta["input"]["shape"].clone(), meta["policy"]["size"].as_u64()),
        (Some("flip"), serde_json::json!([39, 4, 4]), Some(80))
    );
    let mut npz = ndarray_npy::NpzReader::new(std::fs::File::open(dir.join("export/net.samples.npz")).unwrap()).unwrap();
    let inputs: ndarray::Array4<f32> = npz.by_name("inputs.npy").unwrap();
    let logits: ndarray::Array2<f32> = npz.by_name("policy_logits.npy").unwrap();
    assert_eq!((inputs.shape(), logits.shape()), (&[32, 39, 4, 4][..], &[32, 80][..]));
    use burn::store::{ModuleSnapshot, PyTorchToBurnAdapter, SafetensorsStore};
    use junglezero::game::Encode;
    let device = junglezero::nn::device::parse_device("flex").unwrap();
    let (_, m) = junglezero::nn::modelfile::load(&best, &device, FlipGame::SHAPE).unwrap();
    let mut net = m.model.init(FlipGame::SHAPE, &device);
    let res = net.load_from(&mut SafetensorsStore::from_file(&out).with_from_adapter(PyTorchToBurnAdapter)).unwrap();
    assert!(res.errors.is_empty() && res.missing.is_empty(), "{res:?}");
    let p = junglezero::nn::NetEvaluator::new(net, device, "x", &m.model).forward(inputs.as_slice().unwrap(), 32).policy;
    let worst = p.iter().zip(logits.iter()).map(|(a, b)| (a - b).abs()).fold(0.0f32, f32::max);
    assert!(worst < 1e-4, "{worst}");

    // A flip-game match from the command line: the network and the engines.
    let o = junglezero(&[
        "arena",
        "--game",
        "flip",
        "--a",
        &format!("mcts:model={},sims=8", best.display()),
        "--b",
        "expectiminimax:depth=1",
        "--games",
        "4",
        "--concurrency",
        "2",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(String::from_utf8_lossy(&o.stdout).contains("vs expectiminimax:depth=1"), "{}", String::from_utf8_lossy(&o.stdout));
    let o = junglezero(&["arena", "--game", "flip", "--a", "alphabeta:depth=2", "--b", "random", "--games", "2"]);
    assert!(!o.status.success() && stderr(&o).contains("does not play the flip game"), "{}", stderr(&o));
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_flip_config_that_lets_games_run_for_ever_is_refused() {
    let e = Config::load(None, &["game=flip".into(), "flip_rules.no_progress_plies=0".into()]).unwrap_err().to_string();
    assert!(e.contains("flip_rules.no_progress_plies") && e.contains("run for ever"), "{e}");
    assert!(Config::load(None, &["game=flip".into(), "flip_rules.no_progress_plies=0".into(), "flip_rules.max_plies=200".into()]).is_ok());
    let e = Config::load(None, &["game=chess".into()]).unwrap_err().to_string();
    assert!(e.contains("chess"), "{e}");
}

/// Every game of the registry trains: the smoke config its entry names runs a whole training
/// loop (teacher or none, self-play, training, gating, the ladder), and a second invocation
/// resumes it. A game added to the registry is trained here without a line of this test
/// changing.
#[test]
fn every_registered_game_runs_its_smoke_loop() {
    use junglezero::entries::HouseGame;
    use junglezero::registry::GameName;
    for &game in GameName::ALL {
        let config = Path::new(env!("CARGO_MANIFEST_DIR")).join(junglezero::with_game!(game, G => <G as HouseGame>::SMOKE_CONFIG));
        let dir = tmp(&format!("registry-{game}"));
        let d = dir.to_str().unwrap();
        let o = junglezero(&["train", "--config", config.to_str().unwrap(), "--run", d, "--set", "train.iterations=1"]);
        assert!(o.status.success(), "{game}: {}", stderr(&o));
        let o = junglezero(&["train", "--run", d, "--set", "train.iterations=2"]);
        assert!(o.status.success(), "{game}: {}", stderr(&o));
        let run = RunDir::new(&dir);
        assert_eq!(gated_generations(&run), [0, 1, 2], "{game}");
        let snapshot = Config::load(Some(&run.config_path()), &[]).unwrap();
        assert_eq!(snapshot.game, game);
        assert!(junglezero(&["verify", "--run", d]).status.success(), "{game}");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}

/// A run folder that kept only its config and metrics (as the shipped samples do) reports what
/// its metrics hold: the fixture is the first eight generations of the 1-hour sample, gate off,
/// with the teacher's games, three ladders (generations 0, 4, 8). The expected numbers were
/// counted from the fixture's lines, not by the report.
#[test]
fn the_report_of_a_run_with_metrics_only_gives_what_its_metrics_say() {
    let dir = tmp("report-fixture");
    let fixture = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/report-run");
    std::fs::create_dir_all(&dir).unwrap();
    for f in ["config.toml", "metrics.jsonl"] {
        std::fs::copy(fixture.join(f), dir.join(f)).unwrap();
    }
    // A gate chart left by an older report goes: with the gate off there is nothing to draw.
    std::fs::create_dir_all(dir.join("report")).unwrap();
    std::fs::write(dir.join("report/gate.png"), b"stale").unwrap();
    let o = junglezero(&["report", "--run", dir.to_str().unwrap()]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let report = std::fs::read_to_string(dir.join("report/report.md")).unwrap();
    for line in [
        "| generations trained | 8 (8 promoted, 0 rejected) |",
        "| self-play games | 336 |",
        "| teacher games | 1200 (alphabeta:depth=6;",
        "| training steps | 2375 |",
        "| best network | gen-0008: +418 ±",
        "| gen-0000 | 0 | 0 |",
        "| gen-0004 | 144 | 2108 |",
        "| gen-0008 | 336 | 2375 |",
        "The gate is off (`gate.enabled = false`): each of the 8 candidates was promoted without a match.",
        "336 self-play games: Red won",
        "the teacher (alphabeta:depth=6) played 1200 games",
    ] {
        assert!(report.contains(line), "missing {line:?} in:\n{report}");
    }
    assert!(!report.contains("No ratings yet") && !report.contains("gate.png") && !report.contains("0-0-0"), "{report}");
    assert!(!dir.join("report/gate.png").exists() && dir.join("report/elo.png").exists());
    std::fs::remove_dir_all(&dir).unwrap();
}

/// With endgame tables, each generation's value accuracy on their positions is logged and the
/// report shows it; a folder that is not tables is refused before anything runs.
#[test]
fn a_run_with_tables_measures_each_generation_on_them() {
    let dir = tmp("tablebase");
    let tables = dir.join("tb");
    let o = junglezero(&["tb", "build", "--pieces", "2", "--out", tables.to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
    let run = dir.join("run");
    let set = format!("tablebase.dir={}", tables.display());
    let o = junglezero(&["train", "--config", &smoke_config(), "--run", run.to_str().unwrap(), "--set", "train.iterations=2", "--set", &set]);
    assert!(o.status.success(), "{}", stderr(&o));
    let metrics = std::fs::read_to_string(run.join("metrics.jsonl")).unwrap();
    let events: Vec<serde_json::Value> =
        metrics.lines().filter_map(|l| serde_json::from_str(l).ok()).filter(|v: &serde_json::Value| v["kind"] == "tablebase").collect();
    assert_eq!(events.len(), 2, "{metrics}");
    for (i, e) in events.iter().enumerate() {
        assert_eq!(e["generation"].as_u64(), Some(i as u64 + 1));
        assert_eq!(e["positions"].as_u64(), Some(512));
        let a = e["accuracy"].as_f64().unwrap();
        assert!((0.0..=1.0).contains(&a), "{e}");
    }
    let o = junglezero(&["report", "--run", run.to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
    let md = std::fs::read_to_string(run.join("report/report.md")).unwrap();
    assert!(md.contains("## Value accuracy on tablebase positions") && md.contains("| gen-0002 |"), "{md}");
    assert!(run.join("report/tablebase.png").exists());

    let o = junglezero(&["train", "--config", &smoke_config(), "--run", dir.join("other").to_str().unwrap(), "--set", "tablebase.dir=/nonexistent"]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("[tablebase] dir") && stderr(&o).trim().lines().count() == 1, "{}", stderr(&o));
    let _ = std::fs::remove_dir_all(&dir);
}
