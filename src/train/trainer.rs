//! The optimiser loop: forward on an autodiff device, policy cross-entropy against the visit
//! distribution plus weighted win/draw/loss cross-entropy (and, with those heads, a weighted
//! Huber loss on the plies left, a weighted cross-entropy on the opponent's reply and a
//! weighted squared error on the short-term value),
//! backward, optimiser step.

use burn::module::Module;
use burn::nn::loss::{HuberLossConfig, Reduction};
use burn::optim::decay::WeightDecayConfig;
use burn::optim::momentum::MomentumConfig;
use burn::optim::{AdamWConfig, GradientsParams, ModuleOptimizer, SgdConfig};
use burn::prelude::*;
use burn::tensor::activation::{log_softmax, softmax};

use super::batch::Batch;
use super::{OptimizerKind, TowerKernels, TrainConfig};
use crate::nn::infer::cpu::kernels::{CpuKernels, KernelSet};
use crate::nn::model::{ModelConfig, Net};

/// Figures from one optimiser step.
#[derive(Clone, Copy, Debug, Default)]
pub struct StepStats {
    pub policy_loss: f32,
    pub value_loss: f32,
    /// Huber loss of the moves-left head (0 without the head).
    pub moves_left_loss: f32,
    /// Cross-entropy of the opponent-policy head (0 without the head).
    pub opponent_policy_loss: f32,
    /// Squared error of the short-term value head (0 without the head).
    pub short_value_loss: f32,
    /// Mean entropy of the network's policy (nats).
    pub policy_entropy: f32,
    /// Fraction of positions whose most likely predicted result is the actual one.
    pub value_accuracy: f32,
    pub lr: f64,
    /// Where the step's time went.
    pub timing: StepTiming,
}

/// Seconds of one step by part (burn's CPU backend computes eagerly, so each part's operations
/// have run when it ends).
#[derive(Clone, Copy, Debug, Default)]
pub struct StepTiming {
    /// The batch copied into tensors.
    pub inputs: f64,
    /// The network's forward pass, the losses and the figures read back.
    pub forward: f64,
    /// The backward pass.
    pub backward: f64,
    /// The optimiser's update.
    pub optimizer: f64,
}

impl std::ops::AddAssign for StepTiming {
    fn add_assign(&mut self, t: StepTiming) {
        self.inputs += t.inputs;
        self.forward += t.forward;
        self.backward += t.backward;
        self.optimizer += t.optimizer;
    }
}

impl std::ops::Div<f64> for StepTiming {
    type Output = StepTiming;

    /// Each part divided by `k` (a sum over `k` steps to a mean).
    fn div(self, k: f64) -> StepTiming {
        StepTiming { inputs: self.inputs / k, forward: self.forward / k, backward: self.backward / k, optimizer: self.optimizer / k }
    }
}

/// A fresh optimiser for `config`.
pub fn optimizer(config: &TrainConfig) -> ModuleOptimizer {
    match config.optimizer {
        OptimizerKind::Sgd => SgdConfig::new()
            .with_momentum(Some(MomentumConfig::new().with_momentum(config.momentum).with_dampening(0.0).with_nesterov(true)))
            .with_weight_decay((config.weight_decay > 0.0).then(|| WeightDecayConfig::new(config.weight_decay as f32)))
            .init(),
        OptimizerKind::AdamW => AdamWConfig::new().with_weight_decay(config.weight_decay as f32).init(),
    }
}

/// The network being trained, its optimiser and the step counter.
pub struct Trainer {
    net: Option<Net>,
    pub optim: ModuleOptimizer,
    pub device: Device,
    pub model: ModelConfig,
    /// The training settings, held here only (the run's config keeps its snapshot on disk).
    config: TrainConfig,
    pub step: u64,
    /// Multiplies the scheduled learning rate (the time-based final phase of a timed run; see
    /// [`Trainer::set_elapsed`]).
    lr_factor: f64,
    /// The instruction set of the tower's fused training step (`train.tower = "fused"`).
    tower: Option<KernelSet>,
}

impl Trainer {
    /// `net` must live on `device`, an autodiff device.
    pub fn new(net: Net, optim: ModuleOptimizer, device: Device, model: &ModelConfig, config: &TrainConfig, step: u64) -> Trainer {
        let tower = (config.tower == TowerKernels::Fused).then(KernelSet::detect);
        Trainer { net: Some(net), optim, device, model: model.clone(), config: config.clone(), step, lr_factor: 1.0, tower }
    }

    /// Runs the fused tower in the instruction set `kernels` names (`hardware.cpu_kernels`), or
    /// says why this CPU cannot. No change under `train.tower = "burn"`.
    pub fn with_kernels(mut self, kernels: CpuKernels) -> Result<Trainer, String> {
        if self.tower.is_some() {
            self.tower = Some(KernelSet::choose(kernels)?);
        }
        Ok(self)
    }

    /// The instruction set of the fused tower, if the tower is fused.
    pub fn tower_kernels(&self) -> Option<KernelSet> {
        self.tower
    }

    /// The training settings.
    pub fn config(&self) -> &TrainConfig {
        &self.config
    }

    /// The learning rate of the next step: the schedule's at this step, times the final
    /// phase's factor.
    pub fn lr(&self) -> f64 {
        self.config.lr_at(self.step) * self.lr_factor
    }

