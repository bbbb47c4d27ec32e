//! The 4×4 flip game on the page: positions with face-down squares and the hidden pool, flips
//! whose outcome the server draws (nature's move, weighted as the rules say), and the
//! expectiminimax engine. Seats, not colours, play: the page's first select is the first
//! player, who owns whichever colour the first flip shows.

use std::sync::Arc;
use std::sync::atomic::AtomicBool;

use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;

use crate::alphabeta::flip::FlipEngine;
use crate::flip::{Cell, FlipGame, FlipMove, FlipRules, Piece, Square, parse_position, play_text, position};
use crate::game::{Game, Outcome, Seat, Turn};
use crate::mcts::player::value_to_cp;
use crate::player::Limits;
use crate::serve::ApiError;
use crate::serve::analysis::AlphaBetaView;
use crate::serve::board::{Board, ServeGame};
use crate::serve::position::{FlipExtra, PieceView, PositionView, ResultView, check_length, side_name, with_overrides};

/// A fresh generator for nature's draws.
pub fn nature() -> ChaCha8Rng {
    let t = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_nanos() as u64);
    ChaCha8Rng::seed_from_u64(t ^ u64::from(std::process::id()).rotate_left(32))
}

/// The flip game from `fen` (none or empty: a new deal) after `moves`. A flip without its
/// outcome (`f:b3`) as the last move gets one drawn from `rng`; the moves come back with it
/// written in (`f:b3=L`).
pub fn game_of<S: AsRef<str>>(
    base: FlipRules,
    fen: Option<&str>,
    moves: &[S],
    rules: Option<&str>,
    rng: &mut ChaCha8Rng,
) -> Result<(FlipGame, Vec<String>), ApiError> {
    let r = with_overrides(base, rules)?;
    let mut game = match fen.map(str::trim).filter(|f| !f.is_empty()) {
        None => FlipGame::start(r),
        Some(f) => parse_position(f, r).map_err(|e| ApiError::bad(e.to_string()))?,
    };
    check_length(moves.len())?;
    let mut texts: Vec<String> = Vec::with_capacity(moves.len());
    for (i, text) in moves.iter().enumerate() {
        let text = text.as_ref();
        play_text(&mut game, text).map_err(|e| ApiError::bad(format!("move {} ('{text}'): {e}", i + 1)))?;
        texts.push(text.trim().to_string());
    }
    if game.turn() == Turn::Chance {
        let reveal = draw(&game, rng).ok_or_else(|| ApiError::bad("the flip has nothing to reveal"))?;
        game.play(reveal).map_err(|e| ApiError::internal(format!("nature's {reveal}: {e}")))?;
        if let Some(last) = texts.last_mut() {
            *last = reveal.to_string();
        }
    }
    Ok((game, texts))
}

impl ServeGame for FlipGame {
    /// A pending flip at the end gets its outcome drawn, as a request's does.
    fn replay<S: AsRef<str>>(rules: FlipRules, root: Option<&str>, moves: &[S], spec: Option<&str>) -> Result<Box<dyn Board>, ApiError> {
        let (game, moves) = game_of(rules, root, moves, spec, &mut nature())?;
        let root = match root.map(str::trim).filter(|f| !f.is_empty()) {
            Some(f) => f.to_string(),
            None => position(&FlipGame::start(*game.rules())),
        };
        Ok(Box::new(super::FlipBoard { game, root, moves }))
    }
}

/// Nature's outcome of the pending flip, drawn with the rules' weights.
fn draw(game: &FlipGame, rng: &mut ChaCha8Rng) -> Option<FlipMove> {
    let mut outcomes = Vec::new();
    game.chance_outcomes(&mut outcomes);
    let total: f32 = outcomes.iter().map(|o| o.1).sum();
    let mut x = rng.random::<f32>() * total;
    for &(mv, p) in &outcomes {
        if x < p {
            return Some(mv);
        }
        x -= p;
    }
    outcomes.last().map(|o| o.0)
}

