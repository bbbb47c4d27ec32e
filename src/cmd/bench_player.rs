//! `junglezero bench player --model FILE`: MCTS as the protocol and `play` run it, with the
//! network, over the game's bench positions (Jungle's: the alpha-beta bench positions), for
//! several thread and minibatch counts; with `--tactics N`, each search after the game's root
//! check of N plies (its time included).

use std::io::Write;
use std::sync::Arc;
use std::time::Instant;

use crate::config::Config;
use crate::mcts::MctsPlayer;
use crate::nn::NetEvaluator;
use crate::pipeline::RunGame;
use crate::player::{Limits, Player};
use anyhow::Context;

use super::bench_game::BenchGame;

pub fn run<G: BenchGame>(model: &std::path::Path, sims: u32, combos: &[String], tactics: u32, config: &Config) -> anyhow::Result<()> {
    let rules = <G as RunGame>::rules(config);
    let net = Arc::new(NetEvaluator::load(model, &config.hardware, G::SHAPE).with_context(|| model.display().to_string())?);
    let roots = G::bench_roots(&rules)?;
    let mut out = std::io::stdout().lock();
    let mut base = None;
    for combo in combos {
        let (threads, minibatch) = combo
            .split_once('x')
            .and_then(|(t, m)| Some((t.trim().parse::<usize>().ok()?, m.trim().parse::<usize>().ok()?)))
            .filter(|&(t, m)| (1..=256).contains(&t) && (1..=1024).contains(&m))
            .ok_or_else(|| anyhow::anyhow!("--combos: '{combo}' is not THREADSxMINIBATCH (1-256 x 1-1024)"))?;
        let mcts =
            crate::mcts::MctsConfig { play_threads: threads, play_minibatch: minibatch, play_tree_reuse: false, play_tactics: tactics, ..config.mcts.clone() };
        let mut won = 0;
        let limits = Limits { nodes: Some(u64::from(sims)), ..Limits::default() };
        let mut secs = 0.0;
        let mut agree = 0;
        for root in &roots {
            let mut player = MctsPlayer::<G, _>::new(net.clone(), &mcts, sims).with_tactics(G::root_check(config, &rules, tactics)?);
            let start = Instant::now();
            let best = player.choose(root, &limits, &mut |_| {});
            // A win the check proved is played without a search.
            won += usize::from(player.last_search().is_none());
            secs += start.elapsed().as_secs_f64();
            let mut single = MctsPlayer::<G, _>::new(net.clone(), &crate::mcts::MctsConfig { play_tree_reuse: false, ..config.mcts.clone() }, 64);
            // The same move as a small one-thread search: a sanity check, not a strength test.
            agree += usize::from(best == single.choose(root, &Limits { nodes: Some(64), ..Limits::default() }, &mut |_| {}));
        }
        // Simulations actually run: a root the check won is played without a search.
        let rate = f64::from(sims) * (roots.len() - won) as f64 / secs;
        let base_rate = *base.get_or_insert(rate);
        writeln!(
            out,
            "threads {threads} minibatch {minibatch} positions {} sims {sims} time {secs:.2} sims/s {rate:.0} ({:.2}x) same move as 64 sims {agree}/{}{}",
            roots.len(),
            rate / base_rate,
            roots.len(),
            if tactics > 0 { format!(" check {tactics} plies, wins played unsearched {won}") } else { String::new() }
        )?;
    }
    Ok(())
}
