//! MCTS and batched self-play with test evaluators (no trained network needed).

use junglezero::game::{Encode, Game, Reason};
use junglezero::jungle::encode::{INPUT_SIZE, action_index, encode, mirror_action, mirror_planes};
use junglezero::jungle::{JungleGame, Rules, parse_fen};
use junglezero::mcts::baseline::{RolloutEvaluator, UniformEvaluator};
use junglezero::mcts::cache::NnCache;
use junglezero::mcts::{EvalBuffers, Evaluator, MctsConfig, Outputs, Search, run_batched, run_plain};
use junglezero::selfplay::record::{decode_shard, encode_shard};
use junglezero::selfplay::{Counters, RunOptions, SelfplayConfig, play_plain, run};
use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;

fn no_noise() -> MctsConfig {
    MctsConfig { dirichlet_fraction: 0.0, ..MctsConfig::default() }
}

fn searched(fen: &str, sims: u32) -> Search<JungleGame> {
    let g = JungleGame::new(parse_fen(fen).unwrap(), Rules::default());
    let mut s = Search::new(g, &no_noise(), 1);
    let mut cache = NnCache::new(1 << 12, 32);
    let mut buf = EvalBuffers::new::<JungleGame>(1);
    run_plain(&mut s, &UniformEvaluator::default(), &mut cache, sims, &mut buf);
    s
}

#[test]
fn uniform_priors_find_a_den_entry_in_one() {
    // The Red Dog on e9 can enter Blue's den among two dozen other moves.
    let s = searched("l3D1t/1d3c1/r1p1w1e/7/7/7/E1W1P1R/1C5/T5L w", 200);
    assert_eq!(s.best_move().unwrap().to_string(), "e9d9");
    assert!(s.root_value() > 0.8, "value {}", s.root_value());
}

#[test]
fn uniform_priors_avoid_an_immediate_loss() {
    // The Blue Wolf on Red's trap e1 enters the den next move unless the Dog on f1 takes it.
    let s = searched("l5t/1d3c1/r1p3e/7/7/7/E1W1P1R/1C5/T3wDL w", 800);
    assert_eq!(s.best_move().unwrap().to_string(), "f1e1");
}

#[test]
fn root_visits_count_the_simulations() {
    let s = searched("l5t/1d3c1/r1p1w1e/7/7/7/E1W1P1R/1C3D1/T5L w", 300);
    assert_eq!(s.root_visits(), 300);
    // The first simulation expands the root; every other one passes through one child.
    let children: u32 = s.root_children().map(|c| c.1).sum();
    assert_eq!(children, 299);
}

#[test]
fn batched_and_plain_drivers_agree_on_searches() {
    let fens = ["l5t/1d3c1/r1p1w1e/7/7/7/E1W1P1R/1C3D1/T5L w", "7/7/2e4/7/l2TR2/2r4/2L4/7/7 w", "4dC1/2cW3/3p3/7/7/7/3R3/3l3/1Er1D2 b"];
    let make = |f: &str, i: u64| Search::new(JungleGame::new(parse_fen(f).unwrap(), Rules::default()), &MctsConfig::default(), i);
    let eval = RolloutEvaluator { playouts: 2, max_plies: 60 };
    let mut plain: Vec<_> = fens.iter().enumerate().map(|(i, f)| make(f, i as u64)).collect();
    let mut buf = EvalBuffers::new::<JungleGame>(fens.len());
    for s in plain.iter_mut() {
        s.request_noise();
        run_plain(s, &eval, &mut NnCache::new(0, 32), 150, &mut buf);
    }
    let mut batched: Vec<_> = fens.iter().enumerate().map(|(i, f)| make(f, i as u64)).collect();
    for s in batched.iter_mut() {
        s.request_noise();
    }
    run_batched(&mut batched, &eval, &mut NnCache::new(0, 32), 150, &mut buf);
    for (a, b) in plain.iter().zip(&batched) {
        let va: Vec<_> = a.root_children().map(|c| (c.0, c.1)).collect();
        let vb: Vec<_> = b.root_children().map(|c| (c.0, c.1)).collect();
        assert_eq!(va, vb);
    }
}

