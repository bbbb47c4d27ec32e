//! `junglezero uci`: the text protocol on stdin/stdout.

use crate::cli::UciArgs;

pub fn run(args: UciArgs) -> anyhow::Result<()> {
    junglezero::protocol::serve_stdio(super::load_config(&args.config)?);
    Ok(())
}
