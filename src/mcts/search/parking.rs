//! Several leaves of one search in flight at once: a leaf that needs the network is *parked*
//! (its state and path put aside) so that further simulations can run before its value comes
//! back, and the network sees many leaves of the same tree in one batch (the protocol's
//! `MinibatchSize`), or several threads share one tree (`Threads`).
//!
//! While a leaf is parked, every node on its path carries a virtual loss: one more visit and,
//! for the player choosing that node, the worst value. The next simulations then prefer other
//! lines; one that reaches a parked leaf anyway is a collision and ends (nothing is backed up).
//! Completing the leaf takes the virtual loss back and backs its real value up.

use super::{Leaf, Search};
use crate::game::Encode;
use crate::mcts::cache::NnCache;
use crate::mcts::tree::{CHANCE, PENDING, UNEXPANDED, sign};

/// One parked leaf: its node and the path from the root to it.
#[derive(Default)]
pub(crate) struct Parked {
    id: u32,
    path: Vec<u32>,
    in_use: bool,
}

impl<G: Encode> Search<G> {
    /// Parks the leaf the last [`Search::select`] left waiting for the network and returns its
    /// slot; the leaf's state is then [`Search::parked_state`] and the search can select again.
    /// Returns `None` when no leaf was waiting.
    pub fn park(&mut self) -> Option<usize> {
        let id = self.pending.take()?;
        let slot = match self.parked.iter().position(|p| !p.in_use) {
            Some(s) => s,
            None => {
                self.parked.push(Parked::default());
                self.parked_states.push(self.scratch.clone());
                self.parked.len() - 1
            }
        };
        let p = &mut self.parked[slot];
        p.id = id;
        p.in_use = true;
        p.path.clear();
        p.path.extend_from_slice(&self.path);
        std::mem::swap(&mut self.scratch, &mut self.parked_states[slot]);
        self.virtual_loss(slot, 1.0);
        self.tree.nodes[id as usize].state = PENDING;
        Some(slot)
    }

    /// The state of the leaf parked in `slot`.
    pub fn parked_state(&self, slot: usize) -> &G {
        &self.parked_states[slot]
    }

    /// Leaves parked now.
    pub fn parked_count(&self) -> usize {
        self.parked.iter().filter(|p| p.in_use).count()
    }

    /// Forgets every parked leaf (the tree they were in is gone).
    pub(super) fn drop_parked(&mut self) {
        for p in &mut self.parked {
            p.in_use = false;
        }
    }

    /// Completes the leaf parked in `slot` with the network's output for it: its virtual loss
    /// is taken back and the simulation ends as [`Search::complete`] ends one.
    pub fn complete_parked(&mut self, slot: usize, leaf: Leaf<'_>, cache: &mut NnCache) {
        if !self.parked.get(slot).is_some_and(|p| p.in_use) {
            return;
        }
        self.virtual_loss(slot, -1.0);
        let p = &mut self.parked[slot];
        p.in_use = false;
        let id = p.id;
        self.path.clear();
        self.path.extend_from_slice(&p.path);
        std::mem::swap(&mut self.scratch, &mut self.parked_states[slot]);
        self.tree.nodes[id as usize].state = UNEXPANDED;
        self.pending = Some(id);
        self.complete(leaf, cache);
    }

    /// Adds (`k = 1`) or takes back (`k = -1`) the virtual loss of the leaf in `slot`: a visit
    /// on every node of its path and, below a player's node, the value that player likes least.
    fn virtual_loss(&mut self, slot: usize, k: f32) {
        let nodes = &mut self.tree.nodes;
        let path = &self.parked[slot].path;
        for (i, &id) in path.iter().enumerate() {
            let loss = match i.checked_sub(1).map(|p| nodes[path[p] as usize].to_move) {
                Some(m) if m != CHANCE => -sign(m),
                _ => 0.0,
            };
            let n = &mut nodes[id as usize];
            n.visits = if k > 0.0 { n.visits + 1 } else { n.visits.saturating_sub(1) };
            n.value_sum += k * loss;
        }
    }
}
