//! One test per clause of docs/rules.md, on small hand-made positions.

use crate::common::{game, is_legal, moves_from, rules};
use junglezero::game::{Game, Outcome, Reason, Seat, Turn};
use junglezero::jungle::{Kind, Rules};

const RED: Seat = Seat::First;
const BLUE: Seat = Seat::Second;

// ---------------------------------------------------------------- moves

#[test]
fn a_piece_steps_one_square_orthogonally() {
    let g = game("Dd3 rg9", 'w', Rules::default());
    assert_eq!(moves_from(&g, "d3"), ["d3c3", "d3d2", "d3d4", "d3e3"]);
}

#[test]
fn no_piece_enters_its_own_den() {
    let g = game("Cc1 Wd2 rg9", 'w', Rules::default());
    assert_eq!(moves_from(&g, "c1"), ["c1b1", "c1c2"]);
    assert_eq!(moves_from(&g, "d2"), ["d2c2", "d2d3", "d2e2"]);
    let g = game("Rg1 cc9 dd8", 'b', Rules::default());
    assert!(!is_legal(&g, "c9d9") && !is_legal(&g, "d8d9"));
}

#[test]
fn a_piece_may_enter_the_enemy_den() {
    let g = game("Cd8 rg1", 'w', Rules::default());
    assert!(is_legal(&g, "d8d9"));
    let g = game("Rg9 ce1", 'b', Rules::default());
    assert!(is_legal(&g, "e1d1"));
}

#[test]
fn only_the_rat_enters_water() {
    for kind in ['E', 'L', 'T', 'P', 'W', 'D', 'C'] {
        let g = game(&format!("{kind}a4 rg9"), 'w', Rules::default());
        assert!(!is_legal(&g, "a4b4"), "{kind} must not enter water");
    }
    let g = game("Ra4 rg9", 'w', Rules::default());
    assert_eq!(moves_from(&g, "a4"), ["a4a3", "a4a5", "a4b4"]);
}

#[test]
fn the_rat_moves_in_water_as_on_land() {
    let g = game("Rb5 rg9", 'w', Rules::default());
    assert_eq!(moves_from(&g, "b5"), ["b5a5", "b5b4", "b5b6", "b5c5"]);
}

#[test]
fn lion_and_tiger_jump_across_rivers() {
    let g = game("La5 rg9", 'w', Rules::default());
    assert_eq!(moves_from(&g, "a5"), ["a5a4", "a5a6", "a5d5"]);
    let g = game("Td5 rg9", 'w', Rules::default());
    assert_eq!(moves_from(&g, "d5"), ["d5a5", "d5d4", "d5d6", "d5g5"]);
    let g = game("Lb3 rg9", 'w', Rules::default());
    assert_eq!(moves_from(&g, "b3"), ["b3a3", "b3b2", "b3b7", "b3c3"]);
    // Blue jumps too, vertically downwards.
    let g = game("Rg1 tf7", 'b', Rules::default());
    assert!(is_legal(&g, "f7f3"));
}

#[test]
fn other_animals_do_not_jump() {
    for kind in ['E', 'P', 'W', 'D', 'C', 'R'] {
        let g = game(&format!("{kind}a5 rg9"), 'w', Rules::default());
        assert!(!is_legal(&g, "a5d5"), "{kind} must not jump");
    }
}

#[test]
fn a_rat_of_either_side_in_the_river_blocks_a_jump() {
    for rat in ["Rb5", "Rc5", "rb5", "rc5"] {
        let g = game(&format!("La5 {rat} eg9"), 'w', Rules::default());
        assert!(!is_legal(&g, "a5d5"), "jump should be blocked by {rat}");
    }
    // A Rat in another row of the river does not block.
    let g = game("La5 rc4 eg9", 'w', Rules::default());
    assert!(is_legal(&g, "a5d5"));
    for rat in ["Rb4", "rb6"] {
        let g = game(&format!("Lb3 {rat} eg9"), 'w', Rules::default());
        assert!(!is_legal(&g, "b3b7"), "vertical jump should be blocked by {rat}");
    }
}

