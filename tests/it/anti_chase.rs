//! The anti-chase rules 7-3 and 17-5 (docs/rules.md, "The anti-chase rules", switch `anti_chase`),
//! sentence by sentence on small scripted games, then random playouts and perft with history
//! against the slow referee of `tests/common/slow.rs`.
//!
//! The scripted games keep both sides' pieces far apart. The side not under test passes time
//! with two pieces stepping out and back in turn (`blue_idle`, `red_idle`): no piece of it ever
//! enters a square more than twice in seven moves and it never moves one piece twice running,
//! so its own windows never restrict it. Most scripts repeat positions, so they play with
//! `repetition = off` unless said otherwise.

use crate::common::slow::Referee;
use junglezero::game::{Game, Turn};
use junglezero::jungle::perft::perft_game;
use junglezero::jungle::{JungleGame, Move, Position, Repetition, Rules, Side, fen, parse_fen, parse_move};
use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;

// ---------------------------------------------------------------------------------------------
// Helpers
// ---------------------------------------------------------------------------------------------

/// Anti-chase on, repetition off (the scripted shuffles repeat positions).
fn chase_rules() -> Rules {
    Rules { anti_chase: true, repetition: Repetition::Off, ..Rules::default() }
}

/// Anti-chase on with the default repetition rule (forbidden).
fn chase_rules_with_repetition() -> Rules {
    let rules = Rules { anti_chase: true, ..Rules::default() };
    assert_eq!(rules.repetition, Repetition::Forbidden);
    rules
}

fn without(rules: Rules) -> Rules {
    Rules { anti_chase: false, ..rules }
}

fn list(text: &str) -> Vec<String> {
    text.split_whitespace().map(String::from).collect()
}

fn cat(parts: &[Vec<String>]) -> Vec<String> {
    parts.concat()
}

/// Red's and Blue's moves alternating, Red's first (Red moves first in every script).
fn alternate(red: &[String], blue: &[String]) -> Vec<String> {
    assert!(red.len() == blue.len() || red.len() == blue.len() + 1, "{} Red moves, {} Blue moves", red.len(), blue.len());
    let mut out = Vec::new();
    for i in 0..red.len() {
        out.push(red[i].clone());
        if let Some(b) = blue.get(i) {
            out.push(b.clone());
        }
    }
    out
}

/// `n` moves of one piece around the closed loop `squares` (the last square steps back to the
/// first): `around(&["a1", "a2"], 3)` is `a1a2 a2a1 a1a2`.
fn around(squares: &[&str], n: usize) -> Vec<String> {
    (0..n).map(|i| format!("{}{}", squares[i % squares.len()], squares[(i + 1) % squares.len()])).collect()
}

/// Blue's time-passing pieces: Elephant g9 and Rat a9.
const BLUE_IDLE: &str = "eg9 ra9";

/// `n` Blue moves that are never restricted: g9g8 a9a8 g8g9 a8a9 g9g8 ...
fn blue_idle(n: usize) -> Vec<String> {
    ["g9g8", "a9a8", "g8g9", "a8a9"].iter().cycle().take(n).map(|s| s.to_string()).collect()
}

/// Red's time-passing pieces: Elephant g1 and Rat a1.
const RED_IDLE: &str = "Eg1 Ra1";

/// `n` Red moves that are never restricted: g1g2 a1a2 g2g1 a2a1 g1g2 ...
fn red_idle(n: usize) -> Vec<String> {
    ["g1g2", "a1a2", "g2g1", "a2a1"].iter().cycle().take(n).map(|s| s.to_string()).collect()
}

fn sorted(g: &JungleGame) -> Vec<String> {
    let mut v: Vec<String> = g.legal_moves().iter().map(|m| m.to_string()).collect();
    v.sort();
    v
}

fn verdict_of(g: &JungleGame) -> Option<(Option<Side>, &'static str)> {
    match g.turn() {
        Turn::Over(o) => Some((o.winner.map(Side::from_player), o.reason.name())),
        _ => None,
    }
}

/// The game from `pieces` (Red to move) after `moves`, in the engine and in the referee. At
/// every ply both must offer the same legal moves, and the scripted move must be legal.
fn replay(pieces: &str, rules: Rules, moves: &[String]) -> (JungleGame, Referee) {
    let mut g = crate::common::game(pieces, 'w', rules);
    let mut r = Referee::new(g.position(), rules);
    for (i, m) in moves.iter().enumerate() {
        assert_eq!(sorted(&g), r.legal(), "legal moves before ply {i} ({m}) of {moves:?} from {pieces} under {rules}");
        g.play_text(m).unwrap_or_else(|e| panic!("ply {i} ({m}) of {moves:?} from {pieces} under {rules}: {e}"));
        r.play(m);
    }
    assert_eq!(sorted(&g), r.legal(), "legal moves after {moves:?} from {pieces} under {rules}");
    assert_eq!(verdict_of(&g), r.verdict(), "result after {moves:?} from {pieces} under {rules}");
    (g, r)
}

