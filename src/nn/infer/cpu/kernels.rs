//! The instruction sets the fused CPU path runs on, chosen when a network is loaded, and the one
//! matrix product it needs (small `m × k` by `k × n` products with `k` and `n` the channels).
//!
//! The kernels are written once over pulp's `Simd` trait (the SIMD layer the `gemm` crate is
//! built on) and instantiated for AVX-512, AVX2 + FMA and plain scalar code; pulp checks the CPU
//! when a set is asked for. `hardware.cpu_kernels` forces one set (every set the CPU runs can be
//! forced, so each is tested on any machine that has it); the default takes the widest.

use pulp::{Simd, WithSimd};
use serde::{Deserialize, Serialize};

/// `hardware.cpu_kernels`: which instruction set the fused CPU path uses.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum CpuKernels {
    /// The widest set this CPU runs.
    #[default]
    Auto,
    /// AVX-512F (x86-64-v4).
    Avx512,
    /// AVX2 with FMA (x86-64-v3).
    Avx2,
    /// Scalar code the compiler vectorises for the build's baseline: runs everywhere.
    Portable,
}

impl CpuKernels {
    pub const NAMES: &'static str = "auto, avx512, avx2, portable";
}

/// An instruction set this CPU has been checked to run.
#[derive(Clone, Copy, Debug)]
pub enum KernelSet {
    #[cfg(target_arch = "x86_64")]
    Avx512(pulp::x86::V4),
    #[cfg(target_arch = "x86_64")]
    Avx2(pulp::x86::V3),
    Portable,
}

impl KernelSet {
    /// The widest set this CPU runs.
    pub fn detect() -> KernelSet {
        #[cfg(target_arch = "x86_64")]
        {
            if let Some(v4) = pulp::x86::V4::try_new() {
                return KernelSet::Avx512(v4);
            }
            if let Some(v3) = pulp::x86::V3::try_new() {
                return KernelSet::Avx2(v3);
            }
        }
        KernelSet::Portable
    }

    /// The set `want` names, or why this CPU cannot run it.
    pub fn choose(want: CpuKernels) -> Result<KernelSet, String> {
        let missing = |name: &str| format!("this CPU has no {name} (it runs: {})", KernelSet::detect().available());
        match want {
            CpuKernels::Auto => Ok(KernelSet::detect()),
            CpuKernels::Portable => Ok(KernelSet::Portable),
            #[cfg(target_arch = "x86_64")]
            CpuKernels::Avx512 => pulp::x86::V4::try_new().map(KernelSet::Avx512).ok_or_else(|| missing("AVX-512F")),
            #[cfg(target_arch = "x86_64")]
            CpuKernels::Avx2 => pulp::x86::V3::try_new().map(KernelSet::Avx2).ok_or_else(|| missing("AVX2 and FMA")),
            #[cfg(not(target_arch = "x86_64"))]
            CpuKernels::Avx512 | CpuKernels::Avx2 => Err(missing("x86-64 vector extensions")),
        }
    }

    /// The sets this CPU runs, widest first, as `hardware.cpu_kernels` names them.
    pub fn available(&self) -> String {
        let _ = self;
        let mut names = Vec::new();
        #[cfg(target_arch = "x86_64")]
        {
            if pulp::x86::V4::try_new().is_some() {
                names.push("avx512");
            }
            if pulp::x86::V3::try_new().is_some() {
                names.push("avx2");
            }
        }
        names.push("portable");
        names.join(", ")
    }

    /// The set's name for logs and benchmarks.
    pub fn name(&self) -> &'static str {
        match self {
            #[cfg(target_arch = "x86_64")]
            KernelSet::Avx512(_) => "avx512 (16 f32 lanes, FMA)",
            #[cfg(target_arch = "x86_64")]
            KernelSet::Avx2(_) => "avx2 (8 f32 lanes, FMA)",
            KernelSet::Portable => "portable (scalar)",
        }
    }

    /// Floats in one of the set's vectors.
    pub fn lanes(&self) -> usize {
        match self {
            #[cfg(target_arch = "x86_64")]
            KernelSet::Avx512(_) => 16,
            #[cfg(target_arch = "x86_64")]
            KernelSet::Avx2(_) => 8,
            KernelSet::Portable => 1,
        }
    }

    /// Runs `op` compiled for this set.
    #[inline]
    pub fn run<Op: WithSimd>(&self, op: Op) -> Op::Output {
        match *self {
            #[cfg(target_arch = "x86_64")]
            KernelSet::Avx512(s) => Simd::vectorize(s, op),
            #[cfg(target_arch = "x86_64")]
            KernelSet::Avx2(s) => Simd::vectorize(s, op),
            KernelSet::Portable => Simd::vectorize(pulp::Scalar::new(), op),
        }
    }
}

/// One vector from `p` (any alignment).
///
/// # Safety
/// `p` must point to `S::F32_LANES` readable floats.
#[inline(always)]
pub(crate) unsafe fn load<S: Simd>(p: *const f32) -> S::f32s {
    unsafe { std::ptr::read_unaligned(p as *const S::f32s) }
}

/// One vector to `p` (any alignment).
///
/// # Safety
/// `p` must point to `S::F32_LANES` writable floats.
#[inline(always)]
pub(crate) unsafe fn store<S: Simd>(p: *mut f32, v: S::f32s) {
    unsafe { std::ptr::write_unaligned(p as *mut S::f32s, v) }
}

