//! A program that speaks the UCI-style protocol, as a [`Player`].
//!
//! The program is started with `sh -c CMD` in a process group of its own (see
//! [`super::procgroup`]: the group is killed when the player is dropped, so nothing the
//! program started outlives it); `uci`/`uciok` and `isready`/`readyok` are checked
//! with timeouts. Each move sends `position fen ROOT moves ...` and `go ...`, then waits for
//! `bestmove`. A dead, silent or confused program makes `choose` return `None` and reports the
//! [`Failure`]; the arena scores that game as a forfeit and starts the program anew. How a
//! game's positions and moves are written is the game's own ([`ExternalGame`], in its entry).

use std::io::{BufReader, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::time::{Duration, Instant};

use super::procgroup::{self, Group};
use crate::game::Game;
use crate::player::{Failure, Limits, Player};

/// What the protocol spoken to an external program needs of a game.
pub trait ExternalGame: Game {
    /// The game as the `position` command gives it (`position fen ROOT [moves M1 M2 ...]`).
    fn position_command(&self) -> String;

    /// The move `text` names in this position (as `bestmove` gives it), if it reads as one.
    fn read_move(&self, text: &str) -> Option<Self::Move>;
}

/// An external program that could not be started or did not complete the handshake.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("external engine '{cmd}': {what}")]
pub struct ExternalError {
    pub cmd: String,
    pub what: String,
}

/// The longest line read from a program (an `info` line with a long principal variation is a
/// few KiB); a longer one is an unreadable answer.
pub const LINE_CAP: usize = 64 << 10;
/// Lines read ahead of the player; past them the program waits for its output to be read.
const QUEUED_LINES: usize = 1024;

pub struct ExternalPlayer {
    cmd: String,
    child: Child,
    group: Group,
    stdin: ChildStdin,
    /// The program's lines; `Err` for one over [`LINE_CAP`], in words.
    lines: Receiver<Result<String, String>>,
    name: String,
    /// Why the program stopped being usable, if it did.
    pub failure: Option<Failure>,
}

impl ExternalPlayer {
    /// Starts `cmd` and completes the handshake.
    pub fn spawn(cmd: &str) -> Result<ExternalPlayer, ExternalError> {
        let err = |what: String| ExternalError { cmd: cmd.into(), what };
        let mut command = Command::new("sh");
        command.arg("-c").arg(cmd).stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::null());
        procgroup::configure(&mut command);
        let mut child = command.spawn().map_err(|e| err(format!("cannot be started: {e}")))?;
        let group = Group::of(&child);
        let stdin = child.stdin.take().ok_or_else(|| err("no stdin".into()))?;
        let stdout = child.stdout.take().ok_or_else(|| err("no stdout".into()))?;
        // Bounded both ways: lines are capped, and the reader waits (and with it the program,
        // once its pipe is full) while [`QUEUED_LINES`] lines are unread, so a program that
        // writes without end costs a bounded buffer.
        let (tx, rx) = mpsc::sync_channel(QUEUED_LINES);
        std::thread::spawn(move || {
            let mut lines = crate::store::lines::CappedLines::new(BufReader::new(stdout), LINE_CAP).eager();
            while let Some(line) = lines.next_line() {
                // A line over the cap ends the program's usefulness: nothing after it is read.
                let over = line.is_err();
                if tx.send(line.map_err(|t| format!("a line over {} KiB (\"{}...\")", LINE_CAP >> 10, t.start))).is_err() || over {
                    break;
                }
            }
        });
        let mut p = ExternalPlayer { cmd: cmd.into(), child, group, stdin, lines: rx, name: cmd.into(), failure: None };
        // A program that exits at once may close its input before 'uci' is written (a broken
        // pipe) or after (no answer): either way it did not answer.
        let mut name = None;
        p.send("uci")
            .and_then(|()| {
                p.wait_for(Duration::from_secs(10), |l| {
                    if let Some(n) = l.strip_prefix("id name ") {
                        name = Some(n.trim().to_string());
                    }
                    l.trim() == "uciok"
                })
            })
            .map_err(|e| err(format!("did not answer 'uci' with 'uciok': {}", describe(&e))))?;
        if let Some(n) = name {
            p.name = n;
        }
        p.send("isready")
            .and_then(|()| p.wait_for(Duration::from_secs(10), |l| l.trim() == "readyok"))
            .map_err(|e| err(format!("did not answer 'isready': {}", describe(&e))))?;
        Ok(p)
    }

    fn send(&mut self, line: &str) -> Result<(), Failure> {
        writeln!(self.stdin, "{line}").and_then(|_| self.stdin.flush()).map_err(|e| Failure::Crash(e.to_string()))
    }

    /// Reads lines until `done(line)` or the timeout; returns the matching line. The timeout
    /// is for the whole answer: lines that are not it (however many) count towards it, and a
    /// line over [`LINE_CAP`] ends the wait as unreadable.
    fn wait_for(&mut self, timeout: Duration, mut done: impl FnMut(&str) -> bool) -> Result<String, Failure> {
        let deadline = Instant::now() + timeout;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                return Err(Failure::Timeout);
            }
            match self.lines.recv_timeout(left) {
                Ok(Ok(line)) if done(&line) => return Ok(line),
                Ok(Ok(_)) => {}
                Ok(Err(too_long)) => return Err(Failure::Unreadable(too_long)),
                Err(RecvTimeoutError::Timeout) => return Err(Failure::Timeout),
                Err(RecvTimeoutError::Disconnected) => return Err(Failure::Crash("the program exited".into())),
            }
        }
    }

    fn fail<M>(&mut self, why: Failure) -> Option<M> {
        tracing::warn!("external engine '{}': {}", self.cmd, describe(&why));
        self.failure = Some(why);
        None
    }
}