/// `mv` is forbidden by `rule` ("7-3" or "17-5"): the engine does not generate it, its checked
/// door refuses it, `play_text` names the rule, and the referee agrees.
fn assert_forbidden(g: &JungleGame, r: &Referee, mv: &str, rule: &str) {
    let ctx = format!("{mv} after {:?} from {} under {}", g.moves(), fen(g.root()), g.rules());
    assert!(r.find(mv).is_some(), "test bug: {mv} is no move at all ({ctx})");
    assert!(!sorted(g).contains(&mv.to_string()), "{ctx}: generated, but rule {rule} forbids it");
    assert!(!g.is_legal(parse_move(mv).unwrap()), "{ctx}: is_legal, but rule {rule} forbids it");
    let err = g.clone().play_text(mv).expect_err(&format!("{ctx}: played, but rule {rule} forbids it")).to_string();
    assert!(err.contains(rule), "{ctx}: the error {err:?} does not name rule {rule}");
    assert!(!r.legal().contains(&mv.to_string()), "{ctx}: the referee allows it");
    assert_eq!(r.forbidden_by(mv), vec![rule], "{ctx}: the referee's reasons");
}

/// `mv` is legal in the engine (generated, checked door, `play_text`) and for the referee.
fn assert_allowed(g: &JungleGame, r: &Referee, mv: &str) {
    let ctx = format!("{mv} after {:?} from {} under {}", g.moves(), fen(g.root()), g.rules());
    assert!(sorted(g).contains(&mv.to_string()), "{ctx}: not generated");
    assert!(g.is_legal(parse_move(mv).unwrap()), "{ctx}: refused by is_legal");
    if let Err(e) = g.clone().play_text(mv) {
        panic!("{ctx}: play_text refused it: {e}");
    }
    assert!(r.legal().contains(&mv.to_string()), "{ctx}: the referee refuses it ({:?})", r.forbidden_by(mv));
    assert!(r.forbidden_by(mv).is_empty(), "{ctx}: the referee names {:?}", r.forbidden_by(mv));
}

// ---------------------------------------------------------------------------------------------
// 7-3
// ---------------------------------------------------------------------------------------------

/// Red's Wolf shuffles a1-a2 (entering a2 on its 1st, 3rd and 5th moves) while Blue's Cat walks
/// g9 → c7, never repeating a position: after six moves each, a1a2 would be the Wolf's 4th entry
/// into a2 within seven Red moves.
const SEVEN_THREE_PIECES: &str = "Wa1 Cg1 cg9";

fn seven_three_moves() -> Vec<String> {
    alternate(&around(&["a1", "a2"], 6), &list("g9g8 g8g7 g7f7 f7e7 e7d7 d7c7"))
}

#[test]
fn seven_three_forbids_the_fourth_entry_within_seven_moves() {
    // With the default repetition rule: it applies beside these rules and changes nothing here.
    let rules = chase_rules_with_repetition();
    let moves = seven_three_moves();
    let (g, r) = replay(SEVEN_THREE_PIECES, rules, &moves);
    assert_forbidden(&g, &r, "a1a2", "7-3");
    // The same piece to another square, and another piece, are not restricted.
    assert_allowed(&g, &r, "a1b1");
    assert_allowed(&g, &r, "g1g2");
    assert_allowed(&g, &r, "g1f1");

    // The same game with the rule off allows it.
    let (g_off, r_off) = replay(SEVEN_THREE_PIECES, without(rules), &moves);
    assert_allowed(&g_off, &r_off, "a1a2");

    // Also under repetition = off.
    let (g2, r2) = replay(SEVEN_THREE_PIECES, chase_rules(), &moves);
    assert_forbidden(&g2, &r2, "a1a2", "7-3");
}

#[test]
fn seven_three_knows_no_moves_before_the_root() {
    // The same position set up from its FEN, without the moves that led to it: nothing is known
    // of the Wolf's earlier moves, so a1a2 is legal.
    let rules = chase_rules_with_repetition();
    let (g, _) = replay(SEVEN_THREE_PIECES, rules, &seven_three_moves());
    let fresh = JungleGame::from_fen(&g.fen(), rules).unwrap();
    let r = Referee::new(fresh.position(), rules);
    assert_allowed(&fresh, &r, "a1a2");
}

#[test]
fn seven_three_window_slides() {
    // Red spends its 7th move on the Cat: the Wolf's first entry into a2 leaves the window of
    // six previous moves, which now holds two entries, so a1a2 is legal on Red's 8th move.
    let rules = chase_rules_with_repetition();
    let moves = cat(&[seven_three_moves(), list("g1g2 c7b7")]);
    let (g, r) = replay(SEVEN_THREE_PIECES, rules, &moves);
    assert_allowed(&g, &r, "a1a2");

    // The Wolf steps aside to b1 instead: back to a1 would be its 4th entry into a1 within seven
    // moves (Red's 2nd, 4th, 6th and 8th), whatever square it comes from: forbidden.
    let moves = cat(&[seven_three_moves(), list("a1b1 c7b7")]);
    let (g, r) = replay(SEVEN_THREE_PIECES, rules, &moves);
    assert_forbidden(&g, &r, "b1a1", "7-3");
    // It goes round by b2 and a2; on Red's 10th move its previous six (4th to 9th) hold two
    // entries into a1: a2a1 is legal.
    let moves = cat(&[seven_three_moves(), list("a1b1 c7b7 b1b2 b7a7 b2a2 a7a6")]);
    let (g, r) = replay(SEVEN_THREE_PIECES, rules, &moves);
    assert_allowed(&g, &r, "a2a1");
}

