//! Subcommand handlers: thin edges over the library. Generic commands run for the game the
//! config (or `--game`) names; what is one game's own lives in its folder (`jungle/`, `flip/`).

pub mod analyse_position;
pub mod analysis_engine;
pub mod arena;
pub mod average;
pub mod bench;
pub mod bench_agree;
pub mod bench_game;
pub mod bench_levels;
pub mod bench_nn;
pub mod bench_player;
pub mod book;
pub mod commands;
pub mod config;
pub mod export;
pub mod flip;
pub mod inspect;
pub mod interrupt;
pub mod jungle;
pub mod perft;
pub mod play;
pub mod progress;
pub mod report;
pub mod search;
pub mod selfplay;
pub mod serve;
pub mod show;
pub mod tournament;
pub mod train;
pub mod uci;
pub mod verify;

use anyhow::Context;

use crate::config::Config;
use crate::entries::HouseGame;
use crate::trainable::Trainable;

use crate::cli::{ConfigArgs, PositionArgs};

/// The game of `G` described by `--fen` (none: the start) and `--moves`, under `rules`.
pub fn game_from_args<G: HouseGame>(args: &PositionArgs, rules: &<G as Trainable>::Rules) -> anyhow::Result<G> {
    let mut game = match args.fen.as_deref() {
        None => G::start_under(rules),
        Some(text) => G::from_root(text, rules).with_context(|| format!("bad --fen '{}'", crate::check::clip(text)))?,
    };
    for (i, text) in args.moves.as_deref().unwrap_or("").split_whitespace().enumerate() {
        game.play_text_move(text).map_err(|e| anyhow::anyhow!("bad --moves: move {} '{}': {e}", i + 1, crate::check::clip(text)))?;
    }
    Ok(game)
}

/// The rules of `G` for a command: `base` (the config's or the defaults) with `--rules`.
pub fn rules_from_args<G: HouseGame>(args: &PositionArgs, base: &crate::config::Config) -> anyhow::Result<<G as Trainable>::Rules> {
    G::rules_with(base, args.rules.as_deref()).map_err(|e| anyhow::anyhow!("bad --rules: {e}"))
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
pub fn evaluator_from(choice: &crate::cli::ModelChoice, config: &Config, shape: crate::game::Shape, seed: u64) -> anyhow::Result<crate::nn::NetEvaluator> {
    use crate::nn::NetEvaluator;
    Ok(match &choice.model {
        Some(path) => NetEvaluator::load(path, &config.hardware, shape)?,
        None => NetEvaluator::random_init(&config.model, shape, &config.hardware, seed)?,
    })
}

pub use crate::store::clock_seed;
