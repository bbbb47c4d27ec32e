//! 3 × 3 (and 1 × 1) convolutions for training, channels last, as matrix products over the nine taps with
//! the im2col matrix never built: each output row gathers its nine neighbour rows (a zero row
//! past the board's edge) straight into the register blocks of the product.
//!
//! - forward, and the input gradient (the same product with the kernel flipped and its channels
//!   swapped): `out[p, ·] = Σ_t x[nbr(p, t), ·] · w_t`, parallel over blocks of rows;
//! - the weight gradient: `dw_t = Σ_p x[nbr(p, t), ·]ᵀ · dz[p, ·]`, each thread over its share
//!   of the rows in cache-sized chunks, the threads' sums added at the end.
//!
//! The register kernels are written once over pulp's `Simd` and run on the set
//! [`KernelSet`] names (AVX-512, AVX2 + FMA or portable scalar code), so every set the CPU runs
//! can be forced and tested.

use pulp::{Simd, WithSimd};
use rayon::prelude::*;

use crate::game::Shape;
use crate::nn::infer::cpu::kernels::{KernelSet, load, store};
use crate::nn::infer::cpu::winograd::{Pass, Then, WinogradConv, WinogradScratch, WinogradTile};

/// The board and the batch: `n` positions of `rows × cols` squares, row `p = (b·rows + i)·cols + j`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Geometry {
    pub n: usize,
    pub rows: usize,
    pub cols: usize,
}

impl Geometry {
    /// Rows of a channels-last activation: one per square of each position.
    pub fn positions(&self) -> usize {
        self.n * self.rows * self.cols
    }

    /// The row that tap `t` of output row `p` reads, if it is on the board: tap `ky·3 + kx` of
    /// a 3 × 3 kernel (`taps` 9), the square itself for a 1 × 1 kernel (`taps` 1).
    #[inline(always)]
    fn neighbour(&self, p: usize, t: usize, taps: usize) -> Option<usize> {
        if taps == 1 {
            return Some(p);
        }
        let sq = self.rows * self.cols;
        let s = p % sq;
        let (i, j) = ((s / self.cols) as isize + (t / 3) as isize - 1, (s % self.cols) as isize + (t % 3) as isize - 1);
        (i >= 0 && j >= 0 && (i as usize) < self.rows && (j as usize) < self.cols).then(|| p - s + i as usize * self.cols + j as usize)
    }
}

/// Channels a zero row covers (the model's channel range tops at 1024; input planes are fewer).
const ZERO_ROW: usize = 1024;
static ZEROS: [f32; ZERO_ROW] = [0.0; ZERO_ROW];

/// Output rows a task computes in the forward product.
const ROWS_PER_TASK: usize = 96;
/// Rows a weight-gradient chunk sweeps while its inputs stay in the core's level-2 cache.
const GRAD_CHUNK: usize = 128;

/// Whether the products can run on `kernels` with these channel counts (each product's output
/// width must be a whole number of the set's vectors).
pub fn fits(kernels: &KernelSet, widths: &[usize]) -> bool {
    widths.iter().all(|w| w.is_multiple_of(kernels.lanes()) && *w <= ZERO_ROW)
}

/// `out[p, cout] = Σ_t x[nbr(p, t), cin] · w[t][cin][cout]` over the `taps` taps (9 for a 3 × 3
/// kernel, 1 for 1 × 1), channels last. `cout` must be a whole number of `kernels`' vectors and
/// `cin` at most 1024.
#[allow(clippy::too_many_arguments)]
pub fn conv(kernels: &KernelSet, g: Geometry, taps: usize, x: &[f32], cin: usize, w: &[f32], cout: usize, out: &mut [f32]) {
    let rows = g.positions();
    assert!(taps == 1 || taps == 9);
    assert!(cin <= ZERO_ROW && cout.is_multiple_of(kernels.lanes()));
    assert!(x.len() >= rows * cin && w.len() >= taps * cin * cout && out.len() >= rows * cout);
    out[..rows * cout].par_chunks_mut(ROWS_PER_TASK * cout).enumerate().for_each(|(task, chunk)| {
        let first = task * ROWS_PER_TASK;
        kernels.run(Blocked(Forward { g, taps, x, cin, w, cout, first, out: chunk }));
    });
}

/// A kernel written for register blocks of `R` rows by `NV` vectors.
trait RegisterBlocks {
    fn blocks<S: Simd, const R: usize, const NV: usize>(self, simd: S);
}

