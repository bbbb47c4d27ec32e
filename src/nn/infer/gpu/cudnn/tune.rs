//! The 3 × 3 convolutions through cuDNN: their descriptors, the fused convolution + bias +
//! residual + ReLU launch, and each layer's algorithm, chosen by timing cuDNN's candidates once
//! per batch bucket (`nn::infer::gpu::sizes::bucket`).
//!
//! A batch of `n` runs with descriptors for its own `n` and the algorithms timed for its bucket.
//! cuDNN's forward algorithm is a family of kernels, not a plan for one shape: it is valid for
//! another batch size whenever `cudnnGetConvolutionForwardWorkspaceSize` accepts it for that
//! shape (it answers `CUDNN_STATUS_NOT_SUPPORTED` otherwise) and the workspace it then asks for
//! is there. Both are checked for each new `n` ([`Activations::prepare`]), once per distinct
//! algorithm of each layer kind, and an algorithm refused at `n` falls back to
//! `IMPLICIT_GEMM`, which supports every shape without a workspace. Padding the batch up to
//! its bucket instead would compute up to twice the positions.

use std::collections::HashMap;
use std::sync::Arc;

use cudarc::cudnn::{self, Cudnn};
use cudarc::driver::{CudaSlice, CudaStream};
use half::f16;

use super::DevConv3;
use super::check::{CudnnError, dnn, driver};
use crate::nn::infer::gpu::plan::GpuPlan;
use crate::nn::infer::gpu::sizes::bucket;

/// A cuDNN forward algorithm.
pub(super) type Algo = cudnn::sys::cudnnConvolutionFwdAlgo_t;

/// Runs for the shapes no other algorithm takes: supports every shape, needs no workspace.
const FALLBACK: Algo = cudnn::sys::cudnnConvolutionFwdAlgo_t::CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM;

/// Timed launches per candidate, after one untimed launch (the first pays module loading).
const TIMED_LAUNCHES: usize = 3;

/// Which buffers a convolution reads and writes.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Buffers {
    /// The stem: input → a.
    Stem,
    /// A block's first convolution: a → b.
    Mid,
    /// A block's second: b (+ a as the residual) → c.
    Second,
}

/// The network's layer `i` of the stem and tower, as errors name it.
pub(super) fn layer_name(i: usize) -> String {
    if i == 0 { "the stem".into() } else { format!("block {} convolution {}", (i - 1) / 2 + 1, (i - 1) % 2 + 1) }
}

/// The descriptors that do not depend on the batch size.
pub(super) struct ConvDescs {
    stem_w: cudnn::FilterDescriptor<f16>,
    tower_w: cudnn::FilterDescriptor<f16>,
    conv: cudnn::ConvDescriptor<f32>,
    act: cudnn::ActivationDescriptor<f32>,
    bias: cudnn::TensorDescriptor<f16>,
}

impl ConvDescs {
    pub(super) fn new(d: &Arc<Cudnn>, p: &GpuPlan) -> Result<ConvDescs, CudnnError> {
        use cudnn::sys::{cudnnActivationMode_t, cudnnConvolutionMode_t, cudnnMathType_t, cudnnNanPropagation_t};
        let what = "making the convolution descriptors";
        let ch = p.channels() as i32;
        let filter = |cin: usize| d.create_4d_filter::<f16>(NHWC, [ch, cin as i32, 3, 3]).map_err(|e| dnn(what, e));
        let mut conv = d.create_conv2d::<f32>([1, 1], [1, 1], [1, 1], cudnnConvolutionMode_t::CUDNN_CROSS_CORRELATION).map_err(|e| dnn(what, e))?;
        conv.set_math_type(cudnnMathType_t::CUDNN_TENSOR_OP_MATH).map_err(|e| dnn(what, e))?;
        // ReLU with no ceiling that f16 can reach.
        let act = d
            .create_activation::<f32>(cudnnActivationMode_t::CUDNN_ACTIVATION_RELU, cudnnNanPropagation_t::CUDNN_NOT_PROPAGATE_NAN, f64::MAX)
            .map_err(|e| dnn(what, e))?;
        Ok(ConvDescs {
            stem_w: filter(p.planes_padded)?,
            tower_w: filter(p.channels())?,
            bias: d.create_4d_tensor::<f16>(NHWC, [1, ch, 1, 1]).map_err(|e| dnn(what, e))?,
            conv,
            act,
        })
    }
}

