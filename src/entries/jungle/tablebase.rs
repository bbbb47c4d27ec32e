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

/// Up to `n` random positions the tables hold (any of their materials of `pieces` pieces,
/// either side to move) whose exact result `keep` accepts, with that result; the same for the
/// same `seed`.
pub fn sample(
    tb: &Tablebase,
    rules: &crate::jungle::Rules,
    n: usize,
    seed: u64,
    pieces: std::ops::RangeInclusive<usize>,
    keep: &dyn Fn(&Exact) -> bool,
) -> Vec<(JungleGame, Exact)> {
    use rand::{RngExt, SeedableRng};
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
    let materials: Vec<crate::tb::Material> =
        crate::tb::Material::all_up_to(tb.max_pieces().min(3)).into_iter().filter(|m| pieces.contains(&m.count())).collect();
    if materials.is_empty() {
        return Vec::new();
    }
    let mut out = Vec::with_capacity(n);
    let mut tries = 0;
    while out.len() < n && tries < n * 20_000 {
        tries += 1;
        let m = materials[rng.random_range(0..materials.len())];
        let pieces = m.pieces();
        let squares: Vec<usize> = (0..pieces.len()).map(|_| rng.random_range(0..63usize)).collect();
        if !crate::tb::index::valid(&pieces, &squares) {
            continue;
        }
        let stm = if rng.random::<bool>() { crate::jungle::Side::Red } else { crate::jungle::Side::Blue };
        let g = JungleGame::new(crate::tb::index::position(&pieces, &squares, stm), *rules);
        if let Some(e) = tb.exact(&g).filter(|e| keep(e)) {
            out.push((g, e));
        }
    }
    out
}
