//! A fused CPU inference path for the network, used instead of burn's kernels when the device is
//! the CPU: batch norm is folded into the convolutions, activations stay in one channels-last
//! buffer, 3×3 convolutions run as Winograd transforms and small matrix products on the widest
//! instruction set the CPU has (`winograd`, `kernels`; im2col + one matrix product
//! on request), and bias, residual and ReLU are applied in the same pass over the output. Scratch
//! buffers are kept per thread, so a batch allocates only its output vectors.
//!
//! It computes exactly the function of `model::Net::forward` (tests compare the two); training
//! and GPUs keep using burn.

use std::cell::RefCell;

use burn::nn::BatchNorm;
use burn::nn::Linear;
use burn::nn::conv::Conv2d;
use burn::prelude::*;
use ndarray::linalg::general_mat_mul;
use ndarray::{ArrayView2, ArrayViewMut2};

use serde::{Deserialize, Serialize};

pub mod kernels;
pub mod winograd;

use crate::game::Shape;
use crate::nn::model::Net;
use kernels::{CpuKernels, KernelSet, Mat, MatMut, product};
use winograd::{Pass, Then, WinogradConv, WinogradScratch, WinogradTile};

/// `hardware.cpu_conv`: how the fused CPU path computes its 3 × 3 convolutions.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum CpuConv {
    /// Winograd F(4 × 4, 3 × 3): the fewest multiplies.
    #[default]
    Winograd4,
    /// Winograd F(2 × 2, 3 × 3).
    Winograd2,
    /// im2col and one matrix product per convolution (every multiply of the direct form).
    Im2col,
}

impl CpuConv {
    pub const NAMES: &'static str = "winograd4, winograd2, im2col";
}

/// How the fused path runs: the instruction set and the convolution algorithm.
#[derive(Clone, Copy, Debug)]
pub struct FusedOptions {
    pub kernels: KernelSet,
    pub conv: CpuConv,
}

impl Default for FusedOptions {
    fn default() -> Self {
        FusedOptions { kernels: KernelSet::detect(), conv: CpuConv::default() }
    }
}

impl FusedOptions {
    /// The options `hardware.cpu_kernels` and `hardware.cpu_conv` name, or why this CPU cannot
    /// run them.
    pub fn new(kernels: CpuKernels, conv: CpuConv) -> Result<FusedOptions, String> {
        Ok(FusedOptions { kernels: KernelSet::choose(kernels)?, conv })
    }

    /// For logs and benchmarks: `winograd4 on avx2 (8 f32 lanes, FMA)`.
    pub fn describe(&self) -> String {
        let conv = match self.conv {
            CpuConv::Winograd4 => "winograd4",
            CpuConv::Winograd2 => "winograd2",
            CpuConv::Im2col => "im2col",
        };
        format!("{conv} on {}", self.kernels.name())
    }
}

pub(in crate::nn) fn host<const D: usize>(t: Tensor<D>) -> Vec<f32> {
    t.into_data().try_into_vec::<f32>().expect("network parameters are f32")
}

/// A convolution with batch norm folded in: `w` is `[k*k*cin, cout]` with rows ordered
/// (kernel row, kernel column, input channel); `b` has `cout` entries.
#[derive(Clone, Debug)]
pub(super) struct Conv {
    pub(super) k: usize,
    pub(super) cin: usize,
    pub(super) cout: usize,
    pub(super) w: Vec<f32>,
    pub(super) b: Vec<f32>,
    /// The same weights in the Winograd domain (3 × 3 convolutions, unless im2col is asked for).
    wino: Option<WinogradConv>,
}

/// Bias then ReLU, the usual case.
const RELU: Then<'static> = Then { residual: None, relu: true };

