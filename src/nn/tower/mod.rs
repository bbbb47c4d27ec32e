//! The residual tower's training step on the project's own CPU kernels: each 3 × 3
//! convolution with its training-mode batch norm, the residual add and ReLU is one burn
//! operation with a forward and a backward pass of our own ([`op`]), on channels-last products
//! over the nine taps ([`conv`]) and one-pass batch statistics ([`norm`]); [`step`] holds the
//! two passes on host slices. The heads, the losses and the optimiser stay burn's.
//!
//! It runs where burn would run the same layers on its CPU backend with autodiff in training
//! mode, and only there: inference (`valid()`), the GPU backends and frozen batch norms take
//! burn's own operations.

pub mod conv;
pub mod norm;
pub mod op;
pub mod step;

use burn::backend::{Dispatch, DispatchDevice};
use burn::nn::BatchNorm;
use burn::nn::conv::Conv2d;
use burn::prelude::*;

use self::op::{StepOptions, TowerBackend};
use crate::nn::infer::cpu::kernels::KernelSet;

/// Whether the fused step can run `x` through `bn`: the CPU backend under autodiff, a batch norm
/// in training, single precision.
pub fn applies(x: &Tensor<4>, bn: &BatchNorm) -> bool {
    let on_cpu_autodiff = matches!(x.device().as_dispatch(), DispatchDevice::Autodiff(a) if matches!(&**a, DispatchDevice::Flex(_)));
    on_cpu_autodiff && bn.training.is_enabled() && x.dtype() == burn::tensor::DType::F32
}

/// `kernels` when its vectors divide every product's width (the output channels for the
/// forward product and the weight gradient, the input channels for the input gradient), the
/// portable set otherwise (it divides every width).
fn fitting(kernels: KernelSet, widths: &[usize]) -> KernelSet {
    if conv::fits(&kernels, widths) { kernels } else { KernelSet::Portable }
}

/// `relu(bn(conv(x)) + residual)` in training mode, the batch norm's running statistics
/// updated as burn's own layer updates them. Call only where [`applies`] holds.
pub fn conv_bn_relu(x: Tensor<4>, conv: &Conv2d, bn: &BatchNorm, residual: Option<Tensor<4>>, kernels: KernelSet) -> Tensor<4> {
    let [_, cin, _, _] = x.dims();
    let w = conv.weight.val();
    let [cout, _, _, _] = w.dims();
    let options = StepOptions { kernels: fitting(kernels, &[cin, cout]), epsilon: bn.epsilon };
    let (x, w, g, b) = (x.into_dispatch(), w.into_dispatch(), bn.gamma.val().into_dispatch(), bn.beta.val().into_dispatch());
    let op::StepOutput { out, mean, var } = match residual {
        Some(r) => <Dispatch as TowerBackend>::conv_bn_add_relu(x, w, g, b, r.into_dispatch(), options),
        None => <Dispatch as TowerBackend>::conv_bn_relu(x, w, g, b, options),
    };
    let (out, mean, var) = (Tensor::<4>::from_dispatch(out), Tensor::<1>::from_dispatch(mean), Tensor::<1>::from_dispatch(var));
    let device = out.device();
    let m = bn.momentum;
    let running_mean = bn.running_mean.value_sync().to_device(&device).mul_scalar(1.0 - m).add(mean.detach().mul_scalar(m));
    let running_var = bn.running_var.value_sync().to_device(&device).mul_scalar(1.0 - m).add(var.detach().mul_scalar(m));
    bn.running_mean.update(running_mean.detach());
    bn.running_var.update(running_var.detach());
    out
}

#[cfg(test)]
mod tests;
