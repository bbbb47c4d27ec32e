//! `junglezero tournament --players SPEC SPEC SPEC... [--games N] [--gauntlet] [--out-dir DIR]`:
//! every pairing (or the first player against each other one) plays a match as `arena` plays
//! it; each finished game is appended to DIR/games.jsonl at once, so the same command on the
//! same folder goes on where an interrupted tournament stopped. The end prints the standings
//! (Bradley-Terry ratings with 95 % intervals, the first player at 0) and a crosstable, and
//! writes both to DIR/results.json. A game with a PGN form (Jungle) is also appended to
//! DIR/games.pgn as it ends; `--sprt` ends a pairing once its sequential test decides.

use std::collections::BTreeMap;
use std::io::Write;
use std::path::Path;
use std::path::PathBuf;

use clap::Args;

use crate::arena::bt::{PairResult, Rating, fit};
use crate::arena::journal::{GameLine, Journal, Plan};
use crate::arena::match_game::{ArenaGame, MatchGame};
use crate::arena::openings::{Opening, openings_from_text};
use crate::arena::play::{MatchSettings, run_match_skipping};
use crate::arena::spec::PlayerSpec;
use crate::cli::{ConfigArgs, GameKind, MATCH_GAMES, SpecText, declared, parse_spec, parse_sprt};
use crate::config::Config;
use crate::entries::HouseGame;
use crate::store::{self, caps};
use anyhow::Context;

use super::progress::bar;

pub fn run(args: TournamentArgs) -> anyhow::Result<()> {
    let config = super::load_config(&args.config)?;
    crate::with_game!(args.game.unwrap_or(config.game), G => tournament::<G>(&args, &config))
}

fn tournament<G: HouseGame>(args: &TournamentArgs, config: &Config) -> anyhow::Result<()> {
    let rules = G::rules_with(config, args.rules.as_deref()).map_err(|e| anyhow::anyhow!("bad --rules: {e}"))?;
    let mut specs = Vec::new();
    for (i, text) in args.players.iter().enumerate() {
        specs.push(text.with_each(args.each.as_deref()).with_context(|| format!("player {}", i + 1))?);
    }
    let n = specs.len();
    let pairings: Vec<(usize, usize)> = match &args.pairings {
        Some(text) => parse_pairings(text, n)?,
        None if args.gauntlet => (1..n).map(|j| (0, j)).collect(),
        None => (0..n).flat_map(|i| (i + 1..n).map(move |j| (i, j))).collect(),
    };
    let schedule = Schedule {
        specs,
        pairings,
        games: args.games,
        seed: args.seed,
        openings: args.openings.as_deref(),
        dir: &args.out,
        force: args.force,
        concurrency: args.concurrency,
        sprt: args.sprt,
    };
    let (names, played) = play::<G>(&schedule, config, &rules)?;
    results(&args.out, &names, &played).map(|_| ())
}

/// What a tournament plays: its players, the pairings (indices into `specs`), the games of each
/// pairing, where it keeps its journal, and how.
pub struct Schedule<'a> {
    pub specs: Vec<PlayerSpec>,
    pub pairings: Vec<(usize, usize)>,
    pub games: u32,
    pub seed: u64,
    pub openings: Option<&'a Path>,
    pub dir: &'a Path,
    pub force: bool,
    pub concurrency: Option<u64>,
    pub sprt: Option<crate::arena::stats::Sprt>,
}

