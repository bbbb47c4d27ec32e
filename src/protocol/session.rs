//! One protocol session of one game: the position, the options, the player and the search
//! thread.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::thread::JoinHandle;

use super::options::Options;
use super::parse::{Command, GoParams};
use super::variant::ProtocolGame;
use super::{Out, send};
use crate::config::Config;
use crate::game::{Seat, Turn};
use crate::player::{Limits, Player};

struct Running<G: ProtocolGame> {
    handle: JoinHandle<Box<dyn Player<G>>>,
    /// The player's own stop flag.
    stop: Option<Arc<AtomicBool>>,
    /// Raised by `stop`; an infinite search holds its `bestmove` until then.
    halt: Arc<AtomicBool>,
    infinite: bool,
    /// Raised just before the search prints its `bestmove`: from then on the search is over
    /// for the input loop, so a `stop` that comes after the answer (behind a new `go`) is
    /// that new search's, not the ended one's.
    answered: Arc<AtomicBool>,
    /// A `go ponder` search: the `go` to run at `ponderhit`.
    ponder: Option<GoParams>,
    /// Raised by `ponderhit`: the pondering search ends without a `bestmove`.
    silent: Arc<AtomicBool>,
}

/// A session of any game, as the server drives it.
pub trait SessionControl {
    fn handle(&mut self, cmd: Command);
    fn busy(&self) -> bool;
    fn searching_until_stopped(&self) -> bool;
    fn halt_search(&self);
    fn stop(&mut self);
    /// Stops any search and hands back the settings (for a session of another game).
    fn into_config(self: Box<Self>) -> Config;
}

impl<G: ProtocolGame> SessionControl for Session<G> {
    fn handle(&mut self, cmd: Command) {
        Session::handle(self, cmd)
    }
    fn into_config(self: Box<Self>) -> Config {
        Session::into_config(*self)
    }
    fn busy(&self) -> bool {
        Session::busy(self)
    }
    fn searching_until_stopped(&self) -> bool {
        Session::searching_until_stopped(self)
    }
    fn halt_search(&self) {
        Session::halt_search(self)
    }
    fn stop(&mut self) {
        Session::stop(self)
    }
}

/// A session of game `G`.
pub struct Session<G: ProtocolGame> {
    out: Out,
    options: Options,
    /// The position as last set: its root as text (`None`: the start) and the moves played
    /// from it (replayed when the rules change).
    root: Option<String>,
    moves: Vec<String>,
    game: G,
    player: Option<Box<dyn Player<G>>>,
    running: Option<Running<G>>,
}

impl<G: ProtocolGame> Session<G> {
    pub fn new(config: Config, out: Out) -> Session<G> {
        let options = Options::new(config);
        // A failure here leaves no engine; `go` then says so and `setoption` can build one.
        let player = options.build_player::<G>().ok();
        let game = G::start_under(&G::rules(options.config()));
        Session { out, options, root: None, moves: Vec::new(), game, player, running: None }
    }

    fn error(&self, msg: &str) {
        send(&self.out, &format!("info string error: {}", crate::check::clip_message(msg)));
    }

    /// Stops any search and hands back the settings (for a session of another game).
    pub fn into_config(mut self) -> Config {
        self.stop();
        self.options.into_config()
    }

    pub fn handle(&mut self, cmd: Command) {
        match cmd {
            Command::IsReady => send(&self.out, "readyok"),
            // Only raises the flags: the search thread answers `bestmove` as soon as it stops,
            // and the input loop keeps reading meanwhile.
            Command::Stop => self.halt_search(),
            Command::PonderHit => self.ponder_hit(),
            Command::Nothing => {}
            other => {
                self.wait_for_search();
                match other {
                    Command::Uci => {
                        send(&self.out, &format!("id name junglezero {}", env!("CARGO_PKG_VERSION")));
                        send(&self.out, "id author the junglezero developers");
                        for line in self.options.describe::<G>() {
                            send(&self.out, &line);
                        }
                        send(&self.out, "uciok");
                    }
                    Command::NewGame => {
                        if let Some(p) = self.player.as_mut() {
                            p.new_game();
                        }
                    }
                    Command::Position { fen, moves } => self.set_position(fen.as_deref(), &moves),
                    Command::Go(params) => self.go(&params),
                    Command::SetOption { name, value } => self.set_option(&name, value.as_deref()),
                    Command::IsReady | Command::Stop | Command::PonderHit | Command::Quit | Command::Nothing => {}
                }
            }
        }
    }

