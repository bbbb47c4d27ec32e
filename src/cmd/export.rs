//! `junglezero export`: a model file to portable weights (see `nn::export`).

use junglezero::jungle::Rules;
use junglezero::nn::{burn_eval::NetEvaluator, device::parse_device, export, modelfile};

use crate::cli::ExportArgs;

pub fn run(args: ExportArgs) -> anyhow::Result<()> {
    let meta = modelfile::read_meta(&args.model)?;
    let eval = NetEvaluator::from_file(&args.model, parse_device("flex")?, junglezero::jungle::encode::SHAPE)?;
    let rules: Rules = meta
        .rules
        .parse()
        .map_err(|e| anyhow::anyhow!("{}: the model's rules '{}' do not parse: {e}", args.model.display(), meta.rules))?;
    let (a, b, c) = export::export(&eval, &meta, &rules, &args.out)?;
    println!("exported {} ({}), {}, {}", a.display(), meta.model.describe(), b.display(), c.display());
    Ok(())
}
