//! Jungle as external programs speak it: `position fen FEN [moves ...]` and moves as `a3a4`.

use crate::arena::external::ExternalGame;
use crate::jungle::{JungleGame, Move, fen, parse_move};

impl ExternalGame for JungleGame {
    fn position_command(&self) -> String {
        let root = fen(self.root());
        if self.moves().is_empty() {
            format!("position fen {root}")
        } else {
            let moves: Vec<String> = self.moves().iter().map(Move::to_string).collect();
            format!("position fen {root} moves {}", moves.join(" "))
        }
    }

    fn read_move(&self, text: &str) -> Option<Move> {
        parse_move(text).ok()
    }
}
