//! The training loop's self-play stage: games with one evaluator (the best network) into a run
//! directory's games/, a shard every `selfplay.games_per_shard` games, and one summary event in
//! metrics.jsonl. Generic over the evaluator, so tests run it with the evaluators of
//! `mcts::baseline`.

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

use std::sync::Arc;

use super::SelfplayConfig;
use super::bootstrap::{Heuristic, HeuristicBlend};
use super::record::GameRecord;
use super::shards::ShardWriter;
use super::worker::{Counters, Handover, RunOptions};
use crate::game::{Reason, Seat};
use crate::mcts::{Evaluator, MctsConfig};
use crate::store::StoreError;
use crate::store::events::{Event, GamesEvent, now};
use crate::store::hooks::unwritten;
use crate::store::run::RunDir;
use crate::trainable::Trainable;

/// What a self-play stage plays with besides the evaluator (parts of the run's config).
#[derive(Clone)]
pub struct StageSettings<'a, G: Trainable> {
    pub mcts: &'a MctsConfig,
    pub selfplay: &'a SelfplayConfig,
    /// The handcrafted evaluation blended into young networks' leaf values (none: no blend).
    pub heuristic: Option<Arc<dyn Heuristic<G>>>,
    pub rules: G::Rules,
    /// The teacher that finishes long games, if `[selfplay]` asks for one.
    pub finish: Option<Handover<G>>,
    /// The run's seed.
    pub seed: u64,
    /// Exact values (Jungle: the endgame tables, with `tablebase.selfplay`): games end at the
    /// first position they know, with its result.
    pub oracle: Option<Arc<dyn crate::mcts::oracle::Oracle<G>>>,
}

/// Summary of a self-play (or teacher) stage.
#[derive(Debug, Default, Clone)]
pub struct SelfplaySummary {
    pub games: u64,
    pub moves: u64,
    pub evals: u64,
    pub seconds: f64,
    /// Games the teacher finished.
    pub finished: u64,
}

/// Why the game callback stopped the workers.
enum Halt {
    Store(StoreError),
    Interrupted,
}

/// Which games a self-play stage plays: `games` games with the network called `model_id` in
/// the records, the best network of generation `generation`, for the training of generation
/// `iteration` (which seeds them).
#[derive(Clone, Copy, Debug)]
pub struct StageGames<'a> {
    pub model_id: &'a str,
    pub generation: u64,
    pub games: u64,
    pub iteration: u64,
}

