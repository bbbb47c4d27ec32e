//! `junglezero analysis --model FILE [--threads N]`: the JSON analysis engine, after KataGo's.
//! Each line of stdin is one query; each analysed turn of it gets one line on stdout carrying the
//! query's `id`, in the order the searches finish. Up to `--threads` searches run at once, and
//! their leaves go to the network in shared batches through the inference server. A query that
//! cannot be read gets one line `{"id": ..., "error": "..."}` and the engine goes on; the end of
//! the input ends the engine once every query has been answered. At most `WAITING_PER_THREAD`
//! positions per thread wait for a search, highest `priority` first: past that the input is not
//! read until one starts, so a client that sends without end is held back instead of filling the
//! memory.
//!
//! A query: `{"id": "a", "initialFen": FEN (default: the start), "moves": ["a3a4", ...],
//! "rules": "repetition=off" (over the config's), "maxVisits": 800, "maxTime": 2.5 (seconds),
//! "analyzeTurns": [0, 2] (default: the position after the last move), "includePolicy": true,
//! "maxMoves": 10 (default 10), "priority": 0, "reportDuringSearchEvery": 0.5}`, read and
//! checked by `crate::entries::analysis`. An action: `{"id": "b", "action":
//! "query_version"}`, `{"id": "c", "action": "terminate", "terminateId": "a", "turnNumbers": [2]}`
//! or `{"id": "d", "action": "terminate_all"}`.

use std::io::{BufReader, Write};
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use clap::Args;

use crate::cli::{ConfigArgs, GameKind};
use crate::config::Config;
use crate::entries::HouseGame;
use crate::entries::analysis::{Action, Job, Plan, WAITING_PER_THREAD, read_action};
use crate::entries::waiting::Waiting;
use crate::game::Turn;
use crate::mcts::server::{ServerConfig, ServerStats, with_server};
use crate::mcts::{Evaluator, MctsConfig};
use crate::nn::NetEvaluator;
use crate::serve::analysis::{MctsBudget, MctsView, NetworkView, network_view, run_mcts};
use crate::store::{caps, lines::CappedLines};
use serde_json::{Value, json};

/// The searches running now: the query and turn of each, and the flag that stops it.
#[derive(Default)]
struct Running {
    searches: Mutex<Vec<(u64, String, usize, Arc<AtomicBool>)>>,
    next: std::sync::atomic::AtomicU64,
}

impl Running {
    fn add(&self, id: &str, turn: usize) -> (u64, Arc<AtomicBool>) {
        let key = self.next.fetch_add(1, Ordering::Relaxed);
        let stop = Arc::new(AtomicBool::new(false));
        self.searches.lock().unwrap_or_else(|e| e.into_inner()).push((key, id.to_string(), turn, stop.clone()));
        (key, stop)
    }

    fn remove(&self, key: u64) {
        self.searches.lock().unwrap_or_else(|e| e.into_inner()).retain(|s| s.0 != key);
    }

    /// Raises the stop flag of every running search `action` stops, and waits until each has
    /// said its final answer (a search answers before it leaves the list).
    fn stop(&self, action: &Action) {
        let mut stopped = Vec::new();
        for (key, id, turn, stop) in self.searches.lock().unwrap_or_else(|e| e.into_inner()).iter() {
            if action.stops(id, *turn) {
                stop.store(true, Ordering::Relaxed);
                stopped.push(*key);
            }
        }
        // A stopped search ends within a simulation or a network call.
        while self.searches.lock().unwrap_or_else(|e| e.into_inner()).iter().any(|s| stopped.contains(&s.0)) {
            std::thread::sleep(Duration::from_millis(1));
        }
    }
}

