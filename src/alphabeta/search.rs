//! Iterative-deepening principal-variation search.
//!
//! Negamax with PVS and aspiration windows, a shared lock-free transposition table, null-move
//! pruning, reverse futility pruning and late-move reductions; move ordering by TT move,
//! captures (most valuable victim, then least valuable attacker), killers and history, with
//! bonuses for den and trap threats. A quiescence search follows captures and never stands pat
//! while an enemy piece stands next to our den (it enters next move unless taken).
//!
//! Game rules inside the tree: a den entry or the last capture wins at once; the no-capture
//! limit, the move cap and (under `repetition = draw`) a third occurrence draw; under
//! `repetition = forbidden` the third occurrence is simply not generated. Wins are scored
//! `WIN - plies`, so the shortest win and the longest loss are preferred.
//!
//! Several threads search the same root with a shared table (lazy SMP); thread 0 reports.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

use super::eval::Eval;
use super::tt::{Bound, TranspositionTable, TtEntry};
use super::{INF, SearchConfig, WIN, WIN_BOUND};
use crate::game::{Game, Turn};
use crate::jungle::movegen::{self, MAX_MOVES, MoveList};
use crate::jungle::tables::{DEN_SQUARE, NEIGHBOURS, TRAPS};
use crate::jungle::{History, JungleGame, Move, Position, Repetition, Rules, Square, Step};
use crate::player::Limits;
use crate::tb::{Tablebase, Value};

pub const MAX_PLY: usize = 96;

/// A search score as the protocol prints it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Score {
    /// Centi-units for the side to move.
    Cp(i32),
    /// A forced win (positive) or loss (negative) in this many moves of the side to move.
    Mate(i32),
}

impl Score {
    pub fn from_internal(s: i32) -> Score {
        if s >= WIN_BOUND {
            Score::Mate((WIN - s + 1) / 2)
        } else if s <= -WIN_BOUND {
            Score::Mate(-((WIN + s + 1) / 2))
        } else {
            Score::Cp(s)
        }
    }
}

impl std::fmt::Display for Score {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Score::Cp(c) => write!(f, "cp {c}"),
            Score::Mate(m) => write!(f, "mate {m}"),
        }
    }
}

/// Progress after each completed iteration.
#[derive(Clone, Debug)]
pub struct Info {
    pub depth: u32,
    pub seldepth: u32,
    pub score: Score,
    /// The raw score (internal units).
    pub value: i32,
    pub nodes: u64,
    pub time: Duration,
    pub nps: u64,
    pub hashfull: u32,
    /// Positions valued by the endgame tables.
    pub tbhits: u64,
    pub pv: Vec<Move>,
}

impl std::fmt::Display for Info {
    /// The protocol's `info` line.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "info depth {} seldepth {} score {} nodes {} nps {} time {} hashfull {}",
            self.depth,
            self.seldepth,
            self.score,
            self.nodes,
            self.nps,
            self.time.as_millis(),
            self.hashfull
        )?;
        if self.tbhits > 0 {
            write!(f, " tbhits {}", self.tbhits)?;
        }
        f.write_str(" pv")?;
        for m in &self.pv {
            write!(f, " {m}")?;
        }
        Ok(())
    }
}

/// The outcome of a search.
#[derive(Clone, Debug)]
pub struct SearchResult {
    /// `None` only when the game is already over.
    pub best: Option<Move>,
    pub value: i32,
    pub score: Score,
    pub depth: u32,
    pub nodes: u64,
    pub time: Duration,
    pub pv: Vec<Move>,
}

/// The engine: configuration, evaluation and the table that persists between searches.
pub struct Engine {
    config: SearchConfig,
    eval: Arc<Eval>,
    tt: Arc<TranspositionTable>,
    stop: Arc<AtomicBool>,
    /// Endgame tables: positions they hold are valued exactly, in the tree as at the root.
    tb: Option<Arc<Tablebase>>,
}

struct Shared<'a> {
    tb: Option<&'a Tablebase>,
    tbhits: AtomicU64,
    tt: &'a TranspositionTable,
    eval: &'a Eval,
    rules: Rules,
    config: &'a SearchConfig,
    stop: &'a AtomicBool,
    limits: &'a Limits,
    start: Instant,
    nodes: AtomicU64,
    /// The root's moves when restricted (`go searchmoves`; empty: all of them).
    root_moves: Vec<Move>,
}

