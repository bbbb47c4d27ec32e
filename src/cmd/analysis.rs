//! `junglezero analysis --model FILE [--threads N]`: the JSON analysis engine, after KataGo's.
//! Each line of stdin is one query; each analysed turn of it gets one line on stdout carrying the
//! query's `id`, in the order the searches finish. Up to `--threads` searches run at once, and
//! their leaves go to the network in shared batches through the inference server. A query that
//! cannot be read gets one line `{"id": ..., "error": "..."}` and the engine goes on; the end of
//! the input ends the engine once every query has been answered.
//!
//! A query: `{"id": "a", "initialFen": FEN (default: the start), "moves": ["a3a4", ...],
//! "rules": "repetition=off" (over the config's), "maxVisits": 800, "maxTime": 2.5 (seconds),
//! "analyzeTurns": [0, 2] (default: the position after the last move), "includePolicy": true,
//! "maxMoves": 10 (default 10)}`.

use std::io::{BufReader, Write};
use std::sync::atomic::AtomicBool;
use std::sync::{Arc, Mutex, mpsc};
use std::time::Duration;

use junglezero::config::Config;
use junglezero::entries::HouseGame;
use junglezero::game::Turn;
use junglezero::mcts::oracle::Oracle;
use junglezero::mcts::server::{ServerConfig, ServerStats, with_server};
use junglezero::mcts::{Evaluator, MctsConfig};
use junglezero::nn::burn_eval::NetEvaluator;
use junglezero::serve::analysis::{MctsBudget, network_view, run_mcts};
use junglezero::store::{caps, lines::CappedLines};
use serde::Deserialize;
use serde_json::{Value, json};

use crate::cli::AnalysisArgs;

/// The most visits one query may ask for, and the longest time (seconds).
const MAX_VISITS: u32 = 1_000_000;
const MAX_TIME: f64 = 3600.0;

#[derive(Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct Query {
    id: String,
    initial_fen: Option<String>,
    #[serde(default)]
    moves: Vec<String>,
    rules: Option<String>,
    max_visits: Option<u32>,
    max_time: Option<f64>,
    analyze_turns: Option<Vec<usize>>,
    #[serde(default)]
    include_policy: bool,
    max_moves: Option<usize>,
}

/// One search to run: a position of a query, with what to report.
struct Job<G> {
    id: String,
    turn: usize,
    game: G,
    visits: u32,
    time: Duration,
    include_policy: bool,
    max_moves: usize,
}

pub fn run(args: AnalysisArgs) -> anyhow::Result<()> {
    let config = super::load_config(&args.config)?;
    junglezero::with_game!(args.game.unwrap_or(config.game), G => serve::<G>(&args, &config))
}

fn serve<G: HouseGame>(args: &AnalysisArgs, config: &Config) -> anyhow::Result<()> {
    let net = NetEvaluator::load(&args.model, &config.hardware, G::SHAPE)?;
    let threads = args.threads as usize;
    let out = Mutex::new(std::io::stdout());
    let say = |v: Value| {
        let mut o = out.lock().unwrap_or_else(|e| e.into_inner());
        // A closed stdout ends nothing here: the input's end does.
        let _ = writeln!(o, "{v}").and_then(|_| o.flush());
    };
    let (tx, rx) = mpsc::channel::<Job<G>>();
    let rx = Mutex::new(rx);
    let stats = ServerStats::default();
    let server = ServerConfig { max_batch: 256, max_wait: Duration::from_millis(2), clients: threads };
    let mcts = MctsConfig { dirichlet_fraction: 0.0, ..config.mcts.clone() };
    let oracle = G::oracle(config)?;
    with_server(&net, server, &stats, |client| {
        std::thread::scope(|scope| {
            for _ in 0..threads {
                scope.spawn(|| {
                    loop {
                        let job = rx.lock().unwrap_or_else(|e| e.into_inner()).recv();
                        let Ok(job) = job else { break };
                        say(answer(&job, client, &net, &mcts, oracle.clone()));
                    }
                });
            }
            let mut lines = CappedLines::new(BufReader::new(std::io::stdin().lock()), caps::LINE);
            while let Some(line) = lines.next_line() {
                let line = match line {
                    Ok(l) if l.trim().is_empty() => continue,
                    Ok(l) => l,
                    Err(e) => {
                        say(json!({ "id": null, "error": e.to_string() }));
                        continue;
                    }
                };
                match jobs::<G>(&line, config) {
                    Ok(jobs) => {
                        for j in jobs {
                            let _ = tx.send(j);
                        }
                    }
                    Err((id, e)) => say(json!({ "id": id, "error": junglezero::check::clip_message(&e) })),
                }
            }
            drop(tx);
        });
    });
    let calls = stats.calls.load(std::sync::atomic::Ordering::Relaxed);
    let positions = stats.positions.load(std::sync::atomic::Ordering::Relaxed);
    eprintln!("analysis: {positions} positions in {calls} network calls (mean batch {:.1})", stats.mean_batch());
    Ok(())
}

