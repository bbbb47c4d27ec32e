//! The command line (clap derive). Handlers live in `cmd/`.

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand};

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

#[derive(Subcommand, Debug)]
pub enum ConfigCommand {
    /// Every setting: key, type, default, range, the protocol option that sets it, and its help.
    Keys,
    /// The default config with every key's help (what configs/default.toml holds).
    Defaults,
}

#[derive(Subcommand, Debug)]
pub enum TbCommand {
    /// Computes by retrograde analysis the exact result and distance of every position with up
    /// to N pieces (or of the materials given and what their captures reach), one file per
    /// material; tables already in the folder are kept, so a build resumes.
    Build {
        /// Every material with up to this many pieces (2 and 3 take seconds; all of 4, 854
        /// tables, about half an hour on two cores: or name 4-piece materials with --material).
        #[arg(long, value_parser = clap::value_parser!(u8).range(2..=4))]
        pieces: Option<u8>,
        /// Materials, e.g. ER-l,LT-r (Red's animals, a dash, Blue's; letters R C D W P T L E).
        #[arg(long, value_delimiter = ',')]
        material: Vec<String>,
        /// Rule switches over the config's [rules] (the tables depend on the capture switches;
        /// e.g. icga2014).
        #[arg(long)]
        rules: Option<String>,
        /// The tables' folder (`--tb`, as the other table commands name it; `--out` is the old
        /// spelling).
        #[arg(long = "tb", alias = "out", value_name = "DIR")]
        out: PathBuf,
        /// Write what was built (per material: positions, wins, draws, losses, longest win,
        /// seconds, bytes) as a JSON file (`--json` is the old spelling).
        #[arg(long = "json-out", alias = "json", value_name = "PATH")]
        json: Option<PathBuf>,
        /// Replace an existing --json-out file (a symbolic link is replaced itself).
        #[arg(long)]
        force: bool,
        #[command(flatten)]
        config: ConfigArgs,
    },
    /// Reads one FEN a line on stdin and prints one line each: `win N`, `loss N` or `draw`
    /// for the side to move (N plies to the end with best play), or `error: ...`.
    Probe {
        /// The tables' folder.
        #[arg(long, value_name = "DIR")]
        tb: PathBuf,
        /// Rule switches over the config's [rules] (must be those the tables were built for).
        #[arg(long)]
        rules: Option<String>,
        #[command(flatten)]
        config: ConfigArgs,
    },
    /// Measures networks against the tables: on the fixed sample of 512 two- and three-piece
    /// positions the training report uses, the share whose most likely win/draw/loss class is
    /// the exact one, and the mean distance between the network's value and the exact value.
    Score {
        /// The tables' folder.
        #[arg(long, value_name = "DIR")]
        tb: PathBuf,
        /// The networks (.jzm), one line each...
        #[arg(value_name = "MODEL", required_unless_present = "model_flags", conflicts_with = "model_flags")]
        models: Vec<PathBuf>,
        /// ...or as `--model PATH`, repeated.
        #[arg(long = "model", id = "model_flags", value_name = "PATH")]
        model_flags: Vec<PathBuf>,
        /// Rule switches over the config's [rules] (must be those the tables were built for).
        #[arg(long)]
        rules: Option<String>,
        #[command(flatten)]
        config: ConfigArgs,
    },
}

/// A position and the rules it is played under.
#[derive(Args, Debug, Clone)]
pub struct PositionArgs {
    /// The position: a FEN, or for the flip game its position string (default: the game's
    /// start).
    #[arg(long)]
    pub fen: Option<String>,
    /// Rule switches as key=value pairs, e.g. repetition=off,rat_captures_across_shore=on
    /// (applied over the config's [rules]).
    #[arg(long)]
    pub rules: Option<String>,
    /// Moves played from --fen before the position is used, e.g. "a3a4 g7g6" (the history the
    /// repetition and anti-chase rules read; for the flip game its move notation, f:b3=L).
    #[arg(long, value_name = "MOVES")]
    pub moves: Option<String>,
}

/// Where settings come from: defaults, then `--config`, then each `--set`.
#[derive(Args, Debug, Clone, Default)]
pub struct ConfigArgs {
    /// A TOML config file (see configs/).
    #[arg(long, value_name = "FILE")]
    pub config: Option<PathBuf>,
    /// Override one setting, e.g. --set search.hash_mb=256 (repeatable).
    #[arg(long = "set", value_name = "KEY=VALUE")]
    pub set: Vec<String>,
}

