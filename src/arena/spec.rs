//! Player specifications for matches:
//!
//! - `alphabeta:depth=N` or `alphabeta:movetime=MS` (also `nodes=N`, `hash=MB`, `threads=N`,
//!   `temp=CP` to choose among the root moves by their scores); `alphabeta:elo=E` plays at a
//!   level of the project's Elo scale (see [`crate::alphabeta::level`])
//! - `mcts:model=PATH,sims=N` (also `movetime=MS`, `cpuct=X`, and `reuse=false` for a fresh
//!   tree every move instead of `mcts.play_tree_reuse`); without `sims` a timed player searches
//!   its whole time and an untimed one `mcts.playouts` simulations
//! - `random`
//! - `external:cmd="PROGRAM ARGS",movetime=MS` (or `depth=N`, `nodes=N`): any program that
//!   speaks the UCI-style protocol
//! - `expectiminimax:depth=N` (or `movetime=MS`, `nodes=N`): the flip game's engine (see
//!   [`super::flip_players`]; the flip game takes `mcts` and `random` too)
//!
//! Every kind also takes `tc=MOVES/SECONDS+INC` (e.g. `tc=0/10+0.1`): a game clock that the
//! player manages itself and loses the game by running out of (see [`super::clock`]). With a
//! clock, an `mcts` player's `sims` no longer caps its search; depth, nodes and move time still do.

use std::fmt;
use std::path::PathBuf;
use std::str::FromStr;
use std::sync::Arc;
use std::time::Duration;

use super::clock::{TimeControl, TimeControlError};
use super::external::ExternalError;
use crate::alphabeta::{EvalWeights, SearchConfig};
use crate::game::Encode;
use crate::mcts::{MctsConfig, MctsPlayer};
use crate::nn::NetEvaluator;
use crate::nn::device::HardwareConfig;
use crate::nn::modelfile::ModelFileError;
use crate::player::{Limits, Player, RandomPlayer};

#[derive(Clone, Debug, PartialEq)]
pub enum PlayerSpec {
    AlphaBeta {
        depth: Option<u32>,
        movetime: Option<u64>,
        nodes: Option<u64>,
        hash_mb: usize,
        threads: usize,
        /// Choose among the root moves at random, weighted by `exp((score - best) / temp)`
        /// (centi-units), instead of always the best one.
        temp: Option<u32>,
        /// Play at this level of the Elo scale (sets the depth, nodes and temperature).
        elo: Option<i32>,
        tc: Option<TimeControl>,
    },
    Mcts {
        model: PathBuf,
        sims: Option<u32>,
        movetime: Option<u64>,
        c_puct: Option<f32>,
        cpuct_factor: Option<f32>,
        tactics: Option<u32>,
        reuse: Option<bool>,
        tc: Option<TimeControl>,
    },
    Random {
        tc: Option<TimeControl>,
    },
    External {
        cmd: String,
        depth: Option<u32>,
        movetime: Option<u64>,
        nodes: Option<u64>,
        tc: Option<TimeControl>,
    },
    Expectiminimax {
        depth: Option<u32>,
        movetime: Option<u64>,
        nodes: Option<u64>,
        tc: Option<TimeControl>,
    },
}

impl PlayerSpec {
    /// `mcts:model=MODEL,sims=SIMS`, every other key at its default.
    pub fn mcts(model: PathBuf, sims: u32) -> PlayerSpec {
        PlayerSpec::Mcts { model, sims: Some(sims), movetime: None, c_puct: None, cpuct_factor: None, tactics: None, reuse: None, tc: None }
    }

    /// The search settings an `mcts` spec plays with: `mcts` with the spec's own keys
    /// (`cpuct`, `cpuctfactor`, `tactics`, `reuse`) over it; `mcts` itself for other specs.
    pub fn mcts_config(&self, mcts: &MctsConfig) -> MctsConfig {
        let mut config = mcts.clone();
        if let PlayerSpec::Mcts { c_puct, cpuct_factor, tactics, reuse, .. } = self {
            config.c_puct = c_puct.unwrap_or(config.c_puct);
            config.c_puct_factor = cpuct_factor.unwrap_or(config.c_puct_factor);
            config.play_tactics = tactics.unwrap_or(config.play_tactics);
            config.play_tree_reuse = reuse.unwrap_or(config.play_tree_reuse);
        }
        config
    }