#[test]
fn seven_three_counts_captures_and_is_not_reset_by_them() {
    // The Wolf's third entry into a2 takes Blue's Cat (Blue stepped it there on its 4th move).
    let pieces = format!("Wa1 ca3 {BLUE_IDLE}");
    let red = around(&["a1", "a2"], 6);
    let blue = list("g9g8 a9a8 g8g9 a3a2 a8a9 g9g8");
    let moves = alternate(&red, &blue);
    for rules in [chase_rules_with_repetition(), chase_rules()] {
        let (g, r) = replay(&pieces, rules, &moves);
        assert_forbidden(&g, &r, "a1a2", "7-3");
        let (g_off, r_off) = replay(&pieces, without(rules), &moves);
        assert_allowed(&g_off, &r_off, "a1a2");
    }
}

#[test]
fn seven_three_other_side_counts_its_own_moves_only() {
    // Blue's Wolf shuffles f7-f8 while Red passes time: Blue's 7th move f7f8 is forbidden.
    let pieces = format!("{RED_IDLE} wf7");
    let moves = alternate(&red_idle(7), &around(&["f7", "f8"], 6));
    let (g, r) = replay(&pieces, chase_rules(), &moves);
    assert_eq!(g.side_to_move(), Side::Blue);
    assert_forbidden(&g, &r, "f7f8", "7-3");
    assert_allowed(&g, &r, "f7g7");
    assert_allowed(&g, &r, "f7e7");
    let (g_off, r_off) = replay(&pieces, without(chase_rules()), &moves);
    assert_allowed(&g_off, &r_off, "f7f8");
}

#[test]
fn seven_three_trap_exemption() {
    let pieces = format!("Wb1 {BLUE_IDLE}");
    // The shuffle b1-c1 enters Red's trap c1 every other move: the 4th entry into the trap...
    let moves = alternate(&around(&["b1", "c1"], 6), &blue_idle(6));
    let (g, r) = replay(&pieces, chase_rules(), &moves);
    assert_allowed(&g, &r, "b1c1");

    // ...and, starting on c1, the 4th entry into b1 (the window holds three entries into c1).
    let pieces = format!("Wc1 {BLUE_IDLE}");
    let moves = alternate(&around(&["c1", "b1"], 6), &blue_idle(6));
    let (g, r) = replay(&pieces, chase_rules(), &moves);
    assert_allowed(&g, &r, "c1b1");

    // Blue's traps count too: a Blue Wolf shuffling d7-d8 (its own trap d8) is never restricted.
    let pieces = format!("{RED_IDLE} wd7");
    let moves = alternate(&red_idle(7), &around(&["d7", "d8"], 6));
    let (g, r) = replay(&pieces, chase_rules(), &moves);
    assert_allowed(&g, &r, "d7d8");

    // A trap entered just before the seven moves does not exempt: Red's Cat steps onto e1, then
    // the Wolf shuffles a1-a2; on Red's 8th move a1a2 is forbidden.
    let pieces = format!("Wa1 Cf1 {BLUE_IDLE}");
    let red = cat(&[list("f1e1"), around(&["a1", "a2"], 6)]);
    let moves = alternate(&red, &blue_idle(7));
    let (g, r) = replay(&pieces, chase_rules(), &moves);
    assert_forbidden(&g, &r, "a1a2", "7-3");
}

#[test]
fn seven_three_chase_exemption() {
    let red = around(&["a1", "a2"], 6);

    // Blue's last move brings its Leopard to b1, from where it could take the Wolf on a1: the
    // Wolf is being chased, a1a2 is allowed.
    let pieces = format!("Wa1 pb2 {BLUE_IDLE}");
    let moves = alternate(&red, &cat(&[blue_idle(5), list("b2b1")]));
    let (g, r) = replay(&pieces, chase_rules(), &moves);
    assert!(r.chased((0, 0)), "the referee should see the chase");
    assert_allowed(&g, &r, "a1a2");

    // The piece that moved last is a Cat, which cannot take the Wolf: no chase.
    let pieces = format!("Wa1 cb2 {BLUE_IDLE}");
    let (g, r) = replay(&pieces, chase_rules(), &moves);
    assert_forbidden(&g, &r, "a1a2", "7-3");
    assert_allowed(&g, &r, "a1b1");

    // The Leopard stands on b1 all along but Blue's last move was another piece's: no chase.
    let pieces = format!("Wa1 Cg1 pb1 {BLUE_IDLE}");
    let moves = alternate(&red, &blue_idle(6));
    let (g, r) = replay(&pieces, chase_rules(), &moves);
    assert_forbidden(&g, &r, "a1a2", "7-3");

    // A jump counts: Blue's Lion steps to a5, from where it could jump over the river to d5 and
    // take the Wolf shuffling d5-d4.
    let red = around(&["d5", "d4"], 6);
    let moves = alternate(&red, &cat(&[blue_idle(5), list("a4a5")]));
    let pieces = format!("Wd5 la4 {BLUE_IDLE}");
    let (g, r) = replay(&pieces, chase_rules(), &moves);
    assert_allowed(&g, &r, "d5d4");
    // A Rat in the water on the way blocks the jump: no chase.
    let pieces = format!("Wd5 Rc5 la4 {BLUE_IDLE}");
    let (g, r) = replay(&pieces, chase_rules(), &moves);
    assert_forbidden(&g, &r, "d5d4", "7-3");
}

