//! The rule switches: the one source of rules for every component.
//!
//! `Rules::default()` is the standard game of docs/rules.md. The same keys are used in config files
//! (`[rules]` table), on the command line (`--rules repetition=off,dog_over_wolf=on`), in game
//! records and in protocol options.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

use super::types::Kind;
use crate::switches::{COUNT_VALUES, SWITCH_VALUES, Switches, switch};

/// What happens when a position would occur for the third time.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, Default)]
#[serde(rename_all = "lowercase")]
pub enum Repetition {
    /// The move that would bring about the third occurrence is illegal (standard).
    #[default]
    Forbidden,
    /// The third occurrence ends the game as a draw.
    Draw,
    /// Positions may repeat freely.
    Off,
}

impl Repetition {
    pub const fn name(self) -> &'static str {
        match self {
            Repetition::Forbidden => "forbidden",
            Repetition::Draw => "draw",
            Repetition::Off => "off",
        }
    }
}

impl FromStr for Repetition {
    type Err = RulesError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "forbidden" => Ok(Repetition::Forbidden),
            "draw" => Ok(Repetition::Draw),
            "off" => Ok(Repetition::Off),
            _ => Err(RulesError::BadValue { key: "repetition".into(), value: s.into(), expected: "forbidden, draw or off" }),
        }
    }
}

crate::settings! {
    /// Every rule switch of docs/rules.md. Unknown keys are rejected when deserialising.
    #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
    #[serde(deny_unknown_fields, default)]
    pub struct Rules in "rules", about "The rules (docs/rules.md). Self-play, training, the arena and the protocol all use these." {
        /// Dog ranks 4 and Wolf 3.
        pub dog_over_wolf: bool = false => "Dog ranks 4 and Wolf 3";
        /// Rats capture each other whatever the water.
        pub rat_captures_across_shore: bool = false => "Rats take each other whatever the water";
        /// The Elephant may take a Rat standing on one of the Elephant's side's traps.
        pub elephant_takes_trapped_rat: bool = true => "the Elephant may take a Rat on its own side's traps";
        /// The Elephant may take a Rat on any land square (van Rijn and Vis's rules; see the
        /// `icga2014` preset).
        pub elephant_takes_rat: bool = false => "the Elephant may take a Rat on any land square (the icga2014 preset)";
        /// Third-occurrence rule.
        pub repetition: Repetition = Repetition::Forbidden => "third occurrence: \"forbidden\" (illegal), \"draw\" or \"off\"";
        /// Plies without a capture after which the game is drawn; 0 disables.
        pub no_capture_plies: u16 = 200 => "plies without a capture that draw the game (0: never)";
        /// Hard cap on game length in plies (self-play and matches); 0 disables.
        pub max_plies: u16 = 0 => "hard cap on game length in self-play and matches (0: none; the no-capture limit ends every game)";
        /// The online-play anti-chase rules 7-3 and 17-5 (docs/rules.md, "The anti-chase rules").
        pub anti_chase: bool = false => "the online-play rules 7-3 and 17-5 against endless chasing (docs/rules.md, \"The anti-chase rules\")";
    }
}

/// A rules key or value that cannot be understood.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RulesError {
    #[error("unknown rule '{key}' (known rules: {})", Rules::KEYS.join(", "))]
    UnknownKey { key: String },
    #[error("bad value '{value}' for rule '{key}': expected {expected}")]
    BadValue { key: String, value: String, expected: &'static str },
    #[error("rule override '{0}' is not of the form key=value")]
    NotKeyValue(String),
}

fn parse_switch(key: &str, value: &str) -> Result<bool, RulesError> {
    switch(value).ok_or_else(|| RulesError::BadValue { key: key.into(), value: value.into(), expected: SWITCH_VALUES })
}

fn parse_count(key: &str, value: &str) -> Result<u16, RulesError> {
    value.parse().map_err(|_| RulesError::BadValue { key: key.into(), value: value.into(), expected: COUNT_VALUES })
}

impl Rules {
    pub const KEYS: [&'static str; 8] = [
        "dog_over_wolf",
        "rat_captures_across_shore",
        "elephant_takes_trapped_rat",
        "elephant_takes_rat",
        "repetition",
        "no_capture_plies",
        "max_plies",
        "anti_chase",
    ];

    /// Named sets of switches `--rules` accepts as a word: `icga2014`, the rules of van Rijn
    /// and Vis's endgame tables ("Endgame Analysis of Dou Shou Qi", ICGA Journal 37(2), 2014):
    /// the Elephant takes the Rat anywhere on land, Rats take each other across the shore both
    /// ways, and a Rat in the water still cannot take the Elephant.
    pub const PRESETS: [(&'static str, &'static [(&'static str, &'static str)]); 1] =
        [("icga2014", &[("elephant_takes_rat", "on"), ("rat_captures_across_shore", "on")])];

    /// The rank of an animal under these rules (1 = Rat … 8 = Elephant).
    #[inline]
    pub const fn rank(&self, kind: Kind) -> u8 {
        kind.rank(self.dog_over_wolf)
    }

