//! `junglezero verify --run DIR`: reads everything a run directory holds and checks that it fits
//! together. Every shard decodes; every model, candidate and rejected network loads; the trainer
//! checkpoint loads with the run's config; the shards the learner has read exist, are listed
//! once, and hold exactly the games it counted. What a killed writer left behind (temporary
//! files, removed at the next start) is listed, never taken for a finished file.

use std::collections::HashSet;
use std::path::Path;

use serde::Serialize;

use crate::check::ConfigError;
use crate::config::Config;
use crate::nn::device::{DeviceError, parse_device};
use crate::nn::modelfile;
use crate::selfplay::record::read_shard;
use crate::store::run::RunDir;
use crate::train::checkpoint;

/// The trainer's counters as the checkpoint holds them.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Counters {
    pub iteration: u64,
    pub step: u64,
    pub samples_trained: u64,
    pub games_seen: u64,
    pub samples_seen: u64,
    /// Shards the learner has read, and those in its replay window.
    pub seen_shards: usize,
    pub window_shards: usize,
}

/// What `verify` found.
#[derive(Clone, Debug, Default, Serialize)]
pub struct RunAudit {
    /// `None` before the first checkpoint.
    pub checkpoint: Option<Counters>,
    pub shards: usize,
    pub shard_games: u64,
    /// Shards written since the learner last read the directory (relative paths).
    pub unread_shards: Vec<String>,
    /// The best network's generation, and how many networks each directory holds.
    pub best: Option<u64>,
    pub models: usize,
    pub candidates: usize,
    pub rejected: usize,
    /// Temporary files of interrupted writers (relative paths).
    pub temporaries: Vec<String>,
    /// Everything that does not fit; empty for a sound run.
    pub problems: Vec<String>,
}

fn temporaries(run: &RunDir) -> Vec<String> {
    let dirs = [run.root().to_path_buf(), run.models_dir(), run.candidates_dir(), run.rejected_dir(), run.games_dir(), run.root().join("train")];
    let mut out: Vec<String> = dirs
        .iter()
        .flat_map(|d| std::fs::read_dir(d).into_iter().flatten().flatten())
        .filter(|e| e.file_name().to_string_lossy().starts_with('.') && e.file_name().to_string_lossy().contains(".tmp-"))
        .map(|e| run.relative(&e.path()))
        .collect();
    out.sort();
    out
}

