//! Every command the README shows is run as written (with `junglezero` on the PATH), from a
//! folder holding what a fresh clone has, except those in [`SKIPPED`], each with its reason.
//!
//! Commands are the lines of ```sh blocks, the `$ ` lines of other blocks, and inline code
//! that starts with `junglezero SUBCOMMAND` and names no placeholder (an upper-case word such
//! as PATH, DIR, N or MODEL..., or an optional part in brackets): those are forms, not
//! commands. They run in the order the README shows them, so a later command may read what an
//! earlier one wrote (`tb probe` the tables `tb build` wrote, `import` the export).

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// Commands not run, and why. Each must still be in the README (a stale entry fails), and
/// the files each names must exist.
const SKIPPED: &[(&str, &str)] = &[
    ("cargo run --release -- train --config configs/default.toml", "the main job: trains for an hour"),
    ("cargo test --release", "the test suite itself"),
    ("cargo install --path .", "installs into ~/.cargo/bin"),
    ("cargo install --profile dist --path .", "installs into ~/.cargo/bin, after minutes of link-time optimisation"),
    ("junglezero train --config configs/default.toml", "the main job: trains for an hour"),
    ("junglezero train --run runs/mine --set train.time_limit_minutes=60", "trains for an hour"),
    (
        "junglezero arena --a mcts:model=checkpoints/sample-cpu-1h/gen-0072.jzm,sims=64 --b alphabeta:depth=4 --games 200",
        "200 games take minutes on two cores; its result is the shipped checkpoints/sample-cpu-1h/arena-gen72-vs-alphabeta-d4.json",
    ),
    (
        "junglezero serve --model checkpoints/sample-cpu-1h/gen-0072.jzm --run checkpoints/sample-cpu-1h",
        "a server on port 8080 that runs until stopped (tests/it/serve.rs tests its endpoints)",
    ),
    (
        "junglezero bench levels --elo -950,-700,-400,-150,150,400,650,900 --games 80 --concurrency 2 --seed 5",
        "3 520 games, about 15 minutes on two cores; its games and results are in checkpoints/learning/levels/verify5/",
    ),
    ("junglezero train --config configs/flip.toml", "trains the flip game for an hour"),
    (
        "junglezero arena --game flip --a mcts:model=PATH,sims=64 --b expectiminimax:depth=2 --games 200",
        "PATH is a network the flip training above writes; none ships",
    ),
    ("pip install ./python", "builds the Python package, minutes long; CI installs it and runs python/tests"),
    ("cargo build --release --features wgpu", "a build of its own, minutes long"),
    ("cargo build --release --features wgpu,cudnn", "a build of its own, minutes long"),
    ("./target/release/junglezero train --config configs/gpu.toml", "trains on a GPU"),
    ("junglezero bench agree --set hardware.device=cudnn", "its outcome depends on the machine's NVIDIA driver and on a build with the cudnn feature"),
    ("junglezero bench nn", "measures for a second at each of 11 batch sizes; the `bench nn --max-batch 64` form shown below it runs"),
];

/// What a command's output must hold, where the README says what it prints.
const EXPECTED: &[(&str, &str)] = &[
    ("junglezero perft 6", "nodes 100453636 "),
    ("junglezero show --fen", "game over: Red wins by entering the den"),
    ("| junglezero tb probe --tb tb", "win 27"),
    ("junglezero search --depth 12", "bestmove "),
    ("junglezero analyse --model", "bestmove "),
    ("junglezero inspect", "network id:  gen-0072"),
    ("junglezero config keys", "mcts.playouts "),
];

/// A command the README shows: its text and the line it is on.
struct Shown {
    text: String,
    line: usize,
}

fn readme() -> String {
    std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("README.md")).expect("README.md")
}

/// Whether inline code is a form rather than a command: an upper-case placeholder word
/// (`PATH`, `N`, `MODEL...`) or an optional part in brackets.
fn is_form(text: &str) -> bool {
    text.contains('[')
        || text.split(|c: char| c.is_whitespace() || ",=:".contains(c)).any(|w| {
            let core = w.trim_end_matches("...");
            if core.is_empty() { w.ends_with("...") } else { core.chars().all(|c| c.is_ascii_uppercase()) }
        })
}

/// The commands of the README, in order.
fn commands(text: &str) -> Vec<Shown> {
    let mut out = Vec::new();
    let mut fence: Option<String> = None;
    // The prose paragraph being read (inline code may wrap onto its next line): its first
    // line's number and its text.
    let mut para: Option<(usize, String)> = None;
    for (i, raw) in text.lines().enumerate() {
        let line = raw.trim();
        if fence.is_none() && !line.starts_with("```") && !line.is_empty() {
            let p = para.get_or_insert_with(|| (i + 1, String::new()));
            p.1.push(' ');
            p.1.push_str(line);
            continue;
        }
        if let Some((first, prose)) = para.take() {
            inline_commands(first, &prose, &mut out);
        }
        if let Some(info) = line.strip_prefix("```") {
            fence = match fence {
                Some(_) => None,
                None => Some(info.trim().to_string()),
            };
            continue;
        }
        match fence.as_deref() {
            Some("sh") if !line.is_empty() && !line.starts_with('#') => out.push(Shown { text: line.to_string(), line: i + 1 }),
            Some(_) => {
                if let Some(cmd) = line.strip_prefix("$ ") {
                    out.push(Shown { text: cmd.to_string(), line: i + 1 });
                }
            }
            None => {}
        }
    }
    if let Some((first, prose)) = para {
        inline_commands(first, &prose, &mut out);
    }
    out
}

