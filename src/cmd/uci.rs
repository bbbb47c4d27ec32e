//! `junglezero uci`: the text protocol on stdin/stdout.

use clap::Args;

use crate::cli::{ConfigArgs, GameKind};

pub fn run(args: UciArgs) -> anyhow::Result<()> {
    let mut config = super::load_config(&args.config)?;
    if let Some(game) = args.game {
        config.game = game;
    }
    crate::protocol::serve_stdio(config);
    Ok(())
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
