//! Play at a chosen strength: the alpha-beta engine held to a level on the project's Elo scale
//! (alpha-beta depth 1 = 0, the ladder's anchor), by search limits and by choosing among the
//! root moves at random, weighted by their scores, instead of always the best one.
//!
//! A level is a mix of two measured ways of playing, the nearest below and above it on the
//! scale ([`POINTS`]): each move is played by the stronger one with a probability that grows
//! from 0 to 1 between them. Below 0 the ways are one-ply searches that pick move `m` with
//! probability proportional to `exp((score(m) - best) / temp)`: a move a little worse than the
//! best is often played, one that loses a piece rarely, one that loses the game almost never.
//! From 0 up they are the engine's best moves at growing depths, and last within a node budget.
//! `junglezero bench levels` measures levels against the ladder (BENCHMARKS.md, "Play at a
//! chosen strength").

use std::sync::Arc;
use std::sync::atomic::AtomicBool;

use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;

use super::Limits;
use super::search::Engine;
use crate::game::Game;
use crate::jungle::{JungleGame, Move};

/// One way of playing: a depth or node budget, and the temperature of the choice among the
/// root moves (centi-units; none: always the best move).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Play {
    pub depth: Option<u32>,
    pub nodes: Option<u64>,
    pub temp: Option<u32>,
}

const fn soft(temp: u32) -> Play {
    Play { depth: Some(1), nodes: None, temp: Some(temp) }
}

const fn depth(d: u32) -> Play {
    Play { depth: Some(d), nodes: None, temp: None }
}

/// The measured ways of playing and their Elo (alpha-beta depth 1 = 0), weakest first: all
/// the games of the calibration and of `bench levels` (the ladder's depths 1 to 8 against each
/// other, the points and mixed levels against the depths and each other, from random openings)
/// rated together; the one-ply points where the mixed levels measured them against the three
/// depths nearest (BENCHMARKS.md, "Play at a chosen strength").
pub const POINTS: &[(i32, Play)] = &[
    (-965, soft(800)),
    (-845, soft(300)),
    (-625, soft(100)),
    (-405, soft(30)),
    (-300, soft(20)),
    (-180, soft(10)),
    (-83, soft(5)),
    (0, depth(1)),
    (153, depth(2)),
    (355, depth(3)),
    (507, depth(4)),
    (608, depth(5)),
    (711, depth(6)),
    (786, depth(7)),
    (856, depth(8)),
    (1008, Play { depth: None, nodes: Some(30_000), temp: None }),
];

/// The weakest and strongest levels, in Elo.
pub const ELO_RANGE: (i32, i32) = (-950, 1000);

/// A level: the weaker and the stronger way of playing, and the share of moves the stronger
/// one plays.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Level {
    pub weaker: Play,
    pub stronger: Play,
    pub stronger_share: f64,
}

impl Level {
    /// One way of playing, every move.
    pub fn only(play: Play) -> Level {
        Level { weaker: play, stronger: play, stronger_share: 0.0 }
    }
}

/// The level at `elo` (clamped to [`ELO_RANGE`]): the measured points either side, mixed in
/// proportion to where `elo` lies between them.
pub fn for_elo(elo: i32) -> Level {
    let elo = elo.clamp(ELO_RANGE.0, ELO_RANGE.1);
    let hi = POINTS.iter().position(|p| p.0 >= elo).unwrap_or(POINTS.len() - 1).max(1);
    let ((e0, weaker), (e1, stronger)) = (POINTS[hi - 1], POINTS[hi]);
    let share = (f64::from(elo - e0) / f64::from(e1 - e0)).clamp(0.0, 1.0);
    Level { weaker, stronger, stronger_share: share }
}

/// Scores past this many centi-units count as this many: a won or lost game weighs like a
/// large material difference, so it is chosen (or avoided) almost always, never infinitely.
const SCORE_CAP: i32 = 5_000;

/// The alpha-beta engine held to a level: its own depth and node budget cap every search (a
/// `go` with a clock or move time still stops it sooner), and with a temperature it scores
/// every root move and draws one of them.
pub struct LevelPlayer {
    engine: Engine,
    level: Level,
    rng: ChaCha8Rng,
    /// What the player is called (its spec).
    name: String,
}

impl LevelPlayer {
    pub fn new(engine: Engine, level: Level, seed: u64, name: String) -> LevelPlayer {
        LevelPlayer { engine, level, rng: ChaCha8Rng::seed_from_u64(seed), name }
    }

    /// `limits` with the depth and nodes of `play` as caps.
    fn capped(play: &Play, limits: &Limits) -> Limits {
        let cap = |own: Option<u64>, asked: Option<u64>| match (own, asked) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        };
        let mut l = limits.clone();
        l.depth = cap(play.depth.map(u64::from), limits.depth.map(u64::from)).map(|d| d as u32);
        l.nodes = cap(play.nodes, limits.nodes);
        l.infinite = false;
        l.multipv = 1;
        l
    }
}

