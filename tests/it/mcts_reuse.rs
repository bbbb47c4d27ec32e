//! Tree reuse between moves: `Search::follow` and the MCTS player keeping its subtree.

use std::sync::Arc;

use junglezero::game::Game;
use junglezero::jungle::{JungleGame, Rules, parse_fen};
use junglezero::mcts::baseline::UniformEvaluator;
use junglezero::mcts::cache::NnCache;
use junglezero::mcts::{EvalBuffers, MctsConfig, MctsPlayer, Search, run_plain};
use junglezero::player::{Limits, Player};

const FEN: &str = "l5t/1d3c1/r1p1w1e/7/7/7/E1W1P1R/1C3D1/T5L w";

fn game(fen: &str) -> JungleGame {
    JungleGame::new(parse_fen(fen).unwrap(), Rules::default())
}

fn quiet() -> MctsConfig {
    MctsConfig { dirichlet_fraction: 0.0, cache_entries: 0, ..MctsConfig::default() }
}

fn searched(sims: u32) -> Search<JungleGame> {
    let mut s = Search::new(game(FEN), &quiet(), 1);
    run_plain(&mut s, &UniformEvaluator::default(), &mut NnCache::new(0, 32), sims, &mut EvalBuffers::new::<JungleGame>(1));
    s
}

/// The most visited child of `node` in `s`'s tree (ties: the first).
fn most_visited(s: &Search<JungleGame>, node: usize) -> usize {
    let t = s.tree();
    t.nodes[node].children().max_by_key(|&c| (t.nodes[c].visits, std::cmp::Reverse(c))).unwrap()
}

/// The most visited root move, its most visited reply, and that reply's visits.
fn main_line(s: &Search<JungleGame>) -> (String, String, u32) {
    let ours = most_visited(s, 0);
    let reply = most_visited(s, ours);
    let t = s.tree();
    (t.nodes[ours].mv.to_string(), t.nodes[reply].mv.to_string(), t.nodes[reply].visits)
}

fn play(g: &mut JungleGame, mv: &str) {
    let m = g.legal_moves().iter().copied().find(|m| m.to_string() == mv).unwrap();
    g.play(m).unwrap();
}

#[test]
fn follow_keeps_the_subtree_of_a_searched_reply() {
    let mut s = searched(400);
    let (ours, reply, visits) = main_line(&s);
    assert!(visits > 1, "the reply was searched ({visits} visits)");
    let mut target = game(FEN);
    play(&mut target, &ours);
    play(&mut target, &reply);
    assert!(s.follow(&target, 4));
    assert_eq!(s.root_visits(), visits);
    assert_eq!(s.root_state().hash(), target.hash());
    assert_eq!(s.root_state().ply(), target.ply());
}

#[test]
fn follow_refuses_a_position_no_searched_line_reaches() {
    let mut s = searched(200);
    // The same pieces with the other side to move is not below the root.
    let other = game("l5t/1d3c1/r1p1w1e/7/7/7/E1W1P1R/1C3D1/T5L b");
    assert!(!s.follow(&other, 4));
    assert_eq!(s.root_visits(), 200);
    assert_eq!(s.root_state().hash(), game(FEN).hash());
    // Two plies down but deeper than allowed.
    let (ours, reply, _) = main_line(&s);
    let mut target = game(FEN);
    play(&mut target, &ours);
    play(&mut target, &reply);
    assert!(!s.follow(&target, 1));
    assert_eq!(s.root_visits(), 200);
    // The root itself keeps everything.
    assert!(s.follow(&game(FEN), 4));
    assert_eq!(s.root_visits(), 200);
}

fn player(reuse: bool) -> MctsPlayer<JungleGame, UniformEvaluator> {
    MctsPlayer::new(Arc::new(UniformEvaluator::default()), &MctsConfig { play_tree_reuse: reuse, ..quiet() }, 64)
}

/// The player's move and search at `g`, then the game after its move and its expected reply,
/// with the reply's visits in the kept tree.
fn move_and_reply(p: &mut MctsPlayer<JungleGame, UniformEvaluator>, g: &JungleGame) -> (JungleGame, u32) {
    let mv = p.choose(g, &Limits::nodes(64), &mut |_| {}).unwrap();
    let s = p.last_search().unwrap();
    let t = s.tree();
    let ours = t.nodes[t.root().children()].iter().position(|n| n.mv == mv).unwrap() + t.root().children().start;
    let reply = most_visited(s, ours);
    let mut next = g.clone();
    next.play(mv).unwrap();
    next.play(t.nodes[reply].mv).unwrap();
    (next, t.nodes[reply].visits)
}

#[test]
fn the_player_adds_its_simulations_to_the_kept_reply() {
    let mut p = player(true);
    let (g1, kept) = move_and_reply(&mut p, &game(FEN));
    assert_eq!(p.last_search().unwrap().root_visits(), 64);
    assert!(kept > 0);
    move_and_reply(&mut p, &g1);
    assert_eq!(p.last_search().unwrap().root_visits(), 64 + kept);
    // A new game starts from an empty tree.
    p.new_game();
    move_and_reply(&mut p, &g1);
    assert_eq!(p.last_search().unwrap().root_visits(), 64);
}

#[test]
fn without_reuse_every_move_starts_from_an_empty_tree() {
    let mut p = player(false);
    let (g1, kept) = move_and_reply(&mut p, &game(FEN));
    assert!(kept > 0);
    move_and_reply(&mut p, &g1);
    assert_eq!(p.last_search().unwrap().root_visits(), 64);
}
