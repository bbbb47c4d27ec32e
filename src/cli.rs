//! The flag groups several commands share (clap derive): `--config`/`--set`, a position, a
//! network, player specs. Each command's own flags are beside its handler in `cmd/`, and the
//! top-level command enum is `cmd::commands`.

use std::path::PathBuf;

use clap::Args;

/// A position and the rules it is played under.
#[derive(Args, Debug, Clone)]
pub struct PositionArgs {
    /// The position: a FEN, or for the flip game its position string (default: the game's
    /// start).
    #[arg(long)]
    pub fen: Option<String>,
    /// Rule switches as key=value pairs, e.g. repetition=off,rat_captures_across_shore=on
    /// (applied over the config's [rules]).
    #[arg(long)]
    pub rules: Option<String>,
    /// Moves played from --fen before the position is used, e.g. "a3a4 g7g6" (the history the
    /// repetition and anti-chase rules read; for the flip game its move notation, f:b3=L).
    #[arg(long, value_name = "MOVES")]
    pub moves: Option<String>,
}

/// Where settings come from: defaults, then `--config`, then each `--set`.
#[derive(Args, Debug, Clone, Default)]
pub struct ConfigArgs {
    /// A TOML config file (see configs/).
    #[arg(long, value_name = "FILE")]
    pub config: Option<PathBuf>,
    /// Override one setting, e.g. --set search.hash_mb=256 (repeatable).
    #[arg(long = "set", value_name = "KEY=VALUE")]
    pub set: Vec<String>,
}

/// Which game a command plays.
pub use crate::registry::GameName as GameKind;

#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Colour {
    Red,
    Blue,
}

/// Which network to use: a model file or a freshly initialised one.
#[derive(Args, Debug, Clone)]
#[group(required = false, multiple = false)]
pub struct ModelChoice {
    /// A model file (.jzm).
    #[arg(long, value_name = "PATH")]
    pub model: Option<PathBuf>,
    /// An untrained network of the config's [model] shape.
    #[arg(long)]
    pub random_init: bool,
}

/// Games of a match: `arena`'s whole match, each pairing of a `tournament`.
pub const MATCH_GAMES: u32 = 100;

/// A player spec as given (checked when parsed), so that `--each` can add keys to it.
#[derive(Clone, Debug)]
pub struct SpecText(String);

impl SpecText {
    /// The spec with `each`'s keys before its own (its own win where both give a key).
    pub fn with_each(&self, each: Option<&str>) -> Result<crate::arena::spec::PlayerSpec, crate::arena::spec::SpecError> {
        match each.map(str::trim).filter(|e| !e.is_empty()) {
            None => self.0.parse(),
            Some(each) => crate::arena::spec::PlayerSpec::with_each(&self.0, each),
        }
    }
}

pub(crate) fn parse_spec(s: &str) -> Result<SpecText, crate::arena::spec::SpecError> {
    s.parse::<crate::arena::spec::PlayerSpec>()?;
    Ok(SpecText(s.to_string()))
}

pub(crate) fn parse_sprt(s: &str) -> Result<crate::arena::stats::Sprt, crate::arena::stats::SprtError> {
    crate::arena::stats::Sprt::parse(s)
}

/// A flag's value for the setting at `key`, in the range the setting's declaration gives (the
/// flag and the config check the same range).
pub(crate) fn declared<T: std::str::FromStr + Clone + Send + Sync + 'static>(
    key: &'static str,
) -> impl Fn(&str) -> Result<T, String> + Clone + Send + Sync + 'static {
    move |raw: &str| {
        let all = crate::config::doc::settings();
        let setting = crate::settings::find(&all, key).ok_or_else(|| format!("no setting {key}"))?;
        let value: T = raw.trim().parse().map_err(|_| format!("'{raw}' is not a value of {key} ({})", setting.ty))?;
        let x: f64 = raw.trim().parse().map_err(|_| format!("'{raw}' is not a number"))?;
        match setting.range_text() {
            Some((lo, hi)) if !setting.admits(x) => Err(format!("{raw} is not in {lo}..={hi}")),
            _ => Ok(value),
        }
    }
}
