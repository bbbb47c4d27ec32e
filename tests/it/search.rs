//! The alpha-beta engine: tactics it must find, legality everywhere, and a sanity match.

use crate::common::game;
use junglezero::alphabeta::{Engine, Eval, EvalWeights, Score, SearchConfig, WIN_BOUND};
use junglezero::game::{Game, Turn};
use junglezero::jungle::{JungleGame, Repetition, Rules, Side};
use junglezero::player::{Limits, Player, RandomPlayer};
use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;

fn engine(rules: Rules) -> Engine {
    let config = SearchConfig { hash_mb: 8, ..SearchConfig::default() };
    Engine::new(&config, Eval::new(&EvalWeights::default(), rules))
}

fn search(g: &JungleGame, depth: u32) -> (String, Score, i32) {
    let r = engine(*g.rules()).search(g, &Limits::depth(depth), &mut |_| {});
    (r.best.expect("a move").to_string(), r.score, r.value)
}

#[test]
fn finds_den_entry_in_one() {
    let g = game("Cd8 rb5", 'w', Rules::default());
    let (best, score, _) = search(&g, 4);
    assert_eq!((best.as_str(), score), ("d8d9", Score::Mate(1)));
}

#[test]
fn finds_den_entry_in_three_plies() {
    // d7-d8-d9 is the only way in within two moves; the Blue Rat is too far to interfere.
    let g = game("Cd7 rb5", 'w', Rules::default());
    let (best, score, _) = search(&g, 6);
    assert_eq!((best.as_str(), score), ("d7d8", Score::Mate(2)));
}

#[test]
fn finds_den_entry_in_five_plies() {
    let g = game("Dd6 rb5", 'w', Rules::default());
    let (best, score, _) = search(&g, 8);
    assert_eq!((best.as_str(), score), ("d6d7", Score::Mate(3)));
}

#[test]
fn prefers_the_shortest_win() {
    // The Dog on d8 wins at once; the Lion's longer routes must not distract.
    let g = game("Dd8 Lc7 rb5", 'w', Rules::default());
    let (best, score, _) = search(&g, 6);
    assert_eq!((best.as_str(), score), ("d8d9", Score::Mate(1)));
}

#[test]
fn avoids_an_avoidable_loss_in_two() {
    // The Blue Lion on e2 threatens to step onto e1 or d2 and then into the den. The Cat on c2
    // covers d2; only Dg1-f1 covers e1. Taking the Blue Cat with the Elephant loses.
    let g = game("Cc2 Dg1 Ea5 le2 ca6", 'w', Rules::default());
    let (best, _, value) = search(&g, 6);
    assert_eq!(best, "g1f1");
    assert!(value > -WIN_BOUND, "the position is not lost after g1f1 (value {value})");
}

#[test]
fn captures_a_trapped_intruder_next_to_the_den() {
    // The Blue Wolf on Red's trap e1 enters the den next move unless the Cat takes it; the
    // Elephant could take a Dog instead.
    let g = game("Cf1 Ea3 we1 da4 lg9", 'w', Rules::default());
    assert_eq!(search(&g, 4).0, "f1e1");
    // The same for Blue, on the other side of the board.
    let g = game("Wd8 Lg1 cc8 ea9", 'b', Rules::default());
    assert_eq!(search(&g, 4).0, "c8d8");
}

fn all_variants() -> Vec<Rules> {
    let mut v = Vec::new();
    for dow in [false, true] {
        for shore in [false, true] {
            for etr in [false, true] {
                for rep in [Repetition::Forbidden, Repetition::Draw, Repetition::Off] {
                    v.push(Rules {
                        dog_over_wolf: dow,
                        rat_captures_across_shore: shore,
                        elephant_takes_trapped_rat: etr,
                        repetition: rep,
                        ..Rules::default()
                    });
                }
            }
        }
    }
    v
}