/// Plays (or resumes) `s` under `rules`: every finished game is appended to its folder's journal
/// (and, for a game with a PGN form, to games.pgn). Returns the players' names and every game.
pub fn play<G: HouseGame>(s: &Schedule, config: &Config, rules: &<G as MatchGame>::Rules) -> anyhow::Result<(Vec<String>, Vec<GameLine>)> {
    let settings = config.players();
    let mut factories = Vec::new();
    for (i, spec) in s.specs.iter().enumerate() {
        factories.push(<G as ArenaGame>::factory(spec.clone(), &settings, rules, None).with_context(|| format!("player {}", i + 1))?);
    }
    let names: Vec<String> = factories.iter().map(|f| f.name()).collect();
    let (book, book_hash) = read_openings::<G>(s.openings, rules, s.seed)?;
    let pairings = s.pairings.clone();
    let plan = Plan {
        game: G::NAME.name().into(),
        players: names.clone(),
        pairings: pairings.clone(),
        games: s.games.div_ceil(2) * 2,
        seed: s.seed,
        opening_plies: config.arena.opening_plies,
        openings: book_hash,
        rules: rules.to_string(),
    };
    let dir = s.dir;
    std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
    // A results.json without this tournament's journal beside it is someone else's file.
    let journal_path = dir.join("games.jsonl");
    let results_path = dir.join("results.json");
    if std::fs::symlink_metadata(&journal_path).is_err() && std::fs::symlink_metadata(&results_path).is_ok() && !s.force {
        anyhow::bail!(
            "{} is not this tournament's ({} has no games.jsonl): name another folder, or pass --force to replace it",
            results_path.display(),
            dir.display()
        );
    }
    let (mut journal, mut played) = Journal::open(&journal_path, &plan)?;
    // The games' moves, for viewers and other tools: appended as they end (a resumed
    // tournament adds its new games to what is there).
    let pgn_path = dir.join("games.pgn");
    let mut pgn = if G::games_text(&[], "", "", rules).is_some() { Some(open_pgn(&pgn_path, &played)?) } else { None };
    if !played.is_empty() {
        eprintln!("resuming: {} games already played", played.len());
    }

    let per_pairing = plan.games as usize;
    let total = (pairings.len() * per_pairing) as u64;
    let pb = bar(total, "games");
    pb.set_position(played.len() as u64);
    let oracle = if config.tablebase.adjudicate { G::oracle(config).map_err(|e| anyhow::anyhow!("[tablebase] dir: {e}"))? } else { None };
    for &(a, b) in &pairings {
        let resumed: Vec<_> = played.iter().filter(|g| (g.a, g.b) == (a, b)).map(|g| g.played::<G>(plan.opening_plies)).collect();
        if resumed.len() >= per_pairing {
            continue;
        }
        pb.set_message(format!("{} vs {}", names[a], names[b]));
        let ms = MatchSettings::<G> {
            games: plan.games,
            concurrency: crate::arena::ArenaConfig { concurrency: s.concurrency.map_or(config.arena.concurrency, |c| c as usize), ..config.arena.clone() }
                .workers(),
            opening_plies: plan.opening_plies,
            seed: s.seed,
            rules: rules.clone(),
            sprt: s.sprt,
            max_consecutive_forfeits: config.arena.max_consecutive_forfeits,
            adjudication: config.arena.adjudication(),
            time_margin: std::time::Duration::from_millis(config.arena.time_margin_ms),
            oracle: oracle.clone(),
        };
        let mut write_error = None;
        run_match_skipping(&*factories[a], &*factories[b], &ms, book.as_deref(), resumed, |g, _, _| {
            // The journal (with the game's PGN text) first: a kill between the two writes
            // leaves games.pgn a game short, and resume rebuilds it from the journal.
            let mut line = GameLine::of(a, b, g);
            line.pgn = pgn.as_ref().and_then(|_| G::games_text(std::slice::from_ref(g), &names[a], &names[b], rules));
            if let Err(e) = journal.append(&line) {
                write_error.get_or_insert(e);
            }
            if let Some(file) = pgn.as_mut()
                && let Some(text) = &line.pgn
                && let Err(e) = file.write_all(text.as_bytes()).and_then(|()| file.flush())
            {
                write_error.get_or_insert(anyhow::anyhow!("{}: {e}", pgn_path.display()));
            }
            played.push(line);
            pb.inc(1);
        })
        .with_context(|| format!("{} vs {}", names[a], names[b]))?;
        if let Some(e) = write_error {
            return Err(e);
        }
    }
    pb.finish_and_clear();
    Ok((names, played))
}

