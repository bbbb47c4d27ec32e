//! Strength with time to think: the alpha-beta root check (`mcts.play_tactics`), the
//! exploration constant growing with visits (`mcts.c_puct_factor`) and the clock's time
//! manager (a move searched past its target while unclear).

use std::sync::Arc;

use junglezero::alphabeta::{Eval, EvalWeights, SearchConfig};
use junglezero::entries::jungle::tactics::AlphaBetaTactics;
use junglezero::game::Game;
use junglezero::jungle::{JungleGame, Rules, parse_fen};
use junglezero::mcts::baseline::UniformEvaluator;
use junglezero::mcts::cache::NnCache;
use junglezero::mcts::player::unclear;
use junglezero::mcts::tactics::Tactics;
use junglezero::mcts::{EvalBuffers, MctsConfig, MctsPlayer, Search, run_plain};
use junglezero::player::{Limits, Player};

/// Red's Dog two steps from Blue's den, Blue's Rat three from Red's: Red wins in three plies.
const WIN_IN_TWO: &str = "7/4D2/7/7/7/7/7/7/r6 w";
/// Blue's Wolf on Red's trap e1 enters the den next move unless Red's Dog on f1 takes it.
const ONE_DEFENCE: &str = "l5t/1d3c1/r1p3e/7/7/7/E1W1P1R/1C5/T3wDL w";

fn game(fen: &str) -> JungleGame {
    JungleGame::new(parse_fen(fen).unwrap(), Rules::default())
}

fn check(plies: u32) -> AlphaBetaTactics {
    AlphaBetaTactics::new(&SearchConfig::default(), Eval::new(&EvalWeights::default(), Rules::default()), plies)
}

#[test]
fn the_check_finds_a_forced_win_and_the_moves_that_lose() {
    let v = check(4).check(&game(WIN_IN_TWO), None);
    let (mv, plies) = v.win.expect("a win in three plies within four");
    assert!(["e8d8", "e8e9"].contains(&mv.to_string().as_str()), "{mv}");
    assert_eq!(plies, 3);
    assert!(v.lost.is_empty() && v.nodes > 0);
    // Nothing is forced in the opening.
    let v = check(4).check(&JungleGame::start(Rules::default()), None);
    assert!(v.win.is_none() && v.lost.is_empty(), "{v:?}");

    let g = game(ONE_DEFENCE);
    let v = check(4).check(&g, None);
    assert_eq!(v.win, None);
    let legal = g.legal_moves().len();
    assert_eq!(v.lost.len(), legal - 1, "every move but the capture loses: {:?}", v.lost);
    assert!(v.lost.iter().all(|(m, p)| m.to_string() != "f1e1" && *p == 2), "{:?}", v.lost);
}

#[test]
fn a_player_with_the_check_plays_the_win_at_once_and_never_a_refuted_move() {
    let net = Arc::new(UniformEvaluator::default());
    let config = MctsConfig { play_tactics: 4, ..MctsConfig::default() };
    let with = |plies: u32| Some(Arc::new(check(plies)) as Arc<dyn Tactics<JungleGame>>);
    let mut player = MctsPlayer::<JungleGame, _>::new(net.clone(), &config, 50).with_tactics(with(4));
    let mut lines = Vec::new();
    let best = player.choose(&game(WIN_IN_TWO), &Limits::nodes(50), &mut |l| lines.push(l.to_string())).unwrap();
    assert!(["e8d8", "e8e9"].contains(&best.to_string().as_str()), "{best}");
    assert!(player.last_search().is_none(), "no tree search after a proven win");
    assert!(lines.iter().any(|l| l.contains(" score mate 2 ")), "{lines:?}");
    assert!(lines.iter().any(|l| l == "info string alpha-beta check 4 plies: win in 3"), "{lines:?}");

    // Two simulations cannot tell the capture from two dozen other moves; the check can.
    let mut player = MctsPlayer::<JungleGame, _>::new(net.clone(), &config, 2).with_tactics(with(4));
    let best = player.choose(&game(ONE_DEFENCE), &Limits::nodes(2), &mut |_| {}).unwrap();
    assert_eq!(best.to_string(), "f1e1");
    let s = player.last_search().unwrap();
    let root = s.tree().root();
    let lost = root.children().filter(|&c| s.child_proof(c).is_some_and(|p| !p.win && p.plies == 2)).count();
    assert_eq!(lost, root.num_children as usize - 1);
    // Without the solver the refuted moves are not marked (nothing in the tree is proven).
    let plain = MctsConfig { play_solver: false, ..config };
    let mut player = MctsPlayer::<JungleGame, _>::new(net, &plain, 2).with_tactics(with(4));
    player.choose(&game(ONE_DEFENCE), &Limits::nodes(2), &mut |_| {}).unwrap();
    let s = player.last_search().unwrap();
    assert!(s.tree().root().children().all(|c| s.child_proof(c).is_none()));
}

