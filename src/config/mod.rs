//! The typed configuration: defaults, then a TOML file, then `section.key=value` overrides from
//! the command line. Unknown keys are errors, values are range-checked by [`Config::validate`],
//! and runs save a snapshot of the result.

use std::path::Path;

use serde::{Deserialize, Serialize};

pub mod doc;

pub use crate::check::{ConfigError, check_range};

use crate::alphabeta::{EvalWeights, SearchConfig};
use crate::arena::spec::PlayerSettings;
use crate::arena::{ArenaConfig, GateConfig, LadderConfig};
use crate::mcts::MctsConfig;
pub use crate::nn::device::HardwareConfig;
use crate::nn::model::ModelConfig;
use crate::selfplay::SelfplayConfig;
use crate::selfplay::teacher::TeacherConfig;
use crate::train::TrainConfig;

/// Everything a component can be configured with. Each section has its own defaults.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Config {
    /// The game: "jungle" (the 9 × 7 board game) or "flip" (the 4 × 4 flip game).
    pub game: crate::registry::GameName,
    /// Every game's rule switches, each in its section (`[rules]`: Jungle's; `[flip_rules]`:
    /// the flip game's); the game played uses its own.
    #[serde(flatten)]
    pub rules: crate::registry::GameRules,
    /// The alpha-beta engine.
    pub search: SearchConfig,
    /// The alpha-beta engine's evaluation weights.
    pub eval: EvalWeights,
    /// Monte-Carlo tree search.
    pub mcts: MctsConfig,
    /// The network's shape.
    pub model: ModelConfig,
    /// Self-play game generation.
    pub selfplay: SelfplayConfig,
    /// Alpha-beta games that train the first network.
    pub teacher: TeacherConfig,
    /// The learning loop.
    pub train: TrainConfig,
    /// Where networks run.
    pub hardware: HardwareConfig,
    /// Matches (`junglezero arena`).
    pub arena: ArenaConfig,
    /// Gating candidates in `train`.
    pub gate: GateConfig,
    /// The best network against fixed-depth alpha-beta during `train`.
    pub ladder: LadderConfig,
    /// Endgame tablebases (Jungle).
    pub tablebase: crate::tb::TablebaseConfig,
}

impl Config {
    /// What players (alpha-beta, MCTS, external) are built with.
    pub fn players(&self) -> PlayerSettings {
        PlayerSettings {
            search: self.search.clone(),
            eval: self.eval.clone(),
            mcts: self.mcts.clone(),
            hardware: self.hardware.clone(),
            tablebase: self.tablebase.clone(),
        }
    }

    /// Defaults, then the file (if any), then the overrides; validated.
    pub fn load(path: Option<&Path>, overrides: &[String]) -> Result<Config, ConfigError> {
        let table = match path {
            Some(p) => {
                let text = crate::store::read_text_capped(p, crate::store::caps::CONFIG, "config file")
                    .map_err(|source| ConfigError::Read { path: p.into(), source })?;
                text.parse::<toml::Table>().map_err(|e| ConfigError::Parse { path: p.display().to_string(), message: one_line(&e.to_string()) })?
            }
            None => toml::Table::new(),
        };
        let mut table = experimental::into_sections(table)?;
        for o in overrides {
            apply_override(&mut table, o)?;
        }
        // What the error names: the file, the --set overrides, or both.
        let source = match (path, overrides.is_empty()) {
            (None, true) => "(defaults)".to_string(),
            (None, false) => "--set".to_string(),
            (Some(p), true) => p.display().to_string(),
            (Some(p), false) => format!("{} with --set", p.display()),
        };
        read_sections(table, &source)
    }

    /// This config with `key=value` set as `--set` sets it (the value's type is the setting's),
    /// validated.
    pub fn with(&self, key: &str, value: &str) -> Result<Config, ConfigError> {
        let surface = self.surface().ok_or_else(|| ConfigError::Invalid { key: key.into(), message: "the config does not write as TOML".into() })?;
        let mut table = experimental::into_sections(surface)?;
        apply_override(&mut table, &format!("{key}={value}"))?;
        read_sections(table, "(setting)")
    }

