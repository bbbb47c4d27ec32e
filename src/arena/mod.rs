//! Matches between players: opening suites, parallel games, SPRT, Elo, Bradley–Terry ratings,
//! PGN output, and the gate and ladder the training loop uses.

pub mod adjudicate;
pub mod batched;
pub mod bt;
pub mod clock;
pub mod external;
pub mod gate;
pub mod gate_curve;
pub mod journal;
pub mod match_game;
pub mod openings;
pub mod pgn;
pub mod play;
pub mod procgroup;
pub mod spec;
pub mod stats;

use serde::{Deserialize, Serialize};

use crate::check::{ConfigError, check_range};
use stats::{Sprt, Tally};

/// `[arena]`: defaults for `junglezero arena`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct ArenaConfig {
    /// Games played at once (0: one per CPU core).
    pub concurrency: usize,
    /// Random plies of each opening (each opening is played with both colours).
    pub opening_plies: usize,
    /// A player that forfeits this many games in a row (a crashing or confused external
    /// program) stops the match with an error (0: never).
    pub max_consecutive_forfeits: u32,
    /// Draw adjudication from this ply on (0: never)...
    pub adjudicate_draw_from_ply: u32,
    /// ...once this many consecutive plies' movers reported scores within...
    pub adjudicate_draw_plies: u32,
    /// ...this many centi-units of 0.
    pub adjudicate_draw_score: i32,
    /// Win adjudication after this many consecutive plies whose movers all agree that one side
    /// leads (0: never)...
    pub adjudicate_win_plies: u32,
    /// ...by at least this many centi-units.
    pub adjudicate_win_score: i32,
    /// Players on a clock (`tc=` in a player spec) lose on time once a move overruns their
    /// time left by more than this (ms).
    pub time_margin_ms: u64,
}

impl Default for ArenaConfig {
    fn default() -> Self {
        ArenaConfig {
            concurrency: 0,
            opening_plies: 4,
            max_consecutive_forfeits: 3,
            adjudicate_draw_from_ply: 0,
            adjudicate_draw_plies: 10,
            adjudicate_draw_score: 20,
            adjudicate_win_plies: 0,
            adjudicate_win_score: 1000,
            time_margin_ms: 100,
        }
    }
}

impl ArenaConfig {
    pub fn validate(&self) -> Result<(), ConfigError> {
        check_range("arena.concurrency", self.concurrency, 0, 4096)?;
        check_range("arena.opening_plies", self.opening_plies, 0, 100)?;
        check_range("arena.time_margin_ms", self.time_margin_ms, 0, 3_600_000)?;
        self.adjudication().validate()
    }

    /// The adjudication settings of `arena` matches.
    pub fn adjudication(&self) -> adjudicate::Adjudication {
        adjudicate::Adjudication {
            draw_from_ply: self.adjudicate_draw_from_ply,
            draw_plies: self.adjudicate_draw_plies,
            draw_score: self.adjudicate_draw_score,
            win_plies: self.adjudicate_win_plies,
            win_score: self.adjudicate_win_score,
        }
    }

    pub fn workers(&self) -> usize {
        if self.concurrency == 0 { std::thread::available_parallelism().map_or(1, |n| n.get()) } else { self.concurrency }
    }
}

/// `[gate]`: how `train` decides whether a candidate replaces the best network.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct GateConfig {
    /// Play a match; `false` accepts every candidate.
    pub enabled: bool,
    /// MCTS simulations per move in gating games.
    pub sims: u32,
    /// Games at most (whole pairs); the SPRT usually stops earlier.
    pub max_games: u32,
    /// SPRT: H0 Elo (candidate not better than this)...
    pub elo0: f64,
    /// ...against H1 Elo...
    pub elo1: f64,
    /// ...with these error rates.
    pub alpha: f64,
    pub beta: f64,
    /// When the SPRT has not decided after `max_games`, accept if the candidate scored at
    /// least this.
    pub undecided_min_score: f64,
    /// Random plies of each gating opening.
    pub opening_plies: usize,
    /// Games in flight per worker (their leaves are batched per network).
    pub games_in_flight: usize,
}

impl Default for GateConfig {
    fn default() -> Self {
        GateConfig {
            enabled: false,
            sims: 32,
            max_games: 32,
            elo0: 0.0,
            elo1: 50.0,
            alpha: 0.1,
            beta: 0.1,
            undecided_min_score: 0.5,
            opening_plies: 4,
            games_in_flight: 16,
        }
    }
}

impl GateConfig {
    pub fn validate(&self) -> Result<(), ConfigError> {
        check_range("gate.sims", self.sims, 1, 1_000_000)?;
        check_range("gate.max_games", self.max_games, 2, 1_000_000)?;
        check_range("gate.undecided_min_score", self.undecided_min_score, 0.0, 1.0)?;
        check_range("gate.opening_plies", self.opening_plies, 0, 100)?;
        check_range("gate.games_in_flight", self.games_in_flight, 1, 65_536)?;
        check_range("gate.alpha", self.alpha, 1e-9, 0.5)?;
        check_range("gate.beta", self.beta, 1e-9, 0.5)?;
        check_range("gate.elo0", self.elo0, -2000.0, 2000.0)?;
        check_range("gate.elo1", self.elo1, -2000.0, 2000.0)?;
        self.sprt().validate().map_err(|e| ConfigError::Invalid { key: "gate.elo0".into(), message: e.to_string() })
    }