fn small_selfplay() -> (MctsConfig, SelfplayConfig) {
    let mcts = MctsConfig { cache_entries: 1 << 12, ..MctsConfig::default() };
    let sp = SelfplayConfig {
        workers: 1,
        games_in_flight: 5,
        full_sims: 24,
        fast_sims: 8,
        full_search_prob: 0.5,
        resign_threshold: -0.9,
        resign_playout_fraction: 0.3,
        ..SelfplayConfig::default()
    };
    (mcts, sp)
}

/// Plays `opts` with both self-play drivers, asserts they produced the same games, and returns
/// them (sorted by seed) with the batched driver's counters.
fn plain_and_batched_agree<E: Evaluator<JungleGame>>(
    eval: &E,
    mcts: &MctsConfig,
    sp: &SelfplayConfig,
    opts: &RunOptions<JungleGame>,
) -> (Vec<junglezero::selfplay::record::GameRecord<JungleGame>>, Counters) {
    let mut plain = play_plain(eval, mcts, sp, opts);
    let counters = Counters::default();
    let mut batched = Vec::new();
    if let Err(never) = run(
        eval,
        mcts,
        sp,
        opts,
        &counters,
        |g| {
            batched.push(g);
            Ok::<(), std::convert::Infallible>(())
        },
        || {},
    ) {
        match never {}
    }
    batched.sort_by_key(|g| g.seed);
    plain.sort_by_key(|g| g.seed);
    assert_eq!(plain, batched);
    (batched, counters)
}

#[test]
fn batched_selfplay_plays_the_same_games_as_the_plain_driver() {
    let (mcts, sp) = small_selfplay();
    let rules = Rules { max_plies: 120, ..Rules::default() };
    let opts = RunOptions { first_index: 3, ..RunOptions::from_start(7, 99, "rollout", &rules) };
    let eval = RolloutEvaluator { playouts: 1, max_plies: 40 };
    let (batched, counters) = plain_and_batched_agree(&eval, &mcts, &sp, &opts);
    assert_eq!(batched.len(), 7);
    // Leaves were batched: more than one position per network call on average.
    let (evals, batches) = (counters.evals.load(std::sync::atomic::Ordering::Relaxed), counters.batches.load(std::sync::atomic::Ordering::Relaxed));
    assert!(evals > 2 * batches, "{evals} evals in {batches} batches");
}

/// A deterministic stand-in for a network that reads only the encoded inputs: each row's
/// outputs are a fixed function of that row alone.
struct RowFunction;

impl junglezero::mcts::server::BatchEvaluator for RowFunction {
    fn evaluate_inputs(&self, inputs: &[f32], n: usize, out: Outputs<'_>) {
        let actions = JungleGame::ACTIONS;
        for i in 0..n {
            let row = &inputs[i * INPUT_SIZE..(i + 1) * INPUT_SIZE];
            let s: f32 = row.iter().enumerate().map(|(j, x)| x * (j % 97) as f32 * 0.01).sum();
            for a in 0..actions {
                out.policy[i * actions + a] = (s + a as f32 * 0.37).sin();
            }
            out.value[i] = (s * 0.05).sin() * 0.5;
            out.moves_left[i] = f32::NAN;
        }
    }
    fn actions(&self) -> usize {
        JungleGame::ACTIONS
    }
    fn input_size(&self) -> usize {
        INPUT_SIZE
    }
    fn name(&self) -> String {
        "row function".into()
    }
}

impl Evaluator<JungleGame> for RowFunction {
    fn evaluate(&self, states: &[&JungleGame], inputs: &[f32], out: Outputs<'_>) {
        junglezero::mcts::server::BatchEvaluator::evaluate_inputs(self, inputs, states.len(), out);
    }
    fn name(&self) -> String {
        "row function".into()
    }
}