#[derive(Args, Debug)]
pub struct SearchArgs {
    #[command(flatten)]
    pub position: PositionArgs,
    #[command(flatten)]
    pub config: ConfigArgs,
    /// Search to this depth (1 to 88).
    #[arg(long, conflicts_with_all = ["movetime", "nodes"], value_parser = clap::value_parser!(u32).range(1..=88))]
    pub depth: Option<u32>,
    /// Search for this many milliseconds, at most a day (the default is 2000 when no limit is
    /// given).
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..=86_400_000))]
    pub movetime: Option<u64>,
    /// Search this many nodes (at most 10^12).
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..=1_000_000_000_000))]
    pub nodes: Option<u64>,
    /// The game (default: the config's `game`); the flip game is searched by expectiminimax.
    #[arg(long, value_enum)]
    pub game: Option<GameKind>,
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

/// Which game a command plays.
pub use crate::registry::GameName as GameKind;

#[derive(Args, Debug)]
pub struct ShowArgs {
    #[command(flatten)]
    pub position: PositionArgs,
    /// The game (default: the config's `game`): Jungle, or the 4×4 flip game (its position
    /// string in --fen).
    #[arg(long, value_enum)]
    pub game: Option<GameKind>,
    /// The rules' base (`[rules]`, `[flip_rules]`) and the game come from the config.
    #[command(flatten)]
    pub config: ConfigArgs,
}

