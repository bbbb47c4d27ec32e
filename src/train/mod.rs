//! Learning from self-play: the replay window, batches, the optimiser loop and checkpoints.
//! The generations over a run directory (self-play, training, gating) are in
//! [`crate::pipeline`].

pub mod batch;
pub mod bench;
pub mod checkpoint;
pub mod dump;
pub mod replay;
pub mod trainer;

use serde::{Deserialize, Serialize};

use crate::check::ConfigError;

/// What runs the residual tower in a training step.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum TowerKernels {
    /// The project's own kernels on the CPU backend (`nn::tower`), in the instruction set
    /// `hardware.cpu_kernels` names; burn's own operations on other devices.
    #[default]
    Fused,
    /// burn's own operations everywhere.
    Burn,
}

/// Which optimiser updates the weights.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum OptimizerKind {
    /// SGD with Nesterov momentum (dampening 0, as in PyTorch).
    Sgd,
    AdamW,
}

crate::settings! {
    /// `[train]`: the learning loop.
    #[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
    #[serde(deny_unknown_fields, default)]
    pub struct TrainConfig in "train", about "The learning loop." {
        /// Generations `train` runs before it stops (0: until interrupted). A restart continues
        /// the count.
        pub iterations: u64 = 0 => "generations before stopping (0: until interrupted)", range(0, 100_000_000);
        /// Stop after this many minutes of this invocation (0: no limit); checked between stages.
        pub time_limit_minutes: f64 = 0.0 => "stop after this many minutes of this invocation (0: no limit)", range(0.0, 1e7);
        /// Self-play games per generation.
        pub games_per_iteration: u64 = 48 => "self-play games per generation", range(1, 10_000_000);
        /// Positions per training batch.
        pub batch_size: usize = 256 => "positions per training step", range(1, 65_536);
        /// Training samples drawn per new self-play sample: the number of steps per generation is
        /// this times the new samples divided by the batch size.
        pub samples_per_new_sample: f64 = 8.0 => "training samples drawn per new self-play sample", range(0.0, 1000.0);
        /// The same for the alpha-beta teacher's games (trained on before generation 1), so the
        /// first network's training and the self-play generations' can be sized apart.
        pub samples_per_teacher_sample: f64 = 4.0 => "...and per teacher sample (the first network's training)", range(0.0, 1000.0);
        /// The replay window holds at least this many samples...
        pub window_min: usize = 25_000 => "the replay window holds at least this many samples...", range(1, 100_000_000);
        /// ...and grows with the total N as `window_min * (1 + scale * ((N / window_min)^exponent
        /// - 1) / exponent)` (KataGo's scheme).
        pub window_exponent: f64 = 0.75 => "...and grows with the total N as min x (1 + scale x ((N/min)^exp - 1) / exp)", range(0.01, 1.0);
        pub window_scale: f64 = 0.4 => "...with this scale (KataGo's sublinear window)", range(0.0, 10.0);
        /// `sgd` (Nesterov momentum) or `adamw`.
        pub optimizer: OptimizerKind = OptimizerKind::Sgd => "\"sgd\" (Nesterov momentum) or \"adamw\"";
        /// What runs the residual tower in a training step.
        pub tower: TowerKernels = TowerKernels::Fused => "the training step's residual tower: \"fused\" (the project's CPU kernels, in the instruction set hardware.cpu_kernels names) or \"burn\" (burn's own operations)";
        /// Learning rate after warm-up.
        pub lr: f64 = 0.02 => "learning rate after warm-up", range(1e-8, 10.0);
        /// SGD momentum.
        pub momentum: f64 = 0.9 => "SGD momentum", range(0.0, 0.999);
        /// Weight decay (L2 for SGD, decoupled for AdamW).
        pub weight_decay: f64 = 1e-4 => "L2 for SGD, decoupled decay for AdamW", range(0.0, 1.0);
        /// Steps of linear warm-up from 0 to `lr`.
        pub lr_warmup_steps: u64 = 50 => "linear warm-up from 0", range(0, 1_000_000_000);
        /// The learning rate is multiplied by `lr_decay` every `lr_decay_steps` steps (0: never).
        pub lr_decay: f64 = 1.0 => "multiply the learning rate by this...", range(0.0, 1.0);
        pub lr_decay_steps: u64 = 0 => "...every this many steps (0: never)", range(0, 1_000_000_000);
        /// A timed invocation (`time_limit_minutes` > 0) trains its last `lr_final_fraction` of
        /// the time with the learning rate multiplied by `lr_final_factor` (0: no final phase).
        /// Unlike `lr_decay_steps` it does not depend on how many steps the machine manages.
        pub lr_final_fraction: f64 = 0.0 => "a timed run (time_limit_minutes) trains its last this fraction of the time...", range(0.0, 1.0);
        pub lr_final_factor: f64 = 1.0 => "...with the learning rate times this (0: no final phase)", range(0.0, 1.0);
        /// Each generation's candidate is an exponential moving average of the trained weights
        /// over generations: this times the previous generation's network plus the rest times the
        /// weights just trained (KataGo's averaged snapshots; 0: the trained weights alone).
        /// Training always continues from the trained weights.
        pub average_decay: f64 = 0.0 => "candidates average the weights over generations: this x the previous network + the rest x the weights just trained (0: trained weights alone)", range(0.0, 0.999);
        /// Weight of the value loss against the policy loss.
        pub value_loss_weight: f64 = 1.0 => "weight of the value loss against the policy loss", range(0.0, 100.0);
        /// Weight of the moves-left head's Huber loss (networks with `model.moves_left`).
        pub moves_left_loss_weight: f64 = 0.1 => "weight of the moves-left head's Huber loss (moves_left_head)", range(0.0, 100.0);
        /// Weight of the opponent-policy head's cross-entropy (networks with
        /// `model.opponent_policy`; KataGo uses 0.15).
        pub opponent_policy_loss_weight: f64 = 0.15 => "weight of the opponent-policy head's loss (opponent_policy_head)", range(0.0, 100.0);
        /// Weight of the short-term value head's squared error (networks with `model.short_value`).
        pub short_value_loss_weight: f64 = 0.5 => "weight of the short-term value head's squared error (short_value_head)", range(0.0, 100.0);
        /// Value target: this fraction of the search's root value q (as win/draw/loss
        /// probabilities) mixed with the game's result z (lc0's q_ratio; 0: the result alone).
        pub value_q_ratio: f32 = 0.75 => "value target: this much of the search's root value, the rest the game result (0: the result alone)", range(0.0, 1.0);
        /// Mirror half the training positions left-right (the rules are symmetric).
        pub mirror: bool = true => "mirror half the training positions left-right";
        /// Write training metrics every this many steps.
        pub log_every_steps: u64 = 10 => "training metrics every this many steps", range(1, 1_000_000);
        /// Seed of the run's random numbers (0: taken from the clock when the run is created).
        #[serde(with = "crate::check::wide_u64")]
        pub seed: u64 = 0 => "random seed of the run (0: from the clock when the run is created)";
    }
}

