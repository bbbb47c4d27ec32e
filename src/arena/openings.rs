//! Opening suites: distinct random openings, each played twice with colours swapped.

use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;

use crate::game::Game;
use crate::jungle::{JungleGame, Move, Rules};

/// Up to `count` distinct openings of `plies` random legal moves from the start position
/// (deduplicated by the position they reach; never a finished game). Fewer are returned when
/// that few distinct positions exist (e.g. `plies = 0` gives one).
pub fn random_openings(rules: &Rules, plies: usize, count: usize, seed: u64) -> Vec<Vec<Move>> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut seen = std::collections::HashSet::new();
    let mut out = Vec::with_capacity(count);
    let mut attempts = 0;
    while out.len() < count && attempts < count * 200 + 100 {
        attempts += 1;
        let mut g = JungleGame::start(*rules);
        let mut moves = Vec::with_capacity(plies);
        for _ in 0..plies {
            if g.outcome().is_some() {
                break;
            }
            let legal = g.legal_moves();
            let m = legal[rng.random_range(0..legal.len())];
            g.play_move_unchecked(m);
            moves.push(m);
        }
        if g.outcome().is_some() || moves.len() < plies {
            continue;
        }
        if seen.insert((g.position().hash(), g.position().halfmove())) {
            out.push(moves);
        }
    }
    out
}

/// The game after an opening.
pub fn start_game(rules: &Rules, opening: &[Move]) -> JungleGame {
    let mut g = JungleGame::start(*rules);
    for &m in opening {
        g.play_move_unchecked(m);
    }
    g
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn openings_are_distinct_and_reproducible() {
        let r = Rules::default();
        let a = random_openings(&r, 4, 50, 9);
        assert_eq!(a.len(), 50);
        let hashes: std::collections::HashSet<u64> = a.iter().map(|o| start_game(&r, o).position().hash()).collect();
        assert_eq!(hashes.len(), 50, "deduplicated by position");
        assert_eq!(a, random_openings(&r, 4, 50, 9), "same seed, same suite");
        assert_ne!(a, random_openings(&r, 4, 50, 10));
        assert_eq!(random_openings(&r, 0, 5, 1).len(), 1, "only one 0-ply opening exists");
        // Two plies from the start reach at most 24 * 24 positions.
        assert!(random_openings(&r, 1, 100, 1).len() <= 24);
    }
}
