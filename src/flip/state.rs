//! A flip game in progress: the board, the face-down pool, who owns which colour, and the
//! [`Game`] implementation with a chance node after every flip.

use std::ops::Deref;

use super::rules::{FlipRules, Setup};
use super::types::{Cell, FlipMove, Piece, SQUARES, Square};
use crate::animals::Side;
use crate::game::{Game, Outcome, Reason, Seat, Turn};

/// The most moves a state can have: 16 flips or outcomes, or up to 4 steps for each of 8 pieces.
pub const MAX_MOVES: usize = 48;

/// A fixed-capacity list of moves (generating moves never allocates).
#[derive(Clone, Copy, Debug)]
pub struct FlipMoves {
    moves: [FlipMove; MAX_MOVES],
    len: usize,
}

impl Default for FlipMoves {
    fn default() -> Self {
        FlipMoves { moves: [FlipMove::Pass; MAX_MOVES], len: 0 }
    }
}

impl FlipMoves {
    #[inline]
    fn push(&mut self, m: FlipMove) {
        self.moves[self.len] = m;
        self.len += 1;
    }
}

impl Deref for FlipMoves {
    type Target = [FlipMove];
    fn deref(&self) -> &[FlipMove] {
        &self.moves[..self.len]
    }
}

/// A flip-game position with everything the rules need.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FlipGame {
    pub(super) cells: [Cell; SQUARES],
    /// Face-down pieces still to appear, by [`Piece::index`].
    pub(super) hidden: [u8; 16],
    pub(super) to_move: Seat,
    /// The colour the first player owns (decided by the first flip).
    pub(super) first_colour: Option<Side>,
    /// A flip chosen and waiting for nature's draw.
    pub(super) pending: Option<Square>,
    /// Plies since the last flip or capture.
    pub(super) quiet: u16,
    pub(super) ply: u32,
    pub(super) rules: FlipRules,
    turn: Turn,
}

impl FlipGame {
    /// The start: all sixteen pieces face down (over the whole board, or each side's over its
    /// own half under `own_half`), the first player to move, no colour owned yet.
    pub fn start(rules: FlipRules) -> FlipGame {
        FlipGame::from_parts([Cell::Hidden; SQUARES], [1; 16], Seat::First, None, 0, 0, rules)
    }

    /// A position from its parts, with the turn worked out (the caller has checked that the
    /// parts are consistent; see `notation::parse_position`).
    pub(super) fn from_parts(
        cells: [Cell; SQUARES],
        hidden: [u8; 16],
        to_move: Seat,
        first_colour: Option<Side>,
        quiet: u16,
        ply: u32,
        rules: FlipRules,
    ) -> FlipGame {
        let mut g = FlipGame { cells, hidden, to_move, first_colour, pending: None, quiet, ply, rules, turn: Turn::Player(to_move) };
        g.turn = g.compute_turn();
        g
    }

    pub fn rules(&self) -> &FlipRules {
        &self.rules
    }

    pub fn cell(&self, s: Square) -> Cell {
        self.cells[s.index()]
    }

    /// Face-down pieces of each kind still to appear, by [`Piece::index`].
    pub fn hidden(&self) -> &[u8; 16] {
        &self.hidden
    }

    /// The player whose turn it is (also at a chance node: the one who flipped).
    pub fn to_move(&self) -> Seat {
        self.to_move
    }

    /// The colour `seat` plays, once the first flip has decided it.
    pub fn colour_of(&self, seat: Seat) -> Option<Side> {
        self.first_colour.map(|c| if seat == Seat::First { c } else { c.flip() })
    }

    /// The player who owns `side`'s pieces, once decided.
    pub fn owner_of(&self, side: Side) -> Option<Seat> {
        self.first_colour.map(|c| if c == side { Seat::First } else { Seat::Second })
    }

    /// The flip waiting for its outcome, if any.
    pub fn pending(&self) -> Option<Square> {
        self.pending
    }

    /// Takes back a flip still waiting for its outcome (a flip changes nothing else).
    pub(super) fn cancel_flip(&mut self) {
        if self.pending.take().is_some() {
            self.turn = self.compute_turn();
        }
    }

    /// Plies since the last flip or capture.
    pub fn quiet(&self) -> u16 {
        self.quiet
    }

    /// The colour a face-down piece on `s` can have: its half's under `own_half`, either under
    /// `mixed`.
    pub fn hidden_colour(&self, s: Square) -> Option<Side> {
        (self.rules.setup == Setup::OwnHalf).then(|| s.half())
    }

