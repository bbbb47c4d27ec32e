//! Jungle in the benches: the alpha-beta bench positions, and the alpha-beta root check.

use std::sync::Arc;

use crate::alphabeta::Eval;
use crate::alphabeta::bench::BENCH_FENS;
use crate::config::Config;
use crate::entries::jungle::tactics::AlphaBetaTactics;
use crate::jungle::{JungleGame, Rules, parse_fen};
use crate::mcts::tactics::Tactics;

use crate::cmd::bench_game::BenchGame;

impl BenchGame for JungleGame {
    fn bench_roots(rules: &Rules) -> anyhow::Result<Vec<JungleGame>> {
        BENCH_FENS.iter().map(|f| Ok(JungleGame::new(parse_fen(f)?, *rules))).collect::<anyhow::Result<Vec<_>>>()
    }

    fn root_check(config: &Config, rules: &Rules, plies: u32) -> anyhow::Result<Option<Arc<dyn Tactics<JungleGame>>>> {
        Ok(AlphaBetaTactics::for_players(&config.search, Eval::new(&config.eval, *rules), plies))
    }
}
