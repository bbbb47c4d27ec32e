//! One game's Monte-Carlo tree search, driven one simulation at a time.
//!
//! A simulation is `select` (walk down by PUCT, sampling at chance nodes) until a leaf that is
//! either finished (scored exactly), found in the network cache, or needs the network. In the
//! last case `select` returns the leaf's state for the caller to batch with other games' leaves,
//! and `complete` later expands it with the network's priors and backs the value up. Nothing
//! here allocates once the buffers have grown.

use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;
use rand_distr::{Distribution, Gamma};

use super::gumbel::{self, GumbelParams};
use super::tree::{CHANCE, EXPANDED, Node, PENDING, ROOT, TERMINAL, Tree, UNEXPANDED, sign};

mod parking;
mod solver;
use super::{Algorithm, MctsConfig};
use crate::game::{Encode, Seat, Turn};
use crate::mcts::cache::NnCache;
pub use solver::Proof;

/// The moves-left utility of a visited child whose value for the player choosing is `q`: with
/// `q > 0` a child that ends the game sooner than its parent expects gains up to `max_effect`,
/// with `q < 0` one that lasts longer does; scaled by `|q|` so that it matters only when the
/// result looks decided.
#[inline]
pub fn moves_left_utility(q: f32, parent_m: f32, child_m: f32, slope: f32, max_effect: f32) -> f32 {
    // -sign(q) · m · |q| = -m · q
    -(slope * (child_m - parent_m)).clamp(-max_effect, max_effect) * q
}

/// Visits a root child is forced to get under forced playouts: `sqrt(k · prior · N)`, with N
/// the visits of the root's children.
#[inline]
pub fn forced_count(k: f32, prior: f32, n: u32) -> f32 {
    (k * prior * n as f32).sqrt()
}

/// Added to a forced child's PUCT score: more than any score can otherwise reach.
const FORCED_BONUS: f32 = 1.0e6;

/// What a call to [`Search::select`] produced.
pub enum Step<'a, G> {
    /// The leaf whose state is given needs the network; call [`Search::complete`] next.
    NeedsEval(&'a G),
    /// The simulation finished without the network (finished game or cache hit).
    Done,
    /// The simulation reached a leaf parked for the network (see [`Search::park`]) and ended
    /// without a value.
    Collision,
}

/// A finished game's draw probability: 1 for a draw (value 0), else 0.
fn terminal_draw(value: f32) -> f32 {
    if value == 0.0 { 1.0 } else { 0.0 }
}

/// Win, draw and loss probabilities from a value `q` in [-1, 1] and a draw probability `d`:
/// w - l = q and w + d + l = 1, clamped where the two disagree. A value outside [-1, 1] is
/// taken at the nearest end, and one that is not a number (a broken network's; search reports
/// it, see [`Search::network_failed`]) as 0, so this never fails.
pub fn wdl(q: f32, d: f32) -> [f32; 3] {
    let q = if q.is_nan() { 0.0 } else { q.clamp(-1.0, 1.0) };
    let d = if d.is_nan() { 0.0 } else { d.clamp(0.0, 1.0 - q.abs()) };
    let w = ((1.0 + q - d) / 2.0).clamp(0.0, 1.0);
    [w, d, (1.0 - w - d).max(0.0)]
}

fn player_index(p: Seat) -> u8 {
    p.index() as u8
}

/// The network's output for one leaf: logits over the whole action space, the value for the
/// side to move there, and the plies left and the draw probability (NaN when the evaluator
/// does not predict them).
#[derive(Clone, Copy, Debug)]
pub struct Leaf<'a> {
    pub logits: &'a [f32],
    pub value: f32,
    pub moves_left: f32,
    pub draw: f32,
}

