//! Move generation with bitboards.
//!
//! For the side to move we first compute, once per position, which enemy squares each of our
//! animals may capture (rank order, traps, the Elephant/Rat exceptions); then every piece's
//! destinations are one mask expression. Water rules are applied per piece: land pieces never
//! enter water (so they never reach a Rat in it), and a Rat's targets depend on whether it
//! stands in water.
//!
//! These are *pseudo-legal* moves: everything but the repetition rule, which needs the game
//! history and is applied by [`legal_moves`].

use arrayvec::ArrayVec;

use super::chase;
use super::history::History;
use super::position::Position;
use super::rules::{Repetition, Rules};
use super::tables::{BIT, BOARD, DEN, JUMPS_FROM, NEIGHBOURS, TRAPS, WATER, squares};
use super::types::{Kind, Move, Side, Square};

/// The most moves a position can have: 8 pieces, each with at most 4 directions, and each
/// direction yields one step or one jump, never both (a jump starts where the step would be
/// into water, which only a Rat may enter, and Rats do not jump).
pub const MAX_MOVES: usize = 32;

pub type MoveList = ArrayVec<Move, MAX_MOVES>;

/// Everything about the position the per-piece destination masks need.
struct Ctx {
    empty: u64,
    /// Land squares other than our own den.
    land_ok: u64,
    own_den: u64,
    /// Rats of both sides (they block jumps).
    rats: u64,
    /// Enemy squares each animal may capture from land (before water rules).
    targets: [u64; 8],
    /// What a Rat on land may capture (water rules applied).
    rat_from_land: u64,
    /// What a Rat in water may capture.
    rat_from_water: u64,
}

impl Ctx {
    #[inline(always)]
    fn new(pos: &Position, rules: &Rules, us: Side) -> Ctx {
        let them = us.flip();
        let enemy = pos.occupied(them);
        let e = |k: Kind| pos.bb(them, k);
        // Enemy pieces on our traps defend with rank 0: any of our pieces may take them.
        let trapped = enemy & TRAPS[us.index()];
        let (lower, higher) = if rules.dog_over_wolf { (Kind::Wolf, Kind::Dog) } else { (Kind::Dog, Kind::Wolf) };
        // Cumulative sets: `upto_r` = enemy pieces of rank <= r.
        let upto1 = e(Kind::Rat);
        let upto2 = upto1 | e(Kind::Cat);
        let upto3 = upto2 | e(lower);
        let upto4 = upto3 | e(higher);
        let upto5 = upto4 | e(Kind::Leopard);
        let upto6 = upto5 | e(Kind::Tiger);
        let upto7 = upto6 | e(Kind::Lion);
        let mut targets = [0u64; 8];
        targets[Kind::Rat.index()] = upto1 | e(Kind::Elephant) | trapped;
        targets[Kind::Cat.index()] = upto2 | trapped;
        targets[lower.index()] = upto3 | trapped;
        targets[higher.index()] = upto4 | trapped;
        targets[Kind::Leopard.index()] = upto5 | trapped;
        targets[Kind::Tiger.index()] = upto6 | trapped;
        targets[Kind::Lion.index()] = upto7 | trapped;
        let trapped_rat = if rules.elephant_takes_rat {
            upto1
        } else if rules.elephant_takes_trapped_rat {
            upto1 & trapped
        } else {
            0
        };
        targets[Kind::Elephant.index()] = (enemy & !upto1) | trapped_rat;

        let enemy_rat = upto1;
        let (rat_from_land, rat_from_water) = if rules.rat_captures_across_shore {
            // Rats take each other anywhere; a Rat in water still cannot take the Elephant.
            (targets[Kind::Rat.index()], enemy_rat)
        } else {
            // No capture crosses the shore.
            (targets[Kind::Rat.index()] & !WATER, enemy_rat & WATER)
        };
        let own_den = DEN[us.index()];
        Ctx {
            empty: BOARD & !(pos.all_occupied()),
            land_ok: BOARD & !WATER & !own_den,
            own_den,
            rats: upto1 | pos.bb(us, Kind::Rat),
            targets,
            rat_from_land,
            rat_from_water,
        }
    }

