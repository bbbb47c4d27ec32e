//! `junglezero bench races --tb DIR --model FILE`: den races the network must search out. On
//! endgame positions the tables know to be long wins for the side to move, MCTS with the network
//! (and without the tables) chooses a move without its solver, with it (`mcts.play_solver`),
//! and with it after the alpha-beta root check (`mcts.play_tactics`); the tables then judge it:
//! whether it keeps the win, whether it is a fastest win, and how many searches proved the win
//! at the root.

use std::io::Write;
use std::sync::Arc;
use std::time::Instant;

use crate::alphabeta::Eval;
use crate::entries::jungle::tactics::AlphaBetaTactics;
use crate::game::Encode;
use crate::jungle::JungleGame;
use crate::mcts::{MctsConfig, MctsPlayer};
use crate::nn::NetEvaluator;
use crate::pipeline::RunGame;
use crate::player::{Limits, Player};
use crate::tb::Tablebase;
use anyhow::Context;

use crate::cli::ConfigArgs;

pub fn run(dir: &std::path::Path, model: &std::path::Path, sims: u32, positions: usize, min_plies: u16, tactics: u32, args: &ConfigArgs) -> anyhow::Result<()> {
    let config = crate::cmd::load_config(args)?;
    let rules = <JungleGame as RunGame>::rules(&config);
    let tb = Arc::new(Tablebase::open(dir, &rules)?);
    let net = Arc::new(NetEvaluator::load(model, &config.hardware, JungleGame::SHAPE).with_context(|| model.display().to_string())?);
    let sample: Vec<(JungleGame, u16)> =
        crate::entries::jungle::tablebase::sample(&tb, &rules, positions, 2026, 3..=3, &|e| e.value > 0.0 && e.plies >= min_plies)
            .into_iter()
            .map(|(g, e)| (g, e.plies))
            .collect();
    if sample.is_empty() {
        anyhow::bail!("no win of {min_plies} plies or more found in {}", dir.display());
    }
    let mut out = std::io::stdout().lock();
    writeln!(out, "{} positions of 3 pieces won in {min_plies}+ plies for the side to move; MCTS {sims} simulations, no tables", sample.len())?;
    let limits = Limits { nodes: Some(u64::from(sims)), ..Limits::default() };
    let rows = [("solver off".to_string(), false, 0), ("solver on".to_string(), true, 0), (format!("check {tactics}"), true, tactics)];
    for (name, solver, plies) in rows {
        let mcts = MctsConfig { play_solver: solver, play_tree_reuse: false, play_tactics: plies, ..config.mcts.clone() };
        let (mut kept, mut fastest, mut proven, mut visits, mut secs) = (0, 0, 0, 0u64, 0f64);
        for (game, plies) in &sample {
            let check = AlphaBetaTactics::for_players(&config.search, Eval::new(&config.eval, rules), mcts.play_tactics);
            let mut player = MctsPlayer::<JungleGame, _>::new(net.clone(), &mcts, sims).with_tactics(check);
            let start = Instant::now();
            let mut mate = false;
            let best = player.choose(game, &limits, &mut |line| mate |= line.contains(" score mate ") && !line.contains(" score mate -"));
            secs += start.elapsed().as_secs_f64();
            if let Some(s) = player.last_search() {
                visits += u64::from(s.root_visits());
            }
            proven += usize::from(mate);
            if let Some(quickest) = best.and_then(|mv| super::bench_tb::judge(&tb, game, mv, *plies)) {
                kept += 1;
                fastest += usize::from(quickest);
            }
        }
        writeln!(
            out,
            "{name:<12} keeps the win {kept}/{n}  fastest win {fastest}/{n}  proven at the root {proven}/{n}  visits {visits}  time {secs:.2} s",
            n = sample.len()
        )?;
    }
    Ok(())
}
