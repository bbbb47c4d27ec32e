//! Winograd 3 × 3 convolutions for the fused CPU path (Lavin and Gray, "Fast Algorithms for
//! Convolutional Neural Networks", 2015).
//!
//! F(m × m, 3 × 3) computes an m × m block of outputs from an (m + 2) × (m + 2) block of inputs
//! with (m + 2)² multiplies per input–output channel pair where the direct convolution needs
//! 9 m². The board is cut into m × m output tiles (zero padding past its edge); each tile's
//! inputs are transformed (`Bᵀ d B`), each of the (m + 2)² points is one matrix product of
//! tiles × input channels by input channels × output channels with the transformed weights
//! (`G g Gᵀ`, computed once when the network is loaded), and each tile's products are
//! transformed back (`Aᵀ M A`) with the bias, the residual and ReLU applied on the way out.
//!
//! On Jungle's 9 × 7 board F(4 × 4) takes 6 tiles of 36 points (216 multiplies per channel pair
//! against 567 direct), F(2 × 2) 20 tiles of 16 (320); on the flip game's 4 × 4 board F(4 × 4)
//! is one tile. Tiles are processed in groups so the transformed inputs and products stay in
//! the core's cache.

use std::mem::MaybeUninit;

use pulp::{Simd, WithSimd};

use super::kernels::{KernelSet, Mat, MatMut, load, matmul, store};
use crate::game::Shape;

/// The output tile of the transform.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WinogradTile {
    /// F(2 × 2, 3 × 3): 16 points a tile.
    F2,
    /// F(4 × 4, 3 × 3): 36 points a tile.
    F4,
}

/// F(m, 3) in one dimension: the input transform `Bᵀ d` (A points), the output transform `Aᵀ p`
/// (M outputs, in the first M places), and the kernel transform `G` in double precision.
/// The two-dimensional transforms apply them along columns, then rows. Arrays are 6 wide, the
/// most points of a tile; F(2 × 2) leaves the last two unused.
trait Transform {
    const M: usize;
    const A: usize;
    /// `G`: A × 3.
    const G: [[f64; 3]; 6];
    fn input<S: Simd>(simd: S, d: [S::f32s; 6]) -> [S::f32s; 6];
    fn output<S: Simd>(simd: S, p: [S::f32s; 6]) -> [S::f32s; 4];
}

struct F2;
struct F4;

impl Transform for F2 {
    const M: usize = 2;
    const A: usize = 4;
    const G: [[f64; 3]; 6] = [[1.0, 0.0, 0.0], [0.5, 0.5, 0.5], [0.5, -0.5, 0.5], [0.0, 0.0, 1.0], [0.0; 3], [0.0; 3]];

    /// Bᵀ = [1 0 −1 0; 0 1 1 0; 0 −1 1 0; 0 1 0 −1].
    #[inline(always)]
    fn input<S: Simd>(simd: S, d: [S::f32s; 6]) -> [S::f32s; 6] {
        let z = simd.splat_f32s(0.0);
        [simd.sub_f32s(d[0], d[2]), simd.add_f32s(d[1], d[2]), simd.sub_f32s(d[2], d[1]), simd.sub_f32s(d[1], d[3]), z, z]
    }

    /// Aᵀ = [1 1 1 0; 0 1 −1 −1].
    #[inline(always)]
    fn output<S: Simd>(simd: S, p: [S::f32s; 6]) -> [S::f32s; 4] {
        let z = simd.splat_f32s(0.0);
        [simd.add_f32s(simd.add_f32s(p[0], p[1]), p[2]), simd.sub_f32s(simd.sub_f32s(p[1], p[2]), p[3]), z, z]
    }
}

impl Transform for F4 {
    const M: usize = 4;
    const A: usize = 6;
    // Interpolation points 0, 1, −1, 2, −2 and infinity.
    const G: [[f64; 3]; 6] = [
        [1.0 / 4.0, 0.0, 0.0],
        [-1.0 / 6.0, -1.0 / 6.0, -1.0 / 6.0],
        [-1.0 / 6.0, 1.0 / 6.0, -1.0 / 6.0],
        [1.0 / 24.0, 1.0 / 12.0, 1.0 / 6.0],
        [1.0 / 24.0, -1.0 / 12.0, 1.0 / 6.0],
        [0.0, 0.0, 1.0],
    ];

