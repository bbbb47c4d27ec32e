//! The training loop's matches: gating a candidate against the best network under an SPRT,
//! and the ladder of the best network against fixed-depth alpha-beta. Every match is logged to
//! metrics.jsonl (`kind: "match"`) so Bradley–Terry ratings can be fitted over all of them.

use serde_json::json;

use super::bt::{self, PairResult, Rating};
use super::batched::run_network_match;
use super::play::{MatchOutcome, MatchSettings, run_match};
use super::spec::{PlayerFactory, PlayerSpec};
use super::stats::{Tally, Verdict};
use crate::config::Config;
use crate::nn::burn_eval::NetEvaluator;
use crate::store::StoreError;
use crate::store::run::RunDir;

/// The anchor of the rating scale.
pub const ANCHOR: &str = "alphabeta:depth=1";

fn now() -> f64 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0.0, |d| d.as_secs_f64())
}

/// Logs a finished match for the ratings.
pub fn log_match(run: &RunDir, a: &str, b: &str, t: &Tally, source: &str) -> Result<(), StoreError> {
    run.append_metrics(&json!({
        "kind": "match", "time": now(), "source": source, "a": a, "b": b,
        "wins": t.wins, "losses": t.losses, "draws": t.draws, "penta": t.penta,
    }))
}

/// The decision on one candidate.
#[derive(Clone, Debug)]
pub struct GateDecision {
    pub accepted: bool,
    pub outcome: MatchOutcome,
    pub why: String,
}

/// Plays the candidate against the best network (batched MCTS, SPRT) and decides.
pub fn gate_match(candidate: &NetEvaluator, best: &NetEvaluator, config: &Config, seed: u64) -> GateDecision {
    let g = &config.gate;
    let settings = MatchSettings {
        games: g.max_games,
        concurrency: config.arena.workers(),
        opening_plies: g.opening_plies,
        seed,
        rules: config.rules,
        sprt: Some(g.sprt()),
    };
    let outcome = run_network_match(candidate, best, &config.mcts, g.sims, &settings, g.games_in_flight, |_, _, _| {});
    let t = &outcome.tally;
    let (accepted, why) = match outcome.verdict {
        Some(Verdict::H1) => (true, "SPRT accepted H1 (the candidate is stronger)".to_string()),
        Some(Verdict::H0) => (false, "SPRT accepted H0 (the candidate is not stronger)".to_string()),
        _ => {
            let ok = t.score() >= g.undecided_min_score;
            (ok, format!("SPRT undecided after {} games; score {:.3} {} {:.3}", t.games(), t.score(), if ok { ">=" } else { "<" }, g.undecided_min_score))
        }
    };
    GateDecision { accepted, outcome, why }
}

/// Plays `a` against `b` with the threaded match runner and logs it.
fn ladder_match(run: &RunDir, config: &Config, a: PlayerSpec, b: PlayerSpec, name_a: &str, games: u32, seed: u64, source: &str) -> Result<Tally, String> {
    let fa = PlayerFactory::new(a, config)?;
    let fb = PlayerFactory::new(b.clone(), config)?;
    let settings = MatchSettings {
        games,
        concurrency: config.arena.workers(),
        opening_plies: config.arena.opening_plies,
        seed,
        rules: config.rules,
        sprt: None,
    };
    let out = run_match(&fa, &fb, &settings, |_, _, _| {})?;
    log_match(run, name_a, &b.to_string(), &out.tally, source).map_err(|e| e.to_string())?;
    Ok(out.tally)
}

/// The ladder: the network of generation `generation` against each configured depth (and, the
/// first time, consecutive depths against each other to pin down the scale).
pub fn play_ladder(run: &RunDir, config: &Config, generation: u64, model: &std::path::Path, seed: u64) -> Result<(), String> {
    let l = &config.ladder;
    let mut depths = l.depths.clone();
    depths.sort_unstable();
    depths.dedup();
    let ab = |d: u32| PlayerSpec::AlphaBeta { depth: Some(d), movetime: None, nodes: None, hash_mb: 16 };
    let calibrated = read_matches(run).iter().any(|m| m.source == "calibration");
    if !calibrated {
        for w in depths.windows(2) {
            let t = ladder_match(run, config, ab(w[1]), ab(w[0]), &ab(w[1]).to_string(), l.calibration_games, seed ^ u64::from(w[1]), "calibration")?;
            tracing::info!("ladder calibration: depth {} vs depth {}: {}-{}-{}", w[1], w[0], t.wins, t.losses, t.draws);
        }
    }
    let name = format!("gen-{generation:04}");
    for &d in &depths {
        let net = PlayerSpec::Mcts { model: model.to_path_buf(), sims: l.sims, movetime: None, c_puct: None };
        let t = ladder_match(run, config, net, ab(d), &name, l.games, seed ^ (u64::from(d) << 8), "ladder")?;
        tracing::info!("ladder: {name} vs alphabeta depth {d}: {}-{}-{} (W-L-D)", t.wins, t.losses, t.draws);
    }
    Ok(())
}

/// A logged match.
#[derive(Clone, Debug, PartialEq)]
pub struct LoggedMatch {
    pub a: String,
    pub b: String,
    pub wins: u32,
    pub losses: u32,
    pub draws: u32,
    pub source: String,
}

/// Every match in metrics.jsonl.
pub fn read_matches(run: &RunDir) -> Vec<LoggedMatch> {
    std::fs::read_to_string(run.metrics_path())
        .unwrap_or_default()
        .lines()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .filter(|v| v["kind"] == "match")
        .map(|v| LoggedMatch {
            a: v["a"].as_str().unwrap_or("").to_string(),
            b: v["b"].as_str().unwrap_or("").to_string(),
            wins: v["wins"].as_u64().unwrap_or(0) as u32,
            losses: v["losses"].as_u64().unwrap_or(0) as u32,
            draws: v["draws"].as_u64().unwrap_or(0) as u32,
            source: v["source"].as_str().unwrap_or("").to_string(),
        })
        .collect()
}

/// Bradley–Terry ratings over `matches`: (player, rating), anchored at alpha-beta depth 1
/// when it played, else at the first player listed.
pub fn ratings(matches: &[LoggedMatch]) -> Vec<(String, Option<Rating>)> {
    let mut names: Vec<String> = Vec::new();
    let index = |n: &str, names: &mut Vec<String>| match names.iter().position(|x| x == n) {
        Some(i) => i,
        None => {
            names.push(n.to_string());
            names.len() - 1
        }
    };
    let mut results = Vec::new();
    for m in matches {
        let (a, b) = (index(&m.a, &mut names), index(&m.b, &mut names));
        results.push(PairResult { a, b, points: m.wins as f64 + 0.5 * m.draws as f64, games: (m.wins + m.losses + m.draws) as f64 });
    }
    if names.is_empty() {
        return Vec::new();
    }
    let anchor = names.iter().position(|n| n == ANCHOR).unwrap_or(0);
    let fitted = bt::fit(names.len(), &results, anchor);
    names.into_iter().zip(fitted).collect()
}
