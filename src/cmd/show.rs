//! `junglezero show [--game G] [--fen] [--rules] [--moves]`

use std::io::Write;

use clap::Args;

use crate::cli::{ConfigArgs, GameKind, PositionArgs};
use crate::config::Config;
use crate::entries::HouseGame;
use crate::game::Turn;

pub fn run(args: ShowArgs) -> anyhow::Result<()> {
    // No network runs here, so the device is not opened.
    let config = Config::load(args.config.config.as_deref(), &args.config.set)?;
    crate::with_game!(args.game.unwrap_or(config.game), G => show::<G>(&args, &config))
}

/// The board, the position as text, the rules and the legal moves (or the result).
fn show<G: HouseGame>(args: &ShowArgs, config: &Config) -> anyhow::Result<()> {
    let rules = super::rules_from_args::<G>(&args.position, config)?;
    let game = super::game_from_args::<G>(&args.position, &rules)?;
    let mut out = std::io::stdout().lock();
    write!(out, "{}", game.diagram())?;
    writeln!(out, "{} {}", G::ROOT_WORD, game.root_text())?;
    writeln!(out, "rules {}", game.game_rules())?;
    match game.turn() {
        Turn::Over(o) => writeln!(out, "game over: {}", G::outcome_text(&o))?,
        Turn::Chance => writeln!(out, "a flip waits for what it reveals")?,
        Turn::Player(_) => {
            let mut moves: Vec<String> = game.legal_moves().iter().map(|m| m.to_string()).collect();
            moves.sort();
            let who = game.mover_name().map_or(String::new(), |c| format!("{c} to move, "));
            writeln!(out, "{who}{} legal moves: {}", moves.len(), moves.join(" "))?;
        }
    }
    Ok(())
}

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