impl Conv {
    fn from_burn(conv: &Conv2d, bn: Option<&BatchNorm>) -> Conv {
        let [cout, cin, kh, kw] = conv.weight.val().dims();
        debug_assert_eq!(kh, kw);
        let raw = host(conv.weight.val()); // [cout, cin, kh, kw]
        let bias = conv.bias.as_ref().map(|b| host(b.val())).unwrap_or_else(|| vec![0.0; cout]);
        // y = s * (conv + bias - mean) + beta with s = gamma / sqrt(var + eps).
        let (scale, shift) = match bn {
            Some(bn) => {
                let (g, be) = (host(bn.gamma.val()), host(bn.beta.val()));
                let (m, v) = (host(bn.running_mean.value()), host(bn.running_var.value()));
                let s: Vec<f32> = (0..cout).map(|o| g[o] / (v[o] + bn.epsilon as f32).sqrt()).collect();
                let t: Vec<f32> = (0..cout).map(|o| be[o] + s[o] * (bias[o] - m[o])).collect();
                (s, t)
            }
            None => (vec![1.0; cout], bias),
        };
        let mut w = vec![0.0f32; kh * kw * cin * cout];
        for o in 0..cout {
            for i in 0..cin {
                for dy in 0..kh {
                    for dx in 0..kw {
                        let src = ((o * cin + i) * kh + dy) * kw + dx;
                        let dst = ((dy * kw + dx) * cin + i) * cout + o;
                        w[dst] = raw[src] * scale[o];
                    }
                }
            }
        }
        Conv { k: kh, cin, cout, w, b: shift, wino: None }
    }

    /// Prepares the weights for `options` (the Winograd transform of a 3 × 3 kernel).
    fn prepared(mut self, options: &FusedOptions) -> Conv {
        let lanes = options.kernels.lanes();
        let tile = match options.conv {
            CpuConv::Winograd4 => Some(WinogradTile::F4),
            CpuConv::Winograd2 => Some(WinogradTile::F2),
            CpuConv::Im2col => None,
        };
        self.wino = tile.filter(|_| self.k == 3).map(|t| WinogradConv::new(t, self.cin, self.cout, &self.w, &self.b, lanes));
        self
    }

    /// `out[n*squares, cout] = conv(x[n*squares, cin])` plus bias, then what `then` asks
    /// (a residual added, ReLU). `patches` is scratch for the 3×3 case.
    fn apply(&self, pass: &Pass, x: &[f32], out: &mut [f32], s: &mut ConvScratch, then: Then) {
        if let Some(wino) = &self.wino {
            return wino.apply(pass, x, out, &mut s.wino, then);
        }
        let (shape, n) = (pass.shape, pass.n);
        let patches = &mut s.patches;
        let Then { residual, relu } = then;
        let m = n * shape.squares();
        let kk = self.k * self.k * self.cin;
        let a: &[f32] = if self.k == 1 {
            &x[..m * kk]
        } else {
            if patches.len() < m * kk {
                patches.resize(m * kk, 0.0); // im2col then writes every element
            }
            im2col(shape, x, n, self.cin, self.k, patches);
            &patches[..m * kk]
        };
        let out = &mut out[..m * self.cout];
        multiply(pass.kernels, m, self.cout, kk, a, &self.w, out);
        for (r, row) in out.chunks_exact_mut(self.cout).enumerate() {
            for (o, v) in row.iter_mut().enumerate() {
                let mut y = *v + self.b[o];
                if let Some(res) = residual {
                    y += res[r * self.cout + o];
                }
                *v = if relu { y.max(0.0) } else { y };
            }
        }
    }
}

/// Channels-last `x[n, rows, cols, c]` → patches `[n*squares, k*k*c]`, zero outside the board.
fn im2col(shape: &Shape, x: &[f32], n: usize, c: usize, k: usize, out: &mut [f32]) {
    let (rows, cols, sq) = (shape.rows, shape.cols, shape.squares());
    let r = (k / 2) as isize;
    let row_len = k * k * c;
    for b in 0..n {
        for y in 0..rows {
            for xx in 0..cols {
                let dst = &mut out[((b * sq) + y * cols + xx) * row_len..][..row_len];
                for dy in 0..k {
                    let sy = y as isize + dy as isize - r;
                    for dx in 0..k {
                        let sx = xx as isize + dx as isize - r;
                        let d = &mut dst[(dy * k + dx) * c..][..c];
                        if sy < 0 || sy >= rows as isize || sx < 0 || sx >= cols as isize {
                            d.fill(0.0);
                        } else {
                            let s = (b * sq + sy as usize * cols + sx as usize) * c;
                            d.copy_from_slice(&x[s..s + c]);
                        }
                    }
                }
            }
        }
    }
}

