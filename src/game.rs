//! The game abstraction that search (MCTS, self-play, the arena) is generic over.
//!
//! A game is a state machine with two players who alternate, plus optional *chance* nodes where
//! nature picks the next move with known probabilities (the 4×4 flip variant turns pieces face up
//! at random). Jungle never has chance nodes. Search code asks [`Game::turn`] who acts next and
//! either chooses among [`Game::legal_moves`] or, at a chance node, weighs the outcomes listed by
//! [`Game::chance_outcomes`].

use std::fmt;
use std::hash::Hash;
use std::ops::Deref;

/// The two seats, in turn order (the player to move sits in one). In Jungle `First` is Red.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[repr(u8)]
pub enum Seat {
    First = 0,
    Second = 1,
}

impl Seat {
    pub const BOTH: [Seat; 2] = [Seat::First, Seat::Second];

    #[inline]
    pub const fn other(self) -> Seat {
        match self {
            Seat::First => Seat::Second,
            Seat::Second => Seat::First,
        }
    }

    #[inline]
    pub const fn index(self) -> usize {
        self as usize
    }
}

/// Who acts next.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Turn {
    /// A player chooses one of the legal moves.
    Player(Seat),
    /// Nature picks one of the chance outcomes with its probability.
    Chance,
    /// The game is over.
    Over(Outcome),
}

/// Why a game ended. Shared by every game so reports can count reasons uniformly.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[repr(u8)]
pub enum Reason {
    /// A piece entered the opponent's den.
    Den = 0,
    /// The last enemy piece was captured.
    Annihilation = 1,
    /// The player to move had no legal move and lost.
    NoMoves = 2,
    /// Too many plies without a capture (Jungle) or without a flip or capture (flip variant).
    NoProgress = 3,
    /// A position occurred for the third time under the `draw` repetition rule.
    Repetition = 4,
    /// The configured cap on game length was reached.
    MoveCap = 5,
    /// A player resigned (self-play and matches only; never produced by the rules).
    Resignation = 6,
    /// A player failed to produce a legal move (an external engine crashed or misbehaved).
    Forfeit = 7,
    /// A match ended the game on both players' evaluations (`arena.adjudicate_*`; matches
    /// only, never produced by the rules).
    Adjudication = 8,
    /// A player on a clock ran out of time (matches only).
    Time = 9,
    /// The endgame tables hold the position: the game ends with their result (self-play and
    /// matches with `[tablebase]`; never produced by the rules).
    Tablebase = 10,
}

impl Reason {
    pub const ALL: [Reason; 11] = [
        Reason::Den,
        Reason::Annihilation,
        Reason::NoMoves,
        Reason::NoProgress,
        Reason::Repetition,
        Reason::MoveCap,
        Reason::Resignation,
        Reason::Forfeit,
        Reason::Adjudication,
        Reason::Time,
        Reason::Tablebase,
    ];

    /// Stable lower-case name used in records, reports and protocol output.
    pub const fn name(self) -> &'static str {
        match self {
            Reason::Den => "den",
            Reason::Annihilation => "annihilation",
            Reason::NoMoves => "no-moves",
            Reason::NoProgress => "no-capture-limit",
            Reason::Repetition => "repetition",
            Reason::MoveCap => "move-cap",
            Reason::Resignation => "resignation",
            Reason::Forfeit => "forfeit",
            Reason::Adjudication => "adjudication",
            Reason::Time => "time",
            Reason::Tablebase => "tablebase",
        }
    }

    pub fn from_u8(v: u8) -> Option<Reason> {
        Reason::ALL.get(v as usize).copied()
    }

    pub fn from_name(s: &str) -> Option<Reason> {
        Reason::ALL.into_iter().find(|r| r.name() == s)
    }
}

impl fmt::Display for Reason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// The result of a finished game.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Outcome {
    /// `None` for a draw.
    pub winner: Option<Seat>,
    pub reason: Reason,
}

impl Outcome {
    pub const fn win(winner: Seat, reason: Reason) -> Outcome {
        Outcome { winner: Some(winner), reason }
    }

    pub const fn draw(reason: Reason) -> Outcome {
        Outcome { winner: None, reason }
    }

    /// The result as a value in [-1, 1] from `player`'s point of view.
    pub fn value_for(&self, player: Seat) -> f32 {
        match self.winner {
            None => 0.0,
            Some(w) if w == player => 1.0,
            Some(_) => -1.0,
        }
    }
}

