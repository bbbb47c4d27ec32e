//! A slow, obviously-correct Jungle referee written from docs/rules.md for tests only.
//!
//! It shares nothing with the engine but the public `Position::piece_at` accessor: terrain is
//! spelled out by square names, moves are found by walking a grid, and repetitions are counted
//! by comparing board strings. The anti-chase rules 7-3 and 17-5 (docs/rules.md "The anti-chase
//! rules") are read off a plain log of the moves played since the referee was created.

use junglezero::jungle::Repetition;
use junglezero::jungle::{Position, Rules, Side, Square};

/// (side, letter) on each square, `grid[rank][file]` with rank 0 = rank 1.
pub type Grid = [[Option<(Side, char)>; 7]; 9];

pub fn grid(pos: &Position) -> Grid {
    let mut g: Grid = [[None; 7]; 9];
    for s in Square::all() {
        if let Some(p) = pos.piece_at(s) {
            g[s.rank()][s.file()] = Some((p.side(), p.kind().letter()));
        }
    }
    g
}

fn named(list: &[&str], file: i32, rank: i32) -> bool {
    let name = format!("{}{}", (b'a' + file as u8) as char, rank + 1);
    list.contains(&name.as_str())
}

pub fn water(f: i32, r: i32) -> bool {
    named(&["b4", "c4", "b5", "c5", "b6", "c6", "e4", "f4", "e5", "f5", "e6", "f6"], f, r)
}

fn den_of(side: Side) -> (i32, i32) {
    match side {
        Side::Red => (3, 0),
        Side::Blue => (3, 8),
    }
}

fn trap_of(side: Side, f: i32, r: i32) -> bool {
    match side {
        Side::Red => named(&["c1", "e1", "d2"], f, r),
        Side::Blue => named(&["c9", "e9", "d8"], f, r),
    }
}

/// Any of the six trap squares, the own and the enemy's (what "entering a trap" means for the
/// anti-chase rules).
pub fn any_trap(f: i32, r: i32) -> bool {
    trap_of(Side::Red, f, r) || trap_of(Side::Blue, f, r)
}

fn rank_of(letter: char, rules: &Rules) -> u8 {
    match letter {
        'R' => 1,
        'C' => 2,
        'D' => {
            if rules.dog_over_wolf {
                4
            } else {
                3
            }
        }
        'W' => {
            if rules.dog_over_wolf {
                3
            } else {
                4
            }
        }
        'P' => 5,
        'T' => 6,
        'L' => 7,
        'E' => 8,
        _ => panic!("letter {letter}"),
    }
}

fn captures(rules: &Rules, att: (Side, char), af: (i32, i32), def: (Side, char), df: (i32, i32)) -> bool {
    let aw = water(af.0, af.1);
    let dw = water(df.0, df.1);
    if aw != dw {
        return rules.rat_captures_across_shore && att.1 == 'R' && def.1 == 'R';
    }
    if trap_of(att.0, df.0, df.1) {
        if att.1 == 'E' && def.1 == 'R' {
            return rules.elephant_takes_trapped_rat || rules.elephant_takes_rat;
        }
        return true;
    }
    if att.1 == 'E' && def.1 == 'R' {
        return rules.elephant_takes_rat;
    }
    if att.1 == 'R' && def.1 == 'E' {
        return true;
    }
    rank_of(att.1, rules) >= rank_of(def.1, rules)
}

/// A position key for repetition: the board and the side to move.
pub fn key(g: &Grid, side: Side) -> String {
    let mut s = String::new();
    for row in g {
        for c in row {
            s.push(match c {
                None => '.',
                Some((Side::Red, l)) => *l,
                Some((Side::Blue, l)) => l.to_ascii_lowercase(),
            });
        }
    }
    s.push(if side == Side::Red { 'w' } else { 'b' });
    s
}

/// Moves ignoring repetition, as ((from file, rank), (to file, rank)).
pub fn pseudo_moves(g: &Grid, side: Side, rules: &Rules) -> Vec<((i32, i32), (i32, i32))> {
    let mut out = Vec::new();
    for r in 0..9i32 {
        for f in 0..7i32 {
            let Some(piece) = g[r as usize][f as usize] else { continue };
            if piece.0 != side {
                continue;
            }
            for (df, dr) in [(0, 1), (1, 0), (0, -1), (-1, 0)] {
                let (mut tf, mut tr) = (f + df, r + dr);
                if !(0..7).contains(&tf) || !(0..9).contains(&tr) {
                    continue;
                }
                if water(tf, tr) && piece.1 != 'R' {
                    if piece.1 != 'L' && piece.1 != 'T' {
                        continue;
                    }
                    let mut blocked = false;
                    while water(tf, tr) {
                        if matches!(g[tr as usize][tf as usize], Some((_, 'R'))) {
                            blocked = true;
                        }
                        tf += df;
                        tr += dr;
                    }
                    if blocked {
                        continue;
                    }
                }
                if (tf, tr) == den_of(side) {
                    continue;
                }
                match g[tr as usize][tf as usize] {
                    None => out.push(((f, r), (tf, tr))),
                    Some(t) if t.0 == side => {}
                    Some(t) => {
                        if captures(rules, piece, (f, r), t, (tf, tr)) {
                            out.push(((f, r), (tf, tr)));
                        }
                    }
                }
            }
        }
    }
    out
}

