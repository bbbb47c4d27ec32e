//! Position history for the repetition rule.
//!
//! Only positions since the last capture can recur (a capture removes a piece for good), so
//! every entry remembers where its *window* starts. Each entry stores how many times its
//! position has occurred in the game so far, found by scanning back over earlier entries with
//! the same side to move, and a running count of window entries that occurred at least twice:
//! while that count is zero no move can make a third occurrence and move generation skips
//! the check entirely.
//!
//! Each entry also remembers the move that led to it ([`Step`]): the anti-chase rules
//! (`super::chase`) look back over each side's last moves.

/// The move that produced a history entry: which animal moved, from where to where. The root
/// (a null move in search, and every move of a game played without the anti-chase rules) has
/// [`Step::NONE`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Step {
    /// `Kind::index()` of the moving animal; 255 for no move.
    pub kind: u8,
    pub from: u8,
    pub to: u8,
}

impl Step {
    pub const NONE: Step = Step { kind: 255, from: 0, to: 0 };

    #[inline(always)]
    pub fn new(kind: super::types::Kind, mv: super::types::Move) -> Step {
        Step { kind: kind.index() as u8, from: mv.from().index() as u8, to: mv.to().index() as u8 }
    }

    #[inline(always)]
    pub fn is_none(self) -> bool {
        self.kind == 255
    }
}

/// History entries search copies keep beyond the repetition window while the anti-chase rules
/// are on: both sides' last 17 moves.
pub const CHASE_PLIES: usize = 34;

/// One position in the game, in order of play.
#[derive(Clone, Copy, Debug)]
struct Entry {
    hash: u64,
    /// Occurrences of this position so far, this one included.
    reps: u8,
    /// Index of the first entry of the window this entry belongs to.
    window: u32,
    /// Entries in `window..=self` whose `reps >= 2`.
    twice: u32,
    /// The move that led here.
    step: Step,
    /// Consecutive moves of the same animal by this entry's mover, this one included (0 for
    /// no move): the 17-5 rule needs 17.
    run: u8,
    /// 1 + the index of the latest move by this entry's mover, at or before this one, that
    /// entered its square for the third time within that side's six moves ending there (0:
    /// none): the 7-3 rule can only forbid something while such a move is among the last six.
    triple: u32,
}

/// The hashes of every position of a game, the root included.
#[derive(Debug, Default)]
pub struct History {
    entries: Vec<Entry>,
    /// Whether `push` keeps the anti-chase counts (`run`, `triple`); off, they stay 0.
    chase: bool,
}

impl Clone for History {
    fn clone(&self) -> Self {
        History { entries: self.entries.clone(), chase: self.chase }
    }

    fn clone_from(&mut self, source: &Self) {
        self.entries.clone_from(&source.entries);
        self.chase = source.chase;
    }
}

impl History {
    /// A history holding only the root position (which counts as its first occurrence).
    pub fn new(root_hash: u64) -> History {
        let mut h = History { entries: Vec::with_capacity(256), chase: false };
        h.reset(root_hash);
        h
    }

    /// The same history keeping the counts the anti-chase rules need from now on (`on`), or
    /// not (the default: pushing is then a little cheaper). Set it before the first move.
    pub fn with_chase(mut self, on: bool) -> History {
        self.chase = on;
        self
    }

    /// Empties the history down to a new root, keeping the allocation.
    pub fn reset(&mut self, root_hash: u64) {
        self.entries.clear();
        self.entries.push(Entry { hash: root_hash, reps: 1, window: 0, twice: 0, step: Step::NONE, run: 0, triple: 0 });
    }

    /// Makes this history the part of `source` that repetition can still reach: the positions
    /// since the last capture, and at least the last `keep` entries (for the anti-chase rules),
    /// renumbered from 0. Counts of occurrences and every later answer are those `source` gives.
    pub fn copy_window_from(&mut self, source: &History, keep: usize) {
        self.entries.clear();
        self.chase = source.chase;
        let window = source.entries.last().map_or(0, |e| e.window as usize);
        let start = window.min(source.entries.len().saturating_sub(keep));
        self.entries.extend(source.entries[start..].iter().map(|e| Entry {
            window: (e.window as usize).saturating_sub(start) as u32,
            triple: e.triple.saturating_sub(start as u32),
            ..*e
        }));
    }

    /// Records the position reached by `step`; `capture` starts a new window.
    #[inline]
    pub fn push(&mut self, hash: u64, capture: bool, step: Step) {
        let idx = self.entries.len();
        let (run, triple) = if self.chase { self.chase_counts(idx, step) } else { (0, 0) };
        let entry = match self.entries.last() {
            Some(top) if !capture => {
                let reps = self.occurrences(hash).saturating_add(1);
                Entry { hash, reps, window: top.window, twice: top.twice + u32::from(reps >= 2), step, run, triple }
            }
            _ => Entry { hash, reps: 1, window: idx as u32, twice: 0, step, run, triple },
        };
        self.entries.push(entry);
    }