pub struct Search<G: Encode> {
    tree: Tree<G::Move>,
    root_state: G,
    scratch: G,
    path: Vec<u32>,
    pending: Option<u32>,
    chance_buf: Vec<(G::Move, f32)>,
    prior_buf: Vec<f32>,
    pair_buf: Vec<(u16, f32)>,
    /// A prior per action, all zero between uses (cache hits look their priors up here).
    by_action: Vec<f32>,
    config: MctsConfig,
    rng: ChaCha8Rng,
    /// Apply Dirichlet noise (Gumbel: sample the Gumbel variables) as soon as the root is
    /// expanded.
    noise_pending: bool,
    /// Gumbel search: the root children's Gumbel variables (empty: all zero).
    gumbel: Vec<f32>,
    /// Gumbel search: target visit count of each root simulation (built on first use).
    schedule: Vec<u32>,
    /// Simulations this search is expected to run (the sequential-halving budget).
    budget: u32,
    gumbel_params: GumbelParams,
    /// The evaluator predicts moves left (a finite estimate arrived), so the moves-left
    /// utility applies.
    moves_left_known: bool,
    /// PUCT with forced playouts: this search's root got noise, so root children below their
    /// forced count are searched first and the policy target is pruned.
    forced: bool,
    /// Root counts for choosing a move (kept to avoid allocating per move).
    count_buf: Vec<(G::Move, u32)>,
    /// Depths (plies below the root) of the simulations since the root last changed: their
    /// sum, count and maximum, for progress reports.
    depth_sum: u64,
    depth_count: u64,
    depth_max: u32,
    /// Draw probabilities backed up since the root last changed, for reports (the tree keeps
    /// none): (sum, simulations) at the root, then at each root child in order.
    draws: Vec<(f32, u32)>,
    /// Leaves waiting for the network while the search goes on, and their states.
    parked: Vec<parking::Parked>,
    parked_states: Vec<G>,
    /// Exact values of the positions it knows (endgame tables): leaves, as finished games are.
    oracle: Option<std::sync::Arc<dyn super::oracle::Oracle<G>>>,
    /// The evaluator returned a value or a legal move's logit that is not a finite number
    /// (see [`Search::network_failed`]).
    network_failed: bool,
    /// Prove wins and losses in the tree (see `solver`; the players' `mcts.play_solver`).
    solver: bool,
    /// The root's moves when restricted (`go searchmoves`; empty: all of them).
    root_moves: Vec<G::Move>,
}

/// Orders nodes by visits, ties by prior: the move played, the lines reported and the
/// principal variation all take the greatest.
fn most_visited<M>(a: &Node<M>, b: &Node<M>) -> std::cmp::Ordering {
    a.visits.cmp(&b.visits).then(a.prior.total_cmp(&b.prior))
}

impl<G: Encode> Search<G> {
    pub fn new(root: G, config: &MctsConfig, seed: u64) -> Search<G> {
        Search {
            tree: Tree::new(),
            scratch: root.clone(),
            root_state: root,
            path: Vec::with_capacity(256),
            pending: None,
            chance_buf: Vec::with_capacity(G::MAX_MOVES),
            prior_buf: Vec::with_capacity(G::MAX_MOVES),
            pair_buf: Vec::with_capacity(G::MAX_MOVES),
            by_action: vec![0.0; G::ACTIONS],
            config: config.clone(),
            rng: ChaCha8Rng::seed_from_u64(seed),
            noise_pending: false,
            gumbel: Vec::with_capacity(G::MAX_MOVES),
            schedule: Vec::new(),
            budget: config.playouts.max(1),
            gumbel_params: config.gumbel_params(),
            moves_left_known: false,
            forced: false,
            count_buf: Vec::with_capacity(G::MAX_MOVES),
            depth_sum: 0,
            depth_count: 0,
            depth_max: 0,
            draws: Vec::with_capacity(G::MAX_MOVES + 1),
            parked: Vec::new(),
            parked_states: Vec::new(),
            oracle: None,
            network_failed: false,
            solver: false,
            root_moves: Vec::new(),
        }
    }

    /// Proves wins and losses in the tree from now on (see `solver`): players do
    /// (`mcts.play_solver`), self-play does not.
    pub fn set_solver(&mut self, on: bool) {
        self.solver = on;
    }

    /// Values the positions `oracle` knows exactly (below the root), as finished games.
    pub fn set_oracle(&mut self, oracle: Option<std::sync::Arc<dyn super::oracle::Oracle<G>>>) {
        self.oracle = oracle;
    }

    fn is_gumbel(&self) -> bool {
        self.config.algorithm == Algorithm::Gumbel
    }

    /// The memory of the tree's nodes (see [`Tree::bytes`]).
    pub fn tree_bytes(&self) -> usize {
        self.tree.bytes()
    }

    /// The number of simulations the next searches will run (Gumbel search plans its
    /// sequential halving for it; PUCT ignores it).
    pub fn set_budget(&mut self, sims: u32) {
        if self.budget != sims.max(1) {
            self.budget = sims.max(1);
            self.schedule.clear();
        }
    }

    /// Gumbel search's improved policy at the root, `softmax(logits + σ(completed Q))`, as
    /// (move, probability) pairs over the root's moves (empty before the root is expanded).
    pub fn improved_policy(&self, out: &mut Vec<(G::Move, f32)>) {
        out.clear();
        let r = self.tree.root();
        if r.state != EXPANDED || r.to_move == CHANCE {
            return;
        }
        let s = sign(r.to_move);
        let children = &self.tree.nodes[r.children()];
        let mut logits = Vec::with_capacity(children.len());
        gumbel::improved_logits(children, s, r.terminal_value * s, &self.gumbel_params, &mut logits);
        gumbel::softmax_in_place(&mut logits);
        out.extend(children.iter().zip(logits).map(|(c, p)| (c.mv, p)));
    }

