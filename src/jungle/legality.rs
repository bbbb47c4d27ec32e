//! The checked door: whether one given move is legal, decided rule by rule.
//!
//! This is deliberately a separate path from the bulk generator in `movegen` (which works on
//! whole bitboards at once): `play` uses it, and the tests check that the two agree.

use super::capture::{can_capture, jump};
use super::history::History;
use super::movegen::forbidden_by_repetition;
use super::position::Position;
use super::rules::{Repetition, Rules};
use super::tables::{DEN, NEIGHBOURS, WATER};
use super::types::{Kind, Move};

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
