//! `junglezero book --players SPEC... --out FILE`: a book of balanced openings. Random openings
//! (distinct, `--plies` long) are written to the work folder; each judge plays `--games` games
//! of itself from every one of them (a tournament of one pairing, journalled, so the same
//! command resumes); the `--keep` openings whose first player scored nearest 50 % over all
//! judges are written out, one a line, with a header saying how they were chosen and how
//! balanced they played.

use std::fmt::Write as _;
use std::path::PathBuf;

use clap::Args;

use crate::arena::journal::GameLine;
use crate::arena::openings::random_openings;
use crate::cli::{ConfigArgs, GameKind, SpecText, declared, parse_spec};
use crate::config::Config;
use crate::entries::HouseGame;
use anyhow::Context;

use super::tournament::{Schedule, play};

pub fn run(args: BookArgs) -> anyhow::Result<()> {
    let config = super::load_config(&args.config)?;
    crate::with_game!(args.game.unwrap_or(config.game), G => book::<G>(&args, &config))
}

/// The first player's points and games from each opening (`n` of them) in a judge's games.
fn first_player_scores(n: usize, games: &[GameLine]) -> Vec<(f64, u32)> {
    let mut out = vec![(0.0, 0u32); n];
    for g in games {
        let first = if g.a_first { g.a_points } else { 1.0 - g.a_points };
        let s = &mut out[g.pair % n];
        s.0 += first;
        s.1 += 1;
    }
    out
}

/// The openings to keep: by how far their first player's mean score over the judges lies
/// from one half (nearest first; ties by the order drawn), `keep` of them, in the order drawn.
fn balanced(scores: &[Vec<(f64, u32)>], keep: usize) -> Vec<usize> {
    let n = scores.first().map_or(0, Vec::len);
    let bias = |i: usize| -> f64 {
        let per: Vec<f64> = scores.iter().filter(|s| s[i].1 > 0).map(|s| s[i].0 / f64::from(s[i].1) - 0.5).collect();
        if per.is_empty() { f64::INFINITY } else { per.iter().map(|b| b.abs()).sum::<f64>() / per.len() as f64 }
    };
    let mut order: Vec<usize> = (0..n).collect();
    order.sort_by(|&a, &b| bias(a).total_cmp(&bias(b)).then(a.cmp(&b)));
    order.truncate(keep);
    order.sort_unstable();
    order
}

/// The first player's share of the points over `which` openings.
fn share(scores: &[(f64, u32)], which: &[usize]) -> f64 {
    let (p, g) = which.iter().fold((0.0, 0u32), |a, &i| (a.0 + scores[i].0, a.1 + scores[i].1));
    if g == 0 { 0.5 } else { p / f64::from(g) }
}