/// `--pairings I-J,...` (players numbered from 1) as pairs of indices, each pairing once.
pub fn parse_pairings(text: &str, players: usize) -> anyhow::Result<Vec<(usize, usize)>> {
    let mut out: Vec<(usize, usize)> = Vec::new();
    for part in text.split(',').map(str::trim).filter(|p| !p.is_empty()) {
        let bad = || anyhow::anyhow!("--pairings: '{}' is not two player numbers I-J from 1 to {players}", crate::check::clip(part));
        let (a, b) = part.split_once('-').ok_or_else(bad)?;
        let (a, b): (usize, usize) = (a.trim().parse().map_err(|_| bad())?, b.trim().parse().map_err(|_| bad())?);
        if a == 0 || b == 0 || a > players || b > players || a == b {
            return Err(bad());
        }
        let pair = (a - 1, b - 1);
        if out.iter().any(|&(x, y)| (x, y) == pair || (y, x) == pair) {
            anyhow::bail!("--pairings: {part} is named twice");
        }
        out.push(pair);
    }
    if out.is_empty() {
        anyhow::bail!("--pairings names no pairing");
    }
    Ok(out)
}

/// `path` opened to append to (created when missing); a link or anything but a regular file
/// is refused, so nothing is written through it.
fn open_append(path: &Path) -> anyhow::Result<std::fs::File> {
    store::open_append(path).with_context(|| format!("cannot append to {}", path.display()))
}

/// The tournament's games.pgn opened to append to. On resume it is first made to hold exactly
/// the journal's games (`played`), rebuilt from the PGN text each journal line keeps: a kill
/// between a game's journal line and its PGN text, or mid-write, is mended. A journal written
/// before lines kept their PGN leaves the file as it is.
fn open_pgn(path: &Path, played: &[GameLine]) -> anyhow::Result<std::fs::File> {
    let file = open_append(path)?;
    if played.is_empty() || played.iter().any(|l| l.pgn.is_none()) {
        return Ok(file);
    }
    let text: String = played.iter().filter_map(|l| l.pgn.as_deref()).collect();
    let now = store::read_capped(path, caps::METRICS, "PGN file").with_context(|| path.display().to_string())?;
    if now == text.as_bytes() {
        return Ok(file);
    }
    drop(file);
    store::write_atomic(path, text.as_bytes())?;
    open_append(path)
}

/// What `--openings random` asks for: random openings of `arena.opening_plies` plies.
pub const RANDOM_OPENINGS: &str = "random";

/// The openings of `path` and what a journal's plan records of them: a file's; `random`
/// (none: random openings); without `--openings`, the game's shipped book when the match plays
/// the default rules (random openings otherwise, said once).
pub fn read_openings<G: HouseGame>(
    path: Option<&Path>,
    rules: &<G as MatchGame>::Rules,
    seed: u64,
) -> anyhow::Result<(Option<Vec<Opening<G>>>, Option<String>)> {
    let (text, what) = match path {
        Some(p) if p.as_os_str() == RANDOM_OPENINGS => return Ok((None, None)),
        Some(path) => (store::read_text_capped(path, caps::TEXT, "openings file").with_context(|| path.display().to_string())?, path.display().to_string()),
        None => {
            let Some(book) = G::BOOK else { return Ok((None, None)) };
            let default = <G as crate::pipeline::RunGame>::rules(&Config::default());
            if rules.to_string() != default.to_string() {
                eprintln!(
                    "note: the shipped book of openings is for the default rules; these rules play random openings (--openings FILE for a book of their own)"
                );
                return Ok((None, None));
            }
            (book.to_string(), format!("the shipped {} book", G::NAME.name()))
        }
    };
    let book = openings_from_text::<G>(&text, rules, seed).with_context(|| what.clone())?;
    // Blank lines and trailing spaces are no part of the openings: the fingerprint is taken
    // without them (a file that has none hashes as its bytes, as earlier journals recorded).
    let clean: String = text.lines().map(str::trim_end).filter(|l| !l.is_empty()).flat_map(|l| [l, "\n"]).collect();
    let hash = format!("crc32 {:08x}, {} openings", crc32fast::hash(clean.as_bytes()), book.len());
    Ok((Some(book), Some(hash)))
}

