//! The flip game's classical engine: expectiminimax with alpha-beta at the players' choices and
//! Star1 pruning at the flips (Ballard 1983): a flip's outcomes are searched one by one with a
//! window narrowed by what the outcomes seen so far and the value bounds (±1) still allow, and
//! the flip is cut off as soon as its value can no longer enter the window. Iterative
//! deepening; one ply is one decision (a flip and what it reveals count as one).
//!
//! The evaluation is material in (-1, 1): each side's pieces by animal, face-down ones counted
//! at a discount since they cannot act yet, through `tanh`. It is the anchor of the flip
//! ladder, as alpha-beta depth 1 is for the big game.

use std::time::Instant;

use crate::flip::{Cell, FlipGame, FlipMove, Piece, Square};
use crate::game::{Game, Turn};
use crate::player::{Limits, Player};

/// Value bounds: a loss and a win.
const LOSS: f32 = -1.0;
const WIN: f32 = 1.0;
/// Material by animal, Rat … Elephant (the Rat is worth more than its rank: it takes the
/// Elephant).
const WEIGHTS: [f32; 8] = [3.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0];
/// A face-down piece's share of its animal's weight.
const HIDDEN_SHARE: f32 = 0.7;
/// Material difference that maps to tanh(1).
const SCALE: f32 = 10.0;
/// Deepest iteration when no depth is given.
const MAX_DEPTH: u32 = 64;

/// The evaluation for the player to move, in (-1, 1); 0 before colours are decided.
pub fn evaluate(g: &FlipGame) -> f32 {
    let Some(me) = g.colour_of(g.to_move()) else { return 0.0 };
    let mut score = 0.0;
    for s in Square::all() {
        if let Cell::Up(p) = g.cell(s) {
            score += if p.side == me { 1.0 } else { -1.0 } * WEIGHTS[p.kind.index()];
        }
    }
    for (i, &n) in g.hidden().iter().enumerate() {
        let p = Piece::from_index(i);
        score += f32::from(n) * HIDDEN_SHARE * if p.side == me { 1.0 } else { -1.0 } * WEIGHTS[p.kind.index()];
    }
    (score / SCALE).tanh()
}

/// Transposition-table entries (a power of two; 16 bytes each).
const TT_ENTRIES: usize = 1 << 18;

/// What the table knows about a position searched to some depth.
#[derive(Clone, Copy, Debug, Default)]
struct TtEntry {
    key: u64,
    value: f32,
    depth: u8,
    /// 0 empty, 1 exact, 2 lower bound (the search failed high), 3 upper bound (failed low).
    bound: u8,
}

/// The expectiminimax player. A transposition table keeps decision nodes' values between
/// iterations and moves (flipping a1 then b1 reaches what b1 then a1 does).
#[derive(Debug)]
pub struct FlipEngine {
    nodes: u64,
    node_limit: Option<u64>,
    deadline: Option<Instant>,
    stopped: bool,
    tt: Vec<TtEntry>,
}

impl Default for FlipEngine {
    fn default() -> Self {
        FlipEngine { nodes: 0, node_limit: None, deadline: None, stopped: false, tt: vec![TtEntry::default(); TT_ENTRIES] }
    }
}

/// The table key of a decision node: the position, and the no-progress counter the rules' draw
/// reads.
fn tt_key(g: &FlipGame) -> u64 {
    let k = g.hash() ^ u64::from(g.quiet()).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    k | 1
}

/// What a search found.
#[derive(Clone, Copy, Debug)]
pub struct FlipResult {
    pub best: Option<FlipMove>,
    /// The value for the player to move, in [-1, 1].
    pub value: f32,
    /// The deepest finished iteration.
    pub depth: u32,
    pub nodes: u64,
}

impl FlipEngine {
    pub fn new() -> FlipEngine {
        FlipEngine::default()
    }

    fn out_of_budget(&mut self) -> bool {
        if self.stopped {
            return true;
        }
        if self.node_limit.is_some_and(|n| self.nodes >= n) || (self.nodes % 1024 == 0 && self.deadline.is_some_and(|d| Instant::now() >= d)) {
            self.stopped = true;
        }
        self.stopped
    }

