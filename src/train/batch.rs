//! Host-side training batches (ndarray): input planes, dense policy targets and win/draw/loss
//! targets, with optional left-right mirroring.

use ndarray::{Array2, Array4, ArrayViewMut1};
use rand::{Rng, RngExt};

use super::replay::ReplayWindow;
use crate::jungle::encode::{ACTIONS, PLANES, encode_parts, mirror_action, mirror_planes};
use crate::jungle::Rules;
use crate::nn::model::{COLS, ROWS};

pub struct Batch {
    /// `[batch, PLANES, 9, 7]`
    pub inputs: Array4<f32>,
    /// `[batch, 252]`, each row a probability distribution.
    pub policy: Array2<f32>,
    /// `[batch, 3]`, one-hot win/draw/loss for the player to move.
    pub wdl: Array2<f32>,
}

impl Batch {
    pub fn len(&self) -> usize {
        self.inputs.shape()[0]
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// Draws `size` samples uniformly from the window (mirroring each with probability 1/2 when
/// `mirror`). `None` if the window is empty.
pub fn sample_batch<R: Rng>(window: &ReplayWindow, rules: &Rules, size: usize, mirror: bool, rng: &mut R) -> Option<Batch> {
    if window.is_empty() {
        return None;
    }
    let mut inputs = Array4::<f32>::zeros((size, PLANES, ROWS, COLS));
    let mut policy = Array2::<f32>::zeros((size, ACTIONS));
    let mut wdl = Array2::<f32>::zeros((size, 3));
    for i in 0..size {
        let (shard, k) = window.sample(rng)?;
        let s = &shard.samples[k];
        let flip = mirror && rng.random_bool(0.5);
        let mut planes = inputs.index_axis_mut(ndarray::Axis(0), i);
        let slot = planes.as_slice_mut().expect("a fresh array is contiguous");
        encode_parts(&s.pos, rules, s.repeated, slot);
        if flip {
            mirror_planes(slot);
        }
        let mut row: ArrayViewMut1<f32> = policy.row_mut(i);
        for &(a, p) in shard.target(k) {
            let a = if flip { mirror_action(a as usize) } else { a as usize };
            row[a] += p;
        }
        wdl[[i, s.wdl as usize]] = 1.0;
    }
    Some(Batch { inputs, policy, wdl })
}