/// Plays the games of `which` with `evaluator` (its leaf values blended with the handcrafted
/// evaluation as `[selfplay]` says) into the run's games/ directory. Finished games are written
/// even when `stop` is raised part way; the games in flight then are dropped.
pub fn play_into_run<G: Trainable, E: Evaluator<G>>(
    run: &RunDir,
    s: &StageSettings<G>,
    evaluator: &E,
    which: StageGames,
    progress: &mut dyn FnMut(&str, u64, u64, &str),
    stop: &AtomicBool,
) -> Result<SelfplaySummary, StoreError> {
    let StageGames { model_id, generation, games, iteration } = which;
    let mut writer = ShardWriter::new(&run.games_dir(), model_id, s.selfplay.games_per_shard);
    let seed = s.seed ^ writer.stamp().rotate_left(17) ^ iteration;
    let opts = RunOptions { finish: s.finish.clone(), oracle: s.oracle.clone(), ..RunOptions::from_start(games, seed, model_id, &s.rules) };
    let counters = Counters::default();
    let start = Instant::now();
    let weight = if s.heuristic.is_some() { s.selfplay.heuristic_weight_for(generation) } else { 0.0 };
    if weight > 0.0 {
        tracing::info!("self-play leaf values: {:.2} x network + {weight:.2} x handcrafted evaluation (gen-{generation:04})", 1.0 - weight);
    }
    let blended = HeuristicBlend::new(evaluator, s.heuristic.as_deref(), weight);
    // Every finished game, for the summary event.
    let mut all: Vec<GameRecord<G>> = Vec::new();
    let plies = std::cell::Cell::new(0u64);
    let res = super::worker::run(
        &blended,
        s.mcts,
        s.selfplay,
        &opts,
        &counters,
        |rec| {
            if stop.load(Ordering::Relaxed) {
                return Err(Halt::Interrupted);
            }
            plies.set(plies.get() + rec.moves.len() as u64);
            all.push(rec.clone());
            if let Some(shard) = writer.push(rec).map_err(Halt::Store)? {
                run.publish(&shard).map_err(Halt::Store)?;
            }
            unwritten(writer.unwritten());
            Ok(())
        },
        || {
            let secs = start.elapsed().as_secs_f64().max(1e-9);
            let g = counters.games.load(Ordering::Relaxed);
            progress(
                "selfplay",
                g,
                games,
                &format!(
                    "{:.0} moves/s {:.0} evals/s mean length {:.0}",
                    counters.moves.load(Ordering::Relaxed) as f64 / secs,
                    counters.evals.load(Ordering::Relaxed) as f64 / secs,
                    if g > 0 { plies.get() as f64 / g as f64 } else { 0.0 }
                ),
            );
        },
    );
    // Completed games are kept even when interrupted.
    if let Some(shard) = writer.flush()? {
        run.publish(&shard)?;
    }
    if let Err(Halt::Store(e)) = res {
        return Err(e);
    }
    let summary = SelfplaySummary {
        games: all.len() as u64,
        moves: counters.moves.load(Ordering::Relaxed),
        evals: counters.evals.load(Ordering::Relaxed),
        seconds: start.elapsed().as_secs_f64(),
        finished: counters.finished.load(Ordering::Relaxed),
    };
    if !all.is_empty() {
        let m = GamesEvent { heuristic_weight: f64::from(weight), ..games_event(&all, iteration, model_id, &summary) };
        // What lc0 and KataGo users read after each round of games.
        tracing::info!(
            "self-play: {} games in {:.0} s ({:.2} games/s, {:.0} evaluations/s), first player {}-{}-{} (W-L-D), mean length {:.0} plies",
            m.games,
            m.seconds,
            m.games as f64 / m.seconds.max(1e-9),
            m.evals_per_sec,
            m.red_wins,
            m.blue_wins,
            m.draws,
            m.mean_length
        );
        run.append_event(&Event::Selfplay(m))?;
    }
    Ok(summary)
}

/// The metrics event summarising a batch of games.
pub fn games_event<G: Trainable>(games: &[GameRecord<G>], iteration: u64, model: &str, s: &SelfplaySummary) -> GamesEvent {
    let count = |f: &dyn Fn(&GameRecord<G>) -> bool| games.iter().filter(|g| f(g)).count() as u64;
    let mut reasons = std::collections::BTreeMap::new();
    for r in Reason::ALL {
        let k = count(&|g| g.reason == r);
        if k > 0 {
            reasons.insert(r.name().to_string(), k);
        }
    }
    let playouts: Vec<&GameRecord<G>> = games.iter().filter(|g| g.would_resign.is_some()).collect();
    let false_resigns = playouts.iter().filter(|g| g.winner == g.would_resign).count() as u64;
    let lengths: Vec<u64> = games.iter().map(|g| g.moves.len() as u64).collect();
    GamesEvent {
        time: now(),
        iteration,
        model: model.to_string(),
        games: games.len() as u64,
        moves: s.moves,
        evals: s.evals,
        seconds: s.seconds,
        evals_per_sec: s.evals as f64 / s.seconds.max(1e-9),
        mean_length: lengths.iter().sum::<u64>() as f64 / (games.len() as f64).max(1.0),
        lengths,
        red_wins: count(&|g| g.winner == Some(Seat::First)),
        blue_wins: count(&|g| g.winner == Some(Seat::Second)),
        draws: count(&|g| g.winner.is_none()),
        reasons,
        resign_playouts: playouts.len() as u64,
        false_resigns,
        heuristic_weight: 0.0,
        engine_finished: s.finished,
    }
}
