//! The training loop's matches: gating a candidate against the best network under an SPRT,
//! and the ladder of the best network against fixed-depth alpha-beta. Every match is logged to
//! metrics.jsonl (`kind: "match"`) so Bradley–Terry ratings can be fitted over all of them.
//! [`gate_candidates`] is the gate stage of the training loop, generic over the evaluator the
//! candidates are loaded as.

use std::path::Path;

use super::batched::run_network_match;
use super::bt::{self, PairResult, Rating};
use super::journal::{GameLine, Journal, Plan};
use super::match_game::{ArenaGame, MatchGame};
use super::play::{MatchError, MatchOutcome, MatchSettings, run_match_skipping};
use super::spec::{PlayerError, PlayerSettings, PlayerSpec};
use super::stats::{Tally, Verdict};
use super::{ArenaConfig, GateConfig, LadderConfig};
use crate::game::Encode;
use crate::mcts::{Evaluator, MctsConfig};
use crate::nn::modelfile::{self, ModelFileError};
use crate::store::StoreError;
use crate::store::events::{Event, GateEvent, MatchEvent, RatingEntry, RatingsEvent, now};
use crate::store::hooks::phase;
use crate::store::run::RunDir;

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
pub struct GateDecision<G: MatchGame> {
    pub accepted: bool,
    pub outcome: MatchOutcome<G>,
    pub why: String,
}

/// Where and how a gate match's games are played.
pub struct GateGames<G: MatchGame> {
    pub concurrency: usize,
    pub rules: G::Rules,
    pub seed: u64,
    /// Exact results that end games (the endgame tables, when `[tablebase]` adjudicates).
    pub oracle: Option<std::sync::Arc<dyn crate::mcts::oracle::Oracle<G>>>,
}

/// Plays the candidate against the best network (batched MCTS, SPRT) and decides.
pub fn gate_match<G: MatchGame + Encode, C: Evaluator<G>, B: Evaluator<G>>(
    candidate: &C,
    best: &B,
    g: &GateConfig,
    mcts: &MctsConfig,
    games: GateGames<G>,
) -> GateDecision<G> {
    let GateGames { concurrency, rules, seed, oracle } = games;
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
        oracle,
    };
    let search = super::batched::NetworkSearch { mcts, sims: g.sims, games_in_flight: g.games_in_flight };
    let outcome = run_network_match(candidate, best, search, &settings, None, |_, _, _| {});
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
pub struct LadderContext<'a, G: ArenaGame> {
    pub run: &'a RunDir,
    pub ladder: &'a LadderConfig,
    pub arena: &'a ArenaConfig,
    pub rules: &'a G::Rules,
    pub players: &'a PlayerSettings,
    /// Exact results that end the ladder's games (the endgame tables, when `[tablebase]`
    /// adjudicates).
    pub oracle: Option<std::sync::Arc<dyn crate::mcts::oracle::Oracle<G>>>,
}

