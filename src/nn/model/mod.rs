//! The policy/value network (burn).
//!
//! A residual tower over a game's `[batch, planes, rows, cols]` input planes (its
//! [`Shape`]; 9 × 7 for Jungle, 4 × 4 for the flip game):
//!
//! - stem: 3×3 convolution to `channels`, batch norm, ReLU;
//! - `blocks` residual blocks: conv 3×3, BN, ReLU, conv 3×3, BN, add the input, ReLU;
//! - policy head, fully convolutional: 1×1 conv to `policy_channels`, BN, ReLU, then a 1×1
//!   conv (with bias) to the game's policy planes (Jungle: one per direction). Flattened
//!   `[policy_planes, rows, cols]` is exactly the action order `plane * squares + square` (see
//!   `jungle::encode`, `flip::encode`), so the head needs no big fully-connected layer and keeps
//!   its spatial meaning;
//! - value head: 1×1 conv to `value_channels`, BN, ReLU, flatten, linear to `value_hidden`,
//!   ReLU, linear to 3 logits: win, draw, loss for the side to move. A win/draw/loss head rather
//!   than a scalar because draws are common in Jungle (the no-capture limit, repetition under
//!   `draw`); cross-entropy on three outcomes trains faster and keeps the draw rate visible.
//!
//! - opponent-policy head (optional, `model.opponent_policy`; KataGo's auxiliary target): a
//!   second 1×1 conv (with bias) to the policy planes on the policy head's hidden layer, predicting the
//!   reply the opponent plays next in the same action layout. Training only: search never reads it.
//! - short-term value head (optional, `model.short_value`; KataGo's auxiliary target): a
//!   linear layer from the value head's hidden layer to 1, then tanh: the search values of
//!   the next few plies, discounted (see `train::replay::SHORT_VALUE_HORIZON`). Training only.
//! - moves-left head (optional, `model.moves_left`; lc0's): 1×1 conv to `value_channels`, BN,
//!   ReLU, flatten, linear to `value_hidden`, ReLU, linear to 1, ReLU: the plies left until the
//!   game ends, in units of [`MOVES_LEFT_UNIT`] plies. MCTS uses it to prefer the faster win and
//!   the slower loss.
//!
//! No global pooling: on a 9 × 7 board the tower's 3×3 receptive field covers the whole board
//! after four blocks, which is what KataGo's pooling buys on 19 × 19.

use burn::module::Module;
use burn::nn::conv::{Conv2d, Conv2dConfig};
use burn::nn::{BatchNorm, BatchNormConfig, Linear, LinearConfig, PaddingConfig2d};
use burn::prelude::*;
use burn::tensor::activation::relu;
use serde::{Deserialize, Serialize};

pub mod average;

use crate::check::ConfigError;
use crate::game::Shape;
use crate::nn::infer::cpu::kernels::KernelSet;

/// The moves-left head predicts plies to the end divided by this (lc0's scale).
pub const MOVES_LEFT_UNIT: f32 = 20.0;

crate::settings! {
    /// `[model]`: the network's shape.
    #[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
    #[serde(deny_unknown_fields, default)]
    pub struct ModelConfig in "model", about "The network. Sized for CPU self-play: about 10 MFLOP per position (see BENCHMARKS.md)." {
        /// Residual blocks.
        pub blocks: usize = 4 => "residual blocks", range(0, 64);
        /// Channels in the tower.
        pub channels: usize = 32 => "channels in the residual tower", range(1, 1024);
        /// Channels of the policy head's hidden 1×1 convolution.
        pub policy_channels: usize = 16 => "hidden channels of the policy head (1x1 convolution)", range(1, 512);
        /// Channels of the value head's 1×1 convolution.
        pub value_channels: usize = 4 => "channels of the value head's 1x1 convolution", range(1, 512);
        /// Width of the value head's hidden layer.
        pub value_hidden: usize = 64 => "width of the value head's hidden layer", range(1, 4096);
        /// A moves-left head (plies to the end of the game). Model files written before it existed
        /// read as `false`.
        pub moves_left: bool = false => "a moves-left head (plies to the end; lc0): search prefers faster wins";
        /// An opponent-policy head (the opponent's next move, an auxiliary training target).
        /// Model files written before it existed read as `false`.
        pub opponent_policy: bool = false => "an opponent-policy head (KataGo's auxiliary target: the reply played next), trained beside the policy and never read by search";
        /// A short-term value head (the discounted search values of the next plies, an auxiliary
        /// training target). Model files written before it existed read as `false`.
        pub short_value: bool = false => "a short-term value head (KataGo's auxiliary target: the search values of the next plies, discounted over 8 plies), never read by search";
    }
}