    fn set_position(&mut self, root: Option<&str>, moves: &[String]) {
        let rules = G::rules(self.options.config());
        let mut game = match root {
            None => G::start_under(&rules),
            Some(f) => match G::from_root(f, &rules) {
                Ok(g) => g,
                Err(e) => return self.error(&format!("bad {}: {e}", G::ROOT_TEXT)),
            },
        };
        for (i, text) in moves.iter().enumerate() {
            if let Err(e) = game.play_text_move(text) {
                return self.error(&format!("move {} ('{}'): {e}; position unchanged", i + 1, crate::check::clip(text)));
            }
        }
        self.root = root.map(str::to_string);
        self.moves = moves.to_vec();
        self.game = game;
    }

    /// `go`: a search as asked, or with `ponder` one that runs until `ponderhit` (then the
    /// `go` as given, the pondered tree kept) or `stop`.
    fn go(&mut self, p: &GoParams) {
        if p.ponder {
            let pondering = GoParams { infinite: true, searchmoves: p.searchmoves.clone(), ..GoParams::default() };
            self.start(&pondering, Some(GoParams { ponder: false, ..p.clone() }));
        } else {
            self.start(p, None);
        }
    }

    /// `ponderhit`: the pondering search ends without answering, and the `go` it came with
    /// starts on the same position (MCTS keeps the tree grown meanwhile, alpha-beta its table).
    fn ponder_hit(&mut self) {
        let Some(params) = self.running.as_ref().filter(|_| self.busy()).and_then(|r| r.ponder.clone()) else {
            return self.error("ponderhit without a 'go ponder' search");
        };
        if let Some(r) = &self.running {
            r.silent.store(true, Ordering::Release);
            Self::halt(r);
        }
        self.wait_for_search();
        self.start(&params, None);
    }

    fn start(&mut self, p: &GoParams, ponder: Option<GoParams>) {
        match self.game.turn() {
            Turn::Over(o) => {
                send(&self.out, &format!("info string game over: {}", G::outcome_text(&o)));
                send(&self.out, "bestmove (none)");
                return;
            }
            Turn::Chance => {
                self.error("a flip is waiting for what it reveals: send the move with its outcome (f:b3=L)");
                send(&self.out, "bestmove (none)");
                return;
            }
            Turn::Player(_) => {}
        }
        let first = self.game.seat_to_move() == Some(Seat::First);
        let (time, inc) = if first { (p.wtime, p.winc) } else { (p.btime, p.binc) };
        let mut limits = match time {
            Some(t) => {
                let overhead = self.options.config().search.move_overhead_ms;
                Limits::from_clock(t, inc.unwrap_or(0), p.movestogo.filter(|&n| n > 0).map(|n| n.min(u32::MAX as u64) as u32), overhead)
            }
            None => Limits::default(),
        };
        // `go mate N` without a depth: a win in N moves lies within 2N − 1 plies (engines
        // without proofs of their own stop there).
        limits.depth = p.depth.or(p.mate.map(|n| n.saturating_mul(2).saturating_sub(1)));
        limits.nodes = p.nodes;
        limits.movetime = p.movetime.map(std::time::Duration::from_millis);
        limits.mate = p.mate;
        limits.searchmoves = p.searchmoves.clone();
        if let Some(bad) = p.searchmoves.iter().find(|m| !self.game.legal_moves().iter().any(|l| l.to_string() == **m)) {
            self.error(&format!("searchmoves: '{}' is not a legal move here", crate::check::clip(bad)));
            send(&self.out, "bestmove (none)");
            return;
        }
        let unlimited = limits.depth.is_none() && limits.nodes.is_none() && limits.movetime.is_none() && limits.clock.is_none() && limits.mate.is_none();
        let infinite = p.infinite || unlimited;
        limits.infinite = infinite;
        limits.multipv = self.options.multipv();
        limits.wdl = self.options.show_wdl();
        let Some(mut player) = self.player.take() else {
            self.error(if self.options.missing_model() { "Engine mcts needs a network: set the Model option (a .jzm file)" } else { "no engine available" });
            send(&self.out, "bestmove (none)");
            return;
        };
        if !limits.searchmoves.is_empty() && !player.takes_searchmoves() {
            self.player = Some(player);
            self.error("searchmoves: this engine searches every move");
            send(&self.out, "bestmove (none)");
            return;
        }
        let stop = player.stop_handle();
        // A stop meant for the previous search (waiting for an infinite one raises it again
        // after that search has ended) must not end this one before it starts.
        if let Some(s) = &stop {
            s.store(false, Ordering::Relaxed);
        }
        let halt = Arc::new(AtomicBool::new(false));
        let out = self.out.clone();
        let game = self.game.clone();
        let halted = halt.clone();
        let answered = Arc::new(AtomicBool::new(false));
        let said = answered.clone();
        let silent = Arc::new(AtomicBool::new(false));
        let quiet = silent.clone();
        let name_reply = self.options.ponder();
        let handle = std::thread::spawn(move || {
            // The best line's first two moves, from the last report (for `ponder M`).
            let mut line_start: Vec<String> = Vec::new();
            let best = player.choose(&game, &limits, &mut |line| {
                if name_reply {
                    line_start = best_line_start(line).unwrap_or(std::mem::take(&mut line_start));
                }
                send(&out, line)
            });
            if best.is_none()
                && let Some(f) = player.failure()
            {
                send(&out, &format!("info string error: {}", f.detail()));
            }
            while infinite && !halted.load(Ordering::Relaxed) {
                std::thread::sleep(std::time::Duration::from_millis(2));
            }
            said.store(true, Ordering::Release);
            if !quiet.load(Ordering::Acquire) {
                let best = best.map_or_else(|| "(none)".into(), |m| m.to_string());
                match line_start.as_slice() {
                    [first, reply] if *first == best => send(&out, &format!("bestmove {best} ponder {reply}")),
                    _ => send(&out, &format!("bestmove {best}")),
                }
            }
            player
        });
        self.running = Some(Running { handle, stop, halt, infinite, answered, ponder, silent });
    }

