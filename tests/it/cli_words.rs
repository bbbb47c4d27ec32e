//! The command line's vocabulary, through the binary: typos get clap's "did you mean", an
//! export's format follows its file name, the player specs' help lists every key, the
//! position commands take the config as the others do, and each thing has one spelling
//! (`--model`, `--out` a file, `--out-dir`/`--tb` a folder, `--json-out` a JSON file, `--run`
//! a directory or URL, one default for `--games`).

use std::process::Output;

use super::cli::junglezero;

const SAMPLE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/checkpoints/sample-cpu-1h/gen-0072.jzm");

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// The one line of a refused command.
fn refused(args: &[&str]) -> String {
    let o = junglezero(args);
    let e = stderr(&o);
    assert_eq!(o.status.code(), Some(2), "{args:?}: {e}");
    assert_eq!(e.trim_end().lines().count(), 1, "{args:?}: one line, got {e:?}");
    e
}

#[test]
fn typos_of_commands_and_flags_name_what_was_meant() {
    let e = refused(&["tran"]);
    assert!(e.contains("'tran'") && e.contains("'train'"), "{e}");
    let e = refused(&["arena", "--a", "random", "--b", "random", "--gmes", "2"]);
    assert!(e.contains("'--gmes'") && e.contains("'--games'"), "{e}");
    let e = refused(&["tb", "prob"]);
    assert!(e.contains("'probe'"), "{e}");
    // Nothing like any command: no suggestion, still one line.
    let e = refused(&["frobnicate"]);
    assert!(e.contains("frobnicate") && !e.contains("similar"), "{e}");
}

