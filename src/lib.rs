//! junglezero: a self-play reinforcement-learning trainer for Jungle (Dou Shou Qi).

pub mod game;
pub mod jungle;
