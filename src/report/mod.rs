//! `junglezero report`: a Markdown report with PNG and SVG figures, written into the run's
//! report/ directory from metrics.jsonl and the model headers.

pub mod data;
pub mod plots;
pub mod ticks;

use std::fmt::Write as _;
use std::path::PathBuf;

use crate::config::Config;
use crate::game::Reason;
use crate::store::run::RunDir;
use crate::store::{self, StoreError};
use data::RunData;

#[derive(Debug, thiserror::Error)]
pub enum ReportError {
    #[error("{0} is not a training run (no config.toml)")]
    NotARun(String),
    #[error("drawing {figure}: {source}")]
    Plot { figure: &'static str, source: plots::PlotError },
    #[error(transparent)]
    Store(#[from] StoreError),
}

/// Versions baked in at build time.
pub fn versions() -> String {
    format!(
        "junglezero {} (commit {}), {}, burn 0.22, backends: {}",
        env!("CARGO_PKG_VERSION"),
        env!("JZ_GIT_COMMIT"),
        env!("JZ_RUSTC_VERSION"),
        crate::nn::device::compiled_backends().join(", ")
    )
}

/// The machine, as far as it can be read.
pub fn hardware() -> String {
    let cpu = std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|t| t.lines().find(|l| l.starts_with("model name")).map(|l| l.split(':').nth(1).unwrap_or("").trim().to_string()))
        .unwrap_or_else(|| std::env::consts::ARCH.to_string());
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let mem = std::fs::read_to_string("/proc/meminfo")
        .ok()
        .and_then(|t| t.lines().find(|l| l.starts_with("MemTotal")).and_then(|l| l.split_whitespace().nth(1)?.parse::<f64>().ok()))
        .map_or_else(String::new, |kb| format!(", {:.0} GiB memory", kb / 1024.0 / 1024.0));
    format!("{cpu}, {cores} cores{mem}, {}", std::env::consts::OS)
}

fn hours(secs: f64) -> String {
    if secs < 3600.0 { format!("{:.1} min", secs / 60.0) } else { format!("{:.2} h", secs / 3600.0) }
}

/// Writes report/report.md and its figures; returns the report's path.
pub fn write_report(run: &RunDir) -> Result<PathBuf, ReportError> {
    if !run.exists() {
        return Err(ReportError::NotARun(run.location()));
    }
    let dir = run.report_dir();
    std::fs::create_dir_all(&dir).map_err(|e| StoreError::new("cannot create directory", &dir, e))?;
    let d = data::load(run);
    let plot = |figure: &'static str, r: plots::PlotResult| r.map_err(|source| ReportError::Plot { figure, source });
    plot("elo", plots::elo(&dir, &d))?;
    plot("losses", plots::losses(&dir, &d))?;
    if data::gate_played(&d) {
        plot("gate", plots::gates(&dir, &d))?;
    } else {
        // No gate matches, no chart: a stale one from an earlier report goes too.
        for f in ["gate.png", "gate.svg"] {
            let _ = std::fs::remove_file(dir.join(f));
        }
    }
    if d.tablebase.is_empty() {
        for f in ["tablebase.png", "tablebase.svg"] {
            let _ = std::fs::remove_file(dir.join(f));
        }
    } else {
        plot("tablebase", plots::tablebase(&dir, &d))?;
    }
    plot("colours", plots::colours(&dir, &d))?;
    plot("reasons", plots::reasons(&dir, &d))?;
    plot("lengths", plots::lengths(&dir, &d))?;
    let config = crate::store::read_text_capped(&run.config_path(), crate::store::caps::CONFIG, "config file").unwrap_or_default();
    let md = markdown(run, &d, &config);
    let path = dir.join("report.md");
    store::write_atomic(&path, md.as_bytes())?;
    Ok(path)
}

fn markdown(run: &RunDir, d: &RunData, config_text: &str) -> String {
    let mut s = String::new();
    let config = Config::from_toml(config_text).ok();
    let _ = writeln!(s, "# Training report: {}\n", run.name());
    let _ = writeln!(s, "Generated {} from `{}`.\n", chrono::Utc::now().format("%Y-%m-%d %H:%M UTC"), run.location());

    // Summary.
    let games: u64 = d.selfplay.iter().map(|s| s.games).sum();
    let trained: Vec<_> = d.checkpoints.iter().filter(|c| c.generation > 0).collect();
    let promoted = trained.iter().filter(|c| c.promoted).count();
    let rejected = trained.len() - promoted;
    let last_time = d.train.last().map(|t| t.time).into_iter().chain(d.gates.last().map(|g| g.time)).fold(0.0, f64::max);
    let steps = d.train.last().map_or(0, |t| t.step);
    let best = d.checkpoints.iter().rfind(|c| c.promoted);
    let _ = writeln!(s, "## Summary\n");
    let _ = writeln!(s, "| | |\n|---|---|");
    let _ = writeln!(s, "| generations trained | {} ({promoted} promoted, {rejected} rejected) |", trained.len());
    let _ = writeln!(s, "| self-play games | {games} |");
    let teacher: u64 = d.teacher.iter().map(|t| t.games).sum();
    if teacher > 0 {
        let who: std::collections::BTreeSet<&str> = d.teacher.iter().map(|t| t.model.as_str()).collect();
        let who = who.into_iter().collect::<Vec<_>>().join(", ");
        let _ = writeln!(s, "| teacher games | {teacher} ({who}; apart from self-play everywhere in this report) |");
    }
    let _ = writeln!(s, "| training steps | {steps} |");
    if d.sessions.len() > 1 {
        let _ = writeln!(s, "| training time | {} in {} sessions (the pauses between them not counted) |", hours(d.training_time()), d.sessions.len());
    } else if last_time > d.start && d.start > 0.0 {
        let _ = writeln!(s, "| wall time covered | {} |", hours(d.elapsed(last_time)));
    }
    if let Some(b) = best {
        let rating = b.rating.map_or_else(|| "not rated yet".to_string(), |r| format!("{:+.0} ± {:.0} Elo", r.elo, r.ci95));
        let _ = writeln!(s, "| best network | gen-{:04}: {rating} |", b.generation);
    }
    if let Some(c) = &config {
        let _ = writeln!(s, "| network | {} blocks × {} channels on {} |", c.model.blocks, c.model.channels, c.hardware.device);
    }
    if !d.problems.is_empty() {
        let _ = writeln!(s, "| unreadable metric lines skipped | {} (listed at the end) |", d.problems.len());
    }
    s.push('\n');

    // Strength.
    let _ = writeln!(s, "## Strength over training\n");
    if d.checkpoints.iter().any(|c| c.rating.is_some()) {
        let engine = d.engine;
        let anchor = if data::anchored(d) {
            format!("anchored at {engine} depth 1 = 0")
        } else {
            format!("no {engine} ladder has been played, so ratings are relative to the first network")
        };
        let _ = writeln!(
            s,
            "Bradley–Terry maximum-likelihood Elo of every rated checkpoint over all logged matches \
             (ladder, calibration and gating games), {anchor}; bars are 95% intervals. Dashed lines \
             are the {engine} depths on the same scale.\n"
        );
        let _ = writeln!(s, "![Elo over training](elo.png)\n\n([SVG](elo.svg))\n");
        let _ = writeln!(s, "| checkpoint | self-play games | steps | time | Elo | 95% |\n|---|---|---|---|---|---|");
        for c in d.checkpoints.iter().filter(|c| c.rating.is_some()) {
            let r = c.rating.unwrap_or(crate::arena::bt::Rating { elo: 0.0, ci95: 0.0 });
            let t = if c.created > 0.0 && d.start > 0.0 { hours(d.elapsed(c.created)) } else { "-".into() };
            let _ = writeln!(s, "| gen-{:04} | {} | {} | {t} | {:+.0} | ±{:.0} |", c.generation, c.games, c.steps, r.elo, r.ci95);
        }
        for (depth, r) in &d.depths {
            let _ = writeln!(s, "| {engine} depth {depth} | | | | {:+.0} | ±{:.0} |", r.elo, r.ci95);
        }
        s.push('\n');
    } else {
        let _ = writeln!(s, "No ratings yet: the ladder against alpha-beta runs every `ladder.every` generations.\n");
    }

    // The endgame tables as a yardstick.
    if let Some(last) = d.tablebase.last() {
        let _ = writeln!(s, "## Value accuracy on tablebase positions\n");
        let _ = writeln!(
            s,
            "Each generation's network on the same {} positions the endgame tables know exactly: the \
             share whose most likely result (win, draw or loss for the side to move) is the exact \
             one, and the mean distance between the network's value and the exact value.\n",
            last.positions
        );
        let _ = writeln!(s, "![Value accuracy on tablebase positions](tablebase.png)\n\n([SVG](tablebase.svg))\n");
        let _ = writeln!(s, "| generation | accuracy | mean value error |\n|---|---|---|");
        for t in &d.tablebase {
            let _ = writeln!(s, "| gen-{:04} | {:.3} | {:.3} |", t.generation, t.accuracy, t.value_error);
        }
        s.push('\n');
    }

    // Training.
    let _ = writeln!(s, "## Training\n");
    if let Some(t) = d.train.last() {
        let _ = writeln!(
            s,
            "Latest: policy loss {:.3}, value loss {:.3}, policy entropy {:.2} nats, value accuracy {:.1} %, learning rate {:.4}, {:.0} samples/s.\n",
            t.policy_loss,
            t.value_loss,
            t.policy_entropy,
            100.0 * t.value_accuracy,
            t.lr,
            t.samples_per_sec
        );
    }
    let _ = writeln!(s, "![Loss curves](losses.png)\n\n([SVG](losses.svg))\n");

    // Gating.
    let _ = writeln!(s, "## Gate decisions\n");
    if d.gates.is_empty() {
        let _ = writeln!(s, "No candidate has been gated yet.\n");
    } else if !data::gate_played(d) {
        let _ = writeln!(s, "The gate is off (`gate.enabled = false`): each of the {} candidates was promoted without a match.\n", d.gates.len());
    } else {
        let _ = writeln!(s, "![Gate decisions](gate.png)\n\n([SVG](gate.svg))\n");
        let _ = writeln!(s, "| candidate | vs | W-L-D | Elo | LLR | decision |\n|---|---|---|---|---|---|");
        for g in &d.gates {
            let elo = g.elo.map_or("-".into(), |e| match g.elo_ci95 {
                Some(ci) => format!("{e:+.0} ± {ci:.0}"),
                None => format!("{e:+.0} (no interval)"),
            });
            let best = g.best.map_or("-".into(), |b| format!("gen-{b:04}"));
            let _ = writeln!(
                s,
                "| gen-{:04} | {best} | {}-{}-{} | {elo} | {} | {}: {} |",
                g.generation,
                g.wins,
                g.losses,
                g.draws,
                g.llr.map_or("-".into(), |l| format!("{l:.2}")),
                if g.accepted { "promoted" } else { "rejected" },
                g.reason
            );
        }
        s.push('\n');
    }

    // Self-play.
    let _ = writeln!(s, "## Self-play\n");
    let lengths: Vec<u64> = d.selfplay.iter().flat_map(|s| s.lengths.iter().copied()).collect();
    let (red, blue, draws) = d.selfplay.iter().fold((0, 0, 0), |a, s| (a.0 + s.red_wins, a.1 + s.blue_wins, a.2 + s.draws));
    if games > 0 {
        let mean = lengths.iter().sum::<u64>() as f64 / lengths.len().max(1) as f64;
        let playouts: u64 = d.selfplay.iter().map(|s| s.resign_playouts).sum();
        let false_resigns: u64 = d.selfplay.iter().map(|s| s.false_resigns).sum();
        let eps = d.selfplay.iter().map(|s| s.evals_per_sec).sum::<f64>() / d.selfplay.len() as f64;
        let pct = |x: u64| 100.0 * x as f64 / games as f64;
        let _ = writeln!(
            s,
            "{games} self-play games: Red won {:.1} %, Blue {:.1} %, draws {:.1} %; mean length {mean:.1} plies; {eps:.0} network evaluations per second on average.",
            pct(red),
            pct(blue),
            pct(draws)
        );
        if playouts > 0 {
            let _ = writeln!(
                s,
                " Of {playouts} games played out with resignation disabled, {false_resigns} were won by the side that would have resigned ({:.1} % false resignations).",
                100.0 * false_resigns as f64 / playouts as f64
            );
        }
        let finished: u64 = d.selfplay.iter().map(|s| s.engine_finished).sum();
        if finished > 0 {
            let _ = writeln!(s, " {finished} games ({:.1} %) were finished by the alpha-beta teacher (`selfplay.finish_after_plies`).", pct(finished));
        }
        let cap = |e: &crate::store::events::GamesEvent| e.reasons.get(Reason::MoveCap.name()).copied().unwrap_or(0);
        let capped: u64 = d.selfplay.iter().map(cap).sum();
        let worst = d.selfplay.iter().filter(|e| e.games > 0).map(|e| cap(e) as f64 / e.games as f64).fold(0.0, f64::max);
        let _ = writeln!(s, " Games ended by the ply cap: {:.1} % of all, at most {:.1} % in one generation.", pct(capped), 100.0 * worst);
        s.push('\n');
    }
    for t in &d.teacher {
        let _ = writeln!(
            s,
            "Before the first generation the teacher ({}) played {} games: Red won {}, Blue {}, {} drawn; mean length {:.1} plies. They are training data, not self-play, and are not in the figures below.\n",
            t.model, t.games, t.red_wins, t.blue_wins, t.draws, t.mean_length
        );
    }
    let _ = writeln!(s, "![Results by colour](colours.png) ([SVG](colours.svg))\n");
    let _ = writeln!(s, "![Termination reasons](reasons.png) ([SVG](reasons.svg))\n");
    let _ = writeln!(s, "![Game lengths](lengths.png) ([SVG](lengths.svg))\n");

    // Environment.
    let _ = writeln!(s, "## Hardware, versions and config\n");
    let _ = writeln!(s, "- machine that wrote this report: {}", hardware());
    let _ = writeln!(s, "- {}", versions());
    if let Some(c) = &config {
        let _ = writeln!(s, "- rules: {}", c.rules.text(c.game));
    }
    let _ = writeln!(s, "\n<details><summary>config.toml</summary>\n\n```toml\n{}\n```\n</details>", config_text.trim());
    if !d.problems.is_empty() {
        let _ = writeln!(s, "\n## Metrics lines not read\n");
        for p in d.problems.iter().take(20) {
            let _ = writeln!(s, "- {p}");
        }
        if d.problems.len() > 20 {
            let _ = writeln!(s, "- ... and {} more", d.problems.len() - 20);
        }
    }
    s
}
