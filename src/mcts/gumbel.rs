//! Gumbel search (Danihelka et al., "Policy improvement by planning with Gumbel", ICLR 2022):
//! the arithmetic on a node's children, shared by the root's sequential halving, the
//! deterministic choice below the root, and the improved policy that becomes the training target.
//!
//! Values here are for the player to move at the node whose children are scored, in [-1, 1].
//! Logits are the logarithms of the children's priors (a constant offset changes nothing).

use super::tree::Node;

/// Settings of the Gumbel arithmetic (from `[mcts]`).
#[derive(Clone, Copy, Debug)]
pub struct GumbelParams {
    /// Root actions sampled for sequential halving (m).
    pub considered: u32,
    /// `c_visit` of σ(q) = (c_visit + max N) · c_scale · q̂.
    pub c_visit: f32,
    /// `c_scale` of the same.
    pub c_scale: f32,
}

/// The target visit count of every root simulation under sequential halving: `m` actions (at
/// most), `n` simulations. Simulation `k` visits the best-scored action whose visits equal
/// `out[k]`; each phase gives every remaining action `max(1, n / (ceil(log2 m) · remaining))`
/// more visits, then the better half (at least two) goes on.
pub fn halving_schedule(m: u32, n: u32, out: &mut Vec<u32>) {
    out.clear();
    let n = n as usize;
    if m <= 1 {
        out.extend(0..n as u32);
        return;
    }
    let rounds = (m as f64).log2().ceil().max(1.0) as usize;
    let mut remaining = m as usize;
    let mut base = 0u32;
    while out.len() < n {
        let extra = (n / (rounds * remaining)).max(1);
        for v in 0..extra as u32 {
            for _ in 0..remaining {
                out.push(base + v);
            }
        }
        base += extra as u32;
        remaining = (remaining / 2).max(2);
    }
    out.truncate(n);
}

/// A child's logit: the log of its prior.
#[inline]
pub fn logit<M>(c: &Node<M>) -> f32 {
    c.prior.max(1e-30).ln()
}

/// Completed Q values of `children` for the player `s` (±1) to move at their parent: a visited
/// child's mean value, and for the unvisited ones the mixed value of the parent's own network
/// value `v_net` and the prior-weighted mean of the visited children (the paper's v_mix).
/// Calls `f(index, completed q)` for each child; returns (min, max) of the completed values.
#[inline]
pub fn completed_q<M>(children: &[Node<M>], s: f32, v_net: f32, mut f: impl FnMut(usize, f32)) -> (f32, f32) {
    let (mut sum_n, mut pi_vis, mut pi_q) = (0u32, 0.0f32, 0.0f32);
    for c in children {
        if c.visits > 0 {
            sum_n += c.visits;
            pi_vis += c.prior;
            pi_q += c.prior * c.mean() * s;
        }
    }
    let v_mix = if sum_n > 0 && pi_vis > 0.0 { (v_net + sum_n as f32 * pi_q / pi_vis) / (1.0 + sum_n as f32) } else { v_net };
    let (mut lo, mut hi) = (f32::INFINITY, f32::NEG_INFINITY);
    for (i, c) in children.iter().enumerate() {
        let q = if c.visits > 0 { c.mean() * s } else { v_mix };
        lo = lo.min(q);
        hi = hi.max(q);
        f(i, q);
    }
    (lo, hi)
}

/// σ applied to a completed value `q` normalised by the (min, max) of its siblings:
/// `(c_visit + max N) · c_scale · (q − min) / (max − min)`.
#[inline]
pub fn sigma(q: f32, (lo, hi): (f32, f32), max_visits: u32, p: &GumbelParams) -> f32 {
    let qn = if hi - lo > 1e-8 { (q - lo) / (hi - lo) } else { 0.0 };
    (p.c_visit + max_visits as f32) * p.c_scale * qn
}

/// `logit + σ(completed q)` of every child into `out` (the improved policy's logits).
pub fn improved_logits<M>(children: &[Node<M>], s: f32, v_net: f32, p: &GumbelParams, out: &mut Vec<f32>) {
    out.clear();
    out.resize(children.len(), 0.0);
    let max_n = children.iter().map(|c| c.visits).max().unwrap_or(0);
    let bounds = completed_q(children, s, v_net, |i, q| out[i] = q);
    for (o, c) in out.iter_mut().zip(children) {
        *o = logit(c) + sigma(*o, bounds, max_n, p);
    }
}

