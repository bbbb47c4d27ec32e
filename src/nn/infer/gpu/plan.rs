//! The network as the NVIDIA inference path computes it (`nn::infer::gpu::cudnn`), and a CPU reference
//! that computes exactly the same thing.
//!
//! The plan is made from the fused CPU network ([`FusedNet`]: batch norm folded into the
//! convolutions, activations channels-last, the value head's first dense layer reordered to
//! channels-last input), rearranged into the layouts the GPU kernels read:
//!
//! - the 3 × 3 convolutions (stem and residual tower) for cuDNN in NHWC with `KRSC` filters
//!   (`[out, kernel row, kernel column, in]`), the stem's input channels padded with zeros to a
//!   multiple of 8 so that tensor cores apply;
//! - every 1 × 1 convolution and dense layer as a matrix product for cuBLASLt: activations
//!   `[positions × squares, in]` (or `[positions, in]`) times weights `[in, out]`, bias and ReLU
//!   in the product's epilogue.
//!
//! Activations are stored in half precision between layers on the GPU; products accumulate in
//! f32. [`GpuPlan::reference`] follows the same steps on the CPU, rounding the weights and every
//! stored activation to f16 when asked, so `cargo test` checks the weight conversion against
//! burn's forward pass without a GPU, and the GPU check compares the GPU's outputs with it.

use crate::game::Shape;
use crate::nn::infer::cpu::{Conv, Dense, FusedNet, HostOutputs};

/// The stem's input channels are padded to a multiple of this.
pub const CHANNEL_ALIGN: usize = 8;

/// A 3 × 3 convolution for cuDNN: NHWC activations, `KRSC` weights, bias, then ReLU.
#[derive(Clone, Debug, PartialEq)]
pub struct Conv3 {
    /// Input channels as stored (padded for the stem), and the channels that carry data.
    pub cin: usize,
    pub cout: usize,
    /// `[cout, 3, 3, cin]`.
    pub w: Vec<f32>,
    pub b: Vec<f32>,
}

/// A matrix product `[m, k] × [k, n] + bias`, then ReLU or not (a 1 × 1 convolution over
/// channels-last activations, or a dense layer).
#[derive(Clone, Debug, PartialEq)]
pub struct Gemm {
    pub k: usize,
    pub n: usize,
    /// `[k, n]`.
    pub w: Vec<f32>,
    pub b: Vec<f32>,
    pub relu: bool,
}

/// A head ending in dense layers: a 1 × 1 convolution, then `fc1` over the flattened
/// `[squares, channels]` map, then `fc2`.
#[derive(Clone, Debug, PartialEq)]
pub struct DenseHead {
    pub conv: Gemm,
    pub fc1: Gemm,
    pub fc2: Gemm,
}

/// The whole network in the GPU's layouts.
#[derive(Clone, Debug, PartialEq)]
pub struct GpuPlan {
    pub shape: Shape,
    /// Input planes as encoded, and as stored on the GPU (padded).
    pub planes: usize,
    pub planes_padded: usize,
    pub stem: Conv3,
    /// Each residual block: its two convolutions (the second adds the block's input before
    /// its ReLU).
    pub blocks: Vec<(Conv3, Conv3)>,
    pub policy_hidden: Gemm,
    /// Logits per square and policy plane: `[positions × squares, policy planes]`.
    pub policy_out: Gemm,
    /// The value head (`fc2` gives win/draw/loss logits).
    pub value: DenseHead,
    /// The moves-left head, if the network has one (`fc2` ends in ReLU).
    pub moves_left: Option<DenseHead>,
}

/// Arithmetic of the reference: f32 throughout, or f16 storage as on the GPU.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Precision {
    F32,
    Half,
}

impl Precision {
    fn round(self, v: f32) -> f32 {
        match self {
            Precision::F32 => v,
            Precision::Half => half::f16::from_f32(v).to_f32(),
        }
    }
}

fn round_up(n: usize, to: usize) -> usize {
    n.div_ceil(to) * to
}

impl Conv3 {
    /// From a fused 3 × 3 convolution (`[(row, column, in), out]`), with `cin_padded` input
    /// channels (the extra ones get zero weights).
    fn from_fused(c: &Conv, cin_padded: usize) -> Conv3 {
        assert_eq!(c.k, 3, "a 3x3 convolution");
        let mut w = vec![0.0f32; c.cout * 9 * cin_padded];
        for dy in 0..3 {
            for dx in 0..3 {
                for i in 0..c.cin {
                    for o in 0..c.cout {
                        w[((o * 3 + dy) * 3 + dx) * cin_padded + i] = c.w[((dy * 3 + dx) * c.cin + i) * c.cout + o];
                    }
                }
            }
        }
        Conv3 { cin: cin_padded, cout: c.cout, w, b: c.b.clone() }
    }
}