    /// Moves in the order searched: captures by victim, then flips, then steps.
    fn ordered(g: &FlipGame) -> Vec<FlipMove> {
        let mut moves: Vec<FlipMove> = g.legal_moves().to_vec();
        let key = |m: &FlipMove| match *m {
            FlipMove::Step { to, capture: true, .. } => match g.cell(to) {
                Cell::Up(p) => -(WEIGHTS[p.kind.index()] * 10.0) as i32 - 100,
                _ => -100,
            },
            FlipMove::Flip(_) => 0,
            _ => 1,
        };
        moves.sort_by_key(key);
        moves
    }

    /// Negamax value of `g` for its player to move, searched `depth` plies within
    /// `(alpha, beta)` (fail-soft).
    pub fn search(&mut self, g: &FlipGame, depth: u32, mut alpha: f32, beta: f32) -> f32 {
        self.nodes += 1;
        match g.turn() {
            Turn::Over(o) => return o.value_for(g.to_move()),
            Turn::Chance => return self.chance(g, depth + 1, alpha, beta),
            Turn::Player(_) => {}
        }
        if depth == 0 || self.out_of_budget() {
            return evaluate(g);
        }
        let key = tt_key(g);
        let slot = (key as usize) & (TT_ENTRIES - 1);
        let e = self.tt[slot];
        if e.key == key && u32::from(e.depth) >= depth {
            match e.bound {
                1 => return e.value,
                2 if e.value >= beta => return e.value,
                3 if e.value <= alpha => return e.value,
                _ => {}
            }
        }
        let alpha_in = alpha;
        let mut best = f32::NEG_INFINITY;
        for m in FlipEngine::ordered(g) {
            let mut c = g.clone();
            c.play_unchecked(m);
            let v = match m {
                FlipMove::Flip(_) => self.chance(&c, depth, alpha, beta),
                _ => -self.search(&c, depth - 1, -beta, -alpha),
            };
            best = best.max(v);
            alpha = alpha.max(v);
            if alpha >= beta {
                break;
            }
        }
        if !self.stopped {
            let bound = if best >= beta {
                2
            } else if best <= alpha_in {
                3
            } else {
                1
            };
            self.tt[slot] = TtEntry { key, value: best, depth: depth.min(255) as u8, bound };
        }
        best
    }

    /// The value of a pending flip for the player who flipped, `depth` plies including this
    /// one, within `(alpha, beta)`: Star1.
    fn chance(&mut self, c: &FlipGame, depth: u32, alpha: f32, beta: f32) -> f32 {
        let mut outcomes = Vec::new();
        c.chance_outcomes(&mut outcomes);
        let (mut sum, mut seen) = (0.0f32, 0.0f32);
        for &(m, p) in &outcomes {
            let rest = (1.0 - seen - p).max(0.0);
            // The outcome's value v keeps the flip inside the window only if
            // sum + p v + rest * WIN > alpha and sum + p v + rest * LOSS < beta.
            // (The window handed down is clamped to the value range; the cut-offs compare with
            // the exact bounds, which may lie outside it.)
            let a = (alpha - sum - rest * WIN) / p;
            let b = (beta - sum - rest * LOSS) / p;
            let mut child = c.clone();
            child.play_unchecked(m);
            let v = -self.search(&child, depth.saturating_sub(1), -b.min(WIN), -a.max(LOSS));
            sum += p * v;
            seen += p;
            let rest = (1.0 - seen).max(0.0);
            if v <= a {
                return sum + rest * WIN;
            }
            if v >= b {
                return sum + rest * LOSS;
            }
        }
        sum
    }