    pub fn sprt(&self) -> Sprt {
        Sprt { elo0: self.elo0, elo1: self.elo1, alpha: self.alpha, beta: self.beta }
    }
}

/// `[ladder]`: the best network against fixed-depth alpha-beta, for Elo over training.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct LadderConfig {
    /// Play the ladder when the best network is this many generations past the last one rated
    /// (0: never).
    pub every: u64,
    /// Alpha-beta depths (depth 1 is the Elo anchor, 0).
    pub depths: Vec<u32>,
    /// Games against each depth (whole pairs).
    pub games: u32,
    /// Games between consecutive depths, played once per run to place the anchors on the scale
    /// (alpha-beta games take milliseconds, so this can be large).
    pub calibration_games: u32,
    /// MCTS simulations per move for the network.
    pub sims: u32,
}

impl Default for LadderConfig {
    fn default() -> Self {
        LadderConfig { every: 4, depths: vec![1, 2, 4, 6, 8, 10, 12], games: 8, calibration_games: 100, sims: 64 }
    }
}

impl LadderConfig {
    pub fn validate(&self) -> Result<(), ConfigError> {
        check_range("ladder.every", self.every, 0, 1_000_000)?;
        check_range("ladder.games", self.games, 2, 100_000)?;
        check_range("ladder.calibration_games", self.calibration_games, 2, 100_000)?;
        check_range("ladder.sims", self.sims, 1, 1_000_000)?;
        if self.every > 0 && !self.depths.contains(&1) {
            return Err(ConfigError::Invalid { key: "ladder.depths".into(), message: "must include depth 1, the Elo anchor".into() });
        }
        for d in &self.depths {
            check_range("ladder.depths", *d, 1, 30)?;
        }
        Ok(())
    }
}

/// The human summary of a match, in the form users know from chess tools.
pub fn summary(a: &str, b: &str, t: &Tally, sprt: Option<&Sprt>) -> String {
    let (elo, ci) = t.elo();
    let mut s = format!("Score of {a} vs {b}: {} - {} - {} [{:.3}] {}\n", t.wins, t.losses, t.draws, t.score(), t.games());
    let elo_text = match t.one_sided() {
        Some(true) => format!("> {elo:+.1} (A won every game; no finite estimate)"),
        Some(false) => format!("< {elo:+.1} (A lost every game; no finite estimate)"),
        None if ci.is_nan() => format!("{elo:+.1} (no interval: every pair scored the same)"),
        None => format!("{elo:+.1} +/- {ci:.1}"),
    };
    s += &format!("Elo difference: {elo_text}, LOS: {:.1} %, DrawRatio: {:.1} %\n", 100.0 * t.los(), 100.0 * t.draw_ratio());
    s += &format!("Ptnml(0-2): [{}, {}, {}, {}, {}] ({} pairs)\n", t.penta[0], t.penta[1], t.penta[2], t.penta[3], t.penta[4], t.pairs());
    if let Some(sp) = sprt {
        let (lo, hi) = sp.bounds();
        s += &format!(
            "SPRT ({:.1}, {:.1}) alpha {} beta {}: LLR {:.2} ({:.2}, {:.2}) {}\n",
            sp.elo0,
            sp.elo1,
            sp.alpha,
            sp.beta,
            sp.llr(t),
            lo,
            hi,
            sp.verdict(t)
        );
    }
    s
}

/// "Forfeits: A 2 (crash 1, timeout 1), B 0" when a game was forfeited.
pub fn forfeit_line<G: match_game::MatchGame>(o: &play::MatchOutcome<G>) -> Option<String> {
    let side = |m: &std::collections::BTreeMap<String, u32>| {
        let n: u32 = m.values().sum();
        if n == 0 { "0".to_string() } else { format!("{n} ({})", m.iter().map(|(k, v)| format!("{k} {v}")).collect::<Vec<_>>().join(", ")) }
    };
    (!o.forfeits_a.is_empty() || !o.forfeits_b.is_empty()).then(|| format!("Forfeits: A {}, B {}", side(&o.forfeits_a), side(&o.forfeits_b)))
}

/// The match as a JSON object (A's point of view).
pub fn summary_json(a: &str, b: &str, t: &Tally, sprt: Option<&Sprt>) -> serde_json::Value {
    let (elo, ci) = t.elo();
    serde_json::json!({
        "a": a,
        "b": b,
        "games": t.games(),
        "wins": t.wins,
        "losses": t.losses,
        "draws": t.draws,
        "score": t.score(),
        "elo": elo,
        "elo_ci95": if t.one_sided().is_some() || ci.is_nan() { serde_json::Value::Null } else { serde_json::json!(ci) },
        "elo_bound": match t.one_sided() { Some(true) => "lower", Some(false) => "upper", None => "none" },
        "los": t.los(),
        "draw_ratio": t.draw_ratio(),
        "penta": t.penta,
        "llr": sprt.map(|s| s.llr(t)),
        "sprt": sprt.map(|s| {
            let (lo, hi) = s.bounds();
            serde_json::json!({"elo0": s.elo0, "elo1": s.elo1, "alpha": s.alpha, "beta": s.beta, "lower": lo, "upper": hi, "verdict": s.verdict(t)})
        }),
    })
}