#[test]
fn a_side_whose_every_move_is_forbidden_has_no_move_and_loses() {
    // Red's only piece, the Wolf, shuffles a1-a2 beside Blue's Leopard on b1 (which it cannot
    // take). On Red's 7th move a1a2 is forbidden by 7-3 and a1b1 is no move: Red loses.
    let pieces = format!("Wa1 pb1 {BLUE_IDLE}");
    let moves = alternate(&around(&["a1", "a2"], 6), &blue_idle(6));
    let (g, r) = replay(&pieces, chase_rules(), &moves);
    match g.turn() {
        Turn::Over(o) => {
            assert_eq!(o.winner.map(Side::from_player), Some(Side::Blue), "{o:?}");
            assert_eq!(o.reason.name(), "no-moves", "{o:?}");
        }
        other => panic!("Red should have no legal move, turn is {other:?}; moves {:?}", sorted(&g)),
    }
    assert!(sorted(&g).is_empty());
    assert!(!g.is_legal(parse_move("a1a2").unwrap()));
    assert_eq!(r.verdict(), Some((Some(Side::Blue), "no-moves")));
    assert_eq!(r.forbidden_by("a1a2"), vec!["7-3"]);

    let (g_off, r_off) = replay(&pieces, without(chase_rules()), &moves);
    assert!(matches!(g_off.turn(), Turn::Player(_)));
    assert_allowed(&g_off, &r_off, "a1a2");
}

// ---------------------------------------------------------------------------------------------
// 17-5
// ---------------------------------------------------------------------------------------------

/// Red's Wolf starts on c2, steps to b2 and circles b2 → b3 → a3 → a2 → b2: each square entered
/// at most twice in seven moves (7-3 never bites), and after 17 moves it stood on c2 (where the
/// first started), b2, b3, a3 and a2: five squares. Red's Cat on g1 never moves in it.
const LOOP_PIECES: &str = "Wc2 Cg1 eg9 ra9";

/// The Wolf's first `n` moves of the loop above.
fn wolf_loop(n: usize) -> Vec<String> {
    let mut v = list("c2b2");
    v.extend(around(&["b2", "b3", "a3", "a2"], n - 1));
    v.truncate(n);
    v
}

#[test]
fn seventeen_five_forbids_the_squares_of_seventeen_moves() {
    let red = wolf_loop(17);
    assert_eq!(red.last().unwrap(), "a2b2");
    let moves = alternate(&red, &blue_idle(17));
    let (g, r) = replay(LOOP_PIECES, chase_rules(), &moves);
    // b2c2 goes back to where the first of the 17 moves started.
    for mv in ["b2c2", "b2b3", "b2a2"] {
        assert_forbidden(&g, &r, mv, "17-5");
    }
    // A square the Wolf did not stand on, and another piece, are free.
    assert_allowed(&g, &r, "b2b1");
    assert_allowed(&g, &r, "g1g2");
    assert_allowed(&g, &r, "g1f1");

    let (g_off, r_off) = replay(LOOP_PIECES, without(chase_rules()), &moves);
    for mv in ["b2c2", "b2b3", "b2a2"] {
        assert_allowed(&g_off, &r_off, mv);
    }
}

#[test]
fn seventeen_five_window_slides() {
    let rules = chase_rules();

    // Red moves its Cat: the previous 17 moves no longer all moved the Wolf.
    let moves = alternate(&cat(&[wolf_loop(17), list("g1g2")]), &blue_idle(18));
    let (g, r) = replay(LOOP_PIECES, rules, &moves);
    for mv in ["b2c2", "b2b3", "b2a2", "b2b1"] {
        assert_allowed(&g, &r, mv);
    }

    // The Wolf steps to a new square b1: c2 (the start of the oldest move) leaves the window,
    // b1 joins it, still five squares: b1b2 is forbidden, b1a1 and b1c1 are not.
    let moves = alternate(&cat(&[wolf_loop(17), list("b2b1")]), &blue_idle(18));
    let (g, r) = replay(LOOP_PIECES, rules, &moves);
    assert_forbidden(&g, &r, "b1b2", "17-5");
    assert_allowed(&g, &r, "b1a1");
    assert_allowed(&g, &r, "b1c1");

    // One more new square (a1): b3, a3, a2, b2, b1, a1 are six squares, no restriction.
    let moves = alternate(&cat(&[wolf_loop(17), list("b2b1 b1a1")]), &blue_idle(19));
    let (g, r) = replay(LOOP_PIECES, rules, &moves);
    assert_allowed(&g, &r, "a1a2");
    assert_allowed(&g, &r, "a1b1");
}