    /// Destination squares of our `kind` standing on `from`.
    #[inline(always)]
    fn destinations(&self, kind: Kind, from: usize) -> u64 {
        match kind {
            Kind::Rat => {
                if BIT[from] & WATER != 0 {
                    NEIGHBOURS[from] & (self.empty | self.rat_from_water)
                } else {
                    NEIGHBOURS[from] & !self.own_den & (self.empty | self.rat_from_land)
                }
            }
            Kind::Lion | Kind::Tiger => {
                let mut reach = NEIGHBOURS[from];
                let (jumps, n) = &JUMPS_FROM[from];
                for j in &jumps[..*n as usize] {
                    if j.path & self.rats == 0 {
                        reach |= BIT[j.to as usize];
                    }
                }
                reach & self.land_ok & (self.empty | self.targets[kind.index()])
            }
            _ => NEIGHBOURS[from] & self.land_ok & (self.empty | self.targets[kind.index()]),
        }
    }
}

/// Calls `f(from, destinations)` for every piece of `us`, as if `us` were to move.
#[inline(always)]
fn for_each_piece(pos: &Position, rules: &Rules, us: Side, mut f: impl FnMut(usize, u64)) {
    let ctx = Ctx::new(pos, rules, us);
    for kind in Kind::ALL {
        if let Some(from) = pos.square_of(us, kind) {
            f(from.index(), ctx.destinations(kind, from.index()));
        }
    }
}

/// All pseudo-legal moves (every rule but repetition), appended to `out`.
#[inline]
pub fn pseudo_moves(pos: &Position, rules: &Rules, out: &mut MoveList) {
    for_each_piece(pos, rules, pos.side_to_move(), |from, dests| {
        for to in squares(dests) {
            // MAX_MOVES bounds the count (see its comment), so this never overflows.
            out.push(Move::new(Square::new(from as u8), Square::new(to as u8)));
        }
    });
}

/// Number of pseudo-legal moves.
#[inline]
pub fn count_pseudo(pos: &Position, rules: &Rules) -> u32 {
    count_pseudo_for(pos, rules, pos.side_to_move())
}

/// Number of pseudo-legal moves `side` would have if it were to move (mobility).
#[inline]
pub fn count_pseudo_for(pos: &Position, rules: &Rules, side: Side) -> u32 {
    let mut n = 0;
    for_each_piece(pos, rules, side, |_, dests| n += dests.count_ones());
    n
}

/// Whether the repetition rule can forbid any move here (so the cheap paths can skip it).
#[inline(always)]
fn repetition_matters(rules: &Rules, hist: &History) -> bool {
    rules.repetition == Repetition::Forbidden && hist.may_repeat()
}

/// Whether the anti-chase rules may forbid a move here (so the cheap paths can skip them).
#[inline(always)]
fn chase_matters(rules: &Rules, hist: &History) -> bool {
    rules.anti_chase && hist.chase_possible() != (false, false)
}

/// All legal moves: pseudo-legal moves minus those that would bring about a position for the
/// third time under `repetition = forbidden`, and those the anti-chase rules forbid when they
/// are on. `hist` must end with `pos`.
#[inline]
pub fn legal_moves(pos: &Position, rules: &Rules, hist: &History, out: &mut MoveList) {
    out.clear();
    pseudo_moves(pos, rules, out);
    if repetition_matters(rules, hist) {
        out.retain(|m| !forbidden_by_repetition(pos, hist, *m));
    }
    if chase_matters(rules, hist) {
        let r = chase::restriction(pos, rules, hist);
        if !r.is_empty() {
            out.retain(|m| !r.forbids(pos, *m));
        }
    }
}

/// Number of legal moves (see [`legal_moves`]).
#[inline]
pub fn count_legal(pos: &Position, rules: &Rules, hist: &History) -> u32 {
    if repetition_matters(rules, hist) || (chase_matters(rules, hist) && !chase::restriction(pos, rules, hist).is_empty()) {
        let mut list = MoveList::new();
        legal_moves(pos, rules, hist, &mut list);
        list.len() as u32
    } else {
        count_pseudo(pos, rules)
    }
}

/// Whether the side to move has at least one legal move.
#[inline]
pub fn has_legal_move(pos: &Position, rules: &Rules, hist: &History) -> bool {
    count_legal(pos, rules, hist) > 0
}

/// Whether `mv` (pseudo-legal) would make the third occurrence of a position.
#[inline]
pub fn forbidden_by_repetition(pos: &Position, hist: &History, mv: Move) -> bool {
    !pos.is_capture(mv) && hist.occurrences(pos.hash_after_quiet(mv)) >= 2
}