/// The inline code of a paragraph that is a command: `junglezero SUBCOMMAND ...` naming no
/// placeholder.
fn inline_commands(line: usize, prose: &str, out: &mut Vec<Shown>) {
    for span in prose.split('`').skip(1).step_by(2) {
        let mut words = span.split_whitespace();
        let command = words.next() == Some("junglezero") && words.next().is_some_and(|w| w.chars().all(|c| c.is_ascii_lowercase()));
        if command && !is_form(span) {
            out.push(Shown { text: span.to_string(), line });
        }
    }
}

/// The part of a line before a shell comment (the README's comments follow two spaces).
fn without_comment(cmd: &str) -> &str {
    cmd.split("  #").next().unwrap_or(cmd).trim()
}

/// A folder with what a fresh clone holds that the commands read: the configs, the scripts
/// and the shipped run (copied, as `report` writes into it).
fn clone_like() -> PathBuf {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let dir = std::env::temp_dir().join(format!("jz-readme-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    for sub in ["configs", "scripts", "checkpoints/sample-cpu-1h"] {
        copy_dir(&root.join(sub), &dir.join(sub));
    }
    dir
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_dir(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), &target).unwrap();
        }
    }
}

/// Runs `cmd` with `sh -c` in `dir` with the binary first on the PATH and "quit" on stdin (for
/// `play`; the protocol and the analysis engine end at the end of input).
fn run(dir: &Path, cmd: &str) -> std::process::Output {
    let bin = Path::new(env!("CARGO_BIN_EXE_junglezero")).parent().unwrap().to_path_buf();
    let path = std::env::join_paths(std::iter::once(bin).chain(std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default()))).unwrap();
    let mut child = Command::new("sh")
        .args(["-c", cmd])
        .current_dir(dir)
        .env("PATH", path)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("sh runs");
    use std::io::Write;
    let _ = child.stdin.take().unwrap().write_all(b"quit\n");
    child.wait_with_output().unwrap()
}

#[test]
fn every_command_the_readme_shows_runs_as_written() {
    let text = readme();
    let shown = commands(&text);
    // The README's sections each show commands; a parser that found none would pass vacuously.
    assert!(shown.len() >= 25, "only {} commands found", shown.len());
    for (skipped, why) in SKIPPED {
        assert!(shown.iter().any(|s| without_comment(&s.text) == *skipped), "the skip list names a command the README no longer shows: {skipped} ({why})");
    }
    let dir = clone_like();
    let mut ran = 0;
    for s in &shown {
        let cmd = without_comment(&s.text);
        if let Some((_, why)) = SKIPPED.iter().find(|(c, _)| *c == cmd) {
            // Not run, but what it names must be there: a model or config path that moved is
            // the README's most likely mistake.
            for word in cmd.split(|c: char| c.is_whitespace() || ",=".contains(c)) {
                if (word.ends_with(".jzm") || word.ends_with(".toml")) && !word.contains("PATH") {
                    assert!(Path::new(env!("CARGO_MANIFEST_DIR")).join(word).is_file(), "README line {}: {word} does not exist (skipped: {why})", s.line);
                }
            }
            continue;
        }
        let o = run(&dir, &s.text);
        let (out, err) = (String::from_utf8_lossy(&o.stdout), String::from_utf8_lossy(&o.stderr));
        assert!(o.status.success(), "README line {}: `{cmd}` failed ({:?}):\n{err}", s.line, o.status.code());
        assert!(!err.contains("panicked"), "README line {}: `{cmd}`: {err}", s.line);
        for (prefix, want) in EXPECTED {
            if cmd.contains(prefix) {
                assert!(out.contains(want), "README line {}: `{cmd}` should print {want:?}:\n{out}", s.line);
            }
        }
        ran += 1;
    }
    assert!(ran >= 15, "only {ran} commands ran");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn forms_and_commands_are_told_apart() {
    let text = "```sh\njunglezero perft 6   # counts\n# a comment\n\n```\n\
                Run `junglezero verify --run DIR` or `junglezero report --run checkpoints/x`, \
                see `junglezero serve: open` and `junglezero average MODEL... --out x` and `--games N`;\n\
                `junglezero bench agree\n--model FILE` wraps and `junglezero show\n--game flip` too.\n\
                ```text\n$ junglezero bench nn --threads 2\nbatch 1\n```\n";
    let got: Vec<String> = commands(text).into_iter().map(|s| s.text).collect();
    assert_eq!(
        got,
        ["junglezero perft 6   # counts", "junglezero report --run checkpoints/x", "junglezero show --game flip", "junglezero bench nn --threads 2"]
    );
    assert_eq!(without_comment("junglezero perft 6   # counts"), "junglezero perft 6");
    assert!(is_form("junglezero dump --run x [--last N] --out d.npz") && is_form("junglezero arena --a mcts:model=PATH,sims=64"));
    assert!(!is_form("junglezero show --fen \"3C3/7/7/7/7/7/7/7/6r b\""));
}
