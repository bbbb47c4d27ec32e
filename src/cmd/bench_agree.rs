//! `junglezero bench agree`: the configured inference path against burn on the CPU, on the
//! same network and positions.

use std::io::Write;

use crate::config::Config;
use crate::entries::HouseGame;
use crate::nn::NetEvaluator;
use crate::pipeline::RunGame;

/// The configured inference path (or, with `half_reference`, the CPU reference of the NVIDIA
/// path's half-precision arithmetic) against burn on the CPU, over `positions` positions of
/// random games of `G`, `batch` at a time. The last line is exactly `agree positions N policy
/// max-diff X value max-diff Y top-move Z %`; exit status 2 beyond half precision's tolerance
/// (`nn::measure::agree::HALF_PRECISION`).
pub fn run<G: HouseGame>(positions: usize, batch: usize, model: Option<&std::path::Path>, half_reference: bool, config: &Config) -> anyhow::Result<()> {
    use crate::nn::infer::cpu::HostOutputs;
    use crate::nn::infer::gpu::plan::{GpuPlan, Precision};
    use crate::nn::measure::agree::{Agreement, HALF_PRECISION};
    let hw_cpu = crate::nn::device::HardwareConfig { device: "flex".into(), fused_cpu: false, ..Default::default() };
    // Without a model, one random network, drawn on the CPU and written to a temporary file, so
    // both paths run the same weights (each device draws random numbers of its own).
    let temporary = std::env::temp_dir().join(format!("junglezero-agree-{}.jzm", std::process::id()));
    let path = match model {
        Some(path) => path,
        None => {
            let net = NetEvaluator::random_init(&config.model, G::SHAPE, &hw_cpu, 7)?;
            let meta = crate::nn::modelfile::fresh_meta(&config.model, G::SHAPE, &<G as RunGame>::rules(config).to_string(), "random-init");
            crate::nn::modelfile::save(&temporary, net.net(), &meta)?;
            &temporary
        }
    };
    // The tested path: the configured device, or the NVIDIA path's arithmetic on the CPU.
    enum Tested {
        Device(NetEvaluator),
        Half(GpuPlan),
    }
    let loaded = NetEvaluator::load(path, &hw_cpu, G::SHAPE).and_then(|r| {
        let tested = if half_reference {
            Tested::Half(GpuPlan::from_fused(&crate::nn::infer::cpu::FusedNet::from_net(r.net())))
        } else {
            Tested::Device(NetEvaluator::load(path, &config.hardware, G::SHAPE)?)
        };
        Ok((r, tested))
    });
    if model.is_none() {
        let _ = std::fs::remove_file(&temporary);
    }
    let (reference, tested) = loaded?;
    let (per, actions) = (G::INPUT_SIZE, G::SHAPE.actions());
    let tested_forward = |inputs: &[f32], n: usize| -> HostOutputs {
        match &tested {
            Tested::Device(t) => t.forward(inputs, n),
            Tested::Half(plan) => {
                // The reference is plain loops on one thread: a few positions on each.
                use rayon::prelude::*;
                let parts: Vec<HostOutputs> = inputs[..n * per].par_chunks(per * 4).map(|x| plan.reference(x, x.len() / per, Precision::Half)).collect();
                let join = |f: fn(&HostOutputs) -> &Vec<f32>| parts.iter().flat_map(|o| f(o).iter().copied()).collect();
                HostOutputs { policy: join(|o| &o.policy), wdl: join(|o| &o.wdl), moves_left: join(|o| &o.moves_left) }
            }
        }
    };
    // Positions of random games from the start (a game that ends starts again).
    let games: Vec<G> = super::bench_game::random_positions::<G>(&<G as RunGame>::rules(config), positions, 2026);
    let mut agreement = Agreement::default();
    let mut out = std::io::stdout().lock();
    let tested_name = match &tested {
        Tested::Device(t) => format!("{} on {}", t.describe(), config.hardware.describe()),
        Tested::Half(_) => "the NVIDIA path's half-precision arithmetic, on the CPU (GpuPlan::reference)".into(),
    };
    writeln!(out, "reference: {} on the CPU through burn; tested: {tested_name}", reference.describe())?;
    for chunk in games.chunks(batch.max(1)) {
        let n = chunk.len();
        let mut inputs = vec![0.0f32; n * per];
        for (g, slot) in chunk.iter().zip(inputs.chunks_exact_mut(per)) {
            g.encode(slot);
        }
        let (a, b) = (reference.forward(&inputs, n), tested_forward(&inputs, n));
        for (i, game) in chunk.iter().enumerate() {
            let legal: Vec<usize> = game.legal_moves().iter().filter_map(|&m| game.try_action(m)).collect();
            agreement.add(&a, &b, i, actions, &legal);
        }
    }
    writeln!(out, "{}", agreement.limits(&HALF_PRECISION))?;
    writeln!(out, "{}", agreement.line())?;
    if !agreement.within(&HALF_PRECISION) {
        anyhow::bail!("the tested path disagrees with burn beyond half precision's tolerance ({})", agreement.limits(&HALF_PRECISION));
    }
    Ok(())
}
