//! Invariants over thousands of random playouts under every rules variant:
//! incremental hash = recomputed, FEN round-trips, mirror twice = identity, mirroring commutes
//! with move generation, every generated move passes the checked door, the checked door rejects
//! every other move, and the engine agrees with a slow referee on legal moves and results.

use crate::common::slow::Referee;
use junglezero::game::{Game, Turn};
use junglezero::jungle::{JungleGame, Move, Position, Repetition, Rules, Side, Square, fen, parse_fen};
use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;

fn variants() -> Vec<Rules> {
    let mut out = Vec::new();
    for dow in [false, true] {
        for shore in [false, true] {
            for etr in [false, true] {
                for rep in [Repetition::Forbidden, Repetition::Draw, Repetition::Off] {
                    // Vary the counters too so that every ending occurs in some playouts.
                    let i = out.len();
                    out.push(Rules {
                        dog_over_wolf: dow,
                        rat_captures_across_shore: shore,
                        elephant_takes_trapped_rat: etr,
                        // The icga2014 Elephant in every other variant.
                        elephant_takes_rat: i % 2 == 1,
                        repetition: rep,
                        no_capture_plies: [200, 0, 40][i % 3],
                        max_plies: [0, 160, 300][(i / 3) % 3],
                        anti_chase: false, // tests/anti_chase.rs plays with it on
                    });
                }
            }
        }
    }
    out
}

fn sorted_moves(g: &JungleGame) -> Vec<String> {
    let mut v: Vec<String> = g.legal_moves().iter().map(|m| m.to_string()).collect();
    v.sort();
    v
}

fn check_position(g: &JungleGame, with_mirror: bool) {
    let pos = g.position();
    assert_eq!(pos.hash(), pos.compute_hash(), "incremental hash differs in {}", fen(pos));
    let back = parse_fen(&fen(pos)).unwrap();
    assert_eq!(&back, pos, "FEN round trip of {}", fen(pos));
    assert_eq!(&pos.mirror().mirror(), pos, "mirror twice");
    if !with_mirror {
        return;
    }

    // Mirroring commutes with move generation (terrain is left-right symmetric). The mirrored
    // game is rebuilt with the mirrored history so the repetition rule sees the same thing.
    let mut mirrored = JungleGame::new(g.root().mirror(), *g.rules());
    for m in g.moves() {
        mirrored.play_move_unchecked(m.mirror());
    }
    let mut expect: Vec<String> = g.legal_moves().iter().map(|m| m.mirror().to_string()).collect();
    expect.sort();
    assert_eq!(sorted_moves(&mirrored), expect, "mirror of {}", fen(pos));
}

/// Every generated move passes the checked door, and every other from-to pair of the mover's
/// pieces (steps and jump lengths) is refused.
fn check_doors(g: &JungleGame) {
    let legal = g.legal_moves();
    for &m in legal.iter() {
        assert!(g.is_legal(m), "generated {m} refused by the checked door in {}", g.fen());
        let mut c = g.clone();
        c.play(m).unwrap_or_else(|e| panic!("checked play refused {m}: {e}"));
    }
    let us = g.side_to_move();
    for (from, piece) in g.position().pieces().filter(|(_, p)| p.side() == us) {
        for to in Square::all() {
            let (df, dr) = (to.file().abs_diff(from.file()), to.rank().abs_diff(from.rank()));
            if (df == 0 && (1..=4).contains(&dr)) || (dr == 0 && (1..=3).contains(&df)) {
                let m = Move::new(from, to);
                assert_eq!(g.is_legal(m), legal.contains(&m), "{piece} {m} in {}", g.fen());
            }
        }
    }
}

