//! Explanations of illegal moves for people (terminal play, the protocol's error lines).

use super::capture::{can_capture, jump};
use super::history::History;
use super::movegen;
use super::position::Position;
use super::rules::{Repetition, Rules};
use super::tables::{DEN, NEIGHBOURS, WATER};
use super::types::{Kind, Move};

/// Why `mv` is not legal in `pos` under `rules` with history `hist` (which ends with `pos`;
/// the game should not already be over).
pub fn why_illegal(pos: &Position, rules: &Rules, hist: &History, mv: Move) -> String {
    let (from, to) = (mv.from(), mv.to());
    let Some(piece) = pos.piece_at(from) else {
        return format!("there is no piece on {from}");
    };
    let us = pos.side_to_move();
    if piece.side() != us {
        return format!("the {piece} on {from} is not yours ({us} to move)");
    }
    let kind = piece.kind();
    let adjacent = NEIGHBOURS[from.index()] & to.bit() != 0;
    if !adjacent {
        if let Some(blocked) = jump(pos, from, to) {
            if !kind.jumps() {
                return "only the Lion and the Tiger jump across a river".into();
            }
            if blocked {
                return "the jump is blocked by a Rat in the river".into();
            }
        } else {
            let article = if kind == Kind::Elephant { "an" } else { "a" };
            return format!(
                "{article} {kind} moves one square up, down, left or right{}",
                if kind.jumps() { ", or jumps straight across a river" } else { "" }
            );
        }
    }
    if DEN[us.index()] & to.bit() != 0 {
        return "no piece may enter its own den".into();
    }
    if WATER & to.bit() != 0 && kind != Kind::Rat {
        return "only the Rat may enter water".into();
    }
    if let Some(target) = pos.piece_at(to) {
        if target.side() == us {
            return format!("{to} holds your own {}", target.kind());
        }
        if !can_capture(rules, piece, from, target, to) {
            let (att_water, def_water) = (WATER & from.bit() != 0, WATER & to.bit() != 0);
            return if att_water && !def_water {
                "a Rat in the water cannot capture a piece on land".into()
            } else if !att_water && def_water {
                "a piece on land cannot capture a Rat in the water".into()
            } else if kind == Kind::Elephant && target.kind() == Kind::Rat {
                "the Elephant cannot capture the Rat".into()
            } else {
                format!("a {kind} (rank {}) cannot capture a {} (rank {})", rules.rank(kind), target.kind(), rules.rank(target.kind()))
            };
        }
    }
    if rules.repetition == Repetition::Forbidden && movegen::forbidden_by_repetition(pos, hist, mv) {
        return "it would bring about the same position for the third time".into();
    }
    if let Some(rule) = super::chase::restriction(pos, rules, hist).rule_for(kind, to) {
        return rule.describe().into();
    }
    "it is not a legal move here".into()
}
