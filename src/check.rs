//! Configuration errors and range checks, shared by every module's config section.
//!
//! This module imports nothing from the crate, so that the rules, search and MCTS modules can
//! validate their settings without depending on the configuration that aggregates them all.

use std::path::PathBuf;

/// A configuration problem, naming the file or key.
#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    #[error("cannot read config {path}: {source}")]
    Read { path: PathBuf, source: std::io::Error },
    #[error("config {path}: {message}")]
    Parse { path: String, message: String },
    #[error("config key '{key}': {message}")]
    Invalid { key: String, message: String },
    #[error("override '{0}' is not of the form section.key=value")]
    NotKeyValue(String),
    #[error("unknown config key '{0}'")]
    UnknownKey(String),
}

/// Checks `lo <= v <= hi` for key `key`. A value that compares with neither bound (NaN) is
/// out of every range.
pub fn check_range<T: PartialOrd + std::fmt::Display>(key: &str, v: T, lo: T, hi: T) -> Result<(), ConfigError> {
    if !(lo <= v && v <= hi) {
        Err(ConfigError::Invalid { key: key.into(), message: format!("{} is out of range ({lo} to {hi})", clip(&v.to_string())) })
    } else {
        Ok(())
    }
}

/// The machine's physical memory in bytes, where the system says (Linux: /proc/meminfo).
pub fn physical_memory() -> Option<u64> {
    let text = std::fs::read_to_string("/proc/meminfo").ok()?;
    let line = text.lines().find(|l| l.starts_with("MemTotal:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib * 1024)
}

fn gib(bytes: u128) -> String {
    format!("{:.1} GiB", bytes as f64 / (1u64 << 30) as f64)
}

/// Refuses a setting that would ask for more than `total` bytes (the physical memory) before
/// anything is allocated, so that a typo gives a message instead of an abort.
pub fn check_memory_within(key: &str, bytes: u128, total: Option<u64>) -> Result<(), ConfigError> {
    refuse_beyond(key, bytes, total, |need, have| format!("asks for {need} of memory; this machine has {have}"))
}

/// Refuses what needs more than this machine's physical memory, saying what needs it:
/// "`what` needs about X of memory; this machine has Y".
pub fn check_memory_of(key: &str, what: &str, bytes: u128) -> Result<(), ConfigError> {
    refuse_beyond(key, bytes, physical_memory(), |need, have| format!("{what} needs about {need} of memory; this machine has {have}"))
}

/// `bytes` against `total` (unknown: anything goes); past it, `key`'s error with the message
/// `say` writes from the two sizes in GiB.
fn refuse_beyond(key: &str, bytes: u128, total: Option<u64>, say: impl Fn(String, String) -> String) -> Result<(), ConfigError> {
    match total {
        Some(total) if bytes > u128::from(total) => Err(ConfigError::Invalid { key: key.into(), message: say(gib(bytes), gib(u128::from(total))) }),
        _ => Ok(()),
    }
}

/// [`check_memory_within`] this machine's physical memory.
pub fn check_memory(key: &str, bytes: u128) -> Result<(), ConfigError> {
    check_memory_within(key, bytes, physical_memory())
}

/// `s` as it may appear in a one-line message: whole when short, otherwise its first 60
/// characters and how long it was (a 120 KB FEN must not become a 120 KB error line).
pub fn clip(s: &str) -> String {
    clip_to(s, 60)
}

/// A whole message line cut to at most about 1000 characters: the last guard where messages
/// leave the program (the command line's error, the protocol's `info string`, the web API).
pub fn clip_message(s: &str) -> String {
    clip_to(s, 1000)
}

/// `s` cut after at most `keep` characters, at the end of a word where one ends in the last
/// 20 characters kept (so a message's own words are never cut in half), then `...` and the
/// length of the whole.
fn clip_to(s: &str, keep: usize) -> String {
    match s.char_indices().nth(keep) {
        None => s.to_string(),
        Some((cut, next)) => {
            let head = &s[..cut];
            let at_word_end = next.is_whitespace() || head.ends_with(char::is_whitespace);
            let cut = match head.char_indices().rev().take(20).find(|(_, c)| c.is_whitespace()) {
                Some((space, _)) if !at_word_end => space,
                _ => cut,
            };
            format!("{}... ({} bytes)", s[..cut].trim_end(), s.len())
        }
    }
}

/// Serde for a `u64` setting that may use all 64 bits (a seed). TOML's integers stop at
/// 2^63 - 1, so a larger value is written as a string of digits; either form reads back.
pub mod wide_u64 {
    use std::fmt;

    use serde::de::{self, Visitor};
    use serde::{Deserializer, Serializer};

    pub fn serialize<S: Serializer>(v: &u64, s: S) -> Result<S::Ok, S::Error> {
        match i64::try_from(*v) {
            Ok(i) => s.serialize_i64(i),
            Err(_) => s.serialize_str(&v.to_string()),
        }
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<u64, D::Error> {
        struct Wide;
        impl Visitor<'_> for Wide {
            type Value = u64;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a whole number from 0 to 18446744073709551615")
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<u64, E> {
                u64::try_from(v).map_err(|_| E::custom(format!("{v} is negative; expected a whole number from 0 to 18446744073709551615")))
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<u64, E> {
                Ok(v)
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<u64, E> {
                v.trim().parse().map_err(|_| E::custom(format!("'{v}' is not a whole number from 0 to 18446744073709551615")))
            }
        }
        d.deserialize_any(Wide)
    }
}

/// The keys whose values may be any `u64` (see [`wide_u64`]).
pub const WIDE_KEYS: &[&str] = &["train.seed"];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn memory_beyond_the_machine_is_refused_by_name() {
        let e = check_memory_within("search.hash_mb", 64 << 30, Some(16 << 30)).unwrap_err().to_string();
        assert_eq!(e, "config key 'search.hash_mb': asks for 64.0 GiB of memory; this machine has 16.0 GiB");
        assert!(check_memory_within("search.hash_mb", 1 << 30, Some(16 << 30)).is_ok());
        assert!(check_memory_within("search.hash_mb", 1 << 40, None).is_ok(), "unknown memory: no check");
        assert!(check_range("k", 5, 1, 4).is_err() && check_range("k", 4, 1, 4).is_ok());
    }

    #[test]
    fn clipping_cuts_between_words() {
        let long = format!("{} expected a whole number from 1", "x".repeat(40));
        assert_eq!(clip(&long), format!("{} expected a whole... ({} bytes)", "x".repeat(40), long.len()));
        let word = "y".repeat(100);
        assert_eq!(clip(&word), format!("{}... (100 bytes)", "y".repeat(60)), "one long word is cut where it must be");
        assert_eq!(clip("short"), "short");
    }
}
