//! The NVIDIA inference path (`hardware.device = "cudnn"`, a build with the `cudnn` feature):
//! the network's forward pass written directly against cuDNN and cuBLASLt through `cudarc`, as
//! lc0 and KataGo write theirs, with training left to burn.
//!
//! What it computes is [`GpuPlan`] (batch norm folded into the convolutions, NHWC activations
//! in half precision, f32 accumulation), which `GpuPlan::reference` computes on the CPU:
//!
//! - each 3 × 3 convolution is one `cudnnConvolutionBiasActivationForward` (bias, the residual
//!   as `z` for a block's second convolution, ReLU), with tensor-op math; the algorithm of each
//!   layer is chosen by timing cuDNN's candidates once per stream and batch bucket ([`tune`]);
//! - each 1 × 1 convolution and dense layer is one cuBLASLt product with a bias (and ReLU)
//!   epilogue;
//! - inputs go up and outputs come back through pinned host buffers, a batch's own rows only
//!   (`nn::infer::gpu::sizes::Transfer`); the buffers the host reads are not write-combined (reads
//!   from write-combined memory are uncached); each of [`STREAMS`] streams has its own
//!   buffers, so that two callers (two inference threads) keep two batches in flight;
//! - `cudarc`'s per-buffer event tracking is off: every buffer is used on one stream only and
//!   the weights are read-only once uploaded, so its waits and records (about 400 driver calls
//!   a pass) would order nothing.
//!
//! The libraries are loaded when the device is opened (`cudarc`'s dynamic loading), so the
//! build needs no CUDA; a machine without the driver, cuDNN or cuBLAS gets one error line
//! naming what is missing ([`check`]); every failure after that is one line naming what failed
//! (layer, batch size, algorithm) with the library's own message.

mod check;
mod tune;

use std::collections::HashMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use cudarc::cublaslt::{Activation, CudaBlasLT, Matmul, MatmulConfig};
use cudarc::cudnn::Cudnn;
use cudarc::driver::{CudaContext, CudaSlice, CudaStream, PinnedHostSlice};
use half::f16;

pub use check::{CudnnError, check};
use check::{blas, driver, guarded};
use tune::{Activations, Algo, Buffers, Layers};

use super::plan::{Conv3, Gemm, GpuPlan, softmax_rows};
use super::sizes::{Transfer, capacity};
use crate::nn::infer::cpu::HostOutputs;

/// Streams, each with its own buffers: batches that can be in flight at once.
pub const STREAMS: usize = 2;

/// One layer's weights on the GPU.
struct DevConv3 {
    w: CudaSlice<f16>,
    b: CudaSlice<f16>,
}

struct DevGemm {
    w: CudaSlice<f16>,
    b: CudaSlice<f16>,
    k: usize,
    n: usize,
    relu: bool,
}

fn upload(stream: &Arc<CudaStream>, v: &[f32]) -> Result<CudaSlice<f16>, CudnnError> {
    let h: Vec<f16> = v.iter().map(|&x| f16::from_f32(x)).collect();
    stream.clone_htod(&h).map_err(|e| driver(format_args!("uploading {} weights", v.len()), e))
}

fn upload_conv(stream: &Arc<CudaStream>, c: &Conv3) -> Result<DevConv3, CudnnError> {
    Ok(DevConv3 { w: upload(stream, &c.w)?, b: upload(stream, &c.b)? })
}

fn upload_gemm(stream: &Arc<CudaStream>, g: &Gemm) -> Result<DevGemm, CudnnError> {
    Ok(DevGemm { w: upload(stream, &g.w)?, b: upload(stream, &g.b)?, k: g.k, n: g.n, relu: g.relu })
}

/// A stream's handles and buffers for batches of up to `capacity` positions.
struct Slot {
    stream: Arc<CudaStream>,
    dnn: Arc<Cudnn>,
    lt: CudaBlasLT,
    capacity: usize,
    act: Activations,
    head: CudaSlice<f16>,
    hidden: CudaSlice<f16>,
    policy: CudaSlice<f16>,
    logits: CudaSlice<f16>,
    moves_left: CudaSlice<f16>,
    /// Written by the host, read by the device: write-combined.
    host_in: PinnedHostSlice<f16>,
    /// Read by the host: ordinary (cached) pinned memory.
    host_policy: PinnedHostSlice<f16>,
    host_logits: PinnedHostSlice<f16>,
    host_moves_left: PinnedHostSlice<f16>,
}

