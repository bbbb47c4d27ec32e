//! The flip game's classical engine: expectiminimax with alpha-beta at the players' choices and
//! Star2 pruning at the flips (Ballard 1983; Hauk, Buro & Schaeffer 2004). A flip's outcomes are
//! first *probed*: each outcome's position is searched through its first move only, with a null
//! window, which bounds what that outcome can be worth to the flipper from above; if the bounds
//! together keep the flip at or below what the flipper already has, the flip is cut off after
//! the probes. Otherwise the outcomes are searched one by one (Star1) with a window narrowed by
//! the outcomes seen so far and the bounds of the rest, and the flip is cut as soon as its value
//! can no longer enter the window. A transposition table keeps decision and chance nodes'
//! values and the best move between iterations and moves. Iterative deepening; one ply is one
//! decision (a flip and what it reveals count as one).
//!
//! The evaluation is material in (-1, 1): each side's pieces by animal, face-down ones counted
//! at a discount since they cannot act yet, through `tanh`. It is the anchor of the flip
//! ladder, as alpha-beta depth 1 is for the big game.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

use crate::flip::{Cell, FlipGame, FlipMove, Piece, Square};
use crate::game::{Game, Turn};
use crate::player::{Limits, Player};

mod openings;
mod symmetry;

use openings::OPENING_HIDDEN;
pub use openings::OpeningCache;
use symmetry::{automorphisms, redundant};

/// Value bounds: a loss and a win.
const LOSS: f32 = -1.0;
const WIN: f32 = 1.0;
/// The width of a probe's null window.
const NULL: f32 = 1e-5;
/// Material by animal, Rat … Elephant (the Rat is worth more than its rank: it takes the
/// Elephant).
const WEIGHTS: [f32; 8] = [3.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0];
/// A face-down piece's share of its animal's weight.
const HIDDEN_SHARE: f32 = 0.7;
/// Material difference that maps to tanh(1).
const SCALE: f32 = 10.0;
/// Deepest iteration when no depth is given.
const MAX_DEPTH: u32 = 64;
/// The most outcomes a flip has: one per kind of piece.
const MAX_OUTCOMES: usize = 16;
/// The most moves a decision has.
const MAX_MOVES: usize = <FlipGame as Game>::MAX_MOVES;

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

/// Transposition-table entries (a power of two; 24 bytes each).
const TT_ENTRIES: usize = 1 << 20;

/// What the table knows about a position searched to some depth.
#[derive(Clone, Copy, Debug, Default)]
struct TtEntry {
    key: u64,
    value: f32,
    depth: u8,
    /// 0 empty, 1 exact, 2 lower bound (the search failed high), 3 upper bound (failed low).
    bound: u8,
    /// The best move found at a decision node, searched first next time.
    best: Option<FlipMove>,
}

impl TtEntry {
    /// The stored value when it decides a search of `depth` within `(alpha, beta)`.
    fn cut(&self, depth: u32, alpha: f32, beta: f32) -> Option<f32> {
        let decides = match self.bound {
            EXACT => true,
            LOWER => self.value >= beta,
            UPPER => self.value <= alpha,
            _ => false,
        };
        (decides && u32::from(self.depth) >= depth).then_some(self.value)
    }
}

/// Face-down squares on the board.
fn hidden_squares(g: &FlipGame) -> usize {
    Square::all().filter(|&s| g.cell(s) == Cell::Hidden).count()
}

const EXACT: u8 = 1;
const LOWER: u8 = 2;
const UPPER: u8 = 3;

/// The expectiminimax player. A transposition table keeps values between iterations and moves
/// (flipping a1 then b1 reaches what b1 then a1 does).
#[derive(Debug)]
pub struct FlipEngine {
    cache: Option<Arc<OpeningCache>>,
    nodes: u64,
    node_limit: Option<u64>,
    deadline: Option<Instant>,
    stopped: bool,
    /// Raised from outside (`stop`, the end of input, the page's stop button): the search ends
    /// within a thousand nodes and answers its last finished iteration's move.
    stop: Arc<AtomicBool>,
    tt: Vec<TtEntry>,
    /// Reused by every chance node for the game's list of outcomes.
    scratch: Vec<(FlipMove, f32)>,
}

