//! `junglezero`: parse the command line, dispatch, and map errors to one line and exit code 2.

use junglezero::cmd;

use std::process::ExitCode;

use clap::Parser;
use clap::error::ErrorKind;

use cmd::commands::{Cli, Command};

fn main() -> ExitCode {
    // The reaper of external engines' process groups (started by this binary itself).
    if std::env::args_os().nth(1).is_some_and(|a| a == junglezero::arena::procgroup::REAPER_ARG) {
        return junglezero::arena::procgroup::reap();
    }
    keep_freed_memory();
    init_logging();
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => {
            if matches!(e.kind(), ErrorKind::DisplayHelp | ErrorKind::DisplayVersion) {
                let _ = e.print();
                return ExitCode::SUCCESS;
            }
            if e.kind() == ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand {
                let _ = e.print();
                return ExitCode::from(2);
            }
            // One line naming the problem, not clap's multi-line usage block: the first
            // paragraph of clap's message joined into one line, then its tips ("a similar
            // subcommand exists: 'train'").
            let text = e.render().to_string();
            let para: Vec<&str> = text.lines().map(str::trim).skip_while(|l| l.is_empty()).take_while(|l| !l.is_empty()).collect();
            let mut line = if para.is_empty() { "error: invalid arguments".to_string() } else { para.join(" ") };
            for tip in text.lines().map(str::trim).filter(|l| l.starts_with("tip:")) {
                line.push_str(" (");
                line.push_str(tip);
                line.push(')');
            }
            eprintln!("{}", junglezero::check::clip_message(&line));
            return ExitCode::from(2);
        }
    };
    match run(cli) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) if cmd::is_broken_pipe(&e) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {}", one_line(&e));
            ExitCode::from(2)
        }
    }
}

/// The error and its causes on one line, each said once: a library error that already
/// writes its cause into its own message is not followed by the cause again. Cut to a length
/// a terminal can show.
fn one_line(e: &anyhow::Error) -> String {
    let mut msg = String::new();
    for cause in e.chain() {
        let text = cause.to_string();
        if text.is_empty() || msg.contains(&text) {
            continue;
        }
        if !msg.is_empty() {
            msg.push_str(": ");
        }
        msg.push_str(&text);
    }
    junglezero::check::clip_message(&msg.replace(['\n', '\r'], " "))
}

fn run(cli: Cli) -> anyhow::Result<()> {
    match cli.command {
        Command::Perft(args) => cmd::perft::run(args),
        Command::Show(args) => cmd::show::run(args),
        Command::Search(args) => cmd::search::run(args),
        Command::Play(args) => cmd::play::run(args),
        Command::Arena(args) => cmd::arena::run(args),
        Command::Export(args) => cmd::export::run(args),
        Command::Average(args) => cmd::average::run(args),
        Command::Verify(args) => cmd::verify::run(args),
        Command::Inspect(args) => cmd::inspect::run(args),
        Command::Import(args) => cmd::inspect::import(args),
        Command::Analyse(args) => cmd::analyse_position::run(args),
        Command::Analysis(args) => cmd::analysis_engine::run(args),
        Command::Tournament(args) => cmd::tournament::run(args),
        Command::Book(args) => cmd::book::run(args),
        Command::Report(args) => cmd::report::run(args),
        Command::Dump(args) => cmd::train::dump(args),
        Command::Selfplay(args) => cmd::selfplay::run(args),
        Command::Train(args) => cmd::train::train(args),
        Command::Learn(args) => cmd::train::learn(args),
        Command::Gate(args) => cmd::train::gate(args),
        Command::Uci(args) => cmd::uci::run(args),
        Command::Serve(args) => cmd::serve::run(args),
        Command::Bench(b) => cmd::bench::run(b),
        Command::Tb(t) => cmd::jungle::tb::run(t),
        Command::Config(c) => cmd::config::run(c),
    }
}

/// Logs go to stderr; `RUST_LOG` picks the level (default: info, and only errors from the GPU
/// runtime's device threads, whose failures the device check reports itself in one line).
/// Keeps the blocks a training step frees for the next step: glibc's allocator otherwise maps
/// each large buffer afresh and unmaps it when freed, and the page faults and the other
/// core's TLB flushes took about a fifth of a 4 x 32 training step (BENCHMARKS.md, "Training
/// at the speed of the cores"). Memory stays at its peak instead of shrinking between steps.
fn keep_freed_memory() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: mallopt only sets the allocator's parameters; it is called before any thread starts.
    unsafe {
        libc::mallopt(libc::M_MMAP_THRESHOLD, 256 << 20);
        libc::mallopt(libc::M_TRIM_THRESHOLD, 512 << 20);
    }
}

fn init_logging() {
    use tracing_subscriber::EnvFilter;
    let filter = EnvFilter::try_from_default_env().unwrap_or_else(|_| EnvFilter::new("info,cubecl_common::device=error"));
    // Colour only on a terminal, and never when NO_COLOR is set (https://no-color.org).
    let colour = std::io::IsTerminal::is_terminal(&std::io::stderr()) && std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty());
    let _ = tracing_subscriber::fmt().with_env_filter(filter).with_writer(std::io::stderr).with_target(false).with_ansi(colour).try_init();
}
