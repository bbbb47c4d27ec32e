//! `junglezero arena --a SPEC --b SPEC ...`

use std::io::Write;
use std::path::PathBuf;

use clap::Args;

use crate::arena::batched::{NetworkSearch, run_network_match};
use crate::arena::journal::{GameLine, Journal, Plan};
use crate::arena::match_game::{ArenaGame, MatchGame};
use crate::arena::play::{MatchOutcome, MatchSettings, run_match_skipping};
use crate::arena::spec::PlayerSpec;
use crate::arena::{forfeit_line, summary, summary_json};
use crate::cli::{ConfigArgs, GameKind, MATCH_GAMES, SpecText, declared, parse_spec, parse_sprt};
use crate::config::Config;
use crate::entries::HouseGame;
use crate::game::Reason;
use crate::store::write_output;
use anyhow::Context;

use super::progress::bar;

pub fn run(args: ArenaArgs) -> anyhow::Result<()> {
    let config = super::load_config(&args.config)?;
    crate::with_game!(args.game.unwrap_or(config.game), G => run_match_of::<G>(&args, &config))
}

/// A match of the game `G` between the two specs: threaded, or batched across games when both
/// are networks at the same budget; every pair of games shares its opening (and, in a game of
/// luck, its deal) with the seats swapped.
fn run_match_of<G: HouseGame>(args: &ArenaArgs, config: &Config) -> anyhow::Result<()> {
    let rules = G::rules_with(config, args.rules.as_deref()).map_err(|e| anyhow::anyhow!("bad --rules: {e}"))?;
    if args.games_out.is_some() && G::games_text(&[], "", "", &rules).is_none() {
        anyhow::bail!("--games-out writes PGN, which the {} game has no form of; its records are in its shards", G::NAME);
    }
    // The outputs are checked before the match, which may take long.
    let outputs: Vec<&std::path::Path> = args.json.iter().chain(&args.games_out).map(|p| p.as_path()).collect();
    crate::store::Outputs::new(&outputs, args.force)?;
    let players = config.players();
    let (spec_a, spec_b) = (args.a.with_each(args.each.as_deref()).context("player A")?, args.b.with_each(args.each.as_deref()).context("player B")?);
    let fa = <G as ArenaGame>::factory(spec_a.clone(), &players, &rules, None).context("player A")?;
    let fb = <G as ArenaGame>::factory(spec_b.clone(), &players, &rules, None).context("player B")?;
    let (name_a, name_b) = (fa.name(), fb.name());
    let settings = settings::<G>(args, config, rules.clone())?;
    let (book, book_hash) = super::tournament::read_openings::<G>(args.openings.as_deref(), &rules, args.seed)?;
    let pb = bar(u64::from(args.games.div_ceil(2) * 2), "games");
    let progress = |t: &crate::arena::stats::Tally, llr: Option<f64>| show_progress(&pb, t, llr);
    // The games of an earlier run of the match (from its journal).
    let mut resumed = Vec::new();
    let mut earlier = std::collections::HashSet::new();
    let outcome: MatchOutcome<G> = match (&spec_a, &spec_b, fa.network(), fb.network()) {
        // Two networks with the same budget, openings from the start position and no journal:
        // batch their leaves across games.
        (
            PlayerSpec::Mcts { sims: sa, movetime: None, c_puct: None, cpuct_factor: None, tactics: None, reuse: None, tc: None, .. },
            PlayerSpec::Mcts { sims: sb, movetime: None, c_puct: None, cpuct_factor: None, tactics: None, reuse: None, tc: None, .. },
            Some(na),
            Some(nb),
        ) if sa.unwrap_or(config.mcts.playouts) == sb.unwrap_or(config.mcts.playouts)
            && book.as_ref().is_none_or(|b| b.iter().all(|o| o.root.is_none()))
            && args.log.is_none()
            && config.mcts.play_tactics == 0 =>
        {
            let search = NetworkSearch { mcts: &config.mcts, sims: sa.unwrap_or(config.mcts.playouts), games_in_flight: 16 };
            run_network_match(&**na, &**nb, search, &settings, book.as_deref(), |_, t, llr| progress(t, llr))
        }
        _ => {
            let mut journal = None;
            if let Some(path) = &args.log {
                let plan = Plan {
                    game: G::NAME.name().into(),
                    players: vec![name_a.clone(), name_b.clone()],
                    pairings: vec![(0, 1)],
                    games: args.games.div_ceil(2) * 2,
                    seed: args.seed,
                    opening_plies: settings.opening_plies,
                    openings: book_hash,
                    rules: rules.to_string(),
                };
                let (j, lines) = Journal::open(path, &plan)?;
                if !lines.is_empty() {
                    eprintln!("resuming: {} games already played", lines.len());
                    pb.set_position(lines.len() as u64);
                }
                resumed = lines.iter().map(|l| l.played::<G>(settings.opening_plies)).collect();
                earlier = resumed.iter().map(|g| (g.pair, g.a_red)).collect();
                journal = Some(j);
            }
            let mut write_error = None;
            let outcome = run_match_skipping(&*fa, &*fb, &settings, book.as_deref(), resumed, |g, t, llr| {
                if let Some(j) = journal.as_mut()
                    && let Err(e) = j.append(&GameLine::of(0, 1, g))
                {
                    write_error.get_or_insert(e);
                }
                progress(t, llr)
            })?;
            if let Some(e) = write_error {
                return Err(e);
            }
            outcome
        }
    };
    pb.finish_and_clear();
    report(args, &outcome, &settings, &name_a, &name_b, &rules.to_string())?;
    if let Some(path) = &args.games_out {
        // A resumed match's earlier games are in its journal without their moves.
        let played: Vec<_> = outcome.games.iter().filter(|g| !earlier.contains(&(g.pair, g.a_red))).cloned().collect();
        if let Some(text) = G::games_text(&played, &name_a, &name_b, &rules) {
            write_output(path, text.as_bytes(), args.force)?;
        }
    }
    Ok(())
}

