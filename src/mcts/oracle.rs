//! Exact values from outside the search (for Jungle, the endgame tables): a position an
//! [`Oracle`] knows is a leaf with its exact value, as a finished game is, and a player whose
//! root it knows plays the oracle's best move outright.

use crate::game::{Game, Outcome, Reason, Seat, Turn};

/// An exact result for the side to move.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Exact {
    /// 1 a win, -1 a loss, 0 a draw.
    pub value: f32,
    /// Plies to the end with best play (0 for a draw).
    pub plies: u16,
}

impl Exact {
    /// The finished game's outcome when `mover` is to move here (reason `tablebase`).
    pub fn outcome(&self, mover: Seat) -> Outcome {
        if self.value > 0.0 {
            Outcome::win(mover, Reason::Tablebase)
        } else if self.value < 0.0 {
            Outcome::win(mover.other(), Reason::Tablebase)
        } else {
            Outcome::draw(Reason::Tablebase)
        }
    }

    /// "tablebase win in 17", "tablebase loss in 4", "tablebase draw".
    pub fn describe(&self, source: &str) -> String {
        if self.value > 0.0 {
            format!("{source} win in {}", self.plies)
        } else if self.value < 0.0 {
            format!("{source} loss in {}", self.plies)
        } else {
            format!("{source} draw")
        }
    }
}

/// Knows the exact values of some positions of `G`.
pub trait Oracle<G>: Send + Sync {
    /// The exact result for the side to move in `state`, if known.
    fn exact(&self, state: &G) -> Option<Exact>;

    /// What the values come from, for reports ("tablebase").
    fn source(&self) -> &'static str;
}

/// The best move at a root the oracle knows: the fastest win, else a draw, else the longest
/// loss (moves that end the game count as they end it); with it, the root's own result.
pub fn best_move<G: Game>(oracle: &dyn Oracle<G>, root: &G) -> Option<(G::Move, Exact)> {
    let Turn::Player(me) = root.turn() else { return None };
    oracle.exact(root)?;
    let mut best: Option<(G::Move, Exact)> = None;
    for &mv in root.legal_moves().iter() {
        let mut child = root.clone();
        child.play_unchecked(mv);
        let e = match child.turn() {
            Turn::Over(o) => Exact { value: o.value_for(me), plies: 1 },
            Turn::Chance => return None,
            Turn::Player(p) => {
                let e = oracle.exact(&child)?;
                let value = if p == me { e.value } else { -e.value };
                Exact { value, plies: e.plies.saturating_add(1) }
            }
        };
        // Higher value first; among wins the shortest, among losses the longest.
        let key = |x: &Exact| (x.value, if x.value > 0.0 { -i32::from(x.plies) } else { i32::from(x.plies) });
        if best.as_ref().is_none_or(|(_, b)| key(&e) > key(b)) {
            best = Some((mv, e));
        }
    }
    best.map(|(m, e)| (m, Exact { value: e.value, plies: if e.value == 0.0 { 0 } else { e.plies } }))
}

impl<G> std::fmt::Debug for dyn Oracle<G> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Oracle({})", self.source())
    }
}
