//! The flip game's text forms. A position is
//!
//! ```text
//! BOARD MOVER COLOUR HIDDEN QUIET PLY
//! ????/????/????/???? 1 - RCDWPTLErcdwptle 0 0
//! ```
//!
//! `BOARD` lists ranks 4 to 1 separated by `/`, files a to d: `?` a face-down piece, a letter a
//! face-up piece (upper case Red, lower case Blue, the big game's letters), a digit a run of
//! empty squares. `MOVER` is `1` or `2` (the first or second player), `COLOUR` the colour the
//! first player owns (`r`, `b`, or `-` before the first flip), `HIDDEN` the face-down pieces
//! still to appear (letters, or `-`), `QUIET` the plies since the last flip or capture and
//! `PLY` the plies played. Moves: `f:b3` (a flip), `f:b3=L` (a flip and what it revealed),
//! `b3b4`, `b3xb4` (a capture), `pass`.

use super::rules::{FlipRules, Setup};
use super::state::FlipGame;
use super::types::{Cell, FILES, FlipMove, Piece, RANKS, SQUARES, Square};
use crate::animals::Side;
use crate::game::{Game, Seat, Turn};

/// A position string that cannot be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("bad flip position '{text}': {why}")]
pub struct PositionError {
    pub text: String,
    pub why: String,
}

/// A move text that cannot be read or played.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum FlipMoveError {
    #[error("'{0}' is not a flip-game move (f:b3, f:b3=L, b3b4, b3xb4 or pass)")]
    Syntax(String),
    #[error("{mv} is illegal: {why}")]
    Illegal { mv: String, why: String },
    #[error("the game is over")]
    GameOver,
}

/// The position as text (see the module documentation). A pending flip is not part of it.
pub fn position(g: &FlipGame) -> String {
    let mut board = String::new();
    for r in (0..RANKS).rev() {
        let mut empty = 0;
        for f in 0..FILES {
            match g.cell(Square::new(f, r)) {
                Cell::Empty => empty += 1,
                c => {
                    if empty > 0 {
                        board.push(char::from(b'0' + empty));
                        empty = 0;
                    }
                    board.push(match c {
                        Cell::Hidden => '?',
                        Cell::Up(p) => p.letter(),
                        Cell::Empty => unreachable!("handled above"),
                    });
                }
            }
        }
        if empty > 0 {
            board.push(char::from(b'0' + empty));
        }
        if r > 0 {
            board.push('/');
        }
    }
    let mover = if g.to_move() == Seat::First { '1' } else { '2' };
    let colour = match g.colour_of(Seat::First) {
        None => '-',
        Some(Side::Red) => 'r',
        Some(Side::Blue) => 'b',
    };
    let mut hidden = String::new();
    for (i, &n) in g.hidden().iter().enumerate() {
        for _ in 0..n {
            hidden.push(Piece::from_index(i).letter());
        }
    }
    if hidden.is_empty() {
        hidden.push('-');
    }
    format!("{board} {mover} {colour} {hidden} {} {}", g.quiet(), g.ply())
}

