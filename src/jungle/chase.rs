//! The online-play anti-chase rules 7-3 and 17-5 (rules switch `anti_chase`; the exact reading
//! is docs/rules.md, "The anti-chase rules").
//!
//! Both rules depend on the path: they read the side to move's last moves from the
//! [`History`]. [`restriction`] turns them into one bitboard per animal of the squares it may not
//! enter now; move generation, the checked door and the network input read that.

use super::capture::{can_capture, jump};
use super::history::{History, Step};
use super::position::Position;
use super::rules::Rules;
use super::tables::{NEIGHBOURS, TRAPS};
use super::types::{Kind, Move, Side, Square};

/// Which of the two rules forbids a move.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ChaseRule {
    /// 7-3: a fourth entry into one square within seven consecutive moves.
    SevenThree,
    /// 17-5: one piece moved 17 times within five squares.
    SeventeenFive,
}

impl ChaseRule {
    /// The rule in words, for "illegal" messages.
    pub const fn describe(self) -> &'static str {
        match self {
            ChaseRule::SevenThree => "the anti-chase rule 7-3 forbids a piece to enter the same square a fourth time within seven consecutive moves",
            ChaseRule::SeventeenFive => "the anti-chase rule 17-5 forbids a piece moved alone for 17 moves within five squares to enter them again",
        }
    }
}

/// The squares each of the side to move's animals may not enter, by rule.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Restriction {
    /// By `Kind::index()`: squares forbidden by 7-3.
    pub seven_three: [u64; 8],
    /// By `Kind::index()`: squares forbidden by 17-5 (one animal at most).
    pub seventeen_five: [u64; 8],
}

impl Restriction {
    /// Whether no move is forbidden.
    #[inline(always)]
    pub fn is_empty(&self) -> bool {
        self.seven_three.iter().chain(&self.seventeen_five).all(|&b| b == 0)
    }

    /// The squares `kind` may not enter.
    #[inline(always)]
    pub fn forbidden(&self, kind: Kind) -> u64 {
        self.seven_three[kind.index()] | self.seventeen_five[kind.index()]
    }

    /// The rule that forbids `kind` to enter `to`, if one does.
    pub fn rule_for(&self, kind: Kind, to: Square) -> Option<ChaseRule> {
        if self.seven_three[kind.index()] & to.bit() != 0 {
            Some(ChaseRule::SevenThree)
        } else if self.seventeen_five[kind.index()] & to.bit() != 0 {
            Some(ChaseRule::SeventeenFive)
        } else {
            None
        }
    }

    /// Whether the move `mv` of the piece on its from-square is forbidden (`pos` is the
    /// position the move is played in).
    #[inline(always)]
    pub fn forbids(&self, pos: &Position, mv: Move) -> bool {
        pos.piece_at(mv.from()).is_some_and(|p| self.forbidden(p.kind()) & mv.to().bit() != 0)
    }

    /// For the network input: the union of the forbidden squares, and the squares of the
    /// side to move's restricted pieces.
    pub fn marks(&self, pos: &Position) -> (u64, u64) {
        let us = pos.side_to_move();
        let mut squares = 0;
        let mut pieces = 0;
        for kind in Kind::ALL {
            let f = self.forbidden(kind);
            if f != 0 {
                squares |= f;
                if let Some(sq) = pos.square_of(us, kind) {
                    pieces |= sq.bit();
                }
            }
        }
        (squares, pieces)
    }
}

/// The history step of `mv` played in `pos`: [`Step::NONE`] unless the anti-chase rules are
/// on (nothing else reads steps, so games without them skip the lookup).
#[inline(always)]
pub fn step_of(pos: &Position, rules: &Rules, mv: Move) -> Step {
    match pos.piece_at(mv.from()) {
        Some(p) if rules.anti_chase => Step::new(p.kind(), mv),
        _ => Step::NONE,
    }
}

/// Moves of one side the 7-3 window reads (the candidate's six predecessors).
const SEVEN_BACK: usize = 6;
/// Moves of one side the 17-5 rule reads.
const SEVENTEEN: usize = 17;

#[inline(always)]
fn enters_trap(step: Step) -> bool {
    (TRAPS[0] | TRAPS[1]) & (1u64 << step.to) != 0
}

/// Whether the enemy piece that moved last (`last`) could capture our `kind` from where it
/// stands, with a step or a jump, by the capture rules alone.
fn chased(pos: &Position, rules: &Rules, us: Side, kind: Kind, last: Step) -> bool {
    if last.is_none() {
        return false;
    }
    let (Some(target), Some(at)) = (pos.square_of(us, kind), Square::try_new(last.to as usize)) else {
        return false;
    };
    let Some(enemy) = pos.piece_at(at) else { return false };
    if enemy.side() == us {
        return false;
    }
    let reaches = NEIGHBOURS[at.index()] & target.bit() != 0 || (enemy.kind().jumps() && jump(pos, at, target) == Some(false));
    reaches && pos.piece_at(target).is_some_and(|p| can_capture(rules, enemy, at, p, target))
}

/// The squares the side to move's animals may not enter under the anti-chase rules (empty
/// when `rules.anti_chase` is off). `hist` must end with `pos`.
#[inline]
pub fn restriction(pos: &Position, rules: &Rules, hist: &History) -> Restriction {
    let mut r = Restriction::default();
    if !rules.anti_chase {
        return r;
    }
    let (seven_three, seventeen_five) = hist.chase_possible();
    if !(seven_three || seventeen_five) {
        return r;
    }
    let us = pos.side_to_move();
    // Our moves, newest first: plies 1, 3, 5, ... back.
    let own = |i: usize| hist.step_back(2 * i + 1);

    // 7-3: some animal entered one square three times in our previous six moves.
    let mut window = [Step::NONE; SEVEN_BACK];
    let mut n = 0;
    while seven_three && n < SEVEN_BACK {
        match own(n) {
            Some(s) => window[n] = s,
            None => break,
        }
        n += 1;
    }
    if n >= 3 && !window[..n].iter().any(|&s| !s.is_none() && enters_trap(s)) {
        for i in 0..n {
            let s = window[i];
            if s.is_none() || r.seven_three[s.kind as usize] & (1u64 << s.to) != 0 {
                continue;
            }
            let entries = window[..n].iter().filter(|t| t.kind == s.kind && t.to == s.to).count();
            if entries >= 3 {
                let kind = Kind::ALL[s.kind as usize];
                let last = hist.step_back(0).unwrap_or(Step::NONE);
                if !chased(pos, rules, us, kind, last) {
                    r.seven_three[s.kind as usize] |= 1u64 << s.to;
                }
            }
        }
    }

    // 17-5: our previous 17 moves all moved one animal, within five squares, no trap entered.
    if !seventeen_five {
        return r;
    }
    let Some(first) = own(0) else { return r };
    if first.is_none() || own(SEVENTEEN - 1).is_none() {
        return r;
    }
    let mut squares = 0u64;
    for i in 0..SEVENTEEN {
        let Some(s) = own(i) else { return r };
        if s.kind != first.kind || enters_trap(s) {
            return r;
        }
        squares |= 1u64 << s.to;
        if i == SEVENTEEN - 1 {
            squares |= 1u64 << s.from;
        }
    }
    if squares.count_ones() <= 5 {
        r.seventeen_five[first.kind as usize] = squares;
    }
    r
}