/// A two-player game with optional chance nodes.
///
/// States are cheap to clone (search clones them when it walks the tree). Move lists are
/// fixed-capacity values so generating moves never allocates.
pub trait Game: Clone + Send + Sync + 'static {
    type Move: Copy + Eq + Hash + Default + fmt::Debug + fmt::Display + Send + Sync + 'static;
    /// The most legal moves (or chance outcomes) any state can have.
    const MAX_MOVES: usize;
    /// A fixed-capacity list of moves.
    type MoveList: Deref<Target = [Self::Move]> + Default;

    /// Who acts next, or the outcome once the game is over.
    fn turn(&self) -> Turn;

    /// The legal moves at a player node; empty at chance nodes and once the game is over.
    fn legal_moves(&self) -> Self::MoveList;

    /// At a chance node, the possible outcomes with their probabilities (summing to 1),
    /// written into `out` (cleared first). Games without chance never call this.
    fn chance_outcomes(&self, out: &mut Vec<(Self::Move, f32)>) {
        out.clear();
    }

    /// Makes `self` a copy of `source` as search sees it: the same legal moves, turn, outcome,
    /// hashes and encoding from here on, though not necessarily the same record of the game
    /// played so far. Search calls this once per simulation, so a game keeps it cheap (Jungle
    /// copies its position and the positions repetition can still reach, not the whole game).
    fn copy_for_search(&mut self, source: &Self) {
        self.clone_from(source);
    }

    /// Plays a move the caller knows to be legal (a legal move or a chance outcome).
    /// Checked with `debug_assert!` only.
    fn play_unchecked(&mut self, mv: Self::Move);

    /// Plays a move after checking that it is legal.
    fn play(&mut self, mv: Self::Move) -> Result<(), IllegalMove> {
        if self.is_legal(mv) {
            self.play_unchecked(mv);
            Ok(())
        } else {
            Err(IllegalMove(mv.to_string()))
        }
    }

    /// Whether `mv` is legal now (a legal move at a player node or an outcome at a chance node).
    fn is_legal(&self, mv: Self::Move) -> bool {
        match self.turn() {
            Turn::Player(_) => self.legal_moves().contains(&mv),
            Turn::Chance => {
                let mut out = Vec::new();
                self.chance_outcomes(&mut out);
                out.iter().any(|&(m, p)| m == mv && p > 0.0)
            }
            Turn::Over(_) => false,
        }
    }

    /// A hash of the position as search should see it (pieces and side to move).
    fn hash(&self) -> u64;

    /// Plies played so far in this game.
    fn ply(&self) -> u32;

    /// The outcome, once the game is over.
    fn outcome(&self) -> Option<Outcome> {
        match self.turn() {
            Turn::Over(o) => Some(o),
            _ => None,
        }
    }
}

/// One of `items` drawn by weight, for `r` drawn uniformly from [0, the weights' sum) (nature's
/// move from [`Game::chance_outcomes`] with `r` in [0, 1)); rounding that leaves `r` past the
/// end takes the last item of positive weight. `None` when no item weighs anything.
pub fn by_weight<M>(items: impl IntoIterator<Item = (M, f32)>, mut r: f32) -> Option<M> {
    let mut last = None;
    for (m, w) in items {
        if w > 0.0 {
            if r < w {
                return Some(m);
            }
            last = Some(m);
        }
        r -= w;
    }
    last
}

/// A move that is not legal in the position it was played in.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("illegal move {0}")]
pub struct IllegalMove(pub String);

/// The board a network sees a game on: `planes` input planes of `rows` × `cols`, and a policy
/// of `policy_planes` planes over the same squares (action `plane * rows * cols + square`), so
/// one fully convolutional network serves every game.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Shape {
    /// The game's name in configs, model files and records ("jungle", "flip").
    pub game: &'static str,
    pub rows: usize,
    pub cols: usize,
    pub planes: usize,
    pub policy_planes: usize,
}

impl Shape {
    pub const fn squares(&self) -> usize {
        self.rows * self.cols
    }

    /// Floats per encoded state.
    pub const fn input_size(&self) -> usize {
        self.planes * self.squares()
    }

    /// Size of the policy output.
    pub const fn actions(&self) -> usize {
        self.policy_planes * self.squares()
    }
}

/// How a game is shown to a network: a fixed-size float encoding of the state and a fixed
/// action space.
pub trait Encode: Game {
    /// The network's view: board size, input planes, policy planes.
    const SHAPE: Shape;
    /// Floats per encoded state.
    const INPUT_SIZE: usize = Self::SHAPE.input_size();
    /// Size of the policy output.
    const ACTIONS: usize = Self::SHAPE.actions();

    /// Writes the encoding of the current state into `out` (`INPUT_SIZE` floats).
    fn encode(&self, out: &mut [f32]);

    /// The policy index of a legal move (distinct for distinct legal moves of one state).
    fn action_index(&self, mv: Self::Move) -> usize;

    /// A hash of everything `encode` reads: equal hashes mean equal encodings (up to hash
    /// collisions), so network outputs can be cached by it.
    fn input_hash(&self) -> u64;
}

#[cfg(test)]
mod tests {
    use super::by_weight;

    #[test]
    fn by_weight_draws_in_proportion_and_skips_what_weighs_nothing() {
        let items = [("a", 0.25), ("b", 0.0), ("c", 0.75)];
        assert_eq!(by_weight(items, 0.0), Some("a"));
        assert_eq!(by_weight(items, 0.2499), Some("a"));
        assert_eq!(by_weight(items, 0.25), Some("c"));
        assert_eq!(by_weight(items, 0.999), Some("c"));
        assert_eq!(by_weight(items, 1.0001), Some("c"), "rounding past the end takes the last weighed item");
        assert_eq!(by_weight([("a", 0.5), ("b", 0.0)], 0.7), Some("a"));
        assert_eq!(by_weight([("a", 0.0)], 0.0), None);
        assert_eq!(by_weight(Vec::<(&str, f32)>::new(), 0.0), None);
    }
}
