//! Perft for the flip game (docs/rules.md): a flip and what it reveals are one ply, branching into
//! each distinct piece that can appear (two face-down pieces of one kind would be one branch;
//! each side has one of each animal, so every face-down piece is its own kind).

use super::state::FlipGame;
use super::types::FlipMove;
use crate::game::{Game, Turn};

/// The children of `g` one ply on, each with the move text that leads there (`f:b3=L` for a
/// flip and its outcome).
pub fn children(g: &FlipGame) -> Vec<(String, FlipGame)> {
    let mut out = Vec::new();
    let mut outcomes = Vec::new();
    let mut expand = |g: &FlipGame, out: &mut Vec<(String, FlipGame)>| {
        g.chance_outcomes(&mut outcomes);
        for &(m, _) in &outcomes {
            let mut c = g.clone();
            c.play_unchecked(m);
            out.push((m.to_string(), c));
        }
    };
    match g.turn() {
        Turn::Over(_) => {}
        Turn::Chance => expand(g, &mut out),
        Turn::Player(_) => {
            for &m in g.legal_moves().iter() {
                let mut c = g.clone();
                c.play_unchecked(m);
                if let FlipMove::Flip(_) = m {
                    expand(&c, &mut out);
                } else {
                    out.push((m.to_string(), c));
                }
            }
        }
    }
    out
}

/// Move sequences of exactly `depth` plies from `g`.
pub fn perft(g: &FlipGame, depth: u32) -> u64 {
    if depth == 0 {
        return 1;
    }
    children(g).iter().map(|(_, c)| if depth == 1 { 1 } else { perft(c, depth - 1) }).sum()
}

/// `perft(depth - 1)` below each first ply, sorted by move text.
pub fn divide(g: &FlipGame, depth: u32) -> Vec<(String, u64)> {
    let mut out: Vec<(String, u64)> = children(g).iter().map(|(m, c)| (m.clone(), perft(c, depth.saturating_sub(1)))).collect();
    out.sort();
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::flip::{FlipRules, Setup};

    #[test]
    fn the_first_two_plies_from_the_start() {
        let g = FlipGame::start(FlipRules::default());
        assert_eq!(perft(&g, 1), 256, "16 squares x 16 pieces");
        assert_eq!(perft(&g, 2), 57_600, "256 x (15 squares x 15 pieces)");
        let own = FlipGame::start(FlipRules { setup: Setup::OwnHalf, ..FlipRules::default() });
        assert_eq!(perft(&own, 1), 128, "16 squares x the 8 pieces of the square's half");
    }
}
