//! What a report is made of, read from a run directory: metrics.jsonl (training, self-play,
//! gate, match and rating events) and the model files' headers.

use std::collections::BTreeMap;

use serde_json::Value;

use crate::arena::gate::{ANCHOR, LoggedMatch, ratings};
use crate::arena::bt::Rating;
use crate::nn::modelfile;
use crate::store::run::RunDir;

#[derive(Clone, Debug, Default)]
pub struct TrainPoint {
    pub step: f64,
    pub time: f64,
    pub policy_loss: f64,
    pub value_loss: f64,
    pub entropy: f64,
    pub accuracy: f64,
    pub lr: f64,
    pub samples_per_sec: f64,
}

#[derive(Clone, Debug, Default)]
pub struct SelfplayBatch {
    pub iteration: u64,
    pub model: String,
    pub games: u64,
    pub red_wins: u64,
    pub blue_wins: u64,
    pub draws: u64,
    pub reasons: BTreeMap<String, u64>,
    pub lengths: Vec<u64>,
    pub evals_per_sec: f64,
    pub resign_playouts: u64,
    pub false_resigns: u64,
    pub time: f64,
}

#[derive(Clone, Debug, Default)]
pub struct GateEvent {
    pub generation: u64,
    pub best: Option<u64>,
    pub accepted: bool,
    pub reason: String,
    pub wins: u64,
    pub losses: u64,
    pub draws: u64,
    pub elo: Option<f64>,
    pub ci: Option<f64>,
    pub llr: Option<f64>,
    pub time: f64,
}

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
    pub gates: Vec<GateEvent>,
    pub matches: Vec<LoggedMatch>,
    pub checkpoints: Vec<Checkpoint>,
    /// Alpha-beta depths on the rating scale: (depth, rating).
    pub depths: Vec<(u32, Rating)>,
    /// The first event's time (the run's start).
    pub start: f64,
    pub skipped_lines: usize,
}

fn f(v: &Value, k: &str) -> f64 {
    v[k].as_f64().unwrap_or(0.0)
}

fn u(v: &Value, k: &str) -> u64 {
    v[k].as_u64().unwrap_or(0)
}

/// Reads everything a report needs. Unreadable lines (a torn last line after a crash) are
/// counted and skipped.
pub fn load(run: &RunDir) -> RunData {
    let mut d = RunData::default();
    let text = std::fs::read_to_string(run.metrics_path()).unwrap_or_default();
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        let Ok(v) = serde_json::from_str::<Value>(line) else {
            d.skipped_lines += 1;
            continue;
        };
        let t = f(&v, "time");
        if d.start == 0.0 || (t > 0.0 && t < d.start) {
            d.start = t;
        }
        match v["kind"].as_str() {
            Some("train") => d.train.push(TrainPoint {
                step: f(&v, "step"),
                time: t,
                policy_loss: f(&v, "policy_loss"),
                value_loss: f(&v, "value_loss"),
                entropy: f(&v, "policy_entropy"),
                accuracy: f(&v, "value_accuracy"),
                lr: f(&v, "lr"),
                samples_per_sec: f(&v, "samples_per_sec"),
            }),
            Some("selfplay") => d.selfplay.push(SelfplayBatch {
                iteration: u(&v, "iteration"),
                model: v["model"].as_str().unwrap_or("").into(),
                games: u(&v, "games"),
                red_wins: u(&v, "red_wins"),
                blue_wins: u(&v, "blue_wins"),
                draws: u(&v, "draws"),
                reasons: v["reasons"].as_object().map(|o| o.iter().map(|(k, n)| (k.clone(), n.as_u64().unwrap_or(0))).collect()).unwrap_or_default(),
                lengths: v["lengths"].as_array().map(|a| a.iter().filter_map(Value::as_u64).collect()).unwrap_or_default(),
                evals_per_sec: f(&v, "evals_per_sec"),
                resign_playouts: u(&v, "resign_playouts"),
                false_resigns: u(&v, "false_resigns"),
                time: t,
            }),
            Some("gate") => d.gates.push(GateEvent {
                generation: u(&v, "generation"),
                best: v["best"].as_u64(),
                accepted: v["accepted"].as_bool().unwrap_or(false),
                reason: v["reason"].as_str().unwrap_or("").into(),
                wins: u(&v, "wins"),
                losses: u(&v, "losses"),
                draws: u(&v, "draws"),
                elo: v["elo"].as_f64(),
                ci: v["elo_ci95"].as_f64(),
                llr: v["llr"].as_f64(),
                time: t,
            }),
            _ => {}
        }
    }
    d.matches = crate::arena::gate::read_matches(run);
    let fitted = ratings(&d.matches);
    let rating_of = |name: &str| fitted.iter().find(|(n, _)| n == name).and_then(|(_, r)| *r);
    let add = |g: u64, path: &std::path::Path, promoted: bool, d: &mut RunData| {
        let (steps, games, created) = match modelfile::read_meta(path) {
            Ok(m) => (m.train_steps, m.games, m.created),
            Err(_) => (0, 0, 0.0),
        };
        d.checkpoints.push(Checkpoint { generation: g, promoted, steps, games, created, rating: rating_of(&format!("gen-{g:04}")) });
    };
    for (g, p) in run.promoted() {
        add(g, &p, true, &mut d);
    }
    for (g, p) in list_rejected(run) {
        add(g, &p, false, &mut d);
    }
    d.checkpoints.sort_by_key(|c| c.generation);
    for (name, r) in &fitted {
        if let (Some(depth), Some(r)) = (name.strip_prefix("alphabeta:depth=").and_then(|x| x.parse::<u32>().ok()), r) {
            d.depths.push((depth, *r));
        }
    }
    d.depths.sort_by_key(|x| x.0);
    if d.start == 0.0 {
        d.start = d.checkpoints.iter().map(|c| c.created).filter(|&c| c > 0.0).fold(f64::INFINITY, f64::min);
        if !d.start.is_finite() {
            d.start = 0.0;
        }
    }
    d
}

fn list_rejected(run: &RunDir) -> Vec<(u64, std::path::PathBuf)> {
    let mut v: Vec<(u64, std::path::PathBuf)> = std::fs::read_dir(run.rejected_dir())
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|e| {
            let n = e.file_name().to_string_lossy().into_owned();
            n.strip_prefix("gen-")?.strip_suffix(".jzm")?.parse().ok().map(|g| (g, e.path()))
        })
        .collect();
    v.sort();
    v
}

/// Whether the anchor of the rating scale has played.
pub fn anchored(d: &RunData) -> bool {
    d.matches.iter().any(|m| m.a == ANCHOR || m.b == ANCHOR)
}
