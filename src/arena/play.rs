//! Running a match between two player specs: openings played twice with colours swapped,
//! games in parallel, the tally updated as games finish, and an early stop when the SPRT
//! decides.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use super::adjudicate::{Adjudication, Adjudicator, info_score};
use super::clock::Clock;
use super::match_game::{MatchGame, resolve_chance};
use super::openings::{Opening, random_openings, start_game};
use super::spec::{Contestant, Contestants, PlayerError};
use super::stats::{Sprt, Tally, Verdict};
use crate::game::{Outcome, Reason, Seat, Turn};
use crate::player::{GoClock, Limits};

/// How a match is played.
#[derive(Clone, Debug)]
pub struct MatchSettings<G: MatchGame> {
    /// Games (rounded up to whole pairs).
    pub games: u32,
    /// Games played at once.
    pub concurrency: usize,
    pub opening_plies: usize,
    pub seed: u64,
    pub rules: G::Rules,
    pub sprt: Option<Sprt>,
    /// Stop the match with an error after a player forfeits this many games in a row
    /// (0: never stop).
    pub max_consecutive_forfeits: u32,
    /// Ending games on the players' evaluations (off by default).
    pub adjudication: Adjudication,
    /// How far a player on a clock may overrun it before losing on time.
    pub time_margin: Duration,
    /// Exact values (Jungle: the endgame tables, with `tablebase.adjudicate`): a game ends at
    /// its first position they know, with their result (termination `tablebase`).
    pub oracle: Option<std::sync::Arc<dyn crate::mcts::oracle::Oracle<G>>>,
}

