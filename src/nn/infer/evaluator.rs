//! The network behind the [`Evaluator`] trait.

use burn::prelude::*;
use burn::tensor::activation::softmax;

use super::cpu::{FusedNet, FusedOptions, HostOutputs};
use super::device::{is_cpu, parse_device};
use crate::game::{Encode, Shape};
use crate::mcts::server::BatchEvaluator;
use crate::mcts::{Evaluator, Outputs};
use crate::nn::device::HardwareConfig;
use crate::nn::model::{MOVES_LEFT_UNIT, ModelConfig, Net, input_tensor};

/// A network ready for inference on one device. Shared by reference between worker threads
/// (burn modules are `Sync`); each call is one batched forward pass.
pub struct NetEvaluator {
    net: Net,
    device: Device,
    id: String,
    model: ModelConfig,
    /// The fused CPU path, when enabled for a CPU device.
    fused: Option<FusedNet>,
    /// The NVIDIA path (`hardware.device = "cudnn"`).
    #[cfg(feature = "cudnn")]
    cudnn: Option<super::gpu::cudnn::CudnnNet>,
}

impl NetEvaluator {
    /// `net` must be on `device` and not on an autodiff device in training mode (call
    /// `valid()` on a trained network first) so batch norm uses its running statistics.
    pub fn new(net: Net, device: Device, id: &str, model: &ModelConfig) -> NetEvaluator {
        NetEvaluator {
            net,
            device,
            id: id.into(),
            model: model.clone(),
            fused: None,
            #[cfg(feature = "cudnn")]
            cudnn: None,
        }
    }

    /// Runs inference on NVIDIA GPU `ordinal` through cuDNN and cuBLASLt (see `nn::infer::gpu::cudnn`),
    /// with the weights of this network (on the CPU).
    #[cfg(feature = "cudnn")]
    pub fn with_cudnn(mut self, ordinal: usize) -> Result<NetEvaluator, super::device::DeviceError> {
        let plan = super::gpu::plan::GpuPlan::from_fused(&FusedNet::from_net(&self.net));
        let net = super::gpu::cudnn::CudnnNet::new(plan, ordinal)
            .map_err(|e| super::device::DeviceError::Unavailable { name: format!("cudnn:{ordinal}"), reason: e.to_string() })?;
        self.cudnn = Some(net);
        Ok(self)
    }

    /// The inference path the configured device asks for: the fused CPU path, the NVIDIA path,
    /// or burn on the device.
    fn for_hardware(self, hw: &HardwareConfig) -> Result<NetEvaluator, super::device::DeviceError> {
        if let Some(ordinal) = super::device::cudnn_ordinal(&hw.device) {
            #[cfg(feature = "cudnn")]
            return self.with_cudnn(ordinal);
            #[cfg(not(feature = "cudnn"))]
            {
                let _ = ordinal;
                return Err(super::device::parse_device(&hw.device)
                    .err()
                    .unwrap_or(super::device::DeviceError::Unknown { name: hw.device.clone(), known: super::device::DEVICE_NAMES }));
            }
        }
        if hw.fused_cpu && is_cpu(&hw.device) {
            let options = hw.fused_options().map_err(|e| super::device::DeviceError::Unavailable { name: hw.device.clone(), reason: e.to_string() })?;
            return Ok(self.with_fused_options(options));
        }
        Ok(self)
    }

    /// The device a network's weights live on for inference: the CPU for the NVIDIA path (it
    /// uploads its own copy), else the configured device.
    fn weights_device(hw: &HardwareConfig) -> Result<Device, super::device::DeviceError> {
        if super::device::cudnn_ordinal(&hw.device).is_some() { parse_device("flex") } else { parse_device(&hw.device) }
    }

    /// Runs inference through the fused CPU path (see `nn::infer::cpu`) instead of burn's kernels,
    /// with the default options (the widest instruction set, Winograd F(4 × 4)).
    pub fn with_fused_cpu(self) -> NetEvaluator {
        self.with_fused_options(FusedOptions::default())
    }

    /// Runs inference through the fused CPU path with `options`.
    pub fn with_fused_options(mut self, options: FusedOptions) -> NetEvaluator {
        self.fused = Some(FusedNet::with_options(&self.net, options));
        self
    }

    /// The fused CPU path's instruction set and convolution algorithm, when it is used.
    pub fn fused_options(&self) -> Option<&FusedOptions> {
        self.fused.as_ref().map(FusedNet::options)
    }

    /// The convolution algorithm tunings the NVIDIA path has run (one per stream and batch
    /// bucket, see `nn::infer::gpu::cudnn`), when inference goes through it.
    pub fn gpu_tunings(&self) -> Option<usize> {
        #[cfg(feature = "cudnn")]
        if let Some(c) = &self.cudnn {
            return Some(c.tunings());
        }
        None
    }

    /// Whether inference uses the fused CPU path.
    pub fn is_fused(&self) -> bool {
        self.fused.is_some()
    }

    /// Loads a model file for a game of `shape` onto the configured device (fused CPU path
    /// when configured). A model of another game is refused.
    pub fn load(path: &std::path::Path, hw: &HardwareConfig, shape: Shape) -> Result<NetEvaluator, crate::nn::modelfile::ModelFileError> {
        let device_error =
            |e: super::device::DeviceError| crate::nn::modelfile::ModelFileError::Header { path: path.display().to_string(), message: e.to_string() };
        let device = Self::weights_device(hw).map_err(device_error)?;
        NetEvaluator::from_file(path, device, shape)?.for_hardware(hw).map_err(device_error)
    }