#[test]
fn a_jump_lands_on_empty_or_capturable_squares_only() {
    assert!(is_legal(&game("La5 td5", 'w', Rules::default()), "a5d5"), "Lion takes Tiger");
    assert!(is_legal(&game("La5 rd5 eg9", 'w', Rules::default()), "a5d5"), "Lion takes Rat on land");
    assert!(!is_legal(&game("Ta5 ld5", 'w', Rules::default()), "a5d5"), "Tiger cannot take Lion");
    assert!(!is_legal(&game("La5 ed5", 'w', Rules::default()), "a5d5"), "Lion cannot take Elephant");
    assert!(!is_legal(&game("La5 Cd5 eg9", 'w', Rules::default()), "a5d5"), "own piece on landing square");
}

// ---------------------------------------------------------------- captures

/// Ranks as docs/rules.md states them, written independently of the engine.
fn rank(kind: char, dog_over_wolf: bool) -> u8 {
    match kind {
        'R' => 1,
        'C' => 2,
        'D' if dog_over_wolf => 4,
        'D' => 3,
        'W' if dog_over_wolf => 3,
        'W' => 4,
        'P' => 5,
        'T' => 6,
        'L' => 7,
        'E' => 8,
        _ => unreachable!(),
    }
}

fn rank_rule(att: char, def: char, dog_over_wolf: bool) -> bool {
    match (att, def) {
        ('E', 'R') => false,
        ('R', 'E') => true,
        _ => rank(att, dog_over_wolf) >= rank(def, dog_over_wolf),
    }
}

#[test]
fn captures_follow_rank_with_the_elephant_and_rat_exceptions() {
    for dow in [false, true] {
        let r = rules(if dow { "dog_over_wolf=on" } else { "default" });
        for att in "ELTPWDCR".chars() {
            for def in "ELTPWDCR".chars() {
                // On plain land squares, both colours.
                let g = game(&format!("{att}d3 {}d4", def.to_ascii_lowercase()), 'w', r);
                assert_eq!(is_legal(&g, "d3d4"), rank_rule(att, def, dow), "Red {att} x Blue {def} (dog_over_wolf={dow})");
                let g = game(&format!("{}d4 {def}d3", att.to_ascii_lowercase()), 'b', r);
                assert_eq!(is_legal(&g, "d4d3"), rank_rule(att, def, dow), "Blue {att} x Red {def} (dog_over_wolf={dow})");
            }
        }
    }
}

#[test]
fn dog_over_wolf_swaps_which_of_them_captures() {
    let g = game("Dd3 wd4", 'w', Rules::default());
    assert!(!is_legal(&g, "d3d4"));
    let g = game("Dd3 wd4", 'w', rules("dog_over_wolf=on"));
    assert!(is_legal(&g, "d3d4"));
    assert_eq!(rules("dog_over_wolf=on").rank(Kind::Dog), 4);
}

#[test]
fn a_piece_on_an_enemy_trap_can_be_taken_by_any_enemy() {
    // Blue Elephant on Red's trap d2: the Red Rat and Red Cat take it.
    let g = game("Rd3 Cc2 ed2", 'w', Rules::default());
    assert!(is_legal(&g, "d3d2") && is_legal(&g, "c2d2"));
    // Red Lion on Blue's traps: a Blue Rat takes it (both sides' traps work).
    for (trap, from) in [("d8", "d7"), ("c9", "b9"), ("e9", "f9")] {
        let g = game(&format!("L{trap} r{from}"), 'b', Rules::default());
        assert!(is_legal(&g, &format!("{from}{trap}")), "trapped on {trap}");
    }
    for (trap, from) in [("c1", "b1"), ("e1", "f1"), ("d2", "d3")] {
        let g = game(&format!("Rg9 e{trap} C{from}"), 'w', Rules::default());
        assert!(is_legal(&g, &format!("{from}{trap}")), "trapped on {trap}");
    }
}

#[test]
fn own_traps_do_not_weaken_own_pieces() {
    let g = game("Ld2 cd3", 'b', Rules::default());
    assert!(!is_legal(&g, "d3d2"));
    let g = game("Cd7 ld8", 'w', Rules::default());
    assert!(!is_legal(&g, "d7d8"));
}

#[test]
fn a_trapped_piece_keeps_its_rank_when_it_attacks() {
    // Red Dog on Blue's trap d8 still takes the Blue Cat; a Red Cat there cannot take a Dog.
    assert!(is_legal(&game("Dd8 cd7", 'w', Rules::default()), "d8d7"));
    assert!(!is_legal(&game("Cd8 dd7", 'w', Rules::default()), "d8d7"));
}

