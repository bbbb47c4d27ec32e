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
pub mod play;
pub mod procgroup;
pub mod spec;
pub mod stats;

use serde::{Deserialize, Serialize};

use crate::check::ConfigError;
use stats::{Sprt, Tally};

crate::settings! {
    /// `[arena]`: defaults for `junglezero arena`.
    #[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
    #[serde(deny_unknown_fields, default)]
    pub struct ArenaConfig in "arena", about "Matches started with `junglezero arena` (command-line flags override these)." {
        /// Games played at once (0: one per CPU core).
        pub concurrency: usize = 0 => "games played at once (0: one per CPU core)", range(0, 4096);
        /// Random plies of each opening (each opening is played with both colours).
        pub opening_plies: usize = 4 => "random plies of each opening; each opening is played twice", range(0, 100);
        /// A player that forfeits this many games in a row (a crashing or confused external
        /// program) stops the match with an error (0: never).
        pub max_consecutive_forfeits: u32 = 3 => "a player forfeiting this many games in a row stops the match (0: never)";
        /// Draw adjudication from this ply on (0: never)...
        pub adjudicate_draw_from_ply: u32 = 0 => "draw adjudication from this ply on (0: never)", range(0, 100_000);
        /// ...once this many consecutive plies' movers reported scores within...
        pub adjudicate_draw_plies: u32 = 10 => "...once both players' scores stayed near 0 for this many consecutive plies", range(1, 10_000);
        /// ...this many centi-units of 0.
        pub adjudicate_draw_score: i32 = 20 => "...within +- this many centi-units", range(0, 100_000);
        /// Win adjudication after this many consecutive plies whose movers all agree that one side
        /// leads (0: never)...
        pub adjudicate_win_plies: u32 = 0 => "win adjudication once this many consecutive plies' movers agree that one side leads (0: never)", range(0, 10_000);
        /// ...by at least this many centi-units.
        pub adjudicate_win_score: i32 = 1000 => "...by at least this many centi-units", range(1, 100_000);
        /// Players on a clock (`tc=` in a player spec) lose on time once a move overruns their
        /// time left by more than this (ms).
        pub time_margin_ms: u64 = 100 => "players on a clock (tc= in a spec) lose on time past their time left + this", range(0, 3_600_000);
    }
}

impl ArenaConfig {
    pub fn validate(&self) -> Result<(), ConfigError> {
        crate::settings::Section::check_ranges(self)
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

crate::settings! {
    /// `[gate]`: how `train` decides whether a candidate replaces the best network.
    #[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
    #[serde(deny_unknown_fields, default)]
    pub struct GateConfig in "gate", about "Gating: each candidate plays the current best network; it replaces it only if a sequential probability ratio test (pentanomial, pairs of games with colours swapped) says it is stronger. Off in this recipe: every candidate is promoted (AlphaZero's way) and the ladder still rates it; the hour's games go to self-play instead (docs/training-history.md, runs L4-L11)." {
        /// Play a match; `false` accepts every candidate.
        pub enabled: bool = false => "true: gate every candidate with the settings below";
        /// MCTS simulations per move in gating games.
        pub sims: u32 = 32 => "MCTS simulations per move in gating games", range(1, 1_000_000);
        /// Games at most (whole pairs); the SPRT usually stops earlier.
        pub max_games: u32 = 32 => "at most this many games (whole pairs); `junglezero bench gate` prints the promotion probability by Elo", range(2, 1_000_000);
        /// SPRT: H0 Elo (candidate not better than this)...
        pub elo0: f64 = 0.0 => "H0: the candidate is no stronger than this (Elo)", range(-2000.0, 2000.0);
        /// ...against H1 Elo...
        pub elo1: f64 = 50.0 => "H1: the candidate is this much stronger (Elo)", range(-2000.0, 2000.0);
        /// ...with these error rates.
        pub alpha: f64 = 0.1 => "false-acceptance rate", range(1e-9, 0.5);
        pub beta: f64 = 0.1 => "false-rejection rate", range(1e-9, 0.5);
        /// When the SPRT has not decided after `max_games`, accept if the candidate scored at
        /// least this.
        pub undecided_min_score: f64 = 0.5 => "undecided after max_games: accept if the candidate scored this much", range(0.0, 1.0);
        /// Random plies of each gating opening.
        pub opening_plies: usize = 4 => "random plies of each gating opening", range(0, 100);
        /// Games in flight per worker (their leaves are batched per network).
        pub games_in_flight: usize = 16 => "games per worker whose leaves are batched per network", range(1, 65_536);
    }
}

impl GateConfig {
    pub fn validate(&self) -> Result<(), ConfigError> {
        crate::settings::Section::check_ranges(self)?;
        self.sprt().validate().map_err(|e| ConfigError::Invalid { key: "gate.elo0".into(), message: e.to_string() })
    }

    pub fn sprt(&self) -> Sprt {
        Sprt { elo0: self.elo0, elo1: self.elo1, alpha: self.alpha, beta: self.beta }
    }
}

crate::settings! {
    /// `[ladder]`: the best network against fixed-depth alpha-beta, for Elo over training.
    #[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
    #[serde(deny_unknown_fields, default)]
    pub struct LadderConfig in "ladder", about "The ladder: the best network against fixed-depth alpha-beta, which gives every checkpoint an Elo (Bradley-Terry fit over all matches, alpha-beta depth 1 = 0) for the report." {
        /// Play the ladder when the best network is this many generations past the last one rated
        /// (0: never).
        pub every: u64 = 4 => "when the best network is this many generations past the last one rated (0: never)", range(0, 1_000_000);
        /// Alpha-beta depths (depth 1 is the Elo anchor, 0).
        pub depths: Vec<u32> = vec![1, 2, 4, 6, 8, 10, 12] => "alpha-beta depths; must include 1, the anchor (depths added to a run are calibrated at its next ladder)", each(1, 30);
        /// Games against each depth (whole pairs).
        pub games: u32 = 8 => "games against each depth (whole pairs)", range(2, 100_000);
        /// Games between consecutive depths, played once per run to place the anchors on the scale
        /// (alpha-beta games take milliseconds, so this can be large).
        pub calibration_games: u32 = 100 => "each depth against the next, once per pair, to place the anchors", range(2, 100_000);
        /// MCTS simulations per move for the network.
        pub sims: u32 = 64 => "MCTS simulations per move for the network", range(1, 1_000_000);
    }
}

impl LadderConfig {
    pub fn validate(&self) -> Result<(), ConfigError> {
        crate::settings::Section::check_ranges(self)?;
        if self.every > 0 && !self.depths.contains(&1) {
            return Err(ConfigError::Invalid { key: "ladder.depths".into(), message: "must include depth 1, the Elo anchor".into() });
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