impl ModelConfig {
    /// The network `configs/gpu.toml` trains (for benchmarks of a GPU-sized net).
    pub fn gpu_sized() -> ModelConfig {
        ModelConfig { blocks: 10, channels: 128, policy_channels: 32, value_channels: 8, value_hidden: 128, ..ModelConfig::default() }
    }

    pub fn validate(&self) -> Result<(), ConfigError> {
        crate::settings::Section::check_ranges(self)?;
        Ok(())
    }

    /// Multiply-adds ×2 per position for one forward pass on `shape` (for GFLOP/s figures).
    pub fn flops_per_position(&self, shape: Shape) -> u64 {
        let sq = shape.squares() as u64;
        let (planes, pp) = (shape.planes as u64, shape.policy_planes as u64);
        let c = self.channels as u64;
        let conv3 = |cin: u64, cout: u64| 2 * cin * cout * 9 * sq;
        let conv1 = |cin: u64, cout: u64| 2 * cin * cout * sq;
        let stem = conv3(planes, c);
        let tower = self.blocks as u64 * 2 * conv3(c, c);
        let pc = self.policy_channels as u64;
        let policy = conv1(c, pc) + conv1(pc, pp) * if self.opponent_policy { 2 } else { 1 };
        let vc = self.value_channels as u64;
        let vh = self.value_hidden as u64;
        let value = conv1(c, vc) + 2 * vc * sq * vh + 2 * vh * if self.short_value { 4 } else { 3 };
        let moves_left = if self.moves_left { conv1(c, vc) + 2 * vc * sq * vh + 2 * vh } else { 0 };
        stem + tower + policy + value + moves_left
    }

    /// The convolution and linear weights alone (no biases or batch-norm statistics): a lower
    /// bound on the parameters, which a model file must hold before a network is built for it.
    pub fn weight_count(&self, shape: Shape) -> u64 {
        let sq = shape.squares() as u64;
        let (planes, pp) = (shape.planes as u64, shape.policy_planes as u64);
        let (c, pc, vc, vh) = (self.channels as u64, self.policy_channels as u64, self.value_channels as u64, self.value_hidden as u64);
        let head = c * vc + vc * sq * vh;
        let policy = c * pc + pc * pp * if self.opponent_policy { 2 } else { 1 };
        let value = head + vh * if self.short_value { 4 } else { 3 };
        9 * planes * c + self.blocks as u64 * 2 * 9 * c * c + policy + value + if self.moves_left { head + vh } else { 0 }
    }

    /// About the memory a training step of this network takes at `batch` positions: the
    /// weights four times (the trainer's, their gradients, the optimiser's momentum and the
    /// inference copy a run keeps), and for each position every convolution's output six times
    /// (what the backward pass keeps and the gradients), in single precision. An estimate, to
    /// refuse a network that cannot fit before it is built.
    pub fn training_bytes(&self, shape: Shape, batch: usize) -> u128 {
        let params = u128::from(self.weight_count(shape));
        let per_position = (2 * self.blocks as u128 + 1) * self.channels as u128 * shape.squares() as u128 * 6;
        4 * (4 * params + batch as u128 * per_position)
    }

    pub fn describe(&self) -> String {
        let ml = if self.moves_left { "+ml" } else { "" };
        let op = if self.opponent_policy { "+op" } else { "" };
        let sv = if self.short_value { "+sv" } else { "" };
        format!("{}x{}{ml}{op}{sv}", self.blocks, self.channels)
    }

    /// A freshly initialised network for a game of `shape`. Its weights are drawn here, from
    /// the device's random state as it is now (burn draws them on first use otherwise, so two
    /// networks seeded alike but first used in another order would differ).
    pub fn init(&self, shape: Shape, device: &Device) -> Net {
        let _held = drawing();
        self.draw(shape, device)
    }

    /// [`ModelConfig::init`] from `seed`: the same seed gives the same network, also while
    /// other threads make networks (the device's random state is shared, so seeding and drawing
    /// hold one process-wide lock).
    pub fn init_seeded(&self, shape: Shape, device: &Device, seed: u64) -> Net {
        let _held = drawing();
        device.seed(seed);
        self.draw(shape, device)
    }