fn colour_name(game: &FlipGame, seat: Seat) -> Option<String> {
    game.colour_of(seat).map(|c| side_name(c).to_string())
}

/// The result in words: the winner's seat and colour, or the draw's reason.
pub fn result_of(game: &FlipGame, o: &Outcome) -> ResultView {
    let seat_name = |s: Seat| if s == Seat::First { "the first player" } else { "the second player" };
    let text = match o.winner {
        Some(s) => {
            let colour = game.colour_of(s).map_or(String::new(), |c| format!(" ({})", c.name()));
            format!("{}{colour} wins: {}", capitalise(seat_name(s)), o.reason)
        }
        None => format!("draw: {}", o.reason),
    };
    // The page's selects are seats: "red" is the first player's, "blue" the second's.
    ResultView { winner: o.winner.map(|s| if s == Seat::First { "red" } else { "blue" }.to_string()), reason: o.reason.name().to_string(), text }
}

fn capitalise(s: &str) -> String {
    let mut c = s.chars();
    c.next().map_or(String::new(), |f| f.to_uppercase().collect::<String>() + c.as_str())
}

/// The page's view of a flip-game position; `root` is the text the game started from.
pub fn view_of(game: &FlipGame, root: &str, moves: Vec<String>) -> PositionView {
    let rules = game.rules();
    let mut pieces = Vec::new();
    let mut hidden = Vec::new();
    for s in Square::all() {
        match game.cell(s) {
            Cell::Up(p) => pieces.push(PieceView::new(s.to_string(), p.side, p.kind, p.letter(), rules.dog_over_wolf)),
            Cell::Hidden => hidden.push(s.to_string()),
            Cell::Empty => {}
        }
    }
    let pool = (0..16).flat_map(|i| std::iter::repeat_n(Piece::from_index(i).letter().to_string(), usize::from(game.hidden()[i]))).collect();
    let result = match game.turn() {
        Turn::Over(o) => Some(result_of(game, &o)),
        _ => None,
    };
    let legal = if result.is_some() { Vec::new() } else { game.legal_moves().iter().map(|m| m.to_string()).collect() };
    let seat = game.to_move();
    PositionView {
        game: "flip".into(),
        root_fen: root.to_string(),
        fen: position(game),
        last_move: moves.last().cloned(),
        moves,
        rules: rules.to_string(),
        side_to_move: if seat == Seat::First { "red" } else { "blue" }.into(),
        ply: game.ply(),
        halfmove: game.quiet(),
        pieces,
        legal,
        result,
        flip: Some(FlipExtra { hidden, pool, first_colour: colour_name(game, Seat::First), colour_to_move: colour_name(game, seat) }),
    }
}

/// Expectiminimax on `game` within `limits` (its own iterative deepening; one second when no
/// time is given), reported once when it ends. The engine cannot be interrupted, so the
/// request's time cap bounds it.
pub fn run_expectimax(game: &FlipGame, limits: &Limits, stop: &Arc<AtomicBool>, report: &mut dyn FnMut(&AlphaBetaView) -> bool) -> AlphaBetaView {
    let start = std::time::Instant::now();
    let limits = Limits { movetime: Some(limits.movetime.unwrap_or(std::time::Duration::from_secs(1))), ..limits.clone() };
    // The page's stop ends the search as the protocol's does.
    let r = FlipEngine::with_stop(stop.clone()).think(game, &limits);
    let best = r.best.map(|m| m.to_string());
    let view = AlphaBetaView {
        depth: r.depth,
        seldepth: r.depth,
        score: format!("cp {}", value_to_cp(r.value)),
        cp: Some(value_to_cp(r.value)),
        mate: None,
        nodes: r.nodes,
        time_ms: start.elapsed().as_millis() as u64,
        pv: best.iter().cloned().collect(),
        best,
    };
    report(&view);
    view
}
