//! The command line's top level: the `junglezero` command and its subcommands, each with the
//! flags its handler's file declares.

use clap::{Parser, Subcommand};

use super::analyse_position::AnalyseArgs;
use super::analysis_engine::AnalysisArgs;
use super::arena::ArenaArgs;
use super::average::AverageArgs;
use super::bench::BenchCommand;
use super::book::BookArgs;
use super::config::ConfigCommand;
use super::export::ExportArgs;
use super::inspect::{ImportArgs, InspectArgs};
use super::jungle::tb::TbCommand;
use super::perft::PerftArgs;
use super::play::PlayArgs;
use super::report::ReportArgs;
use super::search::SearchArgs;
use super::selfplay::SelfplayArgs;
use super::serve::ServeArgs;
use super::show::ShowArgs;
use super::tournament::TournamentArgs;
use super::train::{DumpArgs, LearnArgs, RunArgs, TrainArgs};
use super::uci::UciArgs;
use super::verify::VerifyArgs;

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
    /// Search a position with the alpha-beta engine; prints info lines and the best move.
    Search(SearchArgs),
    /// Run the training loop: self-play, training and gating, generation after generation.
    Train(TrainArgs),
    /// One training stage on a run: train on its new games and write a candidate.
    Learn(LearnArgs),
    /// Gate a run's waiting candidates.
    Gate(RunArgs),
    /// Generate self-play games with MCTS and a network.
    Selfplay(SelfplayArgs),
    /// Play a match between two players and report Elo, LOS and the SPRT.
    Arena(ArenaArgs),
    /// Export a network: FILE.safetensors, FILE.json and FILE.samples.npz.
    Export(ExportArgs),
    /// Average networks of one run weight by weight (a mean, or an EMA with --decay).
    Average(AverageArgs),
    /// Write a training report (Markdown with PNG and SVG plots) into the run's report/.
    Report(ReportArgs),
    /// Write a run's training positions as NumPy arrays (.npz) with a JSON sidecar.
    Dump(DumpArgs),
    /// Check a run directory: shards, networks and the trainer checkpoint load and fit together.
    Verify(VerifyArgs),
    /// What a model file holds: its game, network shape, rules, generation, run, training
    /// counters and parameter count (the weights are loaded and checked too).
    Inspect(InspectArgs),
    /// Read an export (X.safetensors with its X.json, as `export` writes them) back into a
    /// model file.
    Import(ImportArgs),
    /// Analyse one position with a network: its raw outputs, then MCTS with live progress.
    Analyse(AnalyseArgs),
    /// A tournament of several players: round robin (or a gauntlet), a crosstable and
    /// Bradley-Terry ratings; resumes where it stopped.
    Tournament(TournamentArgs),
    /// Build a book of balanced openings: random openings, each played by every --players
    /// spec against itself; those whose first player scores nearest 50 % are written out, one a
    /// line (as `--openings` reads them). Resumes from its work folder.
    Book(BookArgs),
    /// The JSON analysis engine: one query per line on stdin, one answer per line on stdout,
    /// many searches at once sharing one batched network.
    Analysis(AnalysisArgs),
    /// Play against the engine in the terminal.
    Play(PlayArgs),
    /// Speak the UCI-style protocol on stdin/stdout.
    Uci(UciArgs),
    /// A local web page to play and analyse with the engine and a network.
    Serve(ServeArgs),
    /// Benchmarks that print figures for BENCHMARKS.md.
    #[command(subcommand)]
    Bench(BenchCommand),
    /// Endgame tablebases: build them, probe them.
    #[command(subcommand)]
    Tb(TbCommand),
    /// The settings: every key with its type, default, range and help; the documented default config.
    #[command(subcommand)]
    Config(ConfigCommand),
}
