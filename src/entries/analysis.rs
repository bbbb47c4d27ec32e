//! The JSON analysis engine's queries (`junglezero analysis`, docs/analysis.md): a line read
//! and checked into a [`Plan`], whose positions are made one at a time as the engine's bounded
//! queue takes them. Every cap a query meets is here, beside what it bounds.

use std::sync::Arc;
use std::time::Duration;

use serde::Deserialize;
use serde_json::Value;

use super::HouseGame;
use crate::config::Config;
use crate::mcts::oracle::Oracle;

/// The most visits one query may ask for per position (a tree of about 1 KiB a visit, one per
/// running search), and the longest time (seconds).
pub const MAX_VISITS: u32 = 100_000;
pub const MAX_TIME: f64 = 3600.0;
/// The most moves one query may give (each analysed position holds the moves before it, so a
/// query costs at most this many moves a waiting or running search).
pub const MAX_QUERY_MOVES: usize = 4096;
/// The most root moves an answer lists.
pub const MAX_REPORTED_MOVES: usize = 256;
/// Positions waiting for a search, per search thread; the input waits while they are this many.
pub const WAITING_PER_THREAD: usize = 4;
/// The range of a query's `priority`.
pub const MAX_PRIORITY: i64 = 1 << 30;
/// The shortest interval between a search's partial answers (`reportDuringSearchEvery`, in
/// seconds); the search looks at the clock five times a second.
pub const MIN_REPORT_EVERY: f64 = 0.05;

#[derive(Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct Query {
    id: String,
    initial_fen: Option<String>,
    #[serde(default)]
    moves: Vec<String>,
    rules: Option<String>,
    // Numbers are read as any JSON number and checked here, so that a refusal names the field
    // (a negative or huge count is out of range, not a type error).
    max_visits: Option<f64>,
    max_time: Option<f64>,
    analyze_turns: Option<Vec<f64>>,
    #[serde(default)]
    include_policy: bool,
    max_moves: Option<f64>,
    priority: Option<f64>,
    report_during_search_every: Option<f64>,
}

/// A line that asks the engine to do something rather than to analyse (KataGo's `action`).
#[derive(Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct ActionLine {
    id: String,
    action: String,
    terminate_id: Option<String>,
    turn_numbers: Option<Vec<f64>>,
}

/// What an action line asks.
#[derive(Clone, Debug, PartialEq)]
pub enum Action {
    /// Say the engine's version.
    QueryVersion,
    /// Stop the searches of the query `target` (only the positions `turns` when given): a
    /// running one answers with what it has found, a waiting one is answered `noResults`.
    Terminate { target: String, turns: Option<Vec<usize>> },
    /// The same for every query.
    TerminateAll { turns: Option<Vec<usize>> },
}

impl Action {
    /// Whether the position `turn` of query `id` is one this action stops.
    pub fn stops(&self, id: &str, turn: usize) -> bool {
        let turn_named = |turns: &Option<Vec<usize>>| turns.as_ref().is_none_or(|t| t.contains(&turn));
        match self {
            Action::QueryVersion => false,
            Action::Terminate { target, turns } => target == id && turn_named(turns),
            Action::TerminateAll { turns } => turn_named(turns),
        }
    }
}

/// The action a line asks for with its id, or (its id if it has one, why it cannot be done);
/// `None` for a line without an `action` field (a query).
pub fn read_action(line: &str) -> Option<Result<(String, Action), (Value, String)>> {
    let value = serde_json::from_str::<Value>(line).ok()?;
    value.get("action")?;
    let id = value.get("id").cloned().unwrap_or(Value::Null);
    let fail = |e: String| Err((id.clone(), e));
    let a: ActionLine = match serde_json::from_value(value.clone()) {
        Ok(a) => a,
        Err(e) => return Some(fail(format!("bad action: {e}"))),
    };
    let turns = match a.turn_numbers {
        None => None,
        Some(t) => match t.iter().map(|&v| whole(v, 0..=MAX_QUERY_MOVES)).collect::<Option<Vec<usize>>>() {
            Some(t) => Some(t),
            None => return Some(fail(format!("turnNumbers must be whole numbers from 0 to {MAX_QUERY_MOVES}"))),
        },
    };
    let action = match (a.action.as_str(), a.terminate_id) {
        ("query_version", None) if turns.is_none() => Action::QueryVersion,
        ("terminate", Some(target)) => Action::Terminate { target, turns },
        ("terminate", None) => return Some(fail("terminate needs terminateId (the id of the query to stop)".into())),
        ("terminate_all", None) => Action::TerminateAll { turns },
        ("query_version" | "terminate_all", Some(_)) | ("query_version", None) => {
            return Some(fail(format!("{}: takes no terminateId or turnNumbers", a.action)));
        }
        (other, _) => return Some(fail(format!("unknown action '{}' (query_version, terminate, terminate_all)", crate::check::clip(other)))),
    };
    Some(Ok((a.id, action)))
}

