//! `junglezero uci`: the text protocol on stdin/stdout.

use crate::cli::UciArgs;

pub fn run(args: UciArgs) -> anyhow::Result<()> {
    let mut config = super::load_config(&args.config)?;
    if let Some(game) = args.game {
        config.game = game;
    }
    crate::protocol::serve_stdio(config);
    Ok(())
}