#[test]
fn elephant_takes_a_trapped_rat_unless_switched_off() {
    let g = game("Ed3 rd2", 'w', Rules::default());
    assert!(is_legal(&g, "d3d2"));
    let g = game("Ed3 rd2", 'w', rules("elephant_takes_trapped_rat=off"));
    assert!(!is_legal(&g, "d3d2"));
    // Other pieces still take it; an untrapped Rat is never the Elephant's.
    let g = game("Cc2 Ed3 rd2", 'w', rules("elephant_takes_trapped_rat=off"));
    assert!(is_legal(&g, "c2d2"));
    assert!(!is_legal(&game("Ed3 rd4", 'w', Rules::default()), "d3d4"));
}

#[test]
fn no_capture_crosses_the_shore() {
    let d = Rules::default();
    // A land piece cannot take a Rat in water.
    assert!(!is_legal(&game("Ea5 rb5", 'w', d), "a5b5"));
    assert!(!is_legal(&game("Ra5 rb5", 'w', d), "a5b5"));
    // A Rat in water cannot take a piece on land, the Elephant included.
    assert!(!is_legal(&game("Rb5 ea5", 'w', d), "b5a5"));
    assert!(!is_legal(&game("Rb5 ra5 eg9", 'w', d), "b5a5"));
    // Rats in water take each other; a Rat on land takes the Elephant on land.
    assert!(is_legal(&game("Rb5 rc5 eg9", 'w', d), "b5c5"));
    assert!(is_legal(&game("Ra5 ea6", 'w', d), "a5a6"));
}

#[test]
fn rats_capture_across_the_shore_when_switched_on() {
    let r = rules("rat_captures_across_shore=on");
    assert!(is_legal(&game("Ra5 rb5 eg9", 'w', r), "a5b5"), "land Rat takes water Rat");
    assert!(is_legal(&game("Rb5 ra5 eg9", 'w', r), "b5a5"), "water Rat takes land Rat");
    assert!(!is_legal(&game("Rb5 ea5", 'w', r), "b5a5"), "a Rat in water still cannot take the Elephant");
    assert!(!is_legal(&game("Ea5 rb5", 'w', r), "a5b5"), "other land pieces still cannot take it");
}

// ---------------------------------------------------------------- end of the game

fn over(g: &junglezero::jungle::JungleGame) -> Option<Outcome> {
    match g.turn() {
        Turn::Over(o) => Some(o),
        _ => None,
    }
}

#[test]
fn entering_the_den_wins_at_once() {
    let mut g = game("Cd8 rg1 eg2", 'w', Rules::default());
    g.play_text("d8d9").unwrap();
    assert_eq!(over(&g), Some(Outcome::win(RED, Reason::Den)));
    let mut g = game("Rg9 ce1", 'b', Rules::default());
    g.play_text("e1d1").unwrap();
    assert_eq!(over(&g), Some(Outcome::win(BLUE, Reason::Den)));
}

#[test]
fn capturing_the_last_piece_wins() {
    let mut g = game("Ld4 cd5", 'w', Rules::default());
    g.play_text("d4d5").unwrap();
    assert_eq!(over(&g), Some(Outcome::win(RED, Reason::Annihilation)));
    // A position whose opponent has no pieces left is already won.
    assert_eq!(over(&game("Ld4", 'w', Rules::default())), Some(Outcome::win(RED, Reason::Annihilation)));
}

#[test]
fn a_player_without_a_legal_move_loses() {
    let g = game("Ef9 Lg8 cg9", 'b', Rules::default());
    assert_eq!(over(&g), Some(Outcome::win(RED, Reason::NoMoves)));
    assert!(g.legal_moves().is_empty());
}

#[test]
fn the_no_capture_limit_draws() {
    let base = "Ld4 cg9 rg8";
    let mut g = crate::common::game_with_counters(base, 'w', 199, Rules::default());
    assert_eq!(over(&g), None);
    g.play_text("d4d3").unwrap();
    assert_eq!(over(&g), Some(Outcome::draw(Reason::NoProgress)));
    // A capture resets the count.
    let mut g = crate::common::game_with_counters("Ld4 cd5 rg8", 'w', 199, Rules::default());
    g.play_text("d4d5").unwrap();
    assert_eq!(over(&g), None);
    assert_eq!(g.position().halfmove(), 0);
    // 0 disables the limit; other limits apply as configured.
    let mut g = crate::common::game_with_counters(base, 'w', 250, rules("no_capture_plies=0"));
    g.play_text("d4d3").unwrap();
    assert_eq!(over(&g), None);
    let mut g = crate::common::game_with_counters(base, 'w', 9, rules("no_capture_plies=10"));
    g.play_text("d4d3").unwrap();
    assert_eq!(over(&g), Some(Outcome::draw(Reason::NoProgress)));
}