impl Default for FlipEngine {
    fn default() -> Self {
        FlipEngine {
            cache: None,
            nodes: 0,
            node_limit: None,
            deadline: None,
            stopped: false,
            stop: Arc::new(AtomicBool::new(false)),
            tt: vec![TtEntry::default(); TT_ENTRIES],
            scratch: Vec::with_capacity(MAX_OUTCOMES),
        }
    }
}

/// The table key of a node: the position (a pending flip included), and the no-progress
/// counter the rules' draw reads.
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

/// A decision node's moves in the order searched, on the stack.
struct Ordered {
    moves: [FlipMove; MAX_MOVES],
    len: usize,
}

impl Ordered {
    fn as_slice(&self) -> &[FlipMove] {
        &self.moves[..self.len]
    }
}

impl FlipEngine {
    pub fn new() -> FlipEngine {
        FlipEngine::default()
    }

    /// An engine whose searches end when `stop` is raised (see [`Player::stop_handle`]).
    pub fn with_stop(stop: Arc<AtomicBool>) -> FlipEngine {
        FlipEngine { stop, ..FlipEngine::default() }
    }

    /// An engine that shares finished opening searches through `cache`.
    pub fn with_cache(cache: Arc<OpeningCache>) -> FlipEngine {
        FlipEngine { cache: Some(cache), ..FlipEngine::default() }
    }

    fn out_of_budget(&mut self) -> bool {
        if self.stopped {
            return true;
        }
        if self.node_limit.is_some_and(|n| self.nodes >= n)
            || (self.nodes.is_multiple_of(1024) && (self.stop.load(Ordering::Relaxed) || self.deadline.is_some_and(|d| Instant::now() >= d)))
        {
            self.stopped = true;
        }
        self.stopped
    }

    fn probe_tt(&self, key: u64) -> TtEntry {
        let e = self.tt[(key as usize) & (TT_ENTRIES - 1)];
        if e.key == key { e } else { TtEntry::default() }
    }

    fn store(&mut self, key: u64, value: f32, depth: u32, bound: u8, best: Option<FlipMove>) {
        if !self.stopped {
            self.tt[(key as usize) & (TT_ENTRIES - 1)] = TtEntry { key, value, depth: depth.min(255) as u8, bound, best };
        }
    }

    /// Moves in the order searched: the table's best move, captures by victim, then flips,
    /// then steps.
    fn ordered(g: &FlipGame, first: Option<FlipMove>) -> Ordered {
        let list = g.legal_moves();
        let mut o = Ordered { moves: [FlipMove::Pass; MAX_MOVES], len: list.len() };
        o.moves[..list.len()].copy_from_slice(&list);
        let key = |m: &FlipMove| {
            if Some(*m) == first {
                return i32::MIN;
            }
            match *m {
                FlipMove::Step { to, capture: true, .. } => match g.cell(to) {
                    Cell::Up(p) => -(WEIGHTS[p.kind.index()] * 10.0) as i32 - 100,
                    _ => -100,
                },
                FlipMove::Flip(_) => 0,
                _ => 1,
            }
        };
        o.moves[..o.len].sort_unstable_by_key(key);
        o
    }

