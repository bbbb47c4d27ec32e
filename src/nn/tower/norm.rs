//! Training-mode batch norm with the residual add and ReLU, forward and backward, and the
//! layout changes between burn's channels-first tensors and the products' channels-last rows.
//!
//! The statistics of a batch are gathered in one pass (sums and sums of squares in double
//! precision, per thread, then added); the normalisation, the residual and ReLU are one pass that
//! also writes the channels-first output. Backward is one pass for the ReLU mask and the two
//! per-channel sums, and one for the input gradient.

use rayon::prelude::*;

/// Positions a task takes in the per-position passes.
const POSITIONS_PER_TASK: usize = 8;

/// `[n][c][sq]` to `[n][sq][c]`.
pub fn to_channels_last(src: &[f32], n: usize, c: usize, sq: usize) -> Vec<f32> {
    let mut out = vec![0.0f32; n * c * sq];
    out.par_chunks_mut(c * sq).zip(src.par_chunks(c * sq)).for_each(|(o, s)| {
        for ch in 0..c {
            for q in 0..sq {
                o[q * c + ch] = s[ch * sq + q];
            }
        }
    });
    out
}

/// `[n][sq][c]` to `[n][c][sq]`.
pub fn to_channels_first(src: &[f32], n: usize, c: usize, sq: usize) -> Vec<f32> {
    let mut out = vec![0.0f32; n * c * sq];
    out.par_chunks_mut(c * sq).zip(src.par_chunks(c * sq)).for_each(|(o, s)| {
        for q in 0..sq {
            for ch in 0..c {
                o[ch * sq + q] = s[q * c + ch];
            }
        }
    });
    out
}

/// The batch's per-channel mean and (biased) variance of channels-last rows `z` of `c` floats.
pub fn batch_stats(z: &[f32], c: usize) -> (Vec<f32>, Vec<f32>) {
    let rows = z.len() / c;
    let (sum, sq) = z
        .par_chunks(c * 256)
        .map(|chunk| {
            let (mut s, mut s2) = (vec![0.0f64; c], vec![0.0f64; c]);
            // Single-precision sums over a short run of rows, then added in double precision.
            let (mut fs, mut fs2) = (vec![0.0f32; c], vec![0.0f32; c]);
            for (k, row) in chunk.chunks_exact(c).enumerate() {
                for ((a, b), &x) in fs.iter_mut().zip(fs2.iter_mut()).zip(row) {
                    *a += x;
                    *b += x * x;
                }
                if k % 16 == 15 {
                    flush(&mut s, &mut s2, &mut fs, &mut fs2);
                }
            }
            flush(&mut s, &mut s2, &mut fs, &mut fs2);
            (s, s2)
        })
        .reduce(
            || (vec![0.0; c], vec![0.0; c]),
            |(mut a, mut a2), (b, b2)| {
                a.iter_mut().zip(&b).for_each(|(x, y)| *x += y);
                a2.iter_mut().zip(&b2).for_each(|(x, y)| *x += y);
                (a, a2)
            },
        );
    let n = rows.max(1) as f64;
    let mean: Vec<f32> = sum.iter().map(|s| (s / n) as f32).collect();
    let var: Vec<f32> = sum.iter().zip(&sq).map(|(s, s2)| (s2 / n - (s / n) * (s / n)).max(0.0) as f32).collect();
    (mean, var)
}

fn flush(s: &mut [f64], s2: &mut [f64], fs: &mut [f32], fs2: &mut [f32]) {
    for i in 0..s.len() {
        s[i] += fs[i] as f64;
        s2[i] += fs2[i] as f64;
        fs[i] = 0.0;
        fs2[i] = 0.0;
    }
}