// SAFETY: a slot's cuDNN and cuBLASLt handles are used by one thread at a time (the slot sits in
// a mutex), which is what the libraries require of a handle; they may move between threads.
unsafe impl Send for Slot {}

/// The network loaded on one GPU.
pub struct CudnnNet {
    plan: GpuPlan,
    ctx: Arc<CudaContext>,
    name: String,
    stem: DevConv3,
    blocks: Vec<(DevConv3, DevConv3)>,
    policy_hidden: DevGemm,
    policy_out: DevGemm,
    value: [DevGemm; 3],
    moves_left: Option<[DevGemm; 3]>,
    slots: Vec<Mutex<Option<Slot>>>,
    /// Convolution algorithm tunings run so far (one per stream and batch bucket).
    tunings: AtomicUsize,
}

impl CudnnNet {
    /// Uploads `plan` to GPU `ordinal` (after [`check`]).
    pub fn new(plan: GpuPlan, ordinal: usize) -> Result<CudnnNet, CudnnError> {
        let name = check(ordinal)?;
        guarded(format_args!("loading the network onto GPU {ordinal}"), || {
            let ctx = CudaContext::new(ordinal).map_err(|e| driver(format_args!("opening GPU {ordinal}"), e))?;
            // SAFETY: this context's buffers need no event tracking between streams: the
            // weights are uploaded on the default stream, which is synchronised below before
            // any other stream reads them, and nothing writes them afterwards; every other
            // buffer is allocated, used and freed on its own slot's stream, and each slot's run
            // ends by synchronising that stream.
            unsafe { ctx.disable_event_tracking() };
            let s = ctx.default_stream();
            let head = |h: &super::plan::DenseHead| -> Result<[DevGemm; 3], CudnnError> {
                Ok([upload_gemm(&s, &h.conv)?, upload_gemm(&s, &h.fc1)?, upload_gemm(&s, &h.fc2)?])
            };
            let net = CudnnNet {
                stem: upload_conv(&s, &plan.stem)?,
                blocks: plan.blocks.iter().map(|(a, b)| Ok((upload_conv(&s, a)?, upload_conv(&s, b)?))).collect::<Result<_, CudnnError>>()?,
                policy_hidden: upload_gemm(&s, &plan.policy_hidden)?,
                policy_out: upload_gemm(&s, &plan.policy_out)?,
                value: head(&plan.value)?,
                moves_left: plan.moves_left.as_ref().map(head).transpose()?,
                slots: (0..STREAMS).map(|_| Mutex::new(None)).collect(),
                tunings: AtomicUsize::new(0),
                plan,
                ctx,
                name,
            };
            s.synchronize().map_err(|e| driver("uploading the weights", e))?;
            Ok(net)
        })
    }

    /// The GPU's name and cuDNN's version.
    pub fn device_name(&self) -> &str {
        &self.name
    }

    pub fn plan(&self) -> &GpuPlan {
        &self.plan
    }

    /// Convolution algorithm tunings run so far: one per stream and batch bucket (a power of
    /// two, `nn::infer::gpu::sizes::bucket`), however many batch sizes ran.
    pub fn tunings(&self) -> usize {
        self.tunings.load(Ordering::Relaxed)
    }

    /// One forward pass over `n` encodings (`[planes, rows, cols]` each, f32): what
    /// `GpuPlan::reference` computes in half precision.
    pub fn forward(&self, inputs: &[f32], n: usize) -> Result<HostOutputs, CudnnError> {
        let per = self.plan.planes * self.plan.shape.squares();
        if inputs.len() < n * per {
            return Err(CudnnError::Missing(format!("a batch of {n} needs {} input values, got {}", n * per, inputs.len())));
        }
        if n == 0 {
            return Ok(HostOutputs { policy: Vec::new(), wdl: Vec::new(), moves_left: Vec::new() });
        }
        // A free stream if there is one, else wait for the first.
        let mut guard = self.slots.iter().find_map(|s| s.try_lock().ok()).unwrap_or_else(|| self.slots[0].lock().unwrap_or_else(|p| p.into_inner()));
        let result = guarded(format_args!("a batch of {n}"), || {
            if guard.as_ref().is_none_or(|s| s.capacity < n) {
                // Larger buffers; the tunings so far stay valid (they do not depend on them).
                let tuned = guard.take().map(|s| s.act.tuned).unwrap_or_default();
                *guard = Some(self.new_slot(capacity(n), tuned)?);
            }
            let Some(slot) = guard.as_mut() else { unreachable!("the slot was just made") };
            self.run(slot, inputs, n)
        });
        if let Err(CudnnError::Caught { .. }) = result {
            // A panic may have left the stream's state half-made: the next batch makes it anew.
            *guard = None;
        }
        result
    }