#[derive(Subcommand, Debug)]
pub enum BenchCommand {
    /// Perft from the start position (or after --moves) on one thread; prints leaves per second.
    Perft {
        /// Perft depth.
        #[arg(long, default_value_t = 6)]
        depth: u32,
        /// Runs (the best is reported).
        #[arg(long, default_value_t = 3)]
        runs: u32,
        /// Rule switches, e.g. anti_chase=on.
        #[arg(long)]
        rules: Option<String>,
        /// Moves played from the start position first (the history the rules read).
        #[arg(long)]
        moves: Option<String>,
    },
    /// Tree search without a network (uniform priors, zero value) from the alpha-beta bench
    /// positions, all searches batched as in self-play: simulations per second and a signature
    /// that changes only when search behaviour does.
    Mcts {
        /// Simulations per position.
        #[arg(long, default_value_t = 20_000)]
        sims: u32,
        /// Runs (the best is reported).
        #[arg(long, default_value_t = 3)]
        runs: u32,
        #[command(flatten)]
        config: ConfigArgs,
    },
    /// Raw batched network inference: evals/s and GFLOP/s for batch sizes 1 to 1024.
    Nn {
        /// Largest batch size (powers of two from 1).
        #[arg(long, default_value_t = 1024)]
        max_batch: usize,
        /// Threads calling the network at once (sharing it), as self-play workers do.
        #[arg(long, default_value_t = 1)]
        threads: usize,
        /// Seconds per batch size.
        #[arg(long, default_value_t = 1.0)]
        seconds: f64,
        #[command(flatten)]
        config: ConfigArgs,
    },
    /// The configured inference path (`hardware.device`: the fused CPU path, a GPU through
    /// burn, or cuDNN) against burn on the CPU, with the same weights, over positions from
    /// random games: the largest differences of policy logits and values, and how often the two
    /// agree on the most likely move. Fails above half precision's tolerance.
    Agree {
        /// Positions compared.
        #[arg(long, default_value_t = 2048)]
        positions: usize,
        /// Positions per forward pass.
        #[arg(long, default_value_t = 256)]
        batch: usize,
        /// A model file (default: an untrained network of the config's shape).
        #[arg(long, value_name = "PATH")]
        model: Option<PathBuf>,
        /// Test the NVIDIA path's arithmetic on the CPU instead of the configured device: the
        /// CPU reference of what it computes in half precision (slow; no GPU needed).
        #[arg(long)]
        half_reference: bool,
        #[command(flatten)]
        config: ConfigArgs,
    },
    /// MCTS as a player (protocol, `play`, `analyse`) with a network: simulations per second
    /// from the alpha-beta bench positions for each threads x minibatch combination.
    Player {
        /// The network (.jzm).
        #[arg(long, value_name = "PATH")]
        model: PathBuf,
        /// Simulations per position.
        #[arg(long, default_value_t = 2000)]
        sims: u32,
        /// Combinations THREADSxMINIBATCH to time.
        #[arg(long, value_delimiter = ',', default_value = "1x1,1x8,2x1,2x8")]
        combos: Vec<String>,
        /// Check each root with alpha-beta this many plies deep first (`mcts.play_tactics`;
        /// 0: no check).
        #[arg(long, default_value_t = 0, value_parser = declared::<u32>("mcts.play_tactics"))]
        tactics: u32,
        #[command(flatten)]
        config: ConfigArgs,
    },
    /// Alpha-beta with and without the endgame tables on 3-piece positions the tables know to
    /// be long wins: wins kept, fastest wins played, nodes and time.
    Tb {
        /// The tables' folder (3 pieces at least).
        #[arg(long, value_name = "DIR")]
        tb: PathBuf,
        /// Positions.
        #[arg(long, default_value_t = 100)]
        positions: usize,
        /// Alpha-beta's depth.
        #[arg(long, default_value_t = 8)]
        depth: u32,
        /// The shortest win sampled, in plies.
        #[arg(long, default_value_t = 15)]
        min_plies: u16,
        #[command(flatten)]
        config: ConfigArgs,
    },
    /// Den races the network must search out: MCTS with and without its solver on 3-piece
    /// positions the tables know to be long wins (the tables judge, MCTS does not see them):
    /// wins kept, fastest wins, wins proven at the root.
    Races {
        /// The tables' folder (3 pieces at least).
        #[arg(long, value_name = "DIR")]
        tb: PathBuf,
        /// The network (.jzm).
        #[arg(long, value_name = "PATH")]
        model: PathBuf,
        /// Simulations per position.
        #[arg(long, default_value_t = 800)]
        sims: u32,
        /// Positions.
        #[arg(long, default_value_t = 100)]
        positions: usize,
        /// The shortest win sampled, in plies.
        #[arg(long, default_value_t = 15)]
        min_plies: u16,
        /// Plies of the alpha-beta root check in the third row (`mcts.play_tactics`).
        #[arg(long, default_value_t = 6, value_parser = clap::value_parser!(u32).range(1..=24))]
        tactics: u32,
        #[command(flatten)]
        config: ConfigArgs,
    },
    /// Play at a chosen strength, measured: the classical engine at each level of --elo
    /// against the ladder's anchors (its depths 1 to --depths; depth 1 = 0) and the next level
    /// up, from random openings, all rated together;
    /// prints the requested against the measured Elo. Resumes from its folder like `tournament`.
    Levels {
        /// The levels (Elo), e.g. -300,0,300,600.
        #[arg(long, value_delimiter = ',', allow_hyphen_values = true, required = true)]
        elo: Vec<i32>,
        /// Games of each pairing.
        #[arg(long, default_value_t = 40, value_parser = clap::value_parser!(u32).range(2..=100_000))]
        games: u32,
        /// The deepest anchor.
        #[arg(long, default_value_t = 8, value_parser = clap::value_parser!(u32).range(2..=16))]
        depths: u32,
        /// Anchors each level plays: those rated nearest to it.
        #[arg(long, default_value_t = 3, value_parser = clap::value_parser!(u32).range(1..=16))]
        opponents: u32,
        /// The folder: the anchors' games, the levels' games and results.json.
        #[arg(long = "out-dir", value_name = "DIR", default_value = "levels")]
        out: PathBuf,
        /// Write into a folder whose results.json is not this bench's (it is replaced).
        #[arg(long)]
        force: bool,
        /// Games played at once (0: one per CPU core; default: the config's arena.concurrency).
        #[arg(long, value_parser = declared::<u64>("arena.concurrency"))]
        concurrency: Option<u64>,
        /// Seed of the random openings.
        #[arg(long, default_value_t = 1)]
        seed: u64,
        #[command(flatten)]
        config: ConfigArgs,
    },
    /// Training samples per second for the configured net and the GPU-sized net.
    Train {
        /// Timed optimiser steps per net (after two warm-up steps).
        #[arg(long, default_value_t = 10)]
        steps: u32,
        /// Instead of timing, train the configured net this many steps from one seed with the
        /// fused tower and with burn's, and print how far apart the two loss curves run.
        #[arg(long, value_parser = clap::value_parser!(u32).range(1..=100_000))]
        agree: Option<u32>,
        #[command(flatten)]
        config: ConfigArgs,
    },
    /// Self-play with the configured net for a fixed time, compared with raw batched inference
    /// of the same net at the same batch size and number of calling threads.
    Selfplay {
        /// Seconds of self-play.
        #[arg(long, default_value_t = 30.0)]
        seconds: f64,
        #[command(flatten)]
        config: ConfigArgs,
    },
    /// The configured gate's promotion probability and games played as functions of the
    /// candidate's true Elo difference (simulated matches).
    Gate {
        /// Draw ratio of the simulated games.
        #[arg(long, default_value_t = 0.3)]
        draws: f64,
        /// Simulated matches per Elo difference.
        #[arg(long, default_value_t = 4000)]
        trials: u32,
        #[command(flatten)]
        config: ConfigArgs,
    },
    /// Fixed-depth alpha-beta searches of a fixed set of positions; prints the total node
    /// count (a signature of the search) and nodes per second.
    Search {
        /// Search depth for every position.
        #[arg(long, default_value_t = 14)]
        depth: u32,
        /// Transposition table size in MiB (cleared before each position).
        #[arg(long, default_value_t = 64)]
        hash_mb: usize,
    },
}

