//! How closely an inference path agrees with burn's f32 forward pass (`junglezero bench
//! agree`), and how close half precision is allowed to be.

use crate::nn::infer::cpu::HostOutputs;

/// What a correct half-precision path (the NVIDIA path: f16 weights and activations, f32
/// sums) stays within against f32, with margin. Half precision's error grows with the size of
/// what it rounds, so each limit is relative to the reference's scale, with a floor for
/// networks whose outputs are all near zero (an untrained one's). Measured with `GpuPlan`'s
/// CPU reference of that arithmetic (BENCHMARKS.md, "GPU"): trained 4 × 32 networks differ by
/// 0.1 % of their largest logit and 0.2 % of their largest value, and agree on the top move in
/// 99.7 % of positions; the untrained 10 × 128 network of `configs/gpu.toml` by less.
pub const HALF_PRECISION: Tolerance =
    Tolerance { policy: Limit { relative: 0.02, floor: 0.002 }, value: Limit { relative: 0.02, floor: 0.002 }, top_move_percent: 95.0 };

/// A limit on a difference: `relative` times the reference's scale, plus `floor`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Limit {
    pub relative: f32,
    pub floor: f32,
}

impl Limit {
    /// The limit for a reference whose largest absolute value is `scale`.
    pub fn at(&self, scale: f32) -> f32 {
        self.relative * scale + self.floor
    }
}

/// Limits on the differences between two paths.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Tolerance {
    /// On a legal move's policy logit, against the largest legal logit.
    pub policy: Limit,
    /// On a value (win minus loss probability), against the largest value.
    pub value: Limit,
    /// Least share of positions, in percent, whose most likely legal move is the same.
    pub top_move_percent: f64,
}

/// The differences seen so far between a reference and a tested path.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Agreement {
    pub positions: usize,
    pub policy_diff: f32,
    pub value_diff: f32,
    /// Positions whose most likely legal move is the same in both.
    pub same_top: usize,
    /// The largest legal-move logit and value of the reference, in absolute value: the scale
    /// the differences are measured against.
    pub policy_scale: f32,
    pub value_scale: f32,
}

impl Agreement {
    /// Adds position `i` of two outputs of the same batch (`actions` logits a position), of
    /// which `legal` are the legal actions (illegal moves' logits are never read, so they are
    /// not compared).
    pub fn add(&mut self, reference: &HostOutputs, tested: &HostOutputs, i: usize, actions: usize, legal: &[usize]) {
        let (pa, pb) = (&reference.policy[i * actions..(i + 1) * actions], &tested.policy[i * actions..(i + 1) * actions]);
        for &k in legal {
            self.policy_diff = self.policy_diff.max((pa[k] - pb[k]).abs());
            self.policy_scale = self.policy_scale.max(pa[k].abs());
        }
        let best = |p: &[f32]| legal.iter().copied().max_by(|x, y| p[*x].total_cmp(&p[*y]));
        self.same_top += usize::from(best(pa) == best(pb));
        let value = |o: &HostOutputs| o.wdl[3 * i] - o.wdl[3 * i + 2];
        self.value_diff = self.value_diff.max((value(reference) - value(tested)).abs());
        self.value_scale = self.value_scale.max(value(reference).abs());
        self.positions += 1;
    }

    pub fn top_move_percent(&self) -> f64 {
        100.0 * self.same_top as f64 / self.positions.max(1) as f64
    }

    pub fn within(&self, t: &Tolerance) -> bool {
        self.policy_diff <= t.policy.at(self.policy_scale) && self.value_diff <= t.value.at(self.value_scale) && self.top_move_percent() >= t.top_move_percent
    }

    /// The reference's scale and what `t` allows at it, on one line.
    pub fn limits(&self, t: &Tolerance) -> String {
        format!(
            "reference scale: largest legal logit {:.4}, largest value {:.4}; tolerance: policy {:.4}, value {:.4}, top move {:.1} %",
            self.policy_scale,
            self.value_scale,
            t.policy.at(self.policy_scale),
            t.value.at(self.value_scale),
            t.top_move_percent
        )
    }

    /// `agree positions N policy max-diff X value max-diff Y top-move Z %`.
    pub fn line(&self) -> String {
        format!(
            "agree positions {} policy max-diff {:.4} value max-diff {:.4} top-move {:.1} %",
            self.positions,
            self.policy_diff,
            self.value_diff,
            self.top_move_percent()
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn outputs(policy: Vec<f32>, wdl: Vec<f32>) -> HostOutputs {
        HostOutputs { policy, wdl, moves_left: Vec::new() }
    }

    #[test]
    fn only_legal_moves_count_and_the_worst_difference_is_kept() {
        // Two positions of three actions; action 2 is illegal in both and differs wildly.
        let a = outputs(vec![1.0, 0.5, 9.0, 0.2, 0.3, 9.0], vec![0.5, 0.2, 0.3, 0.1, 0.1, 0.8]);
        let b = outputs(vec![1.05, 0.5, -9.0, 0.35, 0.25, -9.0], vec![0.5, 0.2, 0.3, 0.12, 0.1, 0.78]);
        let mut g = Agreement::default();
        for i in 0..2 {
            g.add(&a, &b, i, 3, &[0, 1]);
        }
        assert_eq!(g.positions, 2);
        assert!((g.policy_diff - 0.15).abs() < 1e-6, "{}", g.policy_diff);
        assert!((g.value_diff - 0.04).abs() < 1e-6, "{}", g.value_diff);
        // The first position's best legal move is action 0 in both, the second's flips.
        assert_eq!(g.same_top, 1);
        assert_eq!(g.top_move_percent(), 50.0);
        // Scales: the largest legal logit is 1.0 (position 0, action 0), the largest value 0.7.
        assert_eq!(g.policy_scale, 1.0);
        assert!((g.value_scale - 0.7).abs() < 1e-6, "{}", g.value_scale);
        let limit = |relative, floor| Limit { relative, floor };
        let loose = Tolerance { policy: limit(0.1, 0.05), value: limit(0.0, 0.05), top_move_percent: 50.0 };
        assert!(g.within(&loose));
        assert_eq!(loose.policy.at(g.policy_scale), 0.15);
        assert!(!g.within(&Tolerance { policy: limit(0.1, 0.04), ..loose }));
        assert!(!g.within(&Tolerance { value: limit(0.0, 0.03), ..loose }));
        assert!(!g.within(&Tolerance { top_move_percent: 51.0, ..loose }));
        assert!(g.limits(&loose).ends_with("tolerance: policy 0.1500, value 0.0500, top move 50.0 %"), "{}", g.limits(&loose));
        assert_eq!(g.line(), "agree positions 2 policy max-diff 0.1500 value max-diff 0.0400 top-move 50.0 %");
    }
}
