//! `junglezero perft DEPTH [--game jungle|flip] [--fen] [--rules] [--moves] [--divide]`

use std::io::Write;
use std::time::Instant;

use junglezero::flip::FlipRules;
use junglezero::jungle::{Rules, perft};

use crate::cli::{GameKind, PerftArgs};

pub fn run(args: PerftArgs) -> anyhow::Result<()> {
    if args.game == GameKind::Flip {
        return run_flip(&args);
    }
    let game = super::game_from_args(&args.position, Rules::default())?;
    let mut out = std::io::stdout().lock();
    let start = Instant::now();
    let nodes = if args.divide {
        let mut rows = perft::divide_game(&game, args.depth);
        rows.sort_by_key(|(m, _)| m.to_string());
        for (m, n) in &rows {
            writeln!(out, "{m} {n}")?;
        }
        if args.depth == 0 { 1 } else { rows.iter().map(|(_, n)| n).sum() }
    } else {
        perft::perft_game(&game, args.depth)
    };
    let secs = start.elapsed().as_secs_f64();
    writeln!(out, "nodes {nodes} time {secs:.3} nps {}", rate(nodes, secs))?;
    Ok(())
}

/// Perft of the flip game: a flip and what it reveals are one ply.
fn run_flip(args: &PerftArgs) -> anyhow::Result<()> {
    let game = super::flip_game_from_args(&args.position, FlipRules::default())?;
    let mut out = std::io::stdout().lock();
    let start = Instant::now();
    let nodes = if args.divide {
        let rows = junglezero::flip::perft::divide(&game, args.depth);
        for (m, n) in &rows {
            writeln!(out, "{m} {n}")?;
        }
        if args.depth == 0 { 1 } else { rows.iter().map(|(_, n)| n).sum() }
    } else {
        junglezero::flip::perft::perft(&game, args.depth)
    };
    let secs = start.elapsed().as_secs_f64();
    writeln!(out, "nodes {nodes} time {secs:.3} nps {}", rate(nodes, secs))?;
    Ok(())
}

/// Leaves per second, rounded; 0 when no time was measurable.
pub fn rate(nodes: u64, secs: f64) -> u64 {
    if secs > 0.0 { (nodes as f64 / secs).round() as u64 } else { 0 }
}