    /// Tells the trainer how long a timed run has run (minutes); the learning-rate factor of
    /// its final phase (`train.lr_final_*`) when that changes it.
    pub fn set_elapsed(&mut self, minutes: f64) -> Option<f64> {
        let factor = self.config.lr_time_factor(minutes);
        (factor != self.lr_factor).then(|| {
            self.lr_factor = factor;
            factor
        })
    }

    pub fn net(&self) -> &Net {
        self.net.as_ref().expect("the trainer always holds its network between steps")
    }

    /// A copy for inference (batch norm on running statistics, no autodiff).
    pub fn inference_net(&self) -> Net {
        self.net().valid()
    }

    /// The network to save. burn keeps a step's batch-norm running-statistics update pending
    /// until the statistics are read through `valid()`; this folds it in first, so that a
    /// checkpoint holds the same statistics as the candidate written from it.
    pub fn synced_net(&self) -> &Net {
        drop(self.net().valid());
        self.net()
    }

    /// One optimiser step on `batch`.
    pub fn step(&mut self, batch: &Batch) -> StepStats {
        let started = std::time::Instant::now();
        let n = batch.len();
        let d = &self.device;
        let shape = self.net().shape();
        let actions = shape.actions();
        let x = Tensor::<4>::from_data(TensorData::new(batch.inputs.iter().copied().collect::<Vec<f32>>(), [n, shape.planes, shape.rows, shape.cols]), d);
        let pt = Tensor::<2>::from_data(TensorData::new(batch.policy.iter().copied().collect::<Vec<f32>>(), [n, actions]), d);
        let vt = Tensor::<2>::from_data(TensorData::new(batch.wdl.iter().copied().collect::<Vec<f32>>(), [n, 3]), d);
        let net = self.net.take().expect("the trainer always holds its network between steps");
        let inputs_done = std::time::Instant::now();
        let out = net.forward_with(x, self.tower);
        let (p, v) = (out.policy, out.wdl);
        let log_p = log_softmax(p, 1);
        let policy_loss = (log_p.clone() * pt).sum_dim(1).mean().neg();
        let value_loss = (log_softmax(v.clone(), 1) * vt.clone()).sum_dim(1).mean().neg();
        let entropy = (softmax(log_p.clone(), 1) * log_p).sum_dim(1).mean().neg();
        let hits = v.argmax(1).equal(vt.argmax(1)).float().mean();
        // Moves left: Huber loss on plies / MOVES_LEFT_UNIT (quadratic within 10 units).
        let moves_left_loss = out.moves_left.map(|m| {
            let mt = Tensor::<2>::from_data(TensorData::new(batch.moves_left.to_vec(), [n, 1]), d);
            HuberLossConfig::new(10.0).init().forward(m, mt, Reduction::Mean)
        });
        // The opponent's reply: cross-entropy against the one-hot target, averaged over the
        // batch (rows of a game's last position are zero and add nothing).
        let opponent_loss = match out.opponent_policy {
            Some(o) if batch.opponent_policy.nrows() == n => {
                let ot = Tensor::<2>::from_data(TensorData::new(batch.opponent_policy.iter().copied().collect::<Vec<f32>>(), [n, actions]), d);
                Some((log_softmax(o, 1) * ot).sum_dim(1).mean().neg())
            }
            _ => None,
        };
        // The short-term value: mean squared error against the discounted search values.
        let short_loss = out.short_value.map(|sv| {
            let st = Tensor::<2>::from_data(TensorData::new(batch.short_value.to_vec(), [n, 1]), d);
            (sv - st).powi_scalar(2).mean()
        });
        let stats = StepStats {
            policy_loss: policy_loss.clone().into_scalar::<f32>(),
            value_loss: value_loss.clone().into_scalar::<f32>(),
            policy_entropy: entropy.into_scalar::<f32>(),
            value_accuracy: hits.into_scalar::<f32>(),
            moves_left_loss: moves_left_loss.as_ref().map_or(0.0, |l| l.clone().into_scalar::<f32>()),
            opponent_policy_loss: opponent_loss.as_ref().map_or(0.0, |l| l.clone().into_scalar::<f32>()),
            short_value_loss: short_loss.as_ref().map_or(0.0, |l| l.clone().into_scalar::<f32>()),
            lr: self.lr(),
            timing: StepTiming::default(),
        };
        let mut loss = policy_loss + value_loss * self.config.value_loss_weight;
        if let Some(l) = moves_left_loss {
            loss = loss + l * self.config.moves_left_loss_weight;
        }
        if let Some(l) = opponent_loss {
            loss = loss + l * self.config.opponent_policy_loss_weight;
        }
        if let Some(l) = short_loss {
            loss = loss + l * self.config.short_value_loss_weight;
        }
        let forward_done = std::time::Instant::now();
        let grads = GradientsParams::from_grads(loss.backward(), &net);
        let backward_done = std::time::Instant::now();
        self.net = Some(self.optim.step(stats.lr, net, grads));
        self.step += 1;
        let timing = StepTiming {
            inputs: (inputs_done - started).as_secs_f64(),
            forward: (forward_done - inputs_done).as_secs_f64(),
            backward: (backward_done - forward_done).as_secs_f64(),
            optimizer: backward_done.elapsed().as_secs_f64(),
        };
        StepStats { timing, ..stats }
    }
}