    /// Pieces of `side` on the board or face down.
    pub fn material(&self, side: Side) -> u32 {
        let up = self.cells.iter().filter(|c| matches!(c, Cell::Up(p) if p.side == side)).count() as u32;
        let down: u32 = self.hidden[side.index() * 8..side.index() * 8 + 8].iter().map(|&n| u32::from(n)).sum();
        up + down
    }

    /// The decisions of the player to move (flips, steps, captures), without the pass.
    fn decisions(&self, out: &mut FlipMoves) {
        for s in Square::all() {
            if self.cells[s.index()] == Cell::Hidden {
                out.push(FlipMove::Flip(s));
            }
        }
        let Some(mine) = self.colour_of(self.to_move) else { return };
        for from in Square::all() {
            let Cell::Up(p) = self.cells[from.index()] else { continue };
            if p.side != mine {
                continue;
            }
            for to in from.neighbours() {
                match self.cells[to.index()] {
                    Cell::Empty => out.push(FlipMove::Step { from, to, capture: false }),
                    Cell::Up(q) if q.side != mine && self.rules.can_capture(p.kind, q.kind) => out.push(FlipMove::Step { from, to, capture: true }),
                    _ => {}
                }
            }
        }
    }

    fn compute_turn(&self) -> Turn {
        if self.pending.is_some() {
            return Turn::Chance;
        }
        if let Some(first) = self.first_colour {
            for side in [first, first.flip()] {
                if self.material(side) == 0 {
                    let winner = if side == first { Seat::Second } else { Seat::First };
                    return Turn::Over(Outcome::win(winner, Reason::Annihilation));
                }
            }
        }
        if self.rules.no_progress_plies > 0 && self.quiet >= self.rules.no_progress_plies {
            return Turn::Over(Outcome::draw(Reason::NoProgress));
        }
        if self.rules.max_plies > 0 && self.ply >= u32::from(self.rules.max_plies) {
            return Turn::Over(Outcome::draw(Reason::MoveCap));
        }
        if self.rules.no_move_loses {
            let mut moves = FlipMoves::default();
            self.decisions(&mut moves);
            if moves.is_empty() {
                return Turn::Over(Outcome::win(self.to_move.other(), Reason::NoMoves));
            }
        }
        Turn::Player(self.to_move)
    }

    /// Ends a ply: the other player is to move.
    fn next_ply(&mut self) {
        self.ply += 1;
        self.to_move = self.to_move.other();
        self.turn = self.compute_turn();
    }
}

