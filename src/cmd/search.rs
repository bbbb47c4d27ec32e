//! `junglezero search [--fen] [--rules] [--depth N | --movetime MS | --nodes N]`

use std::io::Write;
use std::time::Duration;

use junglezero::alphabeta::{Engine, Eval, Limits};
use junglezero::game::{Game, Turn};
use junglezero::jungle::describe_outcome;

use crate::cli::SearchArgs;

pub fn run(args: SearchArgs) -> anyhow::Result<()> {
    let config = super::load_config(&args.config)?;
    if args.game.unwrap_or(config.game) == junglezero::games::GameName::Flip {
        return run_flip(&args, &config);
    }
    let game = super::game_from_args(&args.position, config.rules)?;
    let mut engine = Engine::new(&config.search, Eval::new(&config.eval, *game.rules()));
    let limits = limits(&args);
    let mut out = std::io::stdout().lock();
    if let Turn::Over(o) = game.turn() {
        writeln!(out, "info string game over: {}", describe_outcome(&o))?;
        writeln!(out, "bestmove (none)")?;
        return Ok(());
    }
    let mut write_err = None;
    let result = engine.search(&game, &limits, &mut |info| {
        if let Err(e) = writeln!(out, "{info}").and_then(|_| out.flush()) {
            write_err.get_or_insert(e);
        }
    });
    if let Some(e) = write_err {
        return Err(e.into());
    }
    let best = result.best.map_or_else(|| "(none)".to_string(), |m| m.to_string());
    writeln!(out, "bestmove {best}")?;
    Ok(())
}

/// The flip game's expectiminimax from the position: its info line, then the best move.
fn run_flip(args: &SearchArgs, config: &junglezero::config::Config) -> anyhow::Result<()> {
    use junglezero::player::Player;
    let game = super::flip_game_from_args(&args.position, config.flip_rules)?;
    let limits = limits(args);
    let mut out = std::io::stdout().lock();
    match game.turn() {
        Turn::Over(o) => {
            writeln!(out, "info string game over: {} ({})", o.winner.map_or("draw".to_string(), |w| format!("{w:?} seat wins")), o.reason)?;
            writeln!(out, "bestmove (none)")?;
            return Ok(());
        }
        Turn::Chance => anyhow::bail!("the position waits for a flip's outcome; give the position after it"),
        Turn::Player(_) => {}
    }
    let mut engine = junglezero::alphabeta::flip::FlipEngine::new();
    let mut lines = Vec::new();
    let best = engine.choose(&game, &limits, &mut |l| lines.push(l.to_string()));
    for l in lines {
        writeln!(out, "{l}")?;
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