#[test]
fn seventeen_five_needs_one_piece_for_all_seventeen_moves() {
    let rules = chase_rules();
    let wolf = wolf_loop(25);
    // The Cat moves once, as Red's 9th move, among the Wolf's loop.
    let red = cat(&[wolf[0..8].to_vec(), list("g1g2"), wolf[8..16].to_vec()]);
    assert_eq!(red.len(), 17);
    let moves = alternate(&red, &blue_idle(17));
    let (g, r) = replay(LOOP_PIECES, rules, &moves);
    for mv in ["a2a1", "a2a3", "a2b2", "g2g1", "g2g3"] {
        assert_allowed(&g, &r, mv);
    }

    // The Wolf goes on circling; once the Cat's move has left the window (Red's 27th move: the
    // previous 17 are Red's 10th to 26th, all the Wolf's, on a2, b2, b3, a3) the rule bites.
    let red = cat(&[red, wolf[16..25].to_vec()]);
    assert_eq!(red.len(), 26);
    let moves = alternate(&red, &blue_idle(26));
    let (g, r) = replay(LOOP_PIECES, rules, &moves);
    assert_forbidden(&g, &r, "b2b3", "17-5");
    assert_forbidden(&g, &r, "b2a2", "17-5");
    assert_allowed(&g, &r, "b2c2");
    assert_allowed(&g, &r, "b2b1");
}

#[test]
fn seventeen_five_trap_exemption() {
    let rules = chase_rules();

    // A loop through Red's trap c1 (b2 → b1 → c1 → c2 → b2): four squares, but a trap is entered.
    let pieces = format!("Wb2 Cg1 {BLUE_IDLE}");
    let moves = alternate(&around(&["b2", "b1", "c1", "c2"], 17), &blue_idle(17));
    let (g, r) = replay(&pieces, rules, &moves);
    for mv in ["b1b2", "b1c1", "b1a1"] {
        assert_allowed(&g, &r, mv);
    }

    // Only the first of the 17 moves enters a trap (b1c1), then c1b1 and the loop
    // b1 → a1 → a2 → b2 → b1: free while that move is in the window...
    let pieces = format!("Wb1 Cg1 {BLUE_IDLE}");
    let wolf = cat(&[list("b1c1 c1b1"), around(&["b1", "a1", "a2", "b2"], 16)]);
    let moves = alternate(&wolf[0..17], &blue_idle(17));
    let (g, r) = replay(&pieces, rules, &moves);
    for mv in ["b2b1", "b2a2", "b2b3", "b2c2"] {
        assert_allowed(&g, &r, mv);
    }
    // ...and restricted once it has left: the window's squares are c1 (where its oldest move
    // started), b1, a1, a2, b2, and none of its moves entered a trap. The candidate b1c1 enters a
    // trap, but it is not one of "those 17 moves": c1 is forbidden like the others.
    let moves = alternate(&wolf[0..18], &blue_idle(18));
    let (g, r) = replay(&pieces, rules, &moves);
    assert_forbidden(&g, &r, "b1a1", "17-5");
    assert_forbidden(&g, &r, "b1b2", "17-5");
    assert_forbidden(&g, &r, "b1c1", "17-5");
    assert_allowed(&g, &r, "g1g2");
}

// ---------------------------------------------------------------------------------------------
// Perft with history
// ---------------------------------------------------------------------------------------------

/// perft_game from the game after `moves` equals the referee's perft for depths 1 to 3; returns
/// the counts with the rule on and off.
fn perft_both(pieces_or_fen: &str, rules: Rules, moves: &[String]) -> (Vec<u64>, Vec<u64>) {
    let make = |rules: Rules| {
        let mut g =
            if pieces_or_fen.contains('/') { JungleGame::from_fen(pieces_or_fen, rules).unwrap() } else { crate::common::game(pieces_or_fen, 'w', rules) };
        let mut r = Referee::new(g.position(), rules);
        for m in moves {
            g.play_text(m).unwrap_or_else(|e| panic!("{m} of {moves:?}: {e}"));
            r.play(m);
        }
        (g, r)
    };
    let (g, r) = make(rules);
    let (g_off, _) = make(without(rules));
    let mut on = Vec::new();
    let mut off = Vec::new();
    for d in 1..=3 {
        let got = perft_game(&g, d);
        let want = r.perft(d);
        assert_eq!(got, want, "perft_game depth {d} after {moves:?} from {pieces_or_fen} under {rules}");
        on.push(got);
        off.push(perft_game(&g_off, d));
    }
    (on, off)
}

