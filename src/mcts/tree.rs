//! The search tree: nodes in one `Vec`, addressed by `u32`, children stored contiguously.
//!
//! Values are kept from the *first player's* point of view, so the same node reads correctly
//! whoever is to move at its parent (and at chance nodes, where nobody is).

/// Node states.
pub const UNEXPANDED: u8 = 0;
pub const EXPANDED: u8 = 1;
pub const TERMINAL: u8 = 2;
/// An unexpanded leaf waiting for the network while the search goes on (see
/// `search::parking`).
pub const PENDING: u8 = 3;

/// `to_move` of a chance node.
pub const CHANCE: u8 = 2;

pub const ROOT: u32 = 0;

#[derive(Clone, Copy, Debug)]
pub struct Node<M> {
    /// The move (or chance outcome) that leads here from the parent.
    pub mv: M,
    /// Prior probability (chance nodes' children: the outcome's probability).
    pub prior: f32,
    pub visits: u32,
    /// Sum of backed-up values, first player's view.
    pub value_sum: f32,
    /// Sum of backed-up estimates of the plies left to the end of the game.
    pub moves_left_sum: f32,
    /// First player's view: the exact value of a finished game (`TERMINAL` nodes), or the
    /// network's value of the position (`EXPANDED` player nodes; Gumbel search reads it).
    pub terminal_value: f32,
    pub first_child: u32,
    pub num_children: u16,
    pub state: u8,
    /// Who acts here once expanded: 0 first player, 1 second, [`CHANCE`].
    pub to_move: u8,
    /// The game's result under best play when the search has proven it (see
    /// `search::solver`): +1 the first player wins, -1 the second does, 0 not proven.
    pub proof: i8,
}

impl<M> Node<M> {
    /// Mean value from the first player's view (0 when unvisited).
    #[inline(always)]
    pub fn mean(&self) -> f32 {
        if self.visits == 0 { 0.0 } else { self.value_sum / self.visits as f32 }
    }

    /// Mean plies left to the end of the game (0 when unvisited).
    #[inline(always)]
    pub fn moves_left(&self) -> f32 {
        if self.visits == 0 { 0.0 } else { self.moves_left_sum / self.visits as f32 }
    }

    #[inline(always)]
    pub fn children(&self) -> std::ops::Range<usize> {
        self.first_child as usize..self.first_child as usize + self.num_children as usize
    }
}

impl<M: Default> Node<M> {
    pub fn new(mv: M, prior: f32) -> Node<M> {
        Node {
            mv,
            prior,
            visits: 0,
            value_sum: 0.0,
            moves_left_sum: 0.0,
            terminal_value: 0.0,
            first_child: 0,
            num_children: 0,
            state: UNEXPANDED,
            to_move: 0,
            proof: 0,
        }
    }
}

/// `+1` if player `p` (0 or 1) is the first player, `-1` otherwise: turns first-player values
/// into values for `p`.
#[inline(always)]
pub fn sign(p: u8) -> f32 {
    if p == 0 { 1.0 } else { -1.0 }
}

/// The nodes of one search, plus a spare buffer used when re-rooting (so moving to a subtree
/// allocates nothing once both buffers have grown).
#[derive(Debug, Clone)]
pub struct Tree<M> {
    pub nodes: Vec<Node<M>>,
    spare: Vec<Node<M>>,
}

impl<M: Copy + Default> Tree<M> {
    pub fn new() -> Tree<M> {
        let mut nodes = Vec::with_capacity(1 << 12);
        nodes.push(Node::new(M::default(), 1.0));
        Tree { nodes, spare: Vec::new() }
    }

    /// The memory of the nodes the tree holds (not counting what its buffers keep spare).
    pub fn bytes(&self) -> usize {
        self.nodes.len() * std::mem::size_of::<Node<M>>()
    }

    /// Back to a single unexpanded root, keeping the allocations.
    pub fn reset(&mut self) {
        self.nodes.clear();
        self.nodes.push(Node::new(M::default(), 1.0));
    }

    #[inline(always)]
    pub fn root(&self) -> &Node<M> {
        &self.nodes[ROOT as usize]
    }

    /// Appends children and links them to `parent`.
    #[inline]
    pub fn add_children(&mut self, parent: u32, children: impl Iterator<Item = (M, f32)>) {
        let first = self.nodes.len();
        self.nodes.extend(children.map(|(m, p)| Node::new(m, p)));
        let n = self.nodes.len() - first;
        let p = &mut self.nodes[parent as usize];
        p.first_child = first as u32;
        p.num_children = n as u16;
    }

    /// Makes `new_root` (a node of this tree) the root, keeping its subtree and dropping the
    /// rest. Copies the subtree breadth first into the spare buffer and swaps buffers.
    pub fn reroot(&mut self, new_root: u32) {
        let mut out = std::mem::take(&mut self.spare);
        out.clear();
        out.push(self.nodes[new_root as usize]);
        let mut i = 0;
        while i < out.len() {
            let n = out[i];
            if n.num_children > 0 {
                let first = out.len() as u32;
                out.extend_from_slice(&self.nodes[n.children()]);
                out[i].first_child = first;
            }
            i += 1;
        }
        self.spare = std::mem::replace(&mut self.nodes, out);
    }
}

impl<M: Copy + Default> Default for Tree<M> {
    fn default() -> Self {
        Tree::new()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_node_with_a_two_byte_move_is_32_bytes() {
        // Jungle's moves are two bytes: a tree of a million visits stays near 32 MB.
        assert_eq!(std::mem::size_of::<Node<u16>>(), 32);
    }

    #[test]
    fn reroot_keeps_the_subtree() {
        let mut t: Tree<u16> = Tree::new();
        t.add_children(ROOT, [(1u16, 0.5f32), (2, 0.5)].into_iter());
        t.add_children(2, [(21u16, 1.0f32)].into_iter());
        t.add_children(3, [(211u16, 1.0f32)].into_iter());
        t.nodes[2].visits = 7;
        t.reroot(2);
        assert_eq!(t.nodes.len(), 3);
        assert_eq!((t.root().mv, t.root().visits), (2, 7));
        let c = t.root().first_child as usize;
        assert_eq!(t.nodes[c].mv, 21);
        assert_eq!(t.nodes[t.nodes[c].first_child as usize].mv, 211);
    }
}