    /// The value of `m` for the player to move at `g`, searched `depth` plies within
    /// `(alpha, beta)`.
    fn move_value(&mut self, g: &FlipGame, m: FlipMove, depth: u32, alpha: f32, beta: f32) -> f32 {
        let mut c = g.clone();
        c.play_unchecked(m);
        match m {
            FlipMove::Flip(_) => self.chance(&c, depth, alpha, beta),
            _ => -self.search(&c, depth - 1, -beta, -alpha),
        }
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
        let e = self.probe_tt(key);
        if let Some(v) = e.cut(depth, alpha, beta) {
            return v;
        }
        let alpha_in = alpha;
        let (mut best, mut best_move) = (f32::NEG_INFINITY, None);
        let moves = FlipEngine::ordered(g, e.best);
        // Near the horizon many flips are interchangeable. One ply from it every flip is: what
        // appears is drawn from the same pool whichever square is turned (under `own_half`, the
        // pool of the square's half), the evaluation does not see squares, and with another
        // face-down square left the reply always exists. Two plies from it, so is every flip of
        // a square whose neighbours are all face down: the piece it shows can neither move nor
        // be taken before the horizon, and the replies are the same whichever it was. Each kind
        // of interchangeable flip is searched once (a value that failed low stays below the
        // rising alpha, so reusing it decides the same).
        let hidden = hidden_squares(g);
        let frontier = (depth == 1 && hidden >= 2) || (depth == 2 && hidden >= 3);
        let mut flips: [Option<f32>; 3] = [None; 3];
        let autos = if depth >= 2 { automorphisms(g) } else { 0 };
        for &m in moves.as_slice() {
            if redundant(m, autos) {
                continue;
            }
            let v = match m {
                FlipMove::Flip(s) if frontier && (depth == 1 || s.neighbours().all(|n| g.cell(n) == Cell::Hidden)) => {
                    let kind = g.hidden_colour(s).map_or(0, |c| 1 + c.index());
                    match flips[kind] {
                        Some(v) => v,
                        None => {
                            let v = self.move_value(g, m, depth, alpha, beta);
                            flips[kind] = Some(v);
                            v
                        }
                    }
                }
                _ => self.move_value(g, m, depth, alpha, beta),
            };
            if v > best {
                (best, best_move) = (v, Some(m));
            }
            alpha = alpha.max(v);
            if alpha >= beta {
                break;
            }
        }
        let bound = if best >= beta {
            LOWER
        } else if best <= alpha_in {
            UPPER
        } else {
            EXACT
        };
        self.store(key, best, depth, bound, best_move);
        best
    }

    /// A lower bound on the value of decision node `g` for its player to move, from its first
    /// move alone searched `depth` plies with a null window at `need`: `Some` when that move is
    /// worth at least `need` (or the value is known exactly), `None` when it is not.
    fn probe(&mut self, g: &FlipGame, depth: u32, need: f32) -> Option<f32> {
        match g.turn() {
            Turn::Over(o) => return Some(o.value_for(g.to_move())),
            Turn::Chance => return None,
            Turn::Player(_) => {}
        }
        if depth == 0 {
            self.nodes += 1;
            return Some(evaluate(g));
        }
        let key = tt_key(g);
        let e = self.probe_tt(key);
        if u32::from(e.depth) >= depth && (e.bound == EXACT || (e.bound == LOWER && e.value >= need)) {
            return Some(e.value);
        }
        let moves = FlipEngine::ordered(g, e.best);
        let &m = moves.as_slice().first()?;
        let v = self.move_value(g, m, depth, need - NULL, need);
        (v >= need && !self.stopped).then_some(v)
    }

