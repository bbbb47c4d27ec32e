//! Each game's entry in the house: everything the training loop, the arena and its ladder, the
//! protocol, the web page and the command line need of a game, implemented in one place per
//! game (`jungle/`, `flip/`) beside the game's own rules module (`crate::jungle`,
//! `crate::flip`).
//!
//! Each part of the program says what it needs of a game as a trait of its own
//! ([`MatchGame`](crate::arena::match_game::MatchGame) and
//! [`ArenaGame`](crate::arena::match_game::ArenaGame) for matches, [`RunGame`] for the training loop,
//! [`ProtocolGame`] for the protocol, [`ServeGame`] for the web page) and is generic over it;
//! [`HouseGame`] gathers them with what the command line needs. The registry
//! ([`crate::games`]) turns a game's name into its type, and nothing else names a game. To add a
//! game: its rules module, its entry here implementing [`HouseGame`], and one line in the
//! registry (ARCHITECTURE.md, "Adding a game").

pub mod analysis;
pub mod flip;
pub mod jungle;
pub mod waiting;

use crate::arena::play::PlayedGame;
use crate::config::Config;
use crate::game::Seat;
use crate::pipeline::RunGame;
use crate::protocol::variant::ProtocolGame;
use crate::serve::board::ServeGame;
use crate::trainable::Trainable;

/// A game of the house: every part's trait, and what the command line needs of it.
pub trait HouseGame: ProtocolGame + ServeGame {
    /// How moves are written, for help lines.
    const MOVE_HELP: &'static str;
    /// What the text of a position is called (`show` prints it after this word).
    const ROOT_WORD: &'static str;
    /// A config (under configs/) whose training loop runs in seconds: the tests train it for
    /// every game of the registry.
    const SMOKE_CONFIG: &'static str;
    /// The shipped book of balanced openings (`books/`, built by `junglezero book`) that
    /// `arena` and `tournament` play by default under the default rules; none: random openings.
    const BOOK: Option<&'static str> = None;

    /// Applies `--rules` switches (`key=value,...`) to `rules`.
    fn apply_rules(rules: &mut <Self as Trainable>::Rules, spec: &str) -> Result<(), String>;

    /// The rules `config` plays under, with `--rules` switches (if any) applied.
    fn rules_with(config: &Config, spec: Option<&str>) -> Result<<Self as Trainable>::Rules, String> {
        let mut rules = <Self as RunGame>::rules(config);
        if let Some(spec) = spec {
            Self::apply_rules(&mut rules, spec)?;
        }
        Ok(rules)
    }

    /// The board as text, one rank a line.
    fn diagram(&self) -> String;

    /// The board as the player of `seat` sees it across the table. The first seat sees
    /// [`diagram`](Self::diagram); a game whose board has a near and a far side turns it for
    /// the second.
    fn diagram_for(&self, seat: Seat) -> String {
        let _ = seat;
        self.diagram()
    }

    /// What the diagram's letters and marks mean, on one line.
    fn legend() -> String;

    /// Who plays `seat`, in words ("Red"; "the first player").
    fn seat_name(seat: Seat) -> &'static str;

    /// The colour to move, where the position says it (the flip game's first move decides
    /// the colours, so it has none to name).
    fn mover_name(&self) -> Option<String>;

    /// Leaves of the move tree `depth` plies deep (a flip and what it reveals are one ply).
    fn perft(&self, depth: u32) -> u64;

    /// [`perft`](Self::perft) below each move, as (move text, leaves).
    fn divide(&self, depth: u32) -> Vec<(String, u64)>;

    /// What an export of a network of this game says about the game: sample positions and the
    /// layout of its planes and actions.
    fn export(rules: &<Self as Trainable>::Rules) -> crate::nn::files::export::GameExport;

    /// A match's games as text (`arena --games-out`), where the game has a text form for
    /// games (`None`: it has not; its records are the run's shards).
    fn games_text(games: &[PlayedGame<Self>], a: &str, b: &str, rules: &<Self as Trainable>::Rules) -> Option<String>;
}
