//! The UCI-style text protocol (`junglezero uci`).
//!
//! Verbs: `uci`, `isready`, `ucinewgame`, `position startpos|fen FEN [moves ...]`,
//! `go depth|movetime|nodes|wtime|btime|winc|binc|movestogo|infinite`, `stop`, `quit`,
//! `setoption name X value Y`. Searches run on a worker thread so `stop` and `isready` are
//! answered at once; any other command waits for the running search to finish (an infinite
//! one is stopped first). Malformed or illegal lines get `info string error: ...` and the
//! engine keeps serving. End of input ends the session cleanly.
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

use std::io::{BufRead, Write};
use std::sync::{Arc, Mutex};

use crate::config::Config;
use crate::flip::FlipGame;
use crate::games::GameName;
use crate::jungle::JungleGame;
use options::OptionError;
use parse::Command;
use session::Session;

/// Where protocol output goes; shared with the search thread.
pub type Out = Arc<Mutex<dyn Write + Send>>;

pub fn send(out: &Out, line: &str) {
    if let Ok(mut w) = out.lock() {
        let _ = writeln!(w, "{line}");
        let _ = w.flush();
    }
}

/// The session of the game being served.
enum Variant {
    Jungle(Session<JungleGame>),
    Flip(Session<FlipGame>),
}

/// The protocol server: a session of the config's game, replaced by one of the other game when
/// `setoption name UCI_Variant value jungle|flip` asks for it (the settings carry over; the
/// position, engine choice and network do not).
pub struct Server {
    out: Out,
    /// Always `Some` between commands.
    game: Option<Variant>,
}

impl Server {
    pub fn new(config: Config, out: Out) -> Server {
        let game = Server::session(config, out.clone());
        Server { out, game: Some(game) }
    }

    fn session(config: Config, out: Out) -> Variant {
        match config.game {
            GameName::Jungle => Variant::Jungle(Session::new(config, out)),
            GameName::Flip => Variant::Flip(Session::new(config, out)),
        }
    }

    /// Reads commands until `quit` or end of input.
    pub fn serve(&mut self, input: impl BufRead) {
        for line in input.lines() {
            let Ok(line) = line else { break };
            match parse::parse(&line) {
                Ok(Command::Quit) => break,
                Ok(cmd) => self.handle(cmd),
                Err(e) => send(&self.out, &format!("info string error: {e}")),
            }
        }
        match &mut self.game {
            Some(Variant::Jungle(s)) => s.stop(),
            Some(Variant::Flip(s)) => s.stop(),
            None => {}
        }
    }

    fn handle(&mut self, cmd: Command) {
        if let Command::SetOption { name, value } = &cmd
            && name.eq_ignore_ascii_case("UCI_Variant")
        {
            return self.set_variant(value.as_deref());
        }
        match &mut self.game {
            Some(Variant::Jungle(s)) => s.handle(cmd),
            Some(Variant::Flip(s)) => s.handle(cmd),
            None => {}
        }
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
        let serving = match &self.game {
            Some(Variant::Jungle(_)) => Some(GameName::Jungle),
            Some(Variant::Flip(_)) => Some(GameName::Flip),
            None => None,
        };
        if serving == Some(wanted) {
            return;
        }
        let mut config = match self.game.take() {
            Some(Variant::Jungle(s)) => s.into_config(),
            Some(Variant::Flip(s)) => s.into_config(),
            None => Config::default(),
        };
        config.game = wanted;
        self.game = Some(Server::session(config, self.out.clone()));
    }
}

/// Serves stdin/stdout until `quit` or end of input.
pub fn serve_stdio(config: Config) {
    let out: Out = Arc::new(Mutex::new(std::io::stdout()));
    let mut server = Server::new(config, out);
    server.serve(std::io::stdin().lock());
}
