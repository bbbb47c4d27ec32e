//! junglezero: a self-play reinforcement-learning trainer for Jungle (Dou Shou Qi).

pub mod alphabeta;
pub mod animals;
pub mod arena;
pub mod audit;
pub mod check;
// The command line and its commands: in the library, so that they compile with it instead of
// after it, and share its copies of generic code (BENCHMARKS.md, "Builds and tests"). The
// binary, src/main.rs, parses and dispatches.
#[doc(hidden)]
pub mod cli;
#[doc(hidden)]
pub mod cmd;
pub mod config;
pub mod entries;
pub mod flip;
pub mod game;
pub mod jungle;
pub mod mcts;
pub mod nn;
pub mod pipeline;
pub mod player;
pub mod protocol;
pub mod registry;
pub mod report;
pub mod selfplay;
pub mod serve;
pub mod settings;
pub mod store;
pub mod switches;
pub mod tb;
pub mod train;
pub mod trainable;