/// Softmax in place.
pub fn softmax_in_place(x: &mut [f32]) {
    let max = x.iter().copied().fold(f32::NEG_INFINITY, f32::max);
    let mut total = 0.0;
    for v in x.iter_mut() {
        *v = (*v - max).exp();
        total += *v;
    }
    if total > 0.0 {
        for v in x.iter_mut() {
            *v /= total;
        }
    }
}

/// The child chosen below the root: `argmax (π'(a) − N(a) / (1 + Σ N))` with π' the improved
/// policy. Allocates nothing (three passes over the children).
pub fn select_non_root<M>(children: &[Node<M>], s: f32, v_net: f32, p: &GumbelParams) -> usize {
    let max_n = children.iter().map(|c| c.visits).max().unwrap_or(0);
    let sum_n: u32 = children.iter().map(|c| c.visits).sum();
    let bounds = completed_q(children, s, v_net, |_, _| {});
    // Second pass: the softmax's maximum and normaliser.
    let mut max = f32::NEG_INFINITY;
    completed_q(children, s, v_net, |i, q| max = max.max(logit(&children[i]) + sigma(q, bounds, max_n, p)));
    let mut total = 0.0;
    completed_q(children, s, v_net, |i, q| total += (logit(&children[i]) + sigma(q, bounds, max_n, p) - max).exp());
    let (mut best, mut best_score) = (0, f32::NEG_INFINITY);
    completed_q(children, s, v_net, |i, q| {
        let pi = (logit(&children[i]) + sigma(q, bounds, max_n, p) - max).exp() / total;
        let score = pi - children[i].visits as f32 / (1.0 + sum_n as f32);
        if score > best_score {
            best_score = score;
            best = i;
        }
    });
    best
}

/// The root child for the next simulation: among the children whose visits equal `target`, the
/// best by `g + logit + σ(q̂)` (`gumbel[i]`, 0 where missing). `None` if no child has exactly
/// `target` visits.
pub fn select_root<M>(children: &[Node<M>], s: f32, v_net: f32, gumbel: &[f32], target: u32, p: &GumbelParams) -> Option<usize> {
    let max_n = children.iter().map(|c| c.visits).max().unwrap_or(0);
    let bounds = completed_q(children, s, v_net, |_, _| {});
    let mut best = None;
    let mut best_score = f32::NEG_INFINITY;
    completed_q(children, s, v_net, |i, q| {
        if children[i].visits != target {
            return;
        }
        let score = gumbel.get(i).copied().unwrap_or(0.0) + logit(&children[i]) + sigma(q, bounds, max_n, p);
        if score > best_score {
            best_score = score;
            best = Some(i);
        }
    });
    best
}

