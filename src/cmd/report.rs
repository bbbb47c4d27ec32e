//! `junglezero report`: the run report from a run directory's metrics and models.

use junglezero::store::run::RunDir;

use crate::cli::ReportArgs;

pub fn run(args: ReportArgs) -> anyhow::Result<()> {
    let path = junglezero::report::write_report(&RunDir::new(&args.run))?;
    println!("report written to {}", path.display());
    Ok(())
}