    fn draw(&self, shape: Shape, device: &Device) -> Net {
        let net = self.init_lazy(shape, device);
        net.visit(&mut Materialize);
        net
    }

    fn init_lazy(&self, shape: Shape, device: &Device) -> Net {
        let c = self.channels;
        let (sq, pp) = (shape.squares(), shape.policy_planes);
        Net {
            shape,
            stem_conv: conv(shape.planes, c, 3, false, device),
            stem_bn: bn(c, device),
            blocks: (0..self.blocks)
                .map(|_| ResBlock { conv1: conv(c, c, 3, false, device), bn1: bn(c, device), conv2: conv(c, c, 3, false, device), bn2: bn(c, device) })
                .collect(),
            policy_conv: conv(c, self.policy_channels, 1, false, device),
            policy_bn: bn(self.policy_channels, device),
            policy_out: conv(self.policy_channels, pp, 1, true, device),
            opponent_out: self.opponent_policy.then(|| conv(self.policy_channels, pp, 1, true, device)),
            value_conv: conv(c, self.value_channels, 1, false, device),
            value_bn: bn(self.value_channels, device),
            value_fc1: LinearConfig::new(self.value_channels * sq, self.value_hidden).init(device),
            value_fc2: LinearConfig::new(self.value_hidden, 3).init(device),
            short_value_out: self.short_value.then(|| LinearConfig::new(self.value_hidden, 1).init(device)),
            moves_left: self.moves_left.then(|| MovesLeftHead {
                conv: conv(c, self.value_channels, 1, false, device),
                bn: bn(self.value_channels, device),
                fc1: LinearConfig::new(self.value_channels * sq, self.value_hidden).init(device),
                fc2: LinearConfig::new(self.value_hidden, 1).init(device),
            }),
        }
    }
}

/// The lock held while a network's weights are drawn from the device's shared random state.
fn drawing() -> std::sync::MutexGuard<'static, ()> {
    static DRAWING: std::sync::Mutex<()> = std::sync::Mutex::new(());
    DRAWING.lock().unwrap_or_else(|e| e.into_inner())
}

/// Draws every lazily initialised weight of a module.
struct Materialize;

impl burn::module::ModuleVisitor for Materialize {
    fn visit_float<const D: usize>(&mut self, param: &burn::module::Param<Tensor<D>>) {
        let _ = param.val();
    }
}

fn conv(cin: usize, cout: usize, k: usize, bias: bool, device: &Device) -> Conv2d {
    Conv2dConfig::new([cin, cout], [k, k]).with_padding(PaddingConfig2d::Same).with_bias(bias).init(device)
}

fn bn(c: usize, device: &Device) -> BatchNorm {
    BatchNormConfig::new(c).init(device)
}

#[derive(Module, Debug)]
pub struct ResBlock {
    conv1: Conv2d,
    bn1: BatchNorm,
    conv2: Conv2d,
    bn2: BatchNorm,
}

impl ResBlock {
    fn forward(&self, x: Tensor<4>, tower: Option<KernelSet>) -> Tensor<4> {
        if let Some(y) = fused_step(&x, &self.conv1, &self.bn1, None, tower)
            && let Some(out) = fused_step(&y, &self.conv2, &self.bn2, Some(x.clone()), tower)
        {
            return out;
        }
        let y = relu(self.bn1.forward(self.conv1.forward(x.clone())));
        let y = self.bn2.forward(self.conv2.forward(y));
        relu(y + x)
    }
}

/// `relu(bn(conv(x)) + residual)` (a 3 × 3 or 1 × 1 convolution without bias) through the
/// fused training step (`nn::tower`) when `tower`
/// names its kernels and the step applies (the CPU backend under autodiff, a batch norm in
/// training); `None` otherwise, for burn's own operations.
#[cfg(feature = "flex")]
fn fused_step(x: &Tensor<4>, conv: &Conv2d, bn: &BatchNorm, residual: Option<Tensor<4>>, tower: Option<KernelSet>) -> Option<Tensor<4>> {
    let kernels = tower?;
    (conv.bias.is_none() && crate::nn::tower::applies(x, bn)).then(|| crate::nn::tower::conv_bn_relu(x.clone(), conv, bn, residual, kernels))
}

