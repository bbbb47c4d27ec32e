//! `junglezero bench ...`: benchmarks that print figures. The generic ones run for the game
//! the config names; the endgame tables' and the alpha-beta engine's are Jungle's (`jungle/`).

use std::io::Write;
use std::time::Instant;

use crate::config::Config;
use crate::entries::HouseGame;
use crate::pipeline::RunGame;

use super::bench_game::BenchGame;
use crate::cli::{BenchCommand, ConfigArgs};

pub fn run(cmd: BenchCommand) -> anyhow::Result<()> {
    match cmd {
        BenchCommand::Perft { depth, runs, rules, moves } => {
            // No config flags: the default config's game and rules, with --rules over them.
            let c = Config::default();
            crate::with_game!(c.game, G => bench_perft::<G>(depth, runs, rules, moves, &c))
        }
        BenchCommand::Mcts { sims, runs, config } => {
            let c = super::load_config(&config)?;
            crate::with_game!(c.game, G => bench_mcts::<G>(sims, runs, &c))
        }
        BenchCommand::Search { depth, hash_mb } => super::jungle::bench_search::run(depth, hash_mb),
        BenchCommand::Nn { max_batch, threads, seconds, config } => {
            let c = super::load_config(&config)?;
            crate::with_game!(c.game, G => super::bench_nn::nn::<G>(max_batch, threads, seconds, &c))
        }
        BenchCommand::Selfplay { seconds, config } => {
            let c = super::load_config(&config)?;
            crate::with_game!(c.game, G => super::bench_nn::selfplay::<G>(seconds, &c))
        }
        BenchCommand::Train { steps, agree, config } => {
            let c = super::load_config(&config)?;
            match agree {
                Some(steps) => crate::with_game!(c.game, G => super::bench_nn::train_agree::<G>(steps, &c)),
                None => crate::with_game!(c.game, G => super::bench_nn::train::<G>(steps, &c)),
            }
        }
        BenchCommand::Agree { positions, batch, model, half_reference, config } => {
            let c = super::load_config(&config)?;
            crate::with_game!(c.game, G => super::bench_agree::run::<G>(positions, batch, model.as_deref(), half_reference, &c))
        }
        BenchCommand::Gate { draws, trials, config } => bench_gate(draws, trials, &config),
        BenchCommand::Player { model, sims, combos, tactics, config } => {
            let c = super::load_config(&config)?;
            crate::with_game!(c.game, G => super::bench_player::run::<G>(&model, sims, &combos, tactics, &c))
        }
        BenchCommand::Levels { elo, games, depths, opponents, out, force, concurrency, seed, config } => {
            let c = super::load_config(&config)?;
            let plan = super::bench_levels::Plan { elos: elo, games, depths, opponents: opponents as usize, dir: out, force, concurrency, seed };
            crate::with_game!(c.game, G => super::bench_levels::run::<G>(&plan, &c))
        }
        BenchCommand::Tb { tb, positions, depth, min_plies, config } => super::jungle::bench_tb::run(&tb, positions, depth, min_plies, &config),
        BenchCommand::Races { tb, model, sims, positions, min_plies, tactics, config } => {
            super::jungle::bench_races::run(&tb, &model, sims, positions, min_plies, tactics, &config)
        }
    }
}

/// MCTS without a network from every bench position at once (see `mcts::bench`).
fn bench_mcts<G: BenchGame>(sims: u32, runs: u32, config: &Config) -> anyhow::Result<()> {
    let roots = G::bench_roots(&<G as RunGame>::rules(config))?;
    let mut out = std::io::stdout().lock();
    let mut best = 0f64;
    let mut last = None;
    for run in 1..=runs.max(1) {
        let r = crate::mcts::bench::run(&roots, &config.mcts, sims);
        best = best.max(r.per_second());
        writeln!(out, "run {run} simulations {} time {:.3} sims/s {:.0} signature {:016x}", r.simulations, r.seconds, r.per_second(), r.signature)?;
        last = Some(r);
    }
    if let Some(r) = last {
        writeln!(out, "bench mcts positions {} sims {sims} simulations {} best sims/s {best:.0} signature {:016x}", roots.len(), r.simulations, r.signature)?;
    }
    Ok(())
}

/// Perft from the start position (after `moves`, under `rules` over `config`'s) on this thread,
/// `runs` times; the best run is the figure.
fn bench_perft<G: HouseGame>(depth: u32, runs: u32, rules: Option<String>, moves: Option<String>, config: &Config) -> anyhow::Result<()> {
    let position = crate::cli::PositionArgs { fen: None, rules, moves };
    let rules = super::rules_from_args::<G>(&position, config)?;
    let game = super::game_from_args::<G>(&position, &rules)?;
    let mut out = std::io::stdout().lock();
    let mut best = f64::INFINITY;
    let mut nodes = 0;
    for run in 1..=runs.max(1) {
        let start = Instant::now();
        nodes = game.perft(depth);
        let secs = start.elapsed().as_secs_f64();
        best = best.min(secs);
        writeln!(out, "run {run} perft {depth} nodes {nodes} time {secs:.3} nps {}", super::perft::rate(nodes, secs))?;
    }
    writeln!(out, "bench perft depth {depth} nodes {nodes} best {best:.3} s leaves/s {}", super::perft::rate(nodes, best))?;
    Ok(())
}

/// The gate's operating curve: promotion probability against the true Elo difference.
fn bench_gate(draws: f64, trials: u32, args: &ConfigArgs) -> anyhow::Result<()> {
    use crate::arena::gate_curve::{best_case_llr, promotion_curve};
    let config = super::load_config(args)?;
    let g = &config.gate;
    let mut out = std::io::stdout().lock();
    let (lo, hi) = g.sprt().bounds();
    writeln!(
        out,
        "gate: enabled {} max_games {} SPRT elo0 {} elo1 {} alpha {} beta {} (LLR bounds {lo:.2} / {hi:.2}), undecided: accept at score >= {}",
        g.enabled, g.max_games, g.elo0, g.elo1, g.alpha, g.beta, g.undecided_min_score
    )?;
    writeln!(
        out,
        "best-case LLR within max_games: {:.2} ({})",
        best_case_llr(g),
        if best_case_llr(g) >= hi { "the SPRT can accept" } else { "the SPRT can never accept H1" }
    )?;
    writeln!(out, "simulated: {trials} matches per point, draw ratio {draws}")?;
    writeln!(out, "{:>8} {:>10} {:>14} {:>10}", "elo", "P(promote)", "P(by SPRT H1)", "games")?;
    let elos = [-200.0, -100.0, -50.0, -25.0, 0.0, 25.0, 50.0, 100.0, 200.0];
    for p in promotion_curve(g, &elos, draws, trials, 1) {
        writeln!(out, "{:>8.0} {:>10.3} {:>14.3} {:>10.1}", p.elo, p.promote, p.promote_by_sprt, p.games)?;
    }
    Ok(())
}