/// Mixes a value into a hash (splitmix64's finaliser).
#[inline]
fn mix(h: u64, v: u64) -> u64 {
    let mut z = h ^ v.wrapping_add(0x9E37_79B9_7F4A_7C15).wrapping_add(h << 6);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

impl Game for FlipGame {
    type Move = FlipMove;
    const MAX_MOVES: usize = MAX_MOVES;
    type MoveList = FlipMoves;

    fn turn(&self) -> Turn {
        self.turn
    }

    fn legal_moves(&self) -> FlipMoves {
        let mut out = FlipMoves::default();
        if let Turn::Player(_) = self.turn {
            self.decisions(&mut out);
            if out.is_empty() {
                // Only reached with `no_move_loses` off: the player passes.
                out.push(FlipMove::Pass);
            }
        }
        out
    }

    /// The pieces the pending flip can reveal, each with its share of the face-down pieces it
    /// could be (under `own_half`, those of the square's half).
    fn chance_outcomes(&self, out: &mut Vec<(FlipMove, f32)>) {
        out.clear();
        let Some(s) = self.pending else { return };
        let colour = self.hidden_colour(s);
        let candidates = || (0..16).map(Piece::from_index).filter(move |p| colour.is_none_or(|c| p.side == c));
        let total: u32 = candidates().map(|p| u32::from(self.hidden[p.index()])).sum();
        if total == 0 {
            return;
        }
        for p in candidates() {
            let n = self.hidden[p.index()];
            if n > 0 {
                out.push((FlipMove::Reveal(s, p), f32::from(n) / total as f32));
            }
        }
    }

    fn play_unchecked(&mut self, mv: FlipMove) {
        debug_assert!(self.is_legal(mv), "illegal flip-game move {mv}");
        match mv {
            FlipMove::Flip(s) => {
                self.pending = Some(s);
                self.turn = Turn::Chance;
            }
            FlipMove::Reveal(s, p) => {
                self.cells[s.index()] = Cell::Up(p);
                self.hidden[p.index()] = self.hidden[p.index()].saturating_sub(1);
                if self.first_colour.is_none() {
                    self.first_colour = Some(if self.to_move == Seat::First { p.side } else { p.side.flip() });
                }
                self.pending = None;
                self.quiet = 0;
                self.next_ply();
            }
            FlipMove::Step { from, to, capture } => {
                self.cells[to.index()] = self.cells[from.index()];
                self.cells[from.index()] = Cell::Empty;
                self.quiet = if capture { 0 } else { self.quiet.saturating_add(1) };
                self.next_ply();
            }
            FlipMove::Pass => {
                self.quiet = self.quiet.saturating_add(1);
                self.next_ply();
            }
        }
    }

    fn hash(&self) -> u64 {
        let mut h = 0x5EED_F11B_u64;
        for (i, c) in self.cells.iter().enumerate() {
            let code = match c {
                Cell::Empty => 0,
                Cell::Hidden => 1,
                Cell::Up(p) => 2 + p.index() as u64,
            };
            h = mix(h, (i as u64) << 8 | code);
        }
        for (i, &n) in self.hidden.iter().enumerate() {
            h = mix(h, 0x1000 | (i as u64) << 4 | u64::from(n));
        }
        let colour = self.first_colour.map_or(0, |c| 1 + c.index() as u64);
        let pending = self.pending.map_or(0, |s| 1 + s.index() as u64);
        mix(h, self.to_move.index() as u64 | colour << 1 | pending << 3)
    }

    fn ply(&self) -> u32 {
        self.ply
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::animals::Kind;

    fn reveal(g: &mut FlipGame, sq: &str, letter: char) {
        let s = Square::parse(sq).unwrap();
        g.play(FlipMove::Flip(s)).unwrap();
        assert_eq!(g.turn(), Turn::Chance);
        g.play(FlipMove::Reveal(s, Piece::from_letter(letter).unwrap())).unwrap();
    }

    #[test]
    fn the_first_flip_decides_colours() {
        let mut g = FlipGame::start(FlipRules::default());
        assert_eq!(g.legal_moves().len(), 16, "sixteen flips");
        let mut out = Vec::new();
        g.play(FlipMove::Flip(Square::parse("b2").unwrap())).unwrap();
        g.chance_outcomes(&mut out);
        assert_eq!(out.len(), 16);
        assert!(out.iter().all(|&(_, p)| (p - 1.0 / 16.0).abs() < 1e-6));
        // The first player turns a Blue Cat: they play Blue.
        g.play(FlipMove::Reveal(Square::parse("b2").unwrap(), Piece::new(Side::Blue, Kind::Cat))).unwrap();
        assert_eq!((g.colour_of(Seat::First), g.colour_of(Seat::Second)), (Some(Side::Blue), Some(Side::Red)));
        assert_eq!(g.to_move(), Seat::Second);
        // Fifteen kinds are left; a Blue Cat can no longer appear.
        g.play(FlipMove::Flip(Square::parse("c2").unwrap())).unwrap();
        g.chance_outcomes(&mut out);
        assert_eq!(out.len(), 15);
        assert!(!out.iter().any(|(m, _)| matches!(m, FlipMove::Reveal(_, p) if p.letter() == 'c')));
    }

    #[test]
    fn face_down_pieces_are_immune_and_ranks_decide_captures() {
        let mut g = FlipGame::start(FlipRules::default());
        reveal(&mut g, "a1", 'R'); // first player: Red
        reveal(&mut g, "a2", 'e'); // second player: Blue, an Elephant above the Rat
        // Red: flips of the 14 face-down squares and Rat takes Elephant (a1xa2); b1 is face
        // down, so no step there.
        let moves: Vec<String> = g.legal_moves().iter().map(|m| m.to_string()).collect();
        assert_eq!(moves.len(), 15, "{moves:?}");
        assert!(moves.contains(&"a1xa2".to_string()));
        reveal(&mut g, "b2", 'L');
        // Blue's Elephant may not take the Rat, and takes the Lion.
        let moves: Vec<String> = g.legal_moves().iter().map(|m| m.to_string()).collect();
        assert!(!moves.contains(&"a2xa1".to_string()) && moves.contains(&"a2xb2".to_string()), "{moves:?}");
    }

    #[test]
    fn own_half_flips_reveal_the_half_s_colour() {
        let mut g = FlipGame::start(FlipRules { setup: Setup::OwnHalf, ..FlipRules::default() });
        let mut out = Vec::new();
        g.play(FlipMove::Flip(Square::parse("c4").unwrap())).unwrap();
        g.chance_outcomes(&mut out);
        assert_eq!(out.len(), 8);
        assert!(out.iter().all(|(m, _)| matches!(m, FlipMove::Reveal(_, p) if p.side == Side::Blue)));
    }
}