#[cfg(not(feature = "flex"))]
fn fused_step(_: &Tensor<4>, _: &Conv2d, _: &BatchNorm, _: Option<Tensor<4>>, _: Option<KernelSet>) -> Option<Tensor<4>> {
    None
}

#[derive(Module, Debug)]
pub struct MovesLeftHead {
    pub conv: Conv2d,
    pub bn: BatchNorm,
    pub fc1: Linear,
    pub fc2: Linear,
}

impl MovesLeftHead {
    fn forward(&self, x: Tensor<4>, tower: Option<KernelSet>) -> Tensor<2> {
        let m = match fused_step(&x, &self.conv, &self.bn, None, tower) {
            Some(m) => m,
            None => relu(self.bn.forward(self.conv.forward(x))),
        };
        let m = relu(self.fc1.forward(m.flatten::<2>(1, 3)));
        relu(self.fc2.forward(m))
    }
}

#[derive(Module, Debug)]
pub struct Net {
    /// The game's board and planes (not a parameter; model files record the game by name).
    #[module(skip)]
    shape: Shape,
    stem_conv: Conv2d,
    stem_bn: BatchNorm,
    blocks: Vec<ResBlock>,
    policy_conv: Conv2d,
    policy_bn: BatchNorm,
    policy_out: Conv2d,
    value_conv: Conv2d,
    value_bn: BatchNorm,
    value_fc1: Linear,
    value_fc2: Linear,
    moves_left: Option<MovesLeftHead>,
    opponent_out: Option<Conv2d>,
    short_value_out: Option<Linear>,
}

/// What one forward pass produces.
pub struct Outputs {
    /// Policy logits `[batch, actions]`.
    pub policy: Tensor<2>,
    /// Win/draw/loss logits `[batch, 3]`.
    pub wdl: Tensor<2>,
    /// Plies left / [`MOVES_LEFT_UNIT`], `[batch, 1]` (networks with the head only).
    pub moves_left: Option<Tensor<2>>,
    /// Logits of the opponent's reply `[batch, actions]` (networks with the head only).
    pub opponent_policy: Option<Tensor<2>>,
    /// The short-term value in [-1, 1], `[batch, 1]` (networks with the head only).
    pub short_value: Option<Tensor<2>>,
}

/// References to every layer, for code that reads the weights (the fused CPU path).
pub struct NetParts<'a> {
    pub stem_conv: &'a Conv2d,
    pub stem_bn: &'a BatchNorm,
    /// (conv1, bn1, conv2, bn2) per block.
    pub blocks: Vec<(&'a Conv2d, &'a BatchNorm, &'a Conv2d, &'a BatchNorm)>,
    pub policy_conv: &'a Conv2d,
    pub policy_bn: &'a BatchNorm,
    pub policy_out: &'a Conv2d,
    pub value_conv: &'a Conv2d,
    pub value_bn: &'a BatchNorm,
    pub value_fc1: &'a Linear,
    pub value_fc2: &'a Linear,
    pub moves_left: Option<&'a MovesLeftHead>,
}

/// The largest magnitude a weight or running statistic of a network that loads may have.
/// Trained networks stay far below it (the largest of the shipped Jungle network is 3.1, of
/// the committed flip-game network 8.2, both batch-norm statistics); past it, sums over a layer's inputs head for the float range, and a
/// network's outputs could overflow to infinity or NaN, which search refuses. (A network
/// within the bound can still compute a non-finite output; search refuses that too.)
pub const MAX_WEIGHT: f32 = 1.0e4;