    /// Bᵀ = [4 0 −5 0 1 0; 0 −4 −4 1 1 0; 0 4 −4 −1 1 0; 0 −2 −1 2 1 0; 0 2 −1 −2 1 0;
    /// 0 4 0 −5 0 1], with its common terms shared.
    #[inline(always)]
    fn input<S: Simd>(simd: S, d: [S::f32s; 6]) -> [S::f32s; 6] {
        let c = |x: f32| simd.splat_f32s(x);
        let fma = |a: S::f32s, b: S::f32s, c: S::f32s| simd.mul_add_e_f32s(a, b, c);
        let (s12, s34) = (simd.add_f32s(d[1], d[2]), simd.add_f32s(d[3], d[4]));
        let (d12, d43) = (simd.sub_f32s(d[1], d[2]), simd.sub_f32s(d[4], d[3]));
        let (d13, d42) = (simd.sub_f32s(d[1], d[3]), simd.sub_f32s(d[4], d[2]));
        [
            fma(c(4.0), d[0], fma(c(-5.0), d[2], d[4])),
            fma(c(-4.0), s12, s34),
            fma(c(4.0), d12, d43),
            fma(c(-2.0), d13, d42),
            fma(c(2.0), d13, d42),
            fma(c(4.0), d[1], fma(c(-5.0), d[3], d[5])),
        ]
    }

    /// Aᵀ = [1 1 1 1 1 0; 0 1 −1 2 −2 0; 0 1 1 4 4 0; 0 1 −1 8 −8 1], with its common terms
    /// shared.
    #[inline(always)]
    fn output<S: Simd>(simd: S, p: [S::f32s; 6]) -> [S::f32s; 4] {
        let c = |x: f32| simd.splat_f32s(x);
        let fma = |a: S::f32s, b: S::f32s, c: S::f32s| simd.mul_add_e_f32s(a, b, c);
        let (s12, d12) = (simd.add_f32s(p[1], p[2]), simd.sub_f32s(p[1], p[2]));
        let (s34, d34) = (simd.add_f32s(p[3], p[4]), simd.sub_f32s(p[3], p[4]));
        [simd.add_f32s(simd.add_f32s(p[0], s12), s34), fma(c(2.0), d34, d12), fma(c(4.0), s34, s12), simd.add_f32s(fma(c(8.0), d34, d12), p[5])]
    }
}

/// Tiles transformed and multiplied together: small enough that a group's transformed inputs
/// and products (points × tiles × channels) stay in the core's level-2 cache.
const GROUP: usize = 12;

/// A 3 × 3 convolution's weights in the Winograd domain, channels padded to whole vectors.
#[derive(Clone, Debug)]
pub(crate) struct WinogradConv {
    tile: WinogradTile,
    cin: usize,
    cout: usize,
    cin_pad: usize,
    cout_pad: usize,
    /// `[points][cin_pad][cout_pad]`, zero in the padding.
    u: Vec<f32>,
    /// `cout_pad` biases, zero in the padding.
    bias: Vec<f32>,
}

/// What a forward pass's convolutions share: the instruction set, the board and the positions.
#[derive(Clone, Copy)]
pub(crate) struct Pass<'a> {
    pub kernels: &'a KernelSet,
    pub shape: &'a Shape,
    pub n: usize,
}

/// What follows a convolution's bias: a residual added, then ReLU or not.
#[derive(Clone, Copy)]
pub(crate) struct Then<'r> {
    pub residual: Option<&'r [f32]>,
    pub relu: bool,
}

/// Per-thread space for the transformed inputs and the products of one group.
#[derive(Default)]
pub(crate) struct WinogradScratch {
    v: Vec<f32>,
    m: Vec<f32>,
}

