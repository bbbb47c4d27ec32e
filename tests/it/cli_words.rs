//! The command line's vocabulary, through the binary: typos get clap's "did you mean", an
//! export's format follows its file name, the player specs' help lists every key, and the
//! position commands take the config as the others do.

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