/// The searches a query line asks for, or (its id if it has one, why not).
fn jobs<G: HouseGame>(line: &str, config: &Config) -> Result<Vec<Job<G>>, (Value, String)> {
    let id = serde_json::from_str::<Value>(line).ok().and_then(|v| v.get("id").cloned()).unwrap_or(Value::Null);
    let fail = |e: String| (id.clone(), e);
    let q: Query = serde_json::from_str(line).map_err(|e| fail(format!("bad query: {e}")))?;
    let rules = G::rules_with(config, q.rules.as_deref()).map_err(|e| fail(format!("bad rules: {e}")))?;
    let mut game = match q.initial_fen.as_deref() {
        None => G::start_under(&rules),
        Some(text) => G::from_root(text, &rules).map_err(|e| fail(format!("bad initialFen '{}': {e}", junglezero::check::clip(text))))?,
    };
    let visits = q.max_visits.unwrap_or(config.mcts.playouts);
    if !(1..=MAX_VISITS).contains(&visits) {
        return Err(fail(format!("maxVisits must be from 1 to {MAX_VISITS}")));
    }
    let time = match q.max_time {
        None => Duration::from_secs(MAX_TIME as u64),
        Some(t) if t.is_finite() && t > 0.0 && t <= MAX_TIME => Duration::from_secs_f64(t),
        Some(_) => return Err(fail(format!("maxTime must be a number of seconds above 0 and at most {MAX_TIME}"))),
    };
    let turns = q.analyze_turns.clone().unwrap_or_else(|| vec![q.moves.len()]);
    if let Some(t) = turns.iter().find(|&&t| t > q.moves.len()) {
        return Err(fail(format!("analyzeTurns: turn {t} is past the {} moves given", q.moves.len())));
    }
    let mut jobs = Vec::new();
    for turn in 0..=q.moves.len() {
        if turns.contains(&turn) {
            jobs.push(Job {
                id: q.id.clone(),
                turn,
                game: game.clone(),
                visits,
                time,
                include_policy: q.include_policy,
                max_moves: q.max_moves.unwrap_or(10).clamp(1, 256),
            });
        }
        if let Some(text) = q.moves.get(turn) {
            game.play_text_move(text).map_err(|e| fail(format!("moves: move {} ('{}'): {e}", turn + 1, junglezero::check::clip(text))))?;
        }
    }
    Ok(jobs)
}

/// Searches one job's position and says what it found.
fn answer<G: HouseGame>(job: &Job<G>, client: &dyn Evaluator<G>, net: &NetEvaluator, mcts: &MctsConfig, oracle: Option<Arc<dyn Oracle<G>>>) -> Value {
    match job.game.turn() {
        Turn::Over(o) => return json!({ "id": job.id, "turnNumber": job.turn, "error": format!("the game is over: {}", G::outcome_text(&o)) }),
        Turn::Chance => return json!({ "id": job.id, "turnNumber": job.turn, "error": "the position waits for a flip's outcome" }),
        Turn::Player(_) => {}
    }
    let raw = network_view(net, &job.game);
    let budget = MctsBudget { sims: job.visits, time: job.time, stop: &AtomicBool::new(false) };
    let view = run_mcts(client, mcts, &job.game, budget, oracle, &mut |_| true);
    let winrate = |q: f32| (1.0 + q) / 2.0;
    let moves: Vec<Value> = view
        .children
        .iter()
        .take(job.max_moves)
        .enumerate()
        .map(|(order, c)| {
            let mut m = json!({ "move": c.mv, "order": order, "visits": c.visits, "prior": c.prior });
            if let Some(q) = c.q {
                m["value"] = json!(q);
                m["winrate"] = json!(winrate(q));
            }
            if order == 0 {
                m["pv"] = json!(view.pv);
            }
            m
        })
        .collect();
    let mut root = json!({
        "visits": view.sims,
        "value": view.value,
        "winrate": winrate(view.value),
        "wdl": view.wdl,
        "exact": view.exact,
        "rawWdl": raw.wdl,
        "rawValue": raw.value,
    });
    if let Some(m) = raw.moves_left {
        root["rawMovesLeft"] = json!(m);
    }
    let mut a = json!({ "id": job.id, "turnNumber": job.turn, "rootInfo": root, "moveInfos": moves, "timeMs": view.time_ms });
    if job.include_policy {
        a["policy"] = json!(raw.policy);
    }
    a
}