/// `"name: "` for the first field of a query line that cannot be read on its own (a string
/// where a number belongs), so that the error names it; empty when no one field is at fault.
fn field_at_fault(line: &str) -> String {
    let Ok(Value::Object(fields)) = serde_json::from_str::<Value>(line) else { return String::new() };
    fields
        .into_iter()
        .find(|(name, value)| {
            let mut alone = serde_json::Map::new();
            alone.insert("id".into(), Value::String(String::new()));
            alone.insert(name.clone(), value.clone());
            serde_json::from_value::<Query>(Value::Object(alone)).is_err()
        })
        .map_or_else(String::new, |(name, _)| format!("{name}: "))
}

/// `v` as a whole number in `range`, or `None`.
fn whole(v: f64, range: std::ops::RangeInclusive<usize>) -> Option<usize> {
    (v.fract() == 0.0 && v >= *range.start() as f64 && v <= *range.end() as f64).then_some(v as usize)
}

/// One search to run: a position of a query, with what to report.
pub struct Job<G> {
    pub id: String,
    /// Which position of the query: 0 its start, N the one after N moves.
    pub turn: usize,
    pub game: G,
    pub visits: u32,
    pub time: Duration,
    pub include_policy: bool,
    /// Root moves to report.
    pub max_moves: usize,
    /// Exact values under the query's rules (the endgame tables), if any.
    pub oracle: Option<Arc<dyn Oracle<G>>>,
    /// Higher is searched first among the waiting positions.
    pub priority: i64,
    /// Partial answers this often while it searches (`reportDuringSearchEvery`).
    pub report_every: Option<Duration>,
}

/// A query read and checked: its start, its moves (all legal) and which positions to search.
pub struct Plan<G> {
    id: String,
    start: G,
    moves: Vec<String>,
    /// Turns to analyse, ascending, each at most `moves.len()`.
    turns: Vec<usize>,
    visits: u32,
    time: Duration,
    include_policy: bool,
    max_moves: usize,
    oracle: Option<Arc<dyn Oracle<G>>>,
    priority: i64,
    report_every: Option<Duration>,
}

impl<G: HouseGame> Plan<G> {
    /// Higher is searched first among the waiting positions.
    pub fn priority(&self) -> i64 {
        self.priority
    }