    pub fn root_state(&self) -> &G {
        &self.root_state
    }

    /// The state of the leaf waiting for the network (meaningful after `select` returned
    /// `NeedsEval` and before `complete`).
    pub fn leaf_state(&self) -> &G {
        &self.scratch
    }

    /// Whether a leaf is waiting for `complete`.
    pub fn is_pending(&self) -> bool {
        self.pending.is_some()
    }

    pub fn tree(&self) -> &Tree<G::Move> {
        &self.tree
    }

    pub fn config(&self) -> &MctsConfig {
        &self.config
    }

    /// Visits of the root (simulations that reached it, including earlier moves' reused ones).
    pub fn root_visits(&self) -> u32 {
        self.tree.root().visits
    }

    /// The root's mean value for the player to move there, in [-1, 1].
    pub fn root_value(&self) -> f32 {
        let r = self.tree.root();
        match self.root_state.turn() {
            Turn::Player(p) => r.mean() * sign(player_index(p)),
            _ => 0.0,
        }
    }

    /// The root's win, draw and loss probabilities for the player to move there: its value
    /// split by the mean draw probability of this search's simulations (those since the root
    /// last changed); `None` before any simulation brought a draw estimate.
    pub fn root_wdl(&self) -> Option<[f32; 3]> {
        let &(sum, n) = self.draws.first()?;
        (n > 0).then(|| wdl(self.root_value(), sum / n as f32))
    }

    /// The mean and the largest depth (plies below the root) the simulations reached since
    /// the root last changed; (0, 0) before the first.
    pub fn depth_stats(&self) -> (f32, u32) {
        if self.depth_count == 0 { (0.0, 0) } else { (self.depth_sum as f32 / self.depth_count as f32, self.depth_max) }
    }

    /// +1 when the first player is to move at the root, -1 for the second (values are kept from
    /// the first player's view); +1 at a chance root.
    fn root_sign(&self) -> f32 {
        match self.root_state.turn() {
            Turn::Player(p) => sign(player_index(p)),
            _ => 1.0,
        }
    }

    /// The `k` most visited root moves, most visited first: each with its visits, its mean
    /// value for the root's player, its win/draw/loss split for that player (`None` without
    /// draw estimates since the root last changed) and its line (the move, then the
    /// most-visited replies; at most `max` moves).
    pub fn lines(&self, k: usize, max: usize) -> Vec<(u32, f32, Option<[f32; 3]>, Vec<G::Move>, Option<Proof>)> {
        let s = self.root_sign();
        let first = self.tree.root().first_child as usize;
        let mut children: Vec<(usize, Option<Proof>)> =
            self.tree.root().children().filter(|&c| self.tree.nodes[c].visits > 0).map(|c| (c, self.child_proof(c))).collect();
        children.sort_by(|&(a, pa), &(b, pb)| solver::rank(&self.tree.nodes[b], pb, &self.tree.nodes[a], pa));
        children.truncate(k);
        children
            .into_iter()
            .map(|(c, proof)| {
                let n = &self.tree.nodes[c];
                let mut line = vec![n.mv];
                line.extend(self.line_below(n, max.saturating_sub(1)));
                let q = n.mean() * s;
                let split = self.draws.get(1 + c - first).filter(|d| d.1 > 0).map(|&(sum, k)| wdl(q, sum / k as f32));
                (n.visits, q, split, line, proof)
            })
            .collect()
    }

    /// The most-visited line from the root, at most `max` moves.
    pub fn principal_variation(&self, max: usize) -> Vec<G::Move> {
        self.line_below(self.tree.root(), max)
    }

    /// The most-visited line below `node`, at most `max` moves.
    fn line_below(&self, node: &Node<G::Move>, max: usize) -> Vec<G::Move> {
        let tree = &self.tree;
        let mut pv = Vec::new();
        let mut node = node;
        while node.num_children > 0 && pv.len() < max {
            let Some(best) = tree.nodes[node.children()].iter().filter(|c| c.visits > 0).max_by(|a, b| most_visited(a, b)) else { break };
            pv.push(best.mv);
            node = best;
        }
        pv
    }

