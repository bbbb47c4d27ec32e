//! The UCI-style text protocol (`junglezero uci`).
//!
//! Verbs: `uci`, `isready`, `ucinewgame`, `position startpos|fen FEN [moves ...]`,
//! `go depth|movetime|nodes|wtime|btime|winc|binc|movestogo|infinite`, `stop`, `quit`,
//! `setoption name X value Y`. Searches run on a worker thread so `stop` and `isready` are
//! answered at once; any other command waits for the running search to finish (an infinite
//! one is stopped first). Malformed or illegal lines get `info string error: ...` and the
//! engine keeps serving. End of input ends the session cleanly.

pub mod options;
pub mod parse;

use std::io::{BufRead, Write};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;

use crate::config::Config;
use crate::game::{Game, Turn};
use crate::jungle::{JungleGame, Move, Position, describe_outcome, parse_fen};
use crate::player::{Limits, Player};
use options::Options;
use parse::{Command, GoParams};

/// Where protocol output goes; shared with the search thread.
pub type Out = Arc<Mutex<dyn Write + Send>>;

pub fn send(out: &Out, line: &str) {
    if let Ok(mut w) = out.lock() {
        let _ = writeln!(w, "{line}");
        let _ = w.flush();
    }
}

struct Running {
    handle: JoinHandle<Box<dyn Player<JungleGame>>>,
    /// The player's own stop flag.
    stop: Option<Arc<AtomicBool>>,
    /// Raised by `stop`; an infinite search holds its `bestmove` until then.
    halt: Arc<AtomicBool>,
    infinite: bool,
}

/// The protocol session's state.
pub struct Server {
    out: Out,
    options: Options,
    /// The position as last set: root and moves (replayed when rules change).
    root: Position,
    moves: Vec<Move>,
    game: JungleGame,
    player: Option<Box<dyn Player<JungleGame>>>,
    running: Option<Running>,
}

impl Server {
    pub fn new(config: Config, out: Out) -> Server {
        let options = Options::new(config);
        // A failure here leaves no engine; `go` then says so and `setoption` can build one.
        let player = options.build_player().ok();
        let game = JungleGame::start(options.config().rules);
        Server { out, options, root: Position::start(), moves: Vec::new(), game, player, running: None }
    }

    fn error(&self, msg: &str) {
        send(&self.out, &format!("info string error: {msg}"));
    }

    /// Reads commands until `quit` or end of input.
    pub fn serve(&mut self, input: impl BufRead) {
        for line in input.lines() {
            let Ok(line) = line else { break };
            match parse::parse(&line) {
                Ok(Command::Quit) => break,
                Ok(cmd) => self.handle(cmd),
                Err(e) => self.error(&e.to_string()),
            }
        }
        self.stop();
    }

    fn handle(&mut self, cmd: Command) {
        match cmd {
            Command::IsReady => send(&self.out, "readyok"),
            Command::Stop => self.stop(),
            Command::Nothing => {}
            other => {
                self.wait_for_search();
                match other {
                    Command::Uci => {
                        send(&self.out, &format!("id name junglezero {}", env!("CARGO_PKG_VERSION")));
                        send(&self.out, "id author the junglezero developers");
                        for line in self.options.describe() {
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
                    Command::IsReady | Command::Stop | Command::Quit | Command::Nothing => {}
                }
            }
        }
    }

    fn set_position(&mut self, fen: Option<&str>, moves: &[String]) {
        let root = match fen {
            None => Position::start(),
            Some(f) => match parse_fen(f) {
                Ok(p) => p,
                Err(e) => return self.error(&format!("bad FEN: {e}")),
            },
        };
        let mut game = JungleGame::new(root, self.options.config().rules);
        let mut played = Vec::with_capacity(moves.len());
        for (i, text) in moves.iter().enumerate() {
            match game.play_text(text) {
                Ok(m) => played.push(m),
                Err(e) => return self.error(&format!("move {} ('{text}'): {e}; position unchanged", i + 1)),
            }
        }
        self.root = root;
        self.moves = played;
        self.game = game;
    }

    fn go(&mut self, p: &GoParams) {
        if let Turn::Over(o) = self.game.turn() {
            send(&self.out, &format!("info string game over: {}", describe_outcome(&o)));
            send(&self.out, "bestmove (none)");
            return;
        }
        let red = self.game.side_to_move() == crate::jungle::Side::Red;
        let (time, inc) = if red { (p.wtime, p.winc) } else { (p.btime, p.binc) };
        let mut limits = match time {
            Some(t) => {
                let overhead = self.options.config().search.move_overhead_ms;
                Limits::from_clock(t, inc.unwrap_or(0), p.movestogo.filter(|&n| n > 0).map(|n| n.min(u32::MAX as u64) as u32), overhead)
            }
            None => Limits::default(),
        };
        limits.depth = p.depth;
        limits.nodes = p.nodes;
        limits.movetime = p.movetime.map(std::time::Duration::from_millis);
        let unlimited = limits.depth.is_none() && limits.nodes.is_none() && limits.movetime.is_none() && limits.clock.is_none();
        let Some(mut player) = self.player.take() else { return self.error("no engine available") };
        let stop = player.stop_handle();
        let infinite = p.infinite || unlimited;
        let halt = Arc::new(AtomicBool::new(false));
        let out = self.out.clone();
        let game = self.game.clone();
        let halted = halt.clone();
        let handle = std::thread::spawn(move || {
            let best = player.choose(&game, &limits, &mut |line| send(&out, line));
            while infinite && !halted.load(Ordering::Relaxed) {
                std::thread::sleep(std::time::Duration::from_millis(2));
            }
            send(&out, &format!("bestmove {}", best.map_or_else(|| "(none)".into(), |m| m.to_string())));
            player
        });
        self.running = Some(Running { handle, stop, halt, infinite });
    }

    fn stop(&mut self) {
        if let Some(r) = &self.running {
            Self::halt(r);
        }
        self.wait_for_search();
    }

    fn halt(r: &Running) {
        r.halt.store(true, Ordering::Relaxed);
        if let Some(s) = &r.stop {
            s.store(true, Ordering::Relaxed);
        }
    }

    /// Waits for a running search; an infinite one is stopped first.
    fn wait_for_search(&mut self) {
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
        match self.options.build_player() {
            Ok(p) => self.player = Some(p),
            Err(e) => {
                self.player = None;
                self.error(&format!("cannot build the engine: {e}"));
            }
        }
    }

    fn set_option(&mut self, name: &str, value: Option<&str>) {
        match self.options.set(name, value) {
            Err(e) => self.error(&e.to_string()),
            Ok(effect) => {
                if effect.rebuild_player {
                    self.rebuild_player();
                }
                if effect.rules_changed {
                    let moves: Vec<String> = self.moves.iter().map(|m| m.to_string()).collect();
                    let fen = crate::jungle::fen(&self.root);
                    self.set_position(Some(&fen), &moves);
                }
            }
        }
    }
}

/// Serves stdin/stdout until `quit` or end of input.
pub fn serve_stdio(config: Config) {
    let out: Out = Arc::new(Mutex::new(std::io::stdout()));
    let mut server = Server::new(config, out);
    server.serve(std::io::stdin().lock());
}