impl Engine {
    pub fn new(config: &SearchConfig, eval: Eval) -> Engine {
        Engine {
            config: config.clone(),
            tt: Arc::new(TranspositionTable::new(config.hash_mb)),
            eval: Arc::new(eval),
            stop: Arc::new(AtomicBool::new(false)),
            tb: None,
        }
    }

    /// The same engine valuing the positions of `tb` exactly (the fastest win, the longest
    /// loss; within the no-capture limit's reach, see [`Tablebase::probe_game`]).
    pub fn with_tablebase(mut self, tb: Option<Arc<Tablebase>>) -> Engine {
        self.tb = tb;
        self
    }

    pub fn config(&self) -> &SearchConfig {
        &self.config
    }

    pub fn eval(&self) -> &Eval {
        &self.eval
    }

    /// A flag another thread may set to stop the search promptly.
    pub fn stop_handle(&self) -> Arc<AtomicBool> {
        self.stop.clone()
    }

    /// The same engine stopped by `stop` (a flag its owner shares with other work) instead of
    /// a flag of its own.
    pub fn with_stop(mut self, stop: Arc<AtomicBool>) -> Engine {
        self.stop = stop;
        self
    }

    /// Forgets what earlier searches learned (a new game).
    pub fn clear(&mut self) {
        match Arc::get_mut(&mut self.tt) {
            Some(tt) => tt.clear(),
            None => self.tt = Arc::new(TranspositionTable::new(self.config.hash_mb)),
        }
    }

    pub fn set_hash_mb(&mut self, mb: usize) {
        self.config.hash_mb = mb;
        self.tt = Arc::new(TranspositionTable::new(mb));
    }

    pub fn set_threads(&mut self, n: usize) {
        self.config.threads = n.max(1);
    }

    /// Replaces the evaluation (new weights or rules).
    pub fn set_eval(&mut self, eval: Eval) {
        self.eval = Arc::new(eval);
    }

    /// Searches `game`'s current position. `info` is called after each completed iteration.
    pub fn search(&mut self, game: &JungleGame, limits: &Limits, info: &mut dyn FnMut(&Info)) -> SearchResult {
        let start = Instant::now();
        // The stop flag is lowered when a search ends, not when one starts, so a stop that
        // arrives before the search gets going is still honoured.
        self.tt.new_search();
        if let Turn::Over(o) = game.turn() {
            let v = o.winner.map_or(0, |w| if w == game.side_to_move().player() { WIN } else { -WIN });
            return SearchResult { best: None, value: v, score: Score::from_internal(v), depth: 0, nodes: 0, time: start.elapsed(), pv: vec![] };
        }
        let shared = Shared {
            tt: &self.tt,
            eval: &self.eval,
            rules: *game.rules(),
            config: &self.config,
            stop: &self.stop,
            limits,
            start,
            nodes: AtomicU64::new(0),
            tb: self.tb.as_deref(),
            tbhits: AtomicU64::new(0),
            root_moves: crate::player::chosen_moves(game, &limits.searchmoves),
        };
        let threads = self.config.threads.max(1);
        let result = std::thread::scope(|scope| {
            for id in 1..threads {
                let shared = &shared;
                scope.spawn(move || {
                    let mut s = Searcher::new(shared, game, id);
                    s.iterate(&mut |_| {});
                });
            }
            let mut main = Searcher::new(&shared, game, 0);
            let r = main.iterate(info);
            shared.stop.store(true, Ordering::Relaxed);
            r
        });
        self.stop.store(false, Ordering::Relaxed);
        result
    }
}

/// Late-move reduction in plies, by depth and move number.
fn lmr_table() -> [[u8; 64]; 64] {
    let mut t = [[0u8; 64]; 64];
    for (d, row) in t.iter_mut().enumerate().skip(1) {
        for (m, r) in row.iter_mut().enumerate().skip(1) {
            *r = (0.5 + (d as f64).ln() * (m as f64).ln() / 2.2) as u8;
        }
    }
    t
}

/// Scores are stored relative to the node so that a win found at one depth reads correctly
/// when the position recurs at another.
fn to_tt(score: i32, ply: usize) -> i32 {
    if score >= WIN_BOUND {
        score + ply as i32
    } else if score <= -WIN_BOUND {
        score - ply as i32
    } else {
        score
    }
}