pub fn apply(g: &Grid, m: ((i32, i32), (i32, i32))) -> (Grid, bool) {
    let mut n = *g;
    let ((ff, fr), (tf, tr)) = m;
    let capture = n[tr as usize][tf as usize].is_some();
    n[tr as usize][tf as usize] = n[fr as usize][ff as usize].take();
    (n, capture)
}

pub fn text(m: ((i32, i32), (i32, i32))) -> String {
    let ((ff, fr), (tf, tr)) = m;
    format!("{}{}{}{}", (b'a' + ff as u8) as char, fr + 1, (b'a' + tf as u8) as char, tr + 1)
}

/// One move of the referee's log: the side that moved, the piece's upper-case letter, the
/// square it left and the square it entered, as (file, rank) with rank 0 = rank 1.
pub type Logged = (Side, char, (i32, i32), (i32, i32));

/// The slow referee's view of a game: the grid, side to move, counters, the keys of the
/// positions since the last capture (current one included) and every move since creation.
#[derive(Clone)]
pub struct Referee {
    pub grid: Grid,
    pub side: Side,
    pub halfmove: u32,
    pub ply: u32,
    pub window: Vec<String>,
    pub rules: Rules,
    /// Every move played since the referee was created, oldest first (captures included: they
    /// reset nothing for the anti-chase rules).
    pub log: Vec<Logged>,
}

