//! Chess-clock time controls for matches, written as tournament managers write them:
//! `MOVES/SECONDS+INC`, e.g. `40/60+0.5` (60 s for every 40 moves plus 0.5 s per move) or
//! `0/10+0.1` (10 s for the whole game plus 0.1 s per move; `10+0.1` means the same). A player
//! whose clock runs out (past the match's time margin) loses on time.

use std::fmt;
use std::str::FromStr;
use std::time::Duration;

/// A time control: `base` for every `moves` moves (0: for the whole game), plus `inc` after
/// each move.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TimeControl {
    pub moves: u32,
    pub base: Duration,
    pub inc: Duration,
}

/// Why a time control does not parse.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum TimeControlError {
    #[error("time control '{tc}': {what} '{value}' is not a number of seconds")]
    NotSeconds { tc: String, what: &'static str, value: String },
    #[error("time control '{tc}': {what} '{value}' must be between 0 and 10000000 seconds")]
    OutOfRange { tc: String, what: &'static str, value: String },
    #[error("time control '{tc}': moves '{value}' is not a whole number")]
    NotMoves { tc: String, value: String },
    #[error("time control '{tc}': moves {value} is out of range (0 to 4294967295)")]
    TooManyMoves { tc: String, value: String },
    #[error("time control '{0}' gives no time at all")]
    NoTime(String),
    #[error("time control '{tc}': a period of {moves} moves needs a base time")]
    NoBase { tc: String, moves: u32 },
}

/// Seconds as written in a time control: a non-negative decimal number.
fn seconds(s: &str, what: &'static str, whole: &str) -> Result<Duration, TimeControlError> {
    let v: f64 = s.trim().parse().map_err(|_| TimeControlError::NotSeconds { tc: whole.into(), what, value: s.into() })?;
    if !v.is_finite() || !(0.0..=1e7).contains(&v) {
        return Err(TimeControlError::OutOfRange { tc: whole.into(), what, value: s.into() });
    }
    Ok(Duration::from_secs_f64(v))
}

impl FromStr for TimeControl {
    type Err = TimeControlError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let (moves, rest) = match s.split_once('/') {
            Some((m, r)) => (
                m.trim().parse::<u32>().map_err(|_| {
                    if crate::arena::spec::is_whole_number(m) {
                        TimeControlError::TooManyMoves { tc: crate::check::clip(s), value: crate::check::clip(m) }
                    } else {
                        TimeControlError::NotMoves { tc: crate::check::clip(s), value: crate::check::clip(m) }
                    }
                })?,
                r,
            ),
            None => (0, s),
        };
        let (base, inc) = match rest.split_once('+') {
            Some((b, i)) => (seconds(b, "base", s)?, seconds(i, "increment", s)?),
            None => (seconds(rest, "base", s)?, Duration::ZERO),
        };
        if base.is_zero() && inc.is_zero() {
            return Err(TimeControlError::NoTime(s.into()));
        }
        if base.is_zero() && moves > 0 {
            return Err(TimeControlError::NoBase { tc: s.into(), moves });
        }
        Ok(TimeControl { moves, base, inc })
    }
}

impl fmt::Display for TimeControl {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.moves, self.base.as_secs_f64())?;
        if !self.inc.is_zero() {
            write!(f, "+{}", self.inc.as_secs_f64())?;
        }
        Ok(())
    }
}

/// One player's clock during a game.
#[derive(Clone, Copy, Debug)]
pub struct Clock {
    pub tc: TimeControl,
    /// Time left; may be briefly "negative" only within the margin, which is not kept.
    pub remaining: Duration,
    /// Moves this player has made.
    pub moves_made: u32,
}

impl Clock {
    pub fn new(tc: TimeControl) -> Clock {
        Clock { tc, remaining: tc.base, moves_made: 0 }
    }

    /// Moves until the next period's time is added (`None` when the base covers the game).
    pub fn moves_to_go(&self) -> Option<u32> {
        (self.tc.moves > 0).then(|| self.tc.moves - self.moves_made % self.tc.moves)
    }

    /// Charges a move that took `spent`. False when it overran the clock by more than `margin`:
    /// the player has lost on time. Otherwise the increment (and, at the end of a period, the
    /// next period's base) is added.
    pub fn charge(&mut self, spent: Duration, margin: Duration) -> bool {
        if spent > self.remaining + margin {
            self.remaining = Duration::ZERO;
            return false;
        }
        self.remaining = self.remaining.saturating_sub(spent) + self.tc.inc;
        self.moves_made += 1;
        if self.tc.moves > 0 && self.moves_made.is_multiple_of(self.tc.moves) {
            self.remaining += self.tc.base;
        }
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(v: u64) -> Duration {
        Duration::from_millis(v)
    }

    #[test]
    fn time_controls_parse_print_and_reject_bad_text() {
        let tc: TimeControl = "40/60+0.5".parse().unwrap();
        assert_eq!(tc, TimeControl { moves: 40, base: Duration::from_secs(60), inc: ms(500) });
        assert_eq!(tc.to_string(), "40/60+0.5");
        assert_eq!("0/10+0.1".parse::<TimeControl>().unwrap(), "10+0.1".parse().unwrap());
        assert_eq!("0/10+0.1".parse::<TimeControl>().unwrap().inc, ms(100));
        assert_eq!("5".parse::<TimeControl>().unwrap(), TimeControl { moves: 0, base: Duration::from_secs(5), inc: Duration::ZERO });
        assert_eq!("0/0+1".parse::<TimeControl>().unwrap().base, Duration::ZERO);
        for (bad, want) in [
            ("x", "not a number"),
            ("40/", "not a number"),
            ("a/10", "whole number"),
            ("-1+0", "between"),
            ("10+-1", "between"),
            ("0+0", "no time"),
            ("40/0+1", "needs a base"),
            ("inf", "between"),
        ] {
            let e = bad.parse::<TimeControl>().unwrap_err().to_string();
            assert!(e.contains(want) && e.contains(bad), "{bad}: {e}");
        }
    }

    #[test]
    fn a_clock_adds_increments_and_periods_and_flags_an_overrun() {
        let mut c = Clock::new("2/1+0.1".parse().unwrap());
        assert_eq!(c.moves_to_go(), Some(2));
        assert!(c.charge(ms(300), ms(0)));
        assert_eq!(c.remaining, ms(800));
        assert_eq!(c.moves_to_go(), Some(1));
        // The second move ends the period: another second arrives.
        assert!(c.charge(ms(800), ms(0)));
        assert_eq!(c.remaining, ms(1100));
        assert_eq!(c.moves_to_go(), Some(2));
        // Within the margin the move stands and the clock stops at zero before the increment.
        assert!(c.charge(ms(1150), ms(100)));
        assert_eq!(c.remaining, ms(100));
        // Past it, the player has lost on time.
        assert!(!c.charge(ms(250), ms(100)));
        assert_eq!(c.remaining, Duration::ZERO);
        let whole = Clock::new("10".parse().unwrap());
        assert_eq!(whole.moves_to_go(), None);
    }
}