#[test]
fn an_export_named_dot_onnx_is_an_onnx_model() {
    let dir = std::env::temp_dir().join(format!("jz-words-export-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let out = dir.join("net.onnx");
    let o = junglezero(&["export", "--model", SAMPLE, "--out", out.to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stdout(&o).contains("ONNX opset"), "{}", stdout(&o));
    assert!(dir.join("net.samples.npz").is_file() && !dir.join("net.json").exists(), "an ONNX export has no JSON description");
    // The model's graph names its outputs.
    let bytes = std::fs::read(&out).unwrap();
    assert!(bytes.windows(13).any(|w| w == b"policy_logits"), "not an ONNX model");
    // A .safetensors name is safetensors, as before; a name that is neither is refused, and
    // --format decides when it is given.
    let st = dir.join("weights.safetensors");
    let o = junglezero(&["export", "--model", SAMPLE, "--out", st.to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(dir.join("weights.json").is_file(), "a safetensors export has its JSON description");
    let e = refused(&["export", "--model", SAMPLE, "--out", dir.join("weights.bin").to_str().unwrap()]);
    assert!(e.contains("weights.bin") && e.contains(".safetensors or .onnx"), "{e}");
    let e = refused(&["export", "--model", SAMPLE, "--format", "safetensors", "--out", dir.join("forced.onnx").to_str().unwrap()]);
    assert!(e.contains("must end in .safetensors"), "{e}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn the_player_help_lists_every_key_a_spec_takes() {
    let o = junglezero(&["arena", "--help"]);
    assert!(o.status.success());
    let help = stdout(&o);
    for key in ["depth=", "movetime=", "nodes=", "hash=", "threads=", "model=", "sims=", "cpuct=", "reuse=", "cmd=", "tc="] {
        assert!(help.contains(key), "arena --help does not name {key}:\n{help}");
    }
    // Every key the help names is one a spec takes: two quick games each.
    let mcts = format!("mcts:model={SAMPLE},sims=2,movetime=1000,cpuct=1.5,reuse=false");
    for (game, spec) in
        [("jungle", "alphabeta:depth=1,nodes=1000,hash=8,threads=1,tc=0/60+1"), ("jungle", mcts.as_str()), ("flip", "expectiminimax:depth=1,nodes=100")]
    {
        let o = junglezero(&["arena", "--game", game, "--a", spec, "--b", "random", "--games", "2"]);
        assert!(o.status.success(), "{spec}: {}", stderr(&o));
        assert!(stdout(&o).contains("Score of "), "{spec}: {}", stdout(&o));
    }
    let e = refused(&["arena", "--a", "alphabeta:depth=2,cpuct=1", "--b", "random"]);
    assert!(e.contains("cpuct"), "{e}");
}

#[test]
fn show_and_perft_take_the_config_and_its_overrides() {
    let dir = std::env::temp_dir().join(format!("jz-words-config-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let flip = dir.join("flip.toml");
    std::fs::write(&flip, "game = \"flip\"\n").unwrap();
    let o = junglezero(&["show", "--config", flip.to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stdout(&o).contains("position ????/????/????/????"), "the config's game: {}", stdout(&o));
    let o = junglezero(&["perft", "2", "--config", flip.to_str().unwrap()]);
    assert!(stdout(&o).starts_with("nodes 57600 "), "{}", stdout(&o));
    // The config's rules are the base --rules applies to: Red's Dog next to Blue's Wolf takes
    // it only when the Dog outranks the Wolf.
    let fen = ["--fen", "7/7/7/7/7/7/7/w6/D6 w"];
    let takes = |extra: &[&str]| {
        let o = junglezero(&[&["show"], &fen[..], extra].concat());
        assert!(o.status.success(), "{}", stderr(&o));
        stdout(&o).contains("a1a2")
    };
    assert!(!takes(&[]) && takes(&["--set", "rules.dog_over_wolf=true"]), "--set reaches the rules");
    let e = refused(&["show", "--set", "rules.repetition=sometimes"]);
    assert!(e.contains("repetition"), "{e}");
    let e = refused(&["perft", "1", "--config", "/nonexistent.toml"]);
    assert!(e.contains("/nonexistent.toml"), "{e}");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A fresh folder under the system's temporary one.
fn scratch(name: &str) -> std::path::PathBuf {
    let d = super::common::fresh_dir("words", name);
    std::fs::create_dir_all(&d).unwrap();
    d
}

#[test]
fn one_spelling_for_models_outputs_json_files_and_match_length() {
    // The model: positional or --model, never both.
    let by_flag = junglezero(&["inspect", "--model", SAMPLE, "--json"]);
    let positional = junglezero(&["inspect", SAMPLE, "--json"]);
    assert!(by_flag.status.success(), "{}", stderr(&by_flag));
    assert_eq!(stdout(&by_flag), stdout(&positional));
    let e = refused(&["inspect", SAMPLE, "--model", SAMPLE]);
    assert!(e.contains("--model"), "{e}");
    let dir = scratch("vocabulary");
    let avg = dir.join("avg.jzm");
    let o = junglezero(&["average", "--model", SAMPLE, "--model", SAMPLE, "--out", avg.to_str().unwrap()]);
    assert!(o.status.success() && avg.is_file(), "{}", stderr(&o));
    refused(&["average", "--out", dir.join("none.jzm").to_str().unwrap()]);

    // The tables' folder is --tb (the old --out still works); a JSON file is --json-out.
    let tb = dir.join("tb");
    let built = dir.join("built.json");
    let o = junglezero(&["tb", "build", "--material", "E-r", "--tb", tb.to_str().unwrap(), "--json-out", built.to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(serde_json::from_str::<serde_json::Value>(&std::fs::read_to_string(&built).unwrap()).is_ok());
    let o = junglezero(&["tb", "build", "--material", "E-r", "--out", tb.to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
    let by_flag = junglezero(&["tb", "score", "--tb", tb.to_str().unwrap(), "--model", SAMPLE]);
    let positional = junglezero(&["tb", "score", "--tb", tb.to_str().unwrap(), SAMPLE]);
    assert_eq!((by_flag.status.code(), stdout(&by_flag)), (positional.status.code(), stdout(&positional)), "{}", stderr(&by_flag));

    // arena: --json-out writes the file (and --json FILE, the old spelling, too); --games is
    // checked by the parser, with the same default as a tournament's.
    for (flag, name) in [("--json-out", "new.json"), ("--json", "old.json")] {
        let path = dir.join(name);
        let o = junglezero(&["arena", "--a", "random", "--b", "random", "--games", "2", flag, path.to_str().unwrap()]);
        assert!(o.status.success() && path.is_file(), "{flag}: {}", stderr(&o));
    }
    let e = refused(&["arena", "--a", "random", "--b", "random", "--games", "0"]);
    assert!(e.contains("--games"), "{e}");
    for command in ["arena", "tournament"] {
        let help = stdout(&junglezero(&[command, "--help"]));
        let games = help.lines().skip_while(|l| !l.trim_start().starts_with("--games")).take(5).collect::<Vec<_>>().join(" ");
        assert!(games.contains("[default: 100]"), "{command}: {games}");
    }
    // tournament and selfplay write folders with --out-dir (--out still works).
    let t = dir.join("t");
    let o = junglezero(&["tournament", "--players", "random", "random", "--games", "2", "--out-dir", t.to_str().unwrap()]);
    assert!(o.status.success() && t.join("results.json").is_file(), "{}", stderr(&o));
    let o = junglezero(&["tournament", "--players", "random", "random", "--games", "2", "--out", t.to_str().unwrap()]);
    assert!(o.status.success(), "the old spelling resumes the same folder: {}", stderr(&o));
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn serve_takes_a_run_as_a_url_as_the_other_commands_do() {
    use std::io::{BufRead, BufReader};
    // `--run file:///...` (a URL, as every other `--run` takes one) opens the run's folder.
    let dir = scratch("serve-url");
    std::fs::create_dir_all(dir.join("report")).unwrap();
    let url = format!("file://{}", dir.display());
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_junglezero"))
        .args(["serve", "--run", &url, "--port", "0"])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut first = String::new();
    BufReader::new(child.stdout.take().unwrap()).read_line(&mut first).unwrap();
    let _ = child.kill();
    let _ = child.wait();
    assert!(first.contains("open http://127.0.0.1:"), "{first:?}");
    let e = refused(&["serve", "--run", "/nonexistent/run/dir"]);
    assert!(e.contains("no such run directory"), "{e}");
    std::fs::remove_dir_all(&dir).unwrap();
}