/// A match's settings from the flags over the config's `[arena]`.
fn settings<G: HouseGame>(args: &ArenaArgs, config: &Config, rules: <G as MatchGame>::Rules) -> anyhow::Result<MatchSettings<G>> {
    // Games end at the endgame tables' positions (`[tablebase]` with `adjudicate`).
    let oracle = if config.tablebase.adjudicate { G::oracle(config).map_err(|e| anyhow::anyhow!("[tablebase] dir: {e}"))? } else { None };
    Ok(MatchSettings {
        games: args.games,
        concurrency: crate::arena::ArenaConfig { concurrency: args.concurrency.unwrap_or(config.arena.concurrency), ..config.arena.clone() }.workers(),
        opening_plies: args.opening_plies.unwrap_or(config.arena.opening_plies),
        seed: args.seed,
        rules,
        sprt: args.sprt,
        max_consecutive_forfeits: config.arena.max_consecutive_forfeits,
        adjudication: config.arena.adjudication(),
        time_margin: std::time::Duration::from_millis(config.arena.time_margin_ms),
        oracle,
    })
}

fn show_progress(pb: &indicatif::ProgressBar, t: &crate::arena::stats::Tally, llr: Option<f64>) {
    let (elo, ci) = t.elo();
    pb.set_position(u64::from(t.games()));
    pb.set_message(format!("W {} D {} L {}  Elo {elo:+.0} +/- {ci:.0}{}", t.wins, t.draws, t.losses, llr.map_or(String::new(), |l| format!("  LLR {l:.2}"))));
}

/// The summary on stdout and, with `--json-out`, in a file.
fn report<G: MatchGame>(
    args: &ArenaArgs,
    outcome: &MatchOutcome<G>,
    settings: &MatchSettings<G>,
    name_a: &str,
    name_b: &str,
    rules: &str,
) -> anyhow::Result<()> {
    let t = &outcome.tally;
    if outcome.openings < t.pairs() as usize {
        eprintln!("note: {} distinct openings for {} pairs of games; openings were reused", outcome.openings, t.pairs());
    }
    let mut out = std::io::stdout().lock();
    write!(out, "{}", summary(name_a, name_b, t, settings.sprt.as_ref()))?;
    if let Some(line) = forfeit_line(outcome) {
        writeln!(out, "{line}")?;
    }
    let adjudicated: Vec<_> = outcome.games.iter().filter(|g| g.outcome.reason == Reason::Adjudication).collect();
    let adjudicated_draws = adjudicated.iter().filter(|g| g.outcome.winner.is_none()).count();
    if !adjudicated.is_empty() {
        writeln!(
            out,
            "Adjudicated: {} games ({} drawn, {} decided) on the players' scores (arena.adjudicate_*)",
            adjudicated.len(),
            adjudicated_draws,
            adjudicated.len() - adjudicated_draws
        )?;
    }
    let by_tables = outcome.games.iter().filter(|g| g.outcome.reason == Reason::Tablebase).count();
    if by_tables > 0 {
        writeln!(out, "Ended by the endgame tables: {by_tables} games (their exact result, termination tablebase)")?;
    }
    // Losses on time, for A and for B.
    let on_time = |a_lost: bool| outcome.games.iter().filter(|g| g.outcome.reason == Reason::Time && (g.a_points == 0.0) == a_lost).count();
    let (time_a, time_b) = (on_time(true), on_time(false));
    if time_a + time_b > 0 {
        writeln!(out, "Lost on time: A {time_a}, B {time_b}")?;
    }
    if let Some(path) = &args.json {
        let mut v = summary_json(name_a, name_b, t, settings.sprt.as_ref());
        v["game"] = serde_json::json!(G::SHAPE_NAME);
        v["rules"] = serde_json::json!(rules);
        v["opening_plies"] = serde_json::json!(settings.opening_plies);
        v["seed"] = serde_json::json!(settings.seed);
        v["forfeits"] = serde_json::json!({"a": outcome.forfeits_a, "b": outcome.forfeits_b});
        v["time_losses"] = serde_json::json!({"a": time_a, "b": time_b});
        v["adjudicated"] = serde_json::json!({"draws": adjudicated_draws, "decided": adjudicated.len() - adjudicated_draws});
        v["tablebase"] = serde_json::json!(by_tables);
        write_output(path, serde_json::to_string_pretty(&v)?.as_bytes(), args.force)?;
    }
    Ok(())
}

