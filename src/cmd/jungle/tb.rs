//! `junglezero tb build|probe|score`: endgame tablebases (see `crate::tb`).

use std::io::Write;

use crate::entries::HouseGame;
use crate::game::Encode;
use crate::jungle::{JungleGame, Rules};
use crate::nn::NetEvaluator;
use crate::pipeline::RunGame;
use crate::store::lines::CappedLines;
use crate::store::{Outputs, caps};
use crate::tb::generate::{Built, build_dir};
use crate::tb::{Material, Tablebase};

use crate::cli::{ConfigArgs, TbCommand};
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