    /// `run` and `triple` of a new entry at `idx` made by `step` (see [`Entry`]).
    #[inline(always)]
    fn chase_counts(&self, idx: usize, step: Step) -> (u8, u32) {
        let prev = idx.checked_sub(2).map(|i| &self.entries[i]);
        let carried = prev.map_or(0, |p| p.triple);
        if step.is_none() {
            return (0, carried);
        }
        let run = match prev {
            Some(p) if p.step.kind == step.kind => p.run.saturating_add(1),
            _ => 1,
        };
        let mut entered = 1;
        let mut i = idx;
        for _ in 0..5 {
            match i.checked_sub(2) {
                Some(j) => i = j,
                None => break,
            }
            let s = self.entries[i].step;
            entered += u32::from(s.kind == step.kind && s.to == step.to);
        }
        (run, if entered >= 3 { idx as u32 + 1 } else { carried })
    }

    /// Whether the anti-chase rules can restrict the side to move: (7-3, 17-5). Cheap
    /// necessary conditions; `super::chase` decides.
    #[inline(always)]
    pub fn chase_possible(&self) -> (bool, bool) {
        let n = self.entries.len();
        let Some(own) = n.checked_sub(2).map(|i| &self.entries[i]) else { return (false, false) };
        (own.triple > 0 && own.triple as usize + 11 >= n, own.run >= 17)
    }

    /// The move `back` plies ago: 0 is the move that led to the current position (the
    /// opponent's last move), 1 the side to move's last move, and so on; `None` before the
    /// first entry this history holds.
    #[inline(always)]
    pub fn step_back(&self, back: usize) -> Option<Step> {
        let i = self.entries.len().checked_sub(1 + back)?;
        Some(self.entries[i].step)
    }

    /// A hash of the last [`CHASE_PLIES`] moves (what the anti-chase rules can still read),
    /// for keys of positions whose legal moves depend on them.
    pub fn chase_key(&self) -> u64 {
        let mut h = 0x243F_6A88_85A3_08D3u64;
        for e in self.entries.iter().rev().take(CHASE_PLIES) {
            let s = e.step;
            let v = u64::from(s.kind) | u64::from(s.from) << 8 | u64::from(s.to) << 16;
            h = (h ^ v).wrapping_mul(0x9E37_79B9_7F4A_7C15).rotate_left(29);
        }
        h
    }

    /// Removes the last position (undo).
    #[inline]
    pub fn pop(&mut self) {
        debug_assert!(self.entries.len() > 1, "the root position is never popped");
        self.entries.pop();
    }

    /// Number of positions recorded, the root included.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// Whether some position in the current window has already occurred twice.
    #[inline(always)]
    pub fn may_repeat(&self) -> bool {
        self.entries.last().is_some_and(|e| e.twice > 0)
    }

    /// How many times the position with `hash`, reached by the next move, has occurred already.
    /// The next position has the side to move of `len - 2`; it cannot equal the position two
    /// plies back (each side would have to undo the other's move), so the scan starts four back.
    #[inline]
    pub fn occurrences(&self, hash: u64) -> u8 {
        let Some(top) = self.entries.last() else { return 0 };
        let len = self.entries.len();
        let mut i = len.wrapping_sub(4);
        while i < len && i >= top.window as usize {
            let e = &self.entries[i];
            if e.hash == hash {
                return e.reps;
            }
            i = i.wrapping_sub(2);
        }
        0
    }

    /// Occurrences of the current (last) position, itself included.
    #[inline(always)]
    pub fn current_reps(&self) -> u8 {
        self.entries.last().map_or(0, |e| e.reps)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_occurrences_within_the_window() {
        // A, B, C, D, A, B, C, D, A: the root A recurs at plies 4 and 8.
        let seq = [1u64, 2, 3, 4];
        let mut h = History::new(seq[0]);
        for ply in 1..=8 {
            h.push(seq[ply % 4], false, Step::NONE);
        }
        assert_eq!(h.current_reps(), 3);
        assert!(h.may_repeat());
        // After a capture nothing earlier can recur.
        h.push(2, true, Step::NONE);
        assert_eq!(h.current_reps(), 1);
        assert!(!h.may_repeat());
        h.pop();
        assert_eq!(h.current_reps(), 3);
    }

    #[test]
    fn a_window_copy_answers_as_the_whole_history() {
        // A cycle of four positions with a capture part way: the copy keeps the positions
        // since the capture and must count every later occurrence as the original does.
        let seq = [1u64, 2, 3, 4];
        let mut h = History::new(9);
        for ply in 1..=5 {
            h.push(seq[ply % 4], false, Step::NONE);
        }
        h.push(7, true, Step::NONE);
        for ply in 1..=6 {
            h.push(seq[ply % 4], false, Step::NONE);
        }
        let mut copy = History::new(0);
        copy.copy_window_from(&h, 0);
        assert_eq!(copy.len(), 7, "the capture's entry and the six after it");
        assert_eq!(copy.current_reps(), h.current_reps());
        assert_eq!(copy.may_repeat(), h.may_repeat());
        for next in [1u64, 2, 3, 4, 7, 9] {
            assert_eq!(copy.occurrences(next), h.occurrences(next), "next position {next}");
        }
        for ply in 7..=12 {
            h.push(seq[ply % 4], false, Step::NONE);
            copy.push(seq[ply % 4], false, Step::NONE);
            assert_eq!(copy.current_reps(), h.current_reps(), "ply {ply}");
            assert_eq!(copy.may_repeat(), h.may_repeat(), "ply {ply}");
        }
        assert_eq!(h.current_reps(), 3);
    }
}
