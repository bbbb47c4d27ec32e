//! Position history for the repetition rule.
//!
//! Only positions since the last capture can recur (a capture removes a piece for good), so
//! every entry remembers where its *window* starts. Each entry stores how many times its
//! position has occurred in the game so far, found by scanning back over earlier entries with
//! the same side to move, and a running count of window entries that occurred at least twice:
//! while that count is zero no move can make a third occurrence and move generation skips
//! the check entirely.

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
}

/// The hashes of every position of a game, the root included.
#[derive(Debug, Default)]
pub struct History {
    entries: Vec<Entry>,
}

impl Clone for History {
    fn clone(&self) -> Self {
        History { entries: self.entries.clone() }
    }

    fn clone_from(&mut self, source: &Self) {
        self.entries.clone_from(&source.entries);
    }
}

impl History {
    /// A history holding only the root position (which counts as its first occurrence).
    pub fn new(root_hash: u64) -> History {
        let mut h = History { entries: Vec::with_capacity(256) };
        h.reset(root_hash);
        h
    }

    /// Empties the history down to a new root, keeping the allocation.
    pub fn reset(&mut self, root_hash: u64) {
        self.entries.clear();
        self.entries.push(Entry { hash: root_hash, reps: 1, window: 0, twice: 0 });
    }

    /// Makes this history the part of `source` that repetition can still reach: the positions
    /// since the last capture, renumbered from 0 (they all share one window). Counts of
    /// occurrences and every later answer are those `source` gives.
    pub fn copy_window_from(&mut self, source: &History) {
        self.entries.clear();
        let start = source.entries.last().map_or(0, |e| e.window as usize);
        self.entries.extend(source.entries[start..].iter().map(|e| Entry { window: 0, ..*e }));
    }

    /// Records the position reached by a move; `capture` starts a new window.
    #[inline]
    pub fn push(&mut self, hash: u64, capture: bool) {
        let idx = self.entries.len() as u32;
        let entry = match self.entries.last() {
            Some(top) if !capture => {
                let reps = self.occurrences(hash).saturating_add(1);
                Entry { hash, reps, window: top.window, twice: top.twice + u32::from(reps >= 2) }
            }
            _ => Entry { hash, reps: 1, window: idx, twice: 0 },
        };
        self.entries.push(entry);
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
            h.push(seq[ply % 4], false);
        }
        assert_eq!(h.current_reps(), 3);
        assert!(h.may_repeat());
        // After a capture nothing earlier can recur.
        h.push(2, true);
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
            h.push(seq[ply % 4], false);
        }
        h.push(7, true);
        for ply in 1..=6 {
            h.push(seq[ply % 4], false);
        }
        let mut copy = History::new(0);
        copy.copy_window_from(&h);
        assert_eq!(copy.len(), 7, "the capture's entry and the six after it");
        assert_eq!(copy.current_reps(), h.current_reps());
        assert_eq!(copy.may_repeat(), h.may_repeat());
        for next in [1u64, 2, 3, 4, 7, 9] {
            assert_eq!(copy.occurrences(next), h.occurrences(next), "next position {next}");
        }
        for ply in 7..=12 {
            h.push(seq[ply % 4], false);
            copy.push(seq[ply % 4], false);
            assert_eq!(copy.current_reps(), h.current_reps(), "ply {ply}");
            assert_eq!(copy.may_repeat(), h.may_repeat(), "ply {ply}");
        }
        assert_eq!(h.current_reps(), 3);
    }
}