/// `out[b][ch][q] = max(0, z[b][q][ch]·scale[ch] + shift[ch] + residual[b][ch][q])`: the
/// normalised channels-last rows written channels first, with the residual (channels first)
/// added.
pub fn normalize_add_relu(z: &[f32], c: usize, sq: usize, scale: &[f32], shift: &[f32], residual: Option<&[f32]>, out: &mut [f32]) {
    let per = c * sq;
    out.par_chunks_mut(per * POSITIONS_PER_TASK).enumerate().for_each(|(task, o)| {
        let base = task * per * POSITIONS_PER_TASK;
        for (b, ob) in o.chunks_mut(per).enumerate() {
            let at = base + b * per;
            let zb = &z[at..at + per];
            for ch in 0..c {
                let (s, t) = (scale[ch], shift[ch]);
                let orow = &mut ob[ch * sq..(ch + 1) * sq];
                match residual {
                    Some(r) => {
                        let rrow = &r[at + ch * sq..at + (ch + 1) * sq];
                        for q in 0..sq {
                            orow[q] = (zb[q * c + ch] * s + t + rrow[q]).max(0.0);
                        }
                    }
                    None => {
                        for q in 0..sq {
                            orow[q] = (zb[q * c + ch] * s + t).max(0.0);
                        }
                    }
                }
            }
        }
    });
}

/// What the backward pass of batch norm, the residual and ReLU gives.
pub struct NormGrads {
    /// The gradient after ReLU, channels first: the residual's gradient.
    pub masked: Vec<f32>,
    /// The gradient of the convolution's output, channels last.
    pub dz: Vec<f32>,
    pub dgamma: Vec<f32>,
    pub dbeta: Vec<f32>,
}

/// Backward through `out = relu(bn(z) + residual)`: `grad` and `out` channels first, `z`
/// channels last, `mean` and `inv_std` the forward pass's batch statistics.
#[allow(clippy::too_many_arguments)]
pub fn backward(grad: &[f32], out: &[f32], z: &[f32], c: usize, sq: usize, mean: &[f32], inv_std: &[f32], gamma: &[f32]) -> NormGrads {
    let per = c * sq;
    let n = grad.len() / per;
    let mut masked = vec![0.0f32; grad.len()];
    let mut gz = vec![0.0f32; grad.len()];
    // The mask, the channels-last copy and, per task, the sums Σ g and Σ g·x̂.
    let (dbeta, dgx) = masked
        .par_chunks_mut(per * POSITIONS_PER_TASK)
        .zip(gz.par_chunks_mut(per * POSITIONS_PER_TASK))
        .enumerate()
        .map(|(task, (m, gl))| {
            let base = task * per * POSITIONS_PER_TASK;
            let (mut s, mut sx) = (vec![0.0f64; c], vec![0.0f64; c]);
            for b in 0..m.len() / per {
                let at = base + b * per;
                for ch in 0..c {
                    let (mu, is) = (mean[ch], inv_std[ch]);
                    let (mut a, mut ax) = (0.0f32, 0.0f32);
                    for q in 0..sq {
                        let i = ch * sq + q;
                        let g = if out[at + i] > 0.0 { grad[at + i] } else { 0.0 };
                        m[b * per + i] = g;
                        gl[b * per + q * c + ch] = g;
                        a += g;
                        ax += g * (z[at + q * c + ch] - mu) * is;
                    }
                    s[ch] += a as f64;
                    sx[ch] += ax as f64;
                }
            }
            (s, sx)
        })
        .reduce(
            || (vec![0.0; c], vec![0.0; c]),
            |(mut a, mut ax), (b, bx)| {
                a.iter_mut().zip(&b).for_each(|(x, y)| *x += y);
                ax.iter_mut().zip(&bx).for_each(|(x, y)| *x += y);
                (a, ax)
            },
        );
    let rows = (n * sq).max(1) as f64;
    // dz = γ·σ⁻¹·(g − Σg/N − x̂·Σ(g·x̂)/N).
    let k: Vec<f32> = (0..c).map(|ch| gamma[ch] * inv_std[ch]).collect();
    let mb: Vec<f32> = dbeta.iter().map(|s| (s / rows) as f32).collect();
    let mx: Vec<f32> = dgx.iter().map(|s| (s / rows) as f32).collect();
    gz.par_chunks_mut(c * 256).zip(z.par_chunks(c * 256)).for_each(|(g, zc)| {
        for (gr, zr) in g.chunks_exact_mut(c).zip(zc.chunks_exact(c)) {
            for ch in 0..c {
                let xhat = (zr[ch] - mean[ch]) * inv_std[ch];
                gr[ch] = k[ch] * (gr[ch] - mb[ch] - xhat * mx[ch]);
            }
        }
    });
    NormGrads { masked, dz: gz, dgamma: dgx.iter().map(|&s| s as f32).collect(), dbeta: dbeta.iter().map(|&s| s as f32).collect() }
}
