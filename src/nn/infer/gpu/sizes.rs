//! Batch arithmetic of the NVIDIA inference path (`nn::infer::gpu::cudnn`), apart from it so that `cargo
//! test` checks it without a GPU: the batch bucket a batch runs at, the capacity of a stream's
//! buffers, and how many values a batch moves between host and device.

use crate::game::Shape;

/// The smallest capacity of a stream's buffers (positions): small batches share one set.
pub const MIN_CAPACITY: usize = 64;

/// The bucket of a batch of `n` positions: the smallest power of two at least `n`. The
/// convolution algorithms are timed once per bucket, at the bucket's size, and every batch of
/// the bucket runs with them, so a stream whose batches change from call to call (the inference
/// server's) times at most `log2(capacity) + 1` buckets instead of every batch size it meets.
pub fn bucket(n: usize) -> usize {
    n.max(1).next_power_of_two()
}

/// The capacity of the buffers a stream makes for a batch of `n` positions: its bucket, at
/// least [`MIN_CAPACITY`]. A larger batch later makes larger buffers; every bucket up to the
/// capacity fits them.
pub fn capacity(n: usize) -> usize {
    bucket(n).max(MIN_CAPACITY)
}

/// The half-precision values one batch moves between host and device: inputs up, policy
/// logits, value logits and moves left back. Buffers are allocated for a stream's capacity
/// and copies move the batch's own `n` positions (a batch of 10 in buffers for 2 048 moves
/// 45 kB, not 9 MB).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Transfer {
    /// `[n, squares, planes_padded]`.
    pub input: usize,
    /// `[n, squares, policy_planes]`.
    pub policy: usize,
    /// `[n, 3]`: win, draw, loss.
    pub logits: usize,
    /// `[n]`, or nothing for a network without the head.
    pub moves_left: usize,
}

impl Transfer {
    /// For `n` positions of a game of `shape` whose input planes are padded to
    /// `planes_padded`.
    pub fn new(shape: &Shape, planes_padded: usize, moves_left: bool, n: usize) -> Transfer {
        let rows = n * shape.squares();
        Transfer { input: rows * planes_padded, policy: rows * shape.policy_planes, logits: n * 3, moves_left: if moves_left { n } else { 0 } }
    }

    /// Bytes moved both ways (two bytes a value).
    pub fn bytes(&self) -> usize {
        (self.input + self.policy + self.logits + self.moves_left) * std::mem::size_of::<half::f16>()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::jungle::encode::SHAPE;

    #[test]
    fn every_batch_up_to_a_capacity_runs_at_one_of_its_power_of_two_buckets() {
        assert_eq!([0, 1, 2, 3, 5, 64, 65, 2015, 2048, 2049].map(bucket), [1, 1, 2, 4, 8, 64, 128, 2048, 2048, 4096]);
        assert_eq!([1, 10, 64, 65, 2015, 4096].map(capacity), [64, 64, 64, 128, 2048, 4096]);
        for cap in [64, 2048, 4096] {
            assert_eq!(capacity(cap), cap);
            let mut seen: Vec<usize> = (1..=cap).map(bucket).collect();
            seen.dedup();
            // The tunings a stream of this capacity can need: one per power of two up to it.
            let powers: Vec<usize> = (0..=cap.trailing_zeros()).map(|k| 1 << k).collect();
            assert_eq!(seen, powers);
            assert!((1..=cap).all(|n| bucket(n) >= n && bucket(n) < 2 * n && bucket(n) <= cap));
        }
    }

    #[test]
    fn a_batch_moves_its_own_rows_not_the_capacity() {
        // Jungle: 9 × 7 squares, 32 input planes (already a multiple of 8), 4 policy planes.
        let t = Transfer::new(&SHAPE, 32, true, 10);
        assert_eq!(t, Transfer { input: 10 * 63 * 32, policy: 10 * 63 * 4, logits: 30, moves_left: 10 });
        assert_eq!(t.bytes(), 2 * (20_160 + 2_520 + 30 + 10));
        let full = Transfer::new(&SHAPE, 32, true, 2048);
        assert_eq!(full.bytes(), 2 * 2048 * (63 * 36 + 4));
        assert!(full.bytes() > 9_000_000 && t.bytes() < 46_000, "{} and {}", full.bytes(), t.bytes());
        // Without a moves-left head nothing of it moves; sizes are linear in the batch.
        let none = Transfer::new(&SHAPE, 32, false, 7);
        assert_eq!(none.moves_left, 0);
        assert_eq!(Transfer::new(&SHAPE, 32, false, 14).bytes(), 2 * none.bytes());
    }
}
