//! The policy/value network, in rooms: the burn model ([`model`]), its files and exports
//! ([`files`]), the paths that run it for search ([`infer`]: the device registry, the burn
//! evaluator, the fused CPU path and the cuDNN path), measurements of it ([`measure`]), and the
//! tower's training step on the project's own CPU kernels ([`tower`]).
//! [`NetEvaluator`] implements MCTS's [`Evaluator`](crate::mcts::Evaluator).
//!
//! Search, self-play and the arena only ever see `Evaluator`; nothing below `mcts/` imports
//! this module.

pub mod files;
pub mod infer;
pub mod measure;
pub mod model;
#[cfg(feature = "flex")]
pub mod tower;

pub use files::modelfile;
pub use infer::device;
pub use infer::evaluator::NetEvaluator;
