//! A cache of network outputs keyed by [`Encode::input_hash`](crate::game::Encode::input_hash).
//!
//! Direct-mapped and fixed-size: a lookup or insert touches one slot and never allocates. Each
//! entry keeps the value and the priors of the legal moves as (action, prior) pairs, so an entry
//! stays valid even if another state with the same encoding has a different legal-move list.

/// One worker's cache (not shared between threads).
pub struct NnCache {
    keys: Vec<u64>,
    values: Vec<f32>,
    moves_left: Vec<f32>,
    draws: Vec<f32>,
    counts: Vec<u16>,
    /// `max_moves` (action, prior) pairs per entry.
    pairs: Vec<(u16, f32)>,
    max_moves: usize,
    mask: usize,
    pub hits: u64,
    pub lookups: u64,
}

impl NnCache {
    /// A cache of at least `entries` entries (rounded up to a power of two; 0 disables it)
    /// for games with at most `max_moves` legal moves.
    pub fn new(entries: usize, max_moves: usize) -> NnCache {
        let n = if entries == 0 { 0 } else { entries.next_power_of_two() };
        NnCache {
            keys: vec![0; n],
            values: vec![0.0; n],
            moves_left: vec![f32::NAN; n],
            draws: vec![f32::NAN; n],
            counts: vec![0; n],
            pairs: vec![(0, 0.0); n * max_moves],
            max_moves,
            mask: n.wrapping_sub(1),
            hits: 0,
            lookups: 0,
        }
    }

    /// The cached value, moves left and draw probability (NaN if unknown) and (action, prior)
    /// pairs for `key`, if present.
    #[inline]
    pub fn get(&mut self, key: u64) -> Option<(f32, f32, f32, &[(u16, f32)])> {
        if self.keys.is_empty() {
            return None;
        }
        self.lookups += 1;
        let i = key as usize & self.mask;
        // Key 0 marks an empty slot; a real key of 0 is simply never cached.
        if self.keys[i] != key || key == 0 {
            return None;
        }
        self.hits += 1;
        let n = self.counts[i] as usize;
        Some((self.values[i], self.moves_left[i], self.draws[i], &self.pairs[i * self.max_moves..i * self.max_moves + n]))
    }

    /// Stores `value`, `moves_left`, `draw` and the priors of the legal moves (`(action,
    /// prior)`, at most `max_moves`) under `key`, replacing whatever shared the slot.
    #[inline]
    pub fn insert(&mut self, key: u64, value: f32, moves_left: f32, draw: f32, priors: impl Iterator<Item = (u16, f32)>) {
        if self.keys.is_empty() {
            return;
        }
        let i = key as usize & self.mask;
        self.keys[i] = key;
        self.values[i] = value;
        self.moves_left[i] = moves_left;
        self.draws[i] = draw;
        let slots = &mut self.pairs[i * self.max_moves..(i + 1) * self.max_moves];
        let mut n = 0;
        for (slot, p) in slots.iter_mut().zip(priors) {
            *slot = p;
            n += 1;
        }
        self.counts[i] = n as u16;
    }

    pub fn hit_rate(&self) -> f64 {
        if self.lookups == 0 { 0.0 } else { self.hits as f64 / self.lookups as f64 }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stores_and_replaces() {
        let mut c = NnCache::new(4, 3);
        c.insert(5, 0.5, 12.0, 0.25, [(1u16, 0.25f32), (7, 0.75)].into_iter());
        let (v, m, d, p) = c.get(5).unwrap();
        assert_eq!((v, m, d, p), (0.5, 12.0, 0.25, &[(1u16, 0.25f32), (7, 0.75)][..]));
        assert!(c.get(6).is_none());
        c.insert(9, -1.0, f32::NAN, f32::NAN, [(2u16, 1.0f32)].into_iter()); // same slot as 5 (mask 3)
        assert!(c.get(5).is_none());
        assert_eq!(c.get(9).unwrap().3.len(), 1);
        assert_eq!((c.hits, c.lookups), (2, 4));
    }
}
