//! The UCI-style text protocol (`junglezero uci`).
//!
//! Verbs: `uci`, `isready`, `ucinewgame`, `position startpos|fen FEN [moves ...]`,
//! `go depth|movetime|nodes|wtime|btime|winc|binc|movestogo|infinite`, `stop`, `quit`,
//! `setoption name X value Y`. Input is read on a thread of its own and searches run on a
//! worker thread, so `stop`, `isready` and `quit` are answered at once during any search; any
//! other command waits in order for the running search to finish (an infinite one is stopped
//! first). Malformed or illegal lines get `info string error: ...`, lines longer than 1 MiB
//! are refused without being held in memory, and the engine keeps serving. End of input ends
//! the session cleanly.
//!
//! `setoption name UCI_Variant value flip` (or `jungle`) switches the game; `junglezero uci
//! --game flip` starts with the flip game. In the flip game positions are its position strings
//! and moves its move texts (`f:b3=L`: a flip and what it revealed, which the host draws and
//! tells the engine; `b3b4`, `b3xb4`, `pass`); the engine answers a flip as `bestmove f:b3`, the
//! first player's clock is `wtime`, and the classical engine is `expectiminimax`.

pub mod options;
pub mod parse;
pub mod session;
pub mod variant;
pub mod verdict;

use std::collections::VecDeque;
use std::io::{BufReader, Read, Write};
use std::sync::{Arc, Mutex, mpsc};

use crate::config::Config;
use crate::registry::GameName;
use crate::store::caps;
use crate::store::lines::CappedLines;
use options::OptionError;
use parse::Command;
use session::{Session, SessionControl};

/// Where protocol output goes; shared with the search thread.
pub type Out = Arc<Mutex<dyn Write + Send>>;

pub fn send(out: &Out, line: &str) {
    if let Ok(mut w) = out.lock() {
        let _ = writeln!(w, "{line}");
        let _ = w.flush();
    }
}

/// Lines read ahead of the one being handled.
const READ_AHEAD: usize = 4;
/// Commands that may wait for a running search, and their lines' bytes in all: beyond either,
/// a command that would wait is refused with an error line (`stop`, `isready`, `ponderhit` and
/// `quit` never wait, and are always answered).
pub const MAX_WAITING: usize = 256;
pub const MAX_WAITING_BYTES: usize = 4 << 20;

/// The commands waiting for the running search, in order, with their lines' length.
#[derive(Default)]
struct Waiting {
    commands: VecDeque<(Command, usize)>,
    bytes: usize,
}

impl Waiting {
    /// Queues `cmd` (from a line of `len` bytes); `false` when the queue is full, and then the
    /// command is dropped. A `stop` or `ponderhit` (len 0) repeated right behind itself is
    /// queued once, and one has room as long as a command does (so at most one of each waits
    /// for each waiting `go`).
    fn push_back(&mut self, cmd: Command, len: usize) -> bool {
        if len == 0 {
            if self.commands.back().is_some_and(|(last, _)| std::mem::discriminant(last) == std::mem::discriminant(&cmd)) {
                return true;
            }
            if self.commands.len() >= 3 * MAX_WAITING {
                return false;
            }
        } else if self.commands.len() >= MAX_WAITING || self.bytes + len > MAX_WAITING_BYTES {
            return false;
        }
        self.bytes += len;
        self.commands.push_back((cmd, len));
        true
    }

    fn pop_front(&mut self) -> Option<Command> {
        let (cmd, len) = self.commands.pop_front()?;
        self.bytes -= len;
        Some(cmd)
    }

    fn front(&self) -> Option<&Command> {
        self.commands.front().map(|(c, _)| c)
    }

    fn iter(&self) -> impl Iterator<Item = &Command> {
        self.commands.iter().map(|(c, _)| c)
    }

    fn is_empty(&self) -> bool {
        self.commands.is_empty()
    }
}

/// The protocol server: a session of the config's game, replaced by one of another game when
/// `setoption name UCI_Variant value NAME` asks for it (the settings carry over; the position,
/// engine choice and network do not).
pub struct Server {
    out: Out,
    /// The game being served, and its session (always `Some` between commands).
    game: GameName,
    session: Option<Box<dyn SessionControl>>,
}

impl Server {
    pub fn new(config: Config, out: Out) -> Server {
        let game = config.game;
        let session = Server::session(config, out.clone());
        Server { out, game, session: Some(session) }
    }

    /// A session of the config's game.
    fn session(config: Config, out: Out) -> Box<dyn SessionControl> {
        crate::with_game!(config.game, G => Box::new(Session::<G>::new(config, out)))
    }