    /// The searches a query line asks for, or (its id if it has one, why not). The moves are
    /// replayed once here to check them; no position is kept.
    pub fn read(line: &str, config: &Config) -> Result<Plan<G>, (Value, String)> {
        let id = serde_json::from_str::<Value>(line).ok().and_then(|v| v.get("id").cloned()).unwrap_or(Value::Null);
        let fail = |e: String| (id.clone(), e);
        let q: Query = serde_json::from_str(line).map_err(|e| fail(format!("bad query: {}{e}", field_at_fault(line))))?;
        if q.moves.len() > MAX_QUERY_MOVES {
            return Err(fail(format!("moves: {} moves given, at most {MAX_QUERY_MOVES}", q.moves.len())));
        }
        let rules = G::rules_with(config, q.rules.as_deref()).map_err(|e| fail(format!("bad rules: {e}")))?;
        // Tables built under other capture rules would value these positions wrongly: refused
        // as the protocol refuses them.
        let oracle = G::oracle_under(config, &rules).map_err(|e| fail(format!("rules: the endgame tables cannot serve them: {e}")))?;
        let start = match q.initial_fen.as_deref() {
            None => G::start_under(&rules),
            Some(text) => G::from_root(text, &rules).map_err(|e| fail(format!("bad initialFen '{}': {e}", crate::check::clip(text))))?,
        };
        let visits = match q.max_visits {
            None => config.mcts.playouts.min(MAX_VISITS),
            Some(v) => whole(v, 1..=MAX_VISITS as usize).ok_or_else(|| fail(format!("maxVisits must be a whole number from 1 to {MAX_VISITS}")))? as u32,
        };
        let time = match q.max_time {
            None => Duration::from_secs(MAX_TIME as u64),
            Some(t) if t.is_finite() && t > 0.0 && t <= MAX_TIME => Duration::from_secs_f64(t),
            Some(_) => return Err(fail(format!("maxTime must be a number of seconds above 0 and at most {MAX_TIME}"))),
        };
        let max_moves = match q.max_moves {
            None => 10,
            Some(v) => whole(v, 1..=MAX_REPORTED_MOVES).ok_or_else(|| fail(format!("maxMoves must be a whole number from 1 to {MAX_REPORTED_MOVES}")))?,
        };
        let priority = match q.priority {
            None => 0,
            Some(p) if p.fract() == 0.0 && p.abs() <= MAX_PRIORITY as f64 => p as i64,
            Some(_) => return Err(fail(format!("priority must be a whole number from -{MAX_PRIORITY} to {MAX_PRIORITY}"))),
        };
        let report_every = match q.report_during_search_every {
            None => None,
            Some(t) if t.is_finite() && (MIN_REPORT_EVERY..=MAX_TIME).contains(&t) => Some(Duration::from_secs_f64(t)),
            Some(_) => return Err(fail(format!("reportDuringSearchEvery must be a number of seconds from {MIN_REPORT_EVERY} to {MAX_TIME}"))),
        };
        let given = q.analyze_turns.unwrap_or_else(|| vec![q.moves.len() as f64]);
        if given.is_empty() {
            return Err(fail("analyzeTurns is empty: name at least one turn, or leave it out for the last".into()));
        }
        if given.len() > q.moves.len() + 1 {
            return Err(fail(format!("analyzeTurns: {} turns given for {} positions", given.len(), q.moves.len() + 1)));
        }
        let mut turns = Vec::with_capacity(given.len());
        for &t in &given {
            let turn = whole(t, 0..=q.moves.len())
                .ok_or_else(|| fail(format!("analyzeTurns: turn {t} is not one of the {} positions (0 to {})", q.moves.len() + 1, q.moves.len())))?;
            turns.push(turn);
        }
        turns.sort_unstable();
        turns.dedup();
        let mut game = start.clone();
        for (i, text) in q.moves.iter().enumerate() {
            game.play_text_move(text).map_err(|e| fail(format!("moves: move {} ('{}'): {e}", i + 1, crate::check::clip(text))))?;
        }
        Ok(Plan { id: q.id, start, moves: q.moves, turns, visits, time, include_policy: q.include_policy, max_moves, oracle, priority, report_every })
    }

    /// Replays the moves once more and gives `each` every position to analyse as it is
    /// reached, in turn order, until `each` says no more (the engine's queue is bounded, so
    /// `each` waits while it is full and one position at a time is made).
    pub fn for_each_job(self, mut each: impl FnMut(Job<G>) -> bool) {
        let mut game = self.start;
        let mut played = 0;
        for turn in self.turns {
            while played < turn {
                // Checked in `read`.
                if game.play_text_move(&self.moves[played]).is_err() {
                    return;
                }
                played += 1;
            }
            let job = Job {
                id: self.id.clone(),
                turn,
                game: game.clone(),
                visits: self.visits,
                time: self.time,
                include_policy: self.include_policy,
                max_moves: self.max_moves,
                oracle: self.oracle.clone(),
                priority: self.priority,
                report_every: self.report_every,
            };
            if !each(job) {
                return;
            }
        }
    }
}
