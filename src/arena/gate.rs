//! The training loop's matches: gating a candidate against the best network under an SPRT,
//! and the ladder of the best network against fixed-depth alpha-beta. Every match is logged to
//! metrics.jsonl (`kind: "match"`) so Bradley–Terry ratings can be fitted over all of them.

use super::bt::{self, PairResult, Rating};
use super::batched::run_network_match;
use super::play::{MatchOutcome, MatchSettings, run_match};
use super::spec::{PlayerFactory, PlayerSpec};
use super::stats::{Tally, Verdict};
use super::spec::PlayerSettings;
use super::{ArenaConfig, GateConfig, LadderConfig};
use crate::jungle::Rules;
use crate::mcts::MctsConfig;
use crate::nn::burn_eval::NetEvaluator;
use crate::store::StoreError;
use crate::store::events::{Event, MatchEvent, now};
use crate::store::run::RunDir;

/// The anchor of the rating scale.
pub const ANCHOR: &str = "alphabeta:depth=1";

/// Logs a finished match for the ratings.
pub fn log_match(run: &RunDir, a: &str, b: &str, t: &Tally, source: &str) -> Result<(), StoreError> {
    run.append_event(&Event::Match(MatchEvent {
        time: now(),
        source: source.into(),
        a: a.into(),
        b: b.into(),
        wins: t.wins,
        losses: t.losses,
        draws: t.draws,
        penta: t.penta,
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
pub fn gate_match(candidate: &NetEvaluator, best: &NetEvaluator, g: &GateConfig, mcts: &MctsConfig, concurrency: usize, rules: Rules, seed: u64) -> GateDecision {
    let settings = MatchSettings {
        games: g.max_games,
        concurrency,
        opening_plies: g.opening_plies,
        seed,
        rules,
        sprt: Some(g.sprt()),
        max_consecutive_forfeits: 0,
        adjudication: super::adjudicate::Adjudication::default(),
        time_margin: std::time::Duration::ZERO,
    };
    let outcome = run_network_match(candidate, best, mcts, g.sims, &settings, g.games_in_flight, |_, _, _| {});
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

/// Where the ladder's matches are played and logged, and with what settings.
pub struct LadderContext<'a> {
    pub run: &'a RunDir,
    pub ladder: &'a LadderConfig,
    pub arena: &'a ArenaConfig,
    pub players: &'a PlayerSettings,
}

/// Plays `a` against `b` with the threaded match runner and logs it.
fn ladder_match(cx: &LadderContext, a: PlayerSpec, b: PlayerSpec, name_a: &str, games: u32, seed: u64, source: &str) -> Result<Tally, String> {
    let fa = PlayerFactory::new(a, cx.players)?;
    let fb = PlayerFactory::new(b.clone(), cx.players)?;
    let run = cx.run;
    let settings = MatchSettings {
        games,
        concurrency: cx.arena.workers(),
        opening_plies: cx.arena.opening_plies,
        seed,
        rules: cx.players.rules,
        sprt: None,
        max_consecutive_forfeits: cx.arena.max_consecutive_forfeits,
        // The ladder measures played-out results.
        adjudication: super::adjudicate::Adjudication::default(),
        time_margin: std::time::Duration::from_millis(cx.arena.time_margin_ms),
    };
    let out = run_match(&fa, &fb, &settings, |_, _, _| {})?;
    log_match(run, name_a, &b.to_string(), &out.tally, source).map_err(|e| e.to_string())?;
    Ok(out.tally)
}

/// The ladder: the network of generation `generation` against each configured depth (and, the
/// first time, consecutive depths against each other to pin down the scale).
pub fn play_ladder(cx: &LadderContext, generation: u64, model: &std::path::Path, seed: u64) -> Result<(), String> {
    let (run, l) = (cx.run, cx.ladder);
    let mut depths = l.depths.clone();
    depths.sort_unstable();
    depths.dedup();
    let ab = |d: u32| PlayerSpec::AlphaBeta { depth: Some(d), movetime: None, nodes: None, hash_mb: 16, threads: 1, tc: None };
    let calibrated = read_matches(run).iter().any(|m| m.source == "calibration");
    if !calibrated {
        for w in depths.windows(2) {
            let t = ladder_match(cx, ab(w[1]), ab(w[0]), &ab(w[1]).to_string(), l.calibration_games, seed ^ u64::from(w[1]), "calibration")?;
            tracing::info!("ladder calibration: depth {} vs depth {}: {}-{}-{}", w[1], w[0], t.wins, t.losses, t.draws);
        }
    }
    let name = format!("gen-{generation:04}");
    for &d in &depths {
        let net = PlayerSpec::Mcts { model: model.to_path_buf(), sims: l.sims, movetime: None, c_puct: None, tc: None };
        let t = ladder_match(cx, net, ab(d), &name, l.games, seed ^ (u64::from(d) << 8), "ladder")?;
        tracing::info!("ladder: {name} vs alphabeta depth {d}: {}-{}-{} (W-L-D)", t.wins, t.losses, t.draws);
    }
    Ok(())
}

/// A logged match.
pub type LoggedMatch = MatchEvent;

/// Every match in metrics.jsonl (unreadable lines are left to the report to name).
pub fn read_matches(run: &RunDir) -> Vec<LoggedMatch> {
    run.read_events()
        .0
        .into_iter()
        .filter_map(|e| match e {
            Event::Match(m) => Some(m),
            _ => None,
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