impl TrainConfig {
    /// Training steps for a generation whose new data is `selfplay` self-play samples and
    /// `teacher` teacher samples: each drawn `samples_per_new_sample` or
    /// `samples_per_teacher_sample` times on average. At least one step.
    pub fn steps_for(&self, selfplay: u64, teacher: u64) -> u64 {
        let draws = self.samples_per_new_sample * selfplay as f64 + self.samples_per_teacher_sample * teacher as f64;
        (draws / self.batch_size as f64).ceil().max(1.0) as u64
    }

    pub fn validate(&self) -> Result<(), ConfigError> {
        crate::settings::Section::check_ranges(self)?;
        Ok(())
    }

    /// Replay window size for `total` samples seen.
    pub fn window_size(&self, total: usize) -> usize {
        let c = self.window_min as f64;
        let n = total as f64;
        if n <= c {
            return self.window_min;
        }
        let a = self.window_exponent;
        (c * (1.0 + self.window_scale * ((n / c).powf(a) - 1.0) / a)) as usize
    }

    /// The learning rate at `step`.
    pub fn lr_at(&self, step: u64) -> f64 {
        let warm = if self.lr_warmup_steps > 0 && step < self.lr_warmup_steps { (step + 1) as f64 / self.lr_warmup_steps as f64 } else { 1.0 };
        let decays = step.checked_div(self.lr_decay_steps).map_or(0, |d| d as i32);
        self.lr * warm * self.lr_decay.powi(decays)
    }