    /// Stops any search and waits for its thread.
    pub fn stop(&mut self) {
        self.halt_search();
        self.wait_for_search();
    }

    /// Asks a running search to stop (its thread answers `bestmove`); does not wait.
    pub fn halt_search(&self) {
        if let Some(r) = &self.running {
            Self::halt(r);
        }
    }

    /// Whether a search is still running (one that has answered counts as done, even while
    /// its thread is still ending: the next command joins it).
    pub fn busy(&self) -> bool {
        self.running.as_ref().is_some_and(|r| !r.answered.load(Ordering::Acquire) && !r.handle.is_finished())
    }

    /// Whether the running search goes on until `stop` (`go infinite`, or no limit at all).
    pub fn searching_until_stopped(&self) -> bool {
        self.busy() && self.running.as_ref().is_some_and(|r| r.infinite)
    }

    fn halt(r: &Running<G>) {
        r.halt.store(true, Ordering::Relaxed);
        if let Some(s) = &r.stop {
            s.store(true, Ordering::Relaxed);
        }
    }

    /// Waits for a running search; an infinite one is stopped first.
    pub fn wait_for_search(&mut self) {
        if let Some(r) = self.running.take() {
            if r.infinite {
                Self::halt(&r);
            }
            match r.handle.join() {
                Ok(player) => self.player = Some(player),
                Err(_) => {
                    self.error("the search thread failed; engine restarted");
                    self.rebuild_player();
                }
            }
        }
    }

    /// A new player for the current options (an error leaves none, and says why).
    fn rebuild_player(&mut self) {
        if self.options.missing_model() {
            // Said at `go`: the Model option may still come.
            self.player = None;
            return;
        }
        match self.options.build_player::<G>() {
            Ok(p) => self.player = Some(p),
            Err(e) => {
                self.player = None;
                self.error(&format!("cannot build the engine: {e}"));
            }
        }
    }

    fn set_option(&mut self, name: &str, value: Option<&str>) {
        match self.options.set::<G>(name, value) {
            Err(e) => self.error(&e.to_string()),
            Ok(effect) => {
                if effect.rebuild_player {
                    self.rebuild_player();
                }
                if effect.rules_changed {
                    let (root, moves) = (self.root.clone(), self.moves.clone());
                    self.set_position(root.as_deref(), &moves);
                }
            }
        }
    }
}

/// The first two moves of an `info` line's `pv` when it is the best line (no `multipv`, or
/// `multipv 1`).
fn best_line_start(line: &str) -> Option<Vec<String>> {
    let words: Vec<&str> = line.split_whitespace().collect();
    if words.first() != Some(&"info") {
        return None;
    }
    if let Some(i) = words.iter().position(|w| *w == "multipv")
        && words.get(i + 1) != Some(&"1")
    {
        return None;
    }
    let at = words.iter().position(|w| *w == "pv")?;
    Some(words[at + 1..].iter().take(2).map(|w| w.to_string()).collect())
}
