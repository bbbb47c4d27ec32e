//! Running a match between two player specs: openings played twice with colours swapped,
//! games in parallel, the tally updated as games finish, and an early stop when the SPRT
//! decides.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::mpsc;

use super::adjudicate::{Adjudication, Adjudicator, info_score};
use super::openings::{random_openings, start_game};
use super::spec::{Contestant, PlayerFactory};
use super::stats::{Sprt, Tally, Verdict};
use crate::game::{Game, Outcome, Reason, Turn};
use crate::jungle::{JungleGame, Move, Rules, Side};

/// How a match is played.
#[derive(Clone, Debug)]
pub struct MatchSettings {
    /// Games (rounded up to whole pairs).
    pub games: u32,
    /// Games played at once.
    pub concurrency: usize,
    pub opening_plies: usize,
    pub seed: u64,
    pub rules: Rules,
    pub sprt: Option<Sprt>,
    /// Stop the match with an error after a player forfeits this many games in a row
    /// (0: never stop).
    pub max_consecutive_forfeits: u32,
    /// Ending games on the players' evaluations (off by default).
    pub adjudication: Adjudication,
}

/// A game lost by failing to move: who failed and why (`crash`, `timeout`,
/// `unreadable answer`, `illegal move a3b5`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Forfeit {
    pub by_a: bool,
    pub cause: String,
}

/// One finished game.
#[derive(Clone, Debug)]
pub struct PlayedGame {
    pub pair: usize,
    /// A played Red (moved first).
    pub a_red: bool,
    pub opening_plies: usize,
    /// The whole game from the start position, opening included.
    pub moves: Vec<Move>,
    pub outcome: Outcome,
    /// A's points: 1, ½ or 0.
    pub a_points: f64,
    /// Set when the game ended by a forfeit.
    pub forfeit: Option<Forfeit>,
}

impl PlayedGame {
    pub fn from_game(pair: usize, a_red: bool, opening_plies: usize, game: &JungleGame, outcome: Outcome) -> PlayedGame {
        let a_side = if a_red { Side::Red } else { Side::Blue };
        let a_points = match outcome.winner {
            None => 0.5,
            Some(w) if w == a_side.player() => 1.0,
            Some(_) => 0.0,
        };
        PlayedGame { pair, a_red, opening_plies, moves: game.moves().to_vec(), outcome, a_points, forfeit: None }
    }
}

/// The match so far.
#[derive(Clone, Debug, Default)]
pub struct MatchOutcome {
    pub tally: Tally,
    pub games: Vec<PlayedGame>,
    pub verdict: Option<Verdict>,
    pub llr: Option<f64>,
    /// Distinct openings available (fewer than the pairs when the opening length is short).
    pub openings: usize,
    /// Forfeited games by cause, for A and for B.
    pub forfeits_a: std::collections::BTreeMap<String, u32>,
    pub forfeits_b: std::collections::BTreeMap<String, u32>,
}

impl MatchOutcome {
    /// Records a finished game: tally, pairs, LLR and verdict; `on_game` sees it first.
    /// Returns true when the SPRT has decided and the match should stop.
    pub fn record(
        &mut self,
        book: &mut PairBook,
        game: PlayedGame,
        sprt: Option<Sprt>,
        on_game: &mut impl FnMut(&PlayedGame, &Tally, Option<f64>),
    ) -> bool {
        book.add(&mut self.tally, &game);
        if let Some(f) = &game.forfeit {
            *(if f.by_a { &mut self.forfeits_a } else { &mut self.forfeits_b }).entry(f.cause.clone()).or_default() += 1;
        }
        self.llr = sprt.map(|sp| sp.llr(&self.tally));
        on_game(&game, &self.tally, self.llr);
        self.games.push(game);
        let Some(sp) = sprt else { return false };
        let v = sp.verdict(&self.tally);
        self.verdict = Some(v);
        v != Verdict::Continue && self.tally.pairs() > 0
    }
}

/// Adds finished games to a tally, completing pairs as both of their games arrive.
#[derive(Default)]
pub struct PairBook {
    halves: std::collections::HashMap<usize, f64>,
}

impl PairBook {
    pub fn add(&mut self, tally: &mut Tally, game: &PlayedGame) {
        tally.add_game(game.a_points);
        if let Some(first) = self.halves.remove(&game.pair) {
            tally.add_pair(first + game.a_points);
        } else {
            self.halves.insert(game.pair, game.a_points);
        }
    }
}

/// Plays one game between two contestants from `opening`; a player that fails to produce a
/// legal move forfeits, and the game records why. The score of each move's last `info` line
/// feeds the adjudication, when it is on.
pub fn play_game(a: &mut Contestant, b: &mut Contestant, rules: &Rules, opening: &[Move], a_red: bool, pair: usize, adjudication: &Adjudication) -> PlayedGame {
    let mut g = start_game(rules, opening);
    a.player.new_game();
    b.player.new_game();
    let a_side = if a_red { Side::Red } else { Side::Blue };
    let mut forfeit = None;
    let mut judge = Adjudicator::new(*adjudication);
    let outcome = loop {
        if let Turn::Over(o) = g.turn() {
            break o;
        }
        let mover = g.side_to_move();
        let c = if mover == a_side { &mut *a } else { &mut *b };
        let mut score = None;
        let cause = match c.player.choose(&g, &c.limits, &mut |line| score = info_score(line).or(score)) {
            Some(m) if g.is_legal(m) => {
                g.play_move_unchecked(m);
                if !matches!(g.turn(), Turn::Over(_)) {
                    if let Some(o) = judge.note(g.position().ply(), mover.player(), score) {
                        break o;
                    }
                }
                continue;
            }
            Some(m) => format!("illegal move {m}"),
            None => c.player.failure().map_or_else(|| "no move".to_string(), |f| f.to_string()),
        };
        forfeit = Some(Forfeit { by_a: mover == a_side, cause });
        break Outcome::win(mover.flip().player(), Reason::Forfeit);
    };
    PlayedGame { forfeit, ..PlayedGame::from_game(pair, a_red, opening.len(), &g, outcome) }
}