#[test]
fn selfplay_through_the_inference_server_plays_the_same_games() {
    // The batched driver with one worker is deterministic, so its games through the server must
    // be its games with the evaluator called directly. (The merging of several workers' batches
    // is tested in `mcts::server`.)
    use junglezero::mcts::server::{ServerConfig, ServerStats, maybe_served};
    let (mcts, sp) = small_selfplay();
    let rules = Rules { max_plies: 80, ..Rules::default() };
    let opts = RunOptions::from_start(6, 5, "f", &rules);
    let play = |server: Option<ServerConfig>, stats: &ServerStats, counters: &Counters| {
        let mut games = Vec::new();
        maybe_served(&RowFunction, server, stats, |e| {
            if let Err(never) = run(
                e,
                &mcts,
                &sp,
                &opts,
                counters,
                |g| {
                    games.push(g);
                    Ok::<(), std::convert::Infallible>(())
                },
                || {},
            ) {
                match never {}
            }
        });
        games.sort_by_key(|g| g.seed);
        games
    };
    let direct = play(None, &ServerStats::default(), &Counters::default());
    let (stats, counters) = (ServerStats::default(), Counters::default());
    let served = play(Some(ServerConfig { max_batch: 64, max_wait: std::time::Duration::from_millis(2), clients: 1 }), &stats, &counters);
    assert_eq!(direct.len(), 6);
    assert_eq!(direct, served);
    // Every leaf went through the server.
    let evals = counters.evals.load(std::sync::atomic::Ordering::Relaxed);
    assert!(evals > 0);
    assert_eq!(stats.positions.load(std::sync::atomic::Ordering::Relaxed), evals);
    assert_eq!(stats.requests.load(std::sync::atomic::Ordering::Relaxed), counters.batches.load(std::sync::atomic::Ordering::Relaxed));
}

#[test]
fn level_games_are_adjudicated_drawn_after_the_set_ply() {
    // A uniform evaluator values every position 0, so the search values stay level: every game
    // that lasts is adjudicated a draw once it has 30 plies and 10 level plies in a row, except
    // those played out with resignation (and adjudication) off.
    let (mcts, mut sp) = small_selfplay();
    sp.draw_after_plies = 30;
    sp.draw_plies = 10;
    sp.draw_value = 0.5;
    let rules = Rules { max_plies: 200, ..Rules::default() };
    let opts = RunOptions::from_start(12, 5, "uniform", &rules);
    let (games, _) = plain_and_batched_agree(&UniformEvaluator::default(), &mcts, &sp, &opts);
    let adjudicated: Vec<_> = games.iter().filter(|g| g.reason == Reason::Adjudication).collect();
    assert!(!adjudicated.is_empty(), "{:?}", games.iter().map(|g| (g.reason, g.moves.len())).collect::<Vec<_>>());
    for g in &adjudicated {
        assert!(g.winner.is_none() && g.moves.len() >= 30, "adjudicated at ply {}", g.moves.len());
    }
    // Without adjudication the same games run on to the cap or a result.
    sp.draw_after_plies = 0;
    let (games, _) = plain_and_batched_agree(&UniformEvaluator::default(), &mcts, &sp, &opts);
    assert!(games.iter().all(|g| g.reason != Reason::Adjudication));
}

#[test]
fn selfplay_records_replay_and_round_trip() {
    let (mcts, sp) = small_selfplay();
    let rules = Rules { max_plies: 100, ..Rules::default() };
    let opts = RunOptions::<JungleGame>::from_start(3, 5, "uniform", &rules);
    // Raw visit counts, then counts pruned of forced playouts.
    for k in [0.0, 2.0] {
        let mcts = MctsConfig { forced_playouts: k, ..mcts.clone() };
        let games = play_plain(&UniformEvaluator::default(), &mcts, &sp, &opts);
        assert_eq!(decode_shard(&encode_shard(&games)).unwrap(), games);
        for g in &games {
            let mut full = 0;
            g.replay(|state, m| {
                assert!(state.is_legal(m.mv));
                if m.full_search {
                    full += 1;
                    let total: u32 = m.visits.iter().map(|v| v.1).sum();
                    if k == 0.0 {
                        assert!(total >= sp.full_sims - 1, "visits {total}");
                    } else {
                        // Pruning keeps the most visited move whole and drops single visits.
                        assert!(total > 0 && m.visits.iter().all(|v| v.1 > 1 || m.visits.len() == 1), "{:?}", m.visits);
                    }
                    assert!(m.visits.iter().all(|(mv, _)| state.is_legal(*mv)));
                } else {
                    assert!(m.visits.is_empty());
                }
            })
            .unwrap();
            assert!(full > 0);
            assert!(g.moves.len() <= 100);
        }
    }
}

