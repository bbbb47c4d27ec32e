//! The NVIDIA inference path (`hardware.device = "cudnn"`, a build with the `cudnn` feature):
//! the network's forward pass written directly against cuDNN and cuBLASLt through `cudarc`, as
//! lc0 and KataGo write theirs, with training left to burn.
//!
//! What it computes is [`GpuPlan`] (batch norm folded into the convolutions, NHWC activations
//! in half precision, f32 accumulation), which `GpuPlan::reference` computes on the CPU:
//!
//! - each 3 × 3 convolution is one `cudnnConvolutionBiasActivationForward` (bias, the residual
//!   as `z` for a block's second convolution, ReLU), with tensor-op math; the algorithm for each
//!   layer and batch size is chosen once by timing cuDNN's candidates;
//! - each 1 × 1 convolution and dense layer is one cuBLASLt product with a bias (and ReLU)
//!   epilogue;
//! - inputs go up and outputs come back through pinned host buffers, and each of
//!   [`STREAMS`] streams has its own buffers, so that two callers (two inference threads) keep
//!   two batches in flight.
//!
//! The libraries are loaded when the device is opened (`cudarc`'s dynamic loading), so the
//! build needs no CUDA; a machine without the driver, cuDNN or cuBLAS gets one error line
//! naming what is missing ([`check`]).

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use cudarc::cublaslt::{Activation, CudaBlasLT, Matmul, MatmulConfig};
use cudarc::cudnn::{self, Cudnn};
use cudarc::driver::{CudaContext, CudaSlice, CudaStream, PinnedHostSlice};
use half::f16;

use super::fused::HostOutputs;
use super::gpu_plan::{Conv3, Gemm, GpuPlan, softmax_rows};

/// Streams, each with its own buffers: batches that can be in flight at once.
pub const STREAMS: usize = 2;

/// Why the NVIDIA path cannot run.
#[derive(Debug, thiserror::Error)]
pub enum CudnnError {
    #[error("{0}")]
    Missing(String),
    #[error("CUDA: {0}")]
    Driver(String),
    #[error("cuDNN: {0}")]
    Cudnn(String),
    #[error("cuBLASLt: {0}")]
    Blas(String),
}

fn driver(e: impl std::fmt::Debug) -> CudnnError {
    CudnnError::Driver(format!("{e:?}"))
}

fn dnn(e: impl std::fmt::Debug) -> CudnnError {
    CudnnError::Cudnn(format!("{e:?}"))
}

fn blas(e: impl std::fmt::Debug) -> CudnnError {
    CudnnError::Blas(format!("{e:?}"))
}

/// Checks that the NVIDIA driver, cuDNN and cuBLASLt load, before anything calls into them
/// (`cudarc` panics on a call into a library that is not there). Returns the GPU's name.
pub fn check(ordinal: usize) -> Result<String, CudnnError> {
    // SAFETY: these only try to load the libraries; nothing is called in them.
    if !unsafe { cudarc::driver::sys::is_culib_present() } {
        return Err(CudnnError::Missing("the NVIDIA driver library (libcuda.so.1) was not found: this machine has no NVIDIA driver".into()));
    }
    if !unsafe { cudarc::cudnn::sys::is_culib_present() } {
        return Err(CudnnError::Missing(
            "cuDNN (libcudnn.so.9) was not found: install it (for example the pip package nvidia-cudnn-cu13) and put its lib folder on LD_LIBRARY_PATH".into(),
        ));
    }
    if !unsafe { cudarc::cublaslt::sys::is_culib_present() } {
        return Err(CudnnError::Missing(
            "cuBLASLt (libcublasLt.so) was not found: install cuBLAS (for example the pip package nvidia-cublas) and put its lib folder on LD_LIBRARY_PATH"
                .into(),
        ));
    }
    let count = CudaContext::device_count().map_err(driver)?;
    if ordinal >= count.max(0) as usize {
        return Err(CudnnError::Missing(format!("GPU {ordinal} does not exist: the driver sees {count}")));
    }
    let ctx = CudaContext::new(ordinal).map_err(driver)?;
    ctx.name().map_err(driver)
}