#[derive(Args, Debug)]
pub struct ArenaArgs {
    /// Player A, KIND:KEY=VALUE,...: alphabeta (depth=N, movetime=MS, nodes=N, hash=MB,
    /// threads=N), mcts (model=PATH, sims=N, movetime=MS, cpuct=X, cpuctfactor=X, tactics=PLIES,
    /// reuse=false), random, external (cmd="PROGRAM ARGS", depth=N, movetime=MS, nodes=N),
    /// expectiminimax (the flip game: depth=N, movetime=MS, nodes=N); every kind also takes
    /// tc=MOVES/SECONDS+INC, a game clock (e.g. tc=0/10+0.1). E.g. mcts:model=net.jzm,sims=64 or alphabeta:depth=4
    #[arg(long, value_parser = parse_spec)]
    pub a: SpecText,
    /// Player B (the same forms as --a).
    #[arg(long, value_parser = parse_spec)]
    pub b: SpecText,
    /// Keys for both players, before their own (cutechess's -each), e.g. tc=0/10+0.1 or
    /// hash=64; a player's own key of the same name wins.
    #[arg(long, value_name = "KEY=VALUE,...")]
    pub each: Option<String>,
    /// Games (whole pairs: each opening with both colours).
    #[arg(long, default_value_t = MATCH_GAMES, value_parser = clap::value_parser!(u32).range(1..=100_000))]
    pub games: u32,
    /// Stop early when the sequential test decides, e.g. elo0=0,elo1=30,alpha=0.05,beta=0.05.
    #[arg(long, value_parser = parse_sprt)]
    pub sprt: Option<crate::arena::stats::Sprt>,
    /// Games played at once (0: one per CPU core; default: the config's arena.concurrency).
    #[arg(long, value_parser = declared::<usize>("arena.concurrency"))]
    pub concurrency: Option<usize>,
    /// Random plies of each opening (default: the config's arena.opening_plies).
    #[arg(long)]
    pub opening_plies: Option<usize>,
    /// Write the result to a JSON file (`--json` is the old spelling).
    #[arg(long = "json-out", alias = "json", value_name = "PATH")]
    pub json: Option<PathBuf>,
    /// Write the games in PGN form.
    #[arg(long, value_name = "PATH")]
    pub games_out: Option<PathBuf>,
    /// Replace existing output files (a symbolic link is replaced itself; what it points to is
    /// never written). Without it an existing file is refused.
    #[arg(long)]
    pub force: bool,
    /// Seed of the opening suite.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// The openings (default: the shipped book of balanced openings, books/jungle-balanced.txt,
    /// under the default rules): `random` for random ones of arena.opening_plies plies, or a
    /// file: one a line (moves from the start, e.g. `a3a4 g7g6`, or a FEN, optionally followed
    /// by `moves ...`) or PGN (a `[FEN]` tag sets the game's start); pair N plays opening N,
    /// round and round.
    #[arg(long, value_name = "FILE|random")]
    pub openings: Option<PathBuf>,
    /// The match's journal: every finished game is appended to FILE as it ends, and the same
    /// command with the same FILE plays only the games it does not hold yet.
    #[arg(long, value_name = "FILE")]
    pub log: Option<PathBuf>,
    /// Rule switches over the config's [rules] (the flip game: over its [flip_rules]).
    #[arg(long)]
    pub rules: Option<String>,
    /// The game (default: the config's `game`); flip-game players are expectiminimax:depth=N,
    /// mcts:model=PATH,sims=N with a flip-game network, and random.
    #[arg(long, value_enum)]
    pub game: Option<GameKind>,
    #[command(flatten)]
    pub config: ConfigArgs,
}