/// Why a ladder match could not be played or logged.
#[derive(Debug, thiserror::Error)]
pub enum LadderError {
    #[error(transparent)]
    Player(#[from] PlayerError),
    #[error(transparent)]
    Match(#[from] MatchError),
    #[error(transparent)]
    Store(#[from] StoreError),
    #[error("{0}")]
    Journal(String),
}

/// Called as a stage's games finish: (stage, games done, games in all, what is playing).
pub type StageProgress<'a> = dyn FnMut(&str, u64, u64, &str) + 'a;

/// Where one match sits in its stage, for the progress shown: the stage (`calibration`,
/// `ladder`), the stage's games before this match and in all, and what plays.
struct InStage<'a, 'p> {
    stage: &'a str,
    before: u64,
    total: u64,
    label: String,
    progress: &'a mut StageProgress<'p>,
}

/// Plays `a` against `b` with the threaded match runner and logs it.
fn ladder_match<G: ArenaGame>(
    cx: &LadderContext<G>,
    a: PlayerSpec,
    b: PlayerSpec,
    name_a: &str,
    games: u32,
    seed: u64,
    at: InStage,
) -> Result<Tally, LadderError> {
    let InStage { stage: source, before, total, label, progress } = at;
    let fa = G::factory(a, cx.players, cx.rules, None)?;
    let fb = G::factory(b.clone(), cx.players, cx.rules, None)?;
    let run = cx.run;
    let settings = MatchSettings {
        games,
        concurrency: cx.arena.workers(),
        opening_plies: cx.arena.opening_plies,
        seed,
        rules: cx.rules.clone(),
        sprt: None,
        max_consecutive_forfeits: cx.arena.max_consecutive_forfeits,
        // The ladder measures played-out results.
        adjudication: super::adjudicate::Adjudication::default(),
        time_margin: std::time::Duration::from_millis(cx.arena.time_margin_ms),
        oracle: cx.oracle.clone(),
    };
    progress(source, before, total, &label);
    // Each game is journaled as it ends (RUN/ladder/), so a kill loses only the games in
    // flight: the same match, resumed, plays the rest. Once the whole match is in the
    // metrics the journal goes.
    let plan = Plan {
        game: source.into(),
        players: vec![name_a.to_string(), b.to_string()],
        pairings: vec![(0, 1)],
        games: games.div_ceil(2).max(1) * 2,
        seed,
        opening_plies: settings.opening_plies,
        openings: None,
        rules: format!("{:?}", cx.rules),
    };
    let safe = crate::store::name_part;
    let path = run.root().join("ladder").join(format!("{source}-{}-vs-{}-{}-{seed:016x}.jsonl", safe(name_a), safe(&b.to_string()), plan.games));
    std::fs::create_dir_all(run.root().join("ladder")).map_err(|e| StoreError::new("cannot create directory", &run.root().join("ladder"), e))?;
    let (mut journal, kept) = Journal::open(&path, &plan).map_err(|e| LadderError::Journal(e.to_string()))?;
    if !kept.is_empty() {
        tracing::info!("{source}: {} of {} games of {label} kept from before", kept.len(), plan.games);
    }
    let resumed = kept.iter().map(|l| l.played::<G>(settings.opening_plies)).collect();
    let mut unwritten = None;
    let out = run_match_skipping(&*fa, &*fb, &settings, None, resumed, |g, t, _| {
        if let Err(e) = journal.append(&GameLine::of(0, 1, g)) {
            unwritten.get_or_insert(e);
        }
        progress(source, before + u64::from(t.games()), total, &label)
    })?;
    if let Some(e) = unwritten {
        return Err(LadderError::Journal(e.to_string()));
    }
    log_match(run, name_a, &b.to_string(), &out.tally, source)?;
    let _ = std::fs::remove_file(&path);
    Ok(out.tally)
}

/// The ladder: the network of generation `generation` against each configured depth (and, the
/// first time, consecutive depths against each other to pin down the scale).
pub fn play_ladder<G: ArenaGame>(
    cx: &LadderContext<G>,
    generation: u64,
    model: &std::path::Path,
    seed: u64,
    progress: &mut StageProgress,
) -> Result<(), LadderError> {
    let (run, l) = (cx.run, cx.ladder);
    let mut depths = l.depths.clone();
    depths.sort_unstable();
    depths.dedup();
    let ab = |d: u32| G::engine_at(d);
    let pairs = uncalibrated(&depths, &read_matches(run), |d| ab(d).to_string());
    // Whole matches are logged as they end: an interrupted calibration keeps the finished ones
    // and plays the rest when the run resumes.
    let per = games_played(l.calibration_games);
    let total = pairs.len() as u64 * per;
    // Recorded before it is announced, so that a Ctrl-C on seeing the line is said to stop it.
    crate::store::hooks::enter("calibration");
    if !pairs.is_empty() {
        tracing::info!(
            "ladder calibration: {} {} of {} games between neighbouring depths pin down the Elo scale (once a run)",
            pairs.len(),
            if pairs.len() == 1 { "match" } else { "matches" },
            l.calibration_games
        );
    }
    for (i, &(lo, hi)) in pairs.iter().enumerate() {
        let label = format!("{} vs {} (match {} of {})", ab(hi), ab(lo), i + 1, pairs.len());
        let at = InStage { stage: "calibration", before: i as u64 * per, total, label, progress: &mut *progress };
        let t = ladder_match(cx, ab(hi), ab(lo), &ab(hi).to_string(), l.calibration_games, seed ^ u64::from(hi), at)?;
        tracing::info!("ladder calibration: {} vs depth {lo}: {}-{}-{}", ab(hi), t.wins, t.losses, t.draws);
    }
    crate::store::hooks::enter("ladder");
    let name = format!("gen-{generation:04}");
    let per = games_played(l.games);
    let total = depths.len() as u64 * per;
    for (i, &d) in depths.iter().enumerate() {
        let net = PlayerSpec::mcts(model.to_path_buf(), l.sims);
        let at = InStage { stage: "ladder", before: i as u64 * per, total, label: format!("{name} vs {}", ab(d)), progress: &mut *progress };
        let t = ladder_match(cx, net, ab(d), &name, l.games, seed ^ (u64::from(d) << 8), at)?;
        tracing::info!("ladder: {name} vs {}: {}-{}-{} (W-L-D)", ab(d), t.wins, t.losses, t.draws);
    }
    Ok(())
}

/// The games a match of `games` plays: whole pairs, at least one.
fn games_played(games: u32) -> u64 {
    u64::from(games.div_ceil(2).max(1)) * 2
}

/// The consecutive pairs of the (sorted) `depths` that no calibration match in `logged` has
/// played yet, as (lower, higher): all of them in a new run, and only the new neighbours of a
/// depth added to the config of a run under way.
fn uncalibrated(depths: &[u32], logged: &[LoggedMatch], name: impl Fn(u32) -> String) -> Vec<(u32, u32)> {
    let played = |lo: u32, hi: u32| {
        let (a, b) = (name(hi), name(lo));
        logged.iter().any(|m| m.source == "calibration" && ((m.a == a && m.b == b) || (m.a == b && m.b == a)))
    };
    depths.windows(2).map(|w| (w[0], w[1])).filter(|&(lo, hi)| !played(lo, hi)).collect()
}

/// What the gate stage plays with (parts of the run's config).
pub struct GateSettings<'a, G: ArenaGame> {
    pub gate: &'a GateConfig,
    pub ladder: &'a LadderConfig,
    pub arena: &'a ArenaConfig,
    pub mcts: &'a MctsConfig,
    /// The run's rules.
    pub rules: G::Rules,
    /// What the ladder's players are built with.
    pub players: PlayerSettings,
    /// The run's seed.
    pub seed: u64,
    /// Exact results that end the gate's and the ladder's games (the endgame tables, when
    /// `[tablebase]` adjudicates).
    pub oracle: Option<std::sync::Arc<dyn crate::mcts::oracle::Oracle<G>>>,
}

/// Why the gate stage stopped.
#[derive(Debug, thiserror::Error)]
pub enum GateError {
    #[error(transparent)]
    Store(#[from] StoreError),
    #[error(transparent)]
    Model(#[from] ModelFileError),
    #[error(transparent)]
    Ladder(#[from] LadderError),
}

/// Whether the best network (generation `best`) should play the ladder, given the newest
/// generation that already has (`laddered`): the first best network always does, later ones once
/// they are at least `every` generations newer. (Promotions skip generations, so "a multiple of
/// `every`" would leave long stretches of a run without ratings.)
pub fn ladder_due(laddered: Option<u64>, best: u64, every: u64) -> bool {
    match laddered {
        None => true,
        Some(l) => every > 0 && best >= l + every,
    }
}

/// The gate stage: each waiting candidate of `run`, loaded with `load`, plays the best network
/// under the SPRT of `[gate]` and is promoted (renamed into models/) or rejected; then, every
/// `ladder.every` generations, the best network plays the alpha-beta ladder and the ratings of
/// every network are refitted.
pub fn gate_candidates<G: ArenaGame + Encode, E: Evaluator<G>>(
    run: &RunDir,
    s: &GateSettings<G>,
    load: &dyn Fn(&Path) -> Result<E, ModelFileError>,
    progress: &mut StageProgress,
) -> Result<(), GateError> {
    for (g, cand_path) in run.candidates() {
        let name = format!("gen-{g:04}");
        let Some((best_g, best_path)) = run.best().filter(|_| s.gate.enabled) else {
            let to = run.promote(g)?;
            tracing::info!("gate: {name} accepted without a match (gating is disabled in the config); promoted to {}", to.display());
            let reason = "gating disabled".to_string();
            run.append_event(&Event::Gate(GateEvent { time: now(), generation: g, accepted: true, reason, ..GateEvent::default() }))?;
            continue;
        };
        phase("gate");
        let candidate = load(&cand_path)?;
        let champion = load(&best_path)?;
        let seed = s.seed ^ g.wrapping_mul(0x9E37_79B9);
        let games = GateGames { concurrency: s.arena.workers(), rules: s.rules.clone(), seed, oracle: s.oracle.clone() };
        let d = gate_match(&candidate, &champion, s.gate, s.mcts, games);
        let t = &d.outcome.tally;
        let best_name = format!("gen-{best_g:04}");
        log_match(run, &name, &best_name, t, "gate")?;
        let (elo, ci) = t.elo();
        let meta = modelfile::read_meta(&cand_path).ok();
        run.append_event(&Event::Gate(GateEvent {
            time: now(),
            generation: g,
            accepted: d.accepted,
            reason: d.why.clone(),
            best: Some(best_g),
            games: u64::from(t.games()),
            wins: u64::from(t.wins),
            losses: u64::from(t.losses),
            draws: u64::from(t.draws),
            penta: t.penta,
            elo: elo.is_finite().then_some(elo),
            elo_ci95: ci.is_finite().then_some(ci),
            llr: d.outcome.llr,
            steps: meta.as_ref().map(|m| m.train_steps),
            games_seen: meta.as_ref().map(|m| m.games),
        }))?;
        tracing::info!(
            "gate: {name} vs {best_name}: {}-{}-{} (W-L-D), Elo {elo:+.0} +/- {}, LLR {:.2}: {} — {}",
            t.wins,
            t.losses,
            t.draws,
            if ci.is_finite() { format!("{ci:.0}") } else { "?".into() },
            d.outcome.llr.unwrap_or(0.0),
            if d.accepted { "accepted" } else { "rejected" },
            d.why
        );
        if d.accepted {
            run.promote(g)?;
        } else {
            run.reject(g)?;
        }
    }
    // No ladder before the run has trained a network: rating the random generation 0 tells
    // nothing, and the calibration it would start first (minutes) waits until the first
    // generation is trained, so a run's first minutes go to the teacher and training.
    if s.ladder.every > 0
        && run.highest_generation().is_some_and(|g| g > 0)
        && let Some((best_g, best_path)) = run.best()
    {
        let name = format!("gen-{best_g:04}");
        let laddered = read_matches(run).iter().filter(|m| m.source == "ladder").filter_map(|m| m.a.strip_prefix("gen-")?.parse::<u64>().ok()).max();
        if ladder_due(laddered, best_g, s.ladder.every) {
            let cx = LadderContext::<G> { run, ladder: s.ladder, arena: s.arena, rules: &s.rules, players: &s.players, oracle: s.oracle.clone() };
            phase("ladder");
            play_ladder(&cx, best_g, &best_path, s.seed ^ best_g, progress)?;
            let r = ratings(&read_matches(run));
            let table = r.iter().filter_map(|(n, r)| r.map(|r| (n.clone(), RatingEntry { elo: r.elo, ci95: r.ci95 }))).collect();
            if let Some((_, Some(mine))) = r.iter().find(|(n, _)| *n == name) {
                tracing::info!("ratings: {name} is {:+.0} +/- {:.0} Elo (the depth-1 engine = 0)", mine.elo, mine.ci95);
            }
            run.append_event(&Event::Ratings(RatingsEvent { time: now(), generation: best_g, ratings: table }))?;
        }
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
    let anchors = super::match_game::anchors();
    let anchor = names.iter().position(|n| anchors.contains(n)).unwrap_or(0);
    let fitted = bt::fit(names.len(), &results, anchor);
    names.into_iter().zip(fitted).collect()
}

#[cfg(test)]
mod tests {
    use super::{LoggedMatch, ladder_due, uncalibrated};

    #[test]
    fn calibration_plays_only_the_pairs_not_yet_played() {
        let name = |d: u32| format!("alphabeta:depth={d}");
        let cal = |hi: u32, lo: u32| LoggedMatch { source: "calibration".into(), a: name(hi), b: name(lo), wins: 60, losses: 40, ..LoggedMatch::default() };
        assert_eq!(uncalibrated(&[1, 2, 4], &[], name), vec![(1, 2), (2, 4)]);
        let logged = [cal(2, 1), cal(4, 2), LoggedMatch { source: "ladder".into(), a: "gen-0004".into(), b: name(8), ..LoggedMatch::default() }];
        assert_eq!(uncalibrated(&[1, 2, 4], &logged, name), vec![]);
        // Depths added to a run under way: only their new neighbours are played; a ladder game
        // against depth 8 does not count as its calibration.
        assert_eq!(uncalibrated(&[1, 2, 4, 8, 10], &logged, name), vec![(4, 8), (8, 10)]);
        assert_eq!(uncalibrated(&[1, 2, 3, 4], &logged, name), vec![(2, 3), (3, 4)]);
    }

    #[test]
    fn the_ladder_follows_promotions_that_skip_multiples() {
        assert!(ladder_due(None, 0, 4), "the first best network is rated");
        assert!(!ladder_due(Some(0), 3, 4));
        assert!(ladder_due(Some(0), 7, 4), "gen 7 after gen 0 although 7 is no multiple of 4");
        assert!(!ladder_due(Some(7), 10, 4));
        assert!(ladder_due(Some(7), 13, 4));
        assert!(!ladder_due(Some(13), 13, 4), "never twice for one network");
    }
}
