//! Training throughput (`junglezero bench train`): optimiser steps on a synthetic batch.

use std::time::Instant;

use burn::prelude::Device;

use super::TrainConfig;
use super::batch::Batch;
use super::trainer::{Trainer, optimizer};
use crate::game::Game;
use crate::jungle::JungleGame;
use crate::jungle::encode::{ACTIONS, PLANES, encode};
use crate::nn::model::{COLS, ModelConfig, ROWS};

/// `size` real positions from games played along fixed move choices, uniform policy and
/// opponent-policy targets, results cycling through win, draw and loss.
pub fn synthetic_batch(size: usize) -> Batch {
    let uniform = 1.0 / ACTIONS as f32;
    let mut batch = Batch {
        inputs: ndarray::Array4::zeros((size, PLANES, ROWS, COLS)),
        policy: ndarray::Array2::from_elem((size, ACTIONS), uniform),
        wdl: ndarray::Array2::zeros((size, 3)),
        moves_left: ndarray::Array1::from_elem(size, 3.0),
        opponent_policy: ndarray::Array2::from_elem((size, ACTIONS), uniform),
        short_value: ndarray::Array1::zeros(size),
    };
    let mut g = JungleGame::default();
    for i in 0..size {
        let mut planes = batch.inputs.index_axis_mut(ndarray::Axis(0), i);
        encode(&g, planes.as_slice_mut().expect("a fresh array is contiguous"));
        batch.wdl[[i, i % 3]] = 1.0;
        match g.legal_moves().get(i % 7) {
            Some(&m) if g.outcome().is_none() => g.play_unchecked(m),
            _ => g = JungleGame::default(),
        }
    }
    batch
}

/// Seconds per optimiser step of a fresh `model` network on `device` (an autodiff device)
/// over `batch`, timed over `steps` steps after two warm-up steps.
pub fn seconds_per_step(model: &ModelConfig, config: &TrainConfig, device: &Device, batch: &Batch, steps: u32) -> f64 {
    device.seed(1);
    let mut trainer = Trainer::new(model.init(device), optimizer(config), device.clone(), model, config, 0);
    trainer.step(batch);
    trainer.step(batch);
    let start = Instant::now();
    for _ in 0..steps.max(1) {
        trainer.step(batch);
    }
    start.elapsed().as_secs_f64() / steps.max(1) as f64
}