/// A row-major matrix in a slice, rows `ld` floats apart.
#[derive(Clone, Copy)]
pub(super) struct Mat<'a> {
    pub data: &'a [f32],
    pub ld: usize,
}

/// A row-major matrix to write, rows `ld` floats apart.
pub(super) struct MatMut<'a> {
    pub data: &'a mut [f32],
    pub ld: usize,
}

/// `c[m × n] = a[m × k] · b[k × n]`, all row-major. `n` must be a whole number of vectors of
/// `simd` (callers pad the channels).
#[inline(always)]
pub(super) fn matmul<S: Simd>(simd: S, m: usize, n: usize, k: usize, a: Mat, b: Mat, c: MatMut) {
    let (c, ldc) = (c.data, c.ld);
    let l = S::F32_LANES;
    assert!(n.is_multiple_of(l), "{n} columns are not whole vectors of {l}");
    if m == 0 || n == 0 {
        return;
    }
    assert!(a.ld >= k && b.ld >= n && ldc >= n);
    assert!(a.data.len() >= (m - 1) * a.ld + k && b.data.len() >= (k.max(1) - 1) * b.ld + n && c.len() >= (m - 1) * ldc + n);
    // Register blocks: rows × vectors of accumulators, sized to the registers of each set
    // (16 of 8 lanes for AVX2, 32 of 16 lanes for AVX-512).
    let (ap, bp, cp) = (a.data.as_ptr(), b.data.as_ptr(), c.as_mut_ptr());
    // SAFETY: the asserts above bound every row and column the blocks touch.
    unsafe {
        if l >= 16 {
            blocks::<S, 8, 2>(simd, m, n, k, ap, a.ld, bp, b.ld, cp, ldc);
        } else if l >= 8 {
            blocks::<S, 6, 2>(simd, m, n, k, ap, a.ld, bp, b.ld, cp, ldc);
        } else {
            blocks::<S, 4, 4>(simd, m, n, k, ap, a.ld, bp, b.ld, cp, ldc);
        }
    }
}

/// Tiles `c` with `R × NV`-vector blocks, then the leftover rows one at a time and the leftover
/// vectors one at a time.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
unsafe fn blocks<S: Simd, const R: usize, const NV: usize>(
    simd: S,
    m: usize,
    n: usize,
    k: usize,
    a: *const f32,
    lda: usize,
    b: *const f32,
    ldb: usize,
    c: *mut f32,
    ldc: usize,
) {
    let l = S::F32_LANES;
    let vectors = n / l;
    let full = vectors / NV * NV;
    let mut r = 0;
    unsafe {
        while r + R <= m {
            let mut v = 0;
            while v < full {
                block::<S, R, NV>(simd, k, a.add(r * lda), lda, b.add(v * l), ldb, c.add(r * ldc + v * l), ldc);
                v += NV;
            }
            while v < vectors {
                block::<S, R, 1>(simd, k, a.add(r * lda), lda, b.add(v * l), ldb, c.add(r * ldc + v * l), ldc);
                v += 1;
            }
            r += R;
        }
        while r < m {
            let mut v = 0;
            while v < full {
                block::<S, 1, NV>(simd, k, a.add(r * lda), lda, b.add(v * l), ldb, c.add(r * ldc + v * l), ldc);
                v += NV;
            }
            while v < vectors {
                block::<S, 1, 1>(simd, k, a.add(r * lda), lda, b.add(v * l), ldb, c.add(r * ldc + v * l), ldc);
                v += 1;
            }
            r += 1;
        }
    }
}

/// `c[R × NV vectors] = a[R × k] · b[k × NV vectors]` in registers.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
unsafe fn block<S: Simd, const R: usize, const NV: usize>(simd: S, k: usize, a: *const f32, lda: usize, b: *const f32, ldb: usize, c: *mut f32, ldc: usize) {
    let l = S::F32_LANES;
    let zero = simd.splat_f32s(0.0);
    let mut acc = [[zero; NV]; R];
    unsafe {
        for p in 0..k {
            let mut bv = [zero; NV];
            for (v, x) in bv.iter_mut().enumerate() {
                *x = load::<S>(b.add(p * ldb + v * l));
            }
            for (r, row) in acc.iter_mut().enumerate() {
                let av = simd.splat_f32s(*a.add(r * lda + p));
                for (x, bx) in row.iter_mut().zip(&bv) {
                    *x = simd.mul_add_e_f32s(av, *bx, *x);
                }
            }
        }
        for (r, row) in acc.iter().enumerate() {
            for (v, x) in row.iter().enumerate() {
                store::<S>(c.add(r * ldc + v * l), *x);
            }
        }
    }
}

/// `c[m × n] = a[m × k] · b[k × n]` on `kernels` when `n` is a whole number of the set's
/// vectors, and `true`; `false`, with nothing written, otherwise (the caller takes another
/// path).
pub(super) fn product(kernels: &KernelSet, m: usize, n: usize, k: usize, a: Mat, b: Mat, c: MatMut) -> bool {
    struct Op<'a> {
        m: usize,
        n: usize,
        k: usize,
        a: Mat<'a>,
        b: Mat<'a>,
        c: MatMut<'a>,
    }
    impl WithSimd for Op<'_> {
        type Output = bool;

        #[inline(always)]
        fn with_simd<S: Simd>(self, simd: S) -> bool {
            if !self.n.is_multiple_of(S::F32_LANES) {
                return false;
            }
            matmul(simd, self.m, self.n, self.k, self.a, self.b, self.c);
            true
        }
    }
    kernels.run(Op { m, n, k, a, b, c })
}