    /// The factor on the learning rate after `elapsed_minutes` of a timed invocation: 1 until
    /// the final phase (the last `lr_final_fraction` of `time_limit_minutes`), then
    /// `lr_final_factor`. Always 1 without a time limit or a final phase.
    pub fn lr_time_factor(&self, elapsed_minutes: f64) -> f64 {
        if self.time_limit_minutes <= 0.0 || self.lr_final_fraction <= 0.0 {
            return 1.0;
        }
        if elapsed_minutes >= self.time_limit_minutes * (1.0 - self.lr_final_fraction) { self.lr_final_factor } else { 1.0 }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn window_grows_sublinearly() {
        let c = TrainConfig { window_min: 1000, ..TrainConfig::default() };
        assert_eq!(c.window_size(10), 1000);
        let w = c.window_size(100_000);
        assert!(w > 1000 && w < 100_000, "{w}");
        assert!(c.window_size(200_000) > w);
    }

    #[test]
    fn steps_count_teacher_and_self_play_samples_apart() {
        let c = TrainConfig { batch_size: 100, samples_per_new_sample: 2.0, samples_per_teacher_sample: 8.0, ..TrainConfig::default() };
        assert_eq!(c.steps_for(1000, 0), 20);
        assert_eq!(c.steps_for(0, 1000), 80);
        assert_eq!(c.steps_for(500, 250), 30);
        // Rounded up, and never zero.
        assert_eq!(c.steps_for(1, 0), 1);
        assert_eq!(c.steps_for(0, 0), 1);
        assert_eq!(TrainConfig { samples_per_teacher_sample: 0.0, ..c.clone() }.steps_for(0, 1000), 1);
        let bad = TrainConfig { samples_per_teacher_sample: -1.0, ..c };
        assert!(bad.validate().unwrap_err().to_string().contains("train.samples_per_teacher_sample"));
    }

    #[test]
    fn final_phase_by_time() {
        let c = TrainConfig { time_limit_minutes: 60.0, lr_final_fraction: 0.25, lr_final_factor: 0.2, ..TrainConfig::default() };
        assert_eq!(c.lr_time_factor(0.0), 1.0);
        assert_eq!(c.lr_time_factor(44.9), 1.0);
        assert_eq!(c.lr_time_factor(45.0), 0.2);
        assert_eq!(c.lr_time_factor(59.0), 0.2);
        // No time limit, or no final phase: never scaled.
        assert_eq!(TrainConfig { time_limit_minutes: 0.0, ..c.clone() }.lr_time_factor(1e6), 1.0);
        assert_eq!(TrainConfig { lr_final_fraction: 0.0, ..c.clone() }.lr_time_factor(59.0), 1.0);
        // Out-of-range settings are refused by name.
        let bad = TrainConfig { lr_final_factor: 2.0, ..c.clone() };
        assert!(bad.validate().unwrap_err().to_string().contains("train.lr_final_factor"));
    }

    #[test]
    fn learning_rate_schedule() {
        let c = TrainConfig { lr: 0.1, lr_warmup_steps: 10, lr_decay: 0.5, lr_decay_steps: 100, ..TrainConfig::default() };
        assert!((c.lr_at(0) - 0.01).abs() < 1e-12);
        assert!((c.lr_at(50) - 0.1).abs() < 1e-12);
        assert!((c.lr_at(150) - 0.05).abs() < 1e-12);
    }
}