    /// The stem's and the tower's convolutions, in order.
    fn layers(&self) -> Layers<'_> {
        std::iter::once((&self.stem, Buffers::Stem)).chain(self.blocks.iter().flat_map(|(a, b)| [(a, Buffers::Mid), (b, Buffers::Second)])).collect()
    }

    /// Handles and buffers for batches of up to `capacity` positions on a new stream, keeping
    /// the algorithms `tuned` for smaller buffers.
    fn new_slot(&self, capacity: usize, tuned: HashMap<usize, Vec<(Algo, usize)>>) -> Result<Slot, CudnnError> {
        let p = &self.plan;
        let stream = self.ctx.new_stream().map_err(|e| driver("making a stream", e))?;
        // `Cudnn::new` unwraps this bind: done first, its failure is an error here.
        self.ctx.bind_to_thread().map_err(|e| driver("binding the GPU's context to this thread", e))?;
        let dnn = Cudnn::new(stream.clone()).map_err(|e| check::dnn("making a cuDNN handle", e))?;
        // `CudaBlasLT::new` unwraps the allocation of its workspace (32 MiB on Hopper): inside
        // `forward`'s guard, its failure is an error too.
        let lt = CudaBlasLT::new(stream.clone()).map_err(|e| blas("making a cuBLASLt handle", e))?;
        let rows = capacity * p.shape.squares();
        let head_ch = p.value.conv.n.max(p.policy_hidden.n).max(p.moves_left.as_ref().map_or(0, |h| h.conv.n));
        let hidden = p.value.fc1.n.max(p.moves_left.as_ref().map_or(0, |h| h.fc1.n));
        let full = Transfer::new(&p.shape, p.planes_padded, p.moves_left.is_some(), capacity);
        let what = format!("allocating the buffers of {capacity} positions");
        let alloc = |len: usize| stream.alloc_zeros::<f16>(len.max(1)).map_err(|e| driver(&what, e));
        // SAFETY (both): the host writes a pinned buffer before a copy reads it and reads one
        // after the copy into it has finished (`run` synchronises the stream).
        let write_combined = |len: usize| unsafe { self.ctx.alloc_pinned::<f16>(len.max(1)) }.map_err(|e| driver(&what, e));
        let cached = |len: usize| unsafe { self.ctx.alloc_pinned_with_flags::<f16>(len.max(1), 0) }.map_err(|e| driver(&what, e));
        Ok(Slot {
            act: Activations::new(&stream, &dnn, p, capacity, tuned)?,
            head: alloc(rows * head_ch)?,
            hidden: alloc(capacity * hidden)?,
            policy: alloc(full.policy)?,
            logits: alloc(full.logits)?,
            moves_left: alloc(full.moves_left)?,
            host_in: write_combined(full.input)?,
            host_policy: cached(full.policy)?,
            host_logits: cached(full.logits)?,
            host_moves_left: cached(full.moves_left)?,
            capacity,
            dnn,
            lt,
            stream,
        })
    }

    /// `out[m, g.n] = x[m, g.k] × w + b` (then ReLU) by cuBLASLt on the slot's stream; `name`
    /// says which layer for errors.
    fn gemm(lt: &CudaBlasLT, g: &DevGemm, x: &CudaSlice<f16>, m: usize, out: &mut CudaSlice<f16>, name: &str) -> Result<(), CudnnError> {
        // Column-major view: out^T[n, m] = w^T[n, k] · x^T[k, m], with w stored [k, n] row-major
        // (= w^T column-major, leading dimension n) and x [m, k] row-major (= x^T, leading k).
        let cfg = MatmulConfig {
            transa: false,
            transb: false,
            transc: false,
            m: g.n as u64,
            n: m as u64,
            k: g.k as u64,
            alpha: 1.0,
            lda: g.n as i64,
            ldb: g.k as i64,
            beta: 0.0,
            ldc: g.n as i64,
            stride_a: None,
            stride_b: None,
            stride_c: None,
            stride_bias: None,
            batch_size: None,
        };
        let act = if g.relu { Some(&Activation::Relu) } else { None };
        // SAFETY: the buffers hold `m × k` and `m × n` values (the slot is sized for its batch).
        unsafe { lt.matmul(cfg, &g.w, x, out, Some(&g.b), act) }.map_err(|e| blas(format_args!("{name} ({m} x {} x {})", g.k, g.n), e))
    }

    fn run(&self, slot: &mut Slot, inputs: &[f32], n: usize) -> Result<HostOutputs, CudnnError> {
        let p = &self.plan;
        let sq = p.shape.squares();
        let rows = n * sq;
        let t = Transfer::new(&p.shape, p.planes_padded, p.moves_left.is_some(), n);
        // Inputs: NHWC, padded, half precision, through the pinned buffer; the batch's rows only.
        {
            let staged = &mut slot.host_in.as_mut_slice().map_err(|e| driver("staging the inputs", e))?[..t.input];
            let (planes, padded) = (p.planes, p.planes_padded);
            for b in 0..n {
                for q in 0..sq {
                    let dst = &mut staged[(b * sq + q) * padded..][..padded];
                    for (c, d) in dst.iter_mut().enumerate() {
                        *d = if c < planes { f16::from_f32(inputs[(b * planes + c) * sq + q]) } else { f16::ZERO };
                    }
                }
            }
            slot.stream
                .memcpy_htod(&*staged, &mut slot.act.bufs.input.slice_mut(..t.input))
                .map_err(|e| driver(format_args!("copying the inputs of {n} positions"), e))?;
        }
        let layers = self.layers();
        if slot.act.prepare(&slot.stream, &slot.dnn, p, &layers, n)? {
            self.tunings.fetch_add(1, Ordering::Relaxed);
        }
        slot.act.tower(&layers)?;
        // Heads: products over every square, then over each position's flattened map.
        let a = &slot.act.bufs.a;
        Self::gemm(&slot.lt, &self.policy_hidden, a, rows, &mut slot.head, "the policy head's 1x1 convolution")?;
        Self::gemm(&slot.lt, &self.policy_out, &slot.head, rows, &mut slot.policy, "the policy head's output")?;
        let [vc, v1, v2] = &self.value;
        Self::gemm(&slot.lt, vc, a, rows, &mut slot.head, "the value head's 1x1 convolution")?;
        Self::gemm(&slot.lt, v1, &slot.head, n, &mut slot.hidden, "the value head's first dense layer")?;
        Self::gemm(&slot.lt, v2, &slot.hidden, n, &mut slot.logits, "the value head's output")?;
        if let Some([mc, m1, m2]) = &self.moves_left {
            Self::gemm(&slot.lt, mc, a, rows, &mut slot.head, "the moves-left head's 1x1 convolution")?;
            Self::gemm(&slot.lt, m1, &slot.head, n, &mut slot.hidden, "the moves-left head's first dense layer")?;
            Self::gemm(&slot.lt, m2, &slot.hidden, n, &mut slot.moves_left, "the moves-left head's output")?;
        }
        let copied = |e: cudarc::driver::DriverError| driver(format_args!("copying the outputs of {n} positions"), e);
        {
            let s = &slot.stream;
            s.memcpy_dtoh(&slot.policy.slice(..t.policy), &mut slot.host_policy.as_mut_slice().map_err(copied)?[..t.policy]).map_err(copied)?;
            s.memcpy_dtoh(&slot.logits.slice(..t.logits), &mut slot.host_logits.as_mut_slice().map_err(copied)?[..t.logits]).map_err(copied)?;
            if t.moves_left > 0 {
                s.memcpy_dtoh(&slot.moves_left.slice(..t.moves_left), &mut slot.host_moves_left.as_mut_slice().map_err(copied)?[..t.moves_left])
                    .map_err(copied)?;
            }
            s.synchronize().map_err(|e| driver(format_args!("running a batch of {n}"), e))?;
        }
        // Back to f32, the policy in the program's action order, the value as probabilities.
        let actions = p.shape.actions();
        let pol: Vec<f32> = slot.host_policy.as_slice().map_err(copied)?[..t.policy].iter().map(|v| v.to_f32()).collect();
        let mut policy = vec![0.0f32; n * actions];
        for b in 0..n {
            p.unpack_policy(&pol, b, &mut policy[b * actions..(b + 1) * actions]);
        }
        let logits: Vec<f32> = slot.host_logits.as_slice().map_err(copied)?[..t.logits].iter().map(|v| v.to_f32()).collect();
        let mut wdl = vec![0.0f32; n * 3];
        softmax_rows(&logits, &mut wdl, 3);
        let moves_left = slot.host_moves_left.as_slice().map_err(copied)?[..t.moves_left].iter().map(|v| v.to_f32()).collect();
        Ok(HostOutputs { policy, wdl, moves_left })
    }
}
