//! Protocol options (`setoption`): engine choice, network, engine settings and every rule
//! switch.

use std::sync::Arc;

use super::variant::ProtocolGame;
use crate::arena::spec::PlayerError;
use crate::config::Config;
use crate::nn::NetEvaluator;
use crate::nn::modelfile::ModelFileError;
use crate::player::Player;
use crate::registry::{GameName, GameRulesError};

/// Why a `setoption` was refused.
#[derive(Debug, thiserror::Error)]
pub enum OptionError {
    #[error("option '{0}' needs a value")]
    NoValue(String),
    #[error("option '{name}' needs a whole number from {lo} to {hi}, not '{value}'")]
    NotInRange { name: String, lo: usize, hi: usize, value: String },
    #[error("option '{name}' is true or false, not '{value}'")]
    NotCheck { name: String, value: String },
    #[error("unknown engine '{0}' (available: {1}, mcts)")]
    UnknownEngine(String, &'static str),
    #[error("unknown variant '{0}' (available: {known})", known = GameName::ALL.iter().map(|g| g.name()).collect::<Vec<_>>().join(", "))]
    UnknownVariant(String),
    #[error(transparent)]
    Model(#[from] ModelFileError),
    #[error(transparent)]
    Rules(#[from] GameRulesError),
    #[error("unknown option '{0}'")]
    Unknown(String),
    #[error("{0}")]
    Rejected(String),
}

/// What a `setoption` changed.
#[derive(Debug, Default, Clone, Copy)]
pub struct Effect {
    pub rebuild_player: bool,
    pub rules_changed: bool,
}

/// The settings the protocol exposes, kept as a [`Config`] plus the engine choice and the
/// loaded network (of the game being served).
pub struct Options {
    config: Config,
    /// `Engine mcts` (otherwise the game's classical engine).
    mcts: bool,
    model_path: String,
    network: Option<Arc<NetEvaluator>>,
    /// Lines each progress report shows (`MultiPV`).
    multipv: u32,
    /// Progress reports carry win/draw/loss chances (`UCI_ShowWDL`).
    show_wdl: bool,
    /// `bestmove` names the expected reply (`Ponder`).
    ponder: bool,
}

impl Options {
    pub fn new(config: Config) -> Options {
        Options { config, mcts: false, model_path: String::new(), network: None, multipv: 1, show_wdl: false, ponder: false }
    }

    pub fn config(&self) -> &Config {
        &self.config
    }

    /// The settings without the engine choice and network, for a session of another game.
    pub fn into_config(self) -> Config {
        self.config
    }

    /// The `option ...` lines answering `uci` in a session of `G`.
    pub fn describe<G: ProtocolGame>(&self) -> Vec<String> {
        let c = &self.config;
        let variants: String = <GameName as clap::ValueEnum>::value_variants().iter().map(|g| format!(" var {g}")).collect();
        let mut lines = vec![
            format!("option name UCI_Variant type combo default {}{variants}", G::NAME),
            format!("option name Hash type spin default {} min 1 max 65536", c.search.hash_mb),
            format!("option name Threads type spin default {} min 1 max 256", c.search.threads.max(c.mcts.play_threads)),
            format!("option name Engine type combo default {0} var {0} var mcts", G::ENGINE),
            "option name Model type string default <empty>".to_string(),
            format!("option name TablebasePath type string default {}", if c.tablebase.dir.is_empty() { "<empty>" } else { &c.tablebase.dir }),
            format!("option name Playouts type spin default {} min 1 max 10000000", c.mcts.playouts),
            format!("option name MinibatchSize type spin default {} min 1 max 1024", c.mcts.play_minibatch),
            "option name MultiPV type spin default 1 min 1 max 64".to_string(),
            "option name UCI_ShowWDL type check default false".to_string(),
            "option name Ponder type check default false".to_string(),
            format!("option name NNCacheSize type spin default {} min 0 max {}", c.mcts.cache_entries, 1 << 26),
        ];
        lines.extend(G::rule_options());
        lines
    }

    /// Applies `setoption name <name> value <value>` in a session of `G` (`UCI_Variant` is the
    /// session's own).
    pub fn set<G: ProtocolGame>(&mut self, name: &str, value: Option<&str>) -> Result<Effect, OptionError> {
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
            // Alpha-beta's lazy-SMP threads or MCTS's threads sharing its tree.
            "threads" => {
                let n = int(1, 256)?;
                self.config.search.threads = n;
                self.config.mcts.play_threads = n;
            }
            "minibatchsize" => self.config.mcts.play_minibatch = int(1, 1024)?,
            "playouts" => self.config.mcts.playouts = int(1, 10_000_000)? as u32,
            "multipv" => {
                self.multipv = int(1, 64)? as u32;
                return Ok(Effect::default());
            }
            "uci_showwdl" => {
                self.show_wdl = check(name, value)?;
                return Ok(Effect::default());
            }
            // `bestmove` then names the reply expected (`ponder M`), for `go ponder`.
            "ponder" => {
                self.ponder = check(name, value)?;
                return Ok(Effect::default());
            }
            "nncachesize" => {
                self.config.mcts.cache_entries = int(0, 1 << 26)?;
                if let Err(e) = self.config.mcts.validate::<G>() {
                    return Err(OptionError::Rejected(e.to_string()));
                }
            }
            // Options come in any order: MCTS without a network yet is an error at `go`.
            "engine" => match value {
                "mcts" => self.mcts = true,
                v if v == G::ENGINE => self.mcts = false,
                other => return Err(OptionError::UnknownEngine(other.into(), G::ENGINE)),
            },
            // Endgame tables (`tb build`): checked now, so a bad folder is said at once.
            "tablebasepath" => {
                let dir = if value == "<empty>" { "" } else { value };
                let tb = crate::tb::TablebaseConfig { dir: dir.to_string(), ..self.config.tablebase.clone() };
                if let Err(e) = tb.open(&self.config.rules) {
                    return Err(OptionError::Rejected(e.to_string()));
                }
                self.config.tablebase = tb;
            }
            "model" => {
                let eval = NetEvaluator::load(std::path::Path::new(value), &self.config.hardware, G::SHAPE)?;
                self.network = Some(Arc::new(eval));
                self.model_path = value.to_string();
            }
            key => match G::set_rule(&mut self.config, key, value) {
                Some(r) => {
                    r?;
                    return Ok(Effect { rebuild_player: true, rules_changed: true });
                }
                None => return Err(OptionError::Unknown(name.into())),
            },
        }
        Ok(Effect { rebuild_player: true, rules_changed: false })
    }

    /// Lines each progress report shows.
    pub fn multipv(&self) -> u32 {
        self.multipv
    }

    /// Whether `bestmove` names the reply to ponder on.
    pub fn ponder(&self) -> bool {
        self.ponder
    }

    /// Whether progress reports carry win/draw/loss chances.
    pub fn show_wdl(&self) -> bool {
        self.show_wdl
    }

    /// Engine mcts is chosen but no network is loaded yet.
    pub fn missing_model(&self) -> bool {
        self.mcts && self.network.is_none()
    }

    /// A player for the current settings: the classical engine with the configured hash and
    /// threads, or MCTS with the loaded network and the configured playouts.
    pub fn build_player<G: ProtocolGame>(&self) -> Result<Box<dyn Player<G>>, PlayerError> {
        G::build_player(&self.config, self.mcts, &self.model_path, self.network.clone())
    }
}

/// A check option's value: `true` or `false` (any case).
fn check(name: &str, value: &str) -> Result<bool, OptionError> {
    match value.to_ascii_lowercase().as_str() {
        "true" => Ok(true),
        "false" => Ok(false),
        _ => Err(OptionError::NotCheck { name: name.into(), value: value.into() }),
    }
}
