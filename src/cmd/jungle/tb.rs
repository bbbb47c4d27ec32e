//! `junglezero tb build|probe|score`: endgame tablebases (see `crate::tb`).

use std::io::Write;
use std::path::PathBuf;

use clap::Subcommand;

use crate::cli::ConfigArgs;
use crate::entries::HouseGame;
use crate::game::Encode;
use crate::jungle::{JungleGame, Rules};
use crate::nn::NetEvaluator;
use crate::pipeline::RunGame;
use crate::store::lines::CappedLines;
use crate::store::{Outputs, caps};
use crate::tb::generate::{Built, build_dir};
use crate::tb::{Material, Tablebase};

use crate::cmd::progress::bar;

pub fn run(cmd: TbCommand) -> anyhow::Result<()> {
    match cmd {
        TbCommand::Build { pieces, material, rules, out, json, force, config } => {
            let rules = rules_of(&config, rules.as_deref())?;
            // The output is checked before the build, which may take long.
            let mut outputs = json.as_deref().map(|p| Outputs::new(&[p], force)).transpose()?;
            let mut targets = Vec::new();
            if let Some(n) = pieces {
                targets.extend(Material::all_up_to(usize::from(n)));
            }
            for text in &material {
                let m = Material::parse(text)?;
                if m.count() > 4 {
                    anyhow::bail!("{m}: the tables go up to 4 pieces");
                }
                targets.push(m);
            }
            if targets.is_empty() {
                anyhow::bail!("say what to build: --pieces N and/or --material LIST");
            }
            let all = crate::tb::generate::closure(&targets);
            let pb = bar(all.len() as u64, "tables");
            let show = |b: &Built| {
                pb.inc(1);
                pb.set_message(format!("{} {}", b.material, if b.reused { "kept" } else { "built" }));
            };
            let built = build_dir(&out, &rules, &targets, &show)?;
            pb.finish_and_clear();
            summary(&built, &rules, &out)?;
            if let (Some(path), Some(mut files)) = (json, outputs.take()) {
                files.add(&path, serde_json::to_string_pretty(&serde_json::json!({ "rules": rules.to_string(), "tables": built }))?.as_bytes())?;
                files.commit()?;
            }
            Ok(())
        }
        TbCommand::Probe { tb, rules, config } => {
            let rules = rules_of(&config, rules.as_deref())?;
            let tables = Tablebase::open(&tb, &rules)?;
            tables.report_damage_myself();
            let mut out = std::io::stdout().lock();
            let mut lines = CappedLines::new(std::io::BufReader::new(std::io::stdin().lock()), caps::LINE);
            while let Some(line) = lines.next_line() {
                let answer = match line {
                    Ok(l) if l.trim().is_empty() => continue,
                    Err(e) => format!("error: {e}"),
                    Ok(l) => match crate::jungle::parse_fen(l.trim()) {
                        Err(e) => format!("error: {e}"),
                        Ok(pos) => match tables.probe(&pos) {
                            Ok(v) => v.to_string(),
                            // A damaged table is the folder's fault, not the line's.
                            Err(crate::tb::ProbeError::Damaged(e)) => anyhow::bail!(e),
                            Err(e) => format!("error: {e}"),
                        },
                    },
                };
                writeln!(out, "{answer}")?;
                out.flush()?;
            }
            Ok(())
        }
        TbCommand::Score { tb, models, model_flags, rules, config } => {
            let models = if model_flags.is_empty() { models } else { model_flags };
            let mut config = crate::cmd::load_config(&config)?;
            config.rules.jungle = JungleGame::rules_with(&config, rules.as_deref()).map_err(|e| anyhow::anyhow!("bad --rules: {e}"))?;
            // Opened here first, so a folder without tables (or built for other rules) is an error.
            let tables = crate::tb::shared(&tb, &config.rules.jungle)?;
            tables.report_damage_myself();
            config.tablebase.dir = tb.display().to_string();
            let sample = <JungleGame as RunGame>::yardstick(&config);
            if let Some(e) = tables.damage() {
                anyhow::bail!(e);
            }
            if sample.is_empty() {
                anyhow::bail!("{}: no two- or three-piece tables to sample", tb.display());
            }
            let mut out = std::io::stdout().lock();
            for path in &models {
                let net = NetEvaluator::load(path, &config.hardware, <JungleGame as Encode>::SHAPE)?;
                let (accuracy, error) = crate::nn::measure::yardstick::measure(&net, &sample);
                writeln!(out, "{}: value accuracy {accuracy:.3}, mean |value error| {error:.3} on {} tablebase positions", path.display(), sample.len())?;
            }
            Ok(())
        }
    }
}

