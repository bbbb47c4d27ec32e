//! Host-side training batches (ndarray): input planes, dense policy targets, win/draw/loss
//! targets, moves left and the opponent's reply, with optional left-right mirroring.

use ndarray::{Array1, Array2, Array4, ArrayViewMut1};
use rand::{Rng, RngExt};

use super::replay::{NO_REPLY, ReplayWindow};
use crate::nn::model::MOVES_LEFT_UNIT;
use crate::trainable::Trainable;

pub struct Batch {
    /// `[batch, planes, rows, cols]`
    pub inputs: Array4<f32>,
    /// `[batch, actions]`, each row a probability distribution.
    pub policy: Array2<f32>,
    /// `[batch, 3]`, win/draw/loss probabilities for the player to move.
    pub wdl: Array2<f32>,
    /// `[batch]`, plies to the end of the game in units of `MOVES_LEFT_UNIT`.
    pub moves_left: Array1<f32>,
    /// `[batch, actions]`, the opponent's reply one-hot (a zero row after a game's last move);
    /// `[0, actions]` when the batch was drawn without it.
    pub opponent_policy: Array2<f32>,
    /// `[batch]`, the short-term value target for the player to move.
    pub short_value: Array1<f32>,
}

impl Batch {
    pub fn len(&self) -> usize {
        self.inputs.shape()[0]
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// The value target of a sample: `(1 - q_ratio)` times the one-hot game result plus `q_ratio`
/// times the search value `q` read as win/draw/loss probabilities (`q > 0`: win `q`, draw
/// `1 - q`; `q < 0`: loss `-q`, draw `1 + q`). Always a distribution.
pub fn value_target(wdl: u8, q: f32, q_ratio: f32) -> [f32; 3] {
    let mut t = [0.0; 3];
    t[wdl.min(2) as usize] = 1.0 - q_ratio;
    let q = q.clamp(-1.0, 1.0);
    t[0] += q_ratio * q.max(0.0);
    t[1] += q_ratio * (1.0 - q.abs());
    t[2] += q_ratio * (-q).max(0.0);
    t
}

/// What [`sample_batch`] draws besides the inputs and the policy, value and moves-left targets.
#[derive(Clone, Copy, Debug, Default)]
pub struct Targets {
    /// Mirror each position left-right with probability 1/2.
    pub mirror: bool,
    /// Mix this much of the search value into the value target (see [`value_target`]).
    pub q_ratio: f32,
    /// Fill [`Batch::opponent_policy`] (networks with the opponent-policy head).
    pub opponent_policy: bool,
}

/// Draws `size` samples uniformly from the window. `None` if the window is empty.
pub fn sample_batch<G: Trainable, R: Rng>(window: &ReplayWindow<G>, rules: &G::Rules, size: usize, targets: Targets, rng: &mut R) -> Option<Batch> {
    if window.is_empty() {
        return None;
    }
    let shape = G::SHAPE;
    let mut inputs = Array4::<f32>::zeros((size, shape.planes, shape.rows, shape.cols));
    let mut policy = Array2::<f32>::zeros((size, G::ACTIONS));
    let mut wdl = Array2::<f32>::zeros((size, 3));
    let mut moves_left = Array1::<f32>::zeros(size);
    let mut short_value = Array1::<f32>::zeros(size);
    let mut opponent_policy = Array2::<f32>::zeros((if targets.opponent_policy { size } else { 0 }, G::ACTIONS));
    let Targets { mirror, q_ratio, .. } = targets;
    for i in 0..size {
        let (shard, k) = window.sample(rng)?;
        let s = &shard.samples[k];
        let flip = mirror && rng.random_bool(0.5);
        let mut planes = inputs.index_axis_mut(ndarray::Axis(0), i);
        let slot = planes.as_slice_mut().expect("a fresh array is contiguous");
        G::encode_snapshot(&s.snapshot, rules, slot);
        if flip {
            G::mirror_planes(slot);
        }
        let mut row: ArrayViewMut1<f32> = policy.row_mut(i);
        for &(a, p) in shard.target(k) {
            let a = if flip { G::mirror_action(a as usize) } else { a as usize };
            row[a] += p;
        }
        for (j, t) in value_target(s.wdl, s.q, q_ratio).into_iter().enumerate() {
            wdl[[i, j]] = t;
        }
        moves_left[i] = f32::from(s.moves_left) / MOVES_LEFT_UNIT;
        short_value[i] = s.short_value;
        if targets.opponent_policy && s.reply != NO_REPLY {
            let a = usize::from(s.reply);
            opponent_policy[[i, if flip { G::mirror_action(a) } else { a }]] = 1.0;
        }
    }
    Some(Batch { inputs, policy, wdl, moves_left, opponent_policy, short_value })
}

#[cfg(test)]
mod tests {
    use super::value_target;

    #[test]
    fn value_targets_mix_the_result_with_the_search_value() {
        assert_eq!(value_target(0, -0.8, 0.0), [1.0, 0.0, 0.0], "ratio 0: the result alone");
        assert_eq!(value_target(2, 0.5, 1.0), [0.5, 0.5, 0.0], "ratio 1: q alone");
        let t = value_target(1, -0.6, 0.25);
        let want = [0.0, 0.75 + 0.25 * 0.4, 0.25 * 0.6];
        for (a, b) in t.iter().zip(want) {
            assert!((a - b).abs() < 1e-6, "{t:?} vs {want:?}");
        }
        for (wdl, q, r) in [(0u8, 0.3f32, 0.7f32), (2, -1.0, 0.5), (1, 0.0, 0.9), (0, 7.0, 0.3)] {
            let t = value_target(wdl, q, r);
            assert!((t.iter().sum::<f32>() - 1.0).abs() < 1e-6 && t.iter().all(|&x| x >= 0.0), "{t:?}");
        }
    }
}
