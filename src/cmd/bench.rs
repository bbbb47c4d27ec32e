//! `junglezero bench ...`: benchmarks that print figures.

use std::io::Write;
use std::time::Instant;

use junglezero::alphabeta::bench::BENCH_FENS;
use junglezero::alphabeta::{Engine, Eval, EvalWeights, SearchConfig};
use junglezero::jungle::{JungleGame, Position, Rules, parse_fen, perft};
use junglezero::player::Limits;

use crate::cli::BenchCommand;

pub fn run(cmd: BenchCommand) -> anyhow::Result<()> {
    match cmd {
        BenchCommand::Perft { depth, runs } => bench_perft(depth, runs),
        BenchCommand::Search { depth, hash_mb } => bench_search(depth, hash_mb),
    }
}

/// Each bench position searched to `depth` on one thread from an empty table; the node total
/// is deterministic and changes only when search or evaluation behaviour changes.
fn bench_search(depth: u32, hash_mb: usize) -> anyhow::Result<()> {
    let mut out = std::io::stdout().lock();
    let config = SearchConfig { hash_mb, threads: 1, ..SearchConfig::default() };
    let rules = Rules::default();
    let mut engine = Engine::new(&config, Eval::new(&EvalWeights::default(), rules));
    let (mut nodes, mut secs) = (0u64, 0f64);
    for (i, fen) in BENCH_FENS.iter().enumerate() {
        engine.clear();
        let game = JungleGame::new(parse_fen(fen)?, rules);
        let start = Instant::now();
        let r = engine.search(&game, &Limits::depth(depth), &mut |_| {});
        let t = start.elapsed().as_secs_f64();
        nodes += r.nodes;
        secs += t;
        let best = r.best.map_or_else(|| "(none)".into(), |m| m.to_string());
        writeln!(out, "position {:2} nodes {:>10} time {t:7.3} best {best} score {}  {fen}", i + 1, r.nodes, r.score)?;
    }
    writeln!(out, "bench search depth {depth} positions {} nodes {nodes} time {secs:.3} nps {}", BENCH_FENS.len(), super::perft::rate(nodes, secs))?;
    Ok(())
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
