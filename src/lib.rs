//! junglezero: a self-play reinforcement-learning trainer for Jungle (Dou Shou Qi).

pub mod alphabeta;
pub mod config;
pub mod game;
pub mod jungle;
pub mod player;
pub mod protocol;