    /// The value of a pending flip for the player who flipped, `depth` plies including this
    /// one, within `(alpha, beta)`: Star2 (probes, then Star1 with the probes' bounds).
    fn chance(&mut self, c: &FlipGame, depth: u32, alpha: f32, beta: f32) -> f32 {
        self.nodes += 1;
        let key = tt_key(c);
        let e = self.probe_tt(key);
        if let Some(v) = e.cut(depth, alpha, beta) {
            return v;
        }
        c.chance_outcomes(&mut self.scratch);
        let n = self.scratch.len().min(MAX_OUTCOMES);
        let mut outcomes = [(FlipMove::Pass, 0.0f32); MAX_OUTCOMES];
        outcomes[..n].copy_from_slice(&self.scratch[..n]);
        let outcomes = &outcomes[..n];
        // Upper bounds on each outcome's value for the flipper.
        let mut upper = [WIN; MAX_OUTCOMES];
        let child_depth = depth.saturating_sub(1);
        if child_depth >= 1 && alpha > LOSS && alpha < WIN {
            // Star2's probes: each outcome must come out at or below alpha, with the slack the
            // earlier ones left; the first that does not ends the probing.
            let (mut done, mut mass) = (0.0f32, 0.0f32);
            let mut all = true;
            for (i, &(m, p)) in outcomes.iter().enumerate() {
                let rest = (1.0 - mass - p).max(0.0);
                let target = (alpha - done - rest * alpha) / p;
                if target >= WIN {
                    // The earlier outcomes left slack enough: this one cannot spoil the cut.
                    done += p * WIN;
                    mass += p;
                    continue;
                }
                if target < LOSS {
                    all = false;
                    break;
                }
                let mut child = c.clone();
                child.play_unchecked(m);
                match self.probe(&child, child_depth, -target) {
                    Some(lower) => upper[i] = (-lower).min(WIN),
                    None => {
                        all = false;
                        break;
                    }
                }
                if self.stopped {
                    return evaluate(c);
                }
                done += p * upper[i];
                mass += p;
                if upper[i] > target {
                    all = false;
                    break;
                }
            }
            if all && done <= alpha {
                self.store(key, done, depth, UPPER, None);
                return done;
            }
        }
        // Star1 with the probes' bounds.
        let mut rest_upper: f32 = outcomes.iter().zip(&upper).map(|(&(_, p), &u)| p * u).sum();
        let (mut sum, mut seen) = (0.0f32, 0.0f32);
        for (i, &(m, p)) in outcomes.iter().enumerate() {
            rest_upper -= p * upper[i];
            let rest = (1.0 - seen - p).max(0.0);
            // The outcome's value v keeps the flip inside the window only if
            // sum + p v + rest_upper > alpha and sum + p v + rest * LOSS < beta.
            // (The window handed down is clamped to the value range; the cut-offs compare with
            // the exact bounds, which may lie outside it.)
            let a = (alpha - sum - rest_upper) / p;
            let b = (beta - sum - rest * LOSS) / p;
            let mut child = c.clone();
            child.play_unchecked(m);
            let v = -self.search(&child, child_depth, -b.min(WIN), -a.max(LOSS));
            sum += p * v;
            seen += p;
            if v <= a {
                let value = sum + rest_upper;
                self.store(key, value, depth, UPPER, None);
                return value;
            }
            if v >= b {
                let value = sum + (1.0 - seen).max(0.0) * LOSS;
                self.store(key, value, depth, LOWER, None);
                return value;
            }
        }
        self.store(key, sum, depth, EXACT, None);
        sum
    }

    /// Iterative deepening from `g` within `limits` (depth, nodes, move time).
    pub fn think(&mut self, g: &FlipGame, limits: &Limits) -> FlipResult {
        let cacheable = limits.nodes.is_none() && limits.hard_time().is_none() && limits.depth.is_some() && hidden_squares(g) >= OPENING_HIDDEN;
        // Only a cacheable search of an engine with a cache hashes its position for the cache.
        let key = (cacheable && self.cache.is_some()).then(|| OpeningCache::key(g, limits.depth.unwrap_or(0)));
        if let (Some(cache), Some(key)) = (self.cache.as_ref(), key)
            && let Some(r) = cache.results.lock().ok().and_then(|m| m.get(&key).copied())
        {
            return FlipResult { nodes: 0, ..r };
        }
        let r = self.deepen(g, limits);
        if let (Some(cache), Some(key)) = (self.cache.as_ref(), key)
            && !self.stopped
            && let Ok(mut m) = cache.results.lock()
        {
            m.insert(key, r);
        }
        r
    }

