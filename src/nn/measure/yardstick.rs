//! A network measured against exact results: the share of positions whose most likely
//! win/draw/loss class is the exact one, and the mean distance between the network's value and
//! the exact value (the report's "value accuracy on tablebase positions").

use crate::game::Encode;
use crate::mcts::oracle::Exact;
use crate::nn::NetEvaluator;

/// (accuracy, mean |value error|) of `net` on `sample`, in batches.
pub fn measure<G: Encode>(net: &NetEvaluator, sample: &[(G, Exact)]) -> (f64, f64) {
    if sample.is_empty() {
        return (0.0, 0.0);
    }
    let (mut right, mut error) = (0usize, 0f64);
    let mut inputs = vec![0.0f32; 256 * G::INPUT_SIZE];
    for chunk in sample.chunks(256) {
        for (k, (g, _)) in chunk.iter().enumerate() {
            g.encode(&mut inputs[k * G::INPUT_SIZE..(k + 1) * G::INPUT_SIZE]);
        }
        let out = net.forward(&inputs[..chunk.len() * G::INPUT_SIZE], chunk.len());
        for (k, (_, e)) in chunk.iter().enumerate() {
            let wdl = &out.wdl[3 * k..3 * k + 3];
            // Classes: 0 win, 1 draw, 2 loss for the side to move.
            let predicted = (0..3).max_by(|&a, &b| wdl[a].total_cmp(&wdl[b])).unwrap_or(1);
            let exact = if e.value > 0.0 {
                0
            } else if e.value < 0.0 {
                2
            } else {
                1
            };
            right += usize::from(predicted == exact);
            error += f64::from((wdl[0] - wdl[2] - e.value).abs());
        }
    }
    (right as f64 / sample.len() as f64, error / sample.len() as f64)
}
