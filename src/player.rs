//! Anything that picks moves: the alpha-beta engine, MCTS with a network, a random mover, an
//! external program. The protocol, terminal play and the arena drive them all through
//! [`Player`].

use std::sync::Arc;
use std::sync::atomic::AtomicBool;
use std::time::Duration;

use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;

use crate::game::Game;

/// When to stop searching. Unset limits do not apply; with none set, search runs to
/// `max_depth` (or until stopped).
#[derive(Clone, Debug, Default)]
pub struct Limits {
    pub depth: Option<u32>,
    pub nodes: Option<u64>,
    /// Stop after this long, even mid-iteration.
    pub movetime: Option<Duration>,
    /// Clock-based budget: do not start a new iteration after `soft`, stop at `hard`.
    pub clock: Option<(Duration, Duration)>,
    /// Both clocks, for players that manage them themselves (external programs get them as
    /// `go wtime ... btime ...`).
    pub go: Option<GoClock>,
    /// Search until stopped (`go infinite`), whatever the player's own default budget.
    pub infinite: bool,
    /// Lines to report in progress output (the protocol's `MultiPV`; 0 and 1 both mean one),
    /// for players that can.
    pub multipv: u32,
    /// Progress lines carry `wdl W D L` (per mille) after the score (the protocol's
    /// `UCI_ShowWDL`), for players that can.
    pub wdl: bool,
    /// Only these root moves, as text (`go searchmoves`; empty: every move), for players whose
    /// [`Player::takes_searchmoves`] says they can.
    pub searchmoves: Vec<String>,
    /// Look for a forced win in this many moves (`go mate N`): alpha-beta searches 2N − 1
    /// plies, MCTS until it proves its root (or its other limits end it).
    pub mate: Option<u32>,
}

/// The game clocks at a move, as a tournament manager passes them on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct GoClock {
    /// Red's (first player's) and Blue's time left, and their increments.
    pub wtime: Duration,
    pub btime: Duration,
    pub winc: Duration,
    pub binc: Duration,
    /// Moves until the next time period (none: the time is for the whole game).
    pub movestogo: Option<u32>,
    /// After this long the mover has lost on time; there is no point waiting longer.
    pub deadline: Duration,
}

impl Limits {
    pub fn depth(d: u32) -> Limits {
        Limits { depth: Some(d), ..Limits::default() }
    }

    pub fn movetime(ms: u64) -> Limits {
        Limits { movetime: Some(Duration::from_millis(ms)), ..Limits::default() }
    }

    pub fn nodes(n: u64) -> Limits {
        Limits { nodes: Some(n), ..Limits::default() }
    }

    /// A budget from a game clock: our remaining time and increment (ms), and the moves until
    /// the next time period if the time is not for the whole game. Aims at 1/30 of the time
    /// left (fewer moves to go: a larger share) plus most of the increment, and never plans to
    /// use more than three quarters of what is left.
    pub fn from_clock(remaining_ms: u64, inc_ms: u64, movestogo: Option<u32>, overhead_ms: u64) -> Limits {
        let usable = remaining_ms.saturating_sub(overhead_ms);
        let share = movestogo.map_or(30, |m| u64::from(m).clamp(1, 30) + 1);
        let soft = (usable / share + inc_ms * 3 / 4).min(usable / 2);
        let hard = (soft * 3).min(usable * 3 / 4).max(soft);
        Limits { clock: Some((Duration::from_millis(soft.max(1)), Duration::from_millis(hard.max(1)))), ..Limits::default() }
    }

    /// The time a player without iterations (MCTS) should aim at: the move time, or the
    /// clock's target.
    pub fn target_time(&self) -> Option<Duration> {
        match (self.movetime, self.clock) {
            (Some(m), Some((s, _))) => Some(m.min(s)),
            (m, c) => m.or(c.map(|c| c.0)),
        }
    }

    pub fn hard_time(&self) -> Option<Duration> {
        match (self.movetime, self.clock) {
            (Some(m), Some((_, h))) => Some(m.min(h)),
            (m, c) => m.or(c.map(|c| c.1)),
        }
    }
}

/// Why a player stopped producing moves (external programs): the arena scores the game as a
/// forfeit with this cause and starts the player anew for the next game.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Failure {
    /// The program exited or its pipe broke.
    Crash(String),
    /// No answer within the time allowed.
    Timeout,
    /// An answer that is not a move (the line as received).
    Unreadable(String),
    /// The network returned a value or move logit that is not a finite number.
    Network,
}

impl Failure {
    /// The failure in a sentence, with what was received.
    pub fn detail(&self) -> String {
        match self {
            Failure::Crash(why) => format!("the engine crashed: {}", crate::check::clip(why)),
            Failure::Timeout => "no answer within the time allowed".into(),
            Failure::Unreadable(line) => format!("an answer that is not a move: {}", crate::check::clip(line)),
            Failure::Network => "the network's output is not a finite number (NaN or infinite); no move is chosen from it".into(),
        }
    }
}

impl std::fmt::Display for Failure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Failure::Crash(_) => "crash",
            Failure::Timeout => "timeout",
            Failure::Unreadable(_) => "unreadable answer",
            Failure::Network => "non-finite network output",
        })
    }
}

/// Picks moves in a game of `G`.
pub trait Player<G: Game>: Send {
    /// A short description, e.g. `alphabeta:depth=4`.
    fn name(&self) -> String;

    /// Chooses a move for the side to move in `game`; `None` only when the game is over.
    /// Progress lines in protocol form (`info ...`) go to `info`.
    fn choose(&mut self, game: &G, limits: &Limits, info: &mut dyn FnMut(&str)) -> Option<G::Move>;

    /// Forget what was learned about the previous game.
    fn new_game(&mut self) {}

    /// Why the player failed, once it has (it then answers `None` until replaced).
    fn failure(&self) -> Option<Failure> {
        None
    }

    /// A flag that stops a running `choose` promptly, if the player supports stopping.
    fn stop_handle(&self) -> Option<Arc<AtomicBool>> {
        None
    }

    /// Whether the player searches only [`Limits::searchmoves`] when it is given.
    fn takes_searchmoves(&self) -> bool {
        false
    }
}

/// The legal moves of `game` among `texts` (the moves as the game writes them), in the game's
/// order; empty when `texts` is.
pub fn chosen_moves<G: Game>(game: &G, texts: &[String]) -> Vec<G::Move> {
    if texts.is_empty() {
        return Vec::new();
    }
    game.legal_moves().iter().copied().filter(|m| texts.iter().any(|t| *t == m.to_string())).collect()
}

/// Plays a uniformly random legal move (seeded, so matches are reproducible).
pub struct RandomPlayer {
    rng: ChaCha8Rng,
}

impl RandomPlayer {
    pub fn new(seed: u64) -> RandomPlayer {
        RandomPlayer { rng: ChaCha8Rng::seed_from_u64(seed) }
    }
}

impl<G: Game> Player<G> for RandomPlayer {
    fn name(&self) -> String {
        "random".into()
    }

    fn choose(&mut self, game: &G, _: &Limits, _: &mut dyn FnMut(&str)) -> Option<G::Move> {
        let moves = game.legal_moves();
        (!moves.is_empty()).then(|| moves[self.rng.random_range(0..moves.len())])
    }
}
