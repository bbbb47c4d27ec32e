//! Jungle's own commands and benches: the endgame tables (`tb`, `bench tb`, `bench races`), the
//! alpha-beta engine's bench (`bench search`), and what the generic benches need of Jungle.

pub mod bench_game;
pub mod bench_races;
pub mod bench_search;
pub mod bench_tb;
pub mod tb;