    /// Parses a TOML string (for tests and snapshots).
    pub fn from_toml(text: &str) -> Result<Config, ConfigError> {
        let table: toml::Table = text.parse().map_err(|e: toml::de::Error| ConfigError::Parse { path: "(text)".into(), message: one_line(&e.to_string()) })?;
        read_sections(experimental::into_sections(table)?, "(text)")
    }

    /// The config as a user writes it (the experimental switches in their own table). A
    /// setting held in single precision is written in the fewest digits that read back as the
    /// same number (`0.4`, not the `0.4000000059604645` its widening to a double prints);
    /// should the short form ever read back as another config, the exact one is written.
    pub fn to_toml(&self) -> String {
        let Some(mut table) = self.surface() else { return String::new() };
        let exact = toml::to_string(&table).unwrap_or_default();
        shorten_floats(&mut table);
        match toml::to_string(&table) {
            Ok(short) if Config::from_toml(&short).is_ok_and(|c| c == *self) => short,
            _ => exact,
        }
    }

    /// The config's TOML as a user writes it: every section, with the settings measured and
    /// left off gathered under `[experimental]`.
    pub fn surface(&self) -> Option<toml::Table> {
        match toml::Value::try_from(self).ok()? {
            toml::Value::Table(t) => Some(experimental::out_of_sections(t)),
            _ => None,
        }
    }

    /// Range checks for every section. The device is not opened here: the commands that run
    /// networks check it after loading (`HardwareConfig::validate`), so that validating a config
    /// needs nothing from the network.
    pub fn validate(&self) -> Result<(), ConfigError> {
        self.validate_sections().map_err(experimental::rename_key)
    }

    fn validate_sections(&self) -> Result<(), ConfigError> {
        // Every number first: NaN and the infinities mean nothing in any setting, and this one
        // walk covers every float a section adds, before its own range checks.
        if let Ok(v) = toml::Value::try_from(self) {
            check_finite(&v, "")?;
        }
        self.search.validate()?;
        self.eval.validate()?;
        crate::with_game!(self.game, G => self.mcts.validate::<G>())?;
        self.rules.validate()?;
        self.model.validate()?;
        self.selfplay.validate()?;
        self.teacher.validate()?;
        self.train.validate()?;
        // The network and its training step must fit in memory before either is built.
        let need = self.model.training_bytes(self.game.shape(), self.train.batch_size);
        let what = format!("a {} network trained at train.batch_size {}", self.model.describe(), self.train.batch_size);
        crate::check::check_memory_of("model.channels", &what, need)?;
        self.arena.validate()?;
        self.gate.validate()?;
        self.ladder.validate()?;
        Ok(())
    }
}

/// Every float of `table` that is a single-precision number widened to a double, as the
/// shortest text that parses to that single-precision number.
fn shorten_floats(table: &mut toml::Table) {
    fn shorten(v: &mut toml::Value) {
        match v {
            toml::Value::Float(x) => {
                let single = *x as f32;
                if f64::from(single) == *x
                    && let Ok(short) = single.to_string().parse::<f64>()
                {
                    *x = short;
                }
            }
            toml::Value::Array(items) => items.iter_mut().for_each(shorten),
            toml::Value::Table(t) => t.iter_mut().for_each(|(_, v)| shorten(v)),
            _ => {}
        }
    }
    table.iter_mut().for_each(|(_, v)| shorten(v));
}

/// Settings that were measured and left off (each has its run in the
/// training history): a user's config names them under one `[experimental]` table, so that the
/// sections read as the recipe a user runs. The sections' structs still hold them where the
/// code reads them; this module moves them between the two places.
pub mod experimental {
    use super::ConfigError;

    /// (name under `[experimental]`, section, key in the section).
    pub const SWITCHES: &[(&str, &str, &str)] = &[
        ("mcts_algorithm", "mcts", "algorithm"),
        ("gumbel_considered", "mcts", "gumbel_considered"),
        ("gumbel_c_visit", "mcts", "gumbel_c_visit"),
        ("gumbel_c_scale", "mcts", "gumbel_c_scale"),
        ("moves_left_head", "model", "moves_left"),
        ("moves_left_loss_weight", "train", "moves_left_loss_weight"),
        ("moves_left_slope", "mcts", "moves_left_slope"),
        ("moves_left_max_effect", "mcts", "moves_left_max_effect"),
        ("opponent_policy_head", "model", "opponent_policy"),
        ("opponent_policy_loss_weight", "train", "opponent_policy_loss_weight"),
        ("short_value_head", "model", "short_value"),
        ("short_value_loss_weight", "train", "short_value_loss_weight"),
        ("finish_after_plies", "selfplay", "finish_after_plies"),
        ("finish_depth", "selfplay", "finish_depth"),
        ("draw_after_plies", "selfplay", "draw_after_plies"),
        ("draw_value", "selfplay", "draw_value"),
        ("draw_plies", "selfplay", "draw_plies"),
        ("average_decay", "train", "average_decay"),
        ("lr_final_fraction", "train", "lr_final_fraction"),
        ("lr_final_factor", "train", "lr_final_factor"),
    ];

