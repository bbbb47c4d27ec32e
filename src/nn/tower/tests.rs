//! The fused training step against plain references: the products against direct sums, and a
//! whole network's gradients against burn's own autodiff on the same weights and batch, on
//! every instruction set this CPU runs.

use burn::module::{Module, ModuleVisitor, Param};
use burn::optim::GradientsParams;
use burn::prelude::*;
use burn::tensor::activation::log_softmax;
use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;

use super::conv::{Geometry, conv, conv_weight_grad, conv3x3_winograd, flipped_taps_from_oihw, taps_from_oihw};
use crate::game::Shape;
use crate::nn::infer::cpu::kernels::{CpuKernels, KernelSet};
use crate::nn::infer::cpu::winograd::WinogradTile;
use crate::nn::model::{ModelConfig, Net};

/// Jungle's board and planes (the tests of this room name no game).
const BOARD: Shape = Shape { game: "test", rows: 9, cols: 7, planes: 32, policy_planes: 8 };

/// Every instruction set this CPU runs.
fn sets() -> Vec<KernelSet> {
    [CpuKernels::Portable, CpuKernels::Avx2, CpuKernels::Avx512].into_iter().filter_map(|k| KernelSet::choose(k).ok()).collect()
}

fn random(n: usize, rng: &mut ChaCha8Rng) -> Vec<f32> {
    (0..n).map(|_| rng.random_range(-1.0f32..1.0)).collect()
}

/// The largest difference relative to the reference's largest magnitude.
fn relative(got: &[f32], want: &[f32]) -> f32 {
    assert_eq!(got.len(), want.len());
    let scale = want.iter().fold(0.0f32, |m, x| m.max(x.abs())).max(1e-12);
    got.iter().zip(want).fold(0.0f32, |m, (a, b)| m.max((a - b).abs())) / scale
}

/// `out[p, o] = Σ_t Σ_i x[nbr(p, t), i] · w[o][i][t]` by direct sums, channels last.
fn direct(g: Geometry, x: &[f32], cin: usize, w: &[f32], cout: usize) -> Vec<f32> {
    let mut out = vec![0.0f32; g.positions() * cout];
    for b in 0..g.n {
        for i in 0..g.rows {
            for j in 0..g.cols {
                let p = (b * g.rows + i) * g.cols + j;
                for t in 0..9 {
                    let (y, z) = (i as isize + (t / 3) as isize - 1, j as isize + (t % 3) as isize - 1);
                    if y < 0 || z < 0 || y >= g.rows as isize || z >= g.cols as isize {
                        continue;
                    }
                    let q = (b * g.rows + y as usize) * g.cols + z as usize;
                    for o in 0..cout {
                        out[p * cout + o] += (0..cin).map(|c| x[q * cin + c] * w[(o * cin + c) * 9 + t]).sum::<f32>();
                    }
                }
            }
        }
    }
    out
}