fn from_tt(score: i32, ply: usize) -> i32 {
    if score >= WIN_BOUND {
        score - ply as i32
    } else if score <= -WIN_BOUND {
        score + ply as i32
    } else {
        score
    }
}

struct Searcher<'a> {
    shared: &'a Shared<'a>,
    id: usize,
    root: Position,
    hist: History,
    nodes: u64,
    /// Nodes not yet added to the shared counter.
    unreported: u64,
    seldepth: usize,
    stopped: bool,
    killers: [[Option<Move>; 2]; MAX_PLY],
    /// History heuristic by piece and destination.
    history: [[i32; 64]; 16],
    pv: Box<[[Move; MAX_PLY]; MAX_PLY]>,
    pv_len: [usize; MAX_PLY],
    lmr: Box<[[u8; 64]; 64]>,
}

impl<'a> Searcher<'a> {
    fn new(shared: &'a Shared<'a>, game: &JungleGame, id: usize) -> Searcher<'a> {
        Searcher {
            shared,
            id,
            root: *game.position(),
            hist: game.history().clone(),
            nodes: 0,
            unreported: 0,
            seldepth: 0,
            stopped: false,
            killers: [[None; 2]; MAX_PLY],
            history: [[0; 64]; 16],
            pv: Box::new([[Move::default(); MAX_PLY]; MAX_PLY]),
            pv_len: [0; MAX_PLY],
            lmr: Box::new(lmr_table()),
        }
    }

    fn rules(&self) -> &Rules {
        &self.shared.rules
    }

    /// Checks the stop flag and the limits every 1024 nodes.
    #[inline]
    fn poll(&mut self) -> bool {
        if self.stopped {
            return true;
        }
        self.nodes += 1;
        self.unreported += 1;
        if self.unreported >= 1024 {
            let total = self.shared.nodes.fetch_add(self.unreported, Ordering::Relaxed) + self.unreported;
            self.unreported = 0;
            let l = self.shared.limits;
            let out_of_time = l.hard_time().is_some_and(|t| self.shared.start.elapsed() >= t);
            let out_of_nodes = l.nodes.is_some_and(|n| total >= n);
            if out_of_time || out_of_nodes {
                self.shared.stop.store(true, Ordering::Relaxed);
            }
            if self.shared.stop.load(Ordering::Relaxed) {
                self.stopped = true;
            }
        }
        self.stopped
    }

    fn total_nodes(&self) -> u64 {
        self.shared.nodes.load(Ordering::Relaxed) + self.unreported
    }

    /// Iterative deepening with aspiration windows.
    fn iterate(&mut self, info: &mut dyn FnMut(&Info)) -> SearchResult {
        let limits = self.shared.limits;
        // `go mate N`: a win in N moves lies within 2N − 1 plies.
        let mate_depth = limits.mate.map(|n| n.saturating_mul(2).saturating_sub(1));
        let max_depth = limits.depth.or(mate_depth).unwrap_or(self.shared.config.max_depth).clamp(1, (MAX_PLY - 8) as u32);
        let root = self.root;
        let mut root_moves = MoveList::new();
        movegen::legal_moves(&root, self.rules(), &self.hist, &mut root_moves);
        if !self.shared.root_moves.is_empty() {
            root_moves.retain(|m| self.shared.root_moves.contains(m));
        }
        let mut best = SearchResult {
            best: root_moves.first().copied(),
            value: 0,
            score: Score::Cp(0),
            depth: 0,
            nodes: 0,
            time: Duration::ZERO,
            pv: root_moves.first().copied().into_iter().collect(),
        };
        let mut prev: i32 = 0;
        for depth in 1..=max_depth {
            // Helper threads spread out over depths so they do not all repeat thread 0's work.
            let depth_here = if self.id > 0 && self.id % 2 == 1 { depth + 1 } else { depth };
            self.seldepth = 0;
            let mut delta = self.shared.config.aspiration_window.max(1);
            let (mut alpha, mut beta) = if depth >= 5 && prev.abs() < WIN_BOUND { (prev - delta, prev + delta) } else { (-INF, INF) };
            let value = loop {
                let v = self.negamax(&root, depth_here as i32, alpha, beta, 0, false);
                if self.stopped {
                    break v;
                }
                if v <= alpha {
                    beta = (alpha + beta) / 2;
                    alpha = (v - delta).max(-INF);
                } else if v >= beta {
                    beta = (v + delta).min(INF);
                } else {
                    break v;
                }
                delta += delta;
                if delta > 1000 {
                    (alpha, beta) = (-INF, INF);
                }
            };
            if self.stopped && depth > 1 {
                break;
            }
            prev = value;
            let pv: Vec<Move> = self.pv[0][..self.pv_len[0]].to_vec();
            let time = self.shared.start.elapsed();
            let nodes = self.total_nodes();
            if let Some(&m) = pv.first() {
                best = SearchResult { best: Some(m), value, score: Score::from_internal(value), depth, nodes, time, pv: pv.clone() };
            }
            if self.id == 0 {
                let nps = (nodes as f64 / time.as_secs_f64().max(1e-6)) as u64;
                info(&Info {
                    depth,
                    seldepth: self.seldepth as u32,
                    score: Score::from_internal(value),
                    value,
                    nodes,
                    time,
                    nps,
                    hashfull: self.shared.tt.hashfull(),
                    tbhits: self.shared.tbhits.load(Ordering::Relaxed),
                    pv,
                });
            }
            if self.stopped {
                break;
            }
            // A forced result found with a full window will not change with more depth.
            if value.abs() >= WIN_BOUND && depth as i32 >= WIN - value.abs() + 2 {
                break;
            }
            if let Some((soft, _)) = limits.clock
                && self.shared.start.elapsed() >= soft
            {
                break;
            }
        }
        self.shared.nodes.fetch_add(self.unreported, Ordering::Relaxed);
        self.unreported = 0;
        best.nodes = self.shared.nodes.load(Ordering::Relaxed);
        best.time = self.shared.start.elapsed();
        best
    }

    /// Whether the game ended in a draw with the move that led here.
    #[inline(always)]
    fn drawn(&self, pos: &Position) -> bool {
        let r = self.rules();
        (r.no_capture_plies > 0 && pos.halfmove() >= r.no_capture_plies)
            || (r.max_plies > 0 && pos.ply() >= u32::from(r.max_plies))
            || (r.repetition == Repetition::Draw && self.hist.current_reps() >= 3)
    }

    /// One of our pieces next to the enemy den (it can enter and win now).
    #[inline(always)]
    fn den_entry(pos: &Position) -> Option<Move> {
        let us = pos.side_to_move();
        let den = DEN_SQUARE[us.flip().index()] as usize;
        let attackers = NEIGHBOURS[den] & pos.occupied(us);
        (attackers != 0).then(|| Move::new(Square::new(attackers.trailing_zeros() as u8), Square::new(den as u8)))
    }

    /// An enemy piece next to our den (it enters next move unless taken).
    #[inline(always)]
    fn in_danger(pos: &Position) -> bool {
        let us = pos.side_to_move();
        NEIGHBOURS[DEN_SQUARE[us.index()] as usize] & pos.occupied(us.flip()) != 0
    }

    /// Whether the move just played (landing on `to`) ended the game in the mover's favour.
    #[inline(always)]
    fn won_by_move(child: &Position, to: Square) -> bool {
        let mover = child.side_to_move().flip();
        to.index() == DEN_SQUARE[mover.flip().index()] as usize || child.occupied(mover.flip()) == 0
    }

    fn update_pv(&mut self, ply: usize, mv: Move) {
        self.pv[ply][ply] = mv;
        let child_len = self.pv_len[ply + 1].max(ply + 1);
        for i in ply + 1..child_len {
            self.pv[ply][i] = self.pv[ply + 1][i];
        }
        self.pv_len[ply] = child_len;
    }

    /// Ordering scores for `moves` (higher first).
    fn score_moves(&self, pos: &Position, moves: &MoveList, tt_move: Option<Move>, ply: usize, out: &mut [i32; MAX_MOVES]) {
        let us = pos.side_to_move();
        let them = us.flip();
        let enemy_den = DEN_SQUARE[them.index()] as usize;
        let den_ring = NEIGHBOURS[enemy_den];
        // Enemy pieces on our traps: stepping next to one threatens to take it.
        let trapped = pos.occupied(them) & TRAPS[us.index()];
        let eval = self.shared.eval;
        for (i, &m) in moves.iter().enumerate() {
            let piece = pos.piece_at(m.from()).map_or(0, |p| p.index());
            out[i] = if Some(m) == tt_move {
                1 << 30
            } else if let Some(victim) = pos.piece_at(m.to()) {
                (1 << 28) + eval.material(victim.kind()) * 16 - (piece as i32 & 7)
            } else if Some(m) == self.killers[ply][0] {
                (1 << 27) + 1
            } else if Some(m) == self.killers[ply][1] {
                1 << 27
            } else {
                let mut s = self.history[piece][m.to().index()];
                if den_ring & m.to().bit() != 0 {
                    s += 1 << 20;
                }
                if NEIGHBOURS[m.to().index()] & trapped != 0 {
                    s += 1 << 18;
                }
                s
            };
        }
    }

    fn negamax(&mut self, pos: &Position, mut depth: i32, mut alpha: i32, mut beta: i32, ply: usize, cut: bool) -> i32 {
        self.pv_len[ply] = ply;
        if ply > 0 && self.drawn(pos) {
            return 0;
        }
        if let Some(m) = Self::den_entry(pos)
            && (ply > 0 || self.shared.root_moves.is_empty() || self.shared.root_moves.contains(&m))
        {
            if ply == 0 {
                self.pv[0][0] = m;
                self.pv_len[0] = 1;
            }
            return WIN - (ply as i32 + 1);
        }
        if ply > 0
            && let Some(v) = self.tablebase(pos, ply)
        {
            return v;
        }
        if ply >= MAX_PLY - 2 {
            return self.shared.eval.evaluate(pos);
        }
        let pv_node = beta - alpha > 1;
        let danger = Self::in_danger(pos);
        if danger {
            // Like a check: the reply is forced, so look one ply further.
            depth = depth.max(0) + 1;
        }
        if depth <= 0 {
            return self.qsearch(pos, alpha, beta, ply);
        }
        if ply > 0 {
            // Mate distance pruning.
            alpha = alpha.max(-WIN + ply as i32);
            beta = beta.min(WIN - ply as i32 - 1);
            if alpha >= beta {
                return alpha;
            }
        }
        if self.poll() {
            return 0;
        }
        self.seldepth = self.seldepth.max(ply);

        // Under the anti-chase rules the legal moves here and below depend on both sides' last
        // moves: they are part of the key, so no other path's entry answers for this one.
        let key = if self.rules().anti_chase { pos.hash() ^ self.hist.chase_key() } else { pos.hash() };
        let tt_hit = self.shared.tt.probe(key);
        let tt_move = tt_hit.and_then(|e| e.mv);
        if let Some(e) = tt_hit {
            let s = from_tt(e.score, ply);
            if !pv_node && ply > 0 && e.depth >= depth {
                let usable = match e.bound {
                    Bound::Exact => true,
                    Bound::Lower => s >= beta,
                    Bound::Upper => s <= alpha,
                    Bound::None => false,
                };
                if usable {
                    return s;
                }
            }
        }
        // Every stored entry carries the static evaluation of its position.
        let static_eval = match tt_hit {
            Some(e) => e.eval,
            None => self.shared.eval.evaluate(pos),
        };

        if !pv_node && !danger && ply > 0 && beta.abs() < WIN_BOUND {
            // Reverse futility: far above beta with little depth left.
            if depth <= 6 && static_eval - 80 * depth >= beta {
                return static_eval;
            }
            // Null move: if passing still beats beta, a real move will too. Skipped with few
            // pieces, where being forced to move can hurt (no passing in Jungle).
            if self.shared.config.null_move && depth >= 3 && static_eval >= beta && pos.count(pos.side_to_move()) >= 3 {
                let r = 3 + depth / 4 + ((static_eval - beta) / 300).min(2);
                let child = pos.null_move();
                self.hist.push(child.hash(), true, Step::NONE);
                let v = -self.negamax(&child, depth - 1 - r, -beta, -beta + 1, ply + 1, !cut);
                self.hist.pop();
                if self.stopped {
                    return 0;
                }
                if v >= beta {
                    return if v >= WIN_BOUND { beta } else { v };
                }
            }
        }

        let mut moves = MoveList::new();
        movegen::legal_moves(pos, self.rules(), &self.hist, &mut moves);
        if moves.is_empty() {
            return -(WIN - ply as i32);
        }
        if ply == 0 && !self.shared.root_moves.is_empty() {
            moves.retain(|m| self.shared.root_moves.contains(m));
        }
        let mut scores = [0i32; MAX_MOVES];
        self.score_moves(pos, &moves, tt_move, ply, &mut scores);

        let original_alpha = alpha;
        let mut best = -INF;
        let mut best_move = None;
        let mut quiets_tried = arrayvec::ArrayVec::<Move, MAX_MOVES>::new();
        let enemy_den_ring = NEIGHBOURS[DEN_SQUARE[pos.side_to_move().flip().index()] as usize];
        for i in 0..moves.len() {
            // Selection sort step: bring the best remaining move to position i.
            let mut bi = i;
            for j in i + 1..moves.len() {
                if scores[j] > scores[bi] {
                    bi = j;
                }
            }
            moves.swap(i, bi);
            scores.swap(i, bi);
            let mv = moves[i];
            let capture = pos.is_capture(mv);
            let step = crate::jungle::chase::step_of(pos, self.rules(), mv);
            let mut child = *pos;
            child.play_unchecked(mv);
            let score = if Self::won_by_move(&child, mv.to()) {
                self.pv_len[ply + 1] = ply + 1;
                WIN - (ply as i32 + 1)
            } else {
                self.hist.push(child.hash(), capture, step);
                let threat = enemy_den_ring & mv.to().bit() != 0;
                let new_depth = depth - 1;
                let v = if i == 0 {
                    -self.negamax(&child, new_depth, -beta, -alpha, ply + 1, false)
                } else {
                    let quiet_late = !capture && !threat && !danger && scores[i] < (1 << 27);
                    let mut r = 0;
                    if self.shared.config.lmr && depth >= 3 && quiet_late && i >= if pv_node { 4 } else { 2 } {
                        r = self.lmr[depth.min(63) as usize][i.min(63)] as i32;
                        if !pv_node {
                            r += 1;
                        }
                        if cut {
                            r += 1;
                        }
                        r = r.clamp(0, new_depth - 1);
                    }
                    let mut v = -self.negamax(&child, new_depth - r, -alpha - 1, -alpha, ply + 1, true);
                    if v > alpha && r > 0 {
                        v = -self.negamax(&child, new_depth, -alpha - 1, -alpha, ply + 1, !cut);
                    }
                    if v > alpha && v < beta {
                        v = -self.negamax(&child, new_depth, -beta, -alpha, ply + 1, false);
                    }
                    v
                };
                self.hist.pop();
                v
            };
            if self.stopped {
                return 0;
            }
            if score > best {
                best = score;
                if score > alpha {
                    best_move = Some(mv);
                    alpha = score;
                    self.update_pv(ply, mv);
                    if alpha >= beta {
                        if !capture {
                            self.reward_quiet(pos, mv, depth, ply, &quiets_tried);
                        }
                        break;
                    }
                }
            }
            if !capture {
                let _ = quiets_tried.try_push(mv);
            }
        }
        let bound = if best >= beta {
            Bound::Lower
        } else if best > original_alpha {
            Bound::Exact
        } else {
            Bound::Upper
        };
        self.shared.tt.store(key, TtEntry { mv: best_move.or(tt_move), score: to_tt(best, ply), eval: static_eval, depth, bound });
        best
    }

    /// Killer and history updates after a quiet move caused a cutoff.
    fn reward_quiet(&mut self, pos: &Position, mv: Move, depth: i32, ply: usize, tried: &[Move]) {
        if self.killers[ply][0] != Some(mv) {
            self.killers[ply][1] = self.killers[ply][0];
            self.killers[ply][0] = Some(mv);
        }
        let bonus = (depth * depth).min(400);
        let mut update = |m: Move, b: i32| {
            let piece = pos.piece_at(m.from()).map_or(0, |p| p.index());
            let h = &mut self.history[piece][m.to().index()];
            *h += b - *h * b.abs() / 16_384;
        };
        update(mv, bonus);
        for &m in tried {
            update(m, -bonus);
        }
    }

    /// Captures only, unless an enemy piece stands next to our den: then every move is tried
    /// (all but taking the intruder lose at once, which the child sees immediately).
    /// The tables' score of `pos` at `ply` when they hold it: a win in `d` plies is
    /// `WIN - (ply + d)`, as the tree scores a den entry.
    #[inline]
    fn tablebase(&self, pos: &Position, ply: usize) -> Option<i32> {
        let tb = self.shared.tb?;
        if (pos.count(crate::jungle::Side::Red) + pos.count(crate::jungle::Side::Blue)) as usize > tb.max_pieces() {
            return None;
        }
        let v = tb.probe_game(pos, &self.shared.rules)?;
        self.shared.tbhits.fetch_add(1, Ordering::Relaxed);
        Some(match v {
            Value::Win(d) => WIN - (ply as i32 + i32::from(d)),
            Value::Loss(d) => -WIN + ply as i32 + i32::from(d),
            Value::Draw => 0,
        })
    }

    fn qsearch(&mut self, pos: &Position, mut alpha: i32, beta: i32, ply: usize) -> i32 {
        self.pv_len[ply] = ply;
        if ply > 0 && self.drawn(pos) {
            return 0;
        }
        if Self::den_entry(pos).is_some() {
            return WIN - (ply as i32 + 1);
        }
        if let Some(v) = self.tablebase(pos, ply) {
            return v;
        }
        if self.poll() {
            return 0;
        }
        self.seldepth = self.seldepth.max(ply);
        if ply >= MAX_PLY - 2 {
            return self.shared.eval.evaluate(pos);
        }
        let danger = Self::in_danger(pos);
        let mut best = -INF;
        if !danger {
            best = self.shared.eval.evaluate(pos);
            if best >= beta {
                return best;
            }
            alpha = alpha.max(best);
        }
        let mut moves = MoveList::new();
        movegen::legal_moves(pos, self.rules(), &self.hist, &mut moves);
        if moves.is_empty() {
            return -(WIN - ply as i32);
        }
        if !danger {
            moves.retain(|m| pos.is_capture(*m));
        }
        let eval = self.shared.eval;
        let mut keyed: arrayvec::ArrayVec<(i32, Move), MAX_MOVES> = moves
            .iter()
            .map(|&m| {
                let v = pos.piece_at(m.to()).map_or(0, |p| eval.material(p.kind()));
                let a = pos.piece_at(m.from()).map_or(0, |p| p.kind() as i32);
                (v * 16 - a, m)
            })
            .collect();
        keyed.sort_unstable_by_key(|k| std::cmp::Reverse(k.0));
        for &(_, mv) in &keyed {
            let capture = pos.is_capture(mv);
            let step = crate::jungle::chase::step_of(pos, self.rules(), mv);
            let mut child = *pos;
            child.play_unchecked(mv);
            let score = if Self::won_by_move(&child, mv.to()) {
                WIN - (ply as i32 + 1)
            } else {
                self.hist.push(child.hash(), capture, step);
                let v = -self.qsearch(&child, -beta, -alpha, ply + 1);
                self.hist.pop();
                v
            };
            if self.stopped {
                return 0;
            }
            if score > best {
                best = score;
                if score > alpha {
                    alpha = score;
                    self.update_pv(ply, mv);
                    if alpha >= beta {
                        break;
                    }
                }
            }
        }
        best
    }
}

impl crate::player::Player<JungleGame> for Engine {
    fn name(&self) -> String {
        "alphabeta".into()
    }

    fn choose(&mut self, game: &JungleGame, limits: &Limits, info: &mut dyn FnMut(&str)) -> Option<Move> {
        // A root the tables hold is said after the search, in the line MCTS prints for one.
        let exact = self.tb.as_ref().filter(|_| game.outcome().is_none()).and_then(|tb| tb.probe_game(game.position(), game.rules()));
        let best = self.search(game, limits, &mut |i| info(&i.to_string())).best;
        if let Some(v) = exact {
            info(&format!("info string {}", v.describe()));
        }
        best
    }

    fn new_game(&mut self) {
        self.clear();
    }

    fn stop_handle(&self) -> Option<Arc<AtomicBool>> {
        Some(self.stop.clone())
    }

    fn takes_searchmoves(&self) -> bool {
        true
    }
}
