//! Finished opening searches shared across the games of a match.

use std::collections::HashMap;
use std::hash::{Hash, Hasher};
use std::sync::Mutex;

use super::{FlipResult, tt_key};
use crate::flip::FlipGame;

/// Opening positions with at least this many face-down squares go to the [`OpeningCache`]:
/// their searches are the expensive ones (depth 4 from the start takes seconds, from the
/// middle game milliseconds).
pub(super) const OPENING_HIDDEN: usize = 11;

/// Finished depth-limited searches of opening positions, shared by every engine a match makes:
/// each deal opens on one of few positions, and a depth-4 search of one takes seconds. A cached
/// result is what the engine's own search returned for that position and depth, so the cache
/// changes no move, only the time (searches limited by time or nodes are never cached).
#[derive(Debug, Default)]
pub struct OpeningCache {
    pub(super) results: Mutex<HashMap<(u64, u32), FlipResult>>,
}

impl OpeningCache {
    /// The cache key: the position, the rules it is played under, and the depth.
    pub(super) fn key(g: &FlipGame, depth: u32) -> (u64, u32) {
        let mut h = std::collections::hash_map::DefaultHasher::new();
        g.rules().hash(&mut h);
        (tt_key(g) ^ h.finish(), depth)
    }

    pub fn len(&self) -> usize {
        self.results.lock().map_or(0, |m| m.len())
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}
