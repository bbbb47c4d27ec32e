//! `junglezero bench levels --elo E,E,...`: play at a chosen strength, measured. The ladder's
//! anchors (the classical engine at depths 1 to N, depth 1 = 0) first play each other (each
//! depth against the next two) to fix their ratings; then each level plays the anchors rated
//! nearest to it and the next level up; every game is rated together and each level's measured Elo is printed beside
//! the one asked for. Both stages keep journals in the folder, so the same command resumes.
//! Games start from random openings, as the ladder's do.

use std::io::Write;
use std::path::PathBuf;

use crate::arena::match_game::ArenaGame;
use crate::config::Config;
use crate::entries::HouseGame;
use anyhow::Context;

use super::tournament::{Schedule, play, results};

/// What to measure and where.
pub struct Plan {
    pub elos: Vec<i32>,
    pub games: u32,
    pub depths: u32,
    pub opponents: usize,
    pub dir: PathBuf,
    pub force: bool,
    pub concurrency: Option<u64>,
    pub seed: u64,
}

/// The pairings of the anchors' stage: each depth against the next two.
fn anchor_pairings(n: usize) -> Vec<(usize, usize)> {
    (0..n).flat_map(|i| (i + 1..n.min(i + 3)).map(move |j| (i, j))).collect()
}

/// The `k` anchors whose ratings lie nearest to `elo` (indices into `ratings`).
fn nearest(ratings: &[f64], elo: f64, k: usize) -> Vec<usize> {
    let mut order: Vec<usize> = (0..ratings.len()).collect();
    order.sort_by(|&a, &b| (ratings[a] - elo).abs().total_cmp(&(ratings[b] - elo).abs()));
    order.truncate(k);
    order.sort_unstable();
    order
}

pub fn run<G: HouseGame>(plan: &Plan, config: &Config) -> anyhow::Result<()> {
    for &e in &plan.elos {
        crate::arena::match_game::check_level::<G>(e).map_err(|why| anyhow::anyhow!("--elo {e}: {why}"))?;
    }
    let rules = <G as crate::pipeline::RunGame>::rules(config);
    let settings = config.players();
    let results_path = plan.dir.join("results.json");
    let anchors_dir = plan.dir.join("anchors");
    if std::fs::symlink_metadata(&anchors_dir).is_err() && std::fs::symlink_metadata(&results_path).is_ok() && !plan.force {
        anyhow::bail!(
            "{} is not this bench's ({} has no anchors/): name another folder, or pass --force to replace it",
            results_path.display(),
            plan.dir.display()
        );
    }
    let anchors: Vec<_> = (1..=plan.depths).map(<G as ArenaGame>::engine_at).collect();
    let n = anchors.len();
    let schedule = |specs, pairings, dir| Schedule {
        specs,
        pairings,
        games: plan.games,
        seed: plan.seed,
        // Random openings, as the ladder inside `train` plays (the levels were measured so).
        openings: Some(std::path::Path::new(super::tournament::RANDOM_OPENINGS)),
        dir,
        force: plan.force,
        concurrency: plan.concurrency,
        sprt: None,
    };
    eprintln!("the anchors: depths 1 to {}, each against the next two", plan.depths);
    let (_, first) = play::<G>(&schedule(anchors.clone(), anchor_pairings(n), &anchors_dir), config, &rules)?;
    // The anchors' ratings from their own games (depth 1 = 0).
    let ratings: Vec<f64> = super::tournament::ratings(n, &first).into_iter().map(|r| r.map_or(0.0, |r| r.elo)).collect();

    let mut specs = anchors;
    let mut pairings = Vec::new();
    for (k, &elo) in plan.elos.iter().enumerate() {
        let spec = <G as ArenaGame>::at_level(elo, &settings).with_context(|| format!("no level {elo}"))?;
        specs.push(spec);
        pairings.extend(nearest(&ratings, f64::from(elo), plan.opponents.min(n)).into_iter().map(|a| (n + k, a)));
    }
    // Each level also meets the next one up: the levels far below the weakest anchor score
    // almost nothing against it, and are rated through their neighbours.
    let mut by_elo: Vec<usize> = (0..plan.elos.len()).collect();
    by_elo.sort_by_key(|&k| plan.elos[k]);
    pairings.extend(by_elo.windows(2).map(|w| (n + w[0], n + w[1])));
    eprintln!("the levels: each against the {} anchors rated nearest to it and the next level up", plan.opponents.min(n));
    let (names, second) = play::<G>(&schedule(specs, pairings, &plan.dir.join("levels")), config, &rules)?;
    // The anchors' games and the levels' rated together (the anchors come first in both).
    let all: Vec<_> = first.into_iter().chain(second).collect();
    let rated = results(&plan.dir, &names, &all)?;
    let mut out = std::io::stdout().lock();
    writeln!(out, "\n{:<24} {:>9} {:>9} {:>6} {:>11}", "level", "requested", "measured", "+/-", "difference")?;
    let mut worst = 0f64;
    for (k, &elo) in plan.elos.iter().enumerate() {
        let Some(r) = rated[n + k] else { continue };
        let diff = r.elo - f64::from(elo);
        worst = worst.max(diff.abs());
        writeln!(out, "{:<24} {elo:>+9} {:>+9.0} {:>6.0} {diff:>+11.0}", names[n + k], r.elo, r.ci95)?;
    }
    writeln!(out, "largest difference {worst:.0} Elo")?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_anchors_meet_the_next_two_and_levels_the_nearest() {
        assert_eq!(anchor_pairings(4), vec![(0, 1), (0, 2), (1, 2), (1, 3), (2, 3)]);
        let r = [0.0, 150.0, 320.0, 480.0];
        assert_eq!(nearest(&r, 200.0, 2), vec![1, 2]);
        assert_eq!(nearest(&r, -400.0, 3), vec![0, 1, 2]);
        assert_eq!(nearest(&r, 900.0, 1), vec![3]);
    }
}
