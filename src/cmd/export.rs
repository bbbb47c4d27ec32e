//! `junglezero export`: a model file to portable weights (see `nn::export`), for either game.

use junglezero::flip::FlipRules;
use junglezero::games::shape_named;
use junglezero::jungle::Rules;
use junglezero::nn::{burn_eval::NetEvaluator, device::parse_device, export, modelfile};

use crate::cli::ExportArgs;

pub fn run(args: ExportArgs) -> anyhow::Result<()> {
    let meta = modelfile::read_meta(&args.model)?;
    let shape = shape_named(&meta.game).ok_or_else(|| anyhow::anyhow!("{}: unknown game '{}'", args.model.display(), meta.game))?;
    let eval = NetEvaluator::from_file(&args.model, parse_device("flex")?, shape)?;
    let bad_rules = |e: &dyn std::fmt::Display| anyhow::anyhow!("{}: the model's rules '{}' do not parse: {e}", args.model.display(), meta.rules);
    let game = match meta.game.as_str() {
        "flip" => export::flip_export(&meta.rules.parse::<FlipRules>().map_err(|e| bad_rules(&e))?),
        _ => export::jungle_export(&meta.rules.parse::<Rules>().map_err(|e| bad_rules(&e))?),
    };
    let (a, b, c) = export::export(&eval, &meta, &game, &args.out)?;
    println!("exported {} ({} {}), {}, {}", a.display(), meta.game, meta.model.describe(), b.display(), c.display());
    Ok(())
}