/// Runs a [`RegisterBlocks`] kernel with the block that fits the set's registers (32 of 16
/// lanes for AVX-512, 16 of 8 lanes for AVX2, scalar otherwise).
struct Blocked<T>(T);

impl<T: RegisterBlocks> WithSimd for Blocked<T> {
    type Output = ();

    #[inline(always)]
    fn with_simd<S: Simd>(self, simd: S) {
        let l = S::F32_LANES;
        if l >= 16 {
            self.0.blocks::<S, 8, 2>(simd);
        } else if l >= 8 {
            self.0.blocks::<S, 6, 2>(simd);
        } else {
            self.0.blocks::<S, 4, 4>(simd);
        }
    }
}

/// Positions a task takes in the Winograd products.
const POSITIONS_PER_TASK: usize = 16;

/// [`conv`] for a 3 × 3 kernel by Winograd's transforms (the fused inference path's): fewer
/// multiplies, for the forward product and the input gradient. `w` is `[t][cin][cout]`.
#[allow(clippy::too_many_arguments)]
pub fn conv3x3_winograd(kernels: &KernelSet, tile: WinogradTile, g: Geometry, x: &[f32], cin: usize, w: &[f32], cout: usize, out: &mut [f32]) {
    let sq = g.rows * g.cols;
    let rows = g.positions();
    assert!(x.len() >= rows * cin && out.len() >= rows * cout);
    let wc = WinogradConv::new(tile, cin, cout, w, &vec![0.0; cout], kernels.lanes());
    let shape = Shape { game: "", rows: g.rows, cols: g.cols, planes: cin, policy_planes: 0 };
    out[..rows * cout].par_chunks_mut(POSITIONS_PER_TASK * sq * cout).zip(x[..rows * cin].par_chunks(POSITIONS_PER_TASK * sq * cin)).for_each_init(
        WinogradScratch::default,
        |scratch, (o, xi)| {
            let pass = Pass { kernels, shape: &shape, n: o.len() / (sq * cout) };
            wc.apply(&pass, xi, o, scratch, Then { residual: None, relu: false });
        },
    );
}

struct Forward<'a> {
    g: Geometry,
    taps: usize,
    x: &'a [f32],
    cin: usize,
    w: &'a [f32],
    cout: usize,
    first: usize,
    out: &'a mut [f32],
}

impl RegisterBlocks for Forward<'_> {
    #[inline(always)]
    fn blocks<S: Simd, const R: usize, const NV: usize>(self, simd: S) {
        let rows = self.out.len() / self.cout;
        let mut r = 0;
        while r + R <= rows {
            self.rows::<S, R, NV>(simd, r);
            r += R;
        }
        while r < rows {
            self.rows::<S, 1, NV>(simd, r);
            r += 1;
        }
    }
}

impl Forward<'_> {
    /// Output rows `r .. r + R` of this task, every column.
    #[inline(always)]
    fn rows<S: Simd, const R: usize, const NV: usize>(&self, simd: S, r: usize) {
        let (cin, cout, l) = (self.cin, self.cout, S::F32_LANES);
        let vectors = cout / l;
        // Each tap's source row for each output row: a row of x, or the zero row.
        let mut src = [[ZEROS.as_ptr(); R]; 9];
        for (t, taps) in src.iter_mut().take(self.taps).enumerate() {
            for (i, s) in taps.iter_mut().enumerate() {
                if let Some(q) = self.g.neighbour(self.first + r + i, t, self.taps) {
                    *s = self.x[q * cin..(q + 1) * cin].as_ptr();
                }
            }
        }
        let out = self.out.as_ptr() as *mut f32;
        let mut v = 0;
        // SAFETY: every source row holds `cin` floats (a row of x or the zero row), the weights
        // `9 · cin · cout`, and rows `r .. r + R` of this task's output `cout` each (asserted by
        // `conv3x3` and the chunking).
        unsafe {
            while v + NV <= vectors {
                let acc = taps::<S, R, NV>(simd, &src[..self.taps], cin, self.w.as_ptr().add(v * l), cout);
                for (i, row) in acc.iter().enumerate() {
                    for (k, a) in row.iter().enumerate() {
                        store::<S>(out.add((r + i) * cout + (v + k) * l), *a);
                    }
                }
                v += NV;
            }
            while v < vectors {
                let acc = taps::<S, R, 1>(simd, &src[..self.taps], cin, self.w.as_ptr().add(v * l), cout);
                for (i, row) in acc.iter().enumerate() {
                    store::<S>(out.add((r + i) * cout + v * l), row[0]);
                }
                v += 1;
            }
        }
    }
}

