//! The alpha-beta engine as the MCTS players' root check (`mcts.play_tactics` plies): a forced
//! den entry within its horizon is played at once, and root moves after which the opponent
//! forces one are proven lost before the tree search starts. Only forced results are used:
//! the engine's pruning keeps mate scores exact (null moves and futility never return one, and
//! quiescence searches every move when a den entry is threatened).

use std::sync::Mutex;
use std::time::{Duration, Instant};

use crate::alphabeta::search::Score;
use crate::alphabeta::{Engine, Eval, SearchConfig};
use crate::game::{Game, Turn};
use crate::jungle::{JungleGame, Move};
use crate::mcts::tactics::{Tactics, Verdict};
use crate::player::Limits;

/// The transposition table of the check (MiB): it searches a few thousand positions a move.
const HASH_MB: usize = 4;

pub struct AlphaBetaTactics {
    engine: Mutex<Engine>,
    plies: u32,
}

impl AlphaBetaTactics {
    /// The check a player with `mcts.play_tactics = plies` gets: none at 0.
    pub fn for_players(search: &SearchConfig, eval: Eval, plies: u32) -> Option<std::sync::Arc<dyn Tactics<JungleGame>>> {
        (plies > 0).then(|| std::sync::Arc::new(AlphaBetaTactics::new(search, eval, plies)) as std::sync::Arc<dyn Tactics<JungleGame>>)
    }

    /// A check `plies` deep (at least 2: the root's moves and the replies) with `eval`.
    pub fn new(search: &SearchConfig, eval: Eval, plies: u32) -> AlphaBetaTactics {
        let config = SearchConfig { hash_mb: HASH_MB, threads: 1, ..search.clone() };
        AlphaBetaTactics { engine: Mutex::new(Engine::new(&config, eval)), plies: plies.max(2) }
    }
}

/// Plies to the end for the side to move from a score: a win in `m` moves takes 2m − 1 plies,
/// a loss in `m` moves 2m.
fn forced(score: Score) -> Option<(bool, u32)> {
    match score {
        Score::Mate(m) if m > 0 => Some((true, 2 * m as u32 - 1)),
        Score::Mate(m) if m < 0 => Some((false, 2 * m.unsigned_abs())),
        _ => None,
    }
}

impl Tactics<JungleGame> for AlphaBetaTactics {
    fn check(&self, root: &JungleGame, time: Option<Duration>) -> Verdict<Move> {
        let start = Instant::now();
        let mut verdict = Verdict::default();
        if !matches!(root.turn(), Turn::Player(_)) {
            return verdict;
        }
        let mut engine = self.engine.lock().unwrap_or_else(|e| e.into_inner());
        let left = || time.map(|t| t.saturating_sub(start.elapsed()));
        let limits = |depth: u32, movetime: Option<Duration>| Limits { depth: Some(depth), movetime, ..Limits::default() };
        let r = engine.search(root, &limits(self.plies, left()), &mut |_| {});
        verdict.nodes += r.nodes;
        if r.depth > 0
            && let (Some((true, plies)), Some(best)) = (forced(r.score), r.best)
        {
            verdict.win = Some((best, plies));
            return verdict;
        }
        // Each move, searched a ply less deep from the reply's side.
        for &mv in root.legal_moves().iter() {
            let movetime = left();
            if movetime == Some(Duration::ZERO) {
                break;
            }
            let mut child = root.clone();
            child.play_unchecked(mv);
            if !matches!(child.turn(), Turn::Player(_)) {
                continue;
            }
            let r = engine.search(&child, &limits(self.plies - 1, movetime), &mut |_| {});
            verdict.nodes += r.nodes;
            match forced(r.score).filter(|_| r.depth > 0) {
                Some((true, plies)) => verdict.lost.push((mv, plies + 1)),
                Some((false, plies)) if verdict.win.is_none() => verdict.win = Some((mv, plies + 1)),
                _ => {}
            }
        }
        if verdict.win.is_some() {
            verdict.lost.clear();
        }
        verdict
    }

    fn describe(&self) -> String {
        format!("alpha-beta check {} plies", self.plies)
    }
}