#[derive(Args, Debug)]
pub struct UciArgs {
    #[command(flatten)]
    pub config: ConfigArgs,
    /// The game to start with (default: the config's `game`); `setoption name UCI_Variant
    /// value jungle|flip` switches it during a session.
    #[arg(long, value_enum)]
    pub game: Option<GameKind>,
}

#[derive(Args, Debug)]
pub struct ServeArgs {
    /// A network (.jzm) to play and analyse with; without one only alpha-beta is offered.
    #[arg(long, value_name = "PATH")]
    pub model: Option<PathBuf>,
    /// A run whose report/ the page links to: a directory or an object-store URL (its report
    /// is fetched once, at the start).
    #[arg(long, value_name = "DIR|URL")]
    pub run: Option<String>,
    /// Port to listen on (0: any free port).
    #[arg(long, default_value_t = 8080)]
    pub port: u16,
    /// Address to listen on. Anything but a loopback address lets other machines search on
    /// this one.
    #[arg(long, default_value = "127.0.0.1")]
    pub host: std::net::IpAddr,
    /// Searches that may run at once (each uses one core).
    #[arg(long, default_value_t = 2, value_parser = clap::value_parser!(u16).range(1..=64))]
    pub searches: u16,
    #[command(flatten)]
    pub config: ConfigArgs,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Colour {
    Red,
    Blue,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum EngineKind {
    Alphabeta,
    Mcts,
}

#[derive(Args, Debug)]
pub struct PlayArgs {
    #[command(flatten)]
    pub position: PositionArgs,
    #[command(flatten)]
    pub config: ConfigArgs,
    /// The engine to play against: the game's classical engine (alpha-beta; the flip game's
    /// expectiminimax), or MCTS with --model (the default when --model is given).
    #[arg(long, value_enum)]
    pub engine: Option<EngineKind>,
    /// A network (a .jzm file): the engine is MCTS with it.
    #[arg(long, value_name = "PATH", required_if_eq("engine", "mcts"))]
    pub model: Option<PathBuf>,
    /// Play against the classical engine held to this level of the Elo scale (alpha-beta depth
    /// 1 = 0; see `alphabeta:elo=`), instead of its full strength.
    #[arg(long, value_name = "E", allow_hyphen_values = true, conflicts_with_all = ["model", "engine"])]
    pub elo: Option<i32>,
    /// Engine thinking time per move in milliseconds (at most a day).
    #[arg(long, default_value_t = 1000, value_parser = clap::value_parser!(u64).range(1..=86_400_000))]
    pub movetime: u64,
    /// The colour you play (the flip game: red is the first player, blue the second).
    #[arg(long, value_enum, default_value = "red")]
    pub human: Colour,
    /// The game (default: the config's `game`). The flip game's engine is expectiminimax; its
    /// --fen takes the flip position string, --rules its switches.
    #[arg(long, value_enum)]
    pub game: Option<GameKind>,
}

/// Which network to use: a model file or a freshly initialised one.
#[derive(Args, Debug, Clone)]
#[group(required = false, multiple = false)]
pub struct ModelChoice {
    /// A model file (.jzm).
    #[arg(long, value_name = "PATH")]
    pub model: Option<PathBuf>,
    /// An untrained network of the config's [model] shape.
    #[arg(long)]
    pub random_init: bool,
}

#[derive(Args, Debug)]
pub struct SelfplayArgs {
    #[command(flatten)]
    pub network: ModelChoice,
    /// Number of games.
    #[arg(long)]
    pub games: u64,
    /// Directory for the game shards (with --model or --random-init; `--out` is the old
    /// spelling).
    #[arg(long = "out-dir", alias = "out", value_name = "DIR", conflicts_with = "run")]
    pub out: Option<PathBuf>,
    /// A training run (a directory or an object-store URL such as s3://bucket/run): play with
    /// its current best network into its games/ (several self-play processes, on any number of
    /// machines, may feed one trainer this way).
    #[arg(long, value_name = "DIR|URL", conflicts_with_all = ["model", "random_init"])]
    pub run: Option<String>,
    /// Random seed (default: from the clock; printed).
    #[arg(long)]
    pub seed: Option<u64>,
    #[command(flatten)]
    pub config: ConfigArgs,
}

#[derive(Args, Debug)]
pub struct TrainArgs {
    /// The run: a directory (default: checkpoints/<config name>) or an object-store URL
    /// (s3://bucket/prefix, gs://…, az://…, memory://). An existing run resumes.
    #[arg(long, value_name = "DIR|URL")]
    pub run: Option<String>,
    #[command(flatten)]
    pub config: ConfigArgs,
    /// Rebuild a missing, unreadable or outdated trainer checkpoint from the run's newest
    /// network and its shards (the optimiser starts afresh) instead of refusing the run.
    #[arg(long)]
    pub rebuild: bool,
}

#[derive(Args, Debug)]
pub struct LearnArgs {
    /// The run: a directory or an object-store URL.
    #[arg(long, value_name = "DIR|URL")]
    pub run: String,
    /// Create the run from this config if it does not exist yet (otherwise the run's snapshot
    /// is used).
    #[arg(long, value_name = "PATH")]
    pub config: Option<PathBuf>,
    /// Train only when at least this many new games are waiting (otherwise exit at once).
    #[arg(long, value_name = "N", default_value_t = 1)]
    pub min_games: u64,
    /// Override one setting of the run's config (repeatable).
    #[arg(long = "set", value_name = "KEY=VALUE")]
    pub set: Vec<String>,
    /// Rebuild a missing, unreadable or outdated trainer checkpoint from the run's newest
    /// network and its shards (the optimiser starts afresh) instead of refusing the run.
    #[arg(long)]
    pub rebuild: bool,
}

#[derive(Args, Debug)]
pub struct RunArgs {
    /// The run: a directory or an object-store URL.
    #[arg(long, value_name = "DIR|URL")]
    pub run: String,
    /// Override one setting of the run's config (repeatable).
    #[arg(long = "set", value_name = "KEY=VALUE")]
    pub set: Vec<String>,
}

/// Games of a match: `arena`'s whole match, each pairing of a `tournament`.
pub const MATCH_GAMES: u32 = 100;

#[derive(Args, Debug)]
pub struct ArenaArgs {
    /// Player A, KIND:KEY=VALUE,...: alphabeta (depth=N, movetime=MS, nodes=N, hash=MB,
    /// threads=N), mcts (model=PATH, sims=N, movetime=MS, cpuct=X, cpuctfactor=X, tactics=PLIES,
    /// reuse=false), random, external (cmd="PROGRAM ARGS", depth=N, movetime=MS, nodes=N),
    /// expectiminimax (the flip game: depth=N, movetime=MS, nodes=N); every kind also takes
    /// tc=MOVES/SECONDS+INC, a game clock (e.g. tc=0/10+0.1). E.g. mcts:model=net.jzm,sims=64 or alphabeta:depth=4
    #[arg(long, value_parser = parse_spec)]
    pub a: SpecText,
    /// Player B (the same forms as --a).
    #[arg(long, value_parser = parse_spec)]
    pub b: SpecText,
    /// Keys for both players, before their own (cutechess's -each), e.g. tc=0/10+0.1 or
    /// hash=64; a player's own key of the same name wins.
    #[arg(long, value_name = "KEY=VALUE,...")]
    pub each: Option<String>,
    /// Games (whole pairs: each opening with both colours).
    #[arg(long, default_value_t = MATCH_GAMES, value_parser = clap::value_parser!(u32).range(1..=100_000))]
    pub games: u32,
    /// Stop early when the sequential test decides, e.g. elo0=0,elo1=30,alpha=0.05,beta=0.05.
    #[arg(long, value_parser = parse_sprt)]
    pub sprt: Option<crate::arena::stats::Sprt>,
    /// Games played at once (0: one per CPU core; default: the config's arena.concurrency).
    #[arg(long, value_parser = declared::<usize>("arena.concurrency"))]
    pub concurrency: Option<usize>,
    /// Random plies of each opening (default: the config's arena.opening_plies).
    #[arg(long)]
    pub opening_plies: Option<usize>,
    /// Write the result to a JSON file (`--json` is the old spelling).
    #[arg(long = "json-out", alias = "json", value_name = "PATH")]
    pub json: Option<PathBuf>,
    /// Write the games in PGN form.
    #[arg(long, value_name = "PATH")]
    pub games_out: Option<PathBuf>,
    /// Replace existing output files (a symbolic link is replaced itself; what it points to is
    /// never written). Without it an existing file is refused.
    #[arg(long)]
    pub force: bool,
    /// Seed of the opening suite.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// The openings (default: the shipped book of balanced openings, books/jungle-balanced.txt,
    /// under the default rules): `random` for random ones of arena.opening_plies plies, or a
    /// file: one a line (moves from the start, e.g. `a3a4 g7g6`, or a FEN, optionally followed
    /// by `moves ...`) or PGN (a `[FEN]` tag sets the game's start); pair N plays opening N,
    /// round and round.
    #[arg(long, value_name = "FILE|random")]
    pub openings: Option<PathBuf>,
    /// The match's journal: every finished game is appended to FILE as it ends, and the same
    /// command with the same FILE plays only the games it does not hold yet.
    #[arg(long, value_name = "FILE")]
    pub log: Option<PathBuf>,
    /// Rule switches over the config's [rules] (the flip game: over its [flip_rules]).
    #[arg(long)]
    pub rules: Option<String>,
    /// The game (default: the config's `game`); flip-game players are expectiminimax:depth=N,
    /// mcts:model=PATH,sims=N with a flip-game network, and random.
    #[arg(long, value_enum)]
    pub game: Option<GameKind>,
    #[command(flatten)]
    pub config: ConfigArgs,
}

/// A player spec as given (checked when parsed), so that `--each` can add keys to it.
#[derive(Clone, Debug)]
pub struct SpecText(String);

impl SpecText {
    /// The spec with `each`'s keys before its own (its own win where both give a key).
    pub fn with_each(&self, each: Option<&str>) -> Result<crate::arena::spec::PlayerSpec, crate::arena::spec::SpecError> {
        let Some(each) = each.map(str::trim).filter(|e| !e.is_empty()) else { return self.0.parse() };
        match self.0.split_once(':') {
            Some((kind, own)) if !own.trim().is_empty() => format!("{kind}:{each},{own}").parse(),
            Some((kind, _)) => format!("{kind}:{each}").parse(),
            None => format!("{}:{each}", self.0).parse(),
        }
    }
}

fn parse_spec(s: &str) -> Result<SpecText, crate::arena::spec::SpecError> {
    s.parse::<crate::arena::spec::PlayerSpec>()?;
    Ok(SpecText(s.to_string()))
}

fn parse_sprt(s: &str) -> Result<crate::arena::stats::Sprt, crate::arena::stats::SprtError> {
    crate::arena::stats::Sprt::parse(s)
}

#[derive(Args, Debug)]
pub struct VerifyArgs {
    /// The run: a directory or an object-store URL.
    #[arg(long, value_name = "DIR|URL")]
    pub run: String,
    /// Print the findings as one JSON object.
    #[arg(long)]
    pub json: bool,
}

#[derive(Args, Debug)]
pub struct AnalyseArgs {
    #[command(flatten)]
    pub position: PositionArgs,
    #[command(flatten)]
    pub config: ConfigArgs,
    /// The network (.jzm).
    #[arg(long, value_name = "PATH")]
    pub model: PathBuf,
    /// MCTS simulations (default: the config's mcts.playouts; at most 10^7).
    #[arg(long, value_parser = declared::<u32>("mcts.playouts"))]
    pub sims: Option<u32>,
    /// Stop after this many milliseconds, whatever the simulations (at most a day).
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..=86_400_000))]
    pub movetime: Option<u64>,
    /// Print the network's view and the search's last view as one JSON object (no progress
    /// lines).
    #[arg(long)]
    pub json: bool,
    /// The game (default: the config's `game`).
    #[arg(long, value_enum)]
    pub game: Option<GameKind>,
}