/// `c[m × n] = a[m × k] · b[k × n]` (row-major, packed): on `kernels` when `n` is a whole
/// number of its vectors, else through matrixmultiply.
fn multiply(kernels: &KernelSet, m: usize, n: usize, k: usize, a: &[f32], b: &[f32], c: &mut [f32]) {
    if !product(kernels, m, n, k, Mat { data: a, ld: k }, Mat { data: b, ld: n }, MatMut { data: &mut *c, ld: n }) {
        let a = ArrayView2::from_shape((m, k), a).expect("a is m × k");
        let b = ArrayView2::from_shape((k, n), b).expect("b is k × n");
        let mut c = ArrayViewMut2::from_shape((m, n), c).expect("c is m × n");
        general_mat_mul(1.0, &a, &b, 0.0, &mut c);
    }
}

#[derive(Clone, Debug)]
pub(super) struct Dense {
    pub(super) inputs: usize,
    pub(super) outputs: usize,
    /// `[inputs, outputs]`
    pub(super) w: Vec<f32>,
    pub(super) b: Vec<f32>,
}

impl Dense {
    fn from_burn(l: &Linear) -> Dense {
        let [inputs, outputs] = l.weight.val().dims();
        Dense { inputs, outputs, w: host(l.weight.val()), b: l.bias.as_ref().map(|b| host(b.val())).unwrap_or_else(|| vec![0.0; outputs]) }
    }

    fn apply(&self, kernels: &KernelSet, x: &[f32], n: usize, out: &mut [f32], relu: bool) {
        let (k, o) = (self.inputs, self.outputs);
        let out = &mut out[..n * o];
        multiply(kernels, n, o, k, &x[..n * k], &self.w, out);
        for row in out.chunks_exact_mut(self.outputs) {
            for (v, b) in row.iter_mut().zip(&self.b) {
                *v = if relu { (*v + b).max(0.0) } else { *v + b };
            }
        }
    }
}

/// Per-thread space of the convolutions.
#[derive(Default)]
struct ConvScratch {
    patches: Vec<f32>,
    wino: WinogradScratch,
}

#[derive(Default)]
struct Scratch {
    a: Vec<f32>,
    b: Vec<f32>,
    c: Vec<f32>,
    conv: ConvScratch,
}

thread_local! {
    static SCRATCH: RefCell<Scratch> = RefCell::new(Scratch::default());
}

/// The network's weights rearranged for the fused CPU forward pass.
#[derive(Clone, Debug)]
pub struct FusedNet {
    pub(super) shape: Shape,
    pub(super) stem: Conv,
    pub(super) blocks: Vec<(Conv, Conv)>,
    pub(super) policy_hidden: Conv,
    pub(super) policy_out: Conv,
    pub(super) value_conv: Conv,
    /// `value_fc1` with its input rows reordered from (channel, square) to (square, channel).
    pub(super) fc1: Dense,
    pub(super) fc2: Dense,
    /// The moves-left head, laid out like the value head (conv, fc1 reordered, fc2).
    pub(super) moves_left: Option<(Conv, Dense, Dense)>,
    options: FusedOptions,
}

/// `fc1` of a head whose input is a flattened `[channels, squares]` map, with its input rows
/// reordered from (channel, square) to (square, channel) to match the channels-last activations.
fn reorder_fc1(mut fc1: Dense, channels: usize, sq: usize) -> Dense {
    let mut w = vec![0.0f32; fc1.w.len()];
    for c in 0..channels {
        for s in 0..sq {
            let (from, to) = (c * sq + s, s * channels + c);
            w[to * fc1.outputs..(to + 1) * fc1.outputs].copy_from_slice(&fc1.w[from * fc1.outputs..(from + 1) * fc1.outputs]);
        }
    }
    fc1.w = w;
    fc1
}

