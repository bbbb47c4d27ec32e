//! Training throughput (`junglezero bench train`): optimiser steps on a synthetic batch.

use std::time::Instant;

use burn::prelude::Device;

use super::TrainConfig;
use super::batch::Batch;
use super::trainer::{StepTiming, Trainer, optimizer};
use crate::game::Turn;
use crate::nn::infer::cpu::kernels::CpuKernels;
use crate::nn::model::ModelConfig;
use crate::trainable::Trainable;

/// `size` real positions of `G` from games played along fixed move choices (chance outcomes
/// too), uniform policy and opponent-policy targets, results cycling through win, draw and loss.
pub fn synthetic_batch<G: Trainable>(rules: &G::Rules, size: usize) -> Batch {
    let (shape, actions) = (G::SHAPE, G::ACTIONS);
    let uniform = 1.0 / actions as f32;
    let mut batch = Batch {
        inputs: ndarray::Array4::zeros((size, shape.planes, shape.rows, shape.cols)),
        policy: ndarray::Array2::from_elem((size, actions), uniform),
        wdl: ndarray::Array2::zeros((size, 3)),
        moves_left: ndarray::Array1::from_elem(size, 3.0),
        opponent_policy: ndarray::Array2::from_elem((size, actions), uniform),
        short_value: ndarray::Array1::zeros(size),
    };
    let mut g = G::start_under(rules);
    let mut outcomes = Vec::new();
    for i in 0..size {
        let mut planes = batch.inputs.index_axis_mut(ndarray::Axis(0), i);
        g.encode(planes.as_slice_mut().expect("a fresh array is contiguous"));
        batch.wdl[[i, i % 3]] = 1.0;
        // One move, then nature's draws until a player is to move again.
        loop {
            match g.turn() {
                Turn::Player(_) => {
                    let moves = g.legal_moves();
                    match moves.get(i % 7).or_else(|| moves.first()) {
                        Some(&m) => g.play_unchecked(m),
                        None => g = G::start_under(rules),
                    }
                }
                Turn::Chance => {
                    g.chance_outcomes(&mut outcomes);
                    g.play_unchecked(outcomes[i % outcomes.len()].0);
                }
                Turn::Over(_) => g = G::start_under(rules),
            }
            if !matches!(g.turn(), Turn::Chance) {
                break;
            }
        }
        if g.outcome().is_some() {
            g = G::start_under(rules);
        }
    }
    batch
}

/// Seconds per optimiser step of a fresh `model` network on `device` (an autodiff device)
/// over `batch`, timed over `steps` steps after two warm-up steps, with the tower's fused step
/// (if `config` asks for it) in the instruction set `kernels` names.
pub fn seconds_per_step(
    model: &ModelConfig,
    shape: crate::game::Shape,
    config: &TrainConfig,
    kernels: CpuKernels,
    device: &Device,
    batch: &Batch,
    steps: u32,
) -> anyhow::Result<(f64, StepTiming)> {
    let mut trainer = Trainer::new(model.init_seeded(shape, device, 1), optimizer(config), device.clone(), model, config, 0)
        .with_kernels(kernels)
        .map_err(anyhow::Error::msg)?;
    trainer.step(batch);
    trainer.step(batch);
    let start = Instant::now();
    let mut sum = StepTiming::default();
    for _ in 0..steps.max(1) {
        sum += trainer.step(batch).timing;
    }
    let k = steps.max(1) as f64;
    Ok((start.elapsed().as_secs_f64() / k, sum / k))
}

/// The loss (policy plus weighted value) of each of `steps` optimiser steps of a fresh `model`
/// network seeded 1, cycling through `batches`.
pub fn loss_curve(
    model: &ModelConfig,
    shape: crate::game::Shape,
    config: &TrainConfig,
    kernels: CpuKernels,
    device: &Device,
    batches: &[Batch],
    steps: u32,
) -> anyhow::Result<Vec<f32>> {
    let mut trainer = Trainer::new(model.init_seeded(shape, device, 1), optimizer(config), device.clone(), model, config, 0)
        .with_kernels(kernels)
        .map_err(anyhow::Error::msg)?;
    Ok((0..steps as usize)
        .map(|i| {
            let s = trainer.step(&batches[i % batches.len()]);
            s.policy_loss + s.value_loss * config.value_loss_weight as f32
        })
        .collect())
}