/// `Σ_t src[t][i] · w[t][·][NV vectors]` for `R` rows, in registers.
///
/// # Safety
/// Each `src[t][i]` points to `cin` floats; `w` to `src.len() · cin` rows `ldw` apart of `NV`
/// vectors.
#[inline(always)]
unsafe fn taps<S: Simd, const R: usize, const NV: usize>(simd: S, src: &[[*const f32; R]], cin: usize, w: *const f32, ldw: usize) -> [[S::f32s; NV]; R] {
    let l = S::F32_LANES;
    let zero = simd.splat_f32s(0.0);
    let mut acc = [[zero; NV]; R];
    unsafe {
        for (t, rows) in src.iter().enumerate() {
            let wt = w.add(t * cin * ldw);
            for c in 0..cin {
                let mut wv = [zero; NV];
                for (k, x) in wv.iter_mut().enumerate() {
                    *x = load::<S>(wt.add(c * ldw + k * l));
                }
                for (i, row) in acc.iter_mut().enumerate() {
                    let a = simd.splat_f32s(*rows[i].add(c));
                    for (x, wk) in row.iter_mut().zip(&wv) {
                        *x = simd.mul_add_e_f32s(a, *wk, *x);
                    }
                }
            }
        }
    }
    acc
}

/// `dw[t][cin][cout] = Σ_p x[nbr(p, t), cin]ᵀ · dz[p, cout]` over the `taps` taps, channels
/// last; `cout` must be a whole number of `kernels`' vectors.
pub fn conv_weight_grad(kernels: &KernelSet, g: Geometry, taps: usize, x: &[f32], cin: usize, dz: &[f32], cout: usize) -> Vec<f32> {
    let rows = g.positions();
    assert!(cout.is_multiple_of(kernels.lanes()));
    assert!(x.len() >= rows * cin && dz.len() >= rows * cout);
    let threads = rayon::current_num_threads().clamp(1, rows.div_ceil(GRAD_CHUNK).max(1));
    let share = rows.div_ceil(threads);
    let partials: Vec<Vec<f32>> = (0..threads)
        .into_par_iter()
        .map(|t| {
            let mut dw = vec![0.0f32; taps * cin * cout];
            let (start, end) = (t * share, ((t + 1) * share).min(rows));
            let mut p = start;
            while p < end {
                let stop = (p + GRAD_CHUNK).min(end);
                kernels.run(Blocked(WeightGrad { g, taps, x, cin, dz, cout, rows: p..stop, dw: &mut dw }));
                p = stop;
            }
            dw
        })
        .collect();
    let mut it = partials.into_iter();
    let mut dw = it.next().unwrap_or_else(|| vec![0.0; taps * cin * cout]);
    for part in it {
        for (a, b) in dw.iter_mut().zip(part) {
            *a += b;
        }
    }
    dw
}

struct WeightGrad<'a> {
    g: Geometry,
    taps: usize,
    x: &'a [f32],
    cin: usize,
    dz: &'a [f32],
    cout: usize,
    rows: std::ops::Range<usize>,
    dw: &'a mut [f32],
}

impl RegisterBlocks for WeightGrad<'_> {
    #[inline(always)]
    fn blocks<S: Simd, const R: usize, const NV: usize>(self, simd: S) {
        let (cin, cout, l) = (self.cin, self.cout, S::F32_LANES);
        let vectors = cout / l;
        // (output row, source row) pairs of each tap within the chunk, one division a row.
        let mut pairs: [Vec<(usize, usize)>; 9] = std::array::from_fn(|_| Vec::with_capacity(self.rows.len()));
        let sq = self.g.rows * self.g.cols;
        for p in self.rows.clone() {
            let s = p % sq;
            let (i, j) = (s / self.g.cols, s % self.g.cols);
            if self.taps == 1 {
                pairs[0].push((p, p));
                continue;
            }
            for (t, list) in pairs.iter_mut().enumerate() {
                let (y, x) = ((i + t / 3).wrapping_sub(1), (j + t % 3).wrapping_sub(1));
                if y < self.g.rows && x < self.g.cols {
                    list.push((p, p - s + y * self.g.cols + x));
                }
            }
        }
        for (t, pairs) in pairs.iter().take(self.taps).enumerate() {
            let dw = &mut self.dw[t * cin * cout..(t + 1) * cin * cout];
            let mut c = 0;
            while c < cin {
                let r = (cin - c).min(R);
                let mut v = 0;
                while v < vectors {
                    let nv = (vectors - v).min(NV);
                    // SAFETY: rows `c .. c + r` of `dw` and columns `v·l .. (v + nv)·l` are in
                    // bounds; `pairs` holds rows of x and dz.
                    unsafe {
                        match (r == R, nv == NV) {
                            (true, true) => grad_block::<S, R, NV>(simd, pairs, self.x, cin, c, self.dz, cout, v * l, dw),
                            (true, false) => grad_block::<S, R, 1>(simd, pairs, self.x, cin, c, self.dz, cout, v * l, dw),
                            (false, true) => grad_block::<S, 1, NV>(simd, pairs, self.x, cin, c, self.dz, cout, v * l, dw),
                            (false, false) => grad_block::<S, 1, 1>(simd, pairs, self.x, cin, c, self.dz, cout, v * l, dw),
                        }
                    }
                    v += if nv == NV { NV } else { 1 };
                }
                c += if r == R { R } else { 1 };
            }
        }
    }
}

