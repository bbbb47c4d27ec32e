//! Fault injection: a write that fails (the disk is full, a short write, an I/O error, the Nth
//! write of many) leaves the previous state readable, leaves no temporary file behind, and
//! names the file in its error; a training step that diverges stops the run and keeps the last
//! good network. The fault points (the `fail` crate's, in every build) are global to the process,
//! so these tests are a binary of their own.

use std::path::{Path, PathBuf};

use fail::FailScenario;
use junglezero::game::{Reason, Seat};
use junglezero::jungle::{JungleGame, START_FEN, parse_move};
use junglezero::selfplay::record::{GameRecord, MoveRecord, read_shard, write_shard};
use junglezero::store::events::{Event, TrainEvent};
use junglezero::store::run::RunDir;
use junglezero::store::{read, write_atomic};

fn tmp(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("jz-faults-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn game() -> GameRecord<JungleGame> {
    let moves =
        ["a3a4", "g7g6", "a4a5"].iter().map(|t| MoveRecord { mv: parse_move(t).unwrap(), full_search: false, root_value: 0.0, visits: vec![] }).collect();
    GameRecord {
        rules: Default::default(),
        model_id: "gen-0001".into(),
        seed: 7,
        root: START_FEN.into(),
        moves,
        winner: Some(Seat::First),
        reason: Reason::Resignation,
        would_resign: None,
    }
}

fn names(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
    v.sort();
    v
}

#[test]
fn a_failed_write_keeps_the_old_file_and_names_the_path() {
    let scenario = FailScenario::setup();
    let d = tmp("atomic");
    let path = d.join("best.txt");
    for (fault, want) in [("enospc", "storage"), ("short", "short write"), ("io", "injected")] {
        write_atomic(&path, b"the previous state").unwrap();
        fail::cfg("store::write", &format!("return({fault})")).unwrap();
        let e = write_atomic(&path, b"a new state that never lands").unwrap_err().to_string();
        fail::remove("store::write");
        assert!(e.contains(&path.display().to_string()) && e.to_lowercase().contains(want), "{fault}: {e}");
        assert_eq!(read(&path).unwrap(), b"the previous state", "{fault}");
        assert_eq!(names(&d), ["best.txt"], "{fault}: no temporary file is left");
    }
    std::fs::remove_dir_all(&d).unwrap();
    scenario.teardown();
}

#[test]
fn only_the_nth_write_fails() {
    let scenario = FailScenario::setup();
    let d = tmp("nth");
    fail::cfg("store::write", "2*off->1*return(enospc)->off").unwrap();
    let results: Vec<bool> = (0..5).map(|i| write_atomic(&d.join(format!("f{i}")), b"x").is_ok()).collect();
    fail::remove("store::write");
    assert_eq!(results, [true, true, false, true, true]);
    assert_eq!(names(&d), ["f0", "f1", "f3", "f4"]);
    std::fs::remove_dir_all(&d).unwrap();
    scenario.teardown();
}

#[test]
fn a_shard_that_fails_to_write_leaves_the_others_whole() {
    let scenario = FailScenario::setup();
    let d = tmp("shards");
    let game = game();
    write_shard(&d.join("s0.jzg"), std::slice::from_ref(&game)).unwrap();
    fail::cfg("store::write", "return(short)").unwrap();
    let e = write_shard(&d.join("s1.jzg"), &[game.clone(), game.clone()]).unwrap_err().to_string();
    fail::remove("store::write");
    assert!(e.contains("s1.jzg"), "{e}");
    assert_eq!(names(&d), ["s0.jzg"], "the failed shard is not there under any name");
    assert_eq!(read_shard(&d.join("s0.jzg")).unwrap(), vec![game]);
    std::fs::remove_dir_all(&d).unwrap();
    scenario.teardown();
}

#[test]
fn a_torn_metrics_line_costs_only_itself() {
    let scenario = FailScenario::setup();
    let d = tmp("metrics");
    let run = RunDir::new(&d);
    let event = |step| Event::Train(TrainEvent { step, ..TrainEvent::default() });
    run.append_event(&event(1)).unwrap();
    fail::cfg("store::append", "return(short)").unwrap();
    let e = run.append_event(&event(2)).unwrap_err().to_string();
    fail::remove("store::append");
    assert!(e.contains("metrics.jsonl"), "{e}");
    run.append_event(&event(3)).unwrap();
    let (events, problems) = run.read_events();
    assert_eq!(events, vec![event(1), event(3)]);
    assert_eq!(problems.len(), 1, "{problems:?}");
    assert!(problems[0].starts_with("line 2"), "{problems:?}");
    std::fs::remove_dir_all(&d).unwrap();
    scenario.teardown();
}

fn smoke_config() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("configs/smoke.toml")
}

#[test]
fn a_trainer_that_diverges_stops_and_keeps_the_last_good_network() {
    use junglezero::jungle::JungleGame;
    use junglezero::pipeline::Pipeline;
    use std::sync::atomic::AtomicBool;
    let scenario = FailScenario::setup();
    let dir = tmp("diverge");
    std::fs::remove_dir_all(&dir).unwrap();
    let config = junglezero::config::Config::load(Some(&smoke_config()), &["train.seed=5".into(), "teacher.games=2".into(), "ladder.every=0".into()]).unwrap();
    let mut p = Pipeline::<JungleGame>::open(RunDir::new(&dir), config).unwrap();
    let stop = AtomicBool::new(false);
    assert!(p.teach(&mut |_, _, _, _| {}, &stop).unwrap() > 0);
    let checkpoint = std::fs::read(p.run.checkpoint_path()).unwrap();
    fail::cfg("train::loss", "return").unwrap();
    let e = p.learn(&mut |_, _, _, _| {}, &stop).unwrap_err().to_string();
    fail::remove("train::loss");
    assert!(e.contains("diverged") && e.contains("NaN") && e.contains("train.lr"), "{e}");
    assert_eq!(std::fs::read(p.run.checkpoint_path()).unwrap(), checkpoint, "the last checkpoint is kept");
    assert!(p.run.candidates().is_empty(), "no candidate was written");
    assert_eq!(p.run.best().map(|b| b.0), Some(0));
    drop(p);
    std::fs::remove_dir_all(&dir).unwrap();
    scenario.teardown();
}