const NHWC: cudnn::sys::cudnnTensorFormat_t = cudnn::sys::cudnnTensorFormat_t::CUDNN_TENSOR_NHWC;

/// The activation descriptors of one batch size, and the algorithm each layer runs at it.
pub(super) struct BatchDescs {
    pub(super) n: usize,
    /// `[n, planes_padded, rows, cols]`: the stem's input.
    stem_x: cudnn::TensorDescriptor<f16>,
    /// `[n, channels, rows, cols]`: every other activation (outputs, residuals).
    x: cudnn::TensorDescriptor<f16>,
    pub(super) algos: Vec<Algo>,
}

impl BatchDescs {
    fn new(d: &Arc<Cudnn>, p: &GpuPlan, n: usize) -> Result<BatchDescs, CudnnError> {
        let (rows, cols) = (p.shape.rows as i32, p.shape.cols as i32);
        let tensor =
            |c: usize| d.create_4d_tensor::<f16>(NHWC, [n as i32, c as i32, rows, cols]).map_err(|e| dnn(format_args!("describing a batch of {n}"), e));
        Ok(BatchDescs { n, stem_x: tensor(p.planes_padded)?, x: tensor(p.channels())?, algos: Vec::new() })
    }

    fn forward<'a>(&'a self, descs: &'a ConvDescs, which: Buffers) -> cudnn::ConvForward<'a, f16, f32, f16> {
        let (x, w) = if which == Buffers::Stem { (&self.stem_x, &descs.stem_w) } else { (&self.x, &descs.tower_w) };
        cudnn::ConvForward { conv: &descs.conv, x, w, y: &self.x }
    }
}

/// A stream's activation buffers (`capacity` positions) and the convolutions' workspace.
pub(super) struct Bufs {
    /// `[positions, squares, planes_padded]`.
    pub(super) input: CudaSlice<f16>,
    /// `[positions, squares, channels]` each: the tower's input and output (`a`), a block's
    /// middle (`b`) and its output before it becomes the next input (`c`).
    pub(super) a: CudaSlice<f16>,
    pub(super) b: CudaSlice<f16>,
    pub(super) c: CudaSlice<f16>,
    workspace: CudaSlice<u8>,
}

/// A stream's activations and convolution state: what the tuner times on and what runs.
pub(super) struct Activations {
    pub(super) bufs: Bufs,
    descs: ConvDescs,
    /// The descriptors of the last batch size run.
    batch: Option<BatchDescs>,
    /// Each tuned bucket's algorithms, with the workspace each needs at the bucket's size. Kept
    /// when the stream's buffers grow: the choice does not depend on the buffers.
    pub(super) tuned: HashMap<usize, Vec<(Algo, usize)>>,
}

/// What the tower's layers are, in order: the stem, then each block's two convolutions.
pub(super) type Layers<'a> = Vec<(&'a DevConv3, Buffers)>;

impl Activations {
    pub(super) fn new(
        stream: &Arc<CudaStream>,
        d: &Arc<Cudnn>,
        p: &GpuPlan,
        capacity: usize,
        tuned: HashMap<usize, Vec<(Algo, usize)>>,
    ) -> Result<Activations, CudnnError> {
        let rows = capacity * p.shape.squares();
        let alloc =
            |len: usize| stream.alloc_zeros::<f16>(len.max(1)).map_err(|e| driver(format_args!("allocating the activations of {capacity} positions"), e));
        let workspace_bytes = tuned.values().flatten().map(|&(_, bytes)| bytes).max().unwrap_or(0);
        let bufs = Bufs {
            input: alloc(rows * p.planes_padded)?,
            a: alloc(rows * p.channels())?,
            b: alloc(rows * p.channels())?,
            c: alloc(rows * p.channels())?,
            workspace: stream
                .alloc_zeros::<u8>(workspace_bytes.max(1))
                .map_err(|e| driver(format_args!("allocating a {workspace_bytes}-byte workspace"), e))?,
        };
        Ok(Activations { bufs, descs: ConvDescs::new(d, p)?, batch: None, tuned })
    }

