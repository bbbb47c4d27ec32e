//! The policy/value network: its burn model, the CPU fast path, files, export, and
//! [`burn_eval::NetEvaluator`], which implements MCTS's [`Evaluator`](crate::mcts::Evaluator).
//!
//! Search, self-play and the arena only ever see `Evaluator`; nothing below `mcts/` imports
//! this module.

pub mod agree;
pub mod average;
pub mod bench;
pub mod burn_eval;
pub mod catch_panic;
pub mod cpu_kernels;
#[cfg(feature = "cudnn")]
pub mod cudnn;
pub mod device;
pub mod export;
pub mod fused;
pub mod gpu_plan;
pub mod gpu_sizes;
pub mod import;
pub mod model;
pub mod modelfile;
pub mod onnx;
pub mod winograd;
pub mod yardstick;
