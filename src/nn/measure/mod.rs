//! Measurements of a network: half precision against f32, raw throughput, and value accuracy
//! on tablebase positions.

pub mod agree;
pub mod bench;
pub mod yardstick;