/// Why a run could not be checked at all (what does not fit inside it is a problem in the
/// [`RunAudit`], not an error).
#[derive(Debug, thiserror::Error)]
pub enum AuditError {
    #[error("{0}: not a run directory (no config.toml)")]
    NotARun(String),
    #[error(transparent)]
    Config(#[from] ConfigError),
    #[error(transparent)]
    Device(#[from] DeviceError),
}

/// Checks the run in `dir`.
pub fn audit(dir: &Path) -> Result<RunAudit, AuditError> {
    audit_run(&RunDir::new(dir))
}

/// Checks `run` as it is on disk (a run in object storage: its mirror, pulled first).
pub fn audit_run(run: &RunDir) -> Result<RunAudit, AuditError> {
    let run = run.clone();
    if !run.exists() {
        return Err(AuditError::NotARun(run.location()));
    }
    let config = Config::load(Some(&run.config_path()), &[])?;
    let device = parse_device(&config.hardware.device)?;
    let mut a = RunAudit { temporaries: temporaries(&run), ..RunAudit::default() };
    for (dir, what) in [(run.models_dir(), "models/ (the promoted networks)"), (run.root().join("train"), "train/ (the trainer checkpoint)")] {
        if !dir.is_dir() {
            a.problems.push(format!("{what} is missing"));
        }
    }

    // The game the run trains, as its checkpoint says (a file that does not read fails the
    // checks below).
    let cp = run.checkpoint_path();
    let game = match checkpoint::read(&cp).ok().map(|(m, _, _)| m.game) {
        None => config.game,
        Some(name) => match crate::registry::GameName::named(&name) {
            Some(g) => g,
            None => {
                a.problems.push(format!("the checkpoint trains a game this build does not know ('{}')", crate::check::clip(&name)));
                return Ok(a);
            }
        },
    };
    let shape = game.shape();

    // Shards: each decodes; remember its games.
    let mut games_in = std::collections::HashMap::new();
    for path in run.shards() {
        let rel = run.relative(&path);
        let read = crate::with_game!(game, G => read_shard::<G>(&path).map(|g| g.len()));
        match read {
            Ok(n) => {
                a.shard_games += n as u64;
                games_in.insert(rel, n as u64);
            }
            Err(e) => a.problems.push(format!("shard does not read: {e}")),
        }
        a.shards += 1;
    }

    // Networks: each loads, and names the generation of its file name and this run.
    let run_id = checkpoint::read(&cp).ok().map(|(m, _, _)| m.run_id).filter(|id| !id.is_empty());
    for (list, count) in [(run.promoted(), &mut a.models), (run.candidates(), &mut a.candidates), (run.rejected(), &mut a.rejected)] {
        *count = list.len();
        for (g, path) in list {
            match modelfile::load_any(&path, &device) {
                Err(e) => a.problems.push(format!("network does not load: {e}")),
                Ok((_, m)) => {
                    let rel = run.relative(&path);
                    if m.generation != g {
                        a.problems.push(format!("{rel} holds generation {} of its run, not {g}", m.generation));
                    }
                    if let Some(id) = run_id.as_deref().filter(|id| !m.run.is_empty() && m.run != *id) {
                        a.problems.push(format!("{rel} was trained by another run ({}), not this one ({id})", m.run));
                    }
                }
            }
        }
    }
    a.best = run.best().map(|(g, _)| g);
    a.problems.extend(missing_networks(&run));
    if !cp.exists() && run.holds_work() {
        a.problems.push(format!(
            "the trainer checkpoint is missing, but the run holds {} (rebuild it with 'junglezero train --run {} --rebuild')",
            run.highest_generation().filter(|&g| g > 0).map_or_else(|| "game shards".to_string(), |g| format!("networks up to gen-{g:04}")),
            run.location()
        ));
    }

    // The trainer checkpoint: loads, and its shard lists fit the directory.
    if cp.exists() {
        match checkpoint::load(&cp, &device.clone().autodiff(), &config.train, &config.model, shape) {
            Err(e) => a.problems.push(format!("checkpoint does not load: {e}")),
            Ok((_, meta)) => {
                let mut once = HashSet::new();
                let mut games = 0;
                for rel in &meta.seen_shards {
                    if !once.insert(rel.as_str()) {
                        a.problems.push(format!("shard {rel} was read by the learner twice"));
                    }
                    match games_in.get(rel) {
                        Some(n) => games += n,
                        None => a.problems.push(format!("shard {rel} was read by the learner but is gone or unreadable")),
                    }
                }
                if games != meta.games_seen {
                    a.problems.push(format!(
                        "the checkpoint counts {} games seen but its shards hold {games} (games under other rules are not counted)",
                        meta.games_seen
                    ));
                }
                for rel in &meta.window {
                    if !games_in.contains_key(rel) {
                        a.problems.push(format!("window shard {rel} is gone or unreadable"));
                    }
                }
                for (g, kind) in
                    [(run.candidates().last().map(|c| c.0), "candidate"), (a.best, "best network"), (run.rejected().last().map(|c| c.0), "rejected network")]
                {
                    if let Some(g) = g.filter(|&g| g > meta.iteration) {
                        a.problems.push(format!("{kind} gen-{g:04} is newer than the checkpoint's generation {}", meta.iteration));
                    }
                }
                a.unread_shards = games_in.keys().filter(|k| !once.contains(k.as_str())).cloned().collect();
                a.unread_shards.sort();
                a.checkpoint = Some(Counters {
                    iteration: meta.iteration,
                    step: meta.step,
                    samples_trained: meta.samples_trained,
                    games_seen: meta.games_seen,
                    samples_seen: meta.samples_seen,
                    seen_shards: meta.seen_shards.len(),
                    window_shards: meta.window.len(),
                });
            }
        }
    }
    Ok(a)
}

/// The networks the run made that are gone: every generation its gate promoted (the decisions
/// in metrics.jsonl) must still be in models/, and a run that has trained at all has a best
/// network (without one, `train` would start again from a fresh generation 0 as the best).
fn missing_networks(run: &RunDir) -> Vec<String> {
    let (events, _) = run.read_events();
    let promoted: std::collections::BTreeSet<u64> = events
        .iter()
        .filter_map(|e| match e {
            crate::store::events::Event::Gate(g) if g.accepted => Some(g.generation),
            _ => None,
        })
        .collect();
    let there: HashSet<u64> = run.promoted().into_iter().map(|(g, _)| g).collect();
    let gone: Vec<String> = promoted.iter().filter(|g| !there.contains(g)).map(|g| format!("gen-{g:04}")).collect();
    let mut problems = Vec::new();
    if !gone.is_empty() {
        let best = run.best().map_or_else(|| "a fresh generation 0".to_string(), |(g, _)| format!("gen-{g:04}"));
        problems.push(format!(
            "promoted network{} {} {} missing from models/ (the gate promoted {} in metrics.jsonl); train would go on with {best} as the best",
            if gone.len() == 1 { "" } else { "s" },
            gone.join(", "),
            if gone.len() == 1 { "is" } else { "are" },
            if gone.len() == 1 { "it" } else { "them" },
        ));
    }
    if there.is_empty() && (run.checkpoint_path().exists() || run.holds_work()) {
        problems.push("models/ holds no network, not even gen-0000; train would start again from a fresh generation 0 as the best".into());
    }
    problems
}
