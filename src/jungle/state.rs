//! A Jungle game in progress: position, rules, history and the end-of-game rules.

use super::history::{CHASE_PLIES, History};
use super::movegen::{self, MoveList};
use super::notation::{self, FenError, MoveTextError};
use super::position::Position;
use super::rules::{Repetition, Rules};
use super::types::{Move, Side};
use crate::game::{Game, IllegalMove, Outcome, Reason, Turn};

/// A game from some root position under fixed rules.
#[derive(Debug)]
pub struct JungleGame {
    pos: Position,
    rules: Rules,
    history: History,
    root: Position,
    moves: Vec<Move>,
    turn: Turn,
}

impl Clone for JungleGame {
    fn clone(&self) -> Self {
        JungleGame { pos: self.pos, rules: self.rules, history: self.history.clone(), root: self.root, moves: self.moves.clone(), turn: self.turn }
    }

    /// Reuses the history and move buffers: search copies states this way without allocating.
    fn clone_from(&mut self, source: &Self) {
        self.pos = source.pos;
        self.rules = source.rules;
        self.history.clone_from(&source.history);
        self.root = source.root;
        self.moves.clone_from(&source.moves);
        self.turn = source.turn;
    }
}

impl Default for JungleGame {
    fn default() -> Self {
        JungleGame::new(Position::start(), Rules::default())
    }
}

/// Why a move cannot be played, in words a player understands.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PlayError {
    #[error(transparent)]
    Text(#[from] MoveTextError),
    #[error("{mv} is illegal: {why}")]
    Illegal { mv: Move, why: String },
    #[error("the game is over ({0})")]
    GameOver(String),
}

impl JungleGame {
    /// A new game from `root` with an empty history.
    pub fn new(root: Position, rules: Rules) -> JungleGame {
        let mut g = JungleGame {
            pos: root,
            rules,
            history: History::new(root.hash()).with_chase(rules.anti_chase),
            root,
            moves: Vec::with_capacity(256),
            turn: Turn::Player(root.side_to_move().player()),
        };
        g.turn = g.compute_turn();
        g
    }

    /// The standard start position under `rules`.
    pub fn start(rules: Rules) -> JungleGame {
        JungleGame::new(Position::start(), rules)
    }

    pub fn from_fen(fen: &str, rules: Rules) -> Result<JungleGame, FenError> {
        Ok(JungleGame::new(notation::parse_fen(fen)?, rules))
    }

    #[inline(always)]
    pub fn position(&self) -> &Position {
        &self.pos
    }

    #[inline(always)]
    pub fn rules(&self) -> &Rules {
        &self.rules
    }

    #[inline(always)]
    pub fn history(&self) -> &History {
        &self.history
    }

    pub fn root(&self) -> &Position {
        &self.root
    }

    /// Moves played since the root.
    pub fn moves(&self) -> &[Move] {
        &self.moves
    }

    #[inline(always)]
    pub fn side_to_move(&self) -> Side {
        self.pos.side_to_move()
    }

    /// Legal moves into a caller's list (cleared first).
    #[inline]
    pub fn legal_moves_into(&self, out: &mut MoveList) {
        out.clear();
        if matches!(self.turn, Turn::Player(_)) {
            movegen::legal_moves(&self.pos, &self.rules, &self.history, out);
        }
    }

    fn compute_turn(&self) -> Turn {
        let pos = &self.pos;
        let stm = pos.side_to_move();
        if let Some(w) = pos.den_winner() {
            return Turn::Over(Outcome::win(w.player(), Reason::Den));
        }
        for side in [stm, stm.flip()] {
            if pos.count(side) == 0 {
                return Turn::Over(Outcome::win(side.flip().player(), Reason::Annihilation));
            }
        }
        if self.rules.repetition == Repetition::Draw && self.history.current_reps() >= 3 {
            return Turn::Over(Outcome::draw(Reason::Repetition));
        }
        if self.rules.no_capture_plies > 0 && pos.halfmove() >= self.rules.no_capture_plies {
            return Turn::Over(Outcome::draw(Reason::NoProgress));
        }
        if self.rules.max_plies > 0 && pos.ply() >= u32::from(self.rules.max_plies) {
            return Turn::Over(Outcome::draw(Reason::MoveCap));
        }
        if !movegen::has_legal_move(pos, &self.rules, &self.history) {
            return Turn::Over(Outcome::win(stm.flip().player(), Reason::NoMoves));
        }
        Turn::Player(stm.player())
    }

