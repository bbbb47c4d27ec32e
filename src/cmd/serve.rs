//! `junglezero serve [--model FILE] [--run DIR] [--port N] [--host ADDR]`

use std::io::Write;
use std::path::PathBuf;
use std::sync::Arc;

use anyhow::Context;
use clap::Args;

use crate::cli::ConfigArgs;
use crate::nn::NetEvaluator;
use crate::registry::GameName;
use crate::serve::{ServeState, serve};

pub fn run(args: ServeArgs) -> anyhow::Result<()> {
    let config = super::load_config(&args.config)?;
    // A network of either game: the page plays the game it was trained for with it.
    let network = match &args.model {
        Some(path) => {
            let meta = crate::nn::modelfile::read_meta(path)?;
            let game = GameName::named(&meta.game).ok_or_else(|| anyhow::anyhow!("{}: a model of an unknown game '{}'", path.display(), meta.game))?;
            Some(Arc::new(NetEvaluator::load(path, &config.hardware, game.shape())?))
        }
        None => None,
    };
    // A run in object storage: its report is fetched once, into the run's mirror.
    let report_dir = match &args.run {
        Some(spec) => {
            let run = crate::store::run::RunDir::open(spec, "serve")?;
            run.pull(Some(&["config.toml", "report"]))?;
            anyhow::ensure!(run.root().is_dir(), "--run {spec}: no such run directory");
            Some(run.report_dir())
        }
        None => None,
    };
    if !args.host.is_loopback() {
        tracing::warn!("listening on {}: any machine that reaches it can run searches here", args.host);
    }
    let model_name = args.model.as_ref().map(|p| p.file_name().map_or_else(|| p.display().to_string(), |n| n.to_string_lossy().into_owned()));
    let state = Arc::new(ServeState::new(config, network, model_name, report_dir, args.searches as usize));
    let runtime = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().context("cannot start the server's runtime")?;
    runtime.block_on(async move {
        let listener = tokio::net::TcpListener::bind((args.host, args.port)).await.with_context(|| format!("cannot listen on {}:{}", args.host, args.port))?;
        let addr = listener.local_addr()?;
        let host = if addr.is_ipv6() { format!("[{}]", addr.ip()) } else { addr.ip().to_string() };
        println!("junglezero serve: open http://{host}:{}/ (Ctrl-C stops)", addr.port());
        std::io::stdout().flush()?;
        serve(listener, state).await.context("the server failed")
    })
}

#[derive(Args, Debug)]
pub struct ServeArgs {
    /// A network (.jzm) to play and analyse with; without one only alpha-beta is offered.
    #[arg(long, value_name = "PATH")]
    pub model: Option<PathBuf>,
    /// A run whose report/ the page links to: a directory or an object-store URL (its report
    /// is fetched once, at the start).
    #[arg(long, value_name = "DIR|URL")]
    pub run: Option<String>,
    /// Port to listen on (0: any free port).
    #[arg(long, default_value_t = 8080)]
    pub port: u16,
    /// Address to listen on. Anything but a loopback address lets other machines search on
    /// this one.
    #[arg(long, default_value = "127.0.0.1")]
    pub host: std::net::IpAddr,
    /// Searches that may run at once (each uses one core).
    #[arg(long, default_value_t = 2, value_parser = clap::value_parser!(u16).range(1..=64))]
    pub searches: u16,
    #[command(flatten)]
    pub config: ConfigArgs,
}
