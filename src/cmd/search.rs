//! `junglezero search [--game G] [--fen] [--rules] [--depth N | --movetime MS | --nodes N]`: the
//! game's classical engine (alpha-beta; the flip game's expectiminimax) on one position.

use std::io::Write;
use std::time::Duration;

use clap::Args;

use crate::arena::match_game::ArenaGame;
use crate::cli::{ConfigArgs, GameKind, PositionArgs};
use crate::config::Config;
use crate::entries::HouseGame;
use crate::game::Turn;
use crate::player::Limits;

pub fn run(args: SearchArgs) -> anyhow::Result<()> {
    let config = super::load_config(&args.config)?;
    crate::with_game!(args.game.unwrap_or(config.game), G => search::<G>(&args, &config))
}

/// The engine's info lines as it searches, then `bestmove`.
fn search<G: HouseGame>(args: &SearchArgs, config: &Config) -> anyhow::Result<()> {
    let rules = super::rules_from_args::<G>(&args.position, config)?;
    let game = super::game_from_args::<G>(&args.position, &rules)?;
    let mut out = std::io::stdout().lock();
    match game.turn() {
        Turn::Over(o) => {
            writeln!(out, "info string game over: {}", G::outcome_text(&o))?;
            writeln!(out, "bestmove (none)")?;
            return Ok(());
        }
        Turn::Chance => anyhow::bail!("the position waits for a flip's outcome; give the position after it"),
        Turn::Player(_) => {}
    }
    let settings = config.players();
    let mut engine = <G as ArenaGame>::factory(G::classical(&settings), &settings, &rules, None)?.make(0)?.player;
    let mut write_err = None;
    let best = engine.choose(&game, &limits(args), &mut |line| {
        if let Err(e) = writeln!(out, "{line}").and_then(|_| out.flush()) {
            write_err.get_or_insert(e);
        }
    });
    if let Some(e) = write_err {
        return Err(e.into());
    }
    writeln!(out, "bestmove {}", best.map_or_else(|| "(none)".to_string(), |m| m.to_string()))?;
    Ok(())
}

/// The search limits the flags ask for: 2 s when none is given.
fn limits(args: &SearchArgs) -> Limits {
    Limits {
        depth: args.depth,
        nodes: args.nodes,
        movetime: Some(Duration::from_millis(args.movetime.unwrap_or(2000)))
            .filter(|_| args.movetime.is_some() || (args.depth.is_none() && args.nodes.is_none())),
        ..Limits::default()
    }
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