    /// Plays a move known to be legal.
    #[inline]
    pub fn play_move_unchecked(&mut self, mv: Move) {
        debug_assert!(self.is_legal(mv), "illegal move {mv} in {}", notation::fen(&self.pos));
        let step = super::chase::step_of(&self.pos, &self.rules, mv);
        let captured = self.pos.play_unchecked(mv);
        self.history.push(self.pos.hash(), captured.is_some(), step);
        self.moves.push(mv);
        self.turn = self.compute_turn();
    }

    /// Parses and plays a move in text form, explaining why it is illegal if it is.
    pub fn play_text(&mut self, text: &str) -> Result<Move, PlayError> {
        let mv = notation::parse_move(text)?;
        self.play_checked(mv)?;
        Ok(mv)
    }

    /// Plays `mv` if it is legal; otherwise says why not.
    pub fn play_checked(&mut self, mv: Move) -> Result<(), PlayError> {
        if let Turn::Over(o) = self.turn {
            return Err(PlayError::GameOver(describe_outcome(&o)));
        }
        if super::legality::is_legal(&self.pos, &self.rules, &self.history, mv) {
            self.play_move_unchecked(mv);
            Ok(())
        } else {
            Err(PlayError::Illegal { mv, why: super::explain::why_illegal(&self.pos, &self.rules, &self.history, mv) })
        }
    }

    /// Takes back the last move; `false` at the root.
    pub fn undo(&mut self) -> bool {
        if self.moves.pop().is_none() {
            return false;
        }
        // Replaying from the root is simple and exact; undo is an interactive operation.
        let moves = std::mem::take(&mut self.moves);
        let rules = self.rules;
        *self = JungleGame::new(self.root, rules);
        for m in moves {
            self.play_move_unchecked(m);
        }
        true
    }

    /// The current position as FEN.
    pub fn fen(&self) -> String {
        notation::fen(&self.pos)
    }
}

/// The result in words: "Red wins by entering the den", "draw by threefold repetition".
pub fn describe_outcome(o: &Outcome) -> String {
    match o.winner {
        Some(p) => {
            let (w, l) = (Side::from_player(p), Side::from_player(p.other()));
            match o.reason {
                Reason::Den => format!("{w} wins by entering the den"),
                Reason::Annihilation => format!("{w} wins by capturing every {l} piece"),
                Reason::NoMoves => format!("{w} wins: {l} has no legal move"),
                Reason::Resignation => format!("{w} wins: {l} resigned"),
                other => format!("{w} wins ({other})"),
            }
        }
        None => match o.reason {
            Reason::NoProgress => "draw: too many plies without a capture".into(),
            Reason::Repetition => "draw by threefold repetition".into(),
            Reason::MoveCap => "draw: the move cap was reached".into(),
            other => format!("draw ({other})"),
        },
    }
}

impl Game for JungleGame {
    type Move = Move;
    type MoveList = MoveList;
    const MAX_MOVES: usize = super::MAX_MOVES;

    #[inline(always)]
    fn turn(&self) -> Turn {
        self.turn
    }

    #[inline]
    fn legal_moves(&self) -> MoveList {
        let mut list = MoveList::new();
        self.legal_moves_into(&mut list);
        list
    }

    /// The position, the rules and the history since the last capture (all repetition can
    /// still reach), and both sides' last 17 moves while the anti-chase rules are on. The copy's root is `source`'s current position and its move list starts
    /// empty: it serves search, which only plays forward (`undo` on it would replay from that
    /// root without the earlier positions).
    fn copy_for_search(&mut self, source: &Self) {
        self.pos = source.pos;
        self.rules = source.rules;
        self.history.copy_window_from(&source.history, if source.rules.anti_chase { CHASE_PLIES } else { 0 });
        self.root = source.pos;
        self.moves.clear();
        self.turn = source.turn;
    }

    #[inline]
    fn play_unchecked(&mut self, mv: Move) {
        self.play_move_unchecked(mv);
    }

    fn play(&mut self, mv: Move) -> Result<(), IllegalMove> {
        self.play_checked(mv).map_err(|e| IllegalMove(e.to_string()))
    }

    fn is_legal(&self, mv: Move) -> bool {
        matches!(self.turn, Turn::Player(_)) && super::legality::is_legal(&self.pos, &self.rules, &self.history, mv)
    }

    #[inline(always)]
    fn hash(&self) -> u64 {
        self.pos.hash()
    }

    fn ply(&self) -> u32 {
        self.pos.ply()
    }
}
