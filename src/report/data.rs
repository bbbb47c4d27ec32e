//! What a report is made of, read from a run directory: metrics.jsonl (training, self-play,
//! gate, match and rating events) and the model files' headers.

use crate::arena::bt::Rating;
use crate::arena::gate::{LoggedMatch, ratings};
use crate::nn::modelfile;
use crate::store::events::Event;
use crate::store::run::RunDir;

pub use crate::store::events::{GamesEvent as SelfplayBatch, GateEvent, TrainEvent as TrainPoint};

/// A checkpoint (promoted or rejected network) and where it stood when written.
#[derive(Clone, Debug, Default)]
pub struct Checkpoint {
    pub generation: u64,
    pub promoted: bool,
    pub steps: u64,
    pub games: u64,
    pub created: f64,
    pub rating: Option<Rating>,
}

#[derive(Debug, Default)]
pub struct RunData {
    pub train: Vec<TrainPoint>,
    pub selfplay: Vec<SelfplayBatch>,
    /// The classical teacher's games (before the first generation), apart from self-play.
    pub teacher: Vec<SelfplayBatch>,
    pub gates: Vec<GateEvent>,
    pub matches: Vec<LoggedMatch>,
    pub checkpoints: Vec<Checkpoint>,
    /// The ladder engine's depths on the rating scale: (depth, rating).
    pub depths: Vec<(u32, Rating)>,
    /// The ladder engine: "alpha-beta" (Jungle) or "expectiminimax" (the flip game).
    pub engine: &'static str,
    /// The first event's time (the run's start).
    pub start: f64,
    /// The sessions of training, (first, last) event time each: a run resumed after a pause
    /// has one per `train` invocation, and the pauses between them count as no time.
    pub sessions: Vec<(f64, f64)>,
    /// Metrics lines that could not be read: "line N: reason".
    pub problems: Vec<String>,
    /// Each generation's value accuracy on the endgame tables' positions.
    pub tablebase: Vec<crate::store::events::TablebaseEvent>,
}

/// Reads everything a report needs. Lines that could not be read (a torn last line after a
/// crash, a field missing) are listed with their line numbers in `problems`.
pub fn load(run: &RunDir) -> RunData {
    let mut d = RunData::default();
    let (events, problems) = run.read_events();
    d.problems = problems;
    d.sessions = sessions(&events);
    for e in events {
        let t = e.time();
        if d.start == 0.0 || (t > 0.0 && t < d.start) {
            d.start = t;
        }
        match e {
            Event::Train(t) => d.train.push(t),
            Event::Selfplay(s) => d.selfplay.push(s),
            Event::Gate(g) => d.gates.push(g),
            Event::Match(m) => d.matches.push(m),
            Event::Teacher(t) => d.teacher.push(t),
            Event::Tablebase(t) => d.tablebase.push(t),
            Event::Ratings(_) | Event::Start(_) => {}
        }
    }
    let fitted = ratings(&d.matches);
    d.checkpoints = checkpoints(run, &d, &fitted);
    for (name, r) in &fitted {
        let depth = |prefix: &str| name.strip_prefix(prefix).and_then(|x| x.parse::<u32>().ok());
        if let (Some(depth), Some(r)) = (depth("alphabeta:depth="), r) {
            d.depths.push((depth, *r));
        } else if let (Some(depth), Some(r)) = (depth("expectiminimax:depth="), r) {
            d.depths.push((depth, *r));
            d.engine = "expectiminimax";
        }
    }
    d.depths.sort_by_key(|x| x.0);
    if d.engine.is_empty() {
        d.engine = "alpha-beta";
    }
    if d.start == 0.0 {
        d.start = d.checkpoints.iter().map(|c| c.created).filter(|&c| c > 0.0).fold(f64::INFINITY, f64::min);
        if !d.start.is_finite() {
            d.start = 0.0;
        }
    }
    d
}