impl Gemm {
    fn from_conv1(c: &Conv, relu: bool) -> Gemm {
        assert_eq!(c.k, 1, "a 1x1 convolution");
        Gemm { k: c.cin, n: c.cout, w: c.w.clone(), b: c.b.clone(), relu }
    }

    fn from_dense(d: &Dense, relu: bool) -> Gemm {
        Gemm { k: d.inputs, n: d.outputs, w: d.w.clone(), b: d.b.clone(), relu }
    }

    /// `out[m, n] = x[m, k] × w + b` (then ReLU), accumulating in f32; the output rounded as
    /// `p` stores it (the weights already are, see [`GpuPlan::reference`]).
    fn apply(&self, x: &[f32], m: usize, out: &mut [f32], p: Precision) {
        for r in 0..m {
            let row = &x[r * self.k..(r + 1) * self.k];
            for o in 0..self.n {
                let mut acc = 0.0f32;
                for (i, &xv) in row.iter().enumerate() {
                    acc += xv * self.w[i * self.n + o];
                }
                let y = acc + self.b[o];
                out[r * self.n + o] = p.round(if self.relu { y.max(0.0) } else { y });
            }
        }
    }
}

impl Conv3 {
    /// NHWC `x[n, rows, cols, cin]` → `out[n, rows, cols, cout]`: zero padding at the board's
    /// edges, bias, `residual` added, ReLU; the output rounded as `p` stores it (the weights
    /// already are, see [`GpuPlan::reference`]).
    fn apply(&self, shape: &Shape, x: &[f32], n: usize, out: &mut [f32], residual: Option<&[f32]>, p: Precision) {
        let (rows, cols) = (shape.rows as isize, shape.cols as isize);
        let sq = shape.squares();
        for b in 0..n {
            for y in 0..rows {
                for xx in 0..cols {
                    let at = b * sq + (y * cols + xx) as usize;
                    for o in 0..self.cout {
                        let mut acc = 0.0f32;
                        for dy in 0..3isize {
                            let sy = y + dy - 1;
                            if sy < 0 || sy >= rows {
                                continue;
                            }
                            for dx in 0..3isize {
                                let sx = xx + dx - 1;
                                if sx < 0 || sx >= cols {
                                    continue;
                                }
                                let src = &x[(b * sq + (sy * cols + sx) as usize) * self.cin..][..self.cin];
                                let w = &self.w[((o * 3 + dy as usize) * 3 + dx as usize) * self.cin..][..self.cin];
                                for (xv, wv) in src.iter().zip(w) {
                                    acc += xv * wv;
                                }
                            }
                        }
                        let mut v = acc + self.b[o];
                        if let Some(res) = residual {
                            v += res[at * self.cout + o];
                        }
                        out[at * self.cout + o] = p.round(v.max(0.0));
                    }
                }
            }
        }
    }
}

impl GpuPlan {
    /// The plan of `f`'s network.
    pub fn from_fused(f: &FusedNet) -> GpuPlan {
        let planes = f.stem.cin;
        let planes_padded = round_up(planes, CHANNEL_ALIGN);
        let head = |conv: &Conv, fc1: &Dense, fc2: &Dense, last_relu: bool| DenseHead {
            conv: Gemm::from_conv1(conv, true),
            fc1: Gemm::from_dense(fc1, true),
            fc2: Gemm::from_dense(fc2, last_relu),
        };
        GpuPlan {
            shape: f.shape,
            planes,
            planes_padded,
            stem: Conv3::from_fused(&f.stem, planes_padded),
            blocks: f.blocks.iter().map(|(a, b)| (Conv3::from_fused(a, a.cin), Conv3::from_fused(b, b.cin))).collect(),
            policy_hidden: Gemm::from_conv1(&f.policy_hidden, true),
            policy_out: Gemm::from_conv1(&f.policy_out, false),
            value: head(&f.value_conv, &f.fc1, &f.fc2, false),
            moves_left: f.moves_left.as_ref().map(|(c, a, b)| head(c, a, b, true)),
        }
    }

    /// Channels of the tower.
    pub fn channels(&self) -> usize {
        self.stem.cout
    }

    /// `n` encodings (`[planes, rows, cols]` each, f32) as the GPU's input: NHWC with the
    /// planes padded, rounded as `p` stores them, into `out` (`n × squares × planes_padded`).
    pub fn pack_inputs(&self, inputs: &[f32], n: usize, out: &mut [f32], p: Precision) {
        let sq = self.shape.squares();
        let (planes, padded) = (self.planes, self.planes_padded);
        for b in 0..n {
            for q in 0..sq {
                let dst = &mut out[(b * sq + q) * padded..][..padded];
                for (c, d) in dst.iter_mut().enumerate() {
                    *d = if c < planes { p.round(inputs[(b * planes + c) * sq + q]) } else { 0.0 };
                }
            }
        }
    }

