//! The flip game's rule switches (docs/rules.md, "The 4 × 4 flip game"): the same keys in config
//! files (`[flip]`), on the command line and in game records.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

use crate::animals::Kind;
use crate::switches::{COUNT_VALUES, SWITCH_VALUES, Switches, switch};

/// How the sixteen pieces are laid out face down at the start.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum Setup {
    /// All sixteen shuffled over the whole board: a face-down piece may be either colour.
    #[default]
    Mixed,
    /// Each side's eight shuffled over its own two rows (Red ranks 1–2, Blue ranks 3–4): a
    /// face-down piece's colour is known from its half, not its animal.
    OwnHalf,
}

impl Setup {
    pub const fn name(self) -> &'static str {
        match self {
            Setup::Mixed => "mixed",
            Setup::OwnHalf => "own_half",
        }
    }
}

/// A flip-game rules key or value that cannot be understood.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum FlipRulesError {
    #[error("unknown flip rule '{key}' (known rules: {})", FlipRules::KEYS.join(", "))]
    UnknownKey { key: String },
    #[error("bad value '{value}' for flip rule '{key}': expected {expected}")]
    BadValue { key: String, value: String, expected: &'static str },
    #[error("flip rule override '{0}' is not of the form key=value")]
    NotKeyValue(String),
}

crate::settings! {
    /// Every switch of the flip game.
    #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
    #[serde(deny_unknown_fields, default)]
    pub struct FlipRules in "flip_rules", about "The 4 x 4 flip game's rules (docs/rules.md, \"The 4 × 4 flip game\"), used when game = \"flip\"." {
        /// Dog ranks 4 and Wolf 3 (as in the big game).
        pub dog_over_wolf: bool = false => "Dog ranks 4 and Wolf 3";
        /// A player with no legal move loses ("不能走棋也为输"); off: that player passes.
        pub no_move_loses: bool = true => "a player with no legal move loses (off: passes)";
        /// Plies with no flip and no capture that draw the game (0: never).
        pub no_progress_plies: u16 = 40 => "plies without a flip or capture that draw the game (0: never)";
        /// The starting layout.
        pub setup: Setup = Setup::Mixed => "\"mixed\": all sixteen shuffled over the board; \"own_half\": each side's eight over its own two ranks";
        /// Hard cap on game length in plies for self-play and matches (0: none).
        pub max_plies: u16 = 0 => "hard cap on game length (0: none)";
    }
}

fn parse_switch(key: &str, value: &str) -> Result<bool, FlipRulesError> {
    switch(value).ok_or_else(|| FlipRulesError::BadValue { key: key.into(), value: value.into(), expected: SWITCH_VALUES })
}

fn parse_count(key: &str, value: &str) -> Result<u16, FlipRulesError> {
    value.parse().map_err(|_| FlipRulesError::BadValue { key: key.into(), value: value.into(), expected: COUNT_VALUES })
}