#[derive(Args, Debug)]
pub struct ImportArgs {
    /// The weights (X.safetensors); the description X.json must be beside them.
    #[arg(value_name = "WEIGHTS")]
    pub weights: PathBuf,
    /// The model file to write (.jzm); an existing file is refused unless --force.
    #[arg(long, value_name = "PATH")]
    pub out: PathBuf,
    /// Replace existing output files (a symbolic link is replaced itself; what it points to is
    /// never written). Without it an existing file is refused.
    #[arg(long)]
    pub force: bool,
}

#[derive(Args, Debug)]
pub struct TournamentArgs {
    /// The players (as `arena --a` takes them), at least two.
    #[arg(long, num_args = 2.., required = true, value_parser = parse_spec)]
    pub players: Vec<SpecText>,
    /// Keys for every player, before its own (cutechess's -each), e.g. tc=0/10+0.1; a
    /// player's own key of the same name wins.
    #[arg(long, value_name = "KEY=VALUE,...")]
    pub each: Option<String>,
    /// Games of each pairing (rounded up to whole pairs of games with the colours swapped).
    #[arg(long, default_value_t = MATCH_GAMES, value_parser = clap::value_parser!(u32).range(1..=100_000))]
    pub games: u32,
    /// Only the first player against each of the others.
    #[arg(long)]
    pub gauntlet: bool,
    /// Only these pairings, by the players' numbers from 1 (e.g. `1-2,2-3,1-4`), instead of a
    /// round robin.
    #[arg(long, value_name = "I-J,...", conflicts_with = "gauntlet")]
    pub pairings: Option<String>,
    /// End each pairing early once the sequential test decides it (as `arena --sprt`; for a
    /// gauntlet: whether the first player is stronger than each other by elo1, not by elo0).
    #[arg(long, value_parser = parse_sprt)]
    pub sprt: Option<crate::arena::stats::Sprt>,
    /// Games played at once (0: one per CPU core; default: the config's arena.concurrency).
    #[arg(long, value_parser = declared::<u64>("arena.concurrency"))]
    pub concurrency: Option<u64>,
    /// The tournament's folder: its settings, every finished game (one line each) and the
    /// results. The same command on the same folder resumes. (`--out` is the old spelling.)
    #[arg(long = "out-dir", alias = "out", value_name = "DIR", default_value = "tournament")]
    pub out: PathBuf,
    /// Write into a folder whose results.json is not this tournament's (it is replaced).
    #[arg(long)]
    pub force: bool,
    /// Seed of the random openings (each pairing's games start from the same openings).
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// The openings (default: the shipped book of balanced openings under the default rules):
    /// `random` for random ones of arena.opening_plies plies, or a file as `arena --openings`
    /// reads it; pair N of each pairing plays opening N, round and round.
    #[arg(long, value_name = "FILE|random")]
    pub openings: Option<PathBuf>,
    /// Rule switches over the config's.
    #[arg(long)]
    pub rules: Option<String>,
    /// The game (default: the config's `game`).
    #[arg(long, value_enum)]
    pub game: Option<GameKind>,
    #[command(flatten)]
    pub config: ConfigArgs,
}

