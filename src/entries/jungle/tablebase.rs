//! The endgame tables as the search's oracle: a Jungle position they hold is a leaf with its
//! exact value, within the no-capture limit's reach (see `Tablebase::probe_game`).

use crate::jungle::JungleGame;
use crate::mcts::oracle::{Exact, Oracle};
use crate::tb::{Tablebase, Value};

impl Oracle<JungleGame> for Tablebase {
    fn exact(&self, state: &JungleGame) -> Option<Exact> {
        let pos = state.position();
        if (pos.count(crate::jungle::Side::Red) + pos.count(crate::jungle::Side::Blue)) as usize > self.max_pieces() {
            return None;
        }
        Some(match self.probe_game(pos, state.rules())? {
            Value::Win(d) => Exact { value: 1.0, plies: d },
            Value::Loss(d) => Exact { value: -1.0, plies: d },
            Value::Draw => Exact { value: 0.0, plies: 0 },
        })
    }

    fn source(&self) -> &'static str {
        "tablebase"
    }
}
