//! Jungle's teacher stage: the alpha-beta engine's games before the first generation (see
//! [`crate::selfplay::teacher`]), written as shards like self-play's; the engine's games
//! themselves are [`games`].

pub mod games;

use std::sync::atomic::AtomicBool;
use std::time::Instant;

use crate::jungle::JungleGame;
use crate::pipeline::{Pipeline, PipelineError, ProgressFn};
use crate::selfplay::record::GameRecord;
use crate::selfplay::shards::ShardWriter;
use crate::selfplay::stage::{SelfplaySummary, games_event};
use crate::selfplay::teacher::SHARD_PREFIX;
use crate::store::StoreError;
use crate::store::events::Event;
use crate::store::hooks::{phase, unwritten};

/// The alpha-beta teacher's games into the run's games/, up to `[teacher] games` in all, so a
/// resumed run plays only the missing ones; the games played now.
pub fn teach(p: &mut Pipeline<JungleGame>, progress: &mut ProgressFn, stop: &AtomicBool) -> Result<u64, PipelineError> {
    let want = p.config.teacher.games;
    let have = p.teacher_games();
    if want == 0 || p.meta.iteration > 0 || have >= want {
        return Ok(0);
    }
    let games = want - have;
    let c = &p.config;
    phase("teacher");
    tracing::info!("teacher: alpha-beta depth {} plays {games} games for the first network", c.teacher.depth);
    let start = Instant::now();
    let done = std::cell::Cell::new(0u64);
    let plies = std::cell::Cell::new(0u64);
    let mut writer = ShardWriter::new(&p.run.games_dir(), SHARD_PREFIX, c.selfplay.games_per_shard);
    let mut records_for_metrics: Vec<GameRecord<JungleGame>> = Vec::new();
    let run = games::TeacherRun {
        config: &c.teacher,
        search: &c.search,
        eval: &c.eval,
        rules: c.rules.jungle,
        first: have,
        games,
        seed: c.train.seed ^ 0x7EAC_4E25,
        threads: c.selfplay.worker_count(),
    };
    let res = games::play_games(
        &run,
        stop,
        |rec| {
            done.set(done.get() + 1);
            plies.set(plies.get() + rec.moves.len() as u64);
            records_for_metrics.push(rec.clone());
            writer.push(rec)?;
            unwritten(writer.unwritten());
            Ok::<(), StoreError>(())
        },
        || {
            let secs = start.elapsed().as_secs_f64().max(1e-9);
            let (done, plies) = (done.get(), plies.get());
            progress(
                "teacher",
                done,
                games,
                &format!("{:.1} games/s mean length {:.0}", done as f64 / secs, if done > 0 { plies as f64 / done as f64 } else { 0.0 }),
            );
        },
    );
    // Finished games are kept even when interrupted.
    writer.flush()?;
    res?;
    let (done, plies) = (done.get(), plies.get());
    let summary = SelfplaySummary { games: done, moves: plies, evals: 0, seconds: start.elapsed().as_secs_f64(), finished: 0 };
    if done > 0 {
        let m = games_event(&records_for_metrics, 0, &format!("alphabeta:depth={}", c.teacher.depth), &summary);
        p.run.append_event(&Event::Teacher(m))?;
    }
    tracing::info!("teacher: {done} games ({plies} plies) in {:.0} s", summary.seconds);
    p.ingest()?;
    Ok(done)
}