impl WinogradConv {
    /// From a folded 3 × 3 convolution's weights `w[(ky, kx, cin), cout]` and biases, with
    /// channels padded to whole vectors of `lanes` floats.
    pub(crate) fn new(tile: WinogradTile, cin: usize, cout: usize, w: &[f32], b: &[f32], lanes: usize) -> WinogradConv {
        match tile {
            WinogradTile::F2 => Self::build::<F2>(tile, cin, cout, w, b, lanes),
            WinogradTile::F4 => Self::build::<F4>(tile, cin, cout, w, b, lanes),
        }
    }

    fn build<T: Transform>(tile: WinogradTile, cin: usize, cout: usize, w: &[f32], b: &[f32], lanes: usize) -> WinogradConv {
        assert_eq!(w.len(), 9 * cin * cout);
        let (cin_pad, cout_pad) = (cin.next_multiple_of(lanes), cout.next_multiple_of(lanes));
        let a = T::A;
        let mut u = vec![0.0f32; a * a * cin_pad * cout_pad];
        for i in 0..cin {
            for o in 0..cout {
                let g = |ky: usize, kx: usize| w[((ky * 3 + kx) * cin + i) * cout + o] as f64;
                // G g Gᵀ in double precision.
                for p in 0..a {
                    for q in 0..a {
                        let mut s = 0.0f64;
                        for ky in 0..3 {
                            for kx in 0..3 {
                                s += T::G[p][ky] * g(ky, kx) * T::G[q][kx];
                            }
                        }
                        u[((p * a + q) * cin_pad + i) * cout_pad + o] = s as f32;
                    }
                }
            }
        }
        let mut bias = vec![0.0f32; cout_pad];
        bias[..cout].copy_from_slice(&b[..cout]);
        WinogradConv { tile, cin, cout, cin_pad, cout_pad, u, bias }
    }

    /// `out[n·squares, cout] = conv(x[n·squares, cin]) + bias`, then `then` (residual, ReLU),
    /// channels last, computed with the pass's kernels (which must have the lane count the
    /// weights were padded for).
    pub(crate) fn apply(&self, pass: &Pass, x: &[f32], out: &mut [f32], scratch: &mut WinogradScratch, then: Then) {
        let (kernels, shape, n) = (pass.kernels, pass.shape, pass.n);
        let sq = shape.squares();
        assert!(x.len() >= n * sq * self.cin && out.len() >= n * sq * self.cout);
        if let Some(r) = then.residual {
            assert!(r.len() >= n * sq * self.cout);
        }
        let points = match self.tile {
            WinogradTile::F2 => 16,
            WinogradTile::F4 => 36,
        };
        scratch.v.resize(points * GROUP * self.cin_pad, 0.0);
        scratch.m.resize(points * GROUP * self.cout_pad, 0.0);
        let op = Op { conv: self, rows: shape.rows, cols: shape.cols, x, n, out, scratch, then };
        kernels.run(op);
    }
}

struct Op<'a> {
    conv: &'a WinogradConv,
    rows: usize,
    cols: usize,
    x: &'a [f32],
    n: usize,
    out: &'a mut [f32],
    scratch: &'a mut WinogradScratch,
    then: Then<'a>,
}

impl WithSimd for Op<'_> {
    type Output = ();

    #[inline(always)]
    fn with_simd<S: Simd>(self, simd: S) {
        match self.conv.tile {
            WinogradTile::F2 => run::<S, F2, 16>(simd, self),
            WinogradTile::F4 => run::<S, F4, 36>(simd, self),
        }
    }
}