#[derive(Clone, Debug, PartialEq)]
/// A forward pass's outputs for `n` positions, on the host (fused path and burn path alike).
pub struct HostOutputs {
    /// `n × actions` policy logits.
    pub policy: Vec<f32>,
    /// `n × 3` win/draw/loss probabilities.
    pub wdl: Vec<f32>,
    /// `n` plies-left predictions in units of `MOVES_LEFT_UNIT` (empty without the head).
    pub moves_left: Vec<f32>,
}

/// Positions per pass of the fused network.
const CHUNK: usize = 32;

impl FusedNet {
    /// The network for the fused path with the default options (the widest instruction set,
    /// Winograd F(4 × 4)).
    pub fn from_net(net: &Net) -> FusedNet {
        Self::with_options(net, FusedOptions::default())
    }

    /// The network for the fused path with `options`.
    pub fn with_options(net: &Net, options: FusedOptions) -> FusedNet {
        let o = &options;
        let p = net.parts();
        let shape = net.shape();
        let sq = shape.squares();
        let value_conv = Conv::from_burn(p.value_conv, Some(p.value_bn));
        let fc1 = reorder_fc1(Dense::from_burn(p.value_fc1), value_conv.cout, sq);
        let moves_left = p.moves_left.map(|h| {
            let conv = Conv::from_burn(&h.conv, Some(&h.bn));
            let fc1 = reorder_fc1(Dense::from_burn(&h.fc1), conv.cout, sq);
            (conv, fc1, Dense::from_burn(&h.fc2))
        });
        FusedNet {
            shape,
            stem: Conv::from_burn(p.stem_conv, Some(p.stem_bn)).prepared(o),
            blocks: p.blocks.iter().map(|(c1, b1, c2, b2)| (Conv::from_burn(c1, Some(b1)).prepared(o), Conv::from_burn(c2, Some(b2)).prepared(o))).collect(),
            policy_hidden: Conv::from_burn(p.policy_conv, Some(p.policy_bn)),
            policy_out: Conv::from_burn(p.policy_out, None),
            value_conv,
            fc1,
            fc2: Dense::from_burn(p.value_fc2),
            moves_left,
            options,
        }
    }

    /// The instruction set and convolution algorithm this network runs with.
    pub fn options(&self) -> &FusedOptions {
        &self.options
    }

    /// Same contract as `NetEvaluator::forward`: `inputs` are `n` encodings in
    /// `[planes, rows, cols]` order; returns policy logits, win/draw/loss probabilities and (with the head) moves left.
    ///
    /// Large batches run in chunks of [`CHUNK`] positions so that the activations and patch
    /// matrices stay in cache (measured: batch 256 in one piece is ~2x slower per position).
    pub fn forward(&self, inputs: &[f32], n: usize) -> HostOutputs {
        let ml = if self.moves_left.is_some() { n } else { 0 };
        let mut out = HostOutputs { policy: vec![0.0; n * self.shape.actions()], wdl: vec![0.0; n * 3], moves_left: vec![0.0; ml] };
        self.forward_into(inputs, n, &mut out.policy, &mut out.wdl, &mut out.moves_left);
        out
    }

    /// Whether the network predicts moves left.
    pub fn has_moves_left(&self) -> bool {
        self.moves_left.is_some()
    }