/// The move to play after the search: the most visited root child, ties broken by
/// `g + logit + σ(q̂)` (the survivor of sequential halving).
pub fn final_choice<M>(children: &[Node<M>], s: f32, v_net: f32, gumbel: &[f32], p: &GumbelParams) -> Option<usize> {
    let max_n = children.iter().map(|c| c.visits).max()?;
    select_root(children, s, v_net, gumbel, max_n, p)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn child(prior: f32, visits: u32, mean: f32) -> Node<u16> {
        let mut n = Node::new(0u16, prior);
        n.visits = visits;
        n.value_sum = mean * visits as f32;
        n
    }

    const P: GumbelParams = GumbelParams { considered: 16, c_visit: 50.0, c_scale: 0.1 };

    #[test]
    fn the_schedule_halves_and_spends_exactly_the_budget() {
        let mut s = Vec::new();
        halving_schedule(4, 16, &mut s);
        // 2 rounds: 4 actions x 2 visits, then 2 actions x 4 visits.
        assert_eq!(s, vec![0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5]);
        for (m, n) in [(16, 64), (16, 100), (16, 25), (8, 8), (3, 7), (1, 5), (16, 2)] {
            halving_schedule(m, n, &mut s);
            assert_eq!(s.len(), n as usize, "m {m} n {n}");
        }
        halving_schedule(1, 3, &mut s);
        assert_eq!(s, vec![0, 1, 2]);
    }

    /// Simulates sequential halving on a bandit with known action values: every simulation
    /// visits the action `select_root` picks and "backs up" its true value.
    fn run_bandit(values: &[f32], priors: &[f32], n: u32, m: u32) -> (Vec<Node<u16>>, usize) {
        let mut children: Vec<Node<u16>> = priors.iter().map(|&p| child(p, 0, 0.0)).collect();
        let mut sched = Vec::new();
        halving_schedule(m.min(values.len() as u32), n, &mut sched);
        let gumbel = vec![0.0; values.len()];
        for &target in &sched {
            let i = select_root(&children, 1.0, 0.0, &gumbel, target, &P).expect("some child has the target count");
            children[i].visits += 1;
            children[i].value_sum += values[i];
        }
        let best = final_choice(&children, 1.0, 0.0, &gumbel, &P).unwrap();
        (children, best)
    }

    #[test]
    fn sequential_halving_visits_exactly_the_budget_and_keeps_the_best_action() {
        // Eight actions, uniform priors; action 5 is the best.
        let values = [0.1, -0.2, 0.3, 0.0, -0.5, 0.6, 0.2, -0.1];
        let priors = [0.125; 8];
        for n in [8, 16, 32, 50, 64, 100] {
            let (children, best) = run_bandit(&values, &priors, n, 16);
            let total: u32 = children.iter().map(|c| c.visits).sum();
            assert_eq!(total, n, "budget {n}");
            assert_eq!(best, 5, "budget {n}: {:?}", children.iter().map(|c| c.visits).collect::<Vec<_>>());
        }
        // A higher prior on a worse action does not survive halving.
        let mut priors = [0.1; 8];
        priors[2] = 0.3;
        let (_, best) = run_bandit(&values, &priors, 64, 16);
        assert_eq!(best, 5);
    }

    #[test]
    fn the_improved_policy_is_a_distribution_equal_to_the_prior_before_any_visit() {
        let children = [child(0.5, 0, 0.0), child(0.3, 0, 0.0), child(0.2, 0, 0.0)];
        let mut out = Vec::new();
        improved_logits(&children, 1.0, 0.4, &P, &mut out);
        softmax_in_place(&mut out);
        for (o, c) in out.iter().zip(&children) {
            assert!((o - c.prior).abs() < 1e-6, "{out:?}");
        }
        // After visits it still sums to 1, and a well-valued child gains mass.
        let children = [child(0.5, 3, -0.5), child(0.3, 2, 0.8), child(0.2, 0, 0.0)];
        improved_logits(&children, 1.0, 0.0, &P, &mut out);
        softmax_in_place(&mut out);
        assert!((out.iter().sum::<f32>() - 1.0).abs() < 1e-6);
        assert!(out[1] > 0.3 && out[0] < 0.5, "{out:?}");
        // Values are read for the player to move: s = -1 flips the preference.
        improved_logits(&children, -1.0, 0.0, &P, &mut out);
        softmax_in_place(&mut out);
        assert!(out[1] < 0.3 && out[0] > 0.5, "{out:?}");
    }

    #[test]
    fn unvisited_children_get_the_mixed_value() {
        let children = [child(0.6, 4, 0.5), child(0.4, 0, 0.0)];
        let mut qs = [0.0; 2];
        completed_q(&children, 1.0, -0.5, |i, q| qs[i] = q);
        // v_mix = (v_net + N * sum(pi q) / sum(pi)) / (1 + N) = (-0.5 + 4 * 0.5) / 5.
        assert!((qs[1] - 0.3).abs() < 1e-6, "{qs:?}");
        assert_eq!(qs[0], 0.5);
    }

    #[test]
    fn below_the_root_the_choice_follows_the_improved_policy() {
        // No visits yet: the highest prior first.
        let children = [child(0.2, 0, 0.0), child(0.7, 0, 0.0), child(0.1, 0, 0.0)];
        assert_eq!(select_non_root(&children, 1.0, 0.0, &P), 1);
        // The favourite already has its share: the next one gets a visit.
        let children = [child(0.45, 0, 0.0), child(0.55, 9, 0.0), child(0.0, 0, 0.0)];
        assert_eq!(select_non_root(&children, 1.0, 0.0, &P), 0);
    }
}