    /// Sets one switch from text, e.g. `("repetition", "off")` or `("dog_over_wolf", "on")`.
    pub fn set(&mut self, key: &str, value: &str) -> Result<(), RulesError> {
        let value = value.trim();
        match key.trim() {
            "dog_over_wolf" => self.dog_over_wolf = parse_switch(key, value)?,
            "rat_captures_across_shore" => self.rat_captures_across_shore = parse_switch(key, value)?,
            "elephant_takes_trapped_rat" => self.elephant_takes_trapped_rat = parse_switch(key, value)?,
            "elephant_takes_rat" => self.elephant_takes_rat = parse_switch(key, value)?,
            "repetition" => self.repetition = value.parse()?,
            "no_capture_plies" => self.no_capture_plies = parse_count(key, value)?,
            "max_plies" => self.max_plies = parse_count(key, value)?,
            "anti_chase" => self.anti_chase = parse_switch(key, value)?,
            other => return Err(RulesError::UnknownKey { key: other.into() }),
        }
        Ok(())
    }

    /// Applies comma-separated `key=value` overrides; `default` or an empty string changes nothing.
    pub fn apply_overrides(&mut self, spec: &str) -> Result<(), RulesError> {
        Switches::apply_overrides(self, spec)
    }

    /// The value of a key as text (the form `set` accepts).
    pub fn get(&self, key: &str) -> Option<String> {
        let onoff = |b: bool| if b { "on" } else { "off" }.to_string();
        Some(match key {
            "dog_over_wolf" => onoff(self.dog_over_wolf),
            "rat_captures_across_shore" => onoff(self.rat_captures_across_shore),
            "elephant_takes_trapped_rat" => onoff(self.elephant_takes_trapped_rat),
            "elephant_takes_rat" => onoff(self.elephant_takes_rat),
            "repetition" => self.repetition.name().to_string(),
            "no_capture_plies" => self.no_capture_plies.to_string(),
            "max_plies" => self.max_plies.to_string(),
            "anti_chase" => onoff(self.anti_chase),
            _ => return None,
        })
    }
}

impl FromStr for Rules {
    type Err = RulesError;
    /// Parses the form `Display` writes: `default` or `key=value,...` over the defaults.
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let mut r = Rules::default();
        r.apply_overrides(s)?;
        Ok(r)
    }
}

impl Switches for Rules {
    type Error = RulesError;
    const KEYS: &'static [&'static str] = &Rules::KEYS;

    fn set(&mut self, key: &str, value: &str) -> Result<(), RulesError> {
        Rules::set(self, key, value)
    }

    fn get(&self, key: &str) -> Option<String> {
        Rules::get(self, key)
    }

    fn preset(name: &str) -> Option<&'static [(&'static str, &'static str)]> {
        Rules::PRESETS.iter().find(|(n, _)| *n == name).map(|(_, s)| *s)
    }

    fn not_key_value(part: &str) -> RulesError {
        RulesError::NotKeyValue(part.into())
    }
}

impl fmt::Display for Rules {
    /// `default`, or the switches that differ from the defaults as `key=value,...`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.overrides())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn overrides_round_trip_through_display() {
        let r: Rules = "repetition=off,rat_captures_across_shore=on,elephant_takes_trapped_rat=off".parse().unwrap();
        assert_eq!(r.repetition, Repetition::Off);
        assert!(r.rat_captures_across_shore);
        assert!(!r.elephant_takes_trapped_rat);
        assert_eq!(r.to_string().parse::<Rules>().unwrap(), r);
        assert_eq!(Rules::default().to_string(), "default");
    }

    #[test]
    fn the_icga2014_preset_is_van_rijn_and_vis_s_rules() {
        let r: Rules = "icga2014,repetition=off".parse().unwrap();
        assert!(r.elephant_takes_rat && r.rat_captures_across_shore && r.repetition == Repetition::Off);
        assert_eq!(Rules { dog_over_wolf: false, ..r }, r, "ranks as standard");
        assert_eq!(r.to_string().parse::<Rules>().unwrap(), r);
        assert!("icga2015".parse::<Rules>().is_err());
    }

    #[test]
    fn bad_overrides_name_the_problem() {
        let e = "repitition=off".parse::<Rules>().unwrap_err().to_string();
        assert!(e.contains("unknown rule 'repitition'"), "{e}");
        let e = "dog_over_wolf=maybe".parse::<Rules>().unwrap_err().to_string();
        assert!(e.contains("dog_over_wolf") && e.contains("maybe"), "{e}");
        let e = "no_capture_plies=-3".parse::<Rules>().unwrap_err().to_string();
        assert!(e.contains("no_capture_plies"), "{e}");
        assert!(matches!("dog_over_wolf".parse::<Rules>(), Err(RulesError::NotKeyValue(_))));
    }

    #[test]
    fn toml_rejects_unknown_keys() {
        let e = toml::from_str::<Rules>("dog_over_wolf = true\nfoo = 1\n").unwrap_err().to_string();
        assert!(e.contains("foo"), "{e}");
        let r: Rules = toml::from_str("repetition = \"draw\"").unwrap();
        assert_eq!(r.repetition, Repetition::Draw);
        assert!(r.elephant_takes_trapped_rat, "missing keys keep their defaults");
    }

    #[test]
    fn dog_over_wolf_swaps_ranks() {
        let mut r = Rules::default();
        assert_eq!((r.rank(Kind::Dog), r.rank(Kind::Wolf)), (3, 4));
        r.dog_over_wolf = true;
        assert_eq!((r.rank(Kind::Dog), r.rank(Kind::Wolf)), (4, 3));
        assert_eq!(r.rank(Kind::Elephant), 8);
    }
}
