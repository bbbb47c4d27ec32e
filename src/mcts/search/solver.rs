//! Proven values in the tree (MCTS-Solver, Winands, Björnsson and Saito 2008), for the players'
//! searches (`mcts.play_solver`).
//!
//! A won or lost finished game, and a position the oracle (endgame tables) knows as won or
//! lost, is *proven*. Proofs go up the tree: a player's node with a child won for that player is
//! won; one whose children are all lost for that player is lost; a chance node is proven when
//! every outcome is, with one result. A simulation that reaches a proven node backs its exact
//! value up at once; selection never enters a child lost for the player choosing; a proven root
//! ends the search (see [`Search::root_proven`]), its move is the shortest win or, when every
//! move loses, the longest loss. Draws are not proven: a drawn finished game is still a leaf with
//! its exact value, but a node above it is valued by its visits.

use super::Search;
use crate::game::Encode;
use crate::mcts::tree::{CHANCE, EXPANDED, Node, ROOT, TERMINAL, sign};

/// A proven result for the player to move at a node (or, for a root's child, for the root's
/// player): won or lost, and in how many plies with best play from both sides.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Proof {
    pub win: bool,
    pub plies: u32,
}

impl Proof {
    /// As `score mate N` counts it: moves of the winning side, negative when the side the
    /// score is for loses.
    pub fn mate_moves(&self) -> i64 {
        if self.win { i64::from(self.plies.div_ceil(2)) } else { -i64::from(self.plies / 2) }
    }
}

/// How a root child ranks for the root's player, proofs first: a proven win above anything
/// (the shorter the better), a proven loss below anything (the longer the better), and
/// unproven moves between, by visits and then prior.
pub(crate) fn rank<M>(a: &Node<M>, pa: Option<Proof>, b: &Node<M>, pb: Option<Proof>) -> std::cmp::Ordering {
    use std::cmp::Ordering;
    let class = |p: Option<Proof>| match p {
        Some(Proof { win: true, .. }) => 2,
        None => 1,
        Some(Proof { win: false, .. }) => 0,
    };
    class(pa)
        .cmp(&class(pb))
        .then_with(|| match (pa, pb) {
            (Some(x), Some(y)) if x.win => y.plies.cmp(&x.plies),
            (Some(x), Some(y)) => x.plies.cmp(&y.plies),
            _ => Ordering::Equal,
        })
        .then(a.visits.cmp(&b.visits))
        .then(a.prior.total_cmp(&b.prior))
}

impl<G: Encode> Search<G> {
    /// Proves what the finished or known leaf at the end of the current path proves above it.
    /// `value_first` is the leaf's exact value (first player's view); only wins and losses
    /// prove anything.
    pub(super) fn prove_leaf(&mut self, value_first: f32) {
        if !self.solver || value_first == 0.0 {
            return;
        }
        let Some(&leaf) = self.path.last() else { return };
        self.tree.nodes[leaf as usize].proof = if value_first > 0.0 { 1 } else { -1 };
        for i in (0..self.path.len() - 1).rev() {
            let id = self.path[i] as usize;
            let child = self.path[i + 1] as usize;
            let node = self.tree.nodes[id];
            if node.proof != 0 || node.state != EXPANDED {
                return;
            }
            let result = self.tree.nodes[child].proof;
            let children = &self.tree.nodes[node.children()];
            let proof = if node.to_move == CHANCE {
                if children.iter().all(|c| c.proof == result) { result } else { 0 }
            } else {
                let mover = sign(node.to_move) as i8;
                if result == mover {
                    mover
                } else if children.iter().all(|c| c.proof == -mover) {
                    -mover
                } else {
                    0
                }
            };
            if proof == 0 {
                return;
            }
            self.tree.nodes[id].proof = proof;
        }
    }