#[test]
fn mirroring_commutes_with_encoding_and_move_generation() {
    let mut rng = ChaCha8Rng::seed_from_u64(3);
    let mut x = vec![0.0; INPUT_SIZE];
    let mut y = vec![0.0; INPUT_SIZE];
    for _ in 0..200 {
        let mut g = JungleGame::start(Rules { max_plies: 300, ..Rules::default() });
        for _ in 0..rng.random_range(0..60) {
            if g.outcome().is_some() {
                break;
            }
            let m = g.legal_moves();
            g.play_unchecked(m[rng.random_range(0..m.len())]);
        }
        if g.outcome().is_some() {
            continue;
        }
        let mut mirrored = JungleGame::new(g.root().mirror(), *g.rules());
        for m in g.moves() {
            mirrored.play_unchecked(m.mirror());
        }
        encode(&g, &mut x);
        mirror_planes(&mut x);
        encode(&mirrored, &mut y);
        assert_eq!(x, y, "{}", g.fen());
        let side = g.side_to_move();
        let mut a: Vec<usize> = g.legal_moves().iter().map(|&m| mirror_action(action_index(side, m))).collect();
        let mut b: Vec<usize> = mirrored.legal_moves().iter().map(|&m| mirrored.action_index(m)).collect();
        a.sort();
        b.sort();
        assert_eq!(a, b);
    }
}

/// `sims` simulations with uniform priors from `fen` under `config`, planned for that budget,
/// with root noise requested when `noise` (as full self-play searches do).
fn searched_with(fen: &str, config: &MctsConfig, seed: u64, sims: u32, noise: bool) -> Search<JungleGame> {
    let g = JungleGame::new(parse_fen(fen).unwrap(), Rules::default());
    let mut s = Search::new(g, config, seed);
    s.set_budget(sims);
    if noise {
        s.request_noise();
    }
    let mut cache = NnCache::new(1 << 12, 32);
    let mut buf = EvalBuffers::new::<JungleGame>(1);
    run_plain(&mut s, &UniformEvaluator::default(), &mut cache, sims, &mut buf);
    s
}

fn gumbel_searched(fen: &str, sims: u32, m: u32, noise: bool) -> Search<JungleGame> {
    let config = MctsConfig { algorithm: junglezero::mcts::Algorithm::Gumbel, gumbel_considered: m, ..MctsConfig::default() };
    searched_with(fen, &config, 3, sims, noise)
}

#[test]
fn gumbel_search_spends_its_budget_on_at_most_m_root_moves_and_finds_the_den_entry() {
    let fen = "l3D1t/1d3c1/r1p1w1e/7/7/7/E1W1P1R/1C5/T5L w";
    for noise in [false, true] {
        let s = gumbel_searched(fen, 64, 4, noise);
        let children: u32 = s.root_children().map(|c| c.1).sum();
        assert_eq!(children, 63, "every simulation after the root's expansion visits one child");
        let visited = s.root_children().filter(|c| c.1 > 0).count();
        assert!(visited <= 4, "only the m = 4 sampled moves are searched: {visited}");
        // With m above the move count every move is considered and the den entry wins.
        let s = gumbel_searched(fen, 64, 64, noise);
        assert_eq!(s.root_children().map(|c| c.1).sum::<u32>(), 63);
        assert_eq!(s.best_move().unwrap().to_string(), "e9d9", "noise {noise}");
        let mut policy = Vec::new();
        s.improved_policy(&mut policy);
        let total: f32 = policy.iter().map(|p| p.1).sum();
        assert!((total - 1.0).abs() < 1e-4, "{total}");
        let best = policy.iter().max_by(|a, b| a.1.total_cmp(&b.1)).unwrap();
        assert_eq!(best.0.to_string(), "e9d9", "the improved policy prefers the winning move");
    }
}

