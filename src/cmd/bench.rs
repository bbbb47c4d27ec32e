//! `junglezero bench ...`: benchmarks that print figures.

use std::io::Write;
use std::time::Instant;

use junglezero::jungle::{Position, Rules, perft};

use crate::cli::BenchCommand;

pub fn run(cmd: BenchCommand) -> anyhow::Result<()> {
    match cmd {
        BenchCommand::Perft { depth, runs } => bench_perft(depth, runs),
    }
}

/// Perft from the start position on this thread, `runs` times; the best run is the figure.
fn bench_perft(depth: u32, runs: u32) -> anyhow::Result<()> {
    let (pos, rules) = (Position::start(), Rules::default());
    let mut out = std::io::stdout().lock();
    let mut best = f64::INFINITY;
    let mut nodes = 0;
    for run in 1..=runs.max(1) {
        let start = Instant::now();
        nodes = perft::perft(&pos, &rules, depth);
        let secs = start.elapsed().as_secs_f64();
        best = best.min(secs);
        writeln!(out, "run {run} perft {depth} nodes {nodes} time {secs:.3} nps {}", super::perft::rate(nodes, secs))?;
    }
    writeln!(out, "bench perft depth {depth} nodes {nodes} best {best:.3} s leaves/s {}", super::perft::rate(nodes, best))?;
    Ok(())
}