    fn deepen(&mut self, g: &FlipGame, limits: &Limits) -> FlipResult {
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
            let moves = FlipEngine::ordered(g, result.best);
            let autos = automorphisms(g);
            for &m in moves.as_slice() {
                if redundant(m, autos) {
                    continue;
                }
                let v = self.move_value(g, m, depth, alpha.max(LOSS - 1.0), WIN + 1.0);
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

    fn stop_handle(&self) -> Option<Arc<AtomicBool>> {
        Some(self.stop.clone())
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

    /// Plain expectiminimax to `depth` with the same leaf evaluation: what Star2 must equal.
    /// `nodes` counts the positions it visits.
    fn expectimax(g: &FlipGame, depth: u32, nodes: &mut u64) -> f32 {
        *nodes += 1;
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
                        -p * expectimax(&d, depth - 1, nodes)
                    })
                    .sum()
            } else {
                -expectimax(&c, depth - 1, nodes)
            };
            best = best.max(v);
        }
        best
    }

    #[test]
    fn star2_finds_the_expectimax_value_with_fewer_nodes() {
        let rules = FlipRules::default();
        for (fen, depth) in [
            ("?L?c/e??W/?r??/D?t? 1 r RCPTEdwpl 5 20", 2),
            ("?L?c/e??W/?r??/D?t? 1 r RCPTEdwpl 5 20", 3),
            ("L2c/e1?W/1r2/D1t1 2 r P 7 30", 4),
            ("4/1?2/?3/L?2 1 r cte 0 5", 4),
            ("????/????/????/???? 1 - RCDWPTLErcdwptle 0 0", 2),
            ("????/????/????/???? 1 - RCDWPTLErcdwptle 0 0", 3),
            ("????/??e?/?L??/???? 1 r RCDWPTErcdwptl 0 2", 3),
            ("?L??/????/??e?/r??? 2 r RCDWPTEcdwptl 0 3", 3),
        ] {
            let g = parse_position(fen, rules).unwrap();
            let mut plain = 0;
            let want = expectimax(&g, depth, &mut plain);
            let mut e = FlipEngine::new();
            let got = e.search(&g, depth, f32::NEG_INFINITY, f32::INFINITY);
            assert!((got - want).abs() < 1e-4, "{fen} depth {depth}: star2 {got}, expectimax {want}");
            // Pruning must pay at these depths (the fresh table holds nothing yet).
            assert!(e.nodes < plain, "{fen} depth {depth}: {} nodes against plain expectimax's {plain}", e.nodes);
            let r = FlipEngine::new().think(&g, &Limits::depth(depth));
            assert!((r.value - want).abs() < 1e-4, "{fen}: root {} vs {want}", r.value);
        }
        // Under `own_half` a flip's pool depends on the square's half: the shortcuts must
        // keep the halves apart.
        let own = FlipRules { setup: crate::flip::Setup::OwnHalf, ..FlipRules::default() };
        let g = parse_position("????/????/????/???? 1 - RCDWPTLErcdwptle 0 0", own).unwrap();
        let g = {
            let mut g = g;
            g.play(FlipMove::Flip(Square::parse("b2").unwrap())).unwrap();
            g.play(FlipMove::Reveal(Square::parse("b2").unwrap(), Piece::from_letter('L').unwrap())).unwrap();
            g
        };
        let mut plain = 0;
        let want = expectimax(&g, 3, &mut plain);
        let r = FlipEngine::new().think(&g, &Limits::depth(3));
        assert!((r.value - want).abs() < 1e-4, "own_half: {} vs {want}", r.value);
    }

    #[test]
    fn the_opening_cache_returns_the_search_s_own_result() {
        let start = "????/????/????/???? 1 - RCDWPTLErcdwptle 0 0";
        let g = parse_position(start, FlipRules::default()).unwrap();
        let cache = Arc::new(OpeningCache::default());
        let a = FlipEngine::with_cache(cache.clone()).think(&g, &Limits::depth(3));
        assert!(a.nodes > 0);
        assert_eq!(cache.len(), 1);
        let b = FlipEngine::with_cache(cache.clone()).think(&g, &Limits::depth(3));
        assert_eq!((b.nodes, b.best, b.value, b.depth), (0, a.best, a.value, a.depth), "a cached search");
        // Other rules, another depth, or a clock: searched, not answered from the cache.
        let dog = parse_position(start, FlipRules { dog_over_wolf: true, ..FlipRules::default() }).unwrap();
        assert!(FlipEngine::with_cache(cache.clone()).think(&dog, &Limits::depth(3)).nodes > 0);
        assert!(FlipEngine::with_cache(cache.clone()).think(&g, &Limits::depth(2)).nodes > 0);
        assert_eq!(cache.len(), 3);
        let timed = Limits { depth: Some(3), movetime: Some(std::time::Duration::from_secs(5)), ..Limits::default() };
        assert!(FlipEngine::with_cache(cache.clone()).think(&g, &timed).nodes > 0);
        assert_eq!(cache.len(), 3, "a timed search is not cached");
        // The middle game is not cached: its searches are cheap.
        let mid = parse_position("4/1?2/?3/L?2 1 r cte 0 5", FlipRules::default()).unwrap();
        FlipEngine::with_cache(cache.clone()).think(&mid, &Limits::depth(3));
        assert_eq!(cache.len(), 3);
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
