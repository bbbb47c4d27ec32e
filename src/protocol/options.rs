//! Protocol options (`setoption`): engine settings and every rule switch.

use crate::alphabeta::{Engine, Eval};
use crate::config::Config;
use crate::jungle::{Repetition, Rules};
use crate::player::Player;

/// What a `setoption` changed.
#[derive(Debug, Default, Clone, Copy)]
pub struct Effect {
    pub rebuild_player: bool,
    pub rules_changed: bool,
}

/// The settings the protocol exposes, kept as a [`Config`].
pub struct Options {
    config: Config,
}

impl Options {
    pub fn new(config: Config) -> Options {
        Options { config }
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
            "option name Engine type combo default alphabeta var alphabeta".to_string(),
            check("dog_over_wolf", d.dog_over_wolf),
            check("rat_captures_across_shore", d.rat_captures_across_shore),
            check("elephant_takes_trapped_rat", d.elephant_takes_trapped_rat),
            format!("option name repetition type combo default {} var forbidden var draw var off", Repetition::default().name()),
            format!("option name no_capture_plies type spin default {} min 0 max 65535", d.no_capture_plies),
            format!("option name max_plies type spin default {} min 0 max 65535", d.max_plies),
        ]
    }

    /// Applies `setoption name <name> value <value>`.
    pub fn set(&mut self, name: &str, value: Option<&str>) -> Result<Effect, String> {
        let value = value.ok_or_else(|| format!("option '{name}' needs a value"))?;
        let lower = name.to_ascii_lowercase();
        let int = |lo: usize, hi: usize| -> Result<usize, String> {
            match value.parse::<usize>() {
                Ok(v) if (lo..=hi).contains(&v) => Ok(v),
                _ => Err(format!("option '{name}' needs a whole number from {lo} to {hi}, not '{value}'")),
            }
        };
        match lower.as_str() {
            "hash" => self.config.search.hash_mb = int(1, 65536)?,
            "threads" => self.config.search.threads = int(1, 512)?,
            "engine" => {
                if value != "alphabeta" {
                    return Err(format!("unknown engine '{value}' (available: alphabeta)"));
                }
            }
            key if Rules::KEYS.contains(&key) => {
                let mut rules = self.config.rules;
                rules.set(key, value).map_err(|e| e.to_string())?;
                self.config.rules = rules;
                return Ok(Effect { rebuild_player: true, rules_changed: true });
            }
            _ => return Err(format!("unknown option '{name}'")),
        }
        Ok(Effect { rebuild_player: true, rules_changed: false })
    }

    /// A player for the current settings.
    pub fn build_player(&self) -> Box<dyn Player> {
        let c = &self.config;
        Box::new(Engine::new(&c.search, Eval::new(&c.eval, c.rules)))
    }
}