/// One layer's weights on the GPU.
struct DevConv3 {
    w: CudaSlice<f16>,
    b: CudaSlice<f16>,
    cin: usize,
    cout: usize,
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
    stream.clone_htod(&h).map_err(driver)
}

fn upload_conv(stream: &Arc<CudaStream>, c: &Conv3) -> Result<DevConv3, CudnnError> {
    Ok(DevConv3 { w: upload(stream, &c.w)?, b: upload(stream, &c.b)?, cin: c.cin, cout: c.cout })
}

fn upload_gemm(stream: &Arc<CudaStream>, g: &Gemm) -> Result<DevGemm, CudnnError> {
    Ok(DevGemm { w: upload(stream, &g.w)?, b: upload(stream, &g.b)?, k: g.k, n: g.n, relu: g.relu })
}

/// The cuDNN descriptors and chosen algorithm of one 3 × 3 convolution at one batch size.
struct ConvStep {
    x: cudnn::TensorDescriptor<f16>,
    w: cudnn::FilterDescriptor<f16>,
    conv: cudnn::ConvDescriptor<f32>,
    act: cudnn::ActivationDescriptor<f32>,
    bias: cudnn::TensorDescriptor<f16>,
    y: cudnn::TensorDescriptor<f16>,
    algo: cudnn::sys::cudnnConvolutionFwdAlgo_t,
}

/// A stream's buffers for batches of up to `capacity` positions, and its descriptors by batch
/// size.
struct Slot {
    stream: Arc<CudaStream>,
    dnn: Arc<Cudnn>,
    lt: CudaBlasLT,
    capacity: usize,
    input: CudaSlice<f16>,
    a: CudaSlice<f16>,
    b: CudaSlice<f16>,
    c: CudaSlice<f16>,
    head: CudaSlice<f16>,
    hidden: CudaSlice<f16>,
    policy: CudaSlice<f16>,
    logits: CudaSlice<f16>,
    moves_left: CudaSlice<f16>,
    workspace: CudaSlice<u8>,
    host_in: PinnedHostSlice<f16>,
    host_policy: PinnedHostSlice<f16>,
    host_logits: PinnedHostSlice<f16>,
    host_moves_left: PinnedHostSlice<f16>,
    /// The stem's and the tower's steps, by batch size.
    steps: HashMap<usize, Vec<ConvStep>>,
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
}

impl CudnnNet {
    /// Uploads `plan` to GPU `ordinal` (after [`check`]).
    pub fn new(plan: GpuPlan, ordinal: usize) -> Result<CudnnNet, CudnnError> {
        let name = check(ordinal)?;
        let ctx = CudaContext::new(ordinal).map_err(driver)?;
        let s = ctx.default_stream();
        let head = |h: &super::gpu_plan::DenseHead| -> Result<[DevGemm; 3], CudnnError> {
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
            plan,
            ctx,
            name,
        };
        s.synchronize().map_err(driver)?;
        Ok(net)
    }

    /// The GPU's name.
    pub fn device_name(&self) -> &str {
        &self.name
    }

    pub fn plan(&self) -> &GpuPlan {
        &self.plan
    }

    /// One forward pass over `n` encodings (`[planes, rows, cols]` each, f32): what
    /// `GpuPlan::reference` computes in half precision.
    pub fn forward(&self, inputs: &[f32], n: usize) -> Result<HostOutputs, CudnnError> {
        // A free stream if there is one, else wait for the first.
        let mut guard = self.slots.iter().find_map(|s| s.try_lock().ok()).unwrap_or_else(|| self.slots[0].lock().unwrap_or_else(|p| p.into_inner()));
        if guard.as_ref().is_none_or(|s| s.capacity < n) {
            *guard = Some(self.new_slot(n.next_power_of_two().max(64))?);
        }
        let Some(slot) = guard.as_mut() else { unreachable!("the slot was just made") };
        self.run(slot, inputs, n)
    }

