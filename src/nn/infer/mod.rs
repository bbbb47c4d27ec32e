//! Running the network for search: the device registry ([`device`]: which path a
//! `hardware.device` names, and whether it opens), the evaluator that dispatches to a path
//! ([`evaluator`]), the fused CPU path ([`cpu`]) and the NVIDIA path ([`gpu`]).

pub mod cpu;
pub mod device;
pub mod evaluator;
pub mod gpu;
