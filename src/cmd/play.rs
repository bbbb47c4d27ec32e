//! `junglezero play`: a game against the engine in the terminal, in either game.

use std::io::{BufRead, Write};
use std::path::PathBuf;

use anyhow::Context;
use clap::Args;

use crate::arena::match_game::ArenaGame;
use crate::arena::spec::PlayerSpec;
use crate::cli::{Colour, ConfigArgs, GameKind, PositionArgs};
use crate::config::Config;
use crate::entries::HouseGame;
use crate::game::{Seat, Turn};
use crate::player::Limits;
use crate::store::caps;
use crate::store::lines::{CappedLines, TooLong};

use rand::{RngExt, SeedableRng};

pub fn run(args: PlayArgs) -> anyhow::Result<()> {
    let config = super::load_config(&args.config)?;
    crate::with_game!(args.game.unwrap_or(config.game), G => play::<G>(&args, &config))
}

/// The human has the first seat (`--human red`) or the second (`--human blue`); nature's draws
/// (the flip game's flips) are random.
fn play<G: HouseGame>(args: &PlayArgs, config: &Config) -> anyhow::Result<()> {
    let rules = super::rules_from_args::<G>(&args.position, config)?;
    let mut game = super::game_from_args::<G>(&args.position, &rules)?;
    let settings = config.players();
    let spec = match (args.engine, &args.model, args.elo) {
        (_, _, Some(elo)) => {
            crate::arena::match_game::check_level::<G>(elo).map_err(|why| anyhow::anyhow!("--elo {elo}: {why}"))?;
            <G as ArenaGame>::at_level(elo, &settings).context("no such level")?
        }
        (Some(EngineKind::Alphabeta), Some(_), None) => anyhow::bail!("--model is the network of --engine mcts; leave it out to play the classical engine"),
        (Some(EngineKind::Mcts) | None, Some(path), None) => PlayerSpec::mcts(path.clone(), config.mcts.playouts),
        _ => G::classical(&settings),
    };
    // A level draws among moves: a new game, new draws.
    let seed = if args.elo.is_some() { super::clock_seed() } else { 0 };
    let mut engine = <G as ArenaGame>::factory(spec, &settings, &rules, None)?.make(seed)?.player;
    let human = match args.human {
        Colour::Red => Seat::First,
        Colour::Blue => Seat::Second,
    };
    let help = format!("type {}, or: undo, hint, moves, help, quit", G::MOVE_HELP);
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(super::clock_seed());
    let limits = Limits::movetime(args.movetime);
    let mut history: Vec<G> = Vec::new();
    let mut input = CappedLines::new(std::io::stdin().lock(), caps::LINE).eager();
    let mut out = std::io::stdout().lock();
    writeln!(out, "You play {} against {}. {help}.", G::seat_name(human), engine.name())?;
    writeln!(out, "{}", G::legend())?;
    let mut outcomes = Vec::new();
    let mut shown = false;
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
            game.play(pick).map_err(|e| anyhow::anyhow!("{e}"))?;
            writeln!(out, "the flip reveals {pick}")?;
            continue;
        }
        if !shown {
            write!(out, "{}", game.diagram_for(human))?;
            shown = true;
        }
        if let Turn::Over(o) = game.turn() {
            writeln!(out, "Game over: {}.", G::outcome_text(&o))?;
            return Ok(());
        }
        if game.seat_to_move() != Some(human) {
            let Some(mv) = engine.choose(&game, &limits, &mut |_| {}) else { return Ok(()) };
            history.push(game.clone());
            game.play(mv).map_err(|e| anyhow::anyhow!("{e}"))?;
            writeln!(out, "junglezero plays {mv}")?;
            shown = false;
            continue;
        }
        let Some(line) = prompt(&mut input, &mut out, "your move> ")? else { return Ok(()) };
        let line = match line {
            Ok(line) => line,
            // Nobody types a line of a megabyte: the input is not a player's, and reading on
            // would only print this again.
            Err(too_long) => {
                anyhow::bail!("input: a line longer than {}; play reads one move or command a line", crate::store::human_bytes(too_long.cap as u64))
            }
        };
        match line.trim() {
            "" => {}
            "quit" | "exit" => return Ok(()),
            "help" => writeln!(out, "{help}\n{}", G::legend())?,
            "moves" => writeln!(out, "legal moves: {}", sorted_moves(&game.legal_moves()))?,
            "hint" => {
                let mut lines = Vec::new();
                if let Some(mv) = engine.choose(&game, &Limits::movetime((args.movetime / 2).max(50)), &mut |l| lines.push(l.to_string())) {
                    match crate::protocol::verdict::of_search(&lines) {
                        Some(e) => writeln!(out, "hint: {mv} ({e})")?,
                        None => writeln!(out, "hint: {mv}")?,
                    }
                }
            }
            "undo" => {
                // Back to the human's last decision (past the engine's reply and nature's draws).
                let mut undone = false;
                while let Some(prev) = history.pop() {
                    game = prev;
                    undone = true;
                    if game.seat_to_move() == Some(human) && matches!(game.turn(), Turn::Player(_)) {
                        break;
                    }
                }
                if undone {
                    shown = false;
                } else {
                    writeln!(out, "nothing to undo")?;
                }
            }
            text if text.chars().count() > MAX_MOVE_TEXT => writeln!(out, "'{}' is not a move: too long ({help})", crate::check::clip(text))?,
            text => {
                let before = game.clone();
                match game.play_text_move(text) {
                    Ok(()) => {
                        history.push(before);
                        shown = false;
                    }
                    Err(e) => writeln!(out, "{e}")?,
                }
            }
        }
    }
}