    /// Buffers for batches of up to `capacity` positions on a new stream.
    fn new_slot(&self, capacity: usize) -> Result<Slot, CudnnError> {
        let p = &self.plan;
        let sq = p.shape.squares();
        let stream = self.ctx.new_stream().map_err(driver)?;
        let dnn = Cudnn::new(stream.clone()).map_err(dnn)?;
        let lt = CudaBlasLT::new(stream.clone()).map_err(blas)?;
        let rows = capacity * sq;
        let ch = p.channels();
        let head_ch = p.value.conv.n.max(p.policy_hidden.n).max(p.moves_left.as_ref().map_or(0, |h| h.conv.n));
        let hidden = p.value.fc1.n.max(p.moves_left.as_ref().map_or(0, |h| h.fc1.n));
        let alloc = |len: usize| stream.alloc_zeros::<f16>(len.max(1)).map_err(driver);
        // SAFETY: pinned buffers are only written by the host and read by copies on this stream.
        let pinned = |len: usize| unsafe { self.ctx.alloc_pinned::<f16>(len.max(1)) }.map_err(driver);
        Ok(Slot {
            input: alloc(rows * p.planes_padded)?,
            a: alloc(rows * ch)?,
            b: alloc(rows * ch)?,
            c: alloc(rows * ch)?,
            head: alloc(rows * head_ch)?,
            hidden: alloc(capacity * hidden)?,
            policy: alloc(rows * p.shape.policy_planes)?,
            logits: alloc(capacity * 3)?,
            moves_left: alloc(capacity)?,
            workspace: stream.alloc_zeros::<u8>(1).map_err(driver)?,
            host_in: pinned(rows * p.planes_padded)?,
            host_policy: pinned(rows * p.shape.policy_planes)?,
            host_logits: pinned(capacity * 3)?,
            host_moves_left: pinned(capacity)?,
            steps: HashMap::new(),
            capacity,
            dnn,
            lt,
            stream,
        })
    }

    /// The descriptors of every 3 × 3 convolution at batch size `n`, each with the fastest of
    /// cuDNN's candidate algorithms, timed on this slot's buffers (once per batch size).
    fn conv_steps(&self, slot: &mut Slot, n: usize) -> Result<(), CudnnError> {
        if slot.steps.contains_key(&n) {
            return Ok(());
        }
        let mut steps = Vec::new();
        let layers: Vec<&DevConv3> = std::iter::once(&self.stem).chain(self.blocks.iter().flat_map(|(a, b)| [a, b])).collect();
        for (i, layer) in layers.iter().enumerate() {
            let step = self.describe(slot, n, layer)?;
            let which = if i == 0 {
                Buffers::Stem
            } else if i % 2 == 1 {
                Buffers::Mid
            } else {
                Buffers::Second
            };
            let step = self.fastest(slot, step, layer, which, n)?;
            steps.push(step);
        }
        slot.steps.insert(n, steps);
        Ok(())
    }

    fn describe(&self, slot: &Slot, n: usize, l: &DevConv3) -> Result<ConvStep, CudnnError> {
        use cudnn::sys::{cudnnActivationMode_t, cudnnConvolutionMode_t, cudnnMathType_t, cudnnNanPropagation_t, cudnnTensorFormat_t};
        let (rows, cols) = (self.plan.shape.rows as i32, self.plan.shape.cols as i32);
        let nhwc = cudnnTensorFormat_t::CUDNN_TENSOR_NHWC;
        let d = &slot.dnn;
        let x = d.create_4d_tensor::<f16>(nhwc, [n as i32, l.cin as i32, rows, cols]).map_err(dnn)?;
        let y = d.create_4d_tensor::<f16>(nhwc, [n as i32, l.cout as i32, rows, cols]).map_err(dnn)?;
        let w = d.create_4d_filter::<f16>(nhwc, [l.cout as i32, l.cin as i32, 3, 3]).map_err(dnn)?;
        let bias = d.create_4d_tensor::<f16>(nhwc, [1, l.cout as i32, 1, 1]).map_err(dnn)?;
        let mut conv = d.create_conv2d::<f32>([1, 1], [1, 1], [1, 1], cudnnConvolutionMode_t::CUDNN_CROSS_CORRELATION).map_err(dnn)?;
        conv.set_math_type(cudnnMathType_t::CUDNN_TENSOR_OP_MATH).map_err(dnn)?;
        let act =
            d.create_activation::<f32>(cudnnActivationMode_t::CUDNN_ACTIVATION_RELU, cudnnNanPropagation_t::CUDNN_NOT_PROPAGATE_NAN, f64::MAX).map_err(dnn)?;
        Ok(ConvStep { x, w, conv, act, bias, y, algo: cudnn::sys::cudnnConvolutionFwdAlgo_t::CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM })
    }