#[test]
fn the_products_agree_with_direct_sums_on_every_instruction_set() {
    let mut rng = ChaCha8Rng::seed_from_u64(3);
    let g = Geometry { n: 5, rows: 9, cols: 7 };
    // Input widths that are and are not whole vectors; output widths whole vectors of 16.
    for (cin, cout) in [(32, 32), (13, 16), (48, 32)] {
        let x = random(g.positions() * cin, &mut rng);
        let w = random(9 * cin * cout, &mut rng);
        let want = direct(g, &x, cin, &w, cout);
        let dz = random(g.positions() * cout, &mut rng);
        // The weight gradient by direct sums: dw[o][i][t] = Σ_p x[nbr(p, t), i] · dz[p, o],
        // read off the direct convolution of unit kernels.
        let mut want_dw = vec![0.0f32; 9 * cin * cout];
        for o in 0..cout {
            for c in 0..cin {
                for t in 0..9 {
                    let mut unit = vec![0.0f32; 9 * cin];
                    unit[c * 9 + t] = 1.0;
                    let col = direct(g, &x, cin, &unit, 1);
                    want_dw[(t * cin + c) * cout + o] = (0..g.positions()).map(|p| col[p] * dz[p * cout + o]).sum();
                }
            }
        }
        for k in sets() {
            let mut got = vec![0.0f32; g.positions() * cout];
            conv(&k, g, 9, &x, cin, &taps_from_oihw(&w, 9, cin, cout), cout, &mut got);
            assert!(relative(&got, &want) < 1e-5, "{} forward {cin}->{cout}: {}", k.name(), relative(&got, &want));
            for tile in [WinogradTile::F2, WinogradTile::F4] {
                let mut got = vec![0.0f32; g.positions() * cout];
                conv3x3_winograd(&k, tile, g, &x, cin, &taps_from_oihw(&w, 9, cin, cout), cout, &mut got);
                assert!(relative(&got, &want) < 1e-5, "{} {tile:?} forward {cin}->{cout}: {}", k.name(), relative(&got, &want));
            }
            let dw = conv_weight_grad(&k, g, 9, &x, cin, &dz, cout);
            assert!(relative(&dw, &want_dw) < 1e-5, "{} weight gradient {cin}->{cout}: {}", k.name(), relative(&dw, &want_dw));
            // The input gradient is the transposed product: <conv(x), dz> = <x, conv_flipped(dz)>.
            if super::conv::fits(&k, &[cin]) {
                let mut dx = vec![0.0f32; g.positions() * cin];
                conv(&k, g, 9, &dz, cout, &flipped_taps_from_oihw(&w, 9, cin, cout), cin, &mut dx);
                let lhs: f64 = want.iter().zip(&dz).map(|(a, b)| (*a as f64) * (*b as f64)).sum();
                let rhs: f64 = x.iter().zip(&dx).map(|(a, b)| (*a as f64) * (*b as f64)).sum();
                assert!((lhs - rhs).abs() <= 1e-4 * lhs.abs().max(1.0), "{} input gradient {cin}->{cout}: {lhs} vs {rhs}", k.name());
            }
        }
    }
}

/// Every parameter's gradient, in the module's order.
fn gradients(net: &Net, grads: &GradientsParams) -> Vec<(usize, Vec<f32>)> {
    struct Collect<'a> {
        grads: &'a GradientsParams,
        out: Vec<(usize, Vec<f32>)>,
    }
    impl ModuleVisitor for Collect<'_> {
        fn visit_float<const D: usize>(&mut self, param: &Param<Tensor<D>>) {
            let i = self.out.len();
            let g = self.grads.get::<D>(param.id).map(|g| g.into_data().iter::<f32>().collect()).unwrap_or_default();
            self.out.push((i, g));
        }
    }
    let mut c = Collect { grads, out: Vec::new() };
    net.visit(&mut c);
    c.out
}

/// Policy and value cross-entropies of `net` on a random batch, through the fused tower of
/// `tower` or burn's; the loss's gradients and the outputs.
fn loss_gradients(net: &Net, tower: Option<KernelSet>, n: usize, seed: u64) -> (Vec<(usize, Vec<f32>)>, Vec<f32>) {
    let device = net.devices()[0].clone();
    let shape = net.shape();
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let x: Vec<f32> = (0..n * shape.input_size()).map(|_| if rng.random_bool(0.2) { 1.0 } else { 0.0 }).collect();
    let x = Tensor::<4>::from_data(TensorData::new(x, [n, shape.planes, shape.rows, shape.cols]), &device);
    let targets = |k: usize, rng: &mut ChaCha8Rng| {
        let v: Vec<f32> = (0..n * k).map(|_| rng.random_range(0.0f32..1.0)).collect();
        let t = Tensor::<2>::from_data(TensorData::new(v, [n, k]), &device);
        t.clone() / t.sum_dim(1)
    };
    let (pt, vt) = (targets(shape.actions(), &mut rng), targets(3, &mut rng));
    let out = net.forward_with(x, tower);
    let logits = out.policy.clone().into_data().iter::<f32>().collect();
    let mut loss = (log_softmax(out.policy, 1) * pt).sum_dim(1).mean().neg() - (log_softmax(out.wdl, 1) * vt).sum_dim(1).mean();
    for head in [out.moves_left, out.opponent_policy, out.short_value].into_iter().flatten() {
        loss = loss + head.mean();
    }
    (gradients(net, &GradientsParams::from_grads(loss.backward(), net)), logits)
}