/// The `go` line for `limits` and how long to wait for its answer. A game clock goes first
/// (`go wtime ... btime ... winc ... binc ... [movestogo N]`) and the wait ends shortly after
/// the mover's time is gone; otherwise depth, nodes or move time.
fn go_command(limits: &Limits) -> (String, Duration) {
    if let Some(c) = &limits.go {
        let mut go = format!("go wtime {} btime {} winc {} binc {}", c.wtime.as_millis(), c.btime.as_millis(), c.winc.as_millis(), c.binc.as_millis());
        if let Some(n) = c.movestogo {
            go += &format!(" movestogo {n}");
        }
        if let Some(d) = limits.depth {
            go += &format!(" depth {d}");
        }
        if let Some(n) = limits.nodes {
            go += &format!(" nodes {n}");
        }
        return (go, c.deadline + Duration::from_secs(1));
    }
    let go = match (limits.depth, limits.nodes, limits.movetime) {
        (Some(d), _, _) => format!("go depth {d}"),
        (_, Some(n), _) => format!("go nodes {n}"),
        (_, _, Some(t)) => format!("go movetime {}", t.as_millis()),
        _ => "go movetime 1000".to_string(),
    };
    (go, limits.movetime.unwrap_or(Duration::from_secs(1)) * 3 + Duration::from_secs(30))
}

/// A failure in words for logs and errors.
fn describe(f: &Failure) -> String {
    match f {
        Failure::Crash(why) => format!("crashed ({why})"),
        Failure::Timeout => "no answer in time".into(),
        Failure::Unreadable(line) => format!("unreadable answer '{line}'"),
        Failure::Network => f.detail(),
    }
}

impl Drop for ExternalPlayer {
    fn drop(&mut self) {
        // A moment to quit by itself, then the whole group goes (before the shell is reaped,
        // so the group's id is still its own).
        let _ = writeln!(self.stdin, "quit");
        let _ = self.stdin.flush();
        let deadline = Instant::now() + Duration::from_millis(100);
        while Instant::now() < deadline && matches!(self.child.try_wait(), Ok(None)) {
            std::thread::sleep(Duration::from_millis(5));
        }
        self.group.kill();
        let _ = self.child.wait();
    }
}

impl<G: ExternalGame> Player<G> for ExternalPlayer {
    fn name(&self) -> String {
        self.name.clone()
    }

    fn new_game(&mut self) {
        let _ = self.send("ucinewgame");
    }

    fn choose(&mut self, game: &G, limits: &Limits, _info: &mut dyn FnMut(&str)) -> Option<G::Move> {
        if self.failure.is_some() {
            return None;
        }
        let position = game.position_command();
        let (go, budget) = go_command(limits);
        if let Err(e) = self.send(&position).and_then(|_| self.send(&go)) {
            return self.fail(e);
        }
        let line = match self.wait_for(budget, |l| l.starts_with("bestmove")) {
            Ok(l) => l,
            Err(e) => return self.fail(e),
        };
        let text = line.split_whitespace().nth(1).unwrap_or("");
        match game.read_move(text) {
            Some(m) => Some(m),
            None => self.fail(Failure::Unreadable(line.trim().to_string())),
        }
    }

    fn failure(&self) -> Option<Failure> {
        self.failure.clone()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::player::GoClock;

    #[test]
    fn go_lines_carry_the_clocks_or_the_fixed_limits() {
        let s = Duration::from_millis;
        let clock = GoClock { wtime: s(9500), btime: s(10_000), winc: s(100), binc: s(100), movestogo: Some(12), deadline: s(9600) };
        let (go, wait) = go_command(&Limits { go: Some(clock), ..Limits::default() });
        assert_eq!(go, "go wtime 9500 btime 10000 winc 100 binc 100 movestogo 12");
        assert_eq!(wait, s(10_600));
        let (go, _) = go_command(&Limits { go: Some(GoClock { movestogo: None, ..clock }), depth: Some(5), ..Limits::default() });
        assert_eq!(go, "go wtime 9500 btime 10000 winc 100 binc 100 depth 5");
        assert_eq!(go_command(&Limits::depth(3)).0, "go depth 3");
        assert_eq!(go_command(&Limits::movetime(250)), ("go movetime 250".to_string(), s(30_750)));
    }
}