/// A search copy (`Game::copy_for_search`: the position and the repetition window only) answers
/// as the game does, now and along a random continuation: legal moves, turn, encoding.
fn check_search_copy(g: &JungleGame, rng: &mut ChaCha8Rng) {
    use junglezero::game::Encode;
    let mut copy = JungleGame::start(*g.rules());
    copy.copy_for_search(g);
    let mut whole = g.clone();
    let (mut a, mut b) = (vec![0.0; junglezero::jungle::encode::INPUT_SIZE], vec![0.0; junglezero::jungle::encode::INPUT_SIZE]);
    for step in 0..6 {
        let at = || format!("{} plies into a copy of {} after {:?}", step, fen(g.position()), g.moves());
        assert_eq!(sorted_moves(&copy), sorted_moves(&whole), "{}", at());
        assert_eq!(copy.turn(), whole.turn(), "{}", at());
        assert_eq!(copy.input_hash(), whole.input_hash(), "{}", at());
        copy.encode(&mut a);
        whole.encode(&mut b);
        assert_eq!(a, b, "{}", at());
        let moves = whole.legal_moves();
        if moves.is_empty() {
            return;
        }
        let m = moves[rng.random_range(0..moves.len())];
        whole.play_unchecked(m);
        copy.play_unchecked(m);
    }
}

fn verdict_of(g: &JungleGame) -> Option<(Option<Side>, &'static str)> {
    match g.turn() {
        Turn::Over(o) => Some((o.winner.map(Side::from_player), o.reason.name())),
        _ => None,
    }
}

/// Plays one random game, checking everything at every ply. Moves that undo the mover's
/// previous move are preferred half the time so that repetitions happen often.
fn playout(rules: Rules, seed: u64, start: Position) -> (usize, Option<&'static str>) {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut g = JungleGame::new(start, rules);
    let mut referee = Referee::new(&start, rules);
    let mut plies = 0;
    loop {
        check_position(&g, plies % 8 == 0);
        let moves = sorted_moves(&g);
        assert_eq!(verdict_of(&g), referee.verdict(), "result after {:?} from {}", g.moves(), fen(&start));
        if verdict_of(&g).is_some() {
            return (plies, verdict_of(&g).map(|v| v.1));
        }
        assert_eq!(moves, referee.legal(), "legal moves after {:?} from {}", g.moves(), fen(&start));
        if plies % 8 == 4 {
            check_doors(&g);
        }
        if plies % 8 == 6 {
            check_search_copy(&g, &mut rng);
        }
        let undo = g.moves().len().checked_sub(2).map(|i| {
            let m = g.moves()[i];
            Move::new(m.to(), m.from()).to_string()
        });
        let pick = match undo {
            Some(u) if rng.random_bool(0.5) && moves.contains(&u) => u,
            _ => moves[rng.random_range(0..moves.len())].clone(),
        };
        g.play_text(&pick).unwrap();
        referee.play(&pick);
        plies += 1;
    }
}

#[test]
fn random_playouts_under_every_variant() {
    let variants = variants();
    assert_eq!(variants.len(), 24);
    let mut games = 0;
    let mut reasons = std::collections::BTreeMap::new();
    for (vi, rules) in variants.iter().enumerate() {
        for i in 0..100u64 {
            let (_, reason) = playout(*rules, vi as u64 * 1000 + i, Position::start());
            *reasons.entry(reason.unwrap_or("?")).or_insert(0) += 1;
            games += 1;
        }
    }
    assert_eq!(games, 2400);
    // Every way a game can end was exercised.
    for r in ["den", "annihilation", "no-moves", "no-capture-limit", "repetition", "move-cap"] {
        assert!(reasons.get(r).copied().unwrap_or(0) > 0, "no playout ended by {r}: {reasons:?}");
    }
}

#[test]
fn random_playouts_from_sparse_positions() {
    // Few pieces, so traps, water fights, jumps over Rats and annihilation come up more often.
    let starts = [
        "7/7/2e4/7/l2TR2/2r4/2L4/7/7 w",
        "4dC1/2cW3/3p3/7/7/7/3R3/3l3/1Er1D2 w",
        "7/4c2/7/7/7/rR5/Ee5/2C4/7 w",
        "6c/7/7/7/7/7/7/7/C6 w",
        "2t4/2r1l2/4c2/1R5/7/6W/7/2L1T2/7 b",
    ];
    for (si, s) in starts.iter().enumerate() {
        let start = parse_fen(s).unwrap();
        for (vi, rules) in variants().iter().enumerate() {
            for i in 0..8u64 {
                playout(*rules, 7_000_000 + (si * 100 + vi) as u64 * 10 + i, start);
            }
        }
    }
}
