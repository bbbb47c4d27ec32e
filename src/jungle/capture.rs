//! Which piece may take which, and the river jumps: the reach of a piece, read by the move
//! generator's checks, by legality, by the chase rule and by the explanations of illegal moves.

use super::position::Position;
use super::rules::Rules;
use super::tables::{JUMPS_FROM, TRAPS, WATER};
use super::types::{Kind, Piece, Side, Square};

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