    /// Visits by which the most visited root move leads the next one, moves proven lost left
    /// out (they get no more visits); `u32::MAX` when one move is left to choose (nothing can
    /// overtake it), 0 before the root is expanded.
    pub fn visit_lead(&self) -> u32 {
        let s = self.root_sign();
        let (mut first, mut second, mut moves) = (0u32, 0u32, 0usize);
        for c in &self.tree.nodes[self.tree.root().children()] {
            if c.proof != 0 && f32::from(c.proof) * s < 0.0 {
                continue;
            }
            moves += 1;
            if c.visits > first {
                (first, second) = (c.visits, first);
            } else if c.visits > second {
                second = c.visits;
            }
        }
        if moves == 1 { u32::MAX } else { first - second }
    }

    /// Marks the expanded root's move `mv` lost by force in `plies` plies for the player to
    /// move there (what a [`crate::mcts::tactics::Tactics`] check refuted): the child becomes a
    /// proven-lost leaf, never searched again, and the root is proven lost when no move is left.
    /// Returns false (and marks nothing) without the solver, before the root is expanded, or
    /// for a move the root lacks.
    pub fn mark_lost(&mut self, mv: G::Move, plies: u32) -> bool {
        let root = *self.tree.root();
        if !self.solver || root.state != EXPANDED || root.to_move == CHANCE {
            return false;
        }
        let Some(c) = root.children().find(|&c| self.tree.nodes[c].mv == mv) else { return false };
        let loser = -(sign(root.to_move) as i8);
        let node = &mut self.tree.nodes[c];
        // A leaf with the exact result, as a finished lost game is (its subtree, if any, is
        // left unreachable).
        let visits = node.visits.max(1);
        node.visits = visits;
        node.value_sum = f32::from(loser) * visits as f32;
        node.moves_left_sum = plies as f32 * visits as f32;
        node.terminal_value = f32::from(loser);
        node.num_children = 0;
        node.state = TERMINAL;
        node.proof = loser;
        if self.tree.nodes[root.children()].iter().all(|c| c.proof == loser) {
            self.tree.nodes[ROOT as usize].proof = loser;
        }
        true
    }

    /// Whether the root has been expanded (its moves are in the tree).
    pub fn root_expanded(&self) -> bool {
        self.tree.root().state == EXPANDED
    }

    /// Whether the root's result is proven (further simulations change nothing).
    pub fn root_proven(&self) -> bool {
        self.tree.root().proof != 0
    }

    /// The root's proven result for the player to move there.
    pub fn root_proof(&self) -> Option<Proof> {
        self.proof_for(ROOT as usize, self.root_sign())
    }

    /// A root child's proven result for the root's player.
    pub fn child_proof(&self, child: usize) -> Option<Proof> {
        self.proof_for(child, self.root_sign())
    }

    /// Node `id`'s proof for the player whose values carry sign `s`.
    fn proof_for(&self, id: usize, s: f32) -> Option<Proof> {
        let p = self.tree.nodes.get(id)?.proof;
        (p != 0).then(|| Proof { win: f32::from(p) * s > 0.0, plies: self.proof_plies(id, 0) })
    }

    /// Plies to the end of the game from proven node `id` with best play: the winner takes the
    /// shortest win, the loser the longest loss. A known leaf counts the oracle's plies, a
    /// finished game none.
    fn proof_plies(&self, id: usize, depth: u32) -> u32 {
        let node = &self.tree.nodes[id];
        if node.state == TERMINAL || node.num_children == 0 || depth > 1024 {
            return node.moves_left().round().max(0.0) as u32;
        }
        let proven = node.children().filter(|&c| self.tree.nodes[c].proof == node.proof);
        if node.to_move == CHANCE {
            return node.children().map(|c| self.proof_plies(c, depth + 1)).max().unwrap_or(0);
        }
        let winner = sign(node.to_move) as i8 == node.proof;
        let plies = proven.map(|c| self.proof_plies(c, depth + 1));
        1 + (if winner { plies.min() } else { plies.max() }).unwrap_or(0)
    }
}
