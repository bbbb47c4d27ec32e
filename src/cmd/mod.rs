//! Subcommand handlers: thin edges over the library.

pub mod arena;
pub mod average;
pub mod bench;
pub mod export;
pub mod perft;
pub mod play;
pub mod progress;
pub mod report;
pub mod search;
pub mod selfplay;
pub mod serve;
pub mod show;
pub mod train;
pub mod uci;
pub mod verify;

use anyhow::Context;

use junglezero::config::Config;
use junglezero::jungle::{JungleGame, Rules, parse_fen};

use crate::cli::{ConfigArgs, PositionArgs};

/// The game described by `--fen` and `--rules`, over `base` rules.
pub fn game_from_args(args: &PositionArgs, base: Rules) -> anyhow::Result<JungleGame> {
    let pos = parse_fen(&args.fen).with_context(|| format!("bad --fen '{}'", junglezero::check::clip(&args.fen)))?;
    let mut rules = base;
    if let Some(spec) = &args.rules {
        rules.apply_overrides(spec).context("bad --rules")?;
    }
    let mut game = JungleGame::new(pos, rules);
    for (i, text) in history_moves(args).enumerate() {
        game.play_text(text).with_context(|| format!("bad --moves: move {} '{}'", i + 1, junglezero::check::clip(text)))?;
    }
    Ok(game)
}

/// The moves of `--moves`, in order.
fn history_moves(args: &PositionArgs) -> impl Iterator<Item = &str> {
    args.moves.as_deref().unwrap_or("").split_whitespace()
}

/// The flip-game position described by `--fen` (its position string; the big game's start FEN,
/// the default, means the flip game's start) and `--rules` (over `base`).
pub fn flip_game_from_args(args: &PositionArgs, base: junglezero::flip::FlipRules) -> anyhow::Result<junglezero::flip::FlipGame> {
    let mut rules = base;
    if let Some(spec) = &args.rules {
        junglezero::switches::Switches::apply_overrides(&mut rules, spec).context("bad --rules for the flip game")?;
    }
    let mut game = if args.fen == junglezero::jungle::START_FEN {
        junglezero::flip::FlipGame::start(rules)
    } else {
        junglezero::flip::parse_position(&args.fen, rules).with_context(|| format!("bad --fen '{}'", junglezero::check::clip(&args.fen)))?
    };
    for (i, text) in history_moves(args).enumerate() {
        junglezero::flip::play_text(&mut game, text).with_context(|| format!("bad --moves: move {} '{}'", i + 1, junglezero::check::clip(text)))?;
    }
    Ok(game)
}

/// The config from defaults, `--config` and `--set`, with the device name checked against
/// the backends compiled in (the network module's check, kept out of `Config::validate`).
pub fn load_config(args: &ConfigArgs) -> anyhow::Result<Config> {
    let config = Config::load(args.config.as_deref(), &args.set)?;
    config.hardware.validate()?;
    Ok(config)
}

/// Whether an error is a closed stdout (e.g. output piped into `head`), which is not a failure.
pub fn is_broken_pipe(e: &anyhow::Error) -> bool {
    e.chain().any(|c| c.downcast_ref::<std::io::Error>().is_some_and(|io| io.kind() == std::io::ErrorKind::BrokenPipe))
}

/// The evaluator a `--model PATH | --random-init` choice asks for.
pub fn evaluator_from(
    choice: &crate::cli::ModelChoice,
    config: &Config,
    shape: junglezero::game::Shape,
    seed: u64,
) -> anyhow::Result<junglezero::nn::burn_eval::NetEvaluator> {
    use junglezero::nn::burn_eval::NetEvaluator;
    Ok(match &choice.model {
        Some(path) => NetEvaluator::load(path, &config.hardware, shape)?,
        None => NetEvaluator::random_init(&config.model, shape, &config.hardware, seed)?,
    })
}

pub use junglezero::store::clock_seed;