/// `dw[c .. c + R][col .. col + NV vectors] += Σ_pairs x[q, c ..]ᵀ · dz[p, col ..]`.
///
/// # Safety
/// Every pair's rows are rows of `x` (`cin` wide) and `dz` (`cout` wide); `c + R ≤ cin`,
/// `col + NV · lanes ≤ cout`.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
unsafe fn grad_block<S: Simd, const R: usize, const NV: usize>(
    simd: S,
    pairs: &[(usize, usize)],
    x: &[f32],
    cin: usize,
    c: usize,
    dz: &[f32],
    cout: usize,
    col: usize,
    dw: &mut [f32],
) {
    let l = S::F32_LANES;
    let zero = simd.splat_f32s(0.0);
    let mut acc = [[zero; NV]; R];
    let (xp, zp, wp) = (x.as_ptr(), dz.as_ptr(), dw.as_mut_ptr());
    unsafe {
        for &(p, q) in pairs {
            let mut zv = [zero; NV];
            for (k, z) in zv.iter_mut().enumerate() {
                *z = load::<S>(zp.add(p * cout + col + k * l));
            }
            let xr = xp.add(q * cin + c);
            for (i, row) in acc.iter_mut().enumerate() {
                let a = simd.splat_f32s(*xr.add(i));
                for (s, z) in row.iter_mut().zip(&zv) {
                    *s = simd.mul_add_e_f32s(a, *z, *s);
                }
            }
        }
        for (i, row) in acc.iter().enumerate() {
            for (k, s) in row.iter().enumerate() {
                let at = wp.add((c + i) * cout + col + k * l);
                store::<S>(at, simd.add_f32s(load::<S>(at), *s));
            }
        }
    }
}

/// `[cout][cin][k][k]` (burn's layout, `taps` = k²) to `[t][cin][cout]`.
pub fn taps_from_oihw(w: &[f32], taps: usize, cin: usize, cout: usize) -> Vec<f32> {
    let mut out = vec![0.0; taps * cin * cout];
    for o in 0..cout {
        for i in 0..cin {
            for t in 0..taps {
                out[(t * cin + i) * cout + o] = w[(o * cin + i) * taps + t];
            }
        }
    }
    out
}

/// `[cout][cin][k][k]` to the input gradient's kernel: flipped, channels swapped,
/// `[t][cout][cin]` with tap `t` holding the weights of tap `taps − 1 − t`.
pub fn flipped_taps_from_oihw(w: &[f32], taps: usize, cin: usize, cout: usize) -> Vec<f32> {
    let mut out = vec![0.0; taps * cin * cout];
    for o in 0..cout {
        for i in 0..cin {
            for t in 0..taps {
                out[((taps - 1 - t) * cout + o) * cin + i] = w[(o * cin + i) * taps + t];
            }
        }
    }
    out
}

/// `[t][cin][cout]` back to `[cout][cin][k][k]`.
pub fn oihw_from_taps(w: &[f32], taps: usize, cin: usize, cout: usize) -> Vec<f32> {
    let mut out = vec![0.0; taps * cin * cout];
    for o in 0..cout {
        for i in 0..cin {
            for t in 0..taps {
                out[(o * cin + i) * taps + t] = w[(t * cin + i) * cout + o];
            }
        }
    }
    out
}