/// Reads a position under `rules`, checking that it could arise: each animal of each colour at
/// most once, as many face-down squares as face-down pieces (under `own_half`, in each half as
/// many as that colour has face down), and no face-up piece before colours are decided.
pub fn parse_position(text: &str, rules: FlipRules) -> Result<FlipGame, PositionError> {
    let err = |why: String| PositionError { text: crate::check::clip(text), why };
    let fields: Vec<&str> = text.split_whitespace().collect();
    if fields.len() != 6 {
        return Err(err(format!("expected 6 fields (board, mover, colour, hidden, quiet, ply), found {}", fields.len())));
    }
    let rows: Vec<&str> = fields[0].split('/').collect();
    if rows.len() != RANKS {
        return Err(err(format!("the board needs {RANKS} ranks separated by '/', found {}", rows.len())));
    }
    let mut cells = [Cell::Empty; SQUARES];
    let mut seen = [0u8; 16];
    for (i, row) in rows.iter().enumerate() {
        let rank = RANKS - 1 - i;
        let mut file = 0;
        for c in row.chars() {
            if file >= FILES {
                return Err(err(format!("rank {} has more than {FILES} squares", rank + 1)));
            }
            match c {
                '1'..='4' => {
                    let n = c as usize - '0' as usize;
                    if file + n > FILES {
                        return Err(err(format!("rank {} has more than {FILES} squares", rank + 1)));
                    }
                    file += n;
                }
                '?' => {
                    cells[Square::new(file, rank).index()] = Cell::Hidden;
                    file += 1;
                }
                _ => {
                    let p = Piece::from_letter(c).ok_or_else(|| err(format!("'{c}' is not a piece, '?' or a digit 1-4")))?;
                    seen[p.index()] += 1;
                    cells[Square::new(file, rank).index()] = Cell::Up(p);
                    file += 1;
                }
            }
        }
        if file != FILES {
            return Err(err(format!("rank {} has {file} squares, not {FILES}", rank + 1)));
        }
    }
    let to_move = match fields[1] {
        "1" => Seat::First,
        "2" => Seat::Second,
        other => return Err(err(format!("the mover is '1' or '2', not '{other}'"))),
    };
    let first_colour = match fields[2] {
        "-" => None,
        "r" => Some(Side::Red),
        "b" => Some(Side::Blue),
        other => return Err(err(format!("the colour is 'r', 'b' or '-', not '{other}'"))),
    };
    let mut hidden = [0u8; 16];
    if fields[3] != "-" {
        for c in fields[3].chars() {
            let p = Piece::from_letter(c).ok_or_else(|| err(format!("'{c}' in the face-down pieces is not a piece")))?;
            hidden[p.index()] += 1;
            seen[p.index()] += 1;
        }
    }
    if let Some(i) = seen.iter().position(|&n| n > 1) {
        let p = Piece::from_index(i);
        return Err(err(format!("the {} {} appears more than once", p.side, p.kind)));
    }
    let quiet: u16 = fields[4].parse().map_err(|_| err(format!("quiet plies '{}' is not a whole number", fields[4])))?;
    let ply: u32 = fields[5].parse().map_err(|_| err(format!("ply '{}' is not a whole number", fields[5])))?;
    let down = |half: Option<Side>| Square::all().filter(|s| cells[s.index()] == Cell::Hidden && half.is_none_or(|h| s.half() == h)).count();
    let pool = |side: Option<Side>| (0..16).filter(|&i| side.is_none_or(|s| Piece::from_index(i).side == s)).map(|i| usize::from(hidden[i])).sum::<usize>();
    match rules.setup {
        Setup::Mixed => {
            if down(None) != pool(None) {
                return Err(err(format!("{} face-down squares but {} face-down pieces", down(None), pool(None))));
            }
        }
        Setup::OwnHalf => {
            for side in [Side::Red, Side::Blue] {
                if down(Some(side)) != pool(Some(side)) {
                    return Err(err(format!("{} face-down squares in {side}'s half but {} face-down {side} pieces", down(Some(side)), pool(Some(side)))));
                }
            }
        }
    }
    if first_colour.is_none() && cells.iter().any(|c| matches!(c, Cell::Up(_))) {
        return Err(err("face-up pieces before the first flip has decided the colours".into()));
    }
    Ok(FlipGame::from_parts(cells, hidden, to_move, first_colour, quiet, ply, rules))
}

/// Reads a move in `g`'s position: `f:b3` at a decision, `f:b3=L` at a decision (a flip with its
/// outcome) or after a flip, `b3b4` or `b3xb4`, `pass`. Only the form is checked here.
pub fn parse_move(g: &FlipGame, text: &str) -> Result<FlipMove, FlipMoveError> {
    let t = text.trim();
    let syntax = || FlipMoveError::Syntax(t.to_string());
    if !t.is_ascii() {
        return Err(syntax());
    }
    if t == "pass" {
        return Ok(FlipMove::Pass);
    }
    if let Some(rest) = t.strip_prefix("f:") {
        return match rest.split_once('=') {
            None => Ok(FlipMove::Flip(Square::parse(rest).ok_or_else(syntax)?)),
            Some((sq, piece)) => {
                let s = Square::parse(sq).ok_or_else(syntax)?;
                let mut chars = piece.chars();
                let p = chars.next().and_then(Piece::from_letter).filter(|_| chars.next().is_none()).ok_or_else(syntax)?;
                Ok(FlipMove::Reveal(s, p))
            }
        };
    }
    let (from, to, marked) = match t.len() {
        4 => (&t[..2], &t[2..], false),
        5 if t.as_bytes()[2] == b'x' => (&t[..2], &t[3..], true),
        _ => return Err(syntax()),
    };
    let (from, to) = (Square::parse(from).ok_or_else(syntax)?, Square::parse(to).ok_or_else(syntax)?);
    let capture = matches!(g.cell(to), Cell::Up(_));
    if marked && !capture {
        return Err(FlipMoveError::Illegal { mv: t.to_string(), why: format!("{to} holds no face-up piece to capture") });
    }
    Ok(FlipMove::Step { from, to, capture })
}

