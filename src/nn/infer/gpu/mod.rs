//! The NVIDIA path: the network laid out for cuDNN and cuBLASLt ([`plan`], with a CPU
//! reference), its batch buckets ([`sizes`]), a guard that turns a panic inside the driver
//! bindings into one error ([`catch_panic`]), and the cuDNN evaluator itself (the `cudnn`
//! feature).

pub mod catch_panic;
#[cfg(feature = "cudnn")]
pub mod cudnn;
pub mod plan;
pub mod sizes;
