//! The training loop's self-play and gate stages run with the network-free evaluators of
//! `mcts::baseline` (they are generic over the evaluator), on a run directory in a temporary
//! folder.

use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;

use junglezero::arena::gate::gate_candidates;
use junglezero::config::Config;
use junglezero::jungle::JungleGame;
use junglezero::mcts::baseline::{RolloutEvaluator, UniformEvaluator};
use junglezero::nn::modelfile::ModelFileError;
use junglezero::selfplay::record::read_shard;
use junglezero::selfplay::stage::{StageGames, play_into_run};
use junglezero::store::events::Event;
use junglezero::store::run::RunDir;

/// A fresh run directory in a temporary folder, with placeholder files (never read as
/// networks by these tests) for the given models and candidates.
fn fresh_run(name: &str, models: &[u64], candidates: &[u64]) -> (PathBuf, RunDir) {
    let dir = std::env::temp_dir().join(format!("jz-stages-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let run = RunDir::new(&dir);
    run.create_dirs().unwrap();
    for path in models.iter().map(|&g| run.model_path(g)).chain(candidates.iter().map(|&g| run.candidate_path(g))) {
        std::fs::write(&path, b"not a network").unwrap();
    }
    (dir, run)
}

/// Short games and small searches.
fn small_config() -> Config {
    let mut c = Config::default();
    c.rules.jungle.max_plies = 40;
    c.selfplay.full_sims = 8;
    c.selfplay.fast_sims = 4;
    c.selfplay.games_in_flight = 3;
    c.selfplay.games_per_shard = 2;
    c.selfplay.workers = 1;
    c.gate.enabled = true;
    c.gate.max_games = 4;
    c.gate.sims = 4;
    c.gate.games_in_flight = 4;
    c.ladder.every = 0;
    c.arena.concurrency = 1;
    c.train.seed = 11;
    c
}

#[test]
fn self_play_writes_every_game_to_shards_and_one_summary_event() {
    let (dir, run) = fresh_run("selfplay", &[], &[]);
    let config = small_config();
    let stop = AtomicBool::new(false);
    let mut ticks = 0;
    let summary = play_into_run(
        &run,
        &<JungleGame as junglezero::pipeline::RunGame>::stage(&config),
        &UniformEvaluator::default(),
        StageGames { model_id: "uniform", generation: 0, games: 5, iteration: 1 },
        &mut |stage, _, total, _| {
            assert_eq!((stage, total), ("selfplay", 5));
            ticks += 1;
        },
        &stop,
    )
    .unwrap();
    assert_eq!(summary.games, 5);
    assert!(ticks > 0, "progress was reported");
    let shards = run.shards();
    assert_eq!(shards.len(), 3, "2 + 2 + 1 games: {shards:?}");
    let games: Vec<_> = shards.iter().flat_map(|p| read_shard::<JungleGame>(p).unwrap()).collect();
    assert_eq!(games.len(), 5);
    assert!(games.iter().all(|g| g.model_id == "uniform" && !g.moves.is_empty() && g.moves.len() <= 40));
    assert!(shards.iter().all(|p| p.file_name().unwrap().to_string_lossy().starts_with("uniform-")));
    let (events, problems) = run.read_events();
    assert!(problems.is_empty(), "{problems:?}");
    let selfplay: Vec<_> = events.iter().filter_map(|e| if let Event::Selfplay(s) = e { Some(s) } else { None }).collect();
    assert_eq!(selfplay.len(), 1);
    assert_eq!((selfplay[0].games, selfplay[0].iteration, selfplay[0].lengths.len()), (5, 1, 5));
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn the_gate_decides_each_candidate_once_with_any_evaluator() {
    // The loader below never reads the files; they only have to be there.
    let (dir, run) = fresh_run("gate", &[0], &[1, 2]);
    let config = small_config();
    let loaded = std::cell::RefCell::new(Vec::new());
    let load = |p: &Path| -> Result<RolloutEvaluator, ModelFileError> {
        loaded.borrow_mut().push(p.file_name().unwrap().to_string_lossy().into_owned());
        Ok(RolloutEvaluator { playouts: 2, max_plies: 20 })
    };
    gate_candidates(&run, &junglezero::pipeline::gate_settings::<JungleGame>(&config), &load, &mut |_, _, _, _| {}).unwrap();
    assert!(run.candidates().is_empty(), "every candidate was decided");
    let mut decided: Vec<u64> = run.promoted().into_iter().chain(run.rejected()).map(|(g, _)| g).collect();
    decided.sort_unstable();
    assert_eq!(decided, [0, 1, 2]);
    assert_eq!(loaded.borrow().len(), 4, "two networks per gated candidate: {:?}", loaded.borrow());
    let (events, _) = run.read_events();
    let gates: Vec<_> = events.iter().filter_map(|e| if let Event::Gate(g) = e { Some(g) } else { None }).collect();
    assert_eq!(gates.iter().map(|g| g.generation).collect::<Vec<_>>(), [1, 2]);
    for g in &gates {
        assert!(g.games > 0 && g.games <= 4 && g.wins + g.losses + g.draws == g.games, "{g:?}");
        assert_eq!(g.steps, None, "the files are not model files, so no training counters are read");
        assert_eq!(run.promoted().iter().any(|(p, _)| *p == g.generation), g.accepted);
    }
    let matches = events.iter().filter(|e| matches!(e, Event::Match(m) if m.source == "gate")).count();
    assert_eq!(matches, 2, "each gate match is logged for the ratings");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn with_gating_disabled_candidates_are_promoted_without_a_match() {
    let (dir, run) = fresh_run("nogate", &[0], &[1]);
    let mut config = small_config();
    config.gate.enabled = false;
    let load = |_: &Path| -> Result<UniformEvaluator, ModelFileError> { panic!("no network is loaded when gating is disabled") };
    gate_candidates(&run, &junglezero::pipeline::gate_settings::<JungleGame>(&config), &load, &mut |_, _, _, _| {}).unwrap();
    assert_eq!(run.best().map(|(g, _)| g), Some(1));
    let (events, _) = run.read_events();
    assert!(events.iter().any(|e| matches!(e, Event::Gate(g) if g.generation == 1 && g.accepted && g.reason == "gating disabled")));
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn flip_self_play_records_nature_s_draws_and_its_games_become_samples() {
    use junglezero::flip::{FlipGame, FlipMove, FlipRules};
    use junglezero::selfplay::stage::StageSettings;
    use junglezero::train::replay::samples_from_games;
    let (dir, run) = fresh_run("flip-selfplay", &[], &[]);
    let config = small_config();
    let rules = FlipRules { no_progress_plies: 12, ..FlipRules::default() };
    let stage: StageSettings<FlipGame> =
        StageSettings { mcts: &config.mcts, selfplay: &config.selfplay, heuristic: None, rules, finish: None, seed: 5, oracle: None };
    let stop = AtomicBool::new(false);
    let which = StageGames { model_id: "uniform", generation: 0, games: 4, iteration: 1 };
    let summary = play_into_run(&run, &stage, &UniformEvaluator::default(), which, &mut |_, _, _, _| {}, &stop).unwrap();
    assert_eq!(summary.games, 4);
    let shards = run.shards();
    let games: Vec<_> = shards.iter().flat_map(|p| read_shard::<FlipGame>(p).unwrap()).collect();
    assert_eq!(games.len(), 4);
    for g in &games {
        use junglezero::game::Reason;
        assert!(matches!(g.reason, Reason::Annihilation | Reason::NoMoves | Reason::NoProgress | Reason::Resignation), "{g:?}");
        // Every flip is followed by what it revealed, recorded without a search value.
        for (i, m) in g.moves.iter().enumerate() {
            if let FlipMove::Flip(s) = m.mv {
                let next = &g.moves[i + 1];
                assert!(matches!(next.mv, FlipMove::Reveal(t, _) if t == s), "move {i}: {:?}", next.mv);
                assert!(next.root_value.is_nan() && next.visits.is_empty() && !next.full_search);
            }
        }
        // A Jungle reader refuses the shard.
        assert!(read_shard::<JungleGame>(&shards[0]).is_err());
    }
    let (samples, skipped) = samples_from_games(Path::new("flip.jzg"), &games, &rules);
    assert_eq!((samples.games, skipped), (4, 0));
    assert!(!samples.samples.is_empty());
    for (i, s) in samples.samples.iter().enumerate() {
        assert!(s.short_value.is_finite() && s.short_value.abs() <= 1.0, "{}", s.short_value);
        let t = samples.target(i);
        assert!(!t.is_empty() && t.iter().all(|&(a, p)| usize::from(a) < 80 && p > 0.0));
        assert!((t.iter().map(|t| t.1).sum::<f32>() - 1.0).abs() < 1e-4);
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_batched_flip_match_repeats_under_its_seed() {
    use junglezero::arena::batched::{NetworkSearch, run_network_match};
    use junglezero::arena::play::MatchSettings;
    use junglezero::flip::{FlipGame, FlipRules};
    let config = small_config();
    let s = MatchSettings::<FlipGame> {
        games: 8,
        concurrency: 2,
        opening_plies: 0,
        seed: 9,
        rules: FlipRules { no_progress_plies: 12, ..FlipRules::default() },
        sprt: None,
        max_consecutive_forfeits: 0,
        adjudication: Default::default(),
        time_margin: std::time::Duration::ZERO,
        oracle: None,
    };
    let eval = UniformEvaluator::default();
    let play = || run_network_match(&eval, &eval, NetworkSearch { mcts: &config.mcts, sims: 6, games_in_flight: 3 }, &s, None, |_, _, _| {});
    let (a, b) = (play(), play());
    assert_eq!(a.games.len(), 8);
    let moves = |o: &junglezero::arena::play::MatchOutcome<FlipGame>| o.games.iter().map(|g| g.moves.clone()).collect::<Vec<_>>();
    assert_eq!(moves(&a), moves(&b), "the same seed plays the same games, whichever worker took them");
}
