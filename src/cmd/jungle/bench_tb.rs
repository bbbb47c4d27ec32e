//! `junglezero bench tb --tb DIR`: alpha-beta with and without the endgame tables on endgame
//! positions the tables know to be long wins: how often each keeps the win and plays a fastest
//! win, and its nodes and time.

use std::io::Write;
use std::sync::Arc;
use std::time::Instant;

use crate::alphabeta::{Engine, Eval};
use crate::game::Game;
use crate::jungle::JungleGame;
use crate::pipeline::RunGame;
use crate::player::Limits;
use crate::tb::{Tablebase, Value};

use crate::cli::ConfigArgs;

pub fn run(dir: &std::path::Path, positions: usize, depth: u32, min_plies: u16, args: &ConfigArgs) -> anyhow::Result<()> {
    let config = crate::cmd::load_config(args)?;
    let rules = <JungleGame as RunGame>::rules(&config);
    let tb = Arc::new(Tablebase::open(dir, &rules)?);
    let sample = sample(&tb, &rules, positions, min_plies);
    if sample.is_empty() {
        anyhow::bail!("no win of {min_plies} plies or more found in {}", dir.display());
    }
    let mut out = std::io::stdout().lock();
    writeln!(out, "{} positions of 3 pieces won in {min_plies}+ plies for the side to move; alpha-beta depth {depth}", sample.len())?;
    for with in [false, true] {
        let (mut kept, mut fastest, mut nodes, mut secs) = (0, 0, 0u64, 0f64);
        for (game, d) in &sample {
            let mut engine = Engine::new(&config.search, Eval::new(&config.eval, rules)).with_tablebase(with.then(|| tb.clone()));
            let start = Instant::now();
            let r = engine.search(game, &Limits { depth: Some(depth), ..Limits::default() }, &mut |_| {});
            secs += start.elapsed().as_secs_f64();
            nodes += r.nodes;
            if let Some(quickest) = r.best.and_then(|mv| judge(&tb, game, mv, *d)) {
                kept += 1;
                fastest += usize::from(quickest);
            }
        }
        writeln!(
            out,
            "{:<16} keeps the win {kept}/{n}  fastest win {fastest}/{n}  nodes {nodes}  time {secs:.2} s",
            if with { "with tables" } else { "without tables" },
            n = sample.len()
        )?;
    }
    Ok(())
}

/// What the tables say of `mv` played in `game`, a win in `plies` for the side to move: `None`
/// when it gives the win away, else whether it is a fastest win.
pub(crate) fn judge(tb: &Tablebase, game: &JungleGame, mv: crate::jungle::Move, plies: u16) -> Option<bool> {
    let mut child = game.clone();
    child.play_unchecked(mv);
    let over = child.outcome().is_some();
    let after = if over { Some(Value::Loss(0)) } else { tb.probe(child.position()).ok() };
    match after {
        Some(Value::Loss(k)) => Some(k + 1 == plies || (over && plies == 1)),
        _ => None,
    }
}

/// Up to `n` random 3-piece positions the tables say the side to move wins in `min_plies` or
/// more (seeded: the same set every run).
fn sample(tb: &Tablebase, rules: &crate::jungle::Rules, n: usize, min_plies: u16) -> Vec<(JungleGame, u16)> {
    crate::entries::jungle::tablebase::sample(tb, rules, n, 2026, 3..=3, &|e| e.value > 0.0 && e.plies >= min_plies)
        .into_iter()
        .map(|(g, e)| (g, e.plies))
        .collect()
}
