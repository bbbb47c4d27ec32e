//! `junglezero play`: a game against the engine in the terminal.

use std::io::{BufRead, Write};

use junglezero::arena::flip_players::FlipFactory;
use junglezero::arena::spec::{Contestants, PlayerFactory, PlayerSettings, PlayerSpec};
use junglezero::config::Config;
use junglezero::flip::{FlipGame, diagram as flip_diagram, play_text as flip_play_text};
use junglezero::game::{Game, Seat, Turn};
use junglezero::games::GameName;
use junglezero::jungle::{JungleGame, Side, describe_outcome, diagram};
use junglezero::player::{Limits, Player};
use rand::{RngExt, SeedableRng};

use crate::cli::{Colour, EngineKind, PlayArgs};

const HELP: &str = "type a move like a3a4, or: undo, hint, moves, help, quit";
const FLIP_HELP: &str = "type a move like f:b3 (flip), b3b4 or b3xb4, or: undo, hint, moves, help, quit";

pub fn run(args: PlayArgs) -> anyhow::Result<()> {
    let config = super::load_config(&args.config)?;
    if args.game.unwrap_or(config.game) == GameName::Flip {
        return play_flip(&args, &config);
    }
    let mut game = super::game_from_args(&args.position, config.rules)?;
    let spec = match (args.engine, &args.model) {
        (EngineKind::Mcts, Some(path)) => {
            PlayerSpec::Mcts { model: path.clone(), sims: config.mcts.playouts, movetime: None, c_puct: None, reuse: None, tc: None }
        }
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
        let Some(line) = prompt(&mut input, &mut out, &format!("{} to move> ", game.side_to_move()))? else { return Ok(()) };
        match line.trim() {
            "" => {}
            "quit" | "exit" => return Ok(()),
            "help" => writeln!(out, "{HELP}")?,
            "moves" => writeln!(out, "legal moves: {}", sorted_moves(&game.legal_moves()))?,
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

/// The flip game in the terminal: the human has the first seat (`--human red`) or the second
/// (`--human blue`); colours are decided by the first flip, and nature's draws are random.
fn play_flip(args: &PlayArgs, config: &Config) -> anyhow::Result<()> {
    let mut game = super::flip_game_from_args(&args.position, config.flip_rules)?;
    let spec = match (args.engine, &args.model) {
        (EngineKind::Mcts, Some(path)) => {
            PlayerSpec::Mcts { model: path.clone(), sims: config.mcts.playouts, movetime: None, c_puct: None, reuse: None, tc: None }
        }
        _ => PlayerSpec::Expectiminimax { depth: None, movetime: None, nodes: None, tc: None },
    };
    let mut engine = FlipFactory::new(spec, &config.mcts, &config.hardware)?.make(0)?.player;
    let human = match args.human {
        Colour::Red => Seat::First,
        Colour::Blue => Seat::Second,
    };
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(super::clock_seed());
    let limits = Limits::movetime(args.movetime);
    let mut history: Vec<FlipGame> = Vec::new();
    let mut input = std::io::stdin().lock();
    let mut out = std::io::stdout().lock();
    let who = if human == Seat::First { "first" } else { "second" };
    writeln!(out, "You are the {who} player. {FLIP_HELP}.")?;
    let mut outcomes = Vec::new();
    loop {
        // Nature's draw after a flip.
        if matches!(game.turn(), Turn::Chance) {
            game.chance_outcomes(&mut outcomes);
            let mut r: f32 = rng.random();
            let mut pick = outcomes[outcomes.len() - 1].0;
            for &(m, p) in &outcomes {
                if r < p {
                    pick = m;
                    break;
                }
                r -= p;
            }
            game.play(pick)?;
            writeln!(out, "the flip reveals {pick}")?;
            continue;
        }
        write!(out, "{}", flip_diagram(&game))?;
        if let Turn::Over(o) = game.turn() {
            let text = match o.winner {
                Some(s) if s == human => format!("you win ({})", o.reason),
                Some(_) => format!("junglezero wins ({})", o.reason),
                None => format!("draw ({})", o.reason),
            };
            writeln!(out, "Game over: {text}.")?;
            return Ok(());
        }
        if game.to_move() != human {
            let Some(mv) = engine.choose(&game, &limits, &mut |_| {}) else { return Ok(()) };
            history.push(game.clone());
            game.play(mv)?;
            writeln!(out, "junglezero plays {mv}")?;
            continue;
        }
        let Some(line) = prompt(&mut input, &mut out, "your move> ")? else { return Ok(()) };
        match line.trim() {
            "" => {}
            "quit" | "exit" => return Ok(()),
            "help" => writeln!(out, "{FLIP_HELP}")?,
            "moves" => writeln!(out, "legal moves: {}", sorted_moves(&game.legal_moves()))?,
            "hint" => {
                if let Some(mv) = engine.choose(&game, &Limits::movetime((args.movetime / 2).max(50)), &mut |_| {}) {
                    writeln!(out, "hint: {mv}")?;
                }
            }
            "undo" => {
                // Back to the human's last decision (past the engine's reply and nature's draws).
                let mut undone = false;
                while let Some(prev) = history.pop() {
                    game = prev;
                    undone = true;
                    if game.to_move() == human && matches!(game.turn(), Turn::Player(_)) {
                        break;
                    }
                }
                if !undone {
                    writeln!(out, "nothing to undo")?;
                }
            }
            text => {
                let before = game.clone();
                match flip_play_text(&mut game, text) {
                    Ok(_) => history.push(before),
                    Err(e) => writeln!(out, "{e}")?,
                }
            }
        }
    }
}

/// Writes `text` and reads the player's next line; `None` at the end of input.
fn prompt(input: &mut impl BufRead, out: &mut impl Write, text: &str) -> std::io::Result<Option<String>> {
    write!(out, "{text}")?;
    out.flush()?;
    let mut line = String::new();
    if input.read_line(&mut line)? == 0 {
        writeln!(out)?;
        return Ok(None);
    }
    Ok(Some(line))
}

/// Moves as text, sorted, separated by spaces.
fn sorted_moves<M: std::fmt::Display>(moves: &[M]) -> String {
    let mut v: Vec<String> = moves.iter().map(|m| m.to_string()).collect();
    v.sort();
    v.join(" ")
}