#[derive(Args, Debug)]
pub struct BookArgs {
    /// Who judges the openings (as `arena --a` takes them), each playing itself; a player that
    /// chooses at random (`temp=`) gives each game of an opening its own course.
    #[arg(long, num_args = 1.., required = true, value_parser = parse_spec)]
    pub players: Vec<SpecText>,
    /// Random openings judged.
    #[arg(long, default_value_t = 1000, value_parser = clap::value_parser!(u32).range(1..=100_000))]
    pub candidates: u32,
    /// Plies of each opening.
    #[arg(long, default_value_t = 4, value_parser = clap::value_parser!(u32).range(1..=40))]
    pub plies: u32,
    /// Games each player plays from each opening (rounded up to an even number): one number
    /// for every player, or one a player (`4,2`: a player that always plays the same game
    /// needs only a pair, with the colours swapped).
    #[arg(long, value_delimiter = ',', default_value = "4", value_parser = clap::value_parser!(u32).range(2..=1000))]
    pub games: Vec<u32>,
    /// Openings kept: those whose first player scores nearest 50 %.
    #[arg(long, default_value_t = 300, value_parser = clap::value_parser!(u32).range(1..=100_000))]
    pub keep: u32,
    /// The book (a new file unless --force).
    #[arg(long, value_name = "FILE")]
    pub out: PathBuf,
    /// The games played so far, one journal a player (the same command resumes from it).
    #[arg(long, value_name = "DIR", default_value = "book-games")]
    pub work_dir: PathBuf,
    /// Replace an existing book.
    #[arg(long)]
    pub force: bool,
    /// Games played at once (0: one per CPU core; default: the config's arena.concurrency).
    #[arg(long, value_parser = declared::<u64>("arena.concurrency"))]
    pub concurrency: Option<u64>,
    /// Seed of the random openings.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// The game (default: the config's `game`).
    #[arg(long, value_enum)]
    pub game: Option<GameKind>,
    #[command(flatten)]
    pub config: ConfigArgs,
}