    /// The switch at `section.key`, if that is where one lives.
    fn switch_at(key: &str) -> Option<&'static (&'static str, &'static str, &'static str)> {
        SWITCHES.iter().find(|(_, s, k)| key.strip_prefix(s).and_then(|r| r.strip_prefix('.')) == Some(k))
    }

    /// `section.key` for `experimental.NAME`.
    pub fn section_key(key: &str) -> Option<&'static str> {
        let name = key.strip_prefix("experimental.")?;
        SWITCHES.iter().position(|(n, _, _)| *n == name).map(|i| FULL[i])
    }

    /// `section.key` of each switch, in the order of [`SWITCHES`] (a test holds the two lists
    /// together).
    const FULL: [&str; SWITCHES.len()] = [
        "mcts.algorithm",
        "mcts.gumbel_considered",
        "mcts.gumbel_c_visit",
        "mcts.gumbel_c_scale",
        "model.moves_left",
        "train.moves_left_loss_weight",
        "mcts.moves_left_slope",
        "mcts.moves_left_max_effect",
        "model.opponent_policy",
        "train.opponent_policy_loss_weight",
        "model.short_value",
        "train.short_value_loss_weight",
        "selfplay.finish_after_plies",
        "selfplay.finish_depth",
        "selfplay.draw_after_plies",
        "selfplay.draw_value",
        "selfplay.draw_plies",
        "train.average_decay",
        "train.lr_final_fraction",
        "train.lr_final_factor",
    ];

    /// A user's table with `[experimental]` moved into the sections. A switch may also be
    /// written at its section's key (run snapshots written before the table existed), but
    /// not in both places.
    pub fn into_sections(mut table: toml::Table) -> Result<toml::Table, ConfigError> {
        let Some(exp) = table.remove("experimental") else { return Ok(table) };
        let toml::Value::Table(exp) = exp else {
            return Err(ConfigError::Invalid { key: "experimental".into(), message: "must be a table of settings".into() });
        };
        for (name, value) in exp {
            let Some((_, section, key)) = SWITCHES.iter().find(|(n, _, _)| *n == name) else {
                return Err(ConfigError::UnknownKey(format!("experimental.{name}")));
            };
            let entry = table.entry(section.to_string()).or_insert_with(|| toml::Value::Table(toml::Table::new()));
            let toml::Value::Table(sec) = entry else {
                return Err(ConfigError::Invalid { key: section.to_string(), message: "is not a section".into() });
            };
            if sec.contains_key(*key) {
                return Err(ConfigError::Invalid { key: format!("{section}.{key}"), message: format!("is also set as experimental.{name}; keep one") });
            }
            sec.insert(key.to_string(), value);
        }
        Ok(table)
    }

    /// The sections' table with the experimental switches gathered under `[experimental]`.
    pub fn out_of_sections(mut table: toml::Table) -> toml::Table {
        let mut exp = toml::Table::new();
        for (name, section, key) in SWITCHES {
            if let Some(v) = table.get_mut(*section).and_then(|s| s.as_table_mut()).and_then(|s| s.remove(*key)) {
                exp.insert(name.to_string(), v);
            }
        }
        table.insert("experimental".into(), toml::Value::Table(exp));
        table
    }

    /// An error about a switch, naming it as the user names it (`experimental.NAME`).
    pub fn rename_key(e: ConfigError) -> ConfigError {
        match e {
            ConfigError::Invalid { key, message } => match switch_at(&key) {
                Some((name, _, _)) => ConfigError::Invalid { key: format!("experimental.{name}"), message },
                None => ConfigError::Invalid { key, message },
            },
            ConfigError::Parse { path, mut message } => {
                // The TOML reader names the key it choked on as `section.key`.
                for (i, (name, _, _)) in SWITCHES.iter().enumerate() {
                    message = message.replace(&format!("`{}`", FULL[i]), &format!("`experimental.{name}`"));
                }
                ConfigError::Parse { path, message }
            }
            other => other,
        }
    }

    #[cfg(test)]
    mod tests {
        use super::*;

        #[test]
        fn the_two_lists_name_the_same_places() {
            for (i, (name, section, key)) in SWITCHES.iter().enumerate() {
                assert_eq!(FULL[i], format!("{section}.{key}"));
                assert_eq!(section_key(&format!("experimental.{name}")), Some(FULL[i]));
                assert_eq!(switch_at(FULL[i]).map(|s| s.0), Some(*name));
            }
        }
    }
}

