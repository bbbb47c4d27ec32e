//! Rule switches as text, shared by every game's rules: `key=value,...` over the defaults, the
//! form rules take on the command line, in protocol options and in game records. Imports
//! nothing from the crate.

/// A set of named switches with defaults.
pub trait Switches: Default {
    type Error;
    /// Every key, in the order they are written.
    const KEYS: &'static [&'static str];

    /// Sets one switch from text.
    fn set(&mut self, key: &str, value: &str) -> Result<(), Self::Error>;

    /// A switch's value as text (the form `set` accepts); `None` for an unknown key.
    fn get(&self, key: &str) -> Option<String>;

    /// The error for an override that is not `key=value`.
    fn not_key_value(part: &str) -> Self::Error;

    /// Applies comma-separated `key=value` overrides; `default` or an empty string changes
    /// nothing.
    fn apply_overrides(&mut self, spec: &str) -> Result<(), Self::Error> {
        for part in spec.split(',').map(str::trim).filter(|p| !p.is_empty() && *p != "default") {
            if let Some(set) = Self::preset(part) {
                for (k, v) in set {
                    self.set(k, v)?;
                }
                continue;
            }
            let (k, v) = part.split_once('=').ok_or_else(|| Self::not_key_value(part))?;
            self.set(k, v)?;
        }
        Ok(())
    }

    /// The switches a preset's name stands for (`--rules icga2014`), if `name` is one.
    fn preset(_name: &str) -> Option<&'static [(&'static str, &'static str)]> {
        None
    }

    /// `default`, or the switches that differ from the defaults as `key=value,...` (what
    /// `apply_overrides` reads back).
    fn overrides(&self) -> String {
        let d = Self::default();
        let diffs: Vec<String> = Self::KEYS.iter().filter(|k| self.get(k) != d.get(k)).map(|k| format!("{k}={}", self.get(k).unwrap_or_default())).collect();
        if diffs.is_empty() { "default".into() } else { diffs.join(",") }
    }
}

/// `on`, `true`, `yes`, `1` or `off`, `false`, `no`, `0`.
pub fn switch(value: &str) -> Option<bool> {
    match value {
        "on" | "true" | "yes" | "1" => Some(true),
        "off" | "false" | "no" | "0" => Some(false),
        _ => None,
    }
}

/// What [`switch`] accepts, for error messages.
pub const SWITCH_VALUES: &str = "on or off";
/// What a count accepts, for error messages.
pub const COUNT_VALUES: &str = "a whole number from 0 to 65535";