/// Counts each player's forfeits in a row across a match's workers.
struct ForfeitWatch {
    in_a_row: [AtomicUsize; 2],
    limit: u32,
}

impl ForfeitWatch {
    /// Notes a finished game; an error when a player reached the limit.
    fn note(&self, g: &PlayedGame, names: [&str; 2]) -> Result<(), String> {
        for (i, by_a) in [(0, true), (1, false)] {
            match &g.forfeit {
                Some(f) if f.by_a == by_a => {
                    let n = self.in_a_row[i].fetch_add(1, Ordering::Relaxed) + 1;
                    if self.limit > 0 && n >= self.limit as usize {
                        return Err(format!(
                            "player {} ({}) forfeited {n} games in a row (last: {}); the match is stopped (arena.max_consecutive_forfeits)",
                            if by_a { "A" } else { "B" },
                            names[i],
                            f.cause
                        ));
                    }
                }
                _ => self.in_a_row[i].store(0, Ordering::Relaxed),
            }
        }
        Ok(())
    }
}

/// Plays the match. `on_game` sees every finished game with the tally so far.
pub fn run_match(
    a: &PlayerFactory,
    b: &PlayerFactory,
    s: &MatchSettings,
    mut on_game: impl FnMut(&PlayedGame, &Tally, Option<f64>),
) -> Result<MatchOutcome, String> {
    let pairs = s.games.div_ceil(2).max(1) as usize;
    let openings = random_openings(&s.rules, s.opening_plies, pairs, s.seed);
    if openings.is_empty() {
        return Err("no opening could be generated".into());
    }
    let jobs: Vec<(usize, bool)> = (0..pairs).flat_map(|p| [(p, true), (p, false)]).collect();
    let next = AtomicUsize::new(0);
    let stop = AtomicBool::new(false);
    let (tx, rx) = mpsc::channel::<Result<PlayedGame, String>>();
    let workers = s.concurrency.max(1).min(jobs.len());
    let mut out = MatchOutcome { openings: openings.len(), ..MatchOutcome::default() };
    let mut book = PairBook::default();
    let watch = ForfeitWatch { in_a_row: [AtomicUsize::new(0), AtomicUsize::new(0)], limit: s.max_consecutive_forfeits };
    let (name_a, name_b) = (a.name(), b.name());
    std::thread::scope(|scope| {
        for w in 0..workers {
            let tx = tx.clone();
            let (next, stop, jobs, openings, watch) = (&next, &stop, &jobs, &openings, &watch);
            let names = [name_a.as_str(), name_b.as_str()];
            scope.spawn(move || {
                let seed = s.seed ^ (w as u64 + 1).wrapping_mul(0x9E37_79B9_7F4A_7C15);
                let (mut ca, mut cb) = match (a.make(seed), b.make(seed ^ 1)) {
                    (Ok(x), Ok(y)) => (x, y),
                    (Err(e), _) | (_, Err(e)) => {
                        let _ = tx.send(Err(e));
                        return;
                    }
                };
                while !stop.load(Ordering::Relaxed) {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    let Some(&(pair, a_red)) = jobs.get(i) else { break };
                    let opening = &openings[pair % openings.len()];
                    let g = play_game(&mut ca, &mut cb, &s.rules, opening, a_red, pair, &s.adjudication);
                    let verdict = watch.note(&g, names);
                    // A player that failed is started anew for the next game.
                    let restart = |factory: &PlayerFactory, c: &mut Contestant, salt: u64| -> Result<(), String> {
                        if c.player.failure().is_some() {
                            *c = factory.make(seed ^ salt ^ (i as u64) << 1)?;
                        }
                        Ok(())
                    };
                    let restarted = restart(a, &mut ca, 0).and_then(|_| restart(b, &mut cb, 1));
                    if tx.send(Ok(g)).is_err() {
                        break;
                    }
                    if let Err(e) = verdict.and(restarted) {
                        let _ = tx.send(Err(e));
                        break;
                    }
                }
            });
        }
        drop(tx);
        let mut error = None;
        for r in rx {
            match r {
                Ok(g) => {
                    if out.record(&mut book, g, s.sprt, &mut on_game) {
                        stop.store(true, Ordering::Relaxed);
                    }
                }
                Err(e) => {
                    stop.store(true, Ordering::Relaxed);
                    error.get_or_insert(e);
                }
            }
        }
        match error {
            Some(e) => Err(e),
            None => Ok(()),
        }
    })?;
    out.games.sort_by_key(|g| (g.pair, !g.a_red));
    Ok(out)
}