/// The config `table` (its experimental switches in their sections) holds, read from `source`
/// and validated. Each game's rules section is read on its own first, so that a bad switch is
/// named by its key.
fn read_sections(table: toml::Table, source: &str) -> Result<Config, ConfigError> {
    let parse = |e: toml::de::Error| experimental::rename_key(ConfigError::Parse { path: source.to_string(), message: one_line(&e.to_string()) });
    crate::registry::GameRules::check_sections(&table).map_err(parse)?;
    let config = Config::deserialize(toml::Value::Table(table)).map_err(parse)?;
    config.validate()?;
    Ok(config)
}

/// Refuses a float anywhere under `v` (at `key`) that is NaN or infinite, naming its key.
fn check_finite(v: &toml::Value, key: &str) -> Result<(), ConfigError> {
    match v {
        toml::Value::Float(f) if !f.is_finite() => Err(ConfigError::Invalid { key: key.into(), message: format!("{f} is not a finite number") }),
        toml::Value::Table(t) => t.iter().try_for_each(|(k, v)| check_finite(v, &if key.is_empty() { k.clone() } else { format!("{key}.{k}") })),
        toml::Value::Array(a) => a.iter().try_for_each(|v| check_finite(v, key)),
        _ => Ok(()),
    }
}

/// toml's messages span several lines (a source excerpt); keep the gist on one line, with the
/// program's type names said in words (`expected usize` is "expected a whole number").
fn one_line(msg: &str) -> String {
    let line = msg.lines().map(str::trim).filter(|l| !l.is_empty() && !l.starts_with('|') && !l.contains("-->")).collect::<Vec<_>>().join(" ");
    plain_types(&line)
}

/// `expected u32`, `expected f64` and the like as words.
fn plain_types(msg: &str) -> String {
    let mut out = msg.to_string();
    for (ty, words) in [
        ("usize", "a whole number from 0"),
        ("u64", "a whole number from 0"),
        ("u32", "a whole number from 0"),
        ("u16", "a whole number from 0"),
        ("u8", "a whole number from 0"),
        ("i64", "a whole number"),
        ("i32", "a whole number"),
        ("f64", "a number"),
        ("f32", "a number"),
    ] {
        for end in [" ", ",", ""] {
            let from = format!("expected {ty}{end}");
            if end.is_empty() {
                if out.ends_with(&from) {
                    out.truncate(out.len() - from.len());
                    out.push_str(&format!("expected {words}"));
                }
            } else {
                out = out.replace(&from, &format!("expected {words}{end}"));
            }
        }
    }
    out
}