/// The config's Jungle rules with `--rules` over them.
fn rules_of(config: &ConfigArgs, spec: Option<&str>) -> anyhow::Result<Rules> {
    let config = crate::cmd::load_config(config)?;
    JungleGame::rules_with(&config, spec).map_err(|e| anyhow::anyhow!("bad --rules: {e}"))
}

/// Per piece count: tables, positions, wins, draws, losses, the longest win, time and size.
fn summary(built: &[Built], rules: &Rules, dir: &std::path::Path) -> anyhow::Result<()> {
    let mut out = std::io::stdout().lock();
    writeln!(
        out,
        "{:>6} {:>7} {:>13} {:>13} {:>13} {:>13} {:>8} {:>9} {:>11}",
        "pieces", "tables", "positions", "wins", "draws", "losses", "longest", "seconds", "bytes"
    )?;
    for n in 2..=4 {
        let rows: Vec<&Built> = built.iter().filter(|b| b.pieces == n).collect();
        if rows.is_empty() {
            continue;
        }
        let sum = |f: &dyn Fn(&Built) -> u64| rows.iter().map(|b| f(b)).sum::<u64>();
        let longest = rows.iter().map(|b| b.stats.longest_win).max().unwrap_or(0);
        let secs: f64 = rows.iter().map(|b| b.seconds).sum();
        writeln!(
            out,
            "{n:>6} {:>7} {:>13} {:>13} {:>13} {:>13} {longest:>8} {secs:>9.1} {:>11}",
            rows.len(),
            sum(&|b| b.stats.positions),
            sum(&|b| b.stats.wins),
            sum(&|b| b.stats.draws),
            sum(&|b| b.stats.losses),
            sum(&|b| b.bytes)
        )?;
    }
    let kept = built.iter().filter(|b| b.reused).count();
    writeln!(out, "rules {rules}; tables in {}{}", dir.display(), if kept > 0 { format!(" ({kept} kept from an earlier build)") } else { String::new() })?;
    Ok(())
}

#[derive(Subcommand, Debug)]
pub enum TbCommand {
    /// Computes by retrograde analysis the exact result and distance of every position with up
    /// to N pieces (or of the materials given and what their captures reach), one file per
    /// material; tables already in the folder are kept, so a build resumes.
    Build {
        /// Every material with up to this many pieces (2 and 3 take seconds; all of 4, 854
        /// tables, about half an hour on two cores: or name 4-piece materials with --material).
        #[arg(long, value_parser = clap::value_parser!(u8).range(2..=4))]
        pieces: Option<u8>,
        /// Materials, e.g. ER-l,LT-r (Red's animals, a dash, Blue's; letters R C D W P T L E).
        #[arg(long, value_delimiter = ',')]
        material: Vec<String>,
        /// Rule switches over the config's [rules] (the tables depend on the capture switches;
        /// e.g. icga2014).
        #[arg(long)]
        rules: Option<String>,
        /// The tables' folder (`--tb`, as the other table commands name it; `--out` is the old
        /// spelling).
        #[arg(long = "tb", alias = "out", value_name = "DIR")]
        out: PathBuf,
        /// Write what was built (per material: positions, wins, draws, losses, longest win,
        /// seconds, bytes) as a JSON file (`--json` is the old spelling).
        #[arg(long = "json-out", alias = "json", value_name = "PATH")]
        json: Option<PathBuf>,
        /// Replace an existing --json-out file (a symbolic link is replaced itself).
        #[arg(long)]
        force: bool,
        #[command(flatten)]
        config: ConfigArgs,
    },
    /// Reads one FEN a line on stdin and prints one line each: `win N`, `loss N` or `draw`
    /// for the side to move (N plies to the end with best play), or `error: ...`.
    Probe {
        /// The tables' folder.
        #[arg(long, value_name = "DIR")]
        tb: PathBuf,
        /// Rule switches over the config's [rules] (must be those the tables were built for).
        #[arg(long)]
        rules: Option<String>,
        #[command(flatten)]
        config: ConfigArgs,
    },
    /// Measures networks against the tables: on the fixed sample of 512 two- and three-piece
    /// positions the training report uses, the share whose most likely win/draw/loss class is
    /// the exact one, and the mean distance between the network's value and the exact value.
    Score {
        /// The tables' folder.
        #[arg(long, value_name = "DIR")]
        tb: PathBuf,
        /// The networks (.jzm), one line each...
        #[arg(value_name = "MODEL", required_unless_present = "model_flags", conflicts_with = "model_flags")]
        models: Vec<PathBuf>,
        /// ...or as `--model PATH`, repeated.
        #[arg(long = "model", id = "model_flags", value_name = "PATH")]
        model_flags: Vec<PathBuf>,
        /// Rule switches over the config's [rules] (must be those the tables were built for).
        #[arg(long)]
        rules: Option<String>,
        #[command(flatten)]
        config: ConfigArgs,
    },
}