#[test]
fn the_move_cap_draws() {
    let r = rules("max_plies=10");
    // Move 5 with Red to move = ply 8.
    let mut g = crate::common::game_with_move_number("Ld4 cg9 rg8", 'w', 5, r);
    g.play_text("d4d3").unwrap();
    assert_eq!(over(&g), None);
    g.play_text("g9f9").unwrap();
    assert_eq!(over(&g), Some(Outcome::draw(Reason::MoveCap)));
}

/// Red shuffles a Rat a1<->a2 while Blue's Cat shuffles g9<->g8; on g8 the Cat's only other
/// squares hold a Red Lion (f8) and Tiger (g7), and f9 holds the Red Elephant.
const SHUFFLE: &str = "Ra1 Ef9 Lf8 Tg7 cg9";
const CYCLE: [&str; 7] = ["a1a2", "g9g8", "a2a1", "g8g9", "a1a2", "g9g8", "a2a1"];

#[test]
fn repetition_forbidden_makes_the_third_occurrence_illegal() {
    let mut g = game(SHUFFLE, 'w', Rules::default());
    for m in CYCLE {
        g.play_text(m).unwrap();
    }
    // g8g9 would bring back the start position a third time: illegal, and it was the Cat's
    // only move, so Blue has no legal move and loses.
    assert!(!is_legal(&g, "g8g9"));
    assert_eq!(over(&g), Some(Outcome::win(RED, Reason::NoMoves)));
    // With another move available the game goes on without the forbidden one.
    let mut g = game("Ra1 Ef9 Tg7 cg9", 'w', Rules::default());
    for m in CYCLE {
        g.play_text(m).unwrap();
    }
    assert_eq!(over(&g), None);
    assert!(!is_legal(&g, "g8g9") && is_legal(&g, "g8f8"));
    let err = g.play_text("g8g9").unwrap_err().to_string();
    assert!(err.contains("third time"), "{err}");
}

#[test]
fn repetition_draw_ends_the_game_on_the_third_occurrence() {
    let mut g = game(SHUFFLE, 'w', rules("repetition=draw"));
    for m in CYCLE {
        g.play_text(m).unwrap();
    }
    assert!(is_legal(&g, "g8g9"));
    g.play_text("g8g9").unwrap();
    assert_eq!(over(&g), Some(Outcome::draw(Reason::Repetition)));
}

#[test]
fn repetition_off_lets_positions_repeat() {
    let mut g = game(SHUFFLE, 'w', rules("repetition=off"));
    for _ in 0..5 {
        for m in CYCLE {
            g.play_text(m).unwrap();
        }
        g.play_text("g8g9").unwrap();
    }
    assert_eq!(over(&g), None);
}

#[test]
fn illegal_moves_are_explained() {
    let cases = [
        ("Dd3 rg9", 'w', "d5d6", "no piece on d5"),
        ("Dd3 rg9", 'w', "g9g8", "not yours"),
        ("Dd3 rg9", 'w', "d3d5", "one square"),
        ("Ea5 rg9", 'w', "a5d5", "only the Lion and the Tiger"),
        ("La5 rb5 eg9", 'w', "a5d5", "blocked by a Rat"),
        ("Cd2 rg9", 'w', "d2d1", "own den"),
        ("Da4 rg9", 'w', "a4b4", "only the Rat may enter water"),
        ("Dd3 Cd4 rg9", 'w', "d3d4", "your own Cat"),
        ("Cd3 dd4", 'w', "d3d4", "Cat (rank 2) cannot capture a Dog (rank 3)"),
        ("Ed3 rd4", 'w', "d3d4", "Elephant cannot capture the Rat"),
        ("Rb5 ea5", 'w', "b5a5", "Rat in the water cannot capture"),
        ("Ra5 rb5 eg9", 'w', "a5b5", "piece on land cannot capture a Rat in the water"),
    ];
    for (pieces, side, mv, want) in cases {
        let mut g = game(pieces, side, Rules::default());
        let e = g.play_text(mv).unwrap_err().to_string();
        assert!(e.contains(want), "{pieces} {mv}: {e:?} should mention {want:?}");
    }
}
