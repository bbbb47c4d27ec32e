//! `junglezero bench search`: the alpha-beta engine's bench positions, each searched to a fixed
//! depth on one thread from an empty table.

use std::io::Write;

/// Each bench position searched to `depth` on one thread from an empty table (see
/// `alphabeta::bench::run`).
pub fn run(depth: u32, hash_mb: usize) -> anyhow::Result<()> {
    let mut out = std::io::stdout().lock();
    let rows = crate::alphabeta::bench::run(depth, hash_mb);
    for (i, r) in rows.iter().enumerate() {
        let best = r.result.best.map_or_else(|| "(none)".into(), |m| m.to_string());
        writeln!(out, "position {:2} nodes {:>10} time {:7.3} best {best} score {}  {}", i + 1, r.result.nodes, r.seconds, r.result.score, r.fen)?;
    }
    let nodes: u64 = rows.iter().map(|r| r.result.nodes).sum();
    let secs: f64 = rows.iter().map(|r| r.seconds).sum();
    writeln!(out, "bench search depth {depth} positions {} nodes {nodes} time {secs:.3} nps {}", rows.len(), crate::cmd::perft::rate(nodes, secs))?;
    Ok(())
}