#[test]
fn long_games_are_finished_by_the_teacher_with_teacher_targets() {
    use junglezero::alphabeta::{EvalWeights, SearchConfig};
    use junglezero::entries::jungle::teacher::games::Finisher;
    use junglezero::selfplay::teacher::TeacherConfig;
    let (mcts, sp) = small_selfplay();
    let sp = SelfplayConfig { finish_after_plies: 12, finish_depth: 2, resign_threshold: -1.0, ..sp };
    let rules = Rules { max_plies: 200, ..Rules::default() };
    let finish =
        Finisher::from_settings(&sp, &TeacherConfig { hash_mb: 1, ..TeacherConfig::default() }, &SearchConfig::default(), &EvalWeights::default(), rules);
    let finish = finish.expect("finish_after_plies > 0 gives a finisher");
    assert_eq!(finish.teacher.depth, 2);
    let opts = RunOptions { finish: Some(finish.handover()), ..RunOptions::from_start(4, 11, "uniform", &rules) };
    let eval = UniformEvaluator::default();
    let (plain, counters) = plain_and_batched_agree(&eval, &mcts, &sp, &opts);
    let mut handed_over = 0;
    for g in &plain {
        if g.moves.len() <= 12 {
            continue;
        }
        handed_over += 1;
        // From ply 12 on every move is the teacher's: a full target summing to 1000 whose
        // largest count is the move played (the best-scored move; equal scores tie).
        for (i, m) in g.moves.iter().enumerate().skip(12) {
            assert!(m.full_search, "ply {i}");
            assert_eq!(m.visits.iter().map(|v| v.1).sum::<u32>(), 1000, "ply {i}");
            let top = m.visits.iter().map(|v| v.1).max().unwrap();
            let played = m.visits.iter().find(|v| v.0 == m.mv).map_or(0, |v| v.1);
            // (each of the n counts is rounded; the best move absorbs up to n/2 units).
            assert!(played as usize + m.visits.len() / 2 + 1 >= top as usize, "ply {i}: played {played}, top {top}");
        }
        g.replay(|state, m| assert!(state.is_legal(m.mv))).unwrap();
    }
    assert!(handed_over > 0, "no game reached the hand-over ply");
    assert_eq!(counters.finished.load(std::sync::atomic::Ordering::Relaxed), handed_over);
}

#[test]
fn the_moves_left_utility_prefers_the_faster_win_and_the_slower_loss() {
    use junglezero::mcts::search::moves_left_utility;
    let (slope, cap) = (0.0027, 0.0345);
    // Winning: a child that ends the game 5 plies sooner than the parent expects gains value.
    let sooner = moves_left_utility(0.8, 30.0, 25.0, slope, cap);
    let later = moves_left_utility(0.8, 30.0, 35.0, slope, cap);
    assert!((sooner - 0.8 * 0.0135).abs() < 1e-6 && (later + 0.8 * 0.0135).abs() < 1e-6, "{sooner} {later}");
    // Losing: the longer line is preferred.
    assert!(moves_left_utility(-0.8, 30.0, 35.0, slope, cap) > 0.0);
    assert!(moves_left_utility(-0.8, 30.0, 25.0, slope, cap) < 0.0);
    // Capped, and nothing when the result looks even.
    assert!((moves_left_utility(1.0, 200.0, 0.0, slope, cap) - cap).abs() < 1e-6);
    assert_eq!(moves_left_utility(0.0, 30.0, 10.0, slope, cap), 0.0);
}