#[test]
fn perft_with_history_matches_the_referee() {
    // 7-3 in force at the root (default repetition rule).
    let (on, off) = perft_both(SEVEN_THREE_PIECES, chase_rules_with_repetition(), &seven_three_moves());
    assert_ne!(on[0], off[0], "7-3 should remove a root move: {on:?} {off:?}");

    // One ply earlier (Blue to move): the restriction appears at the second ply.
    let mut earlier = seven_three_moves();
    earlier.pop();
    let (on, off) = perft_both(SEVEN_THREE_PIECES, chase_rules_with_repetition(), &earlier);
    assert_eq!(on[0], off[0]);
    assert_ne!(on[1], off[1], "7-3 should bite at ply 2: {on:?} {off:?}");

    // The start position: Red's Elephant shuffles a3-a4 while Blue develops.
    let start = "l5t/1d3c1/r1p1w1e/7/7/7/E1W1P1R/1C3D1/T5L w 0 1";
    let moves = alternate(&around(&["a3", "a4"], 6), &list("g7g6 c7d7 g6g5 d7d6 g5g4 d6d5"));
    let (on, off) = perft_both(start, chase_rules_with_repetition(), &moves);
    assert_eq!(on[0] + 1, off[0], "only a3a4 is forbidden at the root: {on:?} {off:?}");

    // 17-5 in force at the root.
    let moves = alternate(&wolf_loop(17), &blue_idle(17));
    let (on, off) = perft_both(LOOP_PIECES, chase_rules(), &moves);
    assert_eq!(on[0] + 3, off[0], "17-5 should remove three root moves: {on:?} {off:?}");

    // 17-5 after the trap entry left the window.
    let pieces = format!("Wb1 Cg1 {BLUE_IDLE}");
    let wolf = cat(&[list("b1c1 c1b1"), around(&["b1", "a1", "a2", "b2"], 16)]);
    let moves = alternate(&wolf[0..18], &blue_idle(18));
    let (on, off) = perft_both(&pieces, chase_rules(), &moves);
    assert_ne!(on[0], off[0]);

    // The chase exemption at the root: nothing removed at ply 1.
    let pieces = format!("Wa1 pb2 {BLUE_IDLE}");
    let moves = alternate(&around(&["a1", "a2"], 6), &cat(&[blue_idle(5), list("b2b1")]));
    let (on, off) = perft_both(&pieces, chase_rules(), &moves);
    assert_eq!(on[0], off[0], "the chased Wolf may repeat: {on:?} {off:?}");

    // A root without legal moves counts nothing.
    let pieces = format!("Wa1 pb1 {BLUE_IDLE}");
    let moves = alternate(&around(&["a1", "a2"], 6), &blue_idle(6));
    let (on, off) = perft_both(&pieces, chase_rules(), &moves);
    assert_eq!(on, vec![0, 0, 0]);
    assert!(off[0] > 0);
}

// ---------------------------------------------------------------------------------------------
// Random playouts against the referee
// ---------------------------------------------------------------------------------------------

#[derive(Default, Debug)]
struct Tally {
    games: usize,
    plies: usize,
    /// Moves the rule on removed from the rule-off list.
    removed: usize,
    by_seven_three: usize,
    by_seventeen_five: usize,
    /// Moves that 7-3 would forbid but for the chase exemption (legal).
    chase_saves: usize,
    /// Games lost by a side whose every move the rules forbade.
    no_moves_by_rule: usize,
}

fn context(g: &JungleGame, start: &Position, rules: Rules) -> String {
    format!("after {:?} from {} under {}", g.moves().iter().map(|m| m.to_string()).collect::<Vec<_>>(), fen(start), rules)
}

/// Moves that undo the mover's previous move, and moves of the piece it moved last back to
/// squares it used lately, are preferred so that shuffles (7-3), long one-piece stays (17-5)
/// and chases come up often.
fn pick(g: &JungleGame, moves: &[String], rng: &mut ChaCha8Rng) -> String {
    // The mover's own last four moves, newest first.
    let mine: Vec<Move> = g.moves().iter().rev().skip(1).step_by(2).take(4).copied().collect();
    if let Some(last) = mine.first() {
        let undo = Move::new(last.to(), last.from()).to_string();
        let here = last.to().to_string();
        let same: Vec<&String> = moves.iter().filter(|m| m.starts_with(&here)).collect();
        let recent: Vec<String> = mine.iter().flat_map(|m| [m.from().to_string(), m.to().to_string()]).collect();
        let close: Vec<&String> = same.iter().copied().filter(|m| recent.iter().any(|s| *s == m[2..])).collect();
        let roll = rng.random_range(0..100);
        if roll < 40 && moves.contains(&undo) {
            return undo;
        }
        if roll < 75 && !close.is_empty() {
            return close[rng.random_range(0..close.len())].clone();
        }
        if roll < 90 && !same.is_empty() {
            return same[rng.random_range(0..same.len())].clone();
        }
    }
    moves[rng.random_range(0..moves.len())].clone()
}

