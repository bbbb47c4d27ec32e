//! A position as the page asks for it (start FEN, moves played, rule switches) and as the page
//! draws it (pieces, legal moves, the result). Each game's entry reads the request and fills in
//! the view.

use serde::{Deserialize, Serialize};

use super::ApiError;
use crate::animals::{Kind, Side};
use crate::registry::GameName;
use crate::switches::Switches;

/// The most moves a request may replay (a game that long ended at any sane move cap).
pub const MAX_MOVES: usize = 4096;

/// A game as the page keeps it: where it started, the moves since, and the rule switches that
/// differ from the server's rules (`key=value,...`; empty: the server's rules).
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PositionRequest {
    /// `jungle` (the default) or `flip`.
    #[serde(default)]
    pub game: GameName,
    /// The start: a FEN, or for the flip game its position string (none: the start).
    #[serde(default)]
    pub fen: Option<String>,
    #[serde(default)]
    pub moves: Vec<String>,
    #[serde(default)]
    pub rules: Option<String>,
}

/// `base` with a request's rule switches (`key=value,...`; none, empty or `default`: as is).
pub fn with_overrides<R: Switches>(base: R, spec: Option<&str>) -> Result<R, ApiError>
where
    R::Error: std::fmt::Display,
{
    let mut r = base;
    if let Some(spec) = spec {
        r.apply_overrides(spec).map_err(|e| ApiError::bad(format!("bad rules: {e}")))?;
    }
    Ok(r)
}

/// Refuses more moves than a request may replay.
pub fn check_length(moves: usize) -> Result<(), ApiError> {
    if moves > MAX_MOVES {
        return Err(ApiError::bad(format!("{moves} moves is more than the {MAX_MOVES} a request may replay")));
    }
    Ok(())
}

/// `red` or `blue`.
pub fn side_name(side: Side) -> &'static str {
    match side {
        Side::Red => "red",
        Side::Blue => "blue",
    }
}

#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct PieceView {
    pub square: String,
    pub side: String,
    /// `rat` ... `elephant`.
    pub kind: String,
    /// The FEN letter (upper case Red, lower case Blue).
    pub letter: String,
    /// The animal's strength, 1 (rat) to 8 (elephant), under the position's rules.
    pub strength: u8,
}

#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct ResultView {
    /// `red`, `blue`, or none for a draw.
    pub winner: Option<String>,
    /// The reason's short name (`den`, `annihilation`, `no-moves`, `repetition`, ...).
    pub reason: String,
    /// The result in words.
    pub text: String,
}

impl PieceView {
    pub fn new(square: String, side: Side, kind: Kind, letter: char, dog_over_wolf: bool) -> PieceView {
        PieceView {
            square,
            side: side_name(side).to_string(),
            kind: kind.name().to_ascii_lowercase(),
            letter: letter.to_string(),
            strength: kind.rank(dog_over_wolf),
        }
    }
}

/// Everything the page draws for a position.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct PositionView {
    /// `jungle` or `flip`.
    pub game: String,
    /// The FEN the game started from.
    pub root_fen: String,
    /// The current position's FEN.
    pub fen: String,
    pub moves: Vec<String>,
    /// The rule switches in force, `default` or `key=value,...`.
    pub rules: String,
    pub side_to_move: String,
    pub ply: u32,
    /// Plies since the last capture (the no-capture rule counts these).
    pub halfmove: u16,
    pub pieces: Vec<PieceView>,
    /// Legal moves as `from` `to` text (`a3a4`); empty when the game is over.
    pub legal: Vec<String>,
    pub last_move: Option<String>,
    pub result: Option<ResultView>,
    /// The flip game's face-down squares, hidden pool and colours.
    pub flip: Option<FlipExtra>,
}

/// What the page draws beside the flip game's board.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct FlipExtra {
    /// Squares with a face-down piece.
    pub hidden: Vec<String>,
    /// The face-down pieces still to appear (FEN letters, one per piece).
    pub pool: Vec<String>,
    /// The colour the first player owns (none before the first flip).
    pub first_colour: Option<String>,
    /// The colour of the player to move (none before the first flip).
    pub colour_to_move: Option<String>,
}
