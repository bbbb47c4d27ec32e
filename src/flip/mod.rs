//! The 4×4 flip game (暗布斗兽棋 / 翻翻棋), the second game of junglezero (docs/rules.md, "The 4 × 4
//! flip variant"): sixteen face-down pieces, flips that reveal a piece drawn from the face-down
//! ones (a chance node), one-square steps and captures by the big game's ranks.
//!
//! The rules, the text forms, perft and the network encoding live here; the game plugs into
//! search through [`crate::game::Game`] and [`crate::game::Encode`].

pub mod encode;
pub mod notation;
pub mod perft;
pub mod rules;
pub mod state;
pub mod trainable;
pub mod types;

pub use notation::{FlipMoveError, PositionError, diagram, legend, parse_move, parse_position, play_text, position};
pub use rules::{FlipRules, FlipRulesError, Setup};
pub use state::{FlipGame, FlipMoves};
pub use types::{Cell, FlipMove, Piece, Square};
