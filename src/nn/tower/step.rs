//! One convolution + batch norm (+ residual) + ReLU of the tower, forward and backward, on host
//! slices of channels-last rows: what [`super::op`] wraps as a burn operation with its own
//! backward pass.

use super::conv::{Geometry, conv, conv_weight_grad, conv3x3_winograd, flipped_taps_from_oihw, oihw_from_taps, taps_from_oihw};
use super::norm::{self, batch_stats, normalize_add_relu};
use crate::nn::infer::cpu::kernels::KernelSet;
use crate::nn::infer::cpu::winograd::WinogradTile;

/// The Winograd tile of the 3 × 3 products that run by Winograd's transforms (the forward
/// product and the input gradient), or `None` for the direct products. Measured with `bench
/// train` (BENCHMARKS.md, "The fused training step"): with AVX-512 the direct products were as
/// fast for 32 channels and faster for 128 (175 against 137-141 samples/s); with 8-lane
/// vectors F(2 × 2) was faster for both (4x32: 3 031 against 2 565, 10x128: 129 against 113)
/// and F(4 × 4) no better.
fn winograd(kernels: &KernelSet, taps: usize) -> Option<WinogradTile> {
    (taps == 9 && kernels.lanes() < 16).then_some(WinogradTile::F2)
}

/// What the backward pass needs from the forward pass.
#[derive(Debug)]
pub struct Saved {
    pub kernels: KernelSet,
    pub g: Geometry,
    /// 9 for a 3 × 3 kernel, 1 for 1 × 1.
    pub taps: usize,
    pub cin: usize,
    pub cout: usize,
    /// The convolution's output before batch norm, channels last.
    pub z: Vec<f32>,
    pub mean: Vec<f32>,
    pub inv_std: Vec<f32>,
    pub gamma: Vec<f32>,
}

/// What the forward pass gives: the output, the batch statistics (for the running statistics)
/// and what backward needs.
pub struct Forward {
    pub out: Vec<f32>,
    pub mean: Vec<f32>,
    pub var: Vec<f32>,
    pub saved: Saved,
}

/// The forward pass. `x` and `residual` are channels-last rows `[n·rows·cols][cin or cout]`,
/// `w` burn's `[cout][cin][k][k]` with `taps` = k² (9 or 1).
#[allow(clippy::too_many_arguments)]
pub fn forward(
    kernels: KernelSet,
    g: Geometry,
    taps: usize,
    x: &[f32],
    cin: usize,
    w: &[f32],
    cout: usize,
    gamma: &[f32],
    beta: &[f32],
    residual: Option<&[f32]>,
    epsilon: f64,
) -> Forward {
    let mut z = vec![0.0f32; g.positions() * cout];
    if let Some(tile) = winograd(&kernels, taps) {
        conv3x3_winograd(&kernels, tile, g, x, cin, &taps_from_oihw(w, taps, cin, cout), cout, &mut z);
    } else {
        conv(&kernels, g, taps, x, cin, &taps_from_oihw(w, taps, cin, cout), cout, &mut z);
    }
    let (mean, var) = batch_stats(&z, cout);
    let inv_std: Vec<f32> = var.iter().map(|v| (1.0 / (*v as f64 + epsilon).sqrt()) as f32).collect();
    let scale: Vec<f32> = gamma.iter().zip(&inv_std).map(|(g, s)| g * s).collect();
    let shift: Vec<f32> = (0..cout).map(|c| beta[c] - mean[c] * scale[c]).collect();
    let mut out = vec![0.0f32; g.positions() * cout];
    normalize_add_relu(&z, cout, &scale, &shift, residual, &mut out);
    let saved = Saved { kernels, g, taps, cin, cout, z, mean: mean.clone(), inv_std, gamma: gamma.to_vec() };
    Forward { out, mean, var, saved }
}

/// Gradients of the inputs the caller asks for.
pub struct Grads {
    /// The input's (when asked for).
    pub x: Option<Vec<f32>>,
    /// The weights', burn's layout.
    pub w: Vec<f32>,
    pub gamma: Vec<f32>,
    pub beta: Vec<f32>,
    /// The residual's.
    pub residual: Vec<f32>,
}

/// The backward pass from the output's gradient `grad`, with the forward pass's input `x`,
/// weights `w` (burn's layout) and output `out` (all channels-last rows but `w`).
pub fn backward(s: &Saved, x: &[f32], w: &[f32], out: &[f32], grad: &[f32], want_x: bool) -> Grads {
    let ng = norm::backward(grad, out, &s.z, s.cout, &s.mean, &s.inv_std, &s.gamma);
    let dw = oihw_from_taps(&conv_weight_grad(&s.kernels, s.g, s.taps, x, s.cin, &ng.dz, s.cout), s.taps, s.cin, s.cout);
    let dx = want_x.then(|| {
        let mut dx = vec![0.0f32; s.g.positions() * s.cin];
        if let Some(tile) = winograd(&s.kernels, s.taps) {
            conv3x3_winograd(&s.kernels, tile, s.g, &ng.dz, s.cout, &flipped_taps_from_oihw(w, s.taps, s.cin, s.cout), s.cin, &mut dx);
        } else {
            conv(&s.kernels, s.g, s.taps, &ng.dz, s.cout, &flipped_taps_from_oihw(w, s.taps, s.cin, s.cout), s.cin, &mut dx);
        }
        dx
    });
    Grads { x: dx, w: dw, gamma: ng.dgamma, beta: ng.dbeta, residual: ng.masked }
}
