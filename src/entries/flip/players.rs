//! Players of the flip game for matches: `expectiminimax:depth=N` (or `movetime=MS`,
//! `nodes=N`), `mcts:model=PATH,sims=N` with a flip-game network, and `random`.

use std::sync::Arc;
use std::time::Duration;

use crate::alphabeta::flip::{FlipEngine, OpeningCache};
use crate::arena::spec::{Contestant, Contestants, PlayerError, PlayerSpec, any_game_player};
use crate::flip::FlipGame;
use crate::game::Encode;
use crate::mcts::MctsConfig;
use crate::nn::NetEvaluator;
use crate::nn::device::HardwareConfig;
use crate::player::{Limits, Player};

/// Builds flip-game contestants from a spec (a network is loaded once and shared).
pub struct FlipFactory {
    spec: PlayerSpec,
    mcts: MctsConfig,
    net: Option<Arc<NetEvaluator>>,
    /// The expectiminimax engines' finished opening searches, shared across games.
    openings: Arc<OpeningCache>,
}

impl FlipFactory {
    /// A factory for `spec`: an `mcts` spec plays with `net` when it is given, otherwise its
    /// model file is loaded now; the big game's engines are refused.
    pub fn new(spec: PlayerSpec, mcts: &MctsConfig, hardware: &HardwareConfig, net: Option<Arc<NetEvaluator>>) -> Result<FlipFactory, PlayerError> {
        let net = match (&spec, net) {
            (PlayerSpec::AlphaBeta { .. } | PlayerSpec::External { .. }, _) => {
                return Err(PlayerError::WrongGame { spec: spec.to_string(), game: "flip" });
            }
            (PlayerSpec::Mcts { .. }, Some(net)) => Some(net),
            (PlayerSpec::Mcts { model, .. }, None) => Some(Arc::new(NetEvaluator::load(model, hardware, FlipGame::SHAPE)?)),
            _ => None,
        };
        Ok(FlipFactory { spec, mcts: mcts.clone(), net, openings: Arc::default() })
    }
}

impl Contestants<FlipGame> for FlipFactory {
    fn name(&self) -> String {
        self.spec.to_string()
    }

    fn make(&self, seed: u64) -> Result<Contestant<FlipGame>, PlayerError> {
        let ms = |t: Option<u64>| t.map(Duration::from_millis);
        let (player, limits): (Box<dyn Player<FlipGame>>, Limits) = match &self.spec {
            PlayerSpec::Expectiminimax { depth, movetime, nodes, .. } => {
                (Box::new(FlipEngine::with_cache(self.openings.clone())), Limits { depth: *depth, nodes: *nodes, movetime: ms(*movetime), ..Limits::default() })
            }
            PlayerSpec::Mcts { .. } | PlayerSpec::Random { .. } => any_game_player(&self.spec, self.net.as_ref(), &self.mcts, seed, None, None)?,
            PlayerSpec::AlphaBeta { .. } | PlayerSpec::External { .. } => {
                return Err(PlayerError::WrongGame { spec: self.spec.to_string(), game: "flip" });
            }
        };
        Ok(Contestant { player, limits, tc: self.spec.time_control(), overhead: Duration::ZERO })
    }

    fn network(&self) -> Option<&Arc<NetEvaluator>> {
        self.net.as_ref()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::arena::play::{MatchSettings, run_match};
    use crate::flip::FlipRules;

    #[test]
    fn expectiminimax_beats_random_over_dealt_pairs_and_big_game_engines_are_refused() {
        let hw = HardwareConfig::default();
        let mcts = MctsConfig::default();
        let engine = FlipFactory::new("expectiminimax:depth=2".parse().unwrap(), &mcts, &hw, None).unwrap();
        let random = FlipFactory::new("random".parse().unwrap(), &mcts, &hw, None).unwrap();
        let s = MatchSettings::<FlipGame> {
            games: 20,
            concurrency: 2,
            opening_plies: 0,
            seed: 3,
            rules: FlipRules::default(),
            sprt: None,
            max_consecutive_forfeits: 0,
            adjudication: Default::default(),
            time_margin: Duration::ZERO,
            oracle: None,
        };
        let out = run_match(&engine, &random, &s, |_, _, _| {}).unwrap();
        assert_eq!(out.games.len(), 20);
        assert_eq!(out.openings, 10, "ten deals, each played with both seats");
        assert!(out.tally.score() > 0.75, "{:?}", out.tally);
        // Both games of a pair reveal the same piece at the same square.
        for pair in out.games.chunks(2) {
            let reveals = |g: &crate::arena::play::PlayedGame<FlipGame>| -> Vec<String> {
                g.moves.iter().filter(|m| matches!(m, crate::flip::FlipMove::Reveal(..))).map(|m| m.to_string()).collect()
            };
            let (a, b) = (reveals(&pair[0]), reveals(&pair[1]));
            for r in &a {
                let square = &r[..4];
                if let Some(other) = b.iter().find(|x| x.starts_with(square)) {
                    assert_eq!(other, r, "same deal within a pair");
                }
            }
        }
        for spec in ["alphabeta:depth=2", "external:cmd=\"x\""] {
            let e = FlipFactory::new(spec.parse().unwrap(), &mcts, &hw, None).err().expect("refused").to_string();
            assert!(e.contains("does not play the flip game"), "{e}");
        }
    }
}