/// Uniform priors, value 0, and a fixed number of plies left for every position.
struct PliesLeft(f32);

impl Evaluator<JungleGame> for PliesLeft {
    fn evaluate(&self, states: &[&JungleGame], _: &[f32], out: Outputs<'_>) {
        out.policy[..states.len() * <JungleGame as Encode>::ACTIONS].fill(0.0);
        out.value[..states.len()].fill(0.0);
        out.moves_left[..states.len()].fill(self.0);
    }

    fn name(&self) -> String {
        "plies-left".into()
    }
}

#[test]
fn moves_left_estimates_back_up_one_ply_per_level() {
    let g = JungleGame::start(Rules::default());
    let mut s = Search::new(g, &no_noise(), 1);
    let mut cache = NnCache::new(0, 32);
    let mut buf = EvalBuffers::new::<JungleGame>(1);
    run_plain(&mut s, &PliesLeft(10.0), &mut cache, 1, &mut buf);
    assert_eq!(s.tree().root().moves_left(), 10.0, "the root's own estimate");
    run_plain(&mut s, &PliesLeft(10.0), &mut cache, 1, &mut buf);
    // The second simulation's leaf is a child (10 plies left), one ply below the root (11).
    assert_eq!(s.tree().root().moves_left(), 10.5);
    let child = s.tree().nodes[s.tree().root().children()].iter().find(|c| c.visits == 1).unwrap();
    assert_eq!(child.moves_left(), 10.0);
    // An evaluator without the head (NaN) never switches the utility on; values are unchanged.
    let mut plain = Search::new(JungleGame::start(Rules::default()), &no_noise(), 1);
    let mut with = Search::new(JungleGame::start(Rules::default()), &no_noise(), 1);
    run_plain(&mut plain, &UniformEvaluator::default(), &mut NnCache::new(0, 32), 50, &mut buf);
    run_plain(&mut with, &PliesLeft(10.0), &mut NnCache::new(0, 32), 50, &mut buf);
    let visits = |s: &Search<JungleGame>| s.root_children().map(|c| c.1).collect::<Vec<_>>();
    assert_eq!(visits(&plain), visits(&with), "value 0 everywhere: the utility (scaled by q) is 0");
}

fn forced_searched(fen: &str, sims: u32, k: f32) -> Search<JungleGame> {
    // No Dirichlet mixing, so the priors stay the evaluator's; the noise request is what
    // turns forced playouts on (full self-play searches ask for it).
    let config = MctsConfig { forced_playouts: k, dirichlet_fraction: 0.0, ..MctsConfig::default() };
    searched_with(fen, &config, 5, sims, true)
}

#[test]
fn forced_playouts_give_every_root_child_its_share_and_pruning_takes_it_back() {
    use junglezero::mcts::search::forced_count;
    // The Red Dog on e9 enters Blue's den in one: search soon spends nearly everything on it.
    let fen = "l3D1t/1d3c1/r1p1w1e/7/7/7/E1W1P1R/1C5/T5L w";
    let sims = 400;
    let (plain, forced) = (forced_searched(fen, sims, 0.0), forced_searched(fen, sims, 2.0));
    let n: u32 = forced.root_children().map(|c| c.1).sum();
    assert_eq!(n, sims - 1);
    let short = |s: &Search<JungleGame>| s.root_children().filter(|c| (c.1 as f32) < forced_count(2.0, c.2, n) - 1.0).count();
    assert!(short(&plain) > 0, "without forcing some root child stays below sqrt(2 P N)");
    assert_eq!(short(&forced), 0, "with k = 2 every root child reaches sqrt(2 P N) (within one visit)");
    assert_eq!(forced.best_move().unwrap().to_string(), "e9d9");

    // Without forced playouts the target is the raw visit counts.
    let mut target = Vec::new();
    plain.policy_target(&mut target);
    let raw: Vec<_> = plain.root_children().filter(|c| c.1 > 0).map(|c| (c.0, c.1)).collect();
    assert_eq!(target, raw);

    // With them, the winning move keeps all its visits and the losing moves lose the forced
    // ones: the target puts far more weight on the winner than the raw counts do.
    forced.policy_target(&mut target);
    let best = forced.root_children().max_by_key(|c| c.1).unwrap();
    let kept = target.iter().find(|t| t.0 == best.0).map(|t| t.1);
    assert_eq!(kept, Some(best.1));
    for &(mv, pruned) in &target {
        let visits = forced.root_children().find(|c| c.0 == mv).unwrap().1;
        assert!(pruned <= visits && pruned > 1, "{mv}: {pruned} of {visits}");
    }
    let share = |t: &[(junglezero::jungle::Move, u32)]| t.iter().find(|x| x.0 == best.0).unwrap().1 as f32 / t.iter().map(|x| x.1).sum::<u32>() as f32;
    let raw: Vec<_> = forced.root_children().filter(|c| c.1 > 0).map(|c| (c.0, c.1)).collect();
    assert!(share(&target) > share(&raw) + 0.05, "pruned {} raw {}", share(&target), share(&raw));
}