/// (points, games) of row against column, for `n` players.
fn crosstable(n: usize, games: &[GameLine]) -> Vec<Vec<(f64, u32)>> {
    let mut table = vec![vec![(0.0f64, 0u32); n]; n];
    for g in games {
        table[g.a][g.b].0 += g.a_points;
        table[g.a][g.b].1 += 1;
        table[g.b][g.a].0 += 1.0 - g.a_points;
        table[g.b][g.a].1 += 1;
    }
    table
}

/// Bradley-Terry ratings of a crosstable's players, the first at 0.
fn fit_table(table: &[Vec<(f64, u32)>]) -> Vec<Option<Rating>> {
    let n = table.len();
    let pairs: Vec<PairResult> = (0..n)
        .flat_map(|i| (i + 1..n).map(move |j| (i, j)))
        .filter(|&(i, j)| table[i][j].1 > 0)
        .map(|(i, j)| PairResult { a: i, b: j, points: table[i][j].0, games: f64::from(table[i][j].1) })
        .collect();
    fit(n, &pairs, 0)
}

/// The ratings of `n` players from their games, the first at 0 (none for a player no game
/// connects to it).
pub fn ratings(n: usize, games: &[GameLine]) -> Vec<Option<Rating>> {
    fit_table(&crosstable(n, games))
}

/// Prints and writes the standings and the crosstable; returns the ratings (the first player
/// at 0; none for a player no game connects to it).
pub fn results(dir: &Path, names: &[String], games: &[GameLine]) -> anyhow::Result<Vec<Option<Rating>>> {
    let n = names.len();
    let table = crosstable(n, games);
    let mut wdl: BTreeMap<(usize, usize), [u32; 3]> = BTreeMap::new();
    for g in games {
        let k = if g.a_points == 1.0 {
            0
        } else if g.a_points == 0.0 {
            2
        } else {
            1
        };
        wdl.entry((g.a, g.b)).or_default()[k] += 1;
        wdl.entry((g.b, g.a)).or_default()[2 - k] += 1;
    }
    let ratings = fit_table(&table);
    let mut order: Vec<usize> = (0..n).collect();
    order.sort_by(|&x, &y| {
        let r = |i: usize| ratings[i].map_or(f64::NEG_INFINITY, |r| r.elo);
        r(y).total_cmp(&r(x))
    });
    let mut out = std::io::stdout().lock();
    let width = names.iter().map(|s| s.len()).max().unwrap_or(4).max(4);
    writeln!(out, "Rank {:<width$} {:>6} {:>6} {:>6} {:>6}", "Name", "Elo", "+/-", "Games", "Score")?;
    let mut standings = Vec::new();
    for (rank, &i) in order.iter().enumerate() {
        let (points, played) = table[i].iter().fold((0.0, 0u32), |a, c| (a.0 + c.0, a.1 + c.1));
        let score = if played > 0 { 100.0 * points / f64::from(played) } else { 0.0 };
        let (elo, ci) = ratings[i].map_or(("-".to_string(), "-".to_string()), |r| (format!("{:+.0}", r.elo), format!("{:.0}", r.ci95)));
        writeln!(out, "{:>4} {:<width$} {elo:>6} {ci:>6} {played:>6} {score:>5.1}%", rank + 1, names[i])?;
        standings.push(serde_json::json!({ "rank": rank + 1, "player": names[i], "elo": ratings[i].map(|r| r.elo), "ci95": ratings[i].map(|r| r.ci95), "games": played, "points": points }));
    }
    writeln!(out)?;
    // The crosstable: row's points against column (of games), as cutechess prints it.
    let label = width + 4;
    write!(out, "{:<label$}", "")?;
    for j in &order {
        write!(out, " {:>9}", format!("#{}", order.iter().position(|x| x == j).unwrap_or(0) + 1))?;
    }
    writeln!(out)?;
    let mut cross = Vec::new();
    for (r, &i) in order.iter().enumerate() {
        write!(out, "{:<label$}", format!("#{} {}", r + 1, names[i]))?;
        for &j in &order {
            let (p, g) = table[i][j];
            let cell = if i == j {
                "-".to_string()
            } else if g == 0 {
                ".".to_string()
            } else {
                format!("{p}/{g}")
            };
            write!(out, " {cell:>9}")?;
            if i != j && g > 0 {
                let [w, d, l] = wdl.get(&(i, j)).copied().unwrap_or_default();
                cross.push(serde_json::json!({ "player": names[i], "opponent": names[j], "points": p, "games": g, "wins": w, "draws": d, "losses": l }));
            }
        }
        writeln!(out)?;
    }
    let json = serde_json::json!({ "standings": standings, "crosstable": cross, "anchor": names[0] });
    // This tournament's own file (checked at the start): replaced, never written through a link.
    store::write_output(&dir.join("results.json"), serde_json::to_string_pretty(&json)?.as_bytes(), true)?;
    writeln!(out, "\n{} games; ratings anchored at {} = 0; results in {}", games.len(), names[0], dir.join("results.json").display())?;
    Ok(ratings)
}

