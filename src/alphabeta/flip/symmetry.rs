//! The 4×4 board's symmetries. The flip game knows no special square, so a mirror or turn of
//! the board that maps a position onto itself maps each move onto one of equal value: the
//! search plays one move of each such set.

use crate::flip::{FlipGame, FlipMove, Square};

/// The square `s` maps to under the board's symmetry `t` (0–6: the seven besides the
/// identity; 0 is the left-right mirror).
pub(super) fn mirrored(s: Square, t: usize) -> Square {
    let (f, r, n) = (s.file(), s.rank(), 3);
    let (f, r) = match t {
        0 => (n - f, r),
        1 => (f, n - r),
        2 => (n - f, n - r),
        3 => (r, f),
        4 => (n - r, f),
        5 => (r, n - f),
        _ => (n - r, n - f),
    };
    Square::new(f, r)
}

/// The symmetries (bit `t` for [`mirrored`]'s `t`) that map the position onto itself. The rules
/// and the evaluation know no special square, so symmetric moves have equal values; under
/// `own_half` only the left-right mirror keeps each half's colour.
pub(super) fn automorphisms(g: &FlipGame) -> u8 {
    let symmetries = if g.hidden_colour(Square(0)).is_some() { 1 } else { 7 };
    (0..symmetries).filter(|&t| Square::all().all(|s| g.cell(mirrored(s, t)) == g.cell(s))).fold(0, |bits, t| bits | 1 << t)
}

/// A move's place in a fixed order, to pick one of each set of symmetric moves.
fn move_code(m: FlipMove) -> u16 {
    match m {
        FlipMove::Flip(s) => u16::from(s.0),
        FlipMove::Step { from, to, .. } => 16 + u16::from(from.0) * 16 + u16::from(to.0),
        _ => u16::MAX,
    }
}

/// Whether a symmetry of the position maps `m` onto a move earlier in [`move_code`]'s order
/// (which is searched instead).
pub(super) fn redundant(m: FlipMove, autos: u8) -> bool {
    autos != 0
        && (0..7).filter(|t| autos >> t & 1 == 1).any(|t| {
            let image = match m {
                FlipMove::Flip(s) => FlipMove::Flip(mirrored(s, t)),
                FlipMove::Step { from, to, capture } => FlipMove::Step { from: mirrored(from, t), to: mirrored(to, t), capture },
                other => other,
            };
            move_code(image) < move_code(m)
        })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::flip::{FlipRules, parse_position};
    use crate::game::Game;

    #[test]
    fn symmetric_moves_are_searched_once() {
        let g = parse_position("????/????/????/???? 1 - RCDWPTLErcdwptle 0 0", FlipRules::default()).unwrap();
        assert_eq!(automorphisms(&g), 0b111_1111, "the empty board has all eight symmetries");
        let kept: Vec<String> = g.legal_moves().iter().filter(|&&m| !redundant(m, automorphisms(&g))).map(|m| m.to_string()).collect();
        assert_eq!(kept, ["f:a1", "f:b1", "f:b2"], "a corner, an edge and a centre square");
        // A Lion on b2 leaves only the a1-d4 diagonal's mirror.
        let g = parse_position("????/????/?L??/???? 2 r RCDWPTErcdwptle 0 1", FlipRules::default()).unwrap();
        assert_eq!(automorphisms(&g), 1 << 3);
        let kept = g.legal_moves().iter().filter(|&&m| !redundant(m, automorphisms(&g))).count();
        assert_eq!(kept, 9, "15 flips, six of them mirrored by the diagonal");
    }
}
