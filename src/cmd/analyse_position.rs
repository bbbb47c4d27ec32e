//! `junglezero analyse --model FILE [--fen ...] [--moves ...] [--sims N] [--movetime MS]`: one
//! position through the network, then MCTS with a progress line five times a second.

use std::io::Write;
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::AtomicBool;
use std::time::Duration;

use clap::Args;

use crate::cli::{ConfigArgs, GameKind, PositionArgs, declared};
use crate::config::Config;
use crate::entries::HouseGame;
use crate::game::Turn;
use crate::nn::NetEvaluator;
use crate::serve::analysis::{MctsBudget, MctsView, network_view, run_mcts};

pub fn run(args: AnalyseArgs) -> anyhow::Result<()> {
    let config = super::load_config(&args.config)?;
    crate::with_game!(args.game.unwrap_or(config.game), G => analyse::<G>(&args, &config))
}

fn analyse<G: HouseGame>(args: &AnalyseArgs, config: &Config) -> anyhow::Result<()> {
    let rules = super::rules_from_args::<G>(&args.position, config)?;
    let game = super::game_from_args::<G>(&args.position, &rules)?;
    match game.turn() {
        Turn::Over(o) => anyhow::bail!("the game is over: {}", G::outcome_text(&o)),
        Turn::Chance => anyhow::bail!("the position waits for a flip's outcome; give the position after it"),
        Turn::Player(_) => {}
    }
    let net = Arc::new(NetEvaluator::load(&args.model, &config.hardware, G::SHAPE)?);
    let view = network_view(&net, &game);
    let sims = args.sims.unwrap_or(config.mcts.playouts);
    let time = Duration::from_millis(args.movetime.unwrap_or(86_400_000));
    let stop = AtomicBool::new(false);
    // Tables for other capture rules than the position's are refused, as the protocol does.
    let oracle = G::oracle_under(config, &rules)?;
    let mut out = std::io::stdout().lock();
    if args.json {
        let search = run_mcts(&*net, &config.mcts, &game, MctsBudget { sims, time, stop: &stop }, oracle, &mut |_| true);
        writeln!(out, "{}", serde_json::json!({ "network": view, "mcts": search }))?;
        return Ok(());
    }
    let pct = |x: f32| 100.0 * x;
    writeln!(out, "network {}", view.model)?;
    let moves_left = view.moves_left.map_or_else(String::new, |m| format!(", about {m:.0} plies left"));
    writeln!(
        out,
        "value {:+.3} (win {:.1} %, draw {:.1} %, loss {:.1} % for the side to move){moves_left}",
        view.value,
        pct(view.wdl[0]),
        pct(view.wdl[1]),
        pct(view.wdl[2])
    )?;
    let priors: Vec<String> = view.policy.iter().take(6).map(|p| format!("{} {:.1} %", p.mv, pct(p.p))).collect();
    writeln!(out, "policy {}", priors.join(", "))?;
    let mut write_err = None;
    let last = run_mcts(&*net, &config.mcts, &game, MctsBudget { sims, time, stop: &stop }, oracle, &mut |v: &MctsView| {
        let line = format!("sims {} time {} ms value {:+.3} best {} pv {}", v.sims, v.time_ms, v.value, v.best.as_deref().unwrap_or("-"), v.pv.join(" "));
        if let Err(e) = writeln!(out, "{line}").and_then(|_| out.flush()) {
            write_err.get_or_insert(e);
            return false;
        }
        true
    });
    if let Some(e) = write_err {
        return Err(e.into());
    }
    writeln!(out, "{:<10} {:>8} {:>7} {:>7}", "move", "visits", "prior", "Q")?;
    for c in &last.children {
        writeln!(out, "{:<10} {:>8} {:>6.1}% {:>7}", c.mv, c.visits, pct(c.prior), c.q.map_or_else(|| "-".into(), |q| format!("{q:+.3}")))?;
    }
    if let Some(exact) = &last.exact {
        writeln!(out, "{exact}")?;
    }
    writeln!(out, "bestmove {}", last.best.as_deref().unwrap_or("(none)"))?;
    Ok(())
}

#[derive(Args, Debug)]
pub struct AnalyseArgs {
    #[command(flatten)]
    pub position: PositionArgs,
    #[command(flatten)]
    pub config: ConfigArgs,
    /// The network (.jzm).
    #[arg(long, value_name = "PATH")]
    pub model: PathBuf,
    /// MCTS simulations (default: the config's mcts.playouts; at most 10^7).
    #[arg(long, value_parser = declared::<u32>("mcts.playouts"))]
    pub sims: Option<u32>,
    /// Stop after this many milliseconds, whatever the simulations (at most a day).
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..=86_400_000))]
    pub movetime: Option<u64>,
    /// Print the network's view and the search's last view as one JSON object (no progress
    /// lines).
    #[arg(long)]
    pub json: bool,
    /// The game (default: the config's `game`).
    #[arg(long, value_enum)]
    pub game: Option<GameKind>,
}