/// Plays a move given as text after checking it (see [`parse_move`]); `f:b3=L` at a decision
/// plays the flip and its outcome. Returns the moves played.
pub fn play_text(g: &mut FlipGame, text: &str) -> Result<Vec<FlipMove>, FlipMoveError> {
    let mv = parse_move(g, text)?;
    let illegal = |why: &str| FlipMoveError::Illegal { mv: text.trim().to_string(), why: why.to_string() };
    match (g.turn(), mv) {
        (Turn::Over(_), _) => Err(FlipMoveError::GameOver),
        (Turn::Player(_), FlipMove::Reveal(s, p)) => {
            g.play(FlipMove::Flip(s)).map_err(|_| illegal(&format!("{s} holds no face-down piece")))?;
            if g.play(FlipMove::Reveal(s, p)).is_err() {
                g.cancel_flip();
                return Err(illegal(&format!("no face-down {} {} can be on {s}", p.side, p.kind)));
            }
            Ok(vec![FlipMove::Flip(s), mv])
        }
        (Turn::Chance, FlipMove::Reveal(..)) | (Turn::Player(_), _) => {
            g.play(mv).map_err(|_| illegal(&why_illegal(g, mv)))?;
            Ok(vec![mv])
        }
        (Turn::Chance, _) => Err(illegal("a flip is waiting for what it reveals")),
    }
}

/// Why a move the player to move cannot make is illegal, in words.
fn why_illegal(g: &FlipGame, mv: FlipMove) -> String {
    match mv {
        FlipMove::Flip(s) => format!("{s} holds no face-down piece"),
        FlipMove::Reveal(s, _) => format!("no flip on {s} is waiting"),
        FlipMove::Pass => "passing is allowed only without any other move".into(),
        FlipMove::Step { from, to, .. } => match (g.cell(from), g.colour_of(g.to_move())) {
            (Cell::Up(p), Some(c)) if p.side == c => {
                if !from.neighbours().any(|n| n == to) {
                    format!("{to} is not next to {from}")
                } else {
                    match g.cell(to) {
                        Cell::Hidden => format!("{to} holds a face-down piece, which cannot be captured"),
                        Cell::Up(q) if q.side == c => format!("{to} holds your own {}", q.kind),
                        Cell::Up(q) => format!("a {} cannot capture a {}", p.kind, q.kind),
                        Cell::Empty => "it is not legal here".into(),
                    }
                }
            }
            (Cell::Up(_), _) => format!("the piece on {from} is not yours"),
            (Cell::Hidden, _) => format!("the piece on {from} is face down"),
            (Cell::Empty, _) => format!("{from} is empty"),
        },
    }
}

/// What the letters and marks of [`diagram`] mean.
pub fn legend() -> String {
    let animals: Vec<String> = crate::animals::Kind::ALL.iter().map(|k| format!("{} {}", k.letter(), k.name())).collect();
    format!("Red is upper case, Blue lower case: {}; ? face down, . empty", animals.join(", "))
}

