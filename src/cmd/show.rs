//! `junglezero show [--fen] [--rules]`

use std::io::Write;

use junglezero::game::{Game, Turn};
use junglezero::jungle::{Rules, describe_outcome, diagram};

use crate::cli::ShowArgs;

pub fn run(args: ShowArgs) -> anyhow::Result<()> {
    if args.game == crate::cli::GameKind::Flip {
        return show_flip(&args);
    }
    let game = super::game_from_args(&args.position, Rules::default())?;
    let mut out = std::io::stdout().lock();
    write!(out, "{}", diagram(game.position()))?;
    writeln!(out, "fen {}", game.fen())?;
    writeln!(out, "rules {}", game.rules())?;
    match game.turn() {
        Turn::Over(o) => writeln!(out, "game over: {}", describe_outcome(&o))?,
        _ => {
            let mut moves: Vec<String> = game.legal_moves().iter().map(|m| m.to_string()).collect();
            moves.sort();
            writeln!(out, "{} to move, {} legal moves: {}", game.side_to_move(), moves.len(), moves.join(" "))?;
        }
    }
    Ok(())
}

/// The flip game's board, position string, rules and legal moves.
fn show_flip(args: &ShowArgs) -> anyhow::Result<()> {
    let game = super::flip_game_from_args(&args.position, junglezero::flip::FlipRules::default())?;
    let mut out = std::io::stdout().lock();
    write!(out, "{}", junglezero::flip::diagram(&game))?;
    writeln!(out, "position {}", junglezero::flip::position(&game))?;
    writeln!(out, "rules {}", game.rules())?;
    match game.turn() {
        Turn::Over(o) => writeln!(out, "game over: {} ({})", o.winner.map_or("draw".to_string(), |w| format!("{w:?} seat wins")), o.reason)?,
        Turn::Chance => writeln!(out, "a flip waits for what it reveals")?,
        Turn::Player(_) => {
            let mut moves: Vec<String> = game.legal_moves().iter().map(|m| m.to_string()).collect();
            moves.sort();
            writeln!(out, "{} legal moves: {}", moves.len(), moves.join(" "))?;
        }
    }
    Ok(())
}
