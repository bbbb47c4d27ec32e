//! Opening suites: distinct random openings, each played twice with the seats swapped (in a
//! game with chance events, under one deal shared by the pair; see [`super::game`]).

use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;

use super::game::{MatchGame, resolve_chance};
use crate::game::Turn;

/// An opening: nature's deal and the moves played from the start (nature's draws included).
#[derive(Debug)]
pub struct Opening<G: MatchGame> {
    pub deal: G::Deal,
    pub moves: Vec<G::Move>,
}

impl<G: MatchGame> Clone for Opening<G> {
    fn clone(&self) -> Self {
        Opening { deal: self.deal.clone(), moves: self.moves.clone() }
    }
}

impl<G: MatchGame> PartialEq for Opening<G> {
    fn eq(&self, o: &Self) -> bool {
        self.deal == o.deal && self.moves == o.moves
    }
}

impl<G: MatchGame> Opening<G> {
    /// Plies of the opening.
    pub fn len(&self) -> usize {
        self.moves.len()
    }

    pub fn is_empty(&self) -> bool {
        self.moves.is_empty()
    }
}

/// Up to `count` distinct openings of `plies` random legal moves from the start position
/// (deduplicated by the position they reach and the deal; never a finished game). Fewer are
/// returned when that few distinct ones exist (e.g. `plies = 0` in Jungle gives one).
pub fn random_openings<G: MatchGame>(rules: &G::Rules, plies: usize, count: usize, seed: u64) -> Vec<Opening<G>> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut seen = std::collections::HashSet::new();
    let mut out = Vec::with_capacity(count);
    let mut attempts = 0;
    while out.len() < count && attempts < count * 200 + 100 {
        attempts += 1;
        let deal = G::random_deal(rules, &mut rng);
        let mut g = G::match_start(rules);
        let mut moves = Vec::with_capacity(plies);
        let mut played = 0;
        while played < plies {
            resolve_chance(&mut g, &deal, &mut moves);
            if !matches!(g.turn(), Turn::Player(_)) {
                break;
            }
            let legal = g.legal_moves();
            let m = legal[rng.random_range(0..legal.len())];
            g.play_unchecked(m);
            moves.push(m);
            played += 1;
        }
        resolve_chance(&mut g, &deal, &mut moves);
        if g.outcome().is_some() || played < plies {
            continue;
        }
        if seen.insert((g.opening_key(), deal.clone())) {
            out.push(Opening { deal, moves });
        }
    }
    out
}

/// The game after an opening.
pub fn start_game<G: MatchGame>(rules: &G::Rules, opening: &Opening<G>) -> G {
    let mut g = G::match_start(rules);
    for &m in &opening.moves {
        g.play_unchecked(m);
    }
    g
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::flip::{FlipGame, FlipRules};
    use crate::game::Game;
    use crate::jungle::{JungleGame, Rules};

    #[test]
    fn openings_are_distinct_and_reproducible() {
        let r = Rules::default();
        let a = random_openings::<JungleGame>(&r, 4, 50, 9);
        assert_eq!(a.len(), 50);
        let hashes: std::collections::HashSet<u64> = a.iter().map(|o| start_game(&r, o).position().hash()).collect();
        assert_eq!(hashes.len(), 50, "deduplicated by position");
        assert_eq!(a, random_openings(&r, 4, 50, 9), "same seed, same suite");
        assert_ne!(a, random_openings(&r, 4, 50, 10));
        assert_eq!(random_openings::<JungleGame>(&r, 0, 5, 1).len(), 1, "only one 0-ply opening exists");
        // Two plies from the start reach at most 24 * 24 positions.
        assert!(random_openings::<JungleGame>(&r, 1, 100, 1).len() <= 24);
    }

    #[test]
    fn flip_openings_differ_by_their_deals_and_end_at_a_player_s_turn() {
        let r = FlipRules::default();
        let a = random_openings::<FlipGame>(&r, 0, 20, 4);
        assert_eq!(a.len(), 20, "no moves, twenty deals");
        assert!(a.iter().all(|o| o.moves.is_empty()));
        let b = random_openings::<FlipGame>(&r, 2, 20, 4);
        assert_eq!(b.len(), 20);
        for o in &b {
            // Two decisions, each flip followed by its draw.
            assert!((2..=4).contains(&o.moves.len()), "{:?}", o.moves);
            assert!(matches!(start_game(&r, o).turn(), Turn::Player(_)));
        }
    }
}