/// Every checkpoint the run knows of: the generations its metrics gated or rated, and the
/// network files it holds. Where the metrics know a generation, its counters come from them (the
/// self-play games and training steps logged before it was gated), so a run folder that kept
/// only its metrics reports the same as the run; a network known only from its file takes the
/// file's header.
fn checkpoints(run: &RunDir, d: &RunData, fitted: &[(String, Option<Rating>)]) -> Vec<Checkpoint> {
    use std::collections::BTreeMap;
    let rating_of = |g: u64| fitted.iter().find(|(n, _)| *n == format!("gen-{g:04}")).and_then(|(_, r)| *r);
    let at = |t: f64| {
        let games = d.selfplay.iter().filter(|s| s.time <= t).map(|s| s.games).sum();
        let steps = d.train.iter().filter(|e| e.time <= t).map(|e| e.step).max().unwrap_or(0);
        (games, steps)
    };
    let mut out: BTreeMap<u64, Checkpoint> = BTreeMap::new();
    // Networks that played matches (generation 0 at the ladder's first rung, for one) and the
    // gated generations, from the metrics.
    for m in &d.matches {
        for name in [&m.a, &m.b] {
            if let Some(g) = name.strip_prefix("gen-").and_then(|x| x.parse::<u64>().ok()) {
                let c = out.entry(g).or_insert(Checkpoint { generation: g, promoted: true, created: m.time, ..Checkpoint::default() });
                c.created = c.created.min(m.time);
            }
        }
    }
    for g in &d.gates {
        let c = out.entry(g.generation).or_insert(Checkpoint { generation: g.generation, ..Checkpoint::default() });
        c.promoted = g.accepted;
        c.created = g.time;
    }
    for c in out.values_mut() {
        (c.games, c.steps) = at(c.created);
    }
    let mut files: Vec<(u64, std::path::PathBuf, bool)> = run.promoted().into_iter().map(|(g, p)| (g, p, true)).collect();
    files.extend(run.rejected().into_iter().map(|(g, p)| (g, p, false)));
    for (g, path, promoted) in files {
        out.entry(g).or_insert_with(|| {
            let (steps, games, created) = modelfile::read_meta(&path).map_or((0, 0, 0.0), |m| (m.train_steps, m.games, m.created));
            Checkpoint { generation: g, promoted, steps, games, created, rating: None }
        });
    }
    for c in out.values_mut() {
        c.rating = rating_of(c.generation);
    }
    out.into_values().collect()
}

/// Whether the run gated its candidates with matches (`gate.enabled`); a run with the gate off
/// logs each promotion with no games.
pub fn gate_played(d: &RunData) -> bool {
    d.gates.iter().any(|g| g.games > 0 || g.best.is_some())
}

/// Splits the events' times into sessions at each `start` event; events before the first one
/// (a run begun by an older build) form a session of their own.
fn sessions(events: &[Event]) -> Vec<(f64, f64)> {
    let mut out: Vec<(f64, f64)> = Vec::new();
    for e in events.iter().filter(|e| e.time() > 0.0) {
        let t = e.time();
        match out.last_mut() {
            Some(s) if !matches!(e, Event::Start(_)) => s.1 = s.1.max(t),
            _ => out.push((t, t)),
        }
    }
    // A session that logged nothing after its start adds no time.
    out.retain(|s| s.1 > s.0);
    out
}

impl RunData {
    /// Training time up to `t`: the sessions before it in full, and the one it falls in up to
    /// `t` (a time inside a pause counts as the end of the session before it).
    pub fn elapsed(&self, t: f64) -> f64 {
        if self.sessions.is_empty() {
            return (t - self.start).max(0.0);
        }
        self.sessions.iter().map(|&(a, b)| (t.min(b) - a).max(0.0)).sum()
    }

    /// Training time of the whole run.
    pub fn training_time(&self) -> f64 {
        self.sessions.iter().map(|&(a, b)| b - a).sum()
    }
}

/// Whether the anchor of the rating scale has played.
pub fn anchored(d: &RunData) -> bool {
    let anchors = crate::arena::match_game::anchors();
    d.matches.iter().any(|m| anchors.iter().any(|a| m.a == *a || m.b == *a))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::events::{StartEvent, TrainEvent};

    fn train(time: f64) -> Event {
        Event::Train(TrainEvent { time, ..TrainEvent::default() })
    }
    fn start(time: f64) -> Event {
        Event::Start(StartEvent { time, generation: 0 })
    }

    #[test]
    fn pauses_between_sessions_count_as_no_time() {
        // An older build's session without a start event, then two sessions, one of them empty.
        let events = [train(10.0), train(20.0), start(100.0), train(130.0), start(400.0), start(1000.0), train(1100.0)];
        let d = RunData { sessions: sessions(&events), start: 10.0, ..RunData::default() };
        assert_eq!(d.sessions, vec![(10.0, 20.0), (100.0, 130.0), (1000.0, 1100.0)]);
        assert_eq!(d.training_time(), 140.0);
        assert_eq!(d.elapsed(15.0), 5.0);
        assert_eq!(d.elapsed(500.0), 40.0, "a time in a pause counts as the end of the session before");
        assert_eq!(d.elapsed(1050.0), 90.0);
        assert_eq!(d.elapsed(5.0), 0.0);
    }
}