#[test]
fn the_exploration_constant_grows_with_visits_only_when_asked() {
    let mut c = MctsConfig::default();
    assert_eq!(c.c_puct_at(1_000_000), c.c_puct);
    c.c_puct_factor = 2.0;
    c.c_puct_base = 100.0;
    assert!((c.c_puct_at(0) - c.c_puct).abs() < 1e-6);
    assert!((c.c_puct_at(100) - (c.c_puct + 2.0 * std::f32::consts::LN_2)).abs() < 1e-5);
    assert!(c.validate::<JungleGame>().is_ok());
    c.c_puct_base = 0.0;
    assert!(c.validate::<JungleGame>().unwrap_err().to_string().contains("mcts.c_puct_base"));
}

fn searched(fen: &str, sims: u32) -> Search<JungleGame> {
    let mut s = Search::new(game(fen), &MctsConfig { dirichlet_fraction: 0.0, ..MctsConfig::default() }, 1);
    s.set_solver(true);
    let mut cache = NnCache::new(1 << 12, 32);
    let mut buf = EvalBuffers::new::<JungleGame>(1);
    run_plain(&mut s, &UniformEvaluator::default(), &mut cache, sims, &mut buf);
    s
}

#[test]
fn the_time_manager_extends_only_unclear_moves() {
    // A few visits spread over two dozen equal moves: unclear.
    assert!(unclear(&searched("l5t/1d3c1/r1p1w1e/7/7/7/E1W1P1R/1C5/T5L w", 30)));
    // A proven root is settled.
    assert!(!unclear(&searched(WIN_IN_TWO, 3000)));
    // A single move takes every visit: settled.
    assert!(!unclear(&searched("Rc5/7/7/7/7/7/7/7/7 w", 100)));
}

#[test]
fn arena_specs_take_the_new_keys_and_check_their_ranges() {
    use junglezero::arena::spec::PlayerSpec;
    let spec: PlayerSpec = "mcts:model=net.jzm,sims=400,cpuctfactor=2.5,tactics=6".parse().unwrap();
    assert_eq!(spec.to_string(), "mcts:model=net,sims=400,cpuctfactor=2.5,tactics=6");
    let config = spec.mcts_config(&MctsConfig::default());
    assert_eq!((config.c_puct_factor, config.play_tactics), (2.5, 6));
    let e = "mcts:model=net.jzm,tactics=25".parse::<PlayerSpec>().unwrap_err().to_string();
    assert!(e.contains("tactics") && e.contains("24"), "{e}");
}

#[test]
fn the_protocol_plays_the_checked_win_and_says_so() {
    use super::mcts_solver::{MODEL, protocol_answer_with};
    let script = format!("setoption name Engine value mcts\nsetoption name Model value {MODEL}\nposition fen {WIN_IN_TWO}\ngo movetime 2000\n");
    let lines = protocol_answer_with(&["--set", "mcts.play_tactics=4"], &script);
    assert!(lines.iter().any(|l| l == "info string alpha-beta check 4 plies: win in 3"), "{lines:?}");
    let best = lines.iter().find_map(|l| l.strip_prefix("bestmove ")).unwrap_or_else(|| panic!("{lines:?}"));
    assert!(best == "e8d8" || best == "e8e9", "{lines:?}");
    let bad = protocol_answer_with(&["--set", "mcts.play_tactics=99"], "uci\n");
    assert!(bad.is_empty(), "a setting out of range starts no session: {bad:?}");
}