    /// (move, visits, prior, mean value for the root's player) of each root child.
    pub fn root_children(&self) -> impl Iterator<Item = (G::Move, u32, f32, f32)> + '_ {
        let s = self.root_sign();
        let r = self.tree.root();
        self.tree.nodes[r.children()].iter().map(move |c| (c.mv, c.visits, c.prior, c.mean() * s))
    }

    /// The visit counts to record as the policy target: the root children's visits, or with
    /// forced playouts the same pruned as KataGo does (arXiv:1902.10565, section 3.1): every
    /// child but the most visited loses up to its forced count of visits as long as its PUCT
    /// score with the remaining visits stays below the best child's, and a child left with
    /// a single visit is dropped. Children with no visit are left out.
    pub fn policy_target(&self, out: &mut Vec<(G::Move, u32)>) {
        out.clear();
        let r = *self.tree.root();
        if r.state != EXPANDED || r.to_move == CHANCE {
            return;
        }
        let children = &self.tree.nodes[r.children()];
        out.extend(children.iter().filter(|c| c.visits > 0).map(|c| (c.mv, c.visits)));
        let k = self.config.forced_playouts;
        if !self.forced || k <= 0.0 {
            return;
        }
        let s = sign(r.to_move);
        let n_children: u32 = children.iter().map(|c| c.visits).sum();
        let sqrt_n = (r.visits.max(1) as f32).sqrt();
        let c_puct = self.config.c_puct_at(r.visits);
        let puct = |q: f32, prior: f32, visits: f32| q + c_puct * prior * sqrt_n / (1.0 + visits);
        let Some(best) = children.iter().max_by(|a, b| a.visits.cmp(&b.visits).then(a.prior.total_cmp(&b.prior))) else {
            return;
        };
        let best_score = puct(best.mean() * s, best.prior, best.visits as f32);
        for (j, c) in children.iter().filter(|c| c.visits > 0).enumerate() {
            let mut n = c.visits;
            if !std::ptr::eq(c, best) {
                let q = c.mean() * s;
                let floor = (c.visits as f32 - forced_count(k, c.prior, n_children)).max(0.0);
                // Fewest visits v >= floor with puct(q, P, v) < best_score.
                let gap = best_score - q;
                let x = c_puct * c.prior * sqrt_n / gap - 1.0;
                let needed = if x < 0.0 { 0.0 } else { x.floor() + 1.0 };
                let kept = floor.max(needed).min(c.visits as f32);
                n = if gap > 0.0 { kept as u32 } else { c.visits };
                if n <= 1 {
                    n = 0;
                }
            }
            out[j].1 = n;
        }
        out.retain(|&(_, n)| n > 0);
    }

    /// Asks for Dirichlet noise on the root priors before the next simulations (applied now if
    /// the root is already expanded).
    pub fn request_noise(&mut self) {
        if self.tree.root().state == EXPANDED {
            self.apply_noise();
        } else {
            self.noise_pending = true;
        }
    }

    fn apply_noise(&mut self) {
        self.noise_pending = false;
        if self.is_gumbel() {
            let root = *self.tree.root();
            self.gumbel.clear();
            for _ in root.children() {
                let u: f32 = self.rng.random::<f32>().clamp(1e-7, 1.0 - 1e-7);
                self.gumbel.push(-(-u.ln()).ln());
            }
            return;
        }
        self.forced = self.config.forced_playouts > 0.0;
        let (alpha, frac) = (self.config.dirichlet_alpha, self.config.dirichlet_fraction);
        let root = *self.tree.root();
        if frac <= 0.0 || root.num_children < 2 || root.to_move == CHANCE {
            return;
        }
        let Ok(gamma) = Gamma::new(alpha.max(1e-3), 1.0) else { return };
        self.prior_buf.clear();
        for _ in root.children() {
            let g: f32 = gamma.sample(&mut self.rng);
            self.prior_buf.push(g);
        }
        let total: f32 = self.prior_buf.iter().sum();
        if total <= 0.0 {
            return;
        }
        for (i, c) in root.children().enumerate() {
            let n = &mut self.tree.nodes[c];
            n.prior = (1.0 - frac) * n.prior + frac * self.prior_buf[i] / total;
        }
    }

    /// Gumbel search's child choice: sequential halving at the root, the improved policy's
    /// deterministic rule below it.
    fn select_child_gumbel(&mut self, id: u32) -> u32 {
        let node = self.tree.nodes[id as usize];
        let s = sign(node.to_move);
        let v_net = node.terminal_value * s;
        let children = &self.tree.nodes[node.children()];
        let p = &self.gumbel_params;
        if id == ROOT {
            if self.schedule.is_empty() {
                let m = p.considered.min(node.num_children as u32);
                gumbel::halving_schedule(m, self.budget, &mut self.schedule);
            }
            let k: u32 = children.iter().map(|c| c.visits).sum();
            if let Some(&target) = self.schedule.get(k as usize)
                && let Some(i) = gumbel::select_root(children, s, v_net, &self.gumbel, target, p)
            {
                return node.first_child + i as u32;
            }
        }
        node.first_child + gumbel::select_non_root(children, s, v_net, p) as u32
    }

    /// PUCT child choice at an expanded player node.
    #[inline]
    fn select_child(&self, id: u32) -> u32 {
        let node = &self.tree.nodes[id as usize];
        let s = sign(node.to_move);
        let c_puct = self.config.c_puct_at(node.visits);
        let fpu_red = if id == ROOT { self.config.fpu_reduction_root } else { self.config.fpu_reduction };
        let children = &self.tree.nodes[node.children()];
        let visited_policy: f32 = children.iter().filter(|c| c.visits > 0).map(|c| c.prior).sum();
        let fpu = node.mean() * s - fpu_red * visited_policy.sqrt();
        let sqrt_n = (node.visits.max(1) as f32).sqrt();
        let (slope, max_effect) = (self.config.moves_left_slope, self.config.moves_left_max_effect);
        let use_moves_left = self.moves_left_known && slope > 0.0;
        let parent_m = node.moves_left();
        // Forced playouts: a root child below sqrt(k · P · N) visits outranks every other.
        let forced_k = if id == ROOT && self.forced { self.config.forced_playouts } else { 0.0 };
        let n_children: u32 = if forced_k > 0.0 { children.iter().map(|c| c.visits).sum() } else { 0 };
        let mut best = node.first_child;
        let mut best_score = f32::NEG_INFINITY;
        for (i, c) in children.iter().enumerate() {
            // A move proven lost is never tried again (some other is not, or the node would be
            // proven itself).
            if c.proof != 0 && f32::from(c.proof) * s < 0.0 {
                continue;
            }
            let mut q = if c.visits > 0 { c.mean() * s } else { fpu };
            if use_moves_left && c.visits > 0 {
                q += moves_left_utility(q, parent_m, c.moves_left(), slope, max_effect);
            }
            let u = c_puct * c.prior * sqrt_n / (1.0 + c.visits as f32);
            let mut score = q + u;
            if forced_k > 0.0 && (c.visits as f32) < forced_count(forced_k, c.prior, n_children) {
                score += FORCED_BONUS;
            }
            if score > best_score {
                best_score = score;
                best = node.first_child + i as u32;
            }
        }
        best
    }

    /// Samples a chance outcome by its probability.
    #[inline]
    fn sample_chance(&mut self, id: u32) -> u32 {
        let node = self.tree.nodes[id as usize];
        let mut x: f32 = self.rng.random();
        for c in node.children() {
            x -= self.tree.nodes[c].prior;
            if x <= 0.0 {
                return c as u32;
            }
        }
        (node.first_child + node.num_children as u32 - 1).max(node.first_child)
    }

    /// Backs a leaf's value (first player's view) and its plies-left estimate up the path:
    /// a node `d` plies above the leaf gets `moves_left + d`. An unknown estimate (NaN) counts
    /// as 0 and is never read, since the utility then stays off. The draw probability goes to
    /// the root's and the root child's sums (an unknown one to neither).
    fn backprop(&mut self, value_first: f32, moves_left: f32, draw: f32) {
        if draw.is_finite() {
            let r = self.tree.root();
            if self.draws.len() <= r.num_children as usize {
                self.draws.resize(r.num_children as usize + 1, (0.0, 0));
            }
            self.draws[0].0 += draw;
            self.draws[0].1 += 1;
            if let Some(&c) = self.path.get(1) {
                let d = &mut self.draws[1 + (c - r.first_child) as usize];
                d.0 += draw;
                d.1 += 1;
            }
        }
        let m = if moves_left.is_finite() {
            self.moves_left_known = true;
            moves_left.max(0.0)
        } else {
            0.0
        };
        let leaf = self.path.len();
        let depth = leaf.saturating_sub(1) as u32;
        self.depth_sum += u64::from(depth);
        self.depth_count += 1;
        self.depth_max = self.depth_max.max(depth);
        for (depth, &id) in self.path.iter().enumerate() {
            let n = &mut self.tree.nodes[id as usize];
            n.visits += 1;
            n.value_sum += value_first;
            n.moves_left_sum += m + (leaf - 1 - depth) as f32;
        }
    }

    /// Expands `id` (whose state is in `scratch` and whose legal moves are `moves`) with the
    /// priors in `prior_buf`, one per move in order, renormalised (all zero means uniform).
    /// Fresh network output goes through here too, after being stored in the cache, so a
    /// cache hit expands exactly as the original evaluation did.
    fn expand_player(&mut self, id: u32, to_move: u8, moves: &[G::Move]) {
        if id == ROOT && !self.root_moves.is_empty() {
            return self.expand_root_among(to_move, moves);
        }
        let total: f32 = self.prior_buf.iter().sum();
        let uniform = 1.0 / moves.len().max(1) as f32;
        let priors = &self.prior_buf;
        self.tree.add_children(id, moves.iter().enumerate().map(|(i, &m)| (m, if total > 0.0 { priors[i] / total } else { uniform })));
        let n = &mut self.tree.nodes[id as usize];
        n.state = EXPANDED;
        n.to_move = to_move;
        if id == ROOT && self.noise_pending {
            self.apply_noise();
        }
    }

    /// [`Self::expand_player`] at a root restricted to `root_moves` (`go searchmoves`): only
    /// those children, their priors renormalised among them.
    fn expand_root_among(&mut self, to_move: u8, moves: &[G::Move]) {
        let allowed = &self.root_moves;
        let priors = &self.prior_buf;
        let kept = || moves.iter().zip(priors.iter()).filter(|(m, _)| allowed.contains(m));
        let total: f32 = kept().map(|(_, p)| p).sum();
        let uniform = 1.0 / kept().count().max(1) as f32;
        let children: Vec<(G::Move, f32)> = kept().map(|(&m, &p)| (m, if total > 0.0 { p / total } else { uniform })).collect();
        self.tree.add_children(ROOT, children.into_iter());
        let n = &mut self.tree.nodes[ROOT as usize];
        n.state = EXPANDED;
        n.to_move = to_move;
        if self.noise_pending {
            self.apply_noise();
        }
    }

    /// Restricts the root to `moves` (empty: every legal move) from its next expansion; call
    /// on a fresh tree ([`Self::reset`]).
    pub fn set_root_moves(&mut self, moves: &[G::Move]) {
        self.root_moves.clear();
        self.root_moves.extend_from_slice(moves);
    }

    /// Whether the root is restricted to some of its moves.
    pub fn root_filtered(&self) -> bool {
        !self.root_moves.is_empty()
    }

    /// Fills `prior_buf` with the prior of each of `moves` (the scratch state's) from cached
    /// (action, prior) pairs; a move without a pair gets 0. Looked up through a table indexed
    /// by action, which is left all zero again.
    fn priors_from_pairs(&mut self, moves: &[G::Move], pairs: &[(u16, f32)]) {
        // In reverse, so that the first pair of an action wins.
        for &(a, p) in pairs.iter().rev() {
            self.by_action[a as usize] = p;
        }
        self.prior_buf.clear();
        for &m in moves {
            self.prior_buf.push(self.by_action[self.scratch.action_index(m)]);
        }
        for &(a, _) in pairs {
            self.by_action[a as usize] = 0.0;
        }
    }

    /// Runs one simulation until it finishes or needs the network.
    pub fn select(&mut self, cache: &mut NnCache) -> Step<'_, G> {
        debug_assert!(self.pending.is_none(), "complete() the pending leaf first");
        self.path.clear();
        self.scratch.copy_for_search(&self.root_state);
        let mut id = ROOT;
        self.path.push(id);
        loop {
            let node = self.tree.nodes[id as usize];
            if node.proof != 0 {
                // Proven: its exact value, whatever lies below (only the solver proves).
                self.backprop(f32::from(node.proof), node.moves_left(), 0.0);
                return Step::Done;
            }
            match node.state {
                TERMINAL => {
                    self.backprop(node.terminal_value, 0.0, terminal_draw(node.terminal_value));
                    return Step::Done;
                }
                PENDING => return Step::Collision,
                EXPANDED => {
                    let child = if node.to_move == CHANCE {
                        self.sample_chance(id)
                    } else if self.is_gumbel() {
                        self.select_child_gumbel(id)
                    } else {
                        self.select_child(id)
                    };
                    let mv = self.tree.nodes[child as usize].mv;
                    self.scratch.play_unchecked(mv);
                    self.path.push(child);
                    id = child;
                }
                _ => match self.scratch.turn() {
                    Turn::Over(o) => {
                        let v = o.value_for(Seat::First);
                        let n = &mut self.tree.nodes[id as usize];
                        n.state = TERMINAL;
                        n.terminal_value = v;
                        self.prove_leaf(v);
                        self.backprop(v, 0.0, terminal_draw(v));
                        return Step::Done;
                    }
                    Turn::Chance => {
                        self.scratch.chance_outcomes(&mut self.chance_buf);
                        let outcomes = std::mem::take(&mut self.chance_buf);
                        self.tree.add_children(id, outcomes.iter().copied());
                        self.chance_buf = outcomes;
                        let n = &mut self.tree.nodes[id as usize];
                        n.state = EXPANDED;
                        n.to_move = CHANCE;
                    }
                    Turn::Player(p) => {
                        // A position the oracle knows is a leaf with its exact value (the root
                        // still gets its moves: a player needs one).
                        if id != ROOT
                            && let Some(e) = self.oracle.as_ref().and_then(|o| o.exact(&self.scratch))
                        {
                            let v = e.value * sign(player_index(p));
                            let n = &mut self.tree.nodes[id as usize];
                            n.state = TERMINAL;
                            n.terminal_value = v;
                            self.prove_leaf(v);
                            self.backprop(v, f32::from(e.plies), terminal_draw(v));
                            return Step::Done;
                        }
                        let key = self.scratch.input_hash();
                        if let Some((v, m, d, pairs)) = cache.get(key) {
                            let v_first = v * sign(player_index(p));
                            let moves = self.scratch.legal_moves();
                            self.priors_from_pairs(&moves, pairs);
                            self.expand_player(id, player_index(p), &moves);
                            self.tree.nodes[id as usize].terminal_value = v_first;
                            self.backprop(v_first, m, d);
                            return Step::Done;
                        }
                        self.pending = Some(id);
                        return Step::NeedsEval(&self.scratch);
                    }
                },
            }
        }
    }

    /// Finishes the pending simulation with the network's output for its leaf.
    pub fn complete(&mut self, leaf: Leaf<'_>, cache: &mut NnCache) {
        let Leaf { logits, mut value, mut moves_left, mut draw } = leaf;
        let Some(id) = self.pending.take() else { return };
        let Turn::Player(p) = self.scratch.turn() else { return };
        let inv_t = 1.0 / self.config.policy_temperature.max(1e-3);
        // Softmax over the legal moves only; subtract the max for stability. The moves are
        // generated once here and expanded in the same order.
        let moves = self.scratch.legal_moves();
        let mut pairs = std::mem::take(&mut self.pair_buf);
        pairs.clear();
        let mut max = f32::NEG_INFINITY;
        let mut finite = value.is_finite() && !moves_left.is_infinite() && !draw.is_infinite();
        for &m in moves.iter() {
            let a = self.scratch.action_index(m);
            pairs.push((a as u16, logits[a]));
            finite &= logits[a].is_finite();
            max = max.max(logits[a]);
        }
        if !finite {
            // A broken network: the search goes on with a neutral leaf (value 0, uniform
            // priors) so its tree stays sound, and its player reports the failure.
            self.network_failed = true;
            (value, moves_left, draw, max) = (0.0, f32::NAN, f32::NAN, 0.0);
            pairs.iter_mut().for_each(|slot| slot.1 = 0.0);
        }
        let mut total = 0.0;
        for slot in pairs.iter_mut() {
            slot.1 = ((slot.1 - max) * inv_t).exp();
            total += slot.1;
        }
        for slot in pairs.iter_mut() {
            slot.1 /= total;
        }
        cache.insert(self.scratch.input_hash(), value, moves_left, draw, pairs.iter().copied());
        self.prior_buf.clear();
        self.prior_buf.extend(pairs.iter().map(|&(_, prior)| prior));
        self.pair_buf = pairs;
        self.expand_player(id, player_index(p), &moves);
        let v_first = value * sign(player_index(p));
        self.tree.nodes[id as usize].terminal_value = v_first;
        self.backprop(v_first, moves_left, draw);
    }

    /// Whether the evaluator returned a value or a logit that is not a finite number since the
    /// search was last reset: its moves are then not to be trusted.
    pub fn network_failed(&self) -> bool {
        self.network_failed
    }

    /// The most visited root move (ties: higher prior; Gumbel search: ties by
    /// `g + logit + σ(q̂)`, the survivor of sequential halving).
    /// With proofs in the tree (the players' solver), a proven win comes first, the shortest,
    /// and a proven loss last, the longest (see `solver::rank`).
    pub fn best_move(&self) -> Option<G::Move> {
        let r = self.tree.root();
        let proofs = self.solver && self.tree.nodes[r.children()].iter().any(|c| c.proof != 0);
        if self.is_gumbel() && r.state == EXPANDED && r.to_move != CHANCE && !proofs {
            let s = sign(r.to_move);
            let children = &self.tree.nodes[r.children()];
            if let Some(i) = gumbel::final_choice(children, s, r.terminal_value * s, &self.gumbel, &self.gumbel_params) {
                return Some(children[i].mv);
            }
        }
        if proofs {
            let nodes = &self.tree.nodes;
            return r
                .children()
                .map(|c| (c, self.child_proof(c)))
                .max_by(|&(a, pa), &(b, pb)| solver::rank(&nodes[a], pa, &nodes[b], pb))
                .map(|(c, _)| nodes[c].mv);
        }
        self.tree.nodes[r.children()].iter().max_by(|a, b| most_visited(a, b)).map(|c| c.mv)
    }

    /// A root move sampled with probability proportional to `visits^(1/temperature)`; the most
    /// visited move when the temperature is (near) zero.
    /// Gumbel search always plays its sequential-halving survivor (its Gumbel noise explores).
    pub fn choose_move(&mut self, temperature: f32) -> Option<G::Move> {
        // A proven result at the root leaves nothing to sample: win at once, lose slowest.
        if temperature < 1e-3 || self.is_gumbel() || self.root_proven() {
            return self.best_move();
        }
        // The visited children's counts (pruned of forced playouts when they ran).
        let mut counts = std::mem::take(&mut self.count_buf);
        self.policy_target(&mut counts);
        let max = counts.iter().map(|c| c.1).max().unwrap_or(0);
        let mut chosen = None;
        if max > 0 {
            // Normalise by the largest count before the power to stay in range.
            let weight = |n: u32| (n as f32 / max as f32).powf(1.0 / temperature);
            let total: f32 = counts.iter().map(|c| weight(c.1)).sum();
            let mut x = self.rng.random::<f32>() * total;
            for &(mv, n) in &counts {
                x -= weight(n);
                if x <= 0.0 {
                    chosen = Some(mv);
                    break;
                }
            }
        }
        self.count_buf = counts;
        chosen.or_else(|| self.best_move())
    }

    /// Plays `mv` at the root, keeping its subtree for the next search.
    pub fn advance(&mut self, mv: G::Move) {
        self.pending = None;
        let r = *self.tree.root();
        let child = r.children().find(|&c| self.tree.nodes[c].mv == mv);
        self.root_state.play_unchecked(mv);
        self.gumbel.clear();
        self.schedule.clear();
        match child {
            // Gumbel search plans each move's visits from scratch.
            _ if self.is_gumbel() => self.tree.reset(),
            Some(c) if self.tree.nodes[c].state != UNEXPANDED || self.tree.nodes[c].visits > 0 => {
                self.tree.reroot(c as u32);
            }
            _ => self.tree.reset(),
        }
        self.noise_pending = false;
        self.forced = false;
        self.clear_depths();
    }

    /// Forgets the reports' statistics and any parked leaf (the root changed).
    fn clear_depths(&mut self) {
        (self.depth_sum, self.depth_count, self.depth_max) = (0, 0, 0);
        self.draws.clear();
        self.drop_parked();
    }

    /// Moves the root to `target` when a searched line of at most `max_plies` moves leads
    /// there from the root (the opponent's reply to the move just played; a flip game's
    /// revealed piece in between), keeping that subtree. Positions match by hash, ply and
    /// turn. Returns false and leaves the search unchanged when no searched line leads there;
    /// true at once when `target` is the root itself.
    pub fn follow(&mut self, target: &G, max_plies: usize) -> bool {
        let same = |s: &G| s.hash() == target.hash() && s.ply() == target.ply() && s.turn() == target.turn();
        if same(&self.root_state) {
            return true;
        }
        let mut line = Vec::with_capacity(max_plies);
        if !self.find_line(ROOT as usize, &self.root_state, &same, max_plies, &mut line) {
            return false;
        }
        for mv in line {
            self.advance(mv);
        }
        true
    }

    /// Depth-first through visited children for a state `same` accepts; `line` gets its moves.
    fn find_line(&self, node: usize, state: &G, same: &dyn Fn(&G) -> bool, plies: usize, line: &mut Vec<G::Move>) -> bool {
        if plies == 0 {
            return false;
        }
        for c in self.tree.nodes[node].children() {
            let child = &self.tree.nodes[c];
            if child.visits == 0 {
                continue;
            }
            let mut next = state.clone();
            next.play_unchecked(child.mv);
            line.push(child.mv);
            if same(&next) || self.find_line(c, &next, same, plies - 1, line) {
                return true;
            }
            line.pop();
        }
        false
    }

    /// Starts over from a new root state (a new game), keeping allocations.
    pub fn reset(&mut self, root: &G) {
        self.network_failed = false;
        self.root_state.clone_from(root);
        self.tree.reset();
        self.pending = None;
        self.noise_pending = false;
        self.forced = false;
        self.gumbel.clear();
        self.schedule.clear();
        self.clear_depths();
    }

    /// Reseeds the search's random numbers (noise, temperature, chance sampling).
    pub fn reseed(&mut self, seed: u64) {
        self.rng = ChaCha8Rng::seed_from_u64(seed);
    }
}
