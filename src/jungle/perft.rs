//! Perft: the number of legal move sequences of a given length, the standard check of a move
//! generator against independent engines.
//!
//! Conventions (docs/rules.md): the history starts empty (the root counts as one occurrence); a move
//! that ends the game is counted when it is the last ply and has no successors otherwise; a
//! position without legal moves contributes nothing. The last ply is counted without being
//! played; the repetition rule still applies to it through [`movegen::count_legal`].

use super::chase;
use super::history::History;
use super::movegen::{self, MoveList};
use super::position::Position;
use super::rules::{Repetition, Rules};
use super::state::JungleGame;
use super::tables::DEN_SQUARE;
use super::types::Move;
use crate::game::{Game, Turn};

/// Whether the game ends with the position just pushed onto `hist` (the mover's den entry, a
/// draw by repetition, the no-capture limit or the move cap). Annihilation needs no check: the
/// side without pieces has no moves and contributes nothing.
#[inline(always)]
fn ends_game(pos: &Position, rules: &Rules, hist: &History, mv: Move) -> bool {
    let mover = pos.side_to_move().flip();
    mv.to().index() == DEN_SQUARE[mover.flip().index()] as usize
        || (rules.repetition == Repetition::Draw && hist.current_reps() >= 3)
        || (rules.no_capture_plies > 0 && pos.halfmove() >= rules.no_capture_plies)
        || (rules.max_plies > 0 && pos.ply() >= u32::from(rules.max_plies))
}

/// Whether the root itself is a finished game.
fn root_is_over(pos: &Position, rules: &Rules) -> bool {
    pos.den_winner().is_some()
        || (rules.no_capture_plies > 0 && pos.halfmove() >= rules.no_capture_plies)
        || (rules.max_plies > 0 && pos.ply() >= u32::from(rules.max_plies))
}

fn perft_rec(pos: &Position, rules: &Rules, hist: &mut History, depth: u32) -> u64 {
    debug_assert!(depth >= 1);
    if depth == 1 {
        return u64::from(movegen::count_legal(pos, rules, hist));
    }
    let mut moves = MoveList::new();
    movegen::legal_moves(pos, rules, hist, &mut moves);
    let mut nodes = 0;
    for &mv in &moves {
        let mut child = *pos;
        let step = chase::step_of(pos, rules, mv);
        let captured = child.play_unchecked(mv);
        hist.push(child.hash(), captured.is_some(), step);
        if !ends_game(&child, rules, hist, mv) {
            nodes += perft_rec(&child, rules, hist, depth - 1);
        }
        hist.pop();
    }
    nodes
}

/// perft(depth) from `pos` with an empty history.
pub fn perft(pos: &Position, rules: &Rules, depth: u32) -> u64 {
    if depth == 0 {
        return 1;
    }
    divide(pos, rules, depth).iter().map(|(_, n)| n).sum()
}

/// perft split by root move: `(move, count)` for each legal root move. Empty for depth 0 or a
/// finished root.
pub fn divide(pos: &Position, rules: &Rules, depth: u32) -> Vec<(Move, u64)> {
    if depth == 0 || root_is_over(pos, rules) {
        return Vec::new();
    }
    divide_from(pos, rules, History::new(pos.hash()).with_chase(rules.anti_chase), depth)
}

/// perft(depth) from a game's current position with its history (the repetition and
/// anti-chase rules read the moves played before it).
pub fn perft_game(game: &JungleGame, depth: u32) -> u64 {
    if depth == 0 {
        return 1;
    }
    divide_game(game, depth).iter().map(|(_, n)| n).sum()
}

/// [`divide`] from a game's current position with its history; empty when the game is over.
pub fn divide_game(game: &JungleGame, depth: u32) -> Vec<(Move, u64)> {
    if depth == 0 || matches!(game.turn(), Turn::Over(_)) {
        return Vec::new();
    }
    divide_from(game.position(), game.rules(), game.history().clone(), depth)
}

fn divide_from(pos: &Position, rules: &Rules, mut hist: History, depth: u32) -> Vec<(Move, u64)> {
    let mut moves = MoveList::new();
    movegen::legal_moves(pos, rules, &hist, &mut moves);
    moves
        .iter()
        .map(|&mv| {
            let mut child = *pos;
            let step = chase::step_of(pos, rules, mv);
            let captured = child.play_unchecked(mv);
            hist.push(child.hash(), captured.is_some(), step);
            let n = if depth == 1 {
                1
            } else if ends_game(&child, rules, &hist, mv) {
                0
            } else {
                perft_rec(&child, rules, &mut hist, depth - 1)
            };
            hist.pop();
            (mv, n)
        })
        .collect()
}
