//! Protocol options (`setoption`): engine choice, network, engine settings and every rule
//! switch.

use std::sync::Arc;

use super::variant::ProtocolGame;
use crate::arena::match_game::ArenaGame;
use crate::arena::spec::PlayerError;
use crate::config::Config;
use crate::nn::NetEvaluator;
use crate::nn::modelfile::ModelFileError;
use crate::pipeline::RunGame;
use crate::player::Player;
use crate::registry::{GameName, GameRulesError};
use crate::settings::Setting;

/// Why a `setoption` was refused.
#[derive(Debug, thiserror::Error)]
pub enum OptionError {
    #[error("option '{0}' needs a value")]
    NoValue(String),
    #[error("option '{name}' needs a whole number from {lo} to {hi}, not '{value}'")]
    NotInRange { name: String, lo: usize, hi: usize, value: String },
    #[error("option '{name}' needs a whole number from {lo} to {hi}, not '{value}'")]
    NotInRangeSigned { name: String, lo: i32, hi: i32, value: String },
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
    /// Play at `elo` (`UCI_LimitStrength`, `UCI_Elo`), for games whose engine has levels.
    limit_strength: bool,
    elo: i32,
}

/// `UCI_Elo`'s value before a `setoption`: the level of the anchor, alpha-beta depth 1.
const DEFAULT_ELO: i32 = 0;

impl Options {
    pub fn new(config: Config) -> Options {
        Options {
            config,
            mcts: false,
            model_path: String::new(),
            network: None,
            multipv: 1,
            show_wdl: false,
            ponder: false,
            limit_strength: false,
            elo: DEFAULT_ELO,
        }
    }

    pub fn config(&self) -> &Config {
        &self.config
    }

    /// The settings without the engine choice and network, for a session of another game.
    pub fn into_config(self) -> Config {
        self.config
    }

    /// The `option ...` lines answering `uci` in a session of `G`: the protocol's own, then one
    /// for each option a declared setting names (its type and range as declared, its value
    /// the current one), then the game's rule switches.
    pub fn describe<G: ProtocolGame>(&self) -> Vec<String> {
        let variants: String = <GameName as clap::ValueEnum>::value_variants().iter().map(|g| format!(" var {g}")).collect();
        let mut lines = vec![
            format!("option name UCI_Variant type combo default {}{variants}", G::NAME),
            format!("option name Engine type combo default {0} var {0} var mcts", G::ENGINE),
            "option name Model type string default <empty>".to_string(),
            "option name MultiPV type spin default 1 min 1 max 64".to_string(),
            "option name UCI_ShowWDL type check default false".to_string(),
            "option name Ponder type check default false".to_string(),
        ];
        let table = toml::Value::try_from(&self.config).ok();
        let mut named: Vec<&str> = Vec::new();
        for s in declared_options() {
            let name = s.option.unwrap_or_default();
            if named.contains(&name) {
                continue;
            }
            named.push(name);
            let value = table.as_ref().and_then(|t| t.get(s.section)).and_then(|t| t.get(s.name));
            lines.push(option_line(&s, name, value));
        }
        if let Some((lo, hi)) = <G as ArenaGame>::LEVELS {
            lines.push(format!("option name UCI_LimitStrength type check default {}", self.limit_strength));
            lines.push(format!("option name UCI_Elo type spin default {} min {lo} max {hi}", self.elo.clamp(lo, hi)));
        }
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
        // An option a declared setting names: checked against its declaration, then written
        // into the config as `--set` would write it (one option may set several settings:
        // `Threads` is alpha-beta's and MCTS's).
        let settings: Vec<Setting> = declared_options().into_iter().filter(|s| s.option.is_some_and(|o| o.eq_ignore_ascii_case(name))).collect();
        if !settings.is_empty() && lower != "tablebasepath" {
            let mut config = self.config.clone();
            for s in &settings {
                if let Some((lo, hi)) = s.int_range() {
                    int(lo.max(0) as usize, hi.max(0) as usize)?;
                }
                config = config.with(&s.key(), value).map_err(|e| OptionError::Rejected(e.to_string()))?;
            }
            config.mcts.validate::<G>().map_err(|e| OptionError::Rejected(e.to_string()))?;
            self.config = config;
            return Ok(Effect { rebuild_player: true, rules_changed: false });
        }
        match lower.as_str() {
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
            // Play at a level of the Elo scale (the classical engine, whatever `Engine` says).
            "uci_limitstrength" | "uci_elo" => {
                let Some((lo, hi)) = <G as ArenaGame>::LEVELS else {
                    return Err(OptionError::Rejected(format!("option '{name}': the {} game's engine has no strength levels", G::NAME.name())));
                };
                if lower == "uci_elo" {
                    self.elo = match value.trim().parse::<i32>() {
                        Ok(v) if (lo..=hi).contains(&v) => v,
                        _ => return Err(OptionError::NotInRangeSigned { name: name.into(), lo, hi, value: crate::check::clip(value) }),
                    };
                } else {
                    self.limit_strength = check(name, value)?;
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
                let mut probe = self.config.clone();
                probe.tablebase.dir = dir.to_string();
                if let Err(e) = <G as RunGame>::oracle(&probe) {
                    return Err(OptionError::Rejected(e.to_string()));
                }
                self.config.tablebase = probe.tablebase;
            }
            // The advertised default, `<empty>` (or nothing): no network.
            "model" if value.trim().is_empty() || value == "<empty>" => {
                self.network = None;
                self.model_path.clear();
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

    /// Engine mcts is chosen (and no level) but no network is loaded yet.
    pub fn missing_model(&self) -> bool {
        self.mcts && self.network.is_none() && !self.limit_strength
    }

    /// A player for the current settings: the classical engine with the configured hash and
    /// threads, or MCTS with the loaded network and the configured playouts.
    pub fn build_player<G: ProtocolGame>(&self) -> Result<Box<dyn Player<G>>, PlayerError> {
        let level = self.limit_strength.then_some(self.elo);
        G::build_player(&self.config, self.mcts, &self.model_path, self.network.clone(), level)
    }
}

/// The declared settings a protocol option sets, in the order they are declared.
fn declared_options() -> Vec<Setting> {
    crate::config::doc::settings().into_iter().filter(|s| s.option.is_some()).collect()
}

/// The `option` line of setting `s` under the protocol's `name`, with its current value: a
/// yes/no is a `check`, a number a `spin` over its declared range, anything else a `string`.
fn option_line(s: &Setting, name: &str, value: Option<&toml::Value>) -> String {
    match (value, s.int_range()) {
        (Some(toml::Value::Boolean(b)), _) => format!("option name {name} type check default {b}"),
        (Some(toml::Value::Integer(v)), Some((lo, hi))) => format!("option name {name} type spin default {v} min {lo} max {hi}"),
        (Some(toml::Value::String(t)), _) if !t.is_empty() => format!("option name {name} type string default {t}"),
        (Some(v), _) if !matches!(v, toml::Value::String(_)) => format!("option name {name} type string default {v}"),
        _ => format!("option name {name} type string default <empty>"),
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