impl Net {
    pub fn parts(&self) -> NetParts<'_> {
        NetParts {
            stem_conv: &self.stem_conv,
            stem_bn: &self.stem_bn,
            blocks: self.blocks.iter().map(|b| (&b.conv1, &b.bn1, &b.conv2, &b.bn2)).collect(),
            policy_conv: &self.policy_conv,
            policy_bn: &self.policy_bn,
            policy_out: &self.policy_out,
            value_conv: &self.value_conv,
            value_bn: &self.value_bn,
            value_fc1: &self.value_fc1,
            value_fc2: &self.value_fc2,
            moves_left: self.moves_left.as_ref(),
        }
    }

    /// The game's board and planes the network was built for.
    pub fn shape(&self) -> Shape {
        self.shape
    }

    /// Whether every weight and running statistic is a finite number (a diverged training
    /// leaves NaN or infinities, and such a network must not be saved, promoted or played).
    pub fn is_finite(&self) -> bool {
        struct Finite(bool);
        impl burn::module::ModuleVisitor for Finite {
            fn visit_float<const D: usize>(&mut self, param: &burn::module::Param<Tensor<D>>) {
                if self.0 {
                    self.0 = param.val().into_data().iter::<f32>().all(f32::is_finite);
                }
            }
        }
        let mut v = Finite(true);
        self.visit(&mut v);
        v.0
    }

    /// Why the network must not be loaded, if it must not: a weight or running statistic that
    /// is NaN or infinite, or one beyond [`MAX_WEIGHT`] in magnitude. Every network that loads
    /// (model files, imports, trainer checkpoints) is checked so.
    pub fn weights_problem(&self) -> Option<String> {
        struct Largest(f32);
        impl burn::module::ModuleVisitor for Largest {
            fn visit_float<const D: usize>(&mut self, param: &burn::module::Param<Tensor<D>>) {
                if !self.0.is_nan() {
                    for w in param.val().into_data().iter::<f32>() {
                        // NaN sticks (`f32::max` would drop it at the next weight); otherwise
                        // the largest magnitude.
                        if w.is_nan() {
                            self.0 = f32::NAN;
                            break;
                        }
                        self.0 = self.0.max(w.abs());
                    }
                }
            }
        }
        let mut v = Largest(0.0);
        self.visit(&mut v);
        match v.0 {
            m if !m.is_finite() => Some("some weights are NaN or infinite".into()),
            m if m > MAX_WEIGHT => Some(format!("a weight of magnitude {m:.3e}, beyond {MAX_WEIGHT:e}, the most a network's weights may be")),
            _ => None,
        }
    }

    /// Whether the network has a moves-left head.
    pub fn has_moves_left(&self) -> bool {
        self.moves_left.is_some()
    }

    /// `x: [batch, planes, rows, cols]` → policy logits, WDL logits and (with the head) moves left.
    pub fn forward(&self, x: Tensor<4>) -> Outputs {
        self.forward_with(x, None)
    }

    /// [`Net::forward`], with the tower's training step on the project's CPU kernels of set
    /// `tower` where it applies (see `nn::tower`); burn's own operations elsewhere.
    pub fn forward_with(&self, x: Tensor<4>, tower: Option<KernelSet>) -> Outputs {
        let [b, _, _, _] = x.dims();
        let actions = self.shape.actions();
        let mut x = match fused_step(&x, &self.stem_conv, &self.stem_bn, None, tower) {
            Some(y) => y,
            None => relu(self.stem_bn.forward(self.stem_conv.forward(x))),
        };
        for block in &self.blocks {
            x = block.forward(x, tower);
        }
        let p = fused_step(&x, &self.policy_conv, &self.policy_bn, None, tower)
            .unwrap_or_else(|| relu(self.policy_bn.forward(self.policy_conv.forward(x.clone()))));
        let opponent_policy = self.opponent_out.as_ref().map(|c| c.forward(p.clone()).reshape([b, actions]));
        let p = self.policy_out.forward(p).reshape([b, actions]); // [b, planes, rows, cols] -> [b, actions]
        let moves_left = self.moves_left.as_ref().map(|h| h.forward(x.clone(), tower));
        let v = match fused_step(&x, &self.value_conv, &self.value_bn, None, tower) {
            Some(v) => v,
            None => relu(self.value_bn.forward(self.value_conv.forward(x))),
        };
        let v = relu(self.value_fc1.forward(v.flatten::<2>(1, 3)));
        let short_value = self.short_value_out.as_ref().map(|l| l.forward(v.clone()).tanh());
        Outputs { policy: p, wdl: self.value_fc2.forward(v), moves_left, opponent_policy, short_value }
    }
}

/// A host-side batch of `n` encodings of a `shape` game as a `[n, planes, rows, cols]` tensor.
pub fn input_tensor(inputs: &[f32], n: usize, shape: Shape, device: &Device) -> Tensor<4> {
    let dims = [n, shape.planes, shape.rows, shape.cols];
    Tensor::<4>::from_data(TensorData::new(inputs[..n * shape.input_size()].to_vec(), dims), device)
}