pub fn run(args: AnalysisArgs) -> anyhow::Result<()> {
    let config = super::load_config(&args.config)?;
    crate::with_game!(args.game.unwrap_or(config.game), G => serve::<G>(&args, &config))
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
    // Bounded: the reader waits for a free place, so the memory held by waiting positions is
    // capped whatever the client sends.
    let queue = Waiting::<Job<G>>::new(threads * WAITING_PER_THREAD);
    let running = Running::default();
    let stats = ServerStats::default();
    let server = ServerConfig { max_batch: 256, max_wait: Duration::from_millis(2), clients: threads };
    let mcts = MctsConfig { dirichlet_fraction: 0.0, ..config.mcts.clone() };
    // A tables folder that cannot serve the config's rules is refused at once.
    G::oracle(config)?;
    with_server(&net, server, &stats, |client| {
        std::thread::scope(|scope| {
            for _ in 0..threads {
                scope.spawn(|| {
                    while let Some(job) = queue.pop() {
                        let (key, stop) = running.add(&job.id, job.turn);
                        let a = answer(&job, client, &net, &mcts, &stop, &say);
                        // Said before it leaves the running list: a `terminate` waiting for
                        // it is acknowledged after its answer.
                        say(a);
                        running.remove(key);
                    }
                });
            }
            let mut lines = CappedLines::new(BufReader::new(std::io::stdin().lock()), caps::LINE);
            while let Some(line) = lines.next_line() {
                let line = match line {
                    Ok(l) if l.trim().is_empty() => continue,
                    // JSON is UTF-8: a query with other bytes would come back rewritten.
                    Ok(_) if lines.last_was_invalid_utf8() => {
                        say(json!({ "id": null, "error": "the line is not UTF-8 text (a query is JSON, which is UTF-8); it was ignored" }));
                        continue;
                    }
                    Ok(l) => l,
                    Err(e) => {
                        say(json!({ "id": null, "error": e.to_string() }));
                        continue;
                    }
                };
                match read_action(&line) {
                    Some(Ok((id, action))) => act(&id, &action, &queue, &running, &say),
                    Some(Err((id, e))) => say(json!({ "id": id, "error": crate::check::clip_message(&e) })),
                    None => match Plan::<G>::read(&line, config) {
                        // Waits while the queue is full: the input is read no faster than searched.
                        Ok(plan) => {
                            let priority = plan.priority();
                            plan.for_each_job(|job| queue.push(job, priority));
                        }
                        Err((id, e)) => say(json!({ "id": id, "error": crate::check::clip_message(&e) })),
                    },
                }
            }
            queue.close();
        });
    });
    let calls = stats.calls.load(std::sync::atomic::Ordering::Relaxed);
    let positions = stats.positions.load(std::sync::atomic::Ordering::Relaxed);
    eprintln!("analysis: {positions} positions in {calls} network calls (mean batch {:.1})", stats.mean_batch());
    Ok(())
}

/// Does what an action line asks and acknowledges it (after the answers it causes).
fn act<G>(id: &str, action: &Action, queue: &Waiting<Job<G>>, running: &Running, say: &dyn Fn(Value)) {
    match action {
        Action::QueryVersion => say(json!({ "id": id, "action": "query_version", "version": env!("CARGO_PKG_VERSION") })),
        Action::Terminate { .. } | Action::TerminateAll { .. } => {
            for job in queue.remove(|job| action.stops(&job.id, job.turn)) {
                say(json!({ "id": job.id, "turnNumber": job.turn, "isDuringSearch": false, "noResults": true }));
            }
            running.stop(action);
            let mut ack = json!({ "id": id, "action": if matches!(action, Action::TerminateAll { .. }) { "terminate_all" } else { "terminate" } });
            if let Action::Terminate { target, .. } = action {
                ack["terminateId"] = json!(target);
            }
            if let Action::Terminate { turns: Some(t), .. } | Action::TerminateAll { turns: Some(t) } = action {
                ack["turnNumbers"] = json!(t);
            }
            say(ack);
        }
    }
}

/// Searches one job's position until its budget is spent or `stop` is raised, saying partial
/// answers as the query asks, and returns the final answer.
fn answer<G: HouseGame>(job: &Job<G>, client: &dyn Evaluator<G>, net: &NetEvaluator, mcts: &MctsConfig, stop: &AtomicBool, say: &dyn Fn(Value)) -> Value {
    match job.game.turn() {
        Turn::Over(o) => return json!({ "id": job.id, "turnNumber": job.turn, "error": format!("the game is over: {}", G::outcome_text(&o)) }),
        Turn::Chance => return json!({ "id": job.id, "turnNumber": job.turn, "error": "the position waits for a flip's outcome" }),
        Turn::Player(_) => {}
    }
    let raw = network_view(net, &job.game);
    let budget = MctsBudget { sims: job.visits, time: job.time, stop };
    let mut last = Instant::now();
    let view = run_mcts(client, mcts, &job.game, budget, job.oracle.clone(), &mut |v: &MctsView| {
        if job.report_every.is_some_and(|every| last.elapsed() >= every) {
            last = Instant::now();
            say(render(job, v, &raw, true));
        }
        true
    });
    render(job, &view, &raw, false)
}

/// An answer: the search's view of the position, during the search or at its end.
fn render<G>(job: &Job<G>, view: &MctsView, raw: &NetworkView, during: bool) -> Value {
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
    if let Some(m) = view.mate {
        root["mate"] = json!(m);
    }
    let mut a = json!({ "id": job.id, "turnNumber": job.turn, "isDuringSearch": during, "rootInfo": root, "moveInfos": moves, "timeMs": view.time_ms });
    if job.include_policy {
        a["policy"] = json!(raw.policy);
    }
    a
}

#[derive(Args, Debug)]
pub struct AnalysisArgs {
    #[command(flatten)]
    pub config: ConfigArgs,
    /// The network (.jzm).
    #[arg(long, value_name = "PATH")]
    pub model: PathBuf,
    /// Searches run at once (their network calls are batched together).
    #[arg(long, default_value_t = 4, value_parser = clap::value_parser!(u32).range(1..=256))]
    pub threads: u32,
    /// The game (default: the config's `game`).
    #[arg(long, value_enum)]
    pub game: Option<GameKind>,
}
