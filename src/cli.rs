//! The command line (clap derive). Handlers live in `cmd/`.

use clap::{Args, Parser, Subcommand};

use junglezero::jungle::{Rules, START_FEN};

#[derive(Parser, Debug)]
#[command(name = "junglezero", version, about = "Self-play reinforcement learning for Jungle (Dou Shou Qi)")]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Subcommand, Debug)]
pub enum Command {
    /// Count legal move sequences of a given length (checks the move generator).
    Perft(PerftArgs),
    /// Show a position as a board diagram with its legal moves.
    Show(ShowArgs),
    /// Benchmarks that print figures for BENCHMARKS.md.
    #[command(subcommand)]
    Bench(BenchCommand),
}

/// A position and the rules it is played under.
#[derive(Args, Debug, Clone)]
pub struct PositionArgs {
    /// Position in FEN (default: the start position).
    #[arg(long, default_value = START_FEN)]
    pub fen: String,
    /// Rule switches as key=value pairs, e.g. repetition=off,rat_captures_across_shore=on.
    #[arg(long, value_parser = parse_rules, default_value = "default")]
    pub rules: Rules,
}

pub fn parse_rules(s: &str) -> Result<Rules, String> {
    s.parse::<Rules>().map_err(|e| e.to_string())
}

#[derive(Args, Debug)]
pub struct PerftArgs {
    /// Number of plies.
    pub depth: u32,
    #[command(flatten)]
    pub position: PositionArgs,
    /// Print the count below each root move.
    #[arg(long)]
    pub divide: bool,
}

#[derive(Args, Debug)]
pub struct ShowArgs {
    #[command(flatten)]
    pub position: PositionArgs,
}

#[derive(Subcommand, Debug)]
pub enum BenchCommand {
    /// Perft from the start position on one thread; prints leaves per second.
    Perft {
        /// Perft depth.
        #[arg(long, default_value_t = 6)]
        depth: u32,
        /// Runs (the best is reported).
        #[arg(long, default_value_t = 3)]
        runs: u32,
    },
}