    /// The policy logits in the order the rest of the program reads them (`plane × squares +
    /// square`) from the GPU's `[squares, planes]` rows, for position `b`.
    pub fn unpack_policy(&self, gpu: &[f32], b: usize, out: &mut [f32]) {
        let (sq, pp) = (self.shape.squares(), self.shape.policy_planes);
        for q in 0..sq {
            for d in 0..pp {
                out[d * sq + q] = gpu[(b * sq + q) * pp + d];
            }
        }
    }

    /// Every step of the GPU's forward pass on the CPU, for `n` encodings, with `p`'s storage:
    /// what `nn::infer::gpu::cudnn` must reproduce (within the GPU's summation order).
    pub fn reference(&self, inputs: &[f32], n: usize, p: Precision) -> HostOutputs {
        match p {
            Precision::F32 => self.reference_stored(inputs, n, p),
            // The weights rounded once, as the GPU stores them, rather than at every product.
            Precision::Half => self.rounded().reference_stored(inputs, n, p),
        }
    }

    /// The plan with every weight and bias rounded to half precision.
    fn rounded(&self) -> GpuPlan {
        let r = |v: &[f32]| v.iter().map(|&x| Precision::Half.round(x)).collect::<Vec<f32>>();
        let conv = |c: &Conv3| Conv3 { cin: c.cin, cout: c.cout, w: r(&c.w), b: r(&c.b) };
        let gemm = |g: &Gemm| Gemm { k: g.k, n: g.n, w: r(&g.w), b: r(&g.b), relu: g.relu };
        let head = |h: &DenseHead| DenseHead { conv: gemm(&h.conv), fc1: gemm(&h.fc1), fc2: gemm(&h.fc2) };
        GpuPlan {
            shape: self.shape,
            planes: self.planes,
            planes_padded: self.planes_padded,
            stem: conv(&self.stem),
            blocks: self.blocks.iter().map(|(a, b)| (conv(a), conv(b))).collect(),
            policy_hidden: gemm(&self.policy_hidden),
            policy_out: gemm(&self.policy_out),
            value: head(&self.value),
            moves_left: self.moves_left.as_ref().map(head),
        }
    }

    /// [`GpuPlan::reference`] with the weights as stored in this plan.
    fn reference_stored(&self, inputs: &[f32], n: usize, p: Precision) -> HostOutputs {
        let sq = self.shape.squares();
        let ch = self.channels();
        let rows = n * sq;
        let mut x = vec![0.0f32; rows * self.planes_padded];
        self.pack_inputs(inputs, n, &mut x, p);
        let mut a = vec![0.0f32; rows * ch];
        let mut b = vec![0.0f32; rows * ch];
        let mut c = vec![0.0f32; rows * ch];
        self.stem.apply(&self.shape, &x, n, &mut a, None, p);
        for (c1, c2) in &self.blocks {
            c1.apply(&self.shape, &a, n, &mut b, None, p);
            c2.apply(&self.shape, &b, n, &mut c, Some(&a), p);
            std::mem::swap(&mut a, &mut c);
        }
        // Policy: two products over every square.
        let mut ph = vec![0.0f32; rows * self.policy_hidden.n];
        self.policy_hidden.apply(&a, rows, &mut ph, p);
        let mut po = vec![0.0f32; rows * self.policy_out.n];
        self.policy_out.apply(&ph, rows, &mut po, p);
        let actions = self.shape.actions();
        let mut policy = vec![0.0f32; n * actions];
        for i in 0..n {
            self.unpack_policy(&po, i, &mut policy[i * actions..(i + 1) * actions]);
        }
        let run_head = |h: &DenseHead| -> Vec<f32> {
            let mut v = vec![0.0f32; rows * h.conv.n];
            h.conv.apply(&a, rows, &mut v, p);
            // [positions × squares, channels] is [positions, squares × channels] as it lies.
            let mut hid = vec![0.0f32; n * h.fc1.n];
            h.fc1.apply(&v, n, &mut hid, p);
            let mut out = vec![0.0f32; n * h.fc2.n];
            h.fc2.apply(&hid, n, &mut out, p);
            out
        };
        let logits = run_head(&self.value);
        let mut wdl = vec![0.0f32; n * 3];
        softmax_rows(&logits, &mut wdl, 3);
        let moves_left = self.moves_left.as_ref().map(run_head).unwrap_or_default();
        HostOutputs { policy, wdl, moves_left }
    }
}

/// Softmax of each `width`-wide row of `logits` into `out`, in f32.
pub fn softmax_rows(logits: &[f32], out: &mut [f32], width: usize) {
    for (row, dst) in logits.chunks_exact(width).zip(out.chunks_exact_mut(width)) {
        let m = row.iter().copied().fold(f32::NEG_INFINITY, f32::max);
        let mut sum = 0.0;
        for (d, &v) in dst.iter_mut().zip(row) {
            *d = (v - m).exp();
            sum += *d;
        }
        for d in dst.iter_mut() {
            *d /= sum;
        }
    }
}
