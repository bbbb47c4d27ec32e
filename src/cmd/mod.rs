//! Subcommand handlers: thin edges over the library.

pub mod bench;
pub mod perft;
pub mod show;

use anyhow::Context;

use junglezero::jungle::{JungleGame, parse_fen};

use crate::cli::PositionArgs;

/// The game described by `--fen` and `--rules`.
pub fn game_from_args(args: &PositionArgs) -> anyhow::Result<JungleGame> {
    let pos = parse_fen(&args.fen).with_context(|| format!("bad --fen '{}'", args.fen))?;
    Ok(JungleGame::new(pos, args.rules))
}

/// Whether an error is a closed stdout (e.g. output piped into `head`), which is not a failure.
pub fn is_broken_pipe(e: &anyhow::Error) -> bool {
    e.chain()
        .any(|c| c.downcast_ref::<std::io::Error>().is_some_and(|io| io.kind() == std::io::ErrorKind::BrokenPipe))
}