    /// Makes the descriptors and algorithms of a batch of `n` current: times the bucket's
    /// algorithms if it has none yet (returns whether it did), checks them at `n` (see the
    /// module's comment) and grows the workspace to what they need.
    pub(super) fn prepare(&mut self, stream: &Arc<CudaStream>, d: &Arc<Cudnn>, p: &GpuPlan, layers: &Layers, n: usize) -> Result<bool, CudnnError> {
        if self.batch.as_ref().is_some_and(|b| b.n == n) {
            return Ok(false);
        }
        let b = bucket(n);
        let tuned_now = !self.tuned.contains_key(&b);
        if tuned_now {
            let algos = self.tune(stream, d, p, layers, b)?;
            self.tuned.insert(b, algos);
            // Keep the workspace to what the chosen algorithms need (a rejected candidate may
            // have asked for far more).
            let needed = self.tuned.values().flatten().map(|&(_, bytes)| bytes).max().unwrap_or(0).max(1);
            if self.bufs.workspace.len() > needed {
                self.bufs.workspace = stream.alloc_zeros::<u8>(needed).map_err(|e| driver(format_args!("allocating a {needed}-byte workspace"), e))?;
            }
        }
        let mut batch = BatchDescs::new(d, p, n)?;
        // At most two layer kinds and a few distinct algorithms: one query for each pair.
        let mut checked: Vec<(Buffers, Algo, Algo)> = Vec::new();
        for (i, ((_, which), &(algo, _))) in layers.iter().zip(&self.tuned[&b]).enumerate() {
            let kind = if *which == Buffers::Stem { Buffers::Stem } else { Buffers::Mid };
            if let Some(&(_, _, runs)) = checked.iter().find(|c| c.0 == kind && c.1 == algo) {
                batch.algos.push(runs);
                continue;
            }
            let fwd = batch.forward(&self.descs, *which);
            let (runs, bytes) = match fwd.get_workspace_size(algo) {
                Ok(bytes) => (algo, bytes),
                Err(_) => (FALLBACK, fwd.get_workspace_size(FALLBACK).map_err(|e| dnn(format_args!("{} at batch {n} with {FALLBACK:?}", layer_name(i)), e))?),
            };
            if self.bufs.workspace.len() < bytes {
                self.bufs.workspace = stream
                    .alloc_zeros::<u8>(bytes)
                    .map_err(|e| driver(format_args!("allocating the {bytes}-byte workspace of {} at batch {n} with {runs:?}", layer_name(i)), e))?;
            }
            checked.push((kind, algo, runs));
            batch.algos.push(runs);
        }
        self.batch = Some(batch);
        Ok(tuned_now)
    }

    /// Each layer's fastest algorithm at `b` positions, with the workspace it needs: every
    /// candidate cuDNN accepts for the shape is launched once untimed, then timed over
    /// [`TIMED_LAUNCHES`] launches on this stream's own buffers; a candidate whose workspace
    /// cannot be allocated or whose launch fails is skipped.
    fn tune(&mut self, stream: &Arc<CudaStream>, d: &Arc<Cudnn>, p: &GpuPlan, layers: &Layers, b: usize) -> Result<Vec<(Algo, usize)>, CudnnError> {
        use cudarc::driver::sys::CUevent_flags::CU_EVENT_DEFAULT;
        let batch = BatchDescs::new(d, p, b)?;
        let mut chosen = Vec::with_capacity(layers.len());
        for (i, &(layer, which)) in layers.iter().enumerate() {
            let fwd = batch.forward(&self.descs, which);
            let candidates: Vec<(Algo, usize)> = ALGOS.iter().filter_map(|&algo| fwd.get_workspace_size(algo).ok().map(|bytes| (algo, bytes))).collect();
            let mut best: Option<(f32, Algo, usize)> = None;
            let mut last_failure = String::from("cuDNN accepts none of its algorithms for this shape");
            for &(algo, bytes) in &candidates {
                if self.bufs.workspace.len() < bytes {
                    match stream.alloc_zeros::<u8>(bytes) {
                        Ok(w) => self.bufs.workspace = w,
                        Err(e) => {
                            last_failure = format!("{algo:?}'s {bytes}-byte workspace: {e:?}");
                            continue;
                        }
                    }
                }
                if let Err(e) = launch(&self.descs, &batch, &mut self.bufs, i, layer, which, algo) {
                    last_failure = e.to_string();
                    continue;
                }
                let start = stream.record_event(Some(CU_EVENT_DEFAULT)).map_err(|e| driver("timing a convolution", e))?;
                let launched = (0..TIMED_LAUNCHES).try_for_each(|_| launch(&self.descs, &batch, &mut self.bufs, i, layer, which, algo));
                let end = stream.record_event(Some(CU_EVENT_DEFAULT)).map_err(|e| driver("timing a convolution", e))?;
                end.synchronize().map_err(|e| driver(format_args!("timing {} at batch {b} with {algo:?}", layer_name(i)), e))?;
                if let Err(e) = launched {
                    last_failure = e.to_string();
                    continue;
                }
                let ms = start.elapsed_ms(&end).map_err(|e| driver("timing a convolution", e))?;
                if best.is_none_or(|(fastest, ..)| ms < fastest) {
                    best = Some((ms, algo, bytes));
                }
            }
            let Some((_, algo, bytes)) = best else {
                return Err(CudnnError::Cudnn(format!(
                    "{} at batch {b}: none of {} candidate algorithms ran (last: {last_failure})",
                    layer_name(i),
                    candidates.len()
                )));
            };
            chosen.push((algo, bytes));
        }
        Ok(chosen)
    }
}