fn book<G: HouseGame>(args: &BookArgs, config: &Config) -> anyhow::Result<()> {
    if G::games_text(&[], "", "", &<G as crate::pipeline::RunGame>::rules(config)).is_none() {
        anyhow::bail!("the {} game's openings come from its random deals; it has no book", G::NAME.name());
    }
    let rules = <G as crate::pipeline::RunGame>::rules(config);
    let mut outputs = crate::store::Outputs::new(&[args.out.as_path()], args.force)?;
    let specs =
        args.players.iter().enumerate().map(|(i, p)| p.with_each(None).with_context(|| format!("player {}", i + 1))).collect::<anyhow::Result<Vec<_>>>()?;
    let candidates = random_openings::<G>(&rules, args.plies as usize, args.candidates as usize, args.seed);
    anyhow::ensure!(!candidates.is_empty(), "no opening of {} plies exists", args.plies);
    let n = candidates.len();
    let lines: Vec<String> = candidates.iter().map(|o| o.moves.iter().map(|m| m.to_string()).collect::<Vec<_>>().join(" ")).collect();
    let text: String = lines.iter().flat_map(|l| [l.as_str(), "\n"]).collect();
    std::fs::create_dir_all(&args.work_dir).with_context(|| format!("cannot create {}", args.work_dir.display()))?;
    let list = args.work_dir.join("candidates.txt");
    match crate::store::read_text_capped(&list, crate::store::caps::TEXT, "candidates file") {
        Ok(old) if old != text => {
            anyhow::bail!("{} holds other openings (another --candidates, --plies or --seed): name another --work-dir", list.display())
        }
        Ok(_) => {}
        Err(_) if std::fs::symlink_metadata(&list).is_err() => crate::store::write_output(&list, text.as_bytes(), false)?,
        Err(e) => return Err(e).context(list.display().to_string()),
    }
    if args.games.len() != 1 && args.games.len() != specs.len() {
        anyhow::bail!("--games gives {} numbers for {} players: give one, or one a player", args.games.len(), specs.len());
    }
    let games_of = |k: usize| args.games[k.min(args.games.len() - 1)].div_ceil(2) * 2;
    let mut scores = Vec::new();
    for (k, spec) in specs.iter().enumerate() {
        let per = games_of(k);
        eprintln!("judge {} of {}: {spec}, {per} games from each of {n} openings", k + 1, specs.len());
        let dir = args.work_dir.join(format!("judge-{}", k + 1));
        let schedule = Schedule {
            specs: vec![spec.clone(), spec.clone()],
            pairings: vec![(0, 1)],
            games: per.saturating_mul(n as u32),
            seed: args.seed,
            openings: Some(list.as_path()),
            dir: &dir,
            force: false,
            concurrency: args.concurrency,
            sprt: None,
        };
        let (_, games) = play::<G>(&schedule, config, &rules)?;
        scores.push(first_player_scores(n, &games));
    }
    let kept = balanced(&scores, args.keep as usize);
    let all: Vec<usize> = (0..n).collect();
    let mut out = String::new();
    writeln!(out, "# {} balanced openings of {} plies for the {} game, one a line (moves from the start).", kept.len(), args.plies, G::NAME.name())?;
    writeln!(out, "# Chosen from {n} random openings (seed {}) by the first player's score nearest 50 % when each judge", args.seed)?;
    writeln!(out, "# below played itself from each: `junglezero book`.")?;
    for (k, spec) in specs.iter().enumerate() {
        writeln!(
            out,
            "# judge {}: {spec}, {} games an opening: first player {:.1} % over these openings, {:.1} % over all {n}",
            k + 1,
            games_of(k),
            100.0 * share(&scores[k], &kept),
            100.0 * share(&scores[k], &all)
        )?;
    }
    for &i in &kept {
        writeln!(out, "{}", lines[i])?;
    }
    outputs.add(&args.out, out.as_bytes())?;
    outputs.commit()?;
    print!("{}", out.lines().take_while(|l| l.starts_with('#')).map(|l| format!("{l}\n")).collect::<String>());
    println!("wrote {} openings to {}", kept.len(), args.out.display());
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn line(pair: usize, a_first: bool, a_points: f64) -> GameLine {
        GameLine { a: 0, b: 1, pair, a_first, a_points, reason: "den".into(), forfeit: None, pgn: None }
    }

    #[test]
    fn the_first_player_s_score_is_counted_by_opening_and_seat() {
        // Opening 0: the first player won twice (as A, then as B); opening 1: drawn and lost.
        let games = [line(0, true, 1.0), line(0, false, 0.0), line(1, true, 0.5), line(1, false, 1.0), line(2, true, 1.0)];
        let s = first_player_scores(2, &games);
        // Pair 2 plays opening 0 again (round and round).
        assert_eq!(s, vec![(3.0, 3), (0.5, 2)]);
    }

    #[test]
    fn the_openings_nearest_one_half_are_kept_in_their_order() {
        let judge_a = vec![(2.0, 2), (1.0, 2), (0.0, 2), (1.5, 2)];
        let judge_b = vec![(1.0, 2), (1.0, 2), (1.0, 2), (2.0, 2)];
        // Biases: 0.25, 0, 0.25, 0.375.
        assert_eq!(balanced(&[judge_a.clone(), judge_b.clone()], 1), vec![1]);
        assert_eq!(balanced(&[judge_a.clone(), judge_b], 3), vec![0, 1, 2]);
        assert!((share(&judge_a, &[0, 1]) - 0.75).abs() < 1e-12);
    }
}

#[derive(Args, Debug)]
pub struct BookArgs {
    /// Who judges the openings (as `arena --a` takes them), each playing itself; a player that
    /// chooses at random (`temp=`) gives each game of an opening its own course.
    #[arg(long, num_args = 1.., required = true, value_parser = parse_spec)]
    pub players: Vec<SpecText>,
    /// Random openings judged.
    #[arg(long, default_value_t = 1000, value_parser = clap::value_parser!(u32).range(1..=100_000))]
    pub candidates: u32,
    /// Plies of each opening.
    #[arg(long, default_value_t = 4, value_parser = clap::value_parser!(u32).range(1..=40))]
    pub plies: u32,
    /// Games each player plays from each opening (rounded up to an even number): one number
    /// for every player, or one a player (`4,2`: a player that always plays the same game
    /// needs only a pair, with the colours swapped).
    #[arg(long, value_delimiter = ',', default_value = "4", value_parser = clap::value_parser!(u32).range(2..=1000))]
    pub games: Vec<u32>,
    /// Openings kept: those whose first player scores nearest 50 %.
    #[arg(long, default_value_t = 300, value_parser = clap::value_parser!(u32).range(1..=100_000))]
    pub keep: u32,
    /// The book (a new file unless --force).
    #[arg(long, value_name = "FILE")]
    pub out: PathBuf,
    /// The games played so far, one journal a player (the same command resumes from it).
    #[arg(long, value_name = "DIR", default_value = "book-games")]
    pub work_dir: PathBuf,
    /// Replace an existing book.
    #[arg(long)]
    pub force: bool,
    /// Games played at once (0: one per CPU core; default: the config's arena.concurrency).
    #[arg(long, value_parser = declared::<u64>("arena.concurrency"))]
    pub concurrency: Option<u64>,
    /// Seed of the random openings.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// The game (default: the config's `game`).
    #[arg(long, value_enum)]
    pub game: Option<GameKind>,
    #[command(flatten)]
    pub config: ConfigArgs,
}