    /// Times each of cuDNN's candidate algorithms for `step` (three runs each, the best kept)
    /// and keeps the fastest that runs; grows the slot's workspace to what it needs.
    fn fastest(&self, slot: &mut Slot, mut step: ConvStep, l: &DevConv3, which: Buffers, n: usize) -> Result<ConvStep, CudnnError> {
        let candidates = {
            let fwd = cudnn::ConvForward { conv: &step.conv, x: &step.x, w: &step.w, y: &step.y };
            let mut found = Vec::new();
            for algo in ALGOS {
                if let Ok(bytes) = fwd.get_workspace_size(algo) {
                    found.push((algo, bytes));
                }
            }
            found
        };
        let mut best: Option<(f32, cudnn::sys::cudnnConvolutionFwdAlgo_t, usize)> = None;
        for (algo, bytes) in candidates {
            if slot.workspace.len() < bytes {
                slot.workspace = slot.stream.alloc_zeros::<u8>(bytes).map_err(driver)?;
            }
            step.algo = algo;
            let start = slot.stream.record_event(Some(cudarc::driver::sys::CUevent_flags::CU_EVENT_DEFAULT)).map_err(driver)?;
            let mut ok = true;
            for _ in 0..3 {
                if self.launch_conv(slot, &step, l, which).is_err() {
                    ok = false;
                    break;
                }
            }
            let end = slot.stream.record_event(Some(cudarc::driver::sys::CUevent_flags::CU_EVENT_DEFAULT)).map_err(driver)?;
            end.synchronize().map_err(driver)?;
            if !ok {
                continue;
            }
            let ms = start.elapsed_ms(&end).map_err(driver)?;
            if best.is_none_or(|b| ms < b.0) {
                best = Some((ms, algo, bytes));
            }
        }
        let Some((_, algo, _)) = best else {
            return Err(CudnnError::Cudnn(format!("no convolution algorithm runs for {}x{} channels at batch {n}", l.cin, l.cout)));
        };
        step.algo = algo;
        Ok(step)
    }

    /// One 3 × 3 convolution of the network on the slot's buffers (while an algorithm is
    /// chosen the same buffers are used, so what is timed is what runs).
    fn launch_conv(&self, slot: &mut Slot, step: &ConvStep, l: &DevConv3, which: Buffers) -> Result<(), CudnnError> {
        let op = cudnn::ConvBiasActivationForward { conv: &step.conv, act: &step.act, x: &step.x, w: &step.w, z: &step.y, bias: &step.bias, y: &step.y };
        let ws = if slot.workspace.len() > 1 { Some(&mut slot.workspace) } else { None };
        // SAFETY: the descriptors match the buffers' types and sizes (the slot holds at least
        // `n` positions of every layer's width); `z` is only read when `alpha2` is 1.
        unsafe {
            match which {
                Buffers::Mid => op.launch(step.algo, ws, (f16::ONE, f16::ZERO), &slot.a, &l.w, &slot.a, &l.b, &mut slot.b),
                Buffers::Stem => op.launch(step.algo, ws, (f16::ONE, f16::ZERO), &slot.input, &l.w, &slot.b, &l.b, &mut slot.a),
                Buffers::Second => op.launch(step.algo, ws, (f16::ONE, f16::ONE), &slot.b, &l.w, &slot.a, &l.b, &mut slot.c),
            }
        }
        .map_err(dnn)
    }

    /// `out[m, g.n] = x[m, g.k] × w + b` (then ReLU) by cuBLASLt on the slot's stream.
    fn gemm(lt: &CudaBlasLT, g: &DevGemm, x: &CudaSlice<f16>, m: usize, out: &mut CudaSlice<f16>) -> Result<(), CudnnError> {
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
        unsafe { lt.matmul(cfg, &g.w, x, out, Some(&g.b), act) }.map_err(blas)
    }