/// Every gradient of the fused path within `tolerance` (relative to the largest entry of the
/// parameter's gradient) of burn's, on every instruction set.
fn gradients_agree(model: &ModelConfig, n: usize, tolerance: f32) {
    let device = Device::flex().autodiff();
    for k in sets() {
        let burn_net = model.init_seeded(BOARD, &device, 11);
        let fused_net = model.init_seeded(BOARD, &device, 11);
        let (want, want_out) = loss_gradients(&burn_net, None, n, 5);
        let (got, got_out) = loss_gradients(&fused_net, Some(k), n, 5);
        assert!(relative(&got_out, &want_out) < tolerance, "{} {}: outputs differ by {}", model.describe(), k.name(), relative(&got_out, &want_out));
        assert_eq!(got.len(), want.len());
        let mut compared = 0;
        for ((i, g), (_, w)) in got.iter().zip(&want) {
            // Running statistics have no gradient on either path.
            if w.is_empty() {
                assert!(g.is_empty(), "{} parameter {i}: a gradient on the fused path alone", model.describe());
                continue;
            }
            compared += 1;
            assert!(g.len() == w.len(), "{} parameter {i}: {} gradients against {}", model.describe(), g.len(), w.len());
            let r = relative(g, w);
            assert!(r <= tolerance, "{} on {}: parameter {i}'s gradient differs by {r:e}", model.describe(), k.name());
        }
        // Every parameter but the batch norms' two running statistics has a gradient.
        let norms = 1 + 2 * model.blocks + 2 + usize::from(model.moves_left);
        assert_eq!(compared, got.len() - 2 * norms, "{}: every trainable parameter has a gradient", model.describe());
        // The running statistics are updated as burn's layer updates them.
        let probe = Tensor::<4>::ones([2, BOARD.planes, BOARD.rows, BOARD.cols], &Device::flex());
        let a = burn_net.valid().forward(probe.clone()).policy.into_data().iter::<f32>().collect::<Vec<f32>>();
        let b = fused_net.valid().forward(probe).policy.into_data().iter::<f32>().collect::<Vec<f32>>();
        assert!(relative(&b, &a) < tolerance, "{}: running statistics differ ({})", k.name(), relative(&b, &a));
    }
}

#[test]
fn the_default_networks_gradients_match_burns() {
    gradients_agree(&ModelConfig::default(), 16, 1e-4);
}

#[test]
fn a_network_with_every_head_has_burns_gradients() {
    let model = ModelConfig {
        blocks: 2,
        channels: 24,
        policy_channels: 8,
        value_channels: 3,
        value_hidden: 16,
        moves_left: true,
        opponent_policy: true,
        short_value: true,
    };
    gradients_agree(&model, 8, 1e-4);
}

#[test]
fn channel_counts_that_are_not_whole_vectors_take_a_narrower_set() {
    // 12 tower channels (no set's whole vectors but the portable) into a 16-channel policy head.
    let model = ModelConfig { blocks: 1, channels: 12, policy_channels: 16, value_channels: 16, value_hidden: 8, ..ModelConfig::default() };
    gradients_agree(&model, 4, 1e-4);
}

#[test]
fn the_gpu_sized_networks_gradients_match_burns() {
    gradients_agree(&ModelConfig::gpu_sized(), 4, 1e-4);
}
