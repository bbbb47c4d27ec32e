//! The integration tests, as one test binary (one link instead of one per file): each
//! module is the tests of one part of the program, through the library or the binary.
//! Fault-injection tests, whose fault points are global to the process, are their own binary
//! (`tests/faults/`), so that no fault they set can reach a test running beside them.

mod common;

mod analysis_actions;
mod anti_chase;
mod api_doc;
mod arena;
mod cli;
mod cli_words;
mod flip;
mod fuzz_seeds;
mod hostile;
mod hostile3_engines;
mod hostile3_files;
mod hostile4;
mod layering;
mod levels;
mod mcts;
mod mcts_reuse;
mod mcts_solver;
mod mcts_tactics;
mod nn;
mod perft;
mod properties;
mod protocol;
mod protocol_go;
mod readme;
mod report_axes;
mod rules;
mod run_config;
mod run_interrupt;
mod search;
mod serve;
mod settings;
mod stages;
mod store_remote;
mod tb;
mod train;