impl LevelPlayer {
    /// The move chosen in `game` (none when the game is over), its score and the depth that
    /// scored it.
    pub fn choose_scored(&mut self, game: &JungleGame, limits: &Limits) -> Option<(Move, i32, u32)> {
        let stronger = self.rng.random::<f64>() < self.level.stronger_share;
        let play = if stronger { self.level.stronger } else { self.level.weaker };
        let limits = Self::capped(&play, limits);
        let Some(temp) = play.temp else {
            let r = self.engine.search(game, &limits, &mut |_| {});
            return r.best.map(|m| (m, r.value, r.depth));
        };
        let mut moves = crate::player::chosen_moves(game, &limits.searchmoves);
        if moves.is_empty() {
            moves = game.legal_moves().to_vec();
        }
        // Each root move searched alone (the table carries what one search learns to the next).
        let mut scored = Vec::with_capacity(moves.len());
        let mut depth = u32::MAX;
        // The time asked for is shared by the root moves: each search gets what is left, and
        // once it is spent the moves not yet scored are left out.
        let start = std::time::Instant::now();
        let hard = limits.hard_time();
        for &m in &moves {
            let left = hard.map(|h| h.saturating_sub(start.elapsed()));
            if left.is_some_and(|l| l.is_zero()) && !scored.is_empty() {
                break;
            }
            let one = Limits { searchmoves: vec![m.to_string()], movetime: left.or(limits.movetime), clock: None, ..limits.clone() };
            let r = self.engine.search(game, &one, &mut |_| {});
            depth = depth.min(r.depth);
            scored.push((m, r.value));
        }
        let scores: Vec<i32> = scored.iter().map(|s| s.1).collect();
        let (m, value) = *scored.get(draw(&scores, temp, self.rng.random::<f64>()))?;
        Some((m, value, depth))
    }
}

/// Index of the move drawn with weights `exp((score - best) / temp)` (scores capped at
/// [`SCORE_CAP`]) given a uniform `u` in [0, 1).
pub fn draw(scores: &[i32], temp: u32, u: f64) -> usize {
    let capped = |s: i32| s.clamp(-SCORE_CAP, SCORE_CAP);
    let best = scores.iter().copied().map(capped).max().unwrap_or(0);
    let t = f64::from(temp.max(1));
    let weights: Vec<f64> = scores.iter().map(|&s| (f64::from(capped(s) - best) / t).exp()).collect();
    let total: f64 = weights.iter().sum();
    let mut x = u * total;
    for (i, w) in weights.iter().enumerate() {
        if x < *w {
            return i;
        }
        x -= w;
    }
    weights.len() - 1
}

impl crate::player::Player<JungleGame> for LevelPlayer {
    fn name(&self) -> String {
        self.name.clone()
    }

    fn choose(&mut self, game: &JungleGame, limits: &Limits, info: &mut dyn FnMut(&str)) -> Option<Move> {
        let (m, value, depth) = self.choose_scored(game, limits)?;
        info(&format!("info depth {depth} score {} pv {m}", super::Score::from_internal(value)));
        Some(m)
    }

    fn new_game(&mut self) {
        self.engine.clear();
    }

    fn stop_handle(&self) -> Option<Arc<AtomicBool>> {
        Some(self.engine.stop_handle())
    }

    fn takes_searchmoves(&self) -> bool {
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn levels_mix_the_measured_points_either_side() {
        for w in POINTS.windows(2) {
            assert!(w[0].0 < w[1].0, "points in order");
        }
        assert!(POINTS[0].0 <= ELO_RANGE.0 && POINTS[POINTS.len() - 1].0 >= ELO_RANGE.1);
        // A measured point is played alone: depth 1 at 0, the anchor.
        let zero = for_elo(0);
        assert_eq!((zero.stronger, zero.stronger_share), (depth(1), 1.0));
        // A quarter of the way from depth 1 to depth 2: a quarter of the moves at depth 2.
        let (d1, d2) = (POINTS[7], POINTS[8]);
        assert_eq!((d1.1, d2.1), (depth(1), depth(2)));
        let quarter = for_elo(d1.0 + (d2.0 - d1.0) / 4);
        assert_eq!((quarter.weaker, quarter.stronger), (depth(1), depth(2)));
        assert!((quarter.stronger_share - f64::from((d2.0 - d1.0) / 4) / f64::from(d2.0 - d1.0)).abs() < 1e-9);
        // Below 0, one-ply searches that run cooler as the level rises.
        assert_eq!(for_elo(-100).weaker, soft(10));
        assert_eq!(for_elo(-100).stronger, soft(5));
        // Out of range: the nearest end.
        assert_eq!(for_elo(5_000), for_elo(ELO_RANGE.1));
        assert_eq!(for_elo(-5_000), for_elo(ELO_RANGE.0));
        // The share grows with the level between two points.
        let mut last = (0, -1.0);
        for e in (ELO_RANGE.0..=ELO_RANGE.1).step_by(7) {
            let l = for_elo(e);
            let i = POINTS.iter().position(|p| p.1 == l.stronger).unwrap();
            assert!((i, l.stronger_share) >= (last.0, last.1) || i > last.0, "{e}: {l:?}");
            last = (i, l.stronger_share);
        }
    }

    #[test]
    fn the_draw_follows_the_scores() {
        // Far apart, the best always; equal, each by its share of [0, 1).
        assert_eq!(draw(&[0, 5_000, -5_000], 100, 0.999), 1);
        assert_eq!(draw(&[0, super::super::WIN - 3, -5_000], 100, 0.999), 1);
        assert_eq!(draw(&[10, 10], 50, 0.25), 0);
        assert_eq!(draw(&[10, 10], 50, 0.75), 1);
        // 100 centi-units worse at temperature 100: weight e^-1 against 1.
        let cut = 1.0 / (1.0 + (-1.0f64).exp());
        assert_eq!(draw(&[100, 0], 100, cut - 1e-9), 0);
        assert_eq!(draw(&[100, 0], 100, cut + 1e-9), 1);
    }
}