/// A search copy (`Game::copy_for_search`) answers as the game does along a short random
/// continuation: it must carry what the anti-chase rules read.
fn check_search_copy(g: &JungleGame, rng: &mut ChaCha8Rng) {
    let mut copy = JungleGame::start(*g.rules());
    copy.copy_for_search(g);
    let mut whole = g.clone();
    for step in 0..6 {
        assert_eq!(sorted(&copy), sorted(&whole), "search copy, {step} plies into a copy {}", context(g, g.root(), *g.rules()));
        assert_eq!(copy.turn(), whole.turn(), "search copy turn, {step} plies into a copy {}", context(g, g.root(), *g.rules()));
        let moves = whole.legal_moves();
        if moves.is_empty() {
            return;
        }
        let m = moves[rng.random_range(0..moves.len())];
        whole.play_unchecked(m);
        copy.play_unchecked(m);
    }
}

fn playout(start: Position, rules: Rules, seed: u64, tally: &mut Tally) {
    assert!(rules.anti_chase);
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut g = JungleGame::new(start, rules);
    let mut g_off = JungleGame::new(start, without(rules));
    let mut referee = Referee::new(&start, rules);
    tally.games += 1;
    let at = |g: &JungleGame| context(g, &start, rules);
    loop {
        let moves = sorted(&g);
        let verdict = verdict_of(&g);
        // (c) the verdicts agree.
        assert_eq!(verdict, referee.verdict(), "result {}", at(&g));
        // (a) the legal moves agree.
        if verdict.is_none() {
            assert_eq!(moves, referee.legal(), "legal moves {}", at(&g));
        }
        // (b) the rule only removes moves, and exactly those the referee says 7-3 or 17-5 forbid.
        let no_moves = verdict.map(|v| v.1) == Some("no-moves");
        if verdict.is_none() || no_moves {
            let off_moves = sorted(&g_off);
            for m in &moves {
                assert!(off_moves.contains(m), "{m} legal with the rule on but not off {}", at(&g));
            }
            let report = referee.anti_chase_report();
            for m in &off_moves {
                let (_, rules_hit, _) =
                    report.iter().find(|(t, _, _)| t == m).unwrap_or_else(|| panic!("{m} is legal with the rule off but no move to the referee {}", at(&g)));
                assert_eq!(
                    moves.contains(m),
                    rules_hit.is_empty(),
                    "{m}: engine with the rule on says legal={}, referee names {rules_hit:?} {}",
                    moves.contains(m),
                    at(&g)
                );
                if !rules_hit.is_empty() {
                    tally.removed += 1;
                    if rules_hit.contains(&"7-3") {
                        tally.by_seven_three += 1;
                    }
                    if rules_hit.contains(&"17-5") {
                        tally.by_seventeen_five += 1;
                    }
                    assert!(!g.is_legal(parse_move(m).unwrap()), "{m} passes is_legal though {rules_hit:?} forbid it {}", at(&g));
                    if verdict.is_none() {
                        let err = match g.clone().play_text(m) {
                            Ok(_) => panic!("{m} played though {rules_hit:?} forbid it {}", at(&g)),
                            Err(e) => e.to_string(),
                        };
                        assert!(rules_hit.iter().any(|r| err.contains(r)), "{m}: error {err:?} names none of {rules_hit:?} {}", at(&g));
                    }
                }
            }
            for (t, _, saved) in &report {
                if *saved && moves.contains(t) {
                    tally.chase_saves += 1;
                }
            }
            if no_moves && !off_moves.is_empty() {
                tally.no_moves_by_rule += 1;
            }
        }
        if verdict.is_some() {
            return;
        }
        if tally.plies % 8 == 3 {
            check_search_copy(&g, &mut rng);
        }
        let mv = pick(&g, &moves, &mut rng);
        if let Err(e) = g_off.play_text(&mv) {
            panic!("{mv} with the rule off: {e} {}", at(&g));
        }
        if let Err(e) = g.play_text(&mv) {
            panic!("{mv}: {e} {}", at(&g));
        }
        referee.play(&mv);
        tally.plies += 1;
    }
}

#[test]
fn random_playouts_agree_with_the_referee() {
    let starts: Vec<(Position, u64)> = vec![
        (Position::start(), 24),
        // One Cat each: every move is the same piece's, so 17-5 comes up.
        (parse_fen("6c/7/7/7/7/7/7/7/C6 w").unwrap(), 8),
        // A Wolf against a Leopard on the land bridge between the rivers: chases.
        (parse_fen("7/7/7/3p3/7/3W3/7/7/7 w").unwrap(), 8),
        // A Wolf against a Tiger.
        (parse_fen("7/1t5/7/7/7/7/7/5W1/7 w").unwrap(), 8),
        // Jumps, Rats in the water, traps.
        (parse_fen("7/7/2e4/7/l2TR2/2r4/2L4/7/7 w").unwrap(), 8),
        (parse_fen("4dC1/2cW3/3p3/7/7/7/3R3/3l3/1Er1D2 w").unwrap(), 8),
    ];
    let mut tally = Tally::default();
    let mut expected_games = 0;
    for (si, (start, seeds)) in starts.iter().enumerate() {
        for repetition in [Repetition::Forbidden, Repetition::Off] {
            let rules = Rules { anti_chase: true, repetition, no_capture_plies: 100, max_plies: 300, ..Rules::default() };
            for i in 0..*seeds {
                let seed = 9_000_000 + (si as u64) * 1000 + (repetition == Repetition::Off) as u64 * 100 + i;
                playout(*start, rules, seed, &mut tally);
                expected_games += 1;
            }
        }
    }
    eprintln!("{tally:?}");
    assert_eq!(tally.games, expected_games);
    assert!(tally.plies > 0);
    eprintln!("chase exemptions used: {}, games lost to the rules' forbidding every move: {}", tally.chase_saves, tally.no_moves_by_rule);
    assert!(tally.removed > 0, "the rules never removed a move: {tally:?}");
    assert!(tally.by_seven_three > 0, "7-3 never removed a move: {tally:?}");
    assert!(tally.by_seventeen_five > 0, "17-5 never removed a move: {tally:?}");
}