#[derive(Args, Debug)]
pub struct TournamentArgs {
    /// The players (as `arena --a` takes them), at least two.
    #[arg(long, num_args = 2.., required = true, value_parser = parse_spec)]
    pub players: Vec<SpecText>,
    /// Keys for every player, before its own (cutechess's -each), e.g. tc=0/10+0.1; a
    /// player's own key of the same name wins.
    #[arg(long, value_name = "KEY=VALUE,...")]
    pub each: Option<String>,
    /// Games of each pairing (rounded up to whole pairs of games with the colours swapped).
    #[arg(long, default_value_t = MATCH_GAMES, value_parser = clap::value_parser!(u32).range(1..=100_000))]
    pub games: u32,
    /// Only the first player against each of the others.
    #[arg(long)]
    pub gauntlet: bool,
    /// Only these pairings, by the players' numbers from 1 (e.g. `1-2,2-3,1-4`), instead of a
    /// round robin.
    #[arg(long, value_name = "I-J,...", conflicts_with = "gauntlet")]
    pub pairings: Option<String>,
    /// End each pairing early once the sequential test decides it (as `arena --sprt`; for a
    /// gauntlet: whether the first player is stronger than each other by elo1, not by elo0).
    #[arg(long, value_parser = parse_sprt)]
    pub sprt: Option<crate::arena::stats::Sprt>,
    /// Games played at once (0: one per CPU core; default: the config's arena.concurrency).
    #[arg(long, value_parser = declared::<u64>("arena.concurrency"))]
    pub concurrency: Option<u64>,
    /// The tournament's folder: its settings, every finished game (one line each) and the
    /// results. The same command on the same folder resumes. (`--out` is the old spelling.)
    #[arg(long = "out-dir", alias = "out", value_name = "DIR", default_value = "tournament")]
    pub out: PathBuf,
    /// Write into a folder whose results.json is not this tournament's (it is replaced).
    #[arg(long)]
    pub force: bool,
    /// Seed of the random openings (each pairing's games start from the same openings).
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// The openings (default: the shipped book of balanced openings under the default rules):
    /// `random` for random ones of arena.opening_plies plies, or a file as `arena --openings`
    /// reads it; pair N of each pairing plays opening N, round and round.
    #[arg(long, value_name = "FILE|random")]
    pub openings: Option<PathBuf>,
    /// Rule switches over the config's.
    #[arg(long)]
    pub rules: Option<String>,
    /// The game (default: the config's `game`).
    #[arg(long, value_enum)]
    pub game: Option<GameKind>,
    #[command(flatten)]
    pub config: ConfigArgs,
}
