//! Protocol options (`setoption`): engine choice, network, engine settings and every rule
//! switch.

use std::sync::Arc;

use crate::arena::spec::{PlayerError, PlayerFactory, PlayerSpec};
use crate::config::Config;
use crate::jungle::{JungleGame, Repetition, Rules, RulesError};
use crate::nn::burn_eval::NetEvaluator;
use crate::nn::modelfile::ModelFileError;
use crate::player::Player;

/// Why a `setoption` was refused.
#[derive(Debug, thiserror::Error)]
pub enum OptionError {
    #[error("option '{0}' needs a value")]
    NoValue(String),
    #[error("option '{name}' needs a whole number from {lo} to {hi}, not '{value}'")]
    NotInRange { name: String, lo: usize, hi: usize, value: String },
    #[error("set the Model option (a .jzm file) before choosing Engine mcts")]
    NoModel,
    #[error("unknown engine '{0}' (available: alphabeta, mcts)")]
    UnknownEngine(String),
    #[error(transparent)]
    Model(#[from] ModelFileError),
    #[error(transparent)]
    Rules(#[from] RulesError),
    #[error("unknown option '{0}'")]
    Unknown(String),
}

/// What a `setoption` changed.
#[derive(Debug, Default, Clone, Copy)]
pub struct Effect {
    pub rebuild_player: bool,
    pub rules_changed: bool,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EngineKind {
    AlphaBeta,
    Mcts,
}

/// The settings the protocol exposes, kept as a [`Config`] plus the engine choice.
pub struct Options {
    config: Config,
    engine: EngineKind,
    model_path: String,
    network: Option<Arc<NetEvaluator>>,
}

impl Options {
    pub fn new(config: Config) -> Options {
        Options { config, engine: EngineKind::AlphaBeta, model_path: String::new(), network: None }
    }

    pub fn config(&self) -> &Config {
        &self.config
    }

    /// The `option ...` lines answering `uci`.
    pub fn describe(&self) -> Vec<String> {
        let c = &self.config;
        let d = Rules::default();
        let check = |name: &str, v: bool| format!("option name {name} type check default {v}");
        vec![
            format!("option name Hash type spin default {} min 1 max 65536", c.search.hash_mb),
            format!("option name Threads type spin default {} min 1 max 512", c.search.threads),
            "option name Engine type combo default alphabeta var alphabeta var mcts".to_string(),
            "option name Model type string default <empty>".to_string(),
            format!("option name Playouts type spin default {} min 1 max 10000000", c.mcts.playouts),
            check("dog_over_wolf", d.dog_over_wolf),
            check("rat_captures_across_shore", d.rat_captures_across_shore),
            check("elephant_takes_trapped_rat", d.elephant_takes_trapped_rat),
            format!("option name repetition type combo default {} var forbidden var draw var off", Repetition::default().name()),
            format!("option name no_capture_plies type spin default {} min 0 max 65535", d.no_capture_plies),
            format!("option name max_plies type spin default {} min 0 max 65535", d.max_plies),
            check("anti_chase", d.anti_chase),
        ]
    }

    /// Applies `setoption name <name> value <value>`.
    pub fn set(&mut self, name: &str, value: Option<&str>) -> Result<Effect, OptionError> {
        let value = value.ok_or_else(|| OptionError::NoValue(name.into()))?;
        let lower = name.to_ascii_lowercase();
        let int = |lo: usize, hi: usize| -> Result<usize, OptionError> {
            match value.parse::<usize>() {
                Ok(v) if (lo..=hi).contains(&v) => Ok(v),
                _ => Err(OptionError::NotInRange { name: name.into(), lo, hi, value: value.into() }),
            }
        };
        match lower.as_str() {
            "hash" => self.config.search.hash_mb = int(1, 65536)?,
            "threads" => self.config.search.threads = int(1, 512)?,
            "playouts" => self.config.mcts.playouts = int(1, 10_000_000)? as u32,
            "engine" => match value {
                "alphabeta" => self.engine = EngineKind::AlphaBeta,
                "mcts" => {
                    if self.network.is_none() {
                        return Err(OptionError::NoModel);
                    }
                    self.engine = EngineKind::Mcts;
                }
                other => return Err(OptionError::UnknownEngine(other.into())),
            },
            "model" => {
                let eval = NetEvaluator::load(std::path::Path::new(value), &self.config.hardware, crate::games::GameName::Jungle.shape())?;
                self.network = Some(Arc::new(eval));
                self.model_path = value.to_string();
            }
            key if Rules::KEYS.contains(&key) => {
                let mut rules = self.config.rules;
                rules.set(key, value)?;
                self.config.rules = rules;
                return Ok(Effect { rebuild_player: true, rules_changed: true });
            }
            _ => return Err(OptionError::Unknown(name.into())),
        }
        Ok(Effect { rebuild_player: true, rules_changed: false })
    }

    /// A player for the current settings: the alpha-beta engine with the configured hash and
    /// threads, or MCTS with the loaded network and the configured playouts, built by the
    /// arena's factory as every other player is.
    pub fn build_player(&self) -> Result<Box<dyn Player<JungleGame>>, PlayerError> {
        let c = &self.config;
        let spec = match (&self.engine, &self.network) {
            (EngineKind::Mcts, Some(_)) => PlayerSpec::Mcts {
                model: self.model_path.clone().into(),
                sims: c.mcts.playouts,
                movetime: None,
                c_puct: None,
                tc: None,
            },
            _ => PlayerSpec::AlphaBeta { depth: None, movetime: None, nodes: None, hash_mb: c.search.hash_mb, threads: c.search.threads, tc: None },
        };
        Ok(PlayerFactory::with_network(spec, &c.players(), self.network.clone()).make(0)?.player)
    }
}
