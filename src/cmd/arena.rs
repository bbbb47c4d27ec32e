//! `junglezero arena --a SPEC --b SPEC ...`

use std::io::Write;

use anyhow::Context;
use junglezero::arena::batched::run_network_match;
use junglezero::arena::flip_players::FlipFactory;
use junglezero::arena::game::MatchGame;
use junglezero::arena::pgn::{game_pgn, today};
use junglezero::arena::play::{MatchOutcome, MatchSettings, run_match};
use junglezero::arena::spec::{PlayerFactory, PlayerSpec};
use junglezero::arena::{forfeit_line, summary, summary_json};
use junglezero::config::Config;
use junglezero::flip::FlipGame;
use junglezero::game::Reason;
use junglezero::games::GameName;
use junglezero::store::write_output;

use super::progress::bar;
use crate::cli::ArenaArgs;

pub fn run(args: ArenaArgs) -> anyhow::Result<()> {
    let config = super::load_config(&args.config)?;
    if args.game.unwrap_or(config.game) == GameName::Flip {
        return run_flip(&args, &config);
    }
    let mut rules = config.rules;
    if let Some(spec) = &args.rules {
        rules.apply_overrides(spec).context("bad --rules")?;
    }
    if args.games == 0 {
        anyhow::bail!("--games must be at least 1");
    }
    let fa = PlayerFactory::new(args.a.clone(), &config.players()).context("player A")?;
    let fb = PlayerFactory::new(args.b.clone(), &config.players()).context("player B")?;
    let (name_a, name_b) = (fa.name(), fb.name());
    let settings = settings(&args, &config, rules);
    let pb = bar(u64::from(args.games.div_ceil(2) * 2), "games");
    let progress = |t: &junglezero::arena::stats::Tally, llr: Option<f64>| show_progress(&pb, t, llr);
    // Two networks with the same budget: batch their leaves across games.
    let outcome: MatchOutcome = match (&args.a, &args.b, fa.network(), fb.network()) {
        (
            PlayerSpec::Mcts { sims: sa, movetime: None, c_puct: None, reuse: None, tc: None, .. },
            PlayerSpec::Mcts { sims: sb, movetime: None, c_puct: None, reuse: None, tc: None, .. },
            Some(na),
            Some(nb),
        ) if sa == sb => run_network_match(&**na, &**nb, &config.mcts, *sa, &settings, 16, |_, t, llr| progress(t, llr)),
        _ => run_match(&fa, &fb, &settings, |_, t, llr| progress(t, llr))?,
    };
    pb.finish_and_clear();
    report(&args, &outcome, &settings, &name_a, &name_b, &rules.to_string())?;
    if let Some(path) = &args.games_out {
        let date = today();
        let text: String = outcome.games.iter().enumerate().map(|(i, g)| game_pgn(g, i + 1, &name_a, &name_b, &rules, &date)).collect();
        write_output(path, text.as_bytes())?;
    }
    Ok(())
}

/// A match's settings from the flags over the config's `[arena]`.
fn settings<G: MatchGame>(args: &ArenaArgs, config: &Config, rules: G::Rules) -> MatchSettings<G> {
    MatchSettings {
        games: args.games,
        concurrency: args.concurrency.unwrap_or_else(|| config.arena.workers()),
        opening_plies: args.opening_plies.unwrap_or(config.arena.opening_plies),
        seed: args.seed,
        rules,
        sprt: args.sprt,
        max_consecutive_forfeits: config.arena.max_consecutive_forfeits,
        adjudication: config.arena.adjudication(),
        time_margin: std::time::Duration::from_millis(config.arena.time_margin_ms),
    }
}

fn show_progress(pb: &indicatif::ProgressBar, t: &junglezero::arena::stats::Tally, llr: Option<f64>) {
    let (elo, ci) = t.elo();
    pb.set_position(u64::from(t.games()));
    pb.set_message(format!("W {} D {} L {}  Elo {elo:+.0} +/- {ci:.0}{}", t.wins, t.draws, t.losses, llr.map_or(String::new(), |l| format!("  LLR {l:.2}"))));
}

/// A flip-game match: both players built for the flip game, every pair of games dealt the
/// same shuffle with the seats swapped.
fn run_flip(args: &ArenaArgs, config: &Config) -> anyhow::Result<()> {
    let mut rules = config.flip_rules;
    if let Some(spec) = &args.rules {
        junglezero::switches::Switches::apply_overrides(&mut rules, spec).context("bad --rules for the flip game")?;
    }
    if args.games == 0 {
        anyhow::bail!("--games must be at least 1");
    }
    if args.games_out.is_some() {
        anyhow::bail!("--games-out writes PGN for the big game only; the flip game's records are in its shards");
    }
    let fa = FlipFactory::new(args.a.clone(), &config.mcts, &config.hardware).context("player A")?;
    let fb = FlipFactory::new(args.b.clone(), &config.mcts, &config.hardware).context("player B")?;
    let (name_a, name_b) = (args.a.to_string(), args.b.to_string());
    let settings = settings::<FlipGame>(args, config, rules);
    let pb = bar(u64::from(args.games.div_ceil(2) * 2), "games");
    let outcome = run_match(&fa, &fb, &settings, |_, t, llr| show_progress(&pb, t, llr))?;
    pb.finish_and_clear();
    report(args, &outcome, &settings, &name_a, &name_b, &rules.to_string())
}

/// The summary on stdout and, with `--json`, in a file.
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
        eprintln!("note: only {} distinct openings of {} plies exist; openings were reused", outcome.openings, settings.opening_plies);
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
        write_output(path, serde_json::to_string_pretty(&v)?.as_bytes())?;
    }
    Ok(())
}
