//! Match adjudication on the players' own evaluations, as tournament managers offer it: a game
//! is drawn once both sides have reported scores near 0 for long enough, and decided once both
//! agree for long enough that one side is winning. Off unless configured; an adjudicated game
//! ends with [`Reason::Adjudication`].

use serde::{Deserialize, Serialize};

use crate::game::{Outcome, Reason, Seat};

/// The adjudication settings (`[arena]` keys `adjudicate_*`, where their ranges are declared).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Adjudication {
    /// Draw adjudication applies from this ply on (0: never).
    pub draw_from_ply: u32,
    /// ...once this many consecutive plies' scores (each the mover's) were all within
    /// `draw_score` of 0.
    pub draw_plies: u32,
    pub draw_score: i32,
    /// Win adjudication: this many consecutive plies whose movers all agree that the same side
    /// leads by at least `win_score` (0: never).
    pub win_plies: u32,
    pub win_score: i32,
}

impl Adjudication {
    pub fn is_off(&self) -> bool {
        self.draw_from_ply == 0 && self.win_plies == 0
    }
}

/// Follows one game's scores and says when the settings end it.
#[derive(Clone, Debug)]
pub struct Adjudicator {
    settings: Adjudication,
    /// Consecutive plies (so far) with a score within the draw band.
    quiet: u32,
    /// Consecutive plies agreeing that `leader` leads by `win_score` or more.
    agree: u32,
    leader: Option<Seat>,
}

impl Adjudicator {
    pub fn new(settings: Adjudication) -> Adjudicator {
        Adjudicator { settings, quiet: 0, agree: 0, leader: None }
    }

    /// Notes the score (centi-units, for `mover`) that the player reported with the move it
    /// just played, `ply` being the number of plies played including it. `None` (no score
    /// reported) breaks both runs. Returns the outcome when the game is to be adjudicated.
    pub fn note(&mut self, ply: u32, mover: Seat, score: Option<i32>) -> Option<Outcome> {
        let s = &self.settings;
        let Some(score) = score else {
            (self.quiet, self.agree, self.leader) = (0, 0, None);
            return None;
        };
        self.quiet = if score.abs() <= s.draw_score { self.quiet + 1 } else { 0 };
        let leader = if score >= s.win_score {
            Some(mover)
        } else if score <= -s.win_score {
            Some(mover.other())
        } else {
            None
        };
        self.agree = match leader {
            Some(l) if self.leader == Some(l) => self.agree + 1,
            Some(_) => 1,
            None => 0,
        };
        self.leader = leader;
        if s.win_plies > 0 && self.agree >= s.win_plies.max(2) {
            return self.leader.map(|w| Outcome::win(w, Reason::Adjudication));
        }
        if s.draw_from_ply > 0 && ply >= s.draw_from_ply && self.quiet >= s.draw_plies {
            return Some(Outcome::draw(Reason::Adjudication));
        }
        None
    }
}

/// The score in an `info` line: `score cp N`, or `score mate N` (as ±100 000 minus the
/// distance); `None` when the line has none.
pub fn info_score(line: &str) -> Option<i32> {
    let mut words = line.split_whitespace();
    while let Some(w) = words.next() {
        if w == "score" {
            let kind = words.next()?;
            let n: i32 = words.next()?.parse().ok()?;
            return match kind {
                "cp" => Some(n),
                "mate" if n >= 0 => Some(100_000 - n.min(10_000)),
                "mate" => Some(-100_000 - n.max(-10_000)),
                _ => None,
            };
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    const RED: Seat = Seat::First;
    const BLUE: Seat = Seat::Second;

    fn settings() -> Adjudication {
        Adjudication { draw_from_ply: 40, draw_plies: 6, draw_score: 20, win_plies: 4, win_score: 800 }
    }

    #[test]
    fn scores_are_read_from_info_lines() {
        assert_eq!(info_score("info depth 7 score cp -35 nodes 100 pv a3a4"), Some(-35));
        assert_eq!(info_score("info depth 9 score mate 3 pv a3a4"), Some(99_997));
        assert_eq!(info_score("info depth 9 score mate -2"), Some(-99_998));
        assert_eq!(info_score("info depth 9 nodes 5"), None);
        assert_eq!(info_score("info score cp"), None);
        assert_eq!(info_score("info score cp x1"), None);
    }

    #[test]
    fn a_quiet_game_is_drawn_only_after_the_first_ply_and_the_full_run() {
        let mut a = Adjudicator::new(settings());
        for ply in 1..=39 {
            assert_eq!(a.note(ply, if ply % 2 == 1 { RED } else { BLUE }, Some(5)), None, "ply {ply}");
        }
        assert_eq!(a.note(40, BLUE, Some(-3)), Some(Outcome::draw(Reason::Adjudication)));
        // One loud score restarts the run.
        let mut a = Adjudicator::new(settings());
        let scores = [0, 0, 0, 0, 0, 50, 0, 0, 0, 0, 0];
        let ends: Vec<_> = scores.iter().enumerate().map(|(i, &s)| a.note(100 + i as u32, RED, Some(s))).collect();
        assert!(ends[..10].iter().all(Option::is_none), "{ends:?}");
        assert_eq!(ends[10], None, "only 5 quiet plies since the loud one");
        assert!(a.note(111, BLUE, Some(0)).is_some());
    }

    #[test]
    fn both_sides_must_agree_on_the_winner() {
        let mut a = Adjudicator::new(settings());
        // Red says it wins, Blue says it loses: both agree on Red.
        assert_eq!(a.note(10, RED, Some(900)), None);
        assert_eq!(a.note(11, BLUE, Some(-1200)), None);
        assert_eq!(a.note(12, RED, Some(850)), None);
        assert_eq!(a.note(13, BLUE, Some(-99_990)), Some(Outcome::win(RED, Reason::Adjudication)));
        // Blue disagreeing (thinks it is fine) resets the count.
        let mut a = Adjudicator::new(settings());
        for (ply, (p, s)) in [(RED, 900), (BLUE, -900), (RED, 900), (BLUE, 100), (RED, 900), (BLUE, -900), (RED, 900)].into_iter().enumerate() {
            assert_eq!(a.note(ply as u32 + 1, p, Some(s)), None, "ply {}", ply + 1);
        }
        // A missing score also resets it.
        let mut a = Adjudicator::new(settings());
        for (ply, s) in [Some(900), Some(-900), None, Some(-900), Some(900)].into_iter().enumerate() {
            let mover = if ply % 2 == 0 { RED } else { BLUE };
            assert_eq!(a.note(ply as u32 + 1, mover, s), None);
        }
    }

    #[test]
    fn off_by_default() {
        let mut a = Adjudicator::new(Adjudication::default());
        assert!(Adjudication::default().is_off());
        for ply in 1..200 {
            assert_eq!(a.note(ply, RED, Some(if ply > 100 { 5000 } else { 0 })), None);
        }
    }
}