    /// The player's game clock, if it plays on one.
    pub fn time_control(&self) -> Option<TimeControl> {
        match self {
            PlayerSpec::AlphaBeta { tc, .. }
            | PlayerSpec::Mcts { tc, .. }
            | PlayerSpec::Random { tc }
            | PlayerSpec::External { tc, .. }
            | PlayerSpec::Expectiminimax { tc, .. } => *tc,
        }
    }
}

/// Why a player spec does not parse.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum SpecError {
    #[error("expected key=value in '{0}'")]
    NotKeyValue(String),
    #[error("unterminated quote in '{0}'")]
    UnterminatedQuote(String),
    #[error("unexpected '{found}' after a quoted value in '{options}'")]
    AfterQuote { found: char, options: String },
    #[error("{kind} option {key}: '{value}' is not a number")]
    NotANumber { kind: String, key: String, value: String },
    #[error("option {key} is given twice in '{options}' (each key once)")]
    Twice { key: String, options: String },
    #[error("{kind} option {key}: {value} is out of range ({range})")]
    OutOfRange { kind: String, key: String, value: String, range: String },
    #[error("{kind} option hash: {0}", kind = "alphabeta")]
    Memory(String),
    #[error("{kind} option {key}: '{value}' is not true or false")]
    NotAFlag { kind: String, key: String, value: String },
    #[error("unknown {kind} option '{key}' (known: {known})")]
    UnknownOption { kind: String, key: String, known: &'static str },
    #[error("{0} needs depth=N, movetime=MS, nodes=N or tc=MOVES/SECONDS+INC")]
    NoLimit(&'static str),
    #[error("alphabeta option elo sets the depth, nodes and temperature itself; give it alone (movetime or tc may cap it)")]
    EloAndLimits,
    #[error("{0} depth must be at least 1")]
    ZeroDepth(&'static str),
    #[error("alphabeta threads must be from 1 to 512, not {0}")]
    Threads(usize),
    #[error("mcts needs model=PATH")]
    NoModel,
    #[error("external needs cmd=\"PROGRAM ARGS\"")]
    NoCommand,
    #[error("unknown player kind '{0}' (alphabeta, mcts, random, external, expectiminimax)")]
    UnknownKind(String),
    #[error(transparent)]
    TimeControl(#[from] TimeControlError),
}

/// Why a player could not be built from its spec.
#[derive(Debug, thiserror::Error)]
pub enum PlayerError {
    #[error(transparent)]
    Model(#[from] ModelFileError),
    #[error(transparent)]
    External(#[from] ExternalError),
    #[error("an mcts player needs its network loaded first")]
    NoNetwork,
    #[error("{spec} does not play the {game} game")]
    WrongGame { spec: String, game: &'static str },
    #[error("endgame tables: {0}")]
    Tablebase(String),
}

/// Splits `k=v,k="v, with commas",...`.
fn options(s: &str) -> Result<Vec<(String, String)>, SpecError> {
    let mut out = Vec::new();
    let mut chars = s.chars().peekable();
    while chars.peek().is_some() {
        let key: String = chars.by_ref().take_while(|&c| c != '=').collect();
        let key = key.trim().to_string();
        if key.is_empty() {
            return Err(SpecError::NotKeyValue(s.into()));
        }
        let mut value = String::new();
        if chars.peek() == Some(&'"') {
            chars.next();
            let mut closed = false;
            while let Some(c) = chars.next() {
                match c {
                    '\\' => {
                        if let Some(n) = chars.next() {
                            value.push(n);
                        }
                    }
                    '"' => {
                        closed = true;
                        break;
                    }
                    c => value.push(c),
                }
            }
            if !closed {
                return Err(SpecError::UnterminatedQuote(s.into()));
            }
            match chars.next() {
                None | Some(',') => {}
                Some(c) => return Err(SpecError::AfterQuote { found: c, options: s.into() }),
            }
        } else {
            value = chars.by_ref().take_while(|&c| c != ',').collect::<String>().trim().to_string();
        }
        if out.iter().any(|(k, _)| *k == key) {
            return Err(SpecError::Twice { key, options: crate::check::clip(s) });
        }
        out.push((key, value));
    }
    Ok(out)
}

/// A yes/no option: true/false, yes/no, on/off or 1/0.
fn flag(kind: &str, key: &str, v: &str) -> Result<bool, SpecError> {
    match v.to_ascii_lowercase().as_str() {
        "true" | "yes" | "on" | "1" => Ok(true),
        "false" | "no" | "off" | "0" => Ok(false),
        _ => Err(SpecError::NotAFlag { kind: kind.into(), key: key.into(), value: v.into() }),
    }
}

fn num<T: FromStr>(kind: &str, key: &str, v: &str) -> Result<T, SpecError> {
    v.parse().map_err(|_| SpecError::NotANumber { kind: kind.into(), key: key.into(), value: crate::check::clip(v) })
}

/// The ranges of the numbers a spec takes.
pub mod ranges {
    /// Move time in milliseconds: at most a day.
    pub const MOVETIME_MS: (u64, u64) = (1, 86_400_000);
    /// Nodes (alpha-beta, external engines): at most 10^12.
    pub const NODES: (u64, u64) = (1, 1_000_000_000_000);
    /// MCTS simulations a move: the tree of a million fits in memory.
    pub const SIMS: (u32, u32) = (1, 1_000_000);
    /// The exploration constant.
    pub const CPUCT: (f32, f32) = (0.01, 100.0);
    /// Its growth with visits (`mcts.c_puct_factor`).
    pub const CPUCT_FACTOR: (f32, f32) = (0.0, 100.0);
    /// Plies of the root check (`mcts.play_tactics`; 0 off).
    pub const TACTICS: (u32, u32) = (0, 24);
    /// The temperature of a choice among root moves, in centi-units.
    pub const TEMP: (u32, u32) = (1, 100_000);
    /// An external engine's depth.
    pub const EXTERNAL_DEPTH: (u32, u32) = (1, 1000);
    /// The flip game's expectiminimax depth.
    pub const EXPECTIMINIMAX_DEPTH: (u32, u32) = (1, 64);
}

/// Whether `v` is a whole number as written (a sign, then digits), however large.
pub fn is_whole_number(v: &str) -> bool {
    let digits = v.trim().trim_start_matches(['+', '-']);
    !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit())
}

/// A number of the spec within `range` (NaN is within none). A whole number too large for
/// its type is out of the range, not "not a number".
fn ranged<T: FromStr + PartialOrd + std::fmt::Display>(kind: &str, key: &str, v: &str, range: (T, T)) -> Result<T, SpecError> {
    let out = || SpecError::OutOfRange { kind: kind.into(), key: key.into(), value: crate::check::clip(v), range: format!("{} to {}", range.0, range.1) };
    let x: T = match v.parse() {
        Ok(x) => x,
        Err(_) if is_whole_number(v) => return Err(out()),
        Err(_) => return Err(SpecError::NotANumber { kind: kind.into(), key: key.into(), value: crate::check::clip(v) }),
    };
    if !(range.0 <= x && x <= range.1) {
        return Err(out());
    }
    Ok(x)
}

impl FromStr for PlayerSpec {
    type Err = SpecError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let (kind, rest) = s.split_once(':').unwrap_or((s, ""));
        PlayerSpec::of_options(kind, options(rest)?)
    }
}

impl PlayerSpec {
    /// The spec `kind:OWN` with the options `each` (a match's `--each`) added: a key both give
    /// is the player's own. A key given twice in either is refused.
    pub fn with_each(spec: &str, each: &str) -> Result<PlayerSpec, SpecError> {
        let (kind, rest) = spec.split_once(':').unwrap_or((spec, ""));
        let own = options(rest)?;
        let mut all: Vec<(String, String)> = options(each)?.into_iter().filter(|(k, _)| !own.iter().any(|(o, _)| o == k)).collect();
        all.extend(own);
        PlayerSpec::of_options(kind, all)
    }

    /// The spec of `kind` with `opts` (each key once).
    fn of_options(kind: &str, mut opts: Vec<(String, String)>) -> Result<PlayerSpec, SpecError> {
        let mut tc = None;
        if let Some(i) = opts.iter().position(|(k, _)| k == "tc") {
            tc = Some(opts.remove(i).1.parse::<TimeControl>()?);
        }
        let unknown = |k: &str, known: &'static str| SpecError::UnknownOption { kind: kind.into(), key: k.into(), known };
        match kind.trim() {
            "alphabeta" => {
                let (mut depth, mut movetime, mut nodes, mut hash_mb, mut threads) = (None, None, None, 16, 1);
                let (mut temp, mut elo) = (None, None);
                for (k, v) in &opts {
                    match k.as_str() {
                        "depth" => depth = Some(ranged(kind, k, v, (1, crate::alphabeta::MAX_DEPTH))?),
                        "movetime" => movetime = Some(ranged(kind, k, v, ranges::MOVETIME_MS)?),
                        "nodes" => nodes = Some(ranged(kind, k, v, ranges::NODES)?),
                        "hash" => hash_mb = ranged(kind, k, v, crate::alphabeta::HASH_MB)?,
                        "threads" => threads = num(kind, k, v)?,
                        "temp" => temp = Some(ranged(kind, k, v, ranges::TEMP)?),
                        "elo" => elo = Some(ranged(kind, k, v, crate::alphabeta::level::ELO_RANGE)?),
                        other => return Err(unknown(other, "depth, movetime, nodes, hash, threads, temp, elo, tc")),
                    }
                }
                if elo.is_some() && (depth.is_some() || nodes.is_some() || temp.is_some()) {
                    return Err(SpecError::EloAndLimits);
                }
                if depth.is_none() && movetime.is_none() && nodes.is_none() && tc.is_none() && elo.is_none() {
                    return Err(SpecError::NoLimit("alphabeta"));
                }
                if depth == Some(0) {
                    return Err(SpecError::ZeroDepth("alphabeta"));
                }
                if !(1..=512).contains(&threads) {
                    return Err(SpecError::Threads(threads));
                }
                crate::check::check_memory("hash", (hash_mb as u128) << 20).map_err(|e| SpecError::Memory(e.to_string().replace("config key 'hash': ", "")))?;
                Ok(PlayerSpec::AlphaBeta { depth, movetime, nodes, hash_mb, threads, temp, elo, tc })
            }
            "mcts" => {
                let (mut model, mut sims, mut movetime, mut c_puct, mut reuse) = (None, None, None, None, None);
                let (mut cpuct_factor, mut tactics) = (None, None);
                for (k, v) in &opts {
                    match k.as_str() {
                        "model" => model = Some(PathBuf::from(v)),
                        "sims" => sims = Some(ranged(kind, k, v, ranges::SIMS)?),
                        "movetime" => movetime = Some(ranged(kind, k, v, ranges::MOVETIME_MS)?),
                        "cpuct" => c_puct = Some(ranged(kind, k, v, ranges::CPUCT)?),
                        "cpuctfactor" => cpuct_factor = Some(ranged(kind, k, v, ranges::CPUCT_FACTOR)?),
                        "tactics" => tactics = Some(ranged(kind, k, v, ranges::TACTICS)?),
                        "reuse" => reuse = Some(flag(kind, k, v)?),
                        other => return Err(unknown(other, "model, sims, movetime, cpuct, cpuctfactor, tactics, reuse, tc")),
                    }
                }
                let model = model.ok_or(SpecError::NoModel)?;
                Ok(PlayerSpec::Mcts { model, sims, movetime, c_puct, cpuct_factor, tactics, reuse, tc })
            }
            "random" => {
                if let Some((k, _)) = opts.first() {
                    return Err(unknown(k, "tc"));
                }
                Ok(PlayerSpec::Random { tc })
            }
            "external" => {
                let (mut cmd, mut depth, mut movetime, mut nodes) = (None, None, None, None);
                for (k, v) in &opts {
                    match k.as_str() {
                        "cmd" => cmd = Some(v.clone()),
                        "depth" => depth = Some(ranged(kind, k, v, ranges::EXTERNAL_DEPTH)?),
                        "movetime" => movetime = Some(ranged(kind, k, v, ranges::MOVETIME_MS)?),
                        "nodes" => nodes = Some(ranged(kind, k, v, ranges::NODES)?),
                        other => return Err(unknown(other, "cmd, depth, movetime, nodes, tc")),
                    }
                }
                let cmd = cmd.filter(|c| !c.trim().is_empty()).ok_or(SpecError::NoCommand)?;
                Ok(PlayerSpec::External { cmd, depth, movetime, nodes, tc })
            }
            "expectiminimax" => {
                let (mut depth, mut movetime, mut nodes) = (None, None, None);
                for (k, v) in &opts {
                    match k.as_str() {
                        "depth" => depth = Some(ranged(kind, k, v, ranges::EXPECTIMINIMAX_DEPTH)?),
                        "movetime" => movetime = Some(ranged(kind, k, v, ranges::MOVETIME_MS)?),
                        "nodes" => nodes = Some(ranged(kind, k, v, ranges::NODES)?),
                        other => return Err(unknown(other, "depth, movetime, nodes, tc")),
                    }
                }
                if depth.is_none() && movetime.is_none() && nodes.is_none() && tc.is_none() {
                    return Err(SpecError::NoLimit("expectiminimax"));
                }
                if depth == Some(0) {
                    return Err(SpecError::ZeroDepth("expectiminimax"));
                }
                Ok(PlayerSpec::Expectiminimax { depth, movetime, nodes, tc })
            }
            other => Err(SpecError::UnknownKind(crate::check::clip(other))),
        }
    }
}

impl fmt::Display for PlayerSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let opt = |name: &str, v: Option<String>| v.map(|v| format!("{name}={v}"));
        let join = |parts: Vec<Option<String>>| parts.into_iter().flatten().collect::<Vec<_>>().join(",");
        let tc = opt("tc", self.time_control().map(|t| t.to_string()));
        match self {
            PlayerSpec::AlphaBeta { depth, movetime, nodes, threads, temp, elo, .. } => write!(
                f,
                "alphabeta:{}",
                join(vec![
                    opt("elo", elo.map(|e| e.to_string())),
                    opt("depth", depth.map(|d| d.to_string())),
                    opt("movetime", movetime.map(|d| d.to_string())),
                    opt("nodes", nodes.map(|d| d.to_string())),
                    opt("temp", temp.map(|t| t.to_string())),
                    opt("threads", Some(threads.to_string()).filter(|_| *threads != 1)),
                    tc
                ])
            ),
            PlayerSpec::Mcts { model, sims, movetime, c_puct, cpuct_factor, tactics, reuse, .. } => {
                let name = model.file_stem().map_or_else(|| model.display().to_string(), |s| s.to_string_lossy().into_owned());
                // On a clock the clock decides the simulations.
                let sims = opt("sims", sims.map(|s| s.to_string()).filter(|_| tc.is_none()));
                let reuse = opt("reuse", reuse.map(|r| r.to_string()));
                let tuning = [
                    opt("cpuct", c_puct.map(|c| c.to_string())),
                    opt("cpuctfactor", cpuct_factor.map(|c| c.to_string())),
                    opt("tactics", tactics.map(|t| t.to_string())),
                ];
                let mut keys = vec![Some(format!("model={name}")), sims, opt("movetime", movetime.map(|d| d.to_string()))];
                keys.extend(tuning);
                keys.extend([reuse, tc]);
                write!(f, "mcts:{}", join(keys))
            }
            PlayerSpec::Random { .. } => match tc {
                Some(tc) => write!(f, "random:{tc}"),
                None => f.write_str("random"),
            },
            PlayerSpec::Expectiminimax { depth, movetime, nodes, .. } => write!(
                f,
                "expectiminimax:{}",
                join(vec![
                    opt("depth", depth.map(|d| d.to_string())),
                    opt("movetime", movetime.map(|d| d.to_string())),
                    opt("nodes", nodes.map(|d| d.to_string())),
                    tc
                ])
            ),
            PlayerSpec::External { cmd, depth, movetime, nodes, .. } => write!(
                f,
                "external:{}",
                join(vec![
                    Some(format!("cmd=\"{cmd}\"")),
                    opt("depth", depth.map(|d| d.to_string())),
                    opt("movetime", movetime.map(|d| d.to_string())),
                    opt("nodes", nodes.map(|d| d.to_string())),
                    tc
                ])
            ),
        }
    }
}

/// A player and the limits it searches with.
pub struct Contestant<G: crate::game::Game> {
    pub player: Box<dyn Player<G>>,
    pub limits: Limits,
    /// The game clock it plays on, if any.
    pub tc: Option<TimeControl>,
    /// Time it keeps in hand each move for its own overhead (`search.move_overhead_ms`).
    pub overhead: Duration,
}

/// The settings every kind of player is built with (the parts of the config they read; the
/// rules of the games come apart, as the game's own).
#[derive(Clone, Debug, Default)]
pub struct PlayerSettings {
    pub search: SearchConfig,
    pub eval: EvalWeights,
    pub mcts: MctsConfig,
    pub hardware: HardwareConfig,
    pub tablebase: crate::tb::TablebaseConfig,
}

/// The players every game builds alike from a spec: MCTS with a loaded network of the game
/// (`net`) and the random player. Other specs are the caller's (they differ by game).
pub fn any_game_player<G: Encode>(
    spec: &PlayerSpec,
    net: Option<&Arc<NetEvaluator>>,
    mcts: &MctsConfig,
    seed: u64,
    oracle: Option<Arc<dyn crate::mcts::oracle::Oracle<G>>>,
    tactics: Option<Arc<dyn crate::mcts::tactics::Tactics<G>>>,
) -> Result<(Box<dyn Player<G>>, Limits), PlayerError> {
    match spec {
        PlayerSpec::Mcts { sims, movetime, tc, .. } => {
            let net = net.cloned().ok_or(PlayerError::NoNetwork)?;
            let config = spec.mcts_config(mcts);
            let nodes = mcts_node_limit(*sims, movetime.is_some(), tc.is_some(), config.playouts);
            Ok((
                Box::new(MctsPlayer::<G, _>::new(net, &config, sims.unwrap_or(config.playouts)).with_oracle(oracle).with_tactics(tactics)),
                Limits { nodes, movetime: movetime.map(Duration::from_millis), ..Limits::default() },
            ))
        }
        PlayerSpec::Random { .. } => Ok((Box::new(RandomPlayer::new(seed)), Limits::default())),
        other => Err(PlayerError::WrongGame { spec: other.to_string(), game: G::SHAPE.game }),
    }
}

/// What a match builds its players from: one contestant per worker, named for reports.
pub trait Contestants<G: crate::game::Game>: Sync {
    fn name(&self) -> String;
    fn make(&self, seed: u64) -> Result<Contestant<G>, PlayerError>;
    /// The network an `mcts` spec plays with (two networks at the same budget are matched in
    /// batches across games).
    fn network(&self) -> Option<&Arc<NetEvaluator>> {
        None
    }
}

/// The simulation cap of an `mcts` spec: none on a clock (the clock decides how long to
/// search) or with a move time and no `sims` (the time is searched whole); `sims` when given;
/// with neither `sims` nor a time, `playouts` (`mcts.playouts`).
fn mcts_node_limit(sims: Option<u32>, movetime: bool, clock: bool, playouts: u32) -> Option<u64> {
    match (clock, sims, movetime) {
        (true, _, _) | (false, None, true) => None,
        (false, s, _) => Some(u64::from(s.unwrap_or(playouts))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_timed_mcts_player_without_sims_searches_its_whole_time() {
        let timed: PlayerSpec = "mcts:model=a.jzm,movetime=1000".parse().unwrap();
        assert!(matches!(timed, PlayerSpec::Mcts { sims: None, movetime: Some(1000), .. }));
        assert_eq!(timed.to_string(), "mcts:model=a,movetime=1000");
        assert_eq!(mcts_node_limit(None, true, false, 400), None);
        assert_eq!(mcts_node_limit(Some(64), true, false, 400), Some(64), "sims and movetime: both bound it");
        assert_eq!(mcts_node_limit(None, false, false, 400), Some(400), "neither: mcts.playouts");
        assert_eq!(mcts_node_limit(Some(64), false, true, 400), None, "a clock decides");
    }

    #[test]
    fn specs_parse_and_print() {
        assert_eq!(
            "alphabeta:depth=3".parse::<PlayerSpec>().unwrap(),
            PlayerSpec::AlphaBeta { depth: Some(3), movetime: None, nodes: None, hash_mb: 16, threads: 1, temp: None, elo: None, tc: None }
        );
        assert_eq!("random".parse::<PlayerSpec>().unwrap(), PlayerSpec::Random { tc: None });
        let threaded: PlayerSpec = "alphabeta:movetime=100,threads=2".parse().unwrap();
        assert!(matches!(threaded, PlayerSpec::AlphaBeta { threads: 2, .. }));
        assert_eq!(threaded.to_string(), "alphabeta:movetime=100,threads=2");
        assert!("alphabeta:depth=3,threads=0".parse::<PlayerSpec>().unwrap_err().to_string().contains("threads"));
        let timed: PlayerSpec = "alphabeta:tc=40/60+0.5".parse().unwrap();
        assert_eq!(timed.time_control(), Some("40/60+0.5".parse().unwrap()));
        assert_eq!(timed.to_string(), "alphabeta:tc=40/60+0.5");
        assert_eq!("random:tc=0/10+0.1".parse::<PlayerSpec>().unwrap().to_string(), "random:tc=0/10+0.1");
        let m: PlayerSpec = "mcts:model=a.jzm,tc=0/10+0.1".parse().unwrap();
        assert_eq!(m.to_string(), "mcts:model=a,tc=0/10+0.1");
        let e: PlayerSpec = r#"external:cmd="junglezero uci --set search.hash_mb=8, x",movetime=50"#.parse().unwrap();
        assert_eq!(e, PlayerSpec::External { cmd: "junglezero uci --set search.hash_mb=8, x".into(), depth: None, movetime: Some(50), nodes: None, tc: None });
        let m: PlayerSpec = "mcts:model=runs/x/models/gen-0003.jzm,sims=64".parse().unwrap();
        assert_eq!(m.to_string(), "mcts:model=gen-0003,sims=64");
        let fresh: PlayerSpec = "mcts:model=a.jzm,sims=64,reuse=off".parse().unwrap();
        assert!(matches!(fresh, PlayerSpec::Mcts { reuse: Some(false), .. }));
        assert_eq!(fresh.to_string(), "mcts:model=a,sims=64,reuse=false");
        for (bad, want) in [
            ("alphabeta", "needs depth"),
            ("alphabeta:depth=x", "not a number"),
            ("alphabeta:depth=2,speed=3", "unknown alphabeta option 'speed'"),
            ("mcts:sims=3", "model=PATH"),
            ("mcts:model=a,reuse=maybe", "option reuse: 'maybe' is not true or false"),
            ("chess:depth=3", "unknown player kind"),
            ("external:cmd=\"abc", "unterminated"),
            ("external:movetime=5", "cmd="),
            ("alphabeta:tc=fast", "time control 'fast'"),
            ("random:tc=0+0", "no time"),
        ] {
            let e = bad.parse::<PlayerSpec>().unwrap_err().to_string();
            assert!(e.contains(want), "{bad}: {e}");
        }
    }

    #[test]
    fn a_key_twice_is_refused_and_each_yields_to_the_player_s_own() {
        let e = "alphabeta:depth=3,depth=4".parse::<PlayerSpec>().unwrap_err().to_string();
        assert!(e.contains("depth") && e.contains("twice"), "{e}");
        let e = PlayerSpec::with_each("alphabeta:depth=3", "tc=0/5+0,tc=0/9+0").unwrap_err().to_string();
        assert!(e.contains("tc") && e.contains("twice"), "{e}");
        let s = PlayerSpec::with_each("alphabeta:depth=3,tc=0/9+0", "depth=5,tc=0/5+0").unwrap();
        let same = |t: &str| t.parse::<PlayerSpec>().unwrap().to_string();
        assert_eq!(s.to_string(), same("alphabeta:depth=3,tc=0/9+0"));
        let s = PlayerSpec::with_each("random", "tc=0/5+0").unwrap();
        assert_eq!(s.to_string(), same("random:tc=0/5+0"));
    }

    #[test]
    fn whole_numbers_too_large_for_their_type_are_out_of_range() {
        for (spec, key) in [("alphabeta:depth=99999999999999999999", "depth"), ("mcts:model=x.jzm,sims=99999999999", "sims"), ("alphabeta:depth=-3", "depth")] {
            let e = spec.parse::<PlayerSpec>().unwrap_err().to_string();
            assert!(e.contains(key) && e.contains("out of range") && !e.contains("not a number"), "{spec}: {e}");
        }
        let e = "alphabeta:depth=2.5".parse::<PlayerSpec>().unwrap_err().to_string();
        assert!(e.contains("not a number"), "{e}");
        let e = "random:tc=99999999999/10+0".parse::<PlayerSpec>().unwrap_err().to_string();
        assert!(e.contains("out of range") && !e.contains("not a whole number"), "{e}");
    }
}