#[derive(Args, Debug)]
pub struct AnalysisArgs {
    #[command(flatten)]
    pub config: ConfigArgs,
    /// The network (.jzm).
    #[arg(long, value_name = "PATH")]
    pub model: PathBuf,
    /// Searches run at once (their network calls are batched together).
    #[arg(long, default_value_t = 4, value_parser = clap::value_parser!(u32).range(1..=256))]
    pub threads: u32,
    /// The game (default: the config's `game`).
    #[arg(long, value_enum)]
    pub game: Option<GameKind>,
}

#[derive(Args, Debug)]
pub struct InspectArgs {
    /// The model file (.jzm)...
    #[arg(value_name = "MODEL", required_unless_present = "model_flag", conflicts_with = "model_flag")]
    pub model_pos: Option<PathBuf>,
    /// ...or as `--model PATH`, as the other commands take it.
    #[arg(long = "model", id = "model_flag", value_name = "PATH")]
    pub model_flag: Option<PathBuf>,
    /// Print it as one JSON object.
    #[arg(long)]
    pub json: bool,
}

#[derive(Args, Debug)]
pub struct ReportArgs {
    /// The run: a directory or an object-store URL.
    #[arg(long, value_name = "DIR|URL")]
    pub run: String,
}

#[derive(Args, Debug)]
pub struct DumpArgs {
    /// The run: a directory or an object-store URL.
    #[arg(long, value_name = "DIR|URL")]
    pub run: String,
    /// Dump the newest N shards (default: the shards of the trainer's replay window).
    #[arg(long, value_name = "N")]
    pub last: Option<usize>,
    /// The .npz file to write; its sidecar is the same name with .json.
    #[arg(long, value_name = "FILE")]
    pub out: PathBuf,
    /// Replace existing output files (a symbolic link is replaced itself; what it points to is
    /// never written). Without it an existing file is refused.
    #[arg(long)]
    pub force: bool,
}

