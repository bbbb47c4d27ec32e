//! The flip game's part of the commands: what the generic benches need of it.

pub mod bench_game;