impl Activations {
    /// The stem and the tower over the prepared batch ([`Activations::prepare`]): the input
    /// buffer in, the tower's output in `a`.
    pub(super) fn tower(&mut self, layers: &Layers) -> Result<(), CudnnError> {
        let Some(batch) = self.batch.as_ref() else {
            return Err(CudnnError::Cudnn("the tower ran before its batch was prepared".into()));
        };
        for (i, (&(layer, which), &algo)) in layers.iter().zip(&batch.algos).enumerate() {
            launch(&self.descs, batch, &mut self.bufs, i, layer, which, algo)?;
            if which == Buffers::Second {
                std::mem::swap(&mut self.bufs.a, &mut self.bufs.c);
            }
        }
        Ok(())
    }
}

/// Layer `i` (`layer`, reading and writing `which` buffers) at `batch`'s size with `algo`:
/// `relu(conv(x) + bias (+ the residual))` in one cuDNN call. While an algorithm is chosen the
/// same buffers are used, so what is timed is what runs.
fn launch(descs: &ConvDescs, batch: &BatchDescs, bufs: &mut Bufs, i: usize, layer: &DevConv3, which: Buffers, algo: Algo) -> Result<(), CudnnError> {
    let x = if which == Buffers::Stem { &batch.stem_x } else { &batch.x };
    let w = if which == Buffers::Stem { &descs.stem_w } else { &descs.tower_w };
    let op = cudnn::ConvBiasActivationForward { conv: &descs.conv, act: &descs.act, x, w, z: &batch.x, bias: &descs.bias, y: &batch.x };
    let ws = if bufs.workspace.len() > 1 { Some(&mut bufs.workspace) } else { None };
    // SAFETY: the descriptors match the buffers' types and layouts, and the buffers hold at
    // least `batch.n` positions of every layer's width (a stream's batches never pass its
    // capacity); `z` is only read when `alpha2` is 1.
    unsafe {
        match which {
            Buffers::Stem => op.launch(algo, ws, (f16::ONE, f16::ZERO), &bufs.input, &layer.w, &bufs.b, &layer.b, &mut bufs.a),
            Buffers::Mid => op.launch(algo, ws, (f16::ONE, f16::ZERO), &bufs.a, &layer.w, &bufs.a, &layer.b, &mut bufs.b),
            Buffers::Second => op.launch(algo, ws, (f16::ONE, f16::ONE), &bufs.b, &layer.w, &bufs.a, &layer.b, &mut bufs.c),
        }
    }
    .map_err(|e| dnn(format_args!("{} at batch {} with {algo:?}", layer_name(i), batch.n), e))
}

/// cuDNN's forward algorithms, each tried when the choice is timed.
const ALGOS: [Algo; 8] = {
    use cudnn::sys::cudnnConvolutionFwdAlgo_t::*;
    [
        CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM,
        CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM,
        CUDNN_CONVOLUTION_FWD_ALGO_GEMM,
        CUDNN_CONVOLUTION_FWD_ALGO_DIRECT,
        CUDNN_CONVOLUTION_FWD_ALGO_FFT,
        CUDNN_CONVOLUTION_FWD_ALGO_FFT_TILING,
        CUDNN_CONVOLUTION_FWD_ALGO_WINOGRAD,
        CUDNN_CONVOLUTION_FWD_ALGO_WINOGRAD_NONFUSED,
    ]
};
