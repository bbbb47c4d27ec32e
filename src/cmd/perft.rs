//! `junglezero perft DEPTH [--game jungle|flip] [--fen] [--rules] [--moves] [--divide]`

use std::io::Write;
use std::time::Instant;

use clap::Args;

use crate::cli::{ConfigArgs, GameKind, PositionArgs};
use crate::config::Config;
use crate::entries::HouseGame;

pub fn run(args: PerftArgs) -> anyhow::Result<()> {
    // No network runs here, so the device is not opened.
    let config = Config::load(args.config.config.as_deref(), &args.config.set)?;
    crate::with_game!(args.game.unwrap_or(config.game), G => perft::<G>(&args, &config))
}

/// Leaves `depth` plies deep (a flip and what it reveals are one ply), with `--divide` by move.
fn perft<G: HouseGame>(args: &PerftArgs, config: &Config) -> anyhow::Result<()> {
    let rules = super::rules_from_args::<G>(&args.position, config)?;
    let game = super::game_from_args::<G>(&args.position, &rules)?;
    let mut out = std::io::stdout().lock();
    let start = Instant::now();
    let nodes = if args.divide {
        let rows = game.divide(args.depth);
        for (m, n) in &rows {
            writeln!(out, "{m} {n}")?;
        }
        if args.depth == 0 { 1 } else { rows.iter().map(|(_, n)| n).sum() }
    } else {
        game.perft(args.depth)
    };
    let secs = start.elapsed().as_secs_f64();
    writeln!(out, "nodes {nodes} time {secs:.3} nps {}", rate(nodes, secs))?;
    Ok(())
}

/// Leaves per second, rounded; 0 when no time was measurable.
pub fn rate(nodes: u64, secs: f64) -> u64 {
    if secs > 0.0 { (nodes as f64 / secs).round() as u64 } else { 0 }
}

#[derive(Args, Debug)]
pub struct PerftArgs {
    /// Number of plies.
    pub depth: u32,
    /// The game (default: the config's `game`): Jungle, or the 4×4 flip game (its position
    /// string in --fen, its rule switches in --rules, e.g. setup=own_half).
    #[arg(long, value_enum)]
    pub game: Option<GameKind>,
    #[command(flatten)]
    pub position: PositionArgs,
    /// Print the count below each root move.
    #[arg(long)]
    pub divide: bool,
    /// The rules' base (`[rules]`, `[flip_rules]`) and the game come from the config.
    #[command(flatten)]
    pub config: ConfigArgs,
}