/// Result as (winner side or None for a draw, reason name).
pub type Verdict = (Option<Side>, &'static str);

impl Referee {
    pub fn new(pos: &Position, rules: Rules) -> Referee {
        let grid = grid(pos);
        let side = pos.side_to_move();
        Referee { grid, side, halfmove: pos.halfmove() as u32, ply: pos.ply(), window: vec![key(&grid, side)], rules, log: Vec::new() }
    }

    /// Legal moves as text, sorted.
    pub fn legal(&self) -> Vec<String> {
        let mut v: Vec<String> = pseudo_moves(&self.grid, self.side, &self.rules)
            .into_iter()
            .filter(|&m| {
                let (n, capture) = apply(&self.grid, m);
                if capture || self.rules.repetition != Repetition::Forbidden {
                    return true;
                }
                let k = key(&n, self.side.flip());
                self.window.iter().filter(|w| **w == k).count() < 2
            })
            .filter(|&m| !self.rules.anti_chase || self.anti_chase_rules(m).is_empty())
            .map(text)
            .collect();
        v.sort();
        v
    }

    /// The moves of the side to move, oldest first (its own moves only).
    fn own_moves(&self) -> Vec<Logged> {
        self.log.iter().filter(|e| e.0 == self.side).copied().collect()
    }

    /// Whether the piece standing on `at` (the side to move's) is being chased: the opponent's
    /// last move took a piece to a square from which that piece could capture the one on `at`
    /// with a step or a jump, by the capture rules alone (repetition and the anti-chase rules
    /// play no part). Nothing is known before the referee's creation.
    pub fn chased(&self, at: (i32, i32)) -> bool {
        let Some(&(side, _, _, to)) = self.log.last() else { return false };
        if side == self.side {
            return false;
        }
        pseudo_moves(&self.grid, side, &self.rules).iter().any(|&(f, t)| f == to && t == at)
    }

    /// Rule 7-3 for the pseudo-move `m` of the side to move: the piece already entered the
    /// target three times in the side's previous six moves, none of those six nor the candidate
    /// enters a trap, and (when `honour_chase`) the piece is not being chased.
    fn seven_three(&self, m: ((i32, i32), (i32, i32)), honour_chase: bool) -> bool {
        let (from, to) = m;
        let Some((_, letter)) = self.grid[from.1 as usize][from.0 as usize] else { return false };
        let own = self.own_moves();
        let start = own.len().saturating_sub(6);
        let previous6 = &own[start..];
        let entries = previous6.iter().filter(|e| e.1 == letter && e.3 == to).count();
        if entries < 3 {
            return false;
        }
        if any_trap(to.0, to.1) || previous6.iter().any(|&(_, _, _, (f, r))| any_trap(f, r)) {
            return false;
        }
        if honour_chase && self.chased(from) {
            return false;
        }
        true
    }

    /// Rule 17-5 for the pseudo-move `m` of the side to move: the side's previous 17 moves all
    /// moved this piece, the squares it stood on during them (the first one's start and every
    /// destination) are at most five, none of the 17 entered a trap, and `m` goes to one of them.
    fn seventeen_five(&self, m: ((i32, i32), (i32, i32))) -> bool {
        let (from, to) = m;
        let Some((_, letter)) = self.grid[from.1 as usize][from.0 as usize] else { return false };
        let own = self.own_moves();
        if own.len() < 17 {
            return false;
        }
        let last17 = &own[own.len() - 17..];
        if last17.iter().any(|e| e.1 != letter) {
            return false;
        }
        if last17.iter().any(|&(_, _, _, (f, r))| any_trap(f, r)) {
            return false;
        }
        let mut squares: Vec<(i32, i32)> = vec![last17[0].2];
        for e in last17 {
            if !squares.contains(&e.3) {
                squares.push(e.3);
            }
        }
        squares.len() <= 5 && squares.contains(&to)
    }

    /// The anti-chase rules ("7-3", "17-5") that forbid the pseudo-move `m` of the side to move,
    /// whether or not the switch is on.
    pub fn anti_chase_rules(&self, m: ((i32, i32), (i32, i32))) -> Vec<&'static str> {
        let mut out = Vec::new();
        if self.seven_three(m, true) {
            out.push("7-3");
        }
        if self.seventeen_five(m) {
            out.push("17-5");
        }
        out
    }

    /// The pseudo-move of the side to move written `mv`, if there is one.
    pub fn find(&self, mv: &str) -> Option<((i32, i32), (i32, i32))> {
        pseudo_moves(&self.grid, self.side, &self.rules).into_iter().find(|&m| text(m) == mv)
    }

    /// The anti-chase rules that forbid `mv` (empty when the switch is off or `mv` is no move).
    pub fn forbidden_by(&self, mv: &str) -> Vec<&'static str> {
        if !self.rules.anti_chase {
            return Vec::new();
        }
        self.find(mv).map(|m| self.anti_chase_rules(m)).unwrap_or_default()
    }

    /// For every pseudo-move of the side to move (repetition not applied): its text, the
    /// anti-chase rules that forbid it, and whether only the chase exemption saves it from 7-3.
    pub fn anti_chase_report(&self) -> Vec<(String, Vec<&'static str>, bool)> {
        pseudo_moves(&self.grid, self.side, &self.rules)
            .into_iter()
            .map(|m| (text(m), self.anti_chase_rules(m), self.seven_three(m, false) && !self.seven_three(m, true)))
            .collect()
    }

    /// perft with the referee's history: legal move sequences of `depth` plies. A move that ends
    /// the game counts at the last ply and has no successors otherwise; a finished root counts 0.
    pub fn perft(&self, depth: u32) -> u64 {
        if depth == 0 {
            return 1;
        }
        if self.verdict().is_some() {
            return 0;
        }
        let moves = self.legal();
        if depth == 1 {
            return moves.len() as u64;
        }
        moves
            .iter()
            .map(|m| {
                let mut child = self.clone();
                child.play(m);
                child.perft(depth - 1)
            })
            .sum()
    }

    pub fn play(&mut self, mv: &str) {
        let m = pseudo_moves(&self.grid, self.side, &self.rules).into_iter().find(|&m| text(m) == mv).unwrap_or_else(|| panic!("referee: {mv} is not a move"));
        let ((ff, fr), _) = m;
        let letter = self.grid[fr as usize][ff as usize].expect("a piece on the from square").1;
        self.log.push((self.side, letter, m.0, m.1));
        let (n, capture) = apply(&self.grid, m);
        self.grid = n;
        self.side = self.side.flip();
        self.ply += 1;
        if capture {
            self.halfmove = 0;
            self.window.clear();
        } else {
            self.halfmove += 1;
        }
        self.window.push(key(&self.grid, self.side));
    }

    /// The outcome if the game is over.
    pub fn verdict(&self) -> Option<Verdict> {
        for side in [Side::Red, Side::Blue] {
            let (f, r) = den_of(side.flip());
            if matches!(self.grid[r as usize][f as usize], Some((s, _)) if s == side) {
                return Some((Some(side), "den"));
            }
        }
        for side in [self.side, self.side.flip()] {
            if !self.grid.iter().flatten().any(|c| matches!(c, Some((s, _)) if *s == side)) {
                return Some((Some(side.flip()), "annihilation"));
            }
        }
        let current = key(&self.grid, self.side);
        if self.rules.repetition == Repetition::Draw && self.window.iter().filter(|w| **w == current).count() >= 3 {
            return Some((None, "repetition"));
        }
        if self.rules.no_capture_plies > 0 && self.halfmove >= self.rules.no_capture_plies as u32 {
            return Some((None, "no-capture-limit"));
        }
        if self.rules.max_plies > 0 && self.ply >= self.rules.max_plies as u32 {
            return Some((None, "move-cap"));
        }
        if self.legal().is_empty() {
            return Some((Some(self.side.flip()), "no-moves"));
        }
        None
    }
}
