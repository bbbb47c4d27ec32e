//! `junglezero report`: the run report from a run directory's metrics and models.

use clap::Args;

use crate::store::run::RunDir;

pub fn run(args: ReportArgs) -> anyhow::Result<()> {
    let run = RunDir::open(&args.run, "report")?;
    run.pull(None)?;
    let path = crate::report::write_report(&run)?;
    run.push()?;
    match run.store() {
        Some(r) => println!("report written to {} (uploaded to {}/report/)", path.display(), r.url()),
        None => println!("report written to {}", path.display()),
    }
    Ok(())
}

#[derive(Args, Debug)]
pub struct ReportArgs {
    /// The run: a directory or an object-store URL.
    #[arg(long, value_name = "DIR|URL")]
    pub run: String,
}