    fn run(&self, slot: &mut Slot, inputs: &[f32], n: usize) -> Result<HostOutputs, CudnnError> {
        let p = &self.plan;
        let sq = p.shape.squares();
        let rows = n * sq;
        // Inputs: NHWC, padded, half precision, through the pinned buffer.
        {
            let staged = slot.host_in.as_mut_slice().map_err(driver)?;
            let (planes, padded) = (p.planes, p.planes_padded);
            for b in 0..n {
                for q in 0..sq {
                    let dst = &mut staged[(b * sq + q) * padded..][..padded];
                    for (c, d) in dst.iter_mut().enumerate() {
                        *d = if c < planes { f16::from_f32(inputs[(b * planes + c) * sq + q]) } else { f16::ZERO };
                    }
                }
            }
        }
        slot.stream.memcpy_htod(&slot.host_in, &mut slot.input).map_err(driver)?;
        self.conv_steps(slot, n)?;
        let steps = slot.steps.remove(&n).unwrap_or_default();
        let result = (|| {
            self.launch_conv(slot, &steps[0], &self.stem, Buffers::Stem)?;
            for (i, (c1, c2)) in self.blocks.iter().enumerate() {
                self.launch_conv(slot, &steps[1 + 2 * i], c1, Buffers::Mid)?;
                self.launch_conv(slot, &steps[2 + 2 * i], c2, Buffers::Second)?;
                std::mem::swap(&mut slot.a, &mut slot.c);
            }
            Ok::<(), CudnnError>(())
        })();
        slot.steps.insert(n, steps);
        result?;
        // Heads: products over every square, then over each position's flattened map.
        Self::gemm(&slot.lt, &self.policy_hidden, &slot.a, rows, &mut slot.head)?;
        Self::gemm(&slot.lt, &self.policy_out, &slot.head, rows, &mut slot.policy)?;
        let [vc, v1, v2] = &self.value;
        Self::gemm(&slot.lt, vc, &slot.a, rows, &mut slot.head)?;
        Self::gemm(&slot.lt, v1, &slot.head, n, &mut slot.hidden)?;
        Self::gemm(&slot.lt, v2, &slot.hidden, n, &mut slot.logits)?;
        if let Some([mc, m1, m2]) = &self.moves_left {
            Self::gemm(&slot.lt, mc, &slot.a, rows, &mut slot.head)?;
            Self::gemm(&slot.lt, m1, &slot.head, n, &mut slot.hidden)?;
            Self::gemm(&slot.lt, m2, &slot.hidden, n, &mut slot.moves_left)?;
        }
        slot.stream.memcpy_dtoh(&slot.policy, &mut slot.host_policy).map_err(driver)?;
        slot.stream.memcpy_dtoh(&slot.logits, &mut slot.host_logits).map_err(driver)?;
        if self.moves_left.is_some() {
            slot.stream.memcpy_dtoh(&slot.moves_left, &mut slot.host_moves_left).map_err(driver)?;
        }
        slot.stream.synchronize().map_err(driver)?;
        // Back to f32, the policy in the program's action order, the value as probabilities.
        let actions = p.shape.actions();
        let pol: Vec<f32> = slot.host_policy.as_slice().map_err(driver)?[..rows * p.shape.policy_planes].iter().map(|v| v.to_f32()).collect();
        let mut policy = vec![0.0f32; n * actions];
        for b in 0..n {
            p.unpack_policy(&pol, b, &mut policy[b * actions..(b + 1) * actions]);
        }
        let logits: Vec<f32> = slot.host_logits.as_slice().map_err(driver)?[..n * 3].iter().map(|v| v.to_f32()).collect();
        let mut wdl = vec![0.0f32; n * 3];
        softmax_rows(&logits, &mut wdl, 3);
        let moves_left =
            if self.moves_left.is_some() { slot.host_moves_left.as_slice().map_err(driver)?[..n].iter().map(|v| v.to_f32()).collect() } else { Vec::new() };
        Ok(HostOutputs { policy, wdl, moves_left })
    }
}

/// Which buffers a convolution reads and writes.
#[derive(Clone, Copy)]
enum Buffers {
    /// Input → a.
    Stem,
    /// A block's first convolution: a → b.
    Mid,
    /// A block's second: b (+ a) → c.
    Second,
}

/// cuDNN's forward algorithms, each tried when the choice is timed.
const ALGOS: [cudnn::sys::cudnnConvolutionFwdAlgo_t; 8] = {
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