    /// Reads commands until `quit` or end of input.
    pub fn serve(&mut self, input: impl Read + Send + 'static) {
        // The reader stops reading while lines it read wait unhandled (a few, at most a
        // MiB each).
        let (tx, rx) = mpsc::sync_channel(READ_AHEAD);
        std::thread::spawn(move || {
            let mut lines = CappedLines::new(BufReader::new(input), caps::LINE);
            while let Some(line) = lines.next_line() {
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        // Commands that wait for the running search, in the order they came.
        let mut waiting = Waiting::default();
        // At the end of the input the commands still waiting run in turn; then the last
        // search is stopped.
        let mut ended = false;
        loop {
            // Waiting commands run in order once the search is over; a `stop` among them is
            // for the search the `go` before it started, so it runs as soon as that one has.
            while let Some(next) = waiting.front() {
                if self.busy() && !matches!(next, Command::Stop | Command::PonderHit) {
                    break;
                }
                let Some(cmd) = waiting.pop_front() else { break };
                self.handle(cmd);
            }
            if ended {
                if waiting.is_empty() {
                    break;
                }
                std::thread::sleep(std::time::Duration::from_millis(2));
                continue;
            }
            let line = if self.busy() {
                match rx.recv_timeout(std::time::Duration::from_millis(5)) {
                    Ok(line) => line,
                    Err(mpsc::RecvTimeoutError::Timeout) => continue,
                    Err(mpsc::RecvTimeoutError::Disconnected) => {
                        ended = true;
                        continue;
                    }
                }
            } else {
                match rx.recv() {
                    Ok(line) => line,
                    Err(_) => break,
                }
            };
            let line = match line {
                Ok(line) => line,
                Err(too_long) => {
                    send(&self.out, &format!("info string error: {too_long}"));
                    continue;
                }
            };
            match parse::parse(&line) {
                Ok(Command::Quit) => break,
                // Answered at once, during a search too (`isready` does not wait for the
                // commands queued behind the search: they run in order all the same).
                // `stop` ends the running search at once, whatever waits behind it; with a `go`
                // waiting, it is that search's too (the input's order), so it also waits its
                // turn and runs as soon as that search has started (else a waiting `go infinite`
                // would search for ever).
                Ok(Command::Stop) => {
                    self.handle(Command::Stop);
                    if waiting.iter().any(|c| matches!(c, Command::Go(_))) {
                        waiting.push_back(Command::Stop, 0);
                    }
                }
                // `ponderhit` turns the pondering search into the real one at once; like
                // `stop`, it waits for a `go` still waiting.
                Ok(Command::PonderHit) => {
                    if waiting.iter().any(|c| matches!(c, Command::Go(_))) {
                        waiting.push_back(Command::PonderHit, 0);
                    } else {
                        self.handle(Command::PonderHit);
                    }
                }
                Ok(cmd @ (Command::IsReady | Command::Nothing)) => self.handle(cmd),
                Ok(cmd) if self.busy() || !waiting.is_empty() => {
                    // A command after `go infinite` ends that search, as it always has.
                    self.with_session(|s| {
                        if s.searching_until_stopped() {
                            s.halt_search();
                        }
                    });
                    if !waiting.push_back(cmd, line.len()) {
                        send(
                            &self.out,
                            &format!(
                                "info string error: {MAX_WAITING} commands or {} of them already wait for the search; '{}' was ignored",
                                crate::store::human_bytes(MAX_WAITING_BYTES as u64),
                                crate::check::clip(&line)
                            ),
                        );
                    }
                }
                Ok(cmd) => self.handle(cmd),
                Err(e) => send(&self.out, &format!("info string error: {e}")),
            }
        }
        self.with_session(|s| s.stop());
    }

    fn busy(&mut self) -> bool {
        let mut busy = false;
        self.with_session(|s| busy = s.busy());
        busy
    }

    /// Runs `f` on the session of the game being served.
    fn with_session(&mut self, f: impl FnOnce(&mut dyn SessionControl)) {
        if let Some(s) = self.session.as_deref_mut() {
            f(s)
        }
    }

    fn handle(&mut self, cmd: Command) {
        if let Command::SetOption { name, value } = &cmd
            && name.eq_ignore_ascii_case("UCI_Variant")
        {
            return self.set_variant(value.as_deref());
        }
        self.with_session(|s| s.handle(cmd));
    }

    /// Switches to a session of the named game (the same game: nothing changes).
    fn set_variant(&mut self, value: Option<&str>) {
        // The games by the names configs use (`GameName`'s own list and parser).
        let wanted = match value.map(str::trim) {
            Some(v) => match <GameName as clap::ValueEnum>::from_str(v, false) {
                Ok(g) => g,
                Err(_) => return send(&self.out, &format!("info string error: {}", OptionError::UnknownVariant(v.into()))),
            },
            None => return send(&self.out, &format!("info string error: {}", OptionError::NoValue("UCI_Variant".into()))),
        };
        if self.game == wanted {
            return;
        }
        let mut config = self.session.take().map_or_else(Config::default, |s| s.into_config());
        config.game = wanted;
        self.game = wanted;
        self.session = Some(Server::session(config, self.out.clone()));
    }
}

/// Serves stdin/stdout until `quit` or end of input.
pub fn serve_stdio(config: Config) {
    let out: Out = Arc::new(Mutex::new(std::io::stdout()));
    let mut server = Server::new(config, out);
    server.serve(std::io::stdin());
}