#[test]
fn bestmove_is_legal_in_random_positions_under_every_variant() {
    let mut rng = ChaCha8Rng::seed_from_u64(42);
    let mut checked = 0;
    for rules in all_variants() {
        let mut e = engine(rules);
        for _ in 0..12 {
            // A random position: random moves from the start, biased to shuffle back and
            // forth sometimes so that repetition rules come into play.
            let mut g = JungleGame::start(rules);
            let plies = rng.random_range(0..120);
            for _ in 0..plies {
                if g.outcome().is_some() {
                    break;
                }
                let moves = g.legal_moves();
                let m = moves[rng.random_range(0..moves.len())];
                g.play_unchecked(m);
            }
            if g.outcome().is_some() {
                continue;
            }
            let limits = if checked % 2 == 0 { Limits::depth(4) } else { Limits::nodes(3000) };
            let best = e.search(&g, &limits, &mut |_| {}).best.expect("a move in a live game");
            assert!(g.is_legal(best), "{best} is illegal in {} under {rules}", g.fen());
            checked += 1;
        }
    }
    assert!(checked >= 200, "only {checked} positions checked");
}

#[test]
fn depth_four_beats_a_random_mover_twenty_times() {
    let rules = Rules { max_plies: 400, ..Rules::default() };
    let mut e = engine(rules);
    for game_no in 0..20u64 {
        let engine_side = if game_no % 2 == 0 { Side::Red } else { Side::Blue };
        let mut random = RandomPlayer::new(game_no);
        let mut g = JungleGame::start(rules);
        e.new_game();
        while !matches!(g.turn(), Turn::Over(_)) {
            let m =
                if g.side_to_move() == engine_side { e.choose(&g, &Limits::depth(4), &mut |_| {}) } else { random.choose(&g, &Limits::default(), &mut |_| {}) };
            g.play_checked(m.expect("a move")).unwrap();
        }
        let o = g.outcome().unwrap();
        assert_eq!(o.winner, Some(engine_side.player()), "game {game_no}: {o:?} after {} plies", g.ply());
    }
}

#[test]
fn anti_chase_positions_reached_by_different_paths_share_no_table_entries() {
    // The same position twice: after path A Red's Dog has entered f1 three times in its last
    // six moves (7-3 forbids f2f1), after path B only once (f2f1 is legal).
    let rules = Rules { anti_chase: true, ..Rules::default() };
    let play = |moves: &str| {
        let mut g = JungleGame::from_fen("7/7/r5e/7/7/7/7/5D1/T6 w", rules).unwrap();
        for m in moves.split_whitespace() {
            g.play_text(m).unwrap();
        }
        g
    };
    let a = play("f2f1 a7a6 f1f2 a6a5 f2f1 a5a4 f1f2 g7g6 f2f1 g6g5 f1f2 g5g4");
    let b = play("a1a2 a7a6 f2f1 a6a5 a2a1 a5a4 f1f2 g7g6 a1a2 g6g5 a2a1 g5g4");
    assert_eq!(a.position(), b.position());
    let f2f1 = junglezero::jungle::parse_move("f2f1").unwrap();
    assert!(!a.is_legal(f2f1) && b.is_legal(f2f1));
    // A's search must come out exactly the same (move, value and node count) whether or not
    // the table already holds B's search of the same position.
    let config = SearchConfig { hash_mb: 64, ..SearchConfig::default() };
    let fresh = Engine::new(&config, Eval::new(&EvalWeights::default(), rules)).search(&a, &Limits::depth(5), &mut |_| {});
    let mut shared = Engine::new(&config, Eval::new(&EvalWeights::default(), rules));
    shared.search(&b, &Limits::depth(5), &mut |_| {});
    let after_b = shared.search(&a, &Limits::depth(5), &mut |_| {});
    assert_eq!((fresh.best, fresh.value, fresh.nodes), (after_b.best, after_b.value, after_b.nodes));
    assert_ne!(fresh.best, Some(f2f1));
}