/// A fixed value and draw chance for every position, uniform priors.
struct Drawish {
    value: f32,
    draw: f32,
}

impl Evaluator<JungleGame> for Drawish {
    fn evaluate(&self, states: &[&JungleGame], _: &[f32], out: Outputs<'_>) {
        let n = states.len();
        out.policy[..n * JungleGame::ACTIONS].fill(0.0);
        out.value[..n].fill(self.value);
        out.moves_left[..n].fill(f32::NAN);
        out.draw[..n].fill(self.draw);
    }
    fn name(&self) -> String {
        "drawish".into()
    }
}

/// The searched win/draw/loss split: the draw chance is the mean over the simulations (the
/// network's, or 1 at a drawn end), the value splits the rest; an evaluator without draws
/// gives none.
#[test]
fn the_root_splits_its_value_into_win_draw_and_loss() {
    let g = JungleGame::new(parse_fen("l5t/1d3c1/r1p1w1e/7/7/7/E1W1P1R/1C3D1/T5L w").unwrap(), Rules::default());
    let mut buf = EvalBuffers::new::<JungleGame>(1);
    let mut s = Search::new(g.clone(), &no_noise(), 1);
    run_plain(&mut s, &Drawish { value: 0.0, draw: 0.6 }, &mut NnCache::new(0, 32), 50, &mut buf);
    let [w, d, l] = s.root_wdl().unwrap();
    assert!((d - 0.6).abs() < 1e-5 && (w - 0.2).abs() < 1e-5 && (l - 0.2).abs() < 1e-5, "{w} {d} {l}");
    // Each reported line has its own split, adding up to 1.
    for (_, q, split, _, _) in s.lines(3, 4) {
        let [w, d, l] = split.unwrap();
        assert!((w + d + l - 1.0).abs() < 1e-5 && (w - l - q).abs() < 1e-4, "{w} {d} {l} q {q}");
    }
    assert_eq!(junglezero::mcts::player::permille([0.2004, 0.6, 0.1996]), [200, 600, 200]);
    assert_eq!(junglezero::mcts::player::permille([1.0, 0.0, 0.0]).iter().sum::<u32>(), 1000);
    let mut s = Search::new(g, &no_noise(), 1);
    run_plain(&mut s, &UniformEvaluator::default(), &mut NnCache::new(0, 32), 20, &mut buf);
    assert!(s.root_wdl().is_none(), "no draw estimates, no split");
    // A position whose every line ends at once in a draw by the no-capture limit.
    let rules = Rules { no_capture_plies: 1, ..Rules::default() };
    let g = JungleGame::new(parse_fen("l5t/1d3c1/r1p1w1e/7/7/7/E1W1P1R/1C3D1/T5L w").unwrap(), rules);
    let mut s = Search::new(g, &no_noise(), 1);
    run_plain(&mut s, &Drawish { value: 0.9, draw: 0.0 }, &mut NnCache::new(0, 32), 30, &mut buf);
    let [_, d, _] = s.root_wdl().unwrap();
    assert!(d > 0.9, "draws at the end count: {d}");
}

