//! `junglezero inspect MODEL|--model MODEL [--json]`: what a model file holds; `junglezero import WEIGHTS
//! --out MODEL`: an export back into a model file.

use std::io::Write;
use std::path::PathBuf;

use clap::Args;

use crate::nn::device::parse_device;
use crate::nn::modelfile;
use burn::module::Module;

pub fn import(args: ImportArgs) -> anyhow::Result<()> {
    // Checked before the weights are read, and again as the file is placed.
    crate::store::Outputs::new(&[&args.out], args.force)?;
    let (net, meta) = crate::nn::files::import::import(&args.weights, &parse_device("flex")?)?;
    modelfile::save_output(&args.out, &net, &meta, args.force)?;
    println!("imported {} ({} {}, {}) into {}", args.weights.display(), meta.game, meta.model.describe(), meta.id, args.out.display());
    Ok(())
}

pub fn run(args: InspectArgs) -> anyhow::Result<()> {
    // Loading the weights checks them against the header (and for non-finite values), so a
    // damaged file is reported here, not when a match starts.
    let (net, meta) = modelfile::load_any(args.model(), &parse_device("flex")?)?;
    let parameters = net.num_params();
    let created = chrono::DateTime::from_timestamp(meta.created as i64, 0).map_or_else(|| "unknown".into(), |t| t.format("%Y-%m-%d %H:%M UTC").to_string());
    let mut out = std::io::stdout().lock();
    if args.json {
        let mut v = serde_json::to_value(&meta)?;
        v["parameters"] = parameters.into();
        v["file"] = args.model().display().to_string().into();
        writeln!(out, "{v}")?;
        return Ok(());
    }
    let m = &meta.model;
    let heads: Vec<&str> = [(m.moves_left, "moves left"), (m.opponent_policy, "opponent policy"), (m.short_value, "short-term value")]
        .iter()
        .filter(|h| h.0)
        .map(|h| h.1)
        .collect();
    writeln!(out, "file:        {}", args.model().display())?;
    writeln!(out, "game:        {}", meta.game)?;
    writeln!(
        out,
        "network:     {} residual blocks × {} channels; policy and value heads{}",
        m.blocks,
        m.channels,
        if heads.is_empty() { String::new() } else { format!(", and {}", heads.join(", ")) }
    )?;
    writeln!(out, "parameters:  {parameters}")?;
    writeln!(out, "input:       {} planes; {} actions", meta.input_planes, meta.actions)?;
    writeln!(out, "rules:       {}", meta.rules)?;
    writeln!(out, "network id:  {} (generation {})", meta.id, meta.generation)?;
    writeln!(out, "run:         {}", if meta.run.is_empty() { "none recorded" } else { &meta.run })?;
    writeln!(out, "trained:     {} optimiser steps; {} games in the run (self-play and teacher) when written", meta.train_steps, meta.games)?;
    writeln!(out, "written:     {created}")?;
    Ok(())
}

#[derive(Args, Debug)]
pub struct ImportArgs {
    /// The weights (X.safetensors); the description X.json must be beside them.
    #[arg(value_name = "WEIGHTS")]
    pub weights: PathBuf,
    /// The model file to write (.jzm); an existing file is refused unless --force.
    #[arg(long, value_name = "PATH")]
    pub out: PathBuf,
    /// Replace existing output files (a symbolic link is replaced itself; what it points to is
    /// never written). Without it an existing file is refused.
    #[arg(long)]
    pub force: bool,
}

#[derive(Args, Debug)]
pub struct InspectArgs {
    /// The model file (.jzm)...
    #[arg(value_name = "MODEL", required_unless_present = "model_flag", conflicts_with = "model_flag")]
    pub model_pos: Option<PathBuf>,
    /// ...or as `--model PATH`, as the other commands take it.
    #[arg(long = "model", id = "model_flag", value_name = "PATH")]
    pub model_flag: Option<PathBuf>,
    /// Print it as one JSON object.
    #[arg(long)]
    pub json: bool,
}

impl InspectArgs {
    /// The model file, however it was given.
    pub fn model(&self) -> &std::path::Path {
        self.model_flag.as_deref().or(self.model_pos.as_deref()).unwrap_or(std::path::Path::new(""))
    }
}
