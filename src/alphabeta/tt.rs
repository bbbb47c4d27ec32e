//! A lock-free transposition table shared by search threads.
//!
//! Each slot is two `AtomicU64`s: the packed data and `key ^ data`. A reader recomputes the key
//! from both words, so a slot torn by a concurrent writer simply fails to match (Hyatt's
//! lockless hashing). Slots come in buckets of four (one 64-byte cache line); a store replaces
//! the same key, else the shallowest or oldest entry.

use std::sync::atomic::{AtomicU8, AtomicU64, Ordering};

use crate::jungle::Move;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
pub enum Bound {
    None = 0,
    /// The score is a lower bound (fail high).
    Lower = 1,
    /// The score is an upper bound (fail low).
    Upper = 2,
    Exact = 3,
}

/// What a slot holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TtEntry {
    pub mv: Option<Move>,
    /// Score with wins stored relative to this node (see `search::to_tt`).
    pub score: i32,
    pub eval: i32,
    pub depth: i32,
    pub bound: Bound,
}

#[derive(Default)]
struct Slot {
    check: AtomicU64,
    data: AtomicU64,
}

const BUCKET: usize = 4;

pub struct TranspositionTable {
    slots: Vec<Slot>,
    buckets: usize,
    generation: AtomicU8,
}

// data layout: move 0..16 | score 16..32 | eval 32..48 | depth 48..56 | bound 56..58 | gen 58..64
fn pack(e: &TtEntry, generation: u8) -> u64 {
    let mv = e.mv.map_or(0, |m| m.raw()) as u64;
    let score = (e.score.clamp(-32_767, 32_767) as i16 as u16) as u64;
    let eval = (e.eval.clamp(-32_767, 32_767) as i16 as u16) as u64;
    let depth = e.depth.clamp(0, 255) as u64;
    mv | score << 16 | eval << 32 | depth << 48 | (e.bound as u64) << 56 | ((generation & 63) as u64) << 58
}

fn unpack(d: u64) -> (TtEntry, u8) {
    let raw = (d & 0xFFFF) as u16;
    let bound = match (d >> 56) & 3 {
        1 => Bound::Lower,
        2 => Bound::Upper,
        3 => Bound::Exact,
        _ => Bound::None,
    };
    let e = TtEntry {
        mv: if raw == 0 { None } else { Move::from_raw(raw) },
        score: ((d >> 16) & 0xFFFF) as u16 as i16 as i32,
        eval: ((d >> 32) & 0xFFFF) as u16 as i16 as i32,
        depth: ((d >> 48) & 0xFF) as i32,
        bound,
    };
    (e, ((d >> 58) & 63) as u8)
}

impl TranspositionTable {
    /// A table of about `mb` mebibytes (at least one bucket).
    pub fn new(mb: usize) -> TranspositionTable {
        let bytes = mb.max(1) * 1024 * 1024;
        let buckets = (bytes / (BUCKET * std::mem::size_of::<Slot>())).max(1);
        let mut slots = Vec::with_capacity(buckets * BUCKET);
        slots.resize_with(buckets * BUCKET, Slot::default);
        TranspositionTable { slots, buckets, generation: AtomicU8::new(0) }
    }

    pub fn size_mb(&self) -> usize {
        self.slots.len() * std::mem::size_of::<Slot>() / (1024 * 1024)
    }

    /// Forgets everything (a new game).
    pub fn clear(&mut self) {
        for s in &mut self.slots {
            *s = Slot::default();
        }
        self.generation.store(0, Ordering::Relaxed);
    }

    /// Marks the start of a new search, so older entries are replaced first.
    pub fn new_search(&self) {
        self.generation.fetch_add(1, Ordering::Relaxed);
    }

    #[inline(always)]
    fn bucket(&self, key: u64) -> &[Slot] {
        let b = ((key as u128 * self.buckets as u128) >> 64) as usize;
        &self.slots[b * BUCKET..(b + 1) * BUCKET]
    }

    #[inline]
    pub fn probe(&self, key: u64) -> Option<TtEntry> {
        for s in self.bucket(key) {
            let data = s.data.load(Ordering::Relaxed);
            if s.check.load(Ordering::Relaxed) ^ data == key && data != 0 {
                return Some(unpack(data).0);
            }
        }
        None
    }

    #[inline]
    pub fn store(&self, key: u64, entry: TtEntry) {
        let generation = self.generation.load(Ordering::Relaxed) & 63;
        let bucket = self.bucket(key);
        let mut victim = 0;
        let mut worst = i32::MAX;
        for (i, s) in bucket.iter().enumerate() {
            let data = s.data.load(Ordering::Relaxed);
            if data == 0 || s.check.load(Ordering::Relaxed) ^ data == key {
                // Same position: keep the old move if the new entry has none.
                let mut e = entry;
                if e.mv.is_none() && data != 0 {
                    e.mv = unpack(data).0.mv;
                }
                let d = pack(&e, generation);
                s.data.store(d, Ordering::Relaxed);
                s.check.store(key ^ d, Ordering::Relaxed);
                return;
            }
            let (old, g) = unpack(data);
            let age = (generation.wrapping_sub(g) & 63) as i32;
            let worth = old.depth - 4 * age;
            if worth < worst {
                worst = worth;
                victim = i;
            }
        }
        let d = pack(&entry, generation);
        bucket[victim].data.store(d, Ordering::Relaxed);
        bucket[victim].check.store(key ^ d, Ordering::Relaxed);
    }

    /// Per mille of sampled slots filled by the current search (UCI `hashfull`).
    pub fn hashfull(&self) -> u32 {
        let n = self.slots.len().min(4000);
        let generation = self.generation.load(Ordering::Relaxed) & 63;
        let used = self.slots[..n]
            .iter()
            .filter(|s| {
                let d = s.data.load(Ordering::Relaxed);
                d != 0 && unpack(d).1 == generation
            })
            .count();
        (used * 1000 / n.max(1)) as u32
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::jungle::Square;

    #[test]
    fn stores_and_finds_entries() {
        let tt = TranspositionTable::new(1);
        let mv = Move::new(Square::new(3), Square::new(10));
        let e = TtEntry { mv: Some(mv), score: -30_500, eval: 123, depth: 9, bound: Bound::Lower };
        tt.store(0xDEAD_BEEF, e);
        assert_eq!(tt.probe(0xDEAD_BEEF), Some(e));
        assert_eq!(tt.probe(0xDEAD_BEEE), None);
        // A store without a move keeps the old one.
        tt.store(0xDEAD_BEEF, TtEntry { mv: None, ..e });
        assert_eq!(tt.probe(0xDEAD_BEEF).unwrap().mv, Some(mv));
    }
}
