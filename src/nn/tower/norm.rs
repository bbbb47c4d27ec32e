//! Training-mode batch norm with the residual add and ReLU, forward and backward, on
//! channels-last rows, and the layout changes from and to burn's channels-first order.
//!
//! The statistics of a batch are gathered in one pass (sums and sums of squares over short runs
//! of rows in single precision, added in double precision); the normalisation, the residual and
//! ReLU are one pass. Backward is one pass for the ReLU mask and the two per-channel sums, and
//! one for the input gradient.

use rayon::prelude::*;

/// Rows (squares of positions) a task takes in the elementwise passes.
const ROWS_PER_TASK: usize = 512;

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
    for (((a, a2), f), f2) in s.iter_mut().zip(s2.iter_mut()).zip(fs.iter_mut()).zip(fs2.iter_mut()) {
        *a += *f as f64;
        *a2 += *f2 as f64;
        *f = 0.0;
        *f2 = 0.0;
    }
}

/// `out[p][ch] = max(0, z[p][ch]·scale[ch] + shift[ch] + residual[p][ch])`, rows channels last.
pub fn normalize_add_relu(z: &[f32], c: usize, scale: &[f32], shift: &[f32], residual: Option<&[f32]>, out: &mut [f32]) {
    let rows = ROWS_PER_TASK * c;
    out.par_chunks_mut(rows).enumerate().for_each(|(task, o)| {
        let at = task * rows;
        let zc = &z[at..at + o.len()];
        let (scale, shift) = (&scale[..c], &shift[..c]);
        match residual {
            Some(r) => {
                let rc = &r[at..at + o.len()];
                for ((or, zr), rr) in o.chunks_exact_mut(c).zip(zc.chunks_exact(c)).zip(rc.chunks_exact(c)) {
                    for ((((o, &z), &r), &s), &t) in or.iter_mut().zip(zr).zip(rr).zip(scale).zip(shift) {
                        *o = (z * s + t + r).max(0.0);
                    }
                }
            }
            None => {
                for (or, zr) in o.chunks_exact_mut(c).zip(zc.chunks_exact(c)) {
                    for (((o, &z), &s), &t) in or.iter_mut().zip(zr).zip(scale).zip(shift) {
                        *o = (z * s + t).max(0.0);
                    }
                }
            }
        }
    });
}

/// What the backward pass of batch norm, the residual and ReLU gives, channels last.
pub struct NormGrads {
    /// The gradient after ReLU: the residual's gradient.
    pub masked: Vec<f32>,
    /// The gradient of the convolution's output.
    pub dz: Vec<f32>,
    pub dgamma: Vec<f32>,
    pub dbeta: Vec<f32>,
}

/// Backward through `out = relu(bn(z) + residual)`, every array channels last; `mean` and
/// `inv_std` are the forward pass's batch statistics.
pub fn backward(grad: &[f32], out: &[f32], z: &[f32], c: usize, mean: &[f32], inv_std: &[f32], gamma: &[f32]) -> NormGrads {
    let rows = ROWS_PER_TASK * c;
    let mut masked = vec![0.0f32; grad.len()];
    // The mask and, per task, the sums Σ g and Σ g·(z − mean).
    let (dbeta, dgz) = masked
        .par_chunks_mut(rows)
        .enumerate()
        .map(|(task, m)| {
            let at = task * rows;
            let (g, o, zc) = (&grad[at..at + m.len()], &out[at..at + m.len()], &z[at..at + m.len()]);
            let (mut s, mut sz) = (vec![0.0f32; c], vec![0.0f32; c]);
            for (((mr, gr), or), zr) in m.chunks_exact_mut(c).zip(g.chunks_exact(c)).zip(o.chunks_exact(c)).zip(zc.chunks_exact(c)) {
                for (((((m, &g), &o), &z), &mu), (a, az)) in mr.iter_mut().zip(gr).zip(or).zip(zr).zip(&mean[..c]).zip(s.iter_mut().zip(sz.iter_mut())) {
                    let v = if o > 0.0 { g } else { 0.0 };
                    *m = v;
                    *a += v;
                    *az += v * (z - mu);
                }
            }
            (s.iter().map(|&x| x as f64).collect::<Vec<f64>>(), sz.iter().map(|&x| x as f64).collect::<Vec<f64>>())
        })
        .reduce(
            || (vec![0.0; c], vec![0.0; c]),
            |(mut a, mut az), (b, bz)| {
                a.iter_mut().zip(&b).for_each(|(x, y)| *x += y);
                az.iter_mut().zip(&bz).for_each(|(x, y)| *x += y);
                (a, az)
            },
        );
    let n = (grad.len() / c).max(1) as f64;
    let dgx: Vec<f64> = dgz.iter().zip(inv_std).map(|(s, is)| s * *is as f64).collect();
    // dz = γ·σ⁻¹·(g − Σg/N − x̂·Σ(g·x̂)/N), with x̂ = (z − mean)·σ⁻¹.
    let k: Vec<f32> = (0..c).map(|ch| gamma[ch] * inv_std[ch]).collect();
    let mb: Vec<f32> = dbeta.iter().map(|s| (s / n) as f32).collect();
    let mx: Vec<f32> = (0..c).map(|ch| (dgx[ch] / n) as f32 * inv_std[ch]).collect();
    let mut dz = vec![0.0f32; grad.len()];
    dz.par_chunks_mut(rows).enumerate().for_each(|(task, d)| {
        let at = task * rows;
        let (m, zc) = (&masked[at..at + d.len()], &z[at..at + d.len()]);
        for ((dr, mr), zr) in d.chunks_exact_mut(c).zip(m.chunks_exact(c)).zip(zc.chunks_exact(c)) {
            for (((((d, &m), &z), &mu), &k), (&b, &x)) in dr.iter_mut().zip(mr).zip(zr).zip(&mean[..c]).zip(&k[..c]).zip(mb.iter().zip(&mx)) {
                *d = k * (m - b - (z - mu) * x);
            }
        }
    });
    NormGrads { masked, dz, dgamma: dgx.iter().map(|&s| s as f32).collect(), dbeta: dbeta.iter().map(|&s| s as f32).collect() }
}
