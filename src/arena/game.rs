//! What a match needs of a game beyond [`Game`]: its start, and how nature's luck is dealt.
//!
//! A pair of games plays one opening twice with the seats swapped. In a game with chance
//! events (the flip game's face-down pieces) the pair also shares its luck: before the pair a
//! *deal* is drawn (which piece lies face down on which square, as a real shuffle would lay
//! them), and every flip in both games reveals what the deal put there. Each single game is
//! still a fair draw of the rules' chance events (a uniformly shuffled board reveals a
//! uniformly drawn hidden piece at every flip), and the luck of the deal cancels over the pair.

use std::fmt::Debug;
use std::hash::Hash;

use rand::seq::SliceRandom;
use rand_chacha::ChaCha8Rng;

use crate::flip::{FlipGame, FlipMove, FlipRules, Piece, Setup, Square};
use crate::game::{Game, Seat, Turn};
use crate::jungle::{JungleGame, Rules};

pub trait MatchGame: Game {
    /// The game's name ("jungle", "flip").
    const SHAPE_NAME: &'static str;
    /// The rule switches a match is played under.
    type Rules: Clone + Debug + Send + Sync;
    /// Nature's luck for one pair of games (Jungle has none).
    type Deal: Clone + Debug + Hash + Eq + Send + Sync;

    /// The start position under `rules`.
    fn match_start(rules: &Self::Rules) -> Self;

    /// A random deal for a game under `rules`.
    fn random_deal(rules: &Self::Rules, rng: &mut ChaCha8Rng) -> Self::Deal;

    /// Nature's move at a chance node under `deal`.
    fn dealt(&self, deal: &Self::Deal) -> Option<Self::Move>;

    /// The seat to move (at a chance node: the one whose flip is being resolved).
    fn mover(&self) -> Seat;

    /// What tells openings apart (the position and its counters).
    fn opening_key(&self) -> (u64, u32);
}

impl MatchGame for JungleGame {
    const SHAPE_NAME: &'static str = "jungle";
    type Rules = Rules;
    type Deal = ();

    fn match_start(rules: &Rules) -> JungleGame {
        JungleGame::start(*rules)
    }

    fn random_deal(_: &Rules, _: &mut ChaCha8Rng) {}

    fn dealt(&self, _: &()) -> Option<crate::jungle::Move> {
        None
    }

    fn mover(&self) -> Seat {
        self.side_to_move().player()
    }

    fn opening_key(&self) -> (u64, u32) {
        (self.position().hash(), u32::from(self.position().halfmove()))
    }
}

/// The flip game's deal: the piece under each square, by [`Piece::index`].
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct FlipDeal(pub [u8; 16]);

impl MatchGame for FlipGame {
    const SHAPE_NAME: &'static str = "flip";
    type Rules = FlipRules;
    type Deal = FlipDeal;

    fn match_start(rules: &FlipRules) -> FlipGame {
        FlipGame::start(*rules)
    }

    fn random_deal(rules: &FlipRules, rng: &mut ChaCha8Rng) -> FlipDeal {
        let mut pieces: Vec<u8> = (0..16).collect();
        match rules.setup {
            Setup::Mixed => pieces.shuffle(rng),
            // Red's eight over ranks 1-2 (squares 0-7), Blue's over ranks 3-4.
            Setup::OwnHalf => {
                pieces[..8].shuffle(rng);
                pieces[8..].shuffle(rng);
            }
        }
        let mut deal = [0u8; 16];
        deal.copy_from_slice(&pieces);
        FlipDeal(deal)
    }

    fn dealt(&self, deal: &FlipDeal) -> Option<FlipMove> {
        let s: Square = self.pending()?;
        let wanted = Piece::from_index(usize::from(deal.0[s.index()]));
        let mut outcomes = Vec::new();
        self.chance_outcomes(&mut outcomes);
        // A deal laid for this game always has its piece in the pool; anything else (a
        // position not from the start) takes the first possible piece.
        outcomes.iter().map(|o| o.0).find(|m| *m == FlipMove::Reveal(s, wanted)).or_else(|| outcomes.first().map(|o| o.0))
    }

    fn mover(&self) -> Seat {
        self.to_move()
    }

    fn opening_key(&self) -> (u64, u32) {
        (self.hash(), u32::from(self.quiet()))
    }
}

/// Plays nature's moves under `deal` until a player is to move (or the game is over);
/// each move is also appended to `moves`.
pub fn resolve_chance<G: MatchGame>(g: &mut G, deal: &G::Deal, moves: &mut Vec<G::Move>) {
    while matches!(g.turn(), Turn::Chance) {
        let Some(m) = g.dealt(deal) else { return };
        g.play_unchecked(m);
        moves.push(m);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;

    #[test]
    fn a_deal_decides_every_flip_and_own_half_deals_keep_the_halves() {
        let mut rng = ChaCha8Rng::seed_from_u64(3);
        for setup in [Setup::Mixed, Setup::OwnHalf] {
            let rules = FlipRules { setup, ..FlipRules::default() };
            let deal = FlipGame::random_deal(&rules, &mut rng);
            let mut sorted = deal.0;
            sorted.sort_unstable();
            assert_eq!(sorted, core::array::from_fn(|i| i as u8), "a permutation");
            if setup == Setup::OwnHalf {
                assert!(deal.0[..8].iter().all(|&p| p < 8) && deal.0[8..].iter().all(|&p| p >= 8), "{deal:?}");
            }
            // Flip every square in turn: each reveals what the deal put there.
            let mut g = FlipGame::match_start(&rules);
            let mut moves = Vec::new();
            for s in Square::all() {
                if !matches!(g.turn(), Turn::Player(_)) {
                    break;
                }
                if g.play(FlipMove::Flip(s)).is_err() {
                    continue;
                }
                resolve_chance(&mut g, &deal, &mut moves);
                let want = Piece::from_index(usize::from(deal.0[s.index()]));
                assert_eq!(moves.last(), Some(&FlipMove::Reveal(s, want)));
            }
            assert!(moves.len() >= 2);
        }
    }
}
