//! `junglezero average`: one network from several of the same run, weight by weight (a
//! uniform mean, or an exponential moving average from the oldest to the newest).

use std::path::PathBuf;

use clap::Args;

use crate::nn::{device::parse_device, model::average, modelfile};
use crate::store::events::now;

pub fn run(args: AverageArgs) -> anyhow::Result<()> {
    crate::store::Outputs::new(&[&args.out], args.force)?;
    let device = parse_device("flex")?;
    let mut nets = Vec::with_capacity(args.models().len());
    for path in args.models() {
        nets.push((path, modelfile::load_any(path, &device)?));
    }
    let Some(((first_path, (_, first)), rest)) = nets.split_first() else {
        anyhow::bail!("name at least one model file");
    };
    for (path, (_, meta)) in rest {
        if meta.game != first.game || meta.model != first.model || meta.rules != first.rules {
            anyhow::bail!(
                "{}: a {} {} network under rules '{}' cannot be averaged with {} ({} {}, '{}')",
                path.display(),
                meta.game,
                meta.model.describe(),
                meta.rules,
                first_path.display(),
                first.game,
                first.model.describe(),
                first.rules
            );
        }
    }
    let mut iter = nets.into_iter();
    let (_, (mut avg, mut meta)) = iter.next().expect("one model at least, checked above");
    for (k, (path, (net, m))) in iter.enumerate() {
        // The k+2-th network: weight 1/(k+2) keeps a uniform mean; 1 - decay an EMA.
        let weight_new = match args.decay {
            Some(d) => 1.0 - d,
            None => 1.0 / (k as f64 + 2.0),
        };
        avg = average::blend(&avg, &net, weight_new).map_err(|e| anyhow::anyhow!("{}: {e}", path.display()))?;
        meta = m;
    }
    let how = args.decay.map_or_else(|| "mean".to_string(), |d| format!("ema{d}"));
    meta.id = format!("{}-{how}-of-{}", meta.id, args.models().len());
    meta.created = now();
    modelfile::save_output(&args.out, &avg, &meta, args.force)?;
    println!("wrote {} ({}: {} networks, {})", args.out.display(), meta.id, args.models().len(), meta.model.describe());
    Ok(())
}

#[derive(Args, Debug)]
pub struct AverageArgs {
    /// The model files (.jzm), oldest first...
    #[arg(value_name = "MODEL", required_unless_present = "model_flags", conflicts_with = "model_flags")]
    pub models: Vec<PathBuf>,
    /// ...or as `--model PATH`, repeated, oldest first.
    #[arg(long = "model", id = "model_flags", value_name = "PATH")]
    pub model_flags: Vec<PathBuf>,
    /// Output model file.
    #[arg(long, value_name = "FILE")]
    pub out: PathBuf,
    /// An exponential moving average from the oldest to the newest: each next network enters
    /// with weight 1 - decay (default: the plain mean).
    #[arg(long, value_parser = parse_decay)]
    pub decay: Option<f64>,
    /// Replace existing output files (a symbolic link is replaced itself; what it points to is
    /// never written). Without it an existing file is refused.
    #[arg(long)]
    pub force: bool,
}

impl AverageArgs {
    /// The model files, however they were given, oldest first.
    pub fn models(&self) -> &[PathBuf] {
        if self.model_flags.is_empty() { &self.models } else { &self.model_flags }
    }
}

fn parse_decay(s: &str) -> Result<f64, String> {
    match s.parse::<f64>() {
        Ok(d) if (0.0..1.0).contains(&d) => Ok(d),
        _ => Err(format!("'{s}' is not a number in [0, 1)")),
    }
}