/// The board for a terminal: ranks 4 down to 1, `?` for a face-down piece, `.` for an empty
/// square, then who owns which colour, whose turn it is and the face-down pool.
pub fn diagram(g: &FlipGame) -> String {
    let mut out = String::new();
    for r in (0..RANKS).rev() {
        out.push_str(&format!("  {} ", r + 1));
        for f in 0..FILES {
            out.push(' ');
            out.push(match g.cell(Square::new(f, r)) {
                Cell::Empty => '.',
                Cell::Hidden => '?',
                Cell::Up(p) => p.letter(),
            });
        }
        out.push('\n');
    }
    out.push_str("     a b c d\n");
    let seat = |s: Seat| if s == Seat::First { "first" } else { "second" };
    match g.colour_of(Seat::First) {
        Some(c) => out.push_str(&format!("  the first player has {c} (upper case is Red), the second {}\n", c.flip())),
        None => out.push_str("  colours undecided: the first flip gives its piece's colour to the player who flips\n"),
    }
    let mut pool = String::new();
    for (i, &n) in g.hidden().iter().enumerate() {
        for _ in 0..n {
            pool.push(Piece::from_index(i).letter());
        }
    }
    out.push_str(&format!(
        "  face down: {}; {} player to move; {} plies without a flip or capture\n",
        if pool.is_empty() { "none".to_string() } else { pool },
        seat(g.to_move()),
        g.quiet()
    ));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    const START: &str = "????/????/????/???? 1 - RCDWPTLErcdwptle 0 0";

    #[test]
    fn positions_round_trip() {
        let g = FlipGame::start(FlipRules::default());
        assert_eq!(position(&g), START);
        assert_eq!(parse_position(START, FlipRules::default()).unwrap(), g);
        for text in ["R1?e/4/4/l3 2 r C 3 17", "4/4/4/R2e 1 b - 0 30"] {
            let g = parse_position(text, FlipRules::default()).unwrap();
            assert_eq!(position(&g), text);
        }
    }

    #[test]
    fn bad_positions_name_the_problem() {
        for (bad, want) in [
            ("????/????/????/??? 1 - RCDWPTLErcdwptle 0 0", "rank 1 has 3 squares"),
            ("????/????/????/???? 1 - RCDWPTLErcdwptl 0 0", "16 face-down squares but 15"),
            ("R???/????/????/???? 1 r RCDWPTLErcdwptl 0 0", "Red Rat appears more than once"),
            ("R???/????/????/???? 1 - CDWPTLErcdwptle 0 0", "before the first flip"),
            ("????/????/????/???? 3 - RCDWPTLErcdwptle 0 0", "mover"),
            ("????/????/????/????", "expected 6 fields"),
            ("????/????/????/???x 1 - RCDWPTLErcdwptle 0 0", "'x' is not a piece"),
        ] {
            let e = parse_position(bad, FlipRules::default()).unwrap_err().to_string();
            assert!(e.contains(want), "{bad}: {e}");
        }
        let own = FlipRules { setup: Setup::OwnHalf, ..FlipRules::default() };
        assert!(parse_position(START, own).is_ok(), "eight face-down squares in each half, eight pieces of each colour");
        let e = parse_position("????/????/????/???? 1 - RCDWPTLErcdwptl 0 0", own).unwrap_err().to_string();
        assert!(e.contains("in Blue's half but 7 face-down Blue pieces"), "{e}");
    }

    #[test]
    fn moves_are_played_from_text_and_refused_with_a_reason() {
        let mut g = FlipGame::start(FlipRules::default());
        assert_eq!(play_text(&mut g, "f:a1=R").unwrap().len(), 2);
        assert_eq!(play_text(&mut g, "f:a2=e").unwrap().len(), 2);
        let before = g.clone();
        for (bad, want) in [
            ("a2a3", "not yours"),
            ("b1b2", "face down"),
            ("a1b1", "b1 holds a face-down piece"),
            ("a1b2", "b2 is not next to a1"),
            ("f:a1", "a1 holds no face-down piece"),
            ("f:b1=R", "no face-down Red Rat can be on b1"),
            ("a1a9", "not a flip-game move"),
            ("zz", "not a flip-game move"),
        ] {
            let e = play_text(&mut g, bad).unwrap_err().to_string();
            assert!(e.contains(want), "{bad}: {e}");
            assert_eq!(g, before, "{bad} left the game as it was");
        }
        assert_eq!(play_text(&mut g, "a1xa2").unwrap()[0].to_string(), "a1xa2");
        assert_eq!(g.material(Side::Blue), 7);
    }
}
