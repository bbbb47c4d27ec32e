//! `junglezero analysis --model FILE [--threads N]`: the JSON analysis engine, after KataGo's.
//! Each line of stdin is one query; each analysed turn of it gets one line on stdout carrying the
//! query's `id`, in the order the searches finish. Up to `--threads` searches run at once, and
//! their leaves go to the network in shared batches through the inference server. A query that
//! cannot be read gets one line `{"id": ..., "error": "..."}` and the engine goes on; the end of
//! the input ends the engine once every query has been answered. At most `WAITING_PER_THREAD`
//! positions per thread wait for a search: past that the input is not read until one starts, so
//! a client that sends without end is held back instead of filling the memory.
//!
//! A query: `{"id": "a", "initialFen": FEN (default: the start), "moves": ["a3a4", ...],
//! "rules": "repetition=off" (over the config's), "maxVisits": 800, "maxTime": 2.5 (seconds),
//! "analyzeTurns": [0, 2] (default: the position after the last move), "includePolicy": true,
//! "maxMoves": 10 (default 10)}`, read and checked by `junglezero::entries::analysis`.

use std::io::{BufReader, Write};
use std::sync::atomic::AtomicBool;
use std::sync::{Mutex, mpsc};
use std::time::Duration;

use junglezero::config::Config;
use junglezero::entries::HouseGame;
use junglezero::entries::analysis::{Job, Plan, WAITING_PER_THREAD};
use junglezero::game::Turn;
use junglezero::mcts::server::{ServerConfig, ServerStats, with_server};
use junglezero::mcts::{Evaluator, MctsConfig};
use junglezero::nn::burn_eval::NetEvaluator;
use junglezero::serve::analysis::{MctsBudget, network_view, run_mcts};
use junglezero::store::{caps, lines::CappedLines};
use serde_json::{Value, json};

use crate::cli::AnalysisArgs;

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
    // Bounded: the reader waits for a free place, so the memory held by waiting positions is
    // capped whatever the client sends.
    let (tx, rx) = mpsc::sync_channel::<Job<G>>(threads * WAITING_PER_THREAD);
    let rx = Mutex::new(rx);
    let stats = ServerStats::default();
    let server = ServerConfig { max_batch: 256, max_wait: Duration::from_millis(2), clients: threads };
    let mcts = MctsConfig { dirichlet_fraction: 0.0, ..config.mcts.clone() };
    // A tables folder that cannot serve the config's rules is refused at once.
    G::oracle(config)?;
    with_server(&net, server, &stats, |client| {
        std::thread::scope(|scope| {
            for _ in 0..threads {
                scope.spawn(|| {
                    loop {
                        let job = rx.lock().unwrap_or_else(|e| e.into_inner()).recv();
                        let Ok(job) = job else { break };
                        say(answer(&job, client, &net, &mcts));
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
                match Plan::<G>::read(&line, config) {
                    // Waits while the queue is full: the input is read no faster than searched.
                    Ok(plan) => plan.for_each_job(|job| tx.send(job).is_ok()),
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

/// Searches one job's position and says what it found.
fn answer<G: HouseGame>(job: &Job<G>, client: &dyn Evaluator<G>, net: &NetEvaluator, mcts: &MctsConfig) -> Value {
    match job.game.turn() {
        Turn::Over(o) => return json!({ "id": job.id, "turnNumber": job.turn, "error": format!("the game is over: {}", G::outcome_text(&o)) }),
        Turn::Chance => return json!({ "id": job.id, "turnNumber": job.turn, "error": "the position waits for a flip's outcome" }),
        Turn::Player(_) => {}
    }
    let raw = network_view(net, &job.game);
    let budget = MctsBudget { sims: job.visits, time: job.time, stop: &AtomicBool::new(false) };
    let view = run_mcts(client, mcts, &job.game, budget, job.oracle.clone(), &mut |_| true);
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