/// The convolution over all tiles, a group at a time. `AA` is the points of a tile (A²).
#[inline(always)]
fn run<S: Simd, T: Transform, const AA: usize>(simd: S, op: Op) {
    let Op { conv, rows, cols, x, n, out, scratch, then } = op;
    let l = S::F32_LANES;
    assert!(AA == T::A * T::A);
    assert!(conv.cin_pad.is_multiple_of(l) && conv.cout_pad.is_multiple_of(l), "weights padded for another kernel set");
    let sq = rows * cols;
    // Every access below stays inside these bounds: tiles only read and write squares of the
    // board, channels stay below cin / cout (a partial vector at the end), and the scratch rows
    // below GROUP.
    assert!(x.len() >= n * sq * conv.cin && out.len() >= n * sq * conv.cout);
    assert!(then.residual.is_none_or(|r| r.len() >= n * sq * conv.cout));
    assert!(scratch.v.len() >= AA * GROUP * conv.cin_pad && scratch.m.len() >= AA * GROUP * conv.cout_pad);
    let (tr, tc) = (rows.div_ceil(T::M), cols.div_ceil(T::M));
    let per = tr * tc;
    let total = n * per;
    let geo = Geometry { rows, cols, tc, per };
    let residual = then.residual.map(|r| r.as_ptr());
    let mut g0 = 0;
    while g0 < total {
        let g = GROUP.min(total - g0);
        for t in 0..g {
            // SAFETY: the asserts above.
            unsafe { input_tile::<S, T, AA>(simd, conv, &geo, x.as_ptr(), g0 + t, scratch.v.as_mut_ptr(), t) };
        }
        for p in 0..AA {
            let a = Mat { data: &scratch.v[p * GROUP * conv.cin_pad..], ld: conv.cin_pad };
            let b = Mat { data: &conv.u[p * conv.cin_pad * conv.cout_pad..(p + 1) * conv.cin_pad * conv.cout_pad], ld: conv.cout_pad };
            let c = MatMut { data: &mut scratch.m[p * GROUP * conv.cout_pad..], ld: conv.cout_pad };
            matmul(simd, g, conv.cout_pad, conv.cin_pad, a, b, c);
        }
        for t in 0..g {
            // SAFETY: the asserts above.
            unsafe { output_tile::<S, T>(simd, conv, &geo, scratch.m.as_ptr(), t, g0 + t, out.as_mut_ptr(), residual, then.relu) };
        }
        g0 += g;
    }
}

/// Where tiles lie on the board.
struct Geometry {
    rows: usize,
    cols: usize,
    /// Tiles across a row of the board.
    tc: usize,
    /// Tiles per position.
    per: usize,
}

impl Geometry {
    /// Position, first board row and first board column of tile `index`.
    #[inline(always)]
    fn tile(&self, index: usize, m: usize) -> (usize, usize, usize) {
        let (b, rem) = (index / self.per, index % self.per);
        (b, (rem / self.tc) * m, (rem % self.tc) * m)
    }
}

/// Channels `c0..c0 + valid` at `p`, zero past `valid`.
///
/// # Safety
/// `p` points to `valid` readable floats, and to a whole vector when `valid` is the lane count.
#[inline(always)]
unsafe fn load_part<S: Simd>(simd: S, p: *const f32, valid: usize) -> S::f32s {
    if valid == S::F32_LANES { unsafe { load::<S>(p) } } else { simd.partial_load_f32s(unsafe { std::slice::from_raw_parts(p, valid) }) }
}

