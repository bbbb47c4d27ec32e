//! The checked door: whether one given move is legal, decided rule by rule.
//!
//! This is deliberately a separate path from the bulk generator in `movegen` (which works on
//! whole bitboards at once): `play` uses it, and the tests check that the two agree.

use super::history::History;
use super::movegen::forbidden_by_repetition;
use super::position::Position;
use super::rules::{Repetition, Rules};
use super::tables::{DEN, JUMPS_FROM, NEIGHBOURS, TRAPS, WATER};
use super::types::{Kind, Move, Piece, Side, Square};

/// Whether `att` standing on `from` may capture `def` standing on `to` (adjacency and whose
/// turn it is are not checked).
pub fn can_capture(rules: &Rules, att: Piece, from: Square, def: Piece, to: Square) -> bool {
    if att.side() == def.side() {
        return false;
    }
    let (att_wet, def_wet) = (WATER & from.bit() != 0, WATER & to.bit() != 0);
    if att_wet != def_wet {
        // No capture crosses the shore, except Rat takes Rat under the variant.
        return rules.rat_captures_across_shore && att.kind() == Kind::Rat && def.kind() == Kind::Rat;
    }
    if on_trap_of(to, att.side()) {
        // Rank 0 for defence, but the Elephant may be barred from taking a trapped Rat.
        let elephant_on_rat = att.kind() == Kind::Elephant && def.kind() == Kind::Rat;
        return !elephant_on_rat || rules.elephant_takes_trapped_rat || rules.elephant_takes_rat;
    }
    match (att.kind(), def.kind()) {
        (Kind::Elephant, Kind::Rat) => rules.elephant_takes_rat,
        (Kind::Rat, Kind::Elephant) => true,
        (a, d) => rules.rank(a) >= rules.rank(d),
    }
}

/// Whether `sq` is one of `owner`'s traps.
pub fn on_trap_of(sq: Square, owner: Side) -> bool {
    TRAPS[owner.index()] & sq.bit() != 0
}

/// The jump from `from` to `to`, if there is one: `Some(blocked)`.
pub fn jump(pos: &Position, from: Square, to: Square) -> Option<bool> {
    let (jumps, n) = &JUMPS_FROM[from.index()];
    let rats = pos.bb(Side::Red, Kind::Rat) | pos.bb(Side::Blue, Kind::Rat);
    jumps[..*n as usize].iter().find(|j| j.to as usize == to.index()).map(|j| j.path & rats != 0)
}

/// Whether `mv` is legal in `pos` with history `hist` (which must end with `pos`). Does not
/// look at whether the game is already over.
pub fn is_legal(pos: &Position, rules: &Rules, hist: &History, mv: Move) -> bool {
    let (from, to) = (mv.from(), mv.to());
    let Some(piece) = pos.piece_at(from) else { return false };
    let us = pos.side_to_move();
    if piece.side() != us {
        return false;
    }
    let step = NEIGHBOURS[from.index()] & to.bit() != 0;
    let jumped = piece.kind().jumps() && jump(pos, from, to) == Some(false);
    if !(step || jumped) || DEN[us.index()] & to.bit() != 0 {
        return false;
    }
    if WATER & to.bit() != 0 && piece.kind() != Kind::Rat {
        return false;
    }
    if let Some(target) = pos.piece_at(to)
        && !can_capture(rules, piece, from, target, to)
    {
        return false;
    }
    (rules.repetition != Repetition::Forbidden || !forbidden_by_repetition(pos, hist, mv))
        && (!rules.anti_chase || super::chase::restriction(pos, rules, hist).rule_for(piece.kind(), to).is_none())
}
