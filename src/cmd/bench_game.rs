//! What the benches need of a game beyond the house's traits: the positions `bench mcts` and
//! `bench player` search from, and the players' root check. Each game implements it beside its
//! own commands (`cmd/jungle/`, `cmd/flip/`).

use std::sync::Arc;

use crate::config::Config;
use crate::entries::HouseGame;
use crate::mcts::tactics::Tactics;
use crate::trainable::Trainable;

pub trait BenchGame: HouseGame {
    /// The fixed positions the benches search from, under `rules` (the same every run, so a
    /// signature over them changes only when search behaviour does).
    fn bench_roots(rules: &<Self as Trainable>::Rules) -> anyhow::Result<Vec<Self>>;

    /// The check a player with `mcts.play_tactics = plies` puts before each search, under
    /// `config` and `rules`: none at 0; an error where the game has none to give.
    fn root_check(config: &Config, rules: &<Self as Trainable>::Rules, plies: u32) -> anyhow::Result<Option<Arc<dyn Tactics<Self>>>>;
}

/// `n` positions of random games of `G` from the start under `rules`, each with a player to
/// move (chance outcomes drawn at random too; a game that ends starts again), the same for the
/// same `seed`.
pub fn random_positions<G: Trainable>(rules: &<G as Trainable>::Rules, n: usize, seed: u64) -> Vec<G> {
    use crate::game::Turn;
    use rand::{RngExt, SeedableRng};
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
    let mut games: Vec<G> = Vec::with_capacity(n);
    let mut g = G::start_under(rules);
    let mut outcomes = Vec::new();
    while games.len() < n {
        match g.turn() {
            Turn::Over(_) => g = G::start_under(rules),
            Turn::Chance => {
                g.chance_outcomes(&mut outcomes);
                let m = outcomes[rng.random_range(0..outcomes.len())].0;
                g.play_unchecked(m);
            }
            Turn::Player(_) => {
                games.push(g.clone());
                let moves = g.legal_moves();
                let m = moves[rng.random_range(0..moves.len())];
                g.play_unchecked(m);
            }
        }
    }
    games
}