/// Sets `section.key=value` in `table`. The value's type follows the default config's value
/// at that key, so `rules.dog_over_wolf=on`, `search.hash_mb=64` and `rules.repetition=off` all
/// mean what they say.
pub fn apply_override(table: &mut toml::Table, spec: &str) -> Result<(), ConfigError> {
    let (key, raw) = spec.split_once('=').ok_or_else(|| ConfigError::NotKeyValue(spec.into()))?;
    let (key, raw) = (key.trim(), raw.trim());
    // `table` holds the settings where the sections read them: an experimental switch is set
    // at its section's key (its name under [experimental] is taken too).
    let key = experimental::section_key(key).unwrap_or(key);
    let path: Vec<&str> = key.split('.').collect();
    let defaults = toml::Value::try_from(Config::default()).map_err(|e| ConfigError::Invalid { key: key.into(), message: e.to_string() })?;
    let mut default_here = &defaults;
    for part in &path {
        default_here = default_here.get(part).ok_or_else(|| ConfigError::UnknownKey(key.into()))?;
    }
    let bad = |what: &str| ConfigError::Invalid { key: key.into(), message: format!("'{raw}' is not {what}") };
    let value = match default_here {
        toml::Value::Boolean(_) => toml::Value::Boolean(match raw {
            "on" | "true" | "yes" | "1" => true,
            "off" | "false" | "no" | "0" => false,
            _ => return Err(bad("on or off")),
        }),
        toml::Value::Integer(_) => match raw.parse::<i64>() {
            Ok(i) => toml::Value::Integer(i),
            // Above TOML's integers: kept as digits where the setting takes any u64 (a seed).
            Err(_) if raw.parse::<u64>().is_ok() && crate::check::WIDE_KEYS.contains(&key) => toml::Value::String(raw.to_string()),
            Err(_) => return Err(bad("a whole number")),
        },
        toml::Value::Float(_) => toml::Value::Float(raw.parse().map_err(|_| bad("a number"))?),
        toml::Value::String(_) => toml::Value::String(raw.to_string()),
        toml::Value::Table(_) => {
            return Err(ConfigError::Invalid {
                key: key.into(),
                message: format!("is a section; set its keys one at a time ({key}.KEY=VALUE), so the rest keep their values"),
            });
        }
        other => {
            // Arrays: parse the value as TOML.
            let parsed: toml::Table = format!("v = {raw}").parse().map_err(|_| bad("a TOML value"))?;
            let v = parsed.get("v").cloned().ok_or_else(|| bad("a TOML value"))?;
            if std::mem::discriminant(&v) != std::mem::discriminant(other) {
                return Err(bad(if other.is_array() { "a list ([a, b, ...])" } else { other.type_str() }));
            }
            v
        }
    };
    let mut node = table;
    for part in &path[..path.len() - 1] {
        let entry = node.entry(part.to_string()).or_insert_with(|| toml::Value::Table(toml::Table::new()));
        node = entry.as_table_mut().ok_or_else(|| ConfigError::Invalid { key: key.into(), message: format!("'{part}' is not a section") })?;
    }
    node.insert(path[path.len() - 1].to_string(), value);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::jungle::Repetition;

    #[test]
    fn errors_say_types_in_words_and_name_where_the_value_came_from() {
        let e = Config::from_toml("[search]\nhash_mb = 1.5\n").unwrap_err().to_string();
        assert!(e.contains("expected a whole number") && !e.contains("usize"), "{e}");
        let e = Config::load(None, &["game=chess".to_string()]).unwrap_err().to_string();
        assert!(e.contains("--set") && !e.contains("(defaults)"), "{e}");
        let e = Config::load(None, &["ladder.depths=3".to_string()]).unwrap_err().to_string();
        assert!(e.contains("is not a list"), "{e}");
    }

    #[test]
    fn overrides_follow_the_default_types() {
        let c = Config::load(None, &["rules.dog_over_wolf=on".into(), "rules.repetition=off".into(), "search.hash_mb=8".into()]).unwrap();
        assert!(c.rules.jungle.dog_over_wolf);
        assert_eq!(c.rules.jungle.repetition, Repetition::Off);
        assert_eq!(c.search.hash_mb, 8);
    }

    #[test]
    fn errors_name_the_key() {
        let e = Config::load(None, &["search.hash_mbb=8".into()]).unwrap_err().to_string();
        assert!(e.contains("search.hash_mbb"), "{e}");
        let e = Config::load(None, &["search.hash_mb=lots".into()]).unwrap_err().to_string();
        assert!(e.contains("search.hash_mb") && e.contains("lots"), "{e}");
        let e = Config::load(None, &["search.hash_mb=0".into()]).unwrap_err().to_string();
        assert!(e.contains("search.hash_mb") && e.contains("out of range"), "{e}");
        let e = Config::from_toml("[search]\nthreadz = 2\n").unwrap_err().to_string();
        assert!(e.contains("threadz"), "{e}");
        let e = Config::from_toml("[rules]\nrepetition = \"sometimes\"\n").unwrap_err().to_string();
        assert!(e.contains("sometimes"), "{e}");
    }

    /// Every leaf key of the default config with its value.
    fn leaves(v: &toml::Value, key: &str, out: &mut Vec<(String, toml::Value)>) {
        match v {
            toml::Value::Table(t) => t.iter().for_each(|(k, v)| leaves(v, &if key.is_empty() { k.clone() } else { format!("{key}.{k}") }, out)),
            other => out.push((key.to_string(), other.clone())),
        }
    }

    fn default_leaves() -> Vec<(String, toml::Value)> {
        let mut out = Vec::new();
        leaves(&toml::Value::Table(Config::default().surface().unwrap()), "", &mut out);
        out
    }

    #[test]
    fn every_float_setting_refuses_what_is_not_a_number_in_its_range() {
        let floats: Vec<String> = default_leaves().into_iter().filter(|(_, v)| v.is_float()).map(|(k, _)| k).collect();
        assert!(floats.len() > 40, "{floats:?}");
        let mut wrong = Vec::new();
        for key in &floats {
            for bad in ["nan", "NaN", "inf", "-inf", "1e300", "-1e300"] {
                match Config::load(None, &[format!("{key}={bad}")]) {
                    Ok(_) => wrong.push(format!("{key}={bad} was accepted")),
                    Err(e) if !e.to_string().contains(&format!("'{key}'")) => wrong.push(format!("{key}={bad}: {e}")),
                    Err(_) => {}
                }
            }
        }
        assert!(wrong.is_empty(), "{wrong:#?}");
        // The same through a file: TOML spells them nan and inf.
        let e = Config::from_toml("[train]\nlr = nan\n").unwrap_err().to_string();
        assert!(e.contains("train.lr") && e.contains("not a finite number"), "{e}");
    }

    #[test]
    fn every_whole_number_setting_has_a_range() {
        let mut wrong = Vec::new();
        for (key, v) in default_leaves() {
            if v.is_integer() && !crate::check::WIDE_KEYS.contains(&key.as_str()) {
                match Config::load(None, &[format!("{key}={}", i64::MAX)]) {
                    Ok(_) => wrong.push(format!("{key}={} was accepted", i64::MAX)),
                    Err(e) if !e.to_string().contains(&key) => wrong.push(format!("{key}: {e}")),
                    Err(_) => {}
                }
            }
        }
        assert!(wrong.is_empty(), "{wrong:#?}");
    }

    #[test]
    fn a_whole_section_cannot_be_replaced_by_an_override() {
        let e = Config::load(None, &["train={lr=0.5}".into()]).unwrap_err().to_string();
        assert!(e.contains("'train'") && e.contains("section"), "{e}");
    }

    #[test]
    fn the_seed_takes_every_u64() {
        let c = Config::load(None, &[format!("train.seed={}", u64::MAX)]).unwrap();
        assert_eq!(c.train.seed, u64::MAX);
        assert_eq!(Config::from_toml(&c.to_toml()).unwrap().train.seed, u64::MAX);
        assert!(Config::load(None, &["train.seed=-1".into()]).is_err());
        assert!(Config::load(None, &[format!("search.hash_mb={}", u64::MAX)]).is_err());
    }

    #[test]
    fn single_precision_settings_are_written_without_float_noise() {
        let mut c = Config::default();
        c.mcts.c_puct = 1.7;
        c.mcts.dirichlet_alpha = 0.4;
        let text = c.to_toml();
        assert!(text.contains("c_puct = 1.7\n") && text.contains("dirichlet_alpha = 0.4\n"), "{text}");
        assert!(!text.contains("0000000"), "{text}");
        assert_eq!(Config::from_toml(&text).unwrap(), c);
        // A double-precision setting whose value happens to be a widened single keeps every
        // digit, since the short form would be another number.
        c.train.lr = f64::from(0.4f32);
        let text = c.to_toml();
        assert!(text.contains("lr = 0.4000000059604645\n"), "{text}");
        assert_eq!(Config::from_toml(&text).unwrap(), c);
    }

    #[test]
    fn snapshot_round_trips() {
        let mut c = Config::default();
        c.rules.jungle.max_plies = 300;
        c.search.threads = 2;
        assert_eq!(Config::from_toml(&c.to_toml()).unwrap(), c);
    }
}
