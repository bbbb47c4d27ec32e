//! `junglezero verify --run DIR [--json]`

use std::io::Write;

use clap::Args;

pub fn run(args: VerifyArgs) -> anyhow::Result<()> {
    let run = crate::store::run::RunDir::open(&args.run, "verify")?;
    run.pull(None)?;
    let a = crate::audit::audit_run(&run)?;
    let mut out = std::io::stdout().lock();
    if args.json {
        writeln!(out, "{}", serde_json::to_string(&a)?)?;
    } else {
        match &a.checkpoint {
            Some(c) => writeln!(
                out,
                "checkpoint: generation {}, step {}, {} games and {} samples seen from {} shards, {} samples trained",
                c.iteration, c.step, c.games_seen, c.samples_seen, c.seen_shards, c.samples_trained
            )?,
            None => writeln!(out, "checkpoint: none yet")?,
        }
        writeln!(out, "shards: {} with {} games ({} not read by the learner yet)", a.shards, a.shard_games, a.unread_shards.len())?;
        writeln!(
            out,
            "networks: best {}, {} promoted, {} waiting, {} rejected",
            a.best.map_or("none".to_string(), |g| format!("gen-{g:04}")),
            a.models,
            a.candidates,
            a.rejected
        )?;
        if !a.temporaries.is_empty() {
            writeln!(out, "temporary files of interrupted writers (removed at the next start): {}", a.temporaries.join(", "))?;
        }
        for p in &a.problems {
            writeln!(out, "problem: {p}")?;
        }
        writeln!(out, "{}", if a.problems.is_empty() { "ok" } else { "PROBLEMS FOUND" })?;
    }
    if !a.problems.is_empty() {
        anyhow::bail!("{}: {} problem(s); the first: {}", args.run, a.problems.len(), a.problems[0]);
    }
    Ok(())
}

#[derive(Args, Debug)]
pub struct VerifyArgs {
    /// The run: a directory or an object-store URL.
    #[arg(long, value_name = "DIR|URL")]
    pub run: String,
    /// Print the findings as one JSON object.
    #[arg(long)]
    pub json: bool,
}
