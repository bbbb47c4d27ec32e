//! `junglezero play`: a game against the engine in the terminal.

use std::io::{BufRead, Write};

use junglezero::arena::spec::{PlayerFactory, PlayerSettings, PlayerSpec};
use junglezero::game::{Game, Turn};
use junglezero::jungle::{JungleGame, Side, describe_outcome, diagram};
use junglezero::player::{Limits, Player};

use crate::cli::{Colour, EngineKind, PlayArgs};

const HELP: &str = "type a move like a3a4, or: undo, hint, moves, help, quit";

pub fn run(args: PlayArgs) -> anyhow::Result<()> {
    let config = super::load_config(&args.config)?;
    let mut game = super::game_from_args(&args.position, config.rules)?;
    let spec = match (args.engine, &args.model) {
        (EngineKind::Mcts, Some(path)) => PlayerSpec::Mcts { model: path.clone(), sims: config.mcts.playouts, movetime: None, c_puct: None, tc: None },
        _ => PlayerSpec::AlphaBeta { depth: None, movetime: None, nodes: None, hash_mb: config.search.hash_mb, threads: config.search.threads, tc: None },
    };
    // The game's rules (with --rules applied) are the ones the players evaluate under.
    let settings = PlayerSettings { rules: *game.rules(), ..config.players() };
    let mut engine: Box<dyn Player<JungleGame>> = PlayerFactory::new(spec, &settings)?.make(0)?.player;
    let human = match args.human {
        Colour::Red => Side::Red,
        Colour::Blue => Side::Blue,
    };
    let limits = Limits::movetime(args.movetime);
    let stdin = std::io::stdin();
    let mut input = stdin.lock();
    let mut out = std::io::stdout().lock();
    writeln!(out, "You play {human} (upper case is Red). {HELP}.")?;
    write!(out, "{}", diagram(game.position()))?;
    loop {
        if let Turn::Over(o) = game.turn() {
            writeln!(out, "Game over: {}.", describe_outcome(&o))?;
            return Ok(());
        }
        if game.side_to_move() != human {
            let Some(mv) = engine.choose(&game, &limits, &mut |_| {}) else { continue };
            game.play_checked(mv)?;
            writeln!(out, "junglezero plays {mv}")?;
            write!(out, "{}", diagram(game.position()))?;
            continue;
        }
        write!(out, "{} to move> ", game.side_to_move())?;
        out.flush()?;
        let mut line = String::new();
        if input.read_line(&mut line)? == 0 {
            writeln!(out)?;
            return Ok(());
        }
        match line.trim() {
            "" => {}
            "quit" | "exit" => return Ok(()),
            "help" => writeln!(out, "{HELP}")?,
            "moves" => {
                let mut moves: Vec<String> = game.legal_moves().iter().map(|m| m.to_string()).collect();
                moves.sort();
                writeln!(out, "legal moves: {}", moves.join(" "))?;
            }
            "hint" => {
                let hint_limits = Limits::movetime((args.movetime / 2).max(50));
                if let Some(mv) = engine.choose(&game, &hint_limits, &mut |_| {}) {
                    writeln!(out, "hint: {mv}")?;
                }
            }
            "undo" => {
                if undo_to_human(&mut game, human) {
                    write!(out, "{}", diagram(game.position()))?;
                } else {
                    writeln!(out, "nothing to undo")?;
                }
            }
            text => match game.play_text(text) {
                Ok(_) => write!(out, "{}", diagram(game.position()))?,
                Err(e) => writeln!(out, "{e}")?,
            },
        }
    }
}

/// Takes back the last move and then, if needed, more until it is the human's turn again
/// (or the start is reached); `false` if there was nothing to undo.
fn undo_to_human(game: &mut JungleGame, human: Side) -> bool {
    if !game.undo() {
        return false;
    }
    while game.side_to_move() != human && game.undo() {}
    true
}
