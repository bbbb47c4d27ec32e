//! The rules of Jungle: bitboard move generation, positions, history, notation and perft.

pub mod capture;
pub mod chase;
pub mod encode;
pub mod explain;
pub mod history;
pub mod legality;
pub mod movegen;
pub mod notation;
pub mod perft;
pub mod position;
pub mod rules;
pub mod state;
pub mod tables;
pub mod trainable;
pub mod types;

pub use chase::{ChaseRule, Restriction};
pub use history::{History, Step};
pub use movegen::{MAX_MOVES, MoveList};
pub use notation::{FenError, MoveTextError, START_FEN, diagram, diagram_turned, fen, legend, parse_fen, parse_move};
pub use position::Position;
pub use rules::{Repetition, Rules, RulesError};
pub use state::{JungleGame, PlayError, describe_outcome};
pub use types::{Kind, Move, Piece, Side, Square};
