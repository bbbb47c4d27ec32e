//! `junglezero search [--game G] [--fen] [--rules] [--depth N | --movetime MS | --nodes N]`: the
//! game's classical engine (alpha-beta; the flip game's expectiminimax) on one position.

use std::io::Write;
use std::time::Duration;

use crate::arena::match_game::ArenaGame;
use crate::config::Config;
use crate::entries::HouseGame;
use crate::game::Turn;
use crate::player::Limits;

use crate::cli::SearchArgs;

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