    /// An untrained network for a game of `shape` on the configured device.
    pub fn random_init(model: &ModelConfig, shape: Shape, hw: &HardwareConfig, seed: u64) -> Result<NetEvaluator, super::device::DeviceError> {
        NetEvaluator::random(model, shape, Self::weights_device(hw)?, seed).for_hardware(hw)
    }

    /// Loads a model file for a game of `shape` onto `device`.
    pub fn from_file(path: &std::path::Path, device: Device, shape: Shape) -> Result<NetEvaluator, crate::nn::modelfile::ModelFileError> {
        let (net, meta) = crate::nn::modelfile::load(path, &device, shape)?;
        Ok(NetEvaluator::new(net, device, &meta.id, &meta.model))
    }

    /// A freshly initialised (untrained) network, reproducible for a given seed.
    pub fn random(model: &ModelConfig, shape: Shape, device: Device, seed: u64) -> NetEvaluator {
        let net = model.init_seeded(shape, &device, seed);
        NetEvaluator::new(net, device, "random-init", model)
    }

    pub fn id(&self) -> &str {
        &self.id
    }

    /// The network for logs: its id, shape and inference path.
    pub fn describe(&self) -> String {
        #[cfg(feature = "cudnn")]
        if let Some(c) = &self.cudnn {
            return format!("{} ({}, cuDNN on {})", self.id, self.model.describe(), c.device_name());
        }
        format!("{} ({}{})", self.id, self.model.describe(), if self.fused.is_some() { ", fused CPU" } else { "" })
    }

    pub fn model(&self) -> &ModelConfig {
        &self.model
    }

    pub fn net(&self) -> &Net {
        &self.net
    }

    pub fn device(&self) -> &Device {
        &self.device
    }

    /// The game's board and planes the network reads.
    pub fn shape(&self) -> Shape {
        self.net.shape()
    }

    /// One forward pass over `n` encoded positions: policy logits (`n × actions`), win/draw/loss
    /// probabilities (`n × 3`) for the side to move, and plies left in units of
    /// `MOVES_LEFT_UNIT` (`n`, empty without the head).
    pub fn forward(&self, inputs: &[f32], n: usize) -> HostOutputs {
        if let Some(f) = &self.fused {
            return f.forward(inputs, n);
        }
        #[cfg(feature = "cudnn")]
        if let Some(c) = &self.cudnn {
            // A GPU that fails mid-run (lost device, out of memory) ends the process with one
            // line: there is no answer to give the search instead.
            return c.forward(inputs, n).unwrap_or_else(|e| {
                eprintln!("error: the NVIDIA inference path failed: {e}");
                std::process::exit(1)
            });
        }
        let out = self.net.forward(input_tensor(inputs, n, self.net.shape(), &self.device));
        let wdl = softmax(out.wdl, 1);
        // The outputs are f32 tensors produced by this network, so the conversions cannot fail.
        let host = |t: Tensor<2>| t.into_data().try_into_vec::<f32>().expect("network outputs are f32");
        HostOutputs { policy: host(out.policy), wdl: host(wdl), moves_left: out.moves_left.map(host).unwrap_or_default() }
    }
}

thread_local! {
    /// Win/draw/loss probabilities of the fused path's last batch on this thread.
    static WDL: std::cell::RefCell<Vec<f32>> = const { std::cell::RefCell::new(Vec::new()) };
}

/// Evaluates positions of any game; the network must have been built for that game (loading
/// checks the model file's game, so a mismatch is a bug: it panics rather than read garbage).
impl<G: Encode> Evaluator<G> for NetEvaluator {
    fn evaluate(&self, states: &[&G], inputs: &[f32], out: Outputs<'_>) {
        assert_eq!(self.net.shape(), G::SHAPE, "a {} network asked to evaluate {} positions", self.net.shape().game, G::SHAPE.game);
        self.evaluate_inputs(inputs, states.len(), out);
    }

    fn name(&self) -> String {
        self.describe()
    }
}

/// The network reads only the encoded inputs, so an inference server can merge batches.
impl BatchEvaluator for NetEvaluator {
    fn evaluate_inputs(&self, inputs: &[f32], n: usize, out: Outputs<'_>) {
        if n == 0 {
            return;
        }
        let actions = self.net.shape().actions();
        if let Some(f) = &self.fused {
            // Straight into the caller's buffers; only the win/draw/loss triples need room.
            WDL.with(|wdl| {
                let wdl = &mut *wdl.borrow_mut();
                if wdl.len() < n * 3 {
                    wdl.resize(n * 3, 0.0);
                }
                f.forward_into(inputs, n, &mut out.policy[..n * actions], &mut wdl[..n * 3], &mut out.moves_left[..n]);
                for i in 0..n {
                    out.value[i] = wdl[3 * i] - wdl[3 * i + 2];
                    out.draw[i] = wdl[3 * i + 1];
                    out.moves_left[i] = if f.has_moves_left() { out.moves_left[i] * MOVES_LEFT_UNIT } else { f32::NAN };
                }
            });
            return;
        }
        let o = self.forward(inputs, n);
        out.policy[..n * actions].copy_from_slice(&o.policy[..n * actions]);
        for i in 0..n {
            out.value[i] = o.wdl[3 * i] - o.wdl[3 * i + 2];
            out.draw[i] = o.wdl[3 * i + 1];
            out.moves_left[i] = o.moves_left.get(i).map_or(f32::NAN, |m| m * MOVES_LEFT_UNIT);
        }
    }

    fn actions(&self) -> usize {
        self.net.shape().actions()
    }

    fn input_size(&self) -> usize {
        self.net.shape().input_size()
    }

    fn name(&self) -> String {
        self.describe()
    }
}
