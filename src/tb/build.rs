//! Retrograde analysis of one material: every position's exact result and distance, given the
//! tables of the materials its captures lead to.
//!
//! First every position's moves are looked at once: a move into the enemy den or a capture of
//! the last enemy piece wins in 1; any other capture leads to a smaller table, whose result
//! decides that move; the other moves stay in this table and are counted. Then results spread
//! backwards in order of distance (a bucket per ply): a position lost in `d` makes every
//! position with a move to it won in `d + 1`; a position won in `d` takes one from the count of
//! each predecessor's open moves, and a predecessor left with none (and no capture that wins or
//! draws) is lost in one more than its longest defence. What is never decided is a draw: neither
//! side can force a result. Predecessors come from the same move generator run for the other
//! side (a quiet move in Jungle can always be played back), so moves and unmoves agree.

use super::index::{decode_full, encode_full, full_len, position, valid};
use super::material::Material;
use super::table::{DRAW, MAX_DISTANCE, NONE, Value};
use crate::jungle::movegen::pseudo_moves;
use crate::jungle::tables::DEN;
use crate::jungle::{MoveList, Position, Rules};

/// Why a table could not be built.
#[derive(Debug, thiserror::Error)]
pub enum BuildError {
    #[error("{material}: a capture reaches {after}, whose table is missing")]
    MissingTable { material: Material, after: String },
    #[error("{material}: a result is more than {MAX_DISTANCE} plies long, more than the file format holds")]
    TooLong { material: Material },
}

/// Codes of every whole-board placement of `m` (see `tb::table` for the codes; `NONE` for
/// placements that are not positions). `lookup` gives the result for the side to move of a
/// position after a capture (a smaller material).
pub fn build(m: Material, rules: &Rules, lookup: &dyn Fn(&Position) -> Option<Value>) -> Result<Vec<u8>, BuildError> {
    let n = m.count();
    let pieces = m.pieces();
    let len = full_len(n);
    // During the build 0 means "not decided yet"; undecided positions end as draws.
    let mut codes = vec![NONE; len];
    let mut open = vec![0u8; len];
    // A capture draws or wins: the position cannot be lost.
    let mut safe = vec![false; len];
    // The longest of the captures that lose (the opponent's win distance after them, + 1).
    let mut exit_loss = vec![0u8; len];
    let mut buckets: Vec<Vec<(u32, bool)>> = vec![Vec::new(); usize::from(MAX_DISTANCE) + 2];
    let mut squares = vec![0usize; n];
    let mut moves = MoveList::new();
    for idx in 0..len {
        let stm = decode_full(idx, n, &mut squares);
        if !valid(&pieces, &squares) {
            continue;
        }
        codes[idx] = 0;
        let pos = position(&pieces, &squares, stm);
        moves.clear();
        pseudo_moves(&pos, rules, &mut moves);
        let enemy_den = DEN[stm.flip().index()];
        let mut best_win = u16::MAX;
        for &mv in &moves {
            if enemy_den & mv.to().bit() != 0 {
                best_win = 1;
            } else if pos.is_capture(mv) {
                let mut after = pos;
                after.play_unchecked(mv);
                if after.count(stm.flip()) == 0 {
                    best_win = 1;
                    continue;
                }
                match lookup(&after) {
                    None => return Err(BuildError::MissingTable { material: m, after: crate::jungle::fen(&after) }),
                    Some(Value::Draw) => safe[idx] = true,
                    Some(Value::Loss(d)) => best_win = best_win.min(d + 1),
                    Some(Value::Win(d)) => exit_loss[idx] = exit_loss[idx].max((d + 1).min(MAX_DISTANCE) as u8),
                }
            } else {
                open[idx] += 1;
            }
        }
        if best_win != u16::MAX {
            safe[idx] = true;
            if best_win > MAX_DISTANCE {
                return Err(BuildError::TooLong { material: m });
            }
            buckets[usize::from(best_win)].push((idx as u32, true));
        } else if open[idx] == 0 && !safe[idx] {
            buckets[usize::from(exit_loss[idx])].push((idx as u32, false));
        }
    }
    let mut back = MoveList::new();
    for d in 0..=usize::from(MAX_DISTANCE) {
        let bucket = std::mem::take(&mut buckets[d]);
        for (idx, win) in bucket {
            let idx = idx as usize;
            if codes[idx] != 0 {
                continue;
            }
            codes[idx] = (d + 1) as u8;
            // The positions one move before: the other side to move, one of its pieces back
            // where it came from.
            let stm = decode_full(idx, n, &mut squares);
            let them = stm.flip();
            let pos = position(&pieces, &squares, them);
            back.clear();
            pseudo_moves(&pos, rules, &mut back);
            for &mv in &back {
                // Back moves are quiet, and never out of the enemy den (the earlier position
                // would have been over).
                if pos.is_capture(mv) || DEN[stm.index()] & mv.to().bit() != 0 {
                    continue;
                }
                let k = pieces.iter().position(|&p| Some(p) == pos.piece_at(mv.from())).unwrap_or(0);
                let from = squares[k];
                squares[k] = mv.to().index();
                let q = encode_full(them, &squares);
                squares[k] = from;
                if codes[q] != 0 {
                    continue;
                }
                if !win {
                    if d + 1 > usize::from(MAX_DISTANCE) {
                        return Err(BuildError::TooLong { material: m });
                    }
                    buckets[d + 1].push((q as u32, true));
                } else {
                    open[q] -= 1;
                    if open[q] == 0 && !safe[q] {
                        // One more than its longest defence: this move or a losing capture.
                        let dist = (d + 1).max(usize::from(exit_loss[q]));
                        if dist > usize::from(MAX_DISTANCE) {
                            return Err(BuildError::TooLong { material: m });
                        }
                        buckets[dist].push((q as u32, false));
                    }
                }
            }
        }
    }
    for c in codes.iter_mut() {
        if *c == 0 {
            *c = DRAW;
        }
    }
    Ok(codes)
}
