//! One convolution + batch norm (+ residual) + ReLU of the tower, forward and backward, on host
//! slices: what [`super::op`] wraps as a burn operation with its own backward pass.

use super::conv::{Geometry, conv3x3, conv3x3_weight_grad, flipped_taps_from_oihw, oihw_from_taps, taps_from_oihw};
use super::norm::{self, batch_stats, normalize_add_relu, to_channels_first, to_channels_last};
use crate::nn::infer::cpu::kernels::KernelSet;

/// What the backward pass needs from the forward pass.
#[derive(Debug)]
pub struct Saved {
    pub kernels: KernelSet,
    pub g: Geometry,
    pub cin: usize,
    pub cout: usize,
    /// The input, channels last.
    pub x: Vec<f32>,
    /// The weights, burn's `[cout][cin][3][3]`.
    pub w: Vec<f32>,
    /// The convolution's output before batch norm, channels last.
    pub z: Vec<f32>,
    pub mean: Vec<f32>,
    pub inv_std: Vec<f32>,
    pub gamma: Vec<f32>,
    /// The output, channels first (its sign is ReLU's mask).
    pub out: Vec<f32>,
}

/// What the forward pass gives: the output (channels first), the batch statistics (for the
/// running statistics) and what backward needs.
pub struct Forward {
    pub out: Vec<f32>,
    pub mean: Vec<f32>,
    pub var: Vec<f32>,
    pub saved: Saved,
}

/// The forward pass. `x` and `residual` are channels first `[n][cin or cout][rows·cols]`, `w`
/// burn's `[cout][cin][3][3]`.
#[allow(clippy::too_many_arguments)]
pub fn forward(
    kernels: KernelSet,
    g: Geometry,
    x: &[f32],
    cin: usize,
    w: &[f32],
    cout: usize,
    gamma: &[f32],
    beta: &[f32],
    residual: Option<&[f32]>,
    epsilon: f64,
) -> Forward {
    let sq = g.rows * g.cols;
    let xl = to_channels_last(x, g.n, cin, sq);
    let mut z = vec![0.0f32; g.positions() * cout];
    conv3x3(&kernels, g, &xl, cin, &taps_from_oihw(w, cin, cout), cout, &mut z);
    let (mean, var) = batch_stats(&z, cout);
    let inv_std: Vec<f32> = var.iter().map(|v| (1.0 / (*v as f64 + epsilon).sqrt()) as f32).collect();
    let scale: Vec<f32> = gamma.iter().zip(&inv_std).map(|(g, s)| g * s).collect();
    let shift: Vec<f32> = (0..cout).map(|c| beta[c] - mean[c] * scale[c]).collect();
    let mut out = vec![0.0f32; g.positions() * cout];
    normalize_add_relu(&z, cout, sq, &scale, &shift, residual, &mut out);
    let saved = Saved { kernels, g, cin, cout, x: xl, w: w.to_vec(), z, mean: mean.clone(), inv_std, gamma: gamma.to_vec(), out: out.clone() };
    Forward { out, mean, var, saved }
}

/// Gradients of the inputs the caller asks for.
pub struct Grads {
    /// The input's, channels first (when asked for).
    pub x: Option<Vec<f32>>,
    /// The weights', burn's layout.
    pub w: Vec<f32>,
    pub gamma: Vec<f32>,
    pub beta: Vec<f32>,
    /// The residual's, channels first.
    pub residual: Vec<f32>,
}

/// The backward pass from the output's gradient `grad` (channels first).
pub fn backward(s: &Saved, grad: &[f32], want_x: bool) -> Grads {
    let sq = s.g.rows * s.g.cols;
    let ng = norm::backward(grad, &s.out, &s.z, s.cout, sq, &s.mean, &s.inv_std, &s.gamma);
    let dw = oihw_from_taps(&conv3x3_weight_grad(&s.kernels, s.g, &s.x, s.cin, &ng.dz, s.cout), s.cin, s.cout);
    let dx = want_x.then(|| {
        let mut dxl = vec![0.0f32; s.g.positions() * s.cin];
        conv3x3(&s.kernels, s.g, &ng.dz, s.cout, &flipped_taps_from_oihw(&s.w, s.cin, s.cout), s.cin, &mut dxl);
        to_channels_first(&dxl, s.g.n, s.cin, sq)
    });
    Grads { x: dx, w: dw, gamma: ng.dgamma, beta: ng.dbeta, residual: ng.masked }
}