/// Minibatches of one tree: the leaves in flight together are distinct (virtual loss spreads
/// them), every gathered simulation is finished, no leaf stays parked, and the counts add up as
/// in a sequential search; several threads on one tree still find the den entry in one.
#[test]
fn minibatches_and_threads_share_one_tree_and_count_every_simulation() {
    use junglezero::mcts::parallel::{Budget, Lane, search_parallel};
    use std::sync::atomic::AtomicBool;
    let g = JungleGame::new(parse_fen("l5t/1d3c1/r1p1w1e/7/7/7/E1W1P1R/1C3D1/T5L w").unwrap(), Rules::default());
    let mut cache = NnCache::new(0, 32);
    let mut buf = EvalBuffers::new::<JungleGame>(1);
    let mut s = Search::new(g.clone(), &no_noise(), 1);
    run_plain(&mut s, &UniformEvaluator::default(), &mut cache, 30, &mut buf);
    // Eight leaves parked at once: eight different positions.
    let mut slots = Vec::new();
    for _ in 0..8 {
        if let junglezero::mcts::Step::NeedsEval(_) = s.select(&mut cache) {
            slots.push(s.park().unwrap());
        }
    }
    assert_eq!(slots.len(), 8, "collisions among the first eight leaves");
    let hashes: std::collections::HashSet<u64> = slots.iter().map(|&k| s.parked_state(k).hash()).collect();
    assert_eq!(hashes.len(), 8, "the same leaf twice in one minibatch");
    assert_eq!(s.parked_count(), 8);

    let stop = AtomicBool::new(false);
    for (threads, minibatch) in [(1, 16), (2, 8), (3, 1)] {
        let mut s = Search::new(g.clone(), &no_noise(), 1);
        let mut lanes: Vec<Lane<JungleGame>> = (0..threads).map(|_| Lane::new(minibatch)).collect();
        let budget = Budget { sims: 500, deadline: None, stop: &stop, max_tree_bytes: usize::MAX };
        let mut reports = 0;
        let done = search_parallel(&mut s, &mut cache, &UniformEvaluator::default(), &mut lanes, minibatch, &budget, &mut |_, _| reports += 1);
        assert_eq!((done, s.root_visits(), s.parked_count()), (500, 500, 0), "{threads} threads x {minibatch}");
        // The calling thread reports after each of its own batches; with other threads and an
        // evaluator that answers at once, they may finish all 500 before it gets one.
        if threads == 1 {
            assert!(reports > 0, "one thread: no progress report");
        }
        // Every expanded node has one visit of its own plus its children's.
        let nodes = &s.tree().nodes;
        for n in nodes.iter().filter(|n| n.num_children > 0) {
            let below: u32 = nodes[n.children()].iter().map(|c| c.visits).sum();
            assert_eq!(n.visits, below + 1, "{threads} threads x {minibatch}");
        }
        assert!(nodes.iter().all(|n| n.state != junglezero::mcts::tree::PENDING));
        assert!(s.root_value().abs() <= 1.0);
    }
    let g = JungleGame::new(parse_fen("l3D1t/1d3c1/r1p1w1e/7/7/7/E1W1P1R/1C5/T5L w").unwrap(), Rules::default());
    let mut s = Search::new(g, &no_noise(), 1);
    let mut lanes: Vec<Lane<JungleGame>> = (0..2).map(|_| Lane::new(4)).collect();
    search_parallel(
        &mut s,
        &mut cache,
        &UniformEvaluator::default(),
        &mut lanes,
        4,
        &Budget { sims: 300, deadline: None, stop: &stop, max_tree_bytes: usize::MAX },
        &mut |_, _| {},
    );
    assert_eq!(s.best_move().unwrap().to_string(), "e9d9");
}
