//! `junglezero export`: a model file to portable weights (see `nn::files::export`), for any game.

use std::path::PathBuf;

use clap::Args;

use crate::entries::HouseGame;
use crate::nn::modelfile::ModelMeta;
use crate::nn::{NetEvaluator, device::parse_device, files::export, modelfile};
use crate::registry::GameName;
use crate::trainable::Trainable;

pub fn run(args: ExportArgs) -> anyhow::Result<()> {
    let meta = modelfile::read_meta(&args.model)?;
    let game = GameName::named(&meta.game).ok_or_else(|| anyhow::anyhow!("{}: unknown game '{}'", args.model.display(), meta.game))?;
    crate::with_game!(game, G => export_of::<G>(&args, &meta))
}

fn export_of<G: HouseGame>(args: &ExportArgs, meta: &ModelMeta) -> anyhow::Result<()> {
    let named = args.out.extension().is_some_and(|e| e.eq_ignore_ascii_case("onnx") || e.eq_ignore_ascii_case("safetensors"));
    if args.format.is_none() && !named {
        anyhow::bail!("{}: the output must end in .safetensors or .onnx (the format follows the name)", args.out.display());
    }
    let eval = NetEvaluator::from_file(&args.model, parse_device("flex")?, G::SHAPE)?;
    let rules: <G as Trainable>::Rules =
        meta.rules.parse().map_err(|e| anyhow::anyhow!("{}: the model's rules '{}' do not parse: {e}", args.model.display(), meta.rules))?;
    if args.format() == ExportFormat::Onnx {
        let (a, b) = export::export_onnx(&eval, meta, &G::export(&rules), &args.out, args.force)?;
        println!("exported {} ({} {}, ONNX opset {}), {}", a.display(), meta.game, meta.model.describe(), crate::nn::files::onnx::OPSET, b.display());
        return Ok(());
    }
    let (a, b, c) = export::export(&eval, meta, &G::export(&rules), &args.out, args.force)?;
    println!("exported {} ({} {}), {}, {}", a.display(), meta.game, meta.model.describe(), b.display(), c.display());
    Ok(())
}

#[derive(Args, Debug)]
pub struct ExportArgs {
    /// The model file (.jzm).
    #[arg(long, value_name = "PATH")]
    pub model: PathBuf,
    /// The output: FILE.safetensors (the .json and .samples.npz go beside it), or FILE.onnx
    /// (the .samples.npz beside it).
    #[arg(long, value_name = "FILE")]
    pub out: PathBuf,
    /// safetensors (weights with a JSON description) or onnx (the whole network); default:
    /// onnx when --out ends in .onnx, else safetensors.
    #[arg(long, value_enum)]
    pub format: Option<ExportFormat>,
    /// Replace existing output files (a symbolic link is replaced itself; what it points to is
    /// never written). Without it an existing file is refused.
    #[arg(long)]
    pub force: bool,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum ExportFormat {
    Safetensors,
    Onnx,
}

impl ExportArgs {
    /// `--format`, or when it is left out the one `--out`'s extension names (`.onnx`), else
    /// safetensors.
    pub fn format(&self) -> ExportFormat {
        let onnx = self.out.extension().is_some_and(|e| e.eq_ignore_ascii_case("onnx"));
        self.format.unwrap_or(if onnx { ExportFormat::Onnx } else { ExportFormat::Safetensors })
    }
}