/// Transforms tile `index`'s inputs into row `row` of each point's matrix in `v`.
///
/// # Safety
/// `x` holds the positions' activations and `v` the group's transformed inputs (see `run`).
#[inline(always)]
unsafe fn input_tile<S: Simd, T: Transform, const AA: usize>(
    simd: S,
    conv: &WinogradConv,
    geo: &Geometry,
    x: *const f32,
    index: usize,
    v: *mut f32,
    row: usize,
) {
    let l = S::F32_LANES;
    let a = T::A;
    let (b, y0, x0) = geo.tile(index, T::M);
    let zero = simd.splat_f32s(0.0);
    let cin = conv.cin;
    // Where each input square of the tile starts in `x`, or none off the board.
    let at: [usize; AA] = std::array::from_fn(|k| {
        let (y, xx) = ((y0 + k / a).wrapping_sub(1), (x0 + k % a).wrapping_sub(1));
        if y < geo.rows && xx < geo.cols { ((b * geo.rows + y) * geo.cols + xx) * cin } else { usize::MAX }
    });
    let stride = GROUP * conv.cin_pad;
    let dst = unsafe { v.add(row * conv.cin_pad) };
    let mut c0 = 0;
    while c0 < cin {
        let valid = l.min(cin - c0);
        // Bᵀ d B: the columns of the tile into `t`, then its rows. `t` is written whole
        // (its first A × A places) before it is read, so it is left uninitialised rather than
        // zeroed a tile and a vector at a time.
        let mut t = MaybeUninit::<[S::f32s; 36]>::uninit();
        let tp = t.as_mut_ptr() as *mut S::f32s;
        for j in 0..a {
            let col: [S::f32s; 6] = std::array::from_fn(|i| {
                let k = if i < a { at[i * a + j] } else { usize::MAX };
                if k == usize::MAX { zero } else { unsafe { load_part(simd, x.add(k + c0), valid) } }
            });
            let col = T::input(simd, col);
            for i in 0..a {
                unsafe { tp.add(i * a + j).write(col[i]) };
            }
        }
        for i in 0..a {
            let row = T::input(simd, std::array::from_fn(|j| if j < a { unsafe { tp.add(i * a + j).read() } } else { zero }));
            for j in 0..a {
                unsafe { store::<S>(dst.add((i * a + j) * stride + c0), row[j]) };
            }
        }
        c0 += l;
    }
}

/// Transforms row `row` of each point's products in `m` back into tile `index`'s outputs,
/// with the bias, the residual and ReLU.
///
/// # Safety
/// `m` holds the group's products, `out` and `residual` the positions' activations (see `run`).
#[inline(always)]
#[allow(clippy::too_many_arguments)]
unsafe fn output_tile<S: Simd, T: Transform>(
    simd: S,
    conv: &WinogradConv,
    geo: &Geometry,
    m: *const f32,
    row: usize,
    index: usize,
    out: *mut f32,
    residual: Option<*const f32>,
    relu: bool,
) {
    let l = S::F32_LANES;
    let (a, mm) = (T::A, T::M);
    let (b, y0, x0) = geo.tile(index, mm);
    let zero = simd.splat_f32s(0.0);
    let cout = conv.cout;
    let stride = GROUP * conv.cout_pad;
    let src = unsafe { m.add(row * conv.cout_pad) };
    let (rows_here, cols_here) = (mm.min(geo.rows - y0), mm.min(geo.cols - x0));
    let mut c0 = 0;
    while c0 < cout {
        let valid = l.min(cout - c0);
        // Aᵀ p A: the columns of the products into `t` (M × A, written whole before it is
        // read), then its rows.
        let mut t = MaybeUninit::<[S::f32s; 24]>::uninit();
        let tp = t.as_mut_ptr() as *mut S::f32s;
        for j in 0..a {
            let col: [S::f32s; 6] = std::array::from_fn(|k| if k < a { unsafe { load::<S>(src.add((k * a + j) * stride + c0)) } } else { zero });
            let col = T::output(simd, col);
            for i in 0..mm {
                unsafe { tp.add(i * a + j).write(col[i]) };
            }
        }
        let bias = unsafe { load::<S>(conv.bias.as_ptr().add(c0)) };
        for i in 0..mm {
            let y = T::output(simd, std::array::from_fn(|j| if j < a { unsafe { tp.add(i * a + j).read() } } else { zero }));
            for j in 0..mm {
                if i >= rows_here || j >= cols_here {
                    continue;
                }
                let at = ((b * geo.rows + y0 + i) * geo.cols + x0 + j) * cout + c0;
                let mut s = simd.add_f32s(y[j], bias);
                if let Some(r) = residual {
                    s = simd.add_f32s(s, unsafe { load_part(simd, r.add(at), valid) });
                }
                if relu {
                    s = simd.max_f32s(s, zero);
                }
                if valid == l {
                    unsafe { store::<S>(out.add(at), s) };
                } else {
                    simd.partial_store_f32s(unsafe { std::slice::from_raw_parts_mut(out.add(at), valid) }, s);
                }
            }
        }
        c0 += l;
    }
}