impl FlipRules {
    pub const KEYS: [&'static str; 5] = ["dog_over_wolf", "no_move_loses", "no_progress_plies", "setup", "max_plies"];

    /// Refuses switches under which a game need never end (as `[flip_rules]` of a config).
    pub fn validate(&self) -> Result<(), crate::check::ConfigError> {
        crate::settings::Section::check_ranges(self)?;
        if self.no_progress_plies == 0 && self.max_plies == 0 {
            return Err(crate::check::ConfigError::Invalid {
                key: "flip_rules.no_progress_plies".into(),
                message: "0 together with flip_rules.max_plies = 0 lets a game run for ever; set one of them".into(),
            });
        }
        Ok(())
    }

    /// The rank of an animal under these rules (1 = Rat … 8 = Elephant).
    #[inline]
    pub const fn rank(&self, kind: Kind) -> u8 {
        kind.rank(self.dog_over_wolf)
    }

    /// Whether `attacker` may capture `defender` (of the other colour, both face up): the
    /// higher or equal rank takes, the Rat takes the Elephant and the Elephant never the Rat.
    #[inline]
    pub const fn can_capture(&self, attacker: Kind, defender: Kind) -> bool {
        match (attacker, defender) {
            (Kind::Rat, Kind::Elephant) => true,
            (Kind::Elephant, Kind::Rat) => false,
            (a, d) => self.rank(a) >= self.rank(d),
        }
    }

    /// Sets one switch from text, e.g. `("setup", "own_half")`.
    pub fn set(&mut self, key: &str, value: &str) -> Result<(), FlipRulesError> {
        let value = value.trim();
        match key.trim() {
            "dog_over_wolf" => self.dog_over_wolf = parse_switch(key, value)?,
            "no_move_loses" => self.no_move_loses = parse_switch(key, value)?,
            "no_progress_plies" => self.no_progress_plies = parse_count(key, value)?,
            "max_plies" => self.max_plies = parse_count(key, value)?,
            "setup" => {
                self.setup = match value {
                    "mixed" => Setup::Mixed,
                    "own_half" => Setup::OwnHalf,
                    _ => return Err(FlipRulesError::BadValue { key: key.into(), value: value.into(), expected: "mixed or own_half" }),
                }
            }
            other => return Err(FlipRulesError::UnknownKey { key: other.into() }),
        }
        Ok(())
    }

    /// The value of a key as text (the form `set` accepts).
    pub fn get(&self, key: &str) -> Option<String> {
        let onoff = |b: bool| if b { "on" } else { "off" }.to_string();
        Some(match key {
            "dog_over_wolf" => onoff(self.dog_over_wolf),
            "no_move_loses" => onoff(self.no_move_loses),
            "no_progress_plies" => self.no_progress_plies.to_string(),
            "setup" => self.setup.name().to_string(),
            "max_plies" => self.max_plies.to_string(),
            _ => return None,
        })
    }
}

impl Switches for FlipRules {
    type Error = FlipRulesError;
    const KEYS: &'static [&'static str] = &FlipRules::KEYS;

    fn set(&mut self, key: &str, value: &str) -> Result<(), FlipRulesError> {
        FlipRules::set(self, key, value)
    }

    fn get(&self, key: &str) -> Option<String> {
        FlipRules::get(self, key)
    }

    fn not_key_value(part: &str) -> FlipRulesError {
        FlipRulesError::NotKeyValue(part.into())
    }
}

impl FromStr for FlipRules {
    type Err = FlipRulesError;

    /// `default` or `key=value,...` over the defaults (the form `Display` writes).
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let mut r = FlipRules::default();
        r.apply_overrides(s)?;
        Ok(r)
    }
}

impl fmt::Display for FlipRules {
    /// The switches that differ from the defaults, or `default`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.overrides())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranks_and_captures() {
        let r = FlipRules::default();
        assert!(r.can_capture(Kind::Rat, Kind::Elephant), "the Rat takes the Elephant");
        assert!(!r.can_capture(Kind::Elephant, Kind::Rat), "the Elephant never takes the Rat");
        assert!(r.can_capture(Kind::Lion, Kind::Lion), "equal ranks take each other");
        assert!(r.can_capture(Kind::Wolf, Kind::Dog) && !r.can_capture(Kind::Dog, Kind::Wolf));
        let swapped = FlipRules { dog_over_wolf: true, ..r };
        assert!(swapped.can_capture(Kind::Dog, Kind::Wolf) && !swapped.can_capture(Kind::Wolf, Kind::Dog));
    }

    #[test]
    fn rules_round_trip_through_text() {
        assert_eq!(FlipRules::default().to_string(), "default");
        let r: FlipRules = "setup=own_half,no_move_loses=off,no_progress_plies=30".parse().unwrap();
        assert_eq!((r.setup, r.no_move_loses, r.no_progress_plies), (Setup::OwnHalf, false, 30));
        assert_eq!(r.to_string().parse::<FlipRules>().unwrap(), r);
        for (bad, want) in [("setup=left", "mixed or own_half"), ("colour=red", "unknown flip rule"), ("max_plies", "key=value")] {
            let e = bad.parse::<FlipRules>().unwrap_err().to_string();
            assert!(e.contains(want), "{bad}: {e}");
        }
    }
}