    /// [`forward`](Self::forward) into the caller's buffers, allocating nothing once the
    /// thread's scratch space has grown: `policy` takes `n × actions` logits, `wdl` `n × 3`
    /// probabilities and `moves_left` `n` predictions (left alone when it is shorter than `n`,
    /// as without the head).
    pub fn forward_into(&self, inputs: &[f32], n: usize, policy: &mut [f32], wdl: &mut [f32], moves_left: &mut [f32]) {
        let (per, actions) = (self.shape.input_size(), self.shape.actions());
        let with_ml = self.moves_left.is_some() && moves_left.len() >= n;
        for start in (0..n).step_by(CHUNK) {
            let m = CHUNK.min(n - start);
            let ml: &mut [f32] = if with_ml { &mut moves_left[start..start + m] } else { &mut [] };
            self.forward_chunk(
                &inputs[start * per..(start + m) * per],
                m,
                &mut policy[start * actions..(start + m) * actions],
                &mut wdl[start * 3..(start + m) * 3],
                ml,
            );
        }
    }

    /// One chunk of at most [`CHUNK`] positions into the output slices (sized for them).
    fn forward_chunk(&self, inputs: &[f32], n: usize, policy: &mut [f32], logits: &mut [f32], moves_left: &mut [f32]) {
        SCRATCH.with(|s| {
            let s = &mut *s.borrow_mut();
            let shape = &self.shape;
            let pass = Pass { kernels: &self.options.kernels, shape, n };
            let (sq, planes, pp) = (shape.squares(), shape.planes, shape.policy_planes);
            let actions = shape.actions();
            let ch = self.stem.cout;
            let width = ch.max(self.policy_hidden.cout).max(self.value_conv.cout).max(planes).max(pp);
            for v in [&mut s.a, &mut s.b, &mut s.c] {
                if v.len() < n * sq * width {
                    v.resize(n * sq * width, 0.0);
                }
            }
            // Input planes [n, planes, squares] -> channels last [n, squares, planes].
            for b in 0..n {
                for c in 0..planes {
                    for q in 0..sq {
                        s.c[(b * sq + q) * planes + c] = inputs[(b * planes + c) * sq + q];
                    }
                }
            }
            self.stem.apply(&pass, &s.c, &mut s.a, &mut s.conv, RELU);
            for (c1, c2) in &self.blocks {
                c1.apply(&pass, &s.a, &mut s.b, &mut s.conv, RELU);
                c2.apply(&pass, &s.b, &mut s.c, &mut s.conv, Then { residual: Some(&s.a[..n * sq * ch]), relu: true });
                std::mem::swap(&mut s.a, &mut s.c);
            }
            // Policy head: [n*squares, policy planes] -> logits[plane * squares + square].
            self.policy_hidden.apply(&pass, &s.a, &mut s.b, &mut s.conv, RELU);
            self.policy_out.apply(&pass, &s.b, &mut s.c, &mut s.conv, Then { residual: None, relu: false });
            for b in 0..n {
                for q in 0..sq {
                    for d in 0..pp {
                        policy[b * actions + d * sq + q] = s.c[(b * sq + q) * pp + d];
                    }
                }
            }
            // Moves-left head (before the value head reuses the scratch buffers).
            if let Some((conv, fc1, fc2)) = self.moves_left.as_ref().filter(|_| moves_left.len() >= n) {
                conv.apply(&pass, &s.a, &mut s.b, &mut s.conv, RELU);
                fc1.apply(pass.kernels, &s.b, n, &mut s.c, true);
                fc2.apply(pass.kernels, &s.c[..n * fc1.outputs], n, moves_left, true);
            }
            // Value head.
            self.value_conv.apply(&pass, &s.a, &mut s.b, &mut s.conv, RELU);
            let hidden = self.fc1.outputs;
            self.fc1.apply(pass.kernels, &s.b, n, &mut s.c, true);
            self.fc2.apply(pass.kernels, &s.c[..n * hidden], n, logits, false);
            for row in logits[..n * 3].chunks_exact_mut(3) {
                let m = row.iter().copied().fold(f32::NEG_INFINITY, f32::max);
                let mut sum = 0.0;
                for v in row.iter_mut() {
                    *v = (*v - m).exp();
                    sum += *v;
                }
                for v in row.iter_mut() {
                    *v /= sum;
                }
            }
        })
    }
}