    /// Iterative deepening from `g` within `limits` (depth, nodes, move time).
    pub fn think(&mut self, g: &FlipGame, limits: &Limits) -> FlipResult {
        self.nodes = 0;
        self.stopped = false;
        self.node_limit = limits.nodes;
        self.deadline = limits.hard_time().map(|t| Instant::now() + t);
        let mut result = FlipResult { best: None, value: 0.0, depth: 0, nodes: 0 };
        if !matches!(g.turn(), Turn::Player(_)) {
            return result;
        }
        let max_depth = limits.depth.unwrap_or(MAX_DEPTH).max(1);
        for depth in 1..=max_depth {
            let (mut best, mut best_v) = (None, f32::NEG_INFINITY);
            let mut alpha = f32::NEG_INFINITY;
            for m in FlipEngine::ordered(g) {
                let mut c = g.clone();
                c.play_unchecked(m);
                let v = match m {
                    FlipMove::Flip(_) => self.chance(&c, depth, alpha.max(LOSS - 1.0), WIN + 1.0),
                    _ => -self.search(&c, depth - 1, -(WIN + 1.0), -alpha.max(LOSS - 1.0)),
                };
                if v > best_v {
                    (best, best_v) = (Some(m), v);
                }
                alpha = alpha.max(v);
            }
            if self.stopped && result.best.is_some() {
                break;
            }
            result = FlipResult { best, value: best_v, depth, nodes: self.nodes };
            if self.stopped || best_v.abs() >= WIN {
                break;
            }
        }
        result.nodes = self.nodes;
        result
    }
}

impl Player<FlipGame> for FlipEngine {
    fn name(&self) -> String {
        "expectimax".into()
    }

    fn new_game(&mut self) {
        self.tt.fill(TtEntry::default());
    }

    fn choose(&mut self, game: &FlipGame, limits: &Limits, info: &mut dyn FnMut(&str)) -> Option<FlipMove> {
        let r = self.think(game, limits);
        info(&format!("info depth {} score {:.3} nodes {}", r.depth, r.value, r.nodes));
        r.best
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::flip::{FlipRules, parse_position};

    /// Plain expectiminimax to `depth` with the same leaf evaluation: what Star1 must equal.
    fn expectimax(g: &FlipGame, depth: u32) -> f32 {
        match g.turn() {
            Turn::Over(o) => return o.value_for(g.to_move()),
            Turn::Chance => unreachable!("flips are expanded where they are chosen"),
            Turn::Player(_) => {}
        }
        if depth == 0 {
            return evaluate(g);
        }
        let mut best = f32::NEG_INFINITY;
        for &m in g.legal_moves().iter() {
            let mut c = g.clone();
            c.play_unchecked(m);
            let v = if let FlipMove::Flip(_) = m {
                let mut outcomes = Vec::new();
                c.chance_outcomes(&mut outcomes);
                outcomes
                    .iter()
                    .map(|&(o, p)| {
                        let mut d = c.clone();
                        d.play_unchecked(o);
                        -p * expectimax(&d, depth - 1)
                    })
                    .sum()
            } else {
                -expectimax(&c, depth - 1)
            };
            best = best.max(v);
        }
        best
    }

    #[test]
    fn star1_finds_the_expectimax_value_with_fewer_nodes() {
        let rules = FlipRules::default();
        for (fen, depth) in [
            ("?L?c/e??W/?r??/D?t? 1 r RCPTEdwpl 5 20", 2),
            ("L2c/e1?W/1r2/D1t1 2 r P 7 30", 4),
            ("4/1?2/?3/L?2 1 r cte 0 5", 4),
        ] {
            let g = parse_position(fen, rules).unwrap();
            let want = expectimax(&g, depth);
            let mut e = FlipEngine::new();
            let got = e.search(&g, depth, f32::NEG_INFINITY, f32::INFINITY);
            assert!((got - want).abs() < 1e-4, "{fen} depth {depth}: star1 {got}, expectimax {want}");
            let r = e.think(&g, &Limits::depth(depth));
            assert!((r.value - want).abs() < 1e-4, "{fen}: root {} vs {want}", r.value);
        }
    }

    #[test]
    fn it_takes_the_last_piece() {
        // Red to move with a Rat next to Blue's last piece, an Elephant: the capture wins.
        let g = parse_position("4/4/4/Re1? 1 r T 3 30", FlipRules::default()).unwrap();
        let r = FlipEngine::new().think(&g, &Limits::depth(3));
        assert_eq!(r.best.map(|m| m.to_string()).as_deref(), Some("a1xb1"));
        assert_eq!(r.value, 1.0);
    }
}