#[derive(Args, Debug)]
pub struct AverageArgs {
    /// The model files (.jzm), oldest first...
    #[arg(value_name = "MODEL", required_unless_present = "model_flags", conflicts_with = "model_flags")]
    pub models: Vec<PathBuf>,
    /// ...or as `--model PATH`, repeated, oldest first.
    #[arg(long = "model", id = "model_flags", value_name = "PATH")]
    pub model_flags: Vec<PathBuf>,
    /// Output model file.
    #[arg(long, value_name = "FILE")]
    pub out: PathBuf,
    /// An exponential moving average from the oldest to the newest: each next network enters
    /// with weight 1 - decay (default: the plain mean).
    #[arg(long, value_parser = parse_decay)]
    pub decay: Option<f64>,
    /// Replace existing output files (a symbolic link is replaced itself; what it points to is
    /// never written). Without it an existing file is refused.
    #[arg(long)]
    pub force: bool,
}

fn parse_decay(s: &str) -> Result<f64, String> {
    match s.parse::<f64>() {
        Ok(d) if (0.0..1.0).contains(&d) => Ok(d),
        _ => Err(format!("'{s}' is not a number in [0, 1)")),
    }
}

#[derive(Args, Debug)]
pub struct ExportArgs {
    /// The model file (.jzm).
    #[arg(long, value_name = "PATH")]
    pub model: PathBuf,
    /// The output: FILE.safetensors (the .json and .samples.npz go beside it), or FILE.onnx
    /// (the .samples.npz beside it).
    #[arg(long, value_name = "FILE")]
    pub out: PathBuf,
    /// safetensors (weights with a JSON description) or onnx (the whole network); default:
    /// onnx when --out ends in .onnx, else safetensors.
    #[arg(long, value_enum)]
    pub format: Option<ExportFormat>,
    /// Replace existing output files (a symbolic link is replaced itself; what it points to is
    /// never written). Without it an existing file is refused.
    #[arg(long)]
    pub force: bool,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum ExportFormat {
    Safetensors,
    Onnx,
}

impl ExportArgs {
    /// `--format`, or when it is left out the one `--out`'s extension names (`.onnx`), else
    /// safetensors.
    pub fn format(&self) -> ExportFormat {
        let onnx = self.out.extension().is_some_and(|e| e.eq_ignore_ascii_case("onnx"));
        self.format.unwrap_or(if onnx { ExportFormat::Onnx } else { ExportFormat::Safetensors })
    }
}

impl InspectArgs {
    /// The model file, however it was given.
    pub fn model(&self) -> &std::path::Path {
        self.model_flag.as_deref().or(self.model_pos.as_deref()).unwrap_or(std::path::Path::new(""))
    }
}

impl AverageArgs {
    /// The model files, however they were given, oldest first.
    pub fn models(&self) -> &[PathBuf] {
        if self.model_flags.is_empty() { &self.models } else { &self.model_flags }
    }
}

/// A flag's value for the setting at `key`, in the range the setting's declaration gives (the
/// flag and the config check the same range).
fn declared<T: std::str::FromStr + Clone + Send + Sync + 'static>(key: &'static str) -> impl Fn(&str) -> Result<T, String> + Clone + Send + Sync + 'static {
    move |raw: &str| {
        let all = crate::config::doc::settings();
        let setting = crate::settings::find(&all, key).ok_or_else(|| format!("no setting {key}"))?;
        let value: T = raw.trim().parse().map_err(|_| format!("'{raw}' is not a value of {key} ({})", setting.ty))?;
        let x: f64 = raw.trim().parse().map_err(|_| format!("'{raw}' is not a number"))?;
        match setting.range_text() {
            Some((lo, hi)) if !setting.admits(x) => Err(format!("{raw} is not in {lo}..={hi}")),
            _ => Ok(value),
        }
    }
}