/// The oracle's result for `g` (a player to move) as a finished game's outcome.
pub fn known_outcome<G: MatchGame>(oracle: Option<&dyn crate::mcts::oracle::Oracle<G>>, g: &G) -> Option<Outcome> {
    let Turn::Player(mover) = g.turn() else { return None };
    Some(oracle?.exact(g)?.outcome(mover))
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
pub struct PlayedGame<G: MatchGame> {
    pub pair: usize,
    /// A had the first seat (Red in Jungle).
    pub a_red: bool,
    pub opening_plies: usize,
    /// The whole game from the start position, opening (and nature's draws) included.
    pub moves: Vec<G::Move>,
    pub outcome: Outcome,
    /// A's points: 1, ½ or 0.
    pub a_points: f64,
    /// Set when the game ended by a forfeit.
    pub forfeit: Option<Forfeit>,
    /// The position the game started from, when not the start (an opening from a file).
    pub root: Option<String>,
}

impl<G: MatchGame> PlayedGame<G> {
    /// A finished game: its moves from the start and how it ended.
    pub fn new(pair: usize, a_red: bool, opening_plies: usize, moves: Vec<G::Move>, outcome: Outcome) -> PlayedGame<G> {
        let a_seat = if a_red { Seat::First } else { Seat::Second };
        let a_points = match outcome.winner {
            None => 0.5,
            Some(w) if w == a_seat => 1.0,
            Some(_) => 0.0,
        };
        PlayedGame { pair, a_red, opening_plies, moves, outcome, a_points, forfeit: None, root: None }
    }
}

/// The match so far.
#[derive(Clone, Debug)]
pub struct MatchOutcome<G: MatchGame> {
    pub tally: Tally,
    pub games: Vec<PlayedGame<G>>,
    pub verdict: Option<Verdict>,
    pub llr: Option<f64>,
    /// Distinct openings available (fewer than the pairs when the opening length is short).
    pub openings: usize,
    /// Forfeited games by cause, for A and for B.
    pub forfeits_a: std::collections::BTreeMap<String, u32>,
    pub forfeits_b: std::collections::BTreeMap<String, u32>,
}

impl<G: MatchGame> Default for MatchOutcome<G> {
    fn default() -> Self {
        MatchOutcome {
            tally: Tally::default(),
            games: Vec::new(),
            verdict: None,
            llr: None,
            openings: 0,
            forfeits_a: Default::default(),
            forfeits_b: Default::default(),
        }
    }
}

impl<G: MatchGame> MatchOutcome<G> {
    /// Records a finished game: tally, pairs, LLR and verdict; `on_game` sees it first.
    /// Returns true when the SPRT has decided and the match should stop.
    pub fn record(
        &mut self,
        book: &mut PairBook,
        game: PlayedGame<G>,
        sprt: Option<Sprt>,
        on_game: &mut impl FnMut(&PlayedGame<G>, &Tally, Option<f64>),
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
    pub fn add<G: MatchGame>(&mut self, tally: &mut Tally, game: &PlayedGame<G>) {
        tally.add_game(game.a_points);
        if let Some(first) = self.halves.remove(&game.pair) {
            tally.add_pair(first + game.a_points);
        } else {
            self.halves.insert(game.pair, game.a_points);
        }
    }
}

/// The limits for a move of a player on a clock: its own limits plus a budget from its time
/// left, and both clocks for players that read them.
fn clocked(base: &Limits, overhead: Duration, own: &Clock, other: Option<&Clock>, mover_red: bool, margin: Duration) -> Limits {
    let other = other.unwrap_or(own);
    let (red, blue) = if mover_red { (own, other) } else { (other, own) };
    let millis = |d: Duration| d.as_millis().min(u128::from(u64::MAX)) as u64;
    let budget = Limits::from_clock(millis(own.remaining), millis(own.tc.inc), own.moves_to_go(), millis(overhead));
    Limits {
        clock: budget.clock,
        go: Some(GoClock {
            wtime: red.remaining,
            btime: blue.remaining,
            winc: red.tc.inc,
            binc: blue.tc.inc,
            movestogo: own.moves_to_go(),
            deadline: own.remaining + margin,
        }),
        ..base.clone()
    }
}

/// Plays one game between two contestants from `opening`; a player that fails to produce a
/// legal move forfeits, and the game records why; a player on a clock that overruns it (by more
/// than `time_margin`) loses on time. The score of each move's last `info` line feeds the
/// adjudication, when it is on. Nature's moves follow the opening's deal.
pub fn play_game<G: MatchGame>(
    a: &mut Contestant<G>,
    b: &mut Contestant<G>,
    s: &MatchSettings<G>,
    opening: &Opening<G>,
    a_red: bool,
    pair: usize,
) -> PlayedGame<G> {
    let (rules, adjudication, time_margin) = (&s.rules, &s.adjudication, s.time_margin);
    let mut g = start_game(rules, opening);
    let mut moves = opening.moves.clone();
    a.player.new_game();
    b.player.new_game();
    let a_seat = if a_red { Seat::First } else { Seat::Second };
    let mut forfeit = None;
    let mut judge = Adjudicator::new(*adjudication);
    // A's clock and B's.
    let mut clocks = [a.tc.map(Clock::new), b.tc.map(Clock::new)];
    let outcome = loop {
        resolve_chance(&mut g, &opening.deal, &mut moves);
        if let Turn::Over(o) = g.turn() {
            break o;
        }
        if let Some(o) = known_outcome(s.oracle.as_deref(), &g) {
            break o;
        }
        let mover = g.mover();
        let i = usize::from(mover != a_seat);
        let c = if i == 0 { &mut *a } else { &mut *b };
        let limits = clocks[i].as_ref().map(|own| clocked(&c.limits, c.overhead, own, clocks[1 - i].as_ref(), mover == Seat::First, time_margin));
        let mut score = None;
        let started = Instant::now();
        let choice = c.player.choose(&g, limits.as_ref().unwrap_or(&c.limits), &mut |line| score = info_score(line).or(score));
        if let Some(clock) = &mut clocks[i]
            && !clock.charge(started.elapsed(), time_margin)
        {
            break Outcome::win(mover.other(), Reason::Time);
        }
        let cause = match choice {
            Some(m) if g.is_legal(m) => {
                g.play_unchecked(m);
                moves.push(m);
                if !matches!(g.turn(), Turn::Over(_))
                    && let Some(o) = judge.note(g.ply(), mover, score)
                {
                    break o;
                }
                continue;
            }
            Some(m) => format!("illegal move {m}"),
            None => c.player.failure().map_or_else(|| "no move".to_string(), |f| f.to_string()),
        };
        forfeit = Some(Forfeit { by_a: mover == a_seat, cause });
        break Outcome::win(mover.other(), Reason::Forfeit);
    };
    PlayedGame { forfeit, root: opening.root.as_ref().map(|r| r.0.clone()), ..PlayedGame::new(pair, a_red, opening.len(), moves, outcome) }
}

/// Why a match stopped before its end.
#[derive(Debug, thiserror::Error)]
pub enum MatchError {
    #[error("no opening could be generated")]
    NoOpening,
    #[error("player {player} ({name}) forfeited {games} games in a row (last: {cause}); the match is stopped (arena.max_consecutive_forfeits)")]
    Forfeits { player: &'static str, name: String, games: usize, cause: String },
    #[error(transparent)]
    Player(#[from] PlayerError),
}

/// Counts each player's forfeits in a row across a match's workers.
struct ForfeitWatch {
    in_a_row: [AtomicUsize; 2],
    limit: u32,
}

impl ForfeitWatch {
    /// Notes a finished game; an error when a player reached the limit.
    fn note<G: MatchGame>(&self, g: &PlayedGame<G>, names: [&str; 2]) -> Result<(), MatchError> {
        for (i, by_a) in [(0, true), (1, false)] {
            match &g.forfeit {
                Some(f) if f.by_a == by_a => {
                    let n = self.in_a_row[i].fetch_add(1, Ordering::Relaxed) + 1;
                    if self.limit > 0 && n >= self.limit as usize {
                        return Err(MatchError::Forfeits { player: if by_a { "A" } else { "B" }, name: names[i].into(), games: n, cause: f.cause.clone() });
                    }
                }
                _ => self.in_a_row[i].store(0, Ordering::Relaxed),
            }
        }
        Ok(())
    }
}

/// Plays the match. `on_game` sees every finished game with the tally so far.
pub fn run_match<G: MatchGame>(
    a: &dyn Contestants<G>,
    b: &dyn Contestants<G>,
    s: &MatchSettings<G>,
    on_game: impl FnMut(&PlayedGame<G>, &Tally, Option<f64>),
) -> Result<MatchOutcome<G>, MatchError> {
    run_match_skipping(a, b, s, None, Vec::new(), on_game)
}

/// [`run_match`] from the openings of `book` (pair N plays opening N, round and round; none:
/// random openings as `s` says) after the games of `resumed`, which an interrupted match
/// already played: they count in the tally (and the sequential test) first, without
/// `on_game`, and the rest are played exactly as they would have been (same openings, same
/// seats).
pub fn run_match_skipping<G: MatchGame>(
    a: &dyn Contestants<G>,
    b: &dyn Contestants<G>,
    s: &MatchSettings<G>,
    book: Option<&[Opening<G>]>,
    resumed: Vec<PlayedGame<G>>,
    mut on_game: impl FnMut(&PlayedGame<G>, &Tally, Option<f64>),
) -> Result<MatchOutcome<G>, MatchError> {
    let pairs = s.games.div_ceil(2).max(1) as usize;
    let openings = match book {
        Some(b) => b.to_vec(),
        None => random_openings::<G>(&s.rules, s.opening_plies, pairs, s.seed),
    };
    if openings.is_empty() {
        return Err(MatchError::NoOpening);
    }
    let done: std::collections::HashSet<(usize, bool)> = resumed.iter().map(|g| (g.pair, g.a_red)).collect();
    let mut out = MatchOutcome { openings: openings.len(), ..MatchOutcome::default() };
    let mut book = PairBook::default();
    let mut decided = false;
    for g in resumed {
        decided = out.record(&mut book, g, s.sprt, &mut |_, _, _| {});
    }
    let jobs: Vec<(usize, bool)> = (0..pairs).flat_map(|p| [(p, true), (p, false)]).filter(|j| !done.contains(j)).collect();
    if jobs.is_empty() || decided {
        return Ok(out);
    }
    let next = AtomicUsize::new(0);
    let stop = AtomicBool::new(false);
    let (tx, rx) = mpsc::channel::<Result<PlayedGame<G>, MatchError>>();
    let workers = s.concurrency.max(1).min(jobs.len());
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
                        let _ = tx.send(Err(e.into()));
                        return;
                    }
                };
                while !stop.load(Ordering::Relaxed) {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    let Some(&(pair, a_red)) = jobs.get(i) else { break };
                    let opening = &openings[pair % openings.len()];
                    let g = play_game(&mut ca, &mut cb, s, opening, a_red, pair);
                    let verdict = watch.note(&g, names);
                    // A player that failed is started anew for the next game.
                    let restart = |factory: &dyn Contestants<G>, c: &mut Contestant<G>, salt: u64| -> Result<(), MatchError> {
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::arena::clock::TimeControl;
    use crate::game::Game;
    use crate::jungle::{JungleGame, Move, Rules, Side};
    use crate::player::{Player, RandomPlayer};

    /// Sleeps, then plays the first legal move, and remembers the limits it was given.
    struct Sleeper {
        nap: Duration,
        seen: std::sync::Arc<std::sync::Mutex<Vec<Limits>>>,
    }

    impl Player<JungleGame> for Sleeper {
        fn name(&self) -> String {
            "sleeper".into()
        }

        fn choose(&mut self, game: &JungleGame, limits: &Limits, _: &mut dyn FnMut(&str)) -> Option<Move> {
            self.seen.lock().unwrap().push(limits.clone());
            std::thread::sleep(self.nap);
            game.legal_moves().first().copied()
        }
    }

    fn contestant(player: Box<dyn Player<JungleGame>>, tc: &str) -> Contestant<JungleGame> {
        Contestant { player, limits: Limits::default(), tc: Some(tc.parse::<TimeControl>().unwrap()), overhead: Duration::ZERO }
    }

    /// One game's settings: `rules`, no adjudication, `margin` past a clock.
    fn game_settings(rules: Rules, margin: Duration) -> MatchSettings<JungleGame> {
        MatchSettings {
            games: 1,
            concurrency: 1,
            opening_plies: 0,
            seed: 0,
            rules,
            sprt: None,
            max_consecutive_forfeits: 0,
            adjudication: Adjudication::default(),
            time_margin: margin,
            oracle: None,
        }
    }

    #[test]
    fn a_player_that_overruns_its_clock_loses_on_time() {
        let seen = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
        // Three 40 ms moves fit in 0.1 s + 0.01 s a move; the fourth does not.
        let mut slow = contestant(Box::new(Sleeper { nap: Duration::from_millis(40), seen: seen.clone() }), "0.1+0.01");
        let mut fast = contestant(Box::new(RandomPlayer::new(1)), "0/60");
        let g = play_game(
            &mut slow,
            &mut fast,
            &game_settings(Rules::default(), Duration::from_millis(5)),
            &Opening { deal: (), moves: vec![], root: None },
            true,
            0,
        );
        assert_eq!(g.outcome, Outcome::win(Side::Blue.player(), Reason::Time));
        assert_eq!(g.a_points, 0.0);
        assert!(g.forfeit.is_none());
        let seen = seen.lock().unwrap();
        // Three 40 ms moves fit; a loaded machine that oversleeps may lose a move sooner.
        assert!((2..=4).contains(&seen.len()), "lost after {} moves", seen.len());
        // Each move was told both clocks: Red's own (shrinking) and Blue's (a minute, minus a
        // little, plus nothing).
        let first = seen[0].go.unwrap();
        assert_eq!((first.wtime, first.winc, first.movestogo), (Duration::from_millis(100), Duration::from_millis(10), None));
        assert!(first.btime <= Duration::from_secs(60) && first.btime > Duration::from_secs(59));
        assert_eq!(first.deadline, Duration::from_millis(105));
        assert!(seen[1].go.unwrap().wtime < Duration::from_millis(80));
        assert!(seen.iter().all(|l| l.clock.is_some()));
        // The same player without a clock plays on to the end.
        let mut untimed = Contestant {
            player: Box::new(Sleeper { nap: Duration::ZERO, seen: Default::default() }),
            limits: Limits::default(),
            tc: None,
            overhead: Duration::ZERO,
        };
        let g = play_game(
            &mut untimed,
            &mut fast,
            &game_settings(Rules { max_plies: 30, ..Rules::default() }, Duration::ZERO),
            &Opening { deal: (), moves: vec![], root: None },
            false,
            0,
        );
        assert_ne!(g.outcome.reason, Reason::Time);
    }

    #[test]
    fn clocked_limits_name_red_and_blue_by_colour() {
        let own = Clock::new("40/10+0.5".parse().unwrap());
        let other = Clock { remaining: Duration::from_secs(3), ..Clock::new("0/5".parse().unwrap()) };
        let base = Limits::depth(7);
        let blue = clocked(&base, Duration::from_millis(20), &own, Some(&other), false, Duration::from_millis(50));
        let go = blue.go.unwrap();
        assert_eq!((go.wtime, go.btime, go.winc, go.binc), (Duration::from_secs(3), Duration::from_secs(10), Duration::ZERO, Duration::from_millis(500)));
        assert_eq!(go.movestogo, Some(40));
        assert_eq!(go.deadline, Duration::from_millis(10_050));
        assert_eq!(blue.depth, Some(7));
        let (soft, hard) = blue.clock.unwrap();
        assert!(soft < hard && hard < Duration::from_secs(10), "{soft:?} {hard:?}");
        let red = clocked(&base, Duration::ZERO, &own, None, true, Duration::ZERO);
        assert_eq!(red.go.unwrap().btime, Duration::from_secs(10));
    }
}