// ---------------------------------------------------------------------------------------------
// Perft rows with history (tests/data/perft_history.tsv)
// ---------------------------------------------------------------------------------------------

/// The positions of `tests/data/perft_history.tsv`: name, root FEN, moves, rules.
fn history_cases() -> Vec<(&'static str, String, Vec<String>, Rules)> {
    let fen_of = |pieces: &str| fen(crate::common::game(pieces, 'w', Rules::default()).position());
    let start = "l5t/1d3c1/r1p1w1e/7/7/7/E1W1P1R/1C3D1/T5L w 0 1".to_string();
    let dog = list("f2f1 a7a6 f1f2 a6a5 f2f1 a5a4 f1f2 g7g6 f2f1 g6g5 f1f2 g5g4");
    let elephant = alternate(&around(&["a3", "a4"], 6), &list("g7g6 c7d7 g6g5 d7d6 g5g4 d6d5"));
    let with_rule = Rules { anti_chase: true, ..Rules::default() };
    vec![
        ("start-dog-7-3", start.clone(), dog.clone(), with_rule),
        ("start-dog-off", start.clone(), dog, Rules::default()),
        ("start-elephant-7-3", start, elephant, with_rule),
        ("wolf-7-3", fen_of(SEVEN_THREE_PIECES), seven_three_moves(), with_rule),
        ("wolf-loop-17-5", fen_of(LOOP_PIECES), alternate(&wolf_loop(17), &blue_idle(17)), chase_rules()),
        ("wolf-chased", fen_of(&format!("Wa1 pb2 {BLUE_IDLE}")), alternate(&around(&["a1", "a2"], 6), &cat(&[blue_idle(5), list("b2b1")])), chase_rules()),
    ]
}

struct HistoryRow {
    name: String,
    fen: String,
    moves: Vec<String>,
    rules: Rules,
    depth: u32,
    nodes: u64,
}

fn history_rows() -> Vec<HistoryRow> {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/perft_history.tsv");
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{path}: {e}"));
    let mut lines = text.lines();
    assert_eq!(lines.next(), Some("name\tfen\tmoves\trules\tdepth\tnodes"));
    lines
        .filter(|l| !l.trim().is_empty())
        .map(|l| {
            let f: Vec<&str> = l.split('\t').collect();
            assert_eq!(f.len(), 6, "malformed row {l:?}");
            HistoryRow {
                name: f[0].into(),
                fen: f[1].into(),
                moves: list(f[2]),
                rules: f[3].parse().unwrap_or_else(|e| panic!("rules {:?}: {e}", f[3])),
                depth: f[4].parse().unwrap(),
                nodes: f[5].parse().unwrap(),
            }
        })
        .collect()
}

/// Prints the rows of `tests/data/perft_history.tsv` as the slow referee counts them (run
/// with `--ignored --nocapture` to regenerate the file; the engine is not consulted).
#[test]
#[ignore]
fn print_perft_history_rows_from_the_referee() {
    println!("name\tfen\tmoves\trules\tdepth\tnodes");
    for (name, root, moves, rules) in history_cases() {
        let mut r = Referee::new(&parse_fen(&root).unwrap(), rules);
        for m in &moves {
            r.play(m);
        }
        for depth in 1..=4 {
            println!("{name}\t{root}\t{}\t{rules}\t{depth}\t{}", moves.join(" "), r.perft(depth));
        }
    }
}

#[test]
fn perft_with_history_matches_the_table() {
    let rows = history_rows();
    assert!(rows.len() >= 20, "{} rows", rows.len());
    assert!(rows.iter().any(|r| r.rules.anti_chase) && rows.iter().any(|r| !r.rules.anti_chase));
    for row in rows {
        let mut g = JungleGame::from_fen(&row.fen, row.rules).unwrap();
        for m in &row.moves {
            g.play_text(m).unwrap_or_else(|e| panic!("{}: {m}: {e}", row.name));
        }
        assert_eq!(perft_game(&g, row.depth), row.nodes, "{} [{}] depth {}", row.name, row.rules, row.depth);
    }
}