/// The longest text read as a move: longer is refused without being parsed or quoted whole.
const MAX_MOVE_TEXT: usize = 64;

/// Writes `text` and reads the player's next line (an error for one over the cap); `None` at
/// the end of input.
fn prompt(input: &mut CappedLines<impl BufRead>, out: &mut impl Write, text: &str) -> std::io::Result<Option<Result<String, TooLong>>> {
    write!(out, "{text}")?;
    out.flush()?;
    let line = input.next_line();
    if line.is_none() {
        writeln!(out)?;
    }
    Ok(line)
}

/// Moves as text, sorted, separated by spaces.
fn sorted_moves<M: std::fmt::Display>(moves: &[M]) -> String {
    let mut v: Vec<String> = moves.iter().map(|m| m.to_string()).collect();
    v.sort();
    v.join(" ")
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum EngineKind {
    Alphabeta,
    Mcts,
}

#[derive(Args, Debug)]
pub struct PlayArgs {
    #[command(flatten)]
    pub position: PositionArgs,
    #[command(flatten)]
    pub config: ConfigArgs,
    /// The engine to play against: the game's classical engine (alpha-beta; the flip game's
    /// expectiminimax), or MCTS with --model (the default when --model is given).
    #[arg(long, value_enum)]
    pub engine: Option<EngineKind>,
    /// A network (a .jzm file): the engine is MCTS with it.
    #[arg(long, value_name = "PATH", required_if_eq("engine", "mcts"))]
    pub model: Option<PathBuf>,
    /// Play against the classical engine held to this level of the Elo scale (alpha-beta depth
    /// 1 = 0; see `alphabeta:elo=`), instead of its full strength.
    #[arg(long, value_name = "E", allow_hyphen_values = true, conflicts_with_all = ["model", "engine"])]
    pub elo: Option<i32>,
    /// Engine thinking time per move in milliseconds (at most a day).
    #[arg(long, default_value_t = 1000, value_parser = clap::value_parser!(u64).range(1..=86_400_000))]
    pub movetime: u64,
    /// The colour you play (the flip game: red is the first player, blue the second).
    #[arg(long, value_enum, default_value = "red")]
    pub human: Colour,
    /// The game (default: the config's `game`). The flip game's engine is expectiminimax; its
    /// --fen takes the flip position string, --rules its switches.
    #[arg(long, value_enum)]
    pub game: Option<GameKind>,
}
