//! Jungle's players for matches, the ladder, the protocol and `play`: alpha-beta
//! (`alphabeta:depth=N`, `movetime=MS`, ...), MCTS with a Jungle network, random, and external
//! programs that speak the protocol.

use std::sync::Arc;
use std::time::Duration;

use super::tactics::AlphaBetaTactics;
use crate::alphabeta::{Engine, Eval, SearchConfig, level};
use crate::arena::external::ExternalPlayer;
use crate::arena::spec::{Contestant, Contestants, PlayerError, PlayerSettings, PlayerSpec, any_game_player};
use crate::game::Encode;
use crate::jungle::{JungleGame, Rules};
use crate::mcts::MctsConfig;
use crate::mcts::oracle::Oracle;
use crate::nn::NetEvaluator;
use crate::player::{Limits, Player};
use crate::tb::Tablebase;

/// Builds Jungle contestants from a spec (one per match worker; a network is loaded once and
/// shared).
pub struct JungleFactory {
    pub spec: PlayerSpec,
    search: SearchConfig,
    eval: Eval,
    mcts: MctsConfig,
    net: Option<Arc<NetEvaluator>>,
    /// The endgame tables of `[tablebase]`, when a folder is set.
    tb: Option<Arc<Tablebase>>,
}

impl JungleFactory {
    /// A factory for `spec` in games under `rules`: an `mcts` spec plays with `net` when it
    /// is given, otherwise its model file is loaded now; an external program is started once
    /// now, so that a broken command fails before the match begins.
    pub fn new(spec: PlayerSpec, settings: &PlayerSettings, rules: Rules, net: Option<Arc<NetEvaluator>>) -> Result<JungleFactory, PlayerError> {
        let net = match (&spec, net) {
            (PlayerSpec::Expectiminimax { .. }, _) => return Err(PlayerError::WrongGame { spec: spec.to_string(), game: "jungle" }),
            (PlayerSpec::Mcts { .. }, Some(net)) => Some(net),
            (PlayerSpec::Mcts { model, .. }, None) => Some(Arc::new(NetEvaluator::load(model, &settings.hardware, JungleGame::SHAPE)?)),
            _ => None,
        };
        if let PlayerSpec::External { cmd, .. } = &spec {
            drop(ExternalPlayer::spawn(cmd)?);
        }
        let tb = settings.tablebase.open(&rules).map_err(|e| PlayerError::Tablebase(e.to_string()))?;
        Ok(JungleFactory { spec, search: settings.search.clone(), eval: Eval::new(&settings.eval, rules), mcts: settings.mcts.clone(), net, tb })
    }
}

impl Contestants<JungleGame> for JungleFactory {
    fn name(&self) -> String {
        self.spec.to_string()
    }

    fn make(&self, seed: u64) -> Result<Contestant<JungleGame>, PlayerError> {
        let ms = |t: Option<u64>| t.map(Duration::from_millis);
        let (player, limits): (Box<dyn Player<JungleGame>>, Limits) = match &self.spec {
            PlayerSpec::AlphaBeta { depth, movetime, nodes, hash_mb, threads, temp, elo, .. } => {
                let config = SearchConfig { hash_mb: *hash_mb, threads: *threads, ..self.search.clone() };
                let engine = Engine::new(&config, self.eval.clone()).with_tablebase(self.tb.clone());
                let limits = Limits { depth: *depth, nodes: *nodes, movetime: ms(*movetime), ..Limits::default() };
                // A level or a temperature: the player holds its own limits (the protocol and
                // `play` pass only theirs).
                let level = match elo {
                    Some(e) => Some(level::for_elo(*e)),
                    None => temp.map(|t| level::Level::only(level::Play { depth: *depth, nodes: *nodes, temp: Some(t) })),
                };
                match level {
                    Some(level) => (Box::new(level::LevelPlayer::new(engine, level, seed, self.spec.to_string())), limits),
                    None => (Box::new(engine), limits),
                }
            }
            PlayerSpec::Mcts { .. } | PlayerSpec::Random { .. } => {
                let oracle = self.tb.clone().map(|t| t as Arc<dyn Oracle<JungleGame>>);
                let plies = self.spec.mcts_config(&self.mcts).play_tactics;
                let tactics = AlphaBetaTactics::for_players(&self.search, self.eval.clone(), plies);
                any_game_player(&self.spec, self.net.as_ref(), &self.mcts, seed, oracle, tactics)?
            }
            PlayerSpec::External { cmd, depth, movetime, nodes, .. } => {
                (Box::new(ExternalPlayer::spawn(cmd)?), Limits { depth: *depth, nodes: *nodes, movetime: ms(*movetime), ..Limits::default() })
            }
            PlayerSpec::Expectiminimax { .. } => return Err(PlayerError::WrongGame { spec: self.spec.to_string(), game: "jungle" }),
        };
        Ok(Contestant { player, limits, tc: self.spec.time_control(), overhead: Duration::from_millis(self.search.move_overhead_ms) })
    }

    fn network(&self) -> Option<&Arc<NetEvaluator>> {
        self.net.as_ref()
    }
}
