//! Hostile input, third round, the files: outputs never replace a file or write through a link
//! without `--force` and are written all or none; a network with a huge weight never loads and
//! a non-finite network output never panics a search; a FIFO where a file is read is refused at
//! once; damaged, truncated and renamed tables are errors naming the file; damaged journals are
//! refused by line; an export's description with rules this build cannot read is refused.

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

pub(crate) fn bin() -> String {
    std::env::var("JZ_TEST_BIN").unwrap_or_else(|_| env!("CARGO_BIN_EXE_junglezero").to_string())
}

/// Runs the binary; one that has not ended within 20 s is killed and fails the test (a hang).
fn junglezero(args: &[&str]) -> Output {
    let mut child = Command::new(bin()).args(args).stdin(Stdio::null()).stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().expect("binary runs");
    let start = Instant::now();
    while child.try_wait().unwrap().is_none() {
        if start.elapsed() > Duration::from_secs(20) {
            let _ = child.kill();
            panic!("junglezero {} did not end within 20 s", args.join(" "));
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    child.wait_with_output().unwrap()
}

pub(crate) fn tmp(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("jz-hostile3-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

pub(crate) fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// The one line of stderr of a command that must fail with exit code 2.
fn refused(o: &Output) -> String {
    let err = stderr(o);
    assert_eq!(o.status.code(), Some(2), "expected a refusal: {err}");
    assert_eq!(err.trim_end().lines().count(), 1, "one line: {err}");
    err.trim_end().to_string()
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

const SAMPLE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/checkpoints/sample-cpu-1h/gen-0072.jzm");

// 1. Outputs.

#[test]
fn export_refuses_existing_files_links_and_siblings_and_replaces_them_with_force() {
    let dir = tmp("export");
    let exist = dir.join("exist.onnx");
    std::fs::write(&exist, "mine").unwrap();
    let line = refused(&junglezero(&["export", "--model", SAMPLE, "--format", "onnx", "--out", s(&exist)]));
    assert!(line.contains("exist.onnx") && line.contains("exists") && line.contains("--force"), "{line}");
    assert_eq!(std::fs::read(&exist).unwrap(), b"mine");
    assert!(!dir.join("exist.samples.npz").exists(), "nothing written beside a refused output");

    // A sibling of a new name: x.json is the user's.
    let st = dir.join("x.safetensors");
    std::fs::write(dir.join("x.json"), "their notes").unwrap();
    let line = refused(&junglezero(&["export", "--model", SAMPLE, "--out", s(&st)]));
    assert!(line.contains("x.json") && line.contains("exists"), "{line}");
    assert!(!st.exists() && !dir.join("x.samples.npz").exists(), "none of the three files is written");
    assert_eq!(std::fs::read_to_string(dir.join("x.json")).unwrap(), "their notes");

    let o = junglezero(&["export", "--model", SAMPLE, "--format", "onnx", "--out", s(&exist), "--force"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_ne!(std::fs::read(&exist).unwrap(), b"mine");
    assert!(dir.join("exist.samples.npz").exists());
    // Only the files themselves are left: no temporaries.
    let names: Vec<String> = std::fs::read_dir(&dir).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
    assert!(names.iter().all(|n| !n.starts_with('.')), "{names:?}");

    #[cfg(unix)]
    {
        let target = dir.join("target.bin");
        std::fs::write(&target, "theirs").unwrap();
        let link = dir.join("link.onnx");
        std::os::unix::fs::symlink(&target, &link).unwrap();
        let line = refused(&junglezero(&["export", "--model", SAMPLE, "--format", "onnx", "--out", s(&link)]));
        assert!(line.contains("symbolic link"), "{line}");
        let o = junglezero(&["export", "--model", SAMPLE, "--format", "onnx", "--out", s(&link), "--force"]);
        assert!(o.status.success(), "{}", stderr(&o));
        assert_eq!(std::fs::read_to_string(&target).unwrap(), "theirs", "never written through the link");
        assert!(!std::fs::symlink_metadata(&link).unwrap().file_type().is_symlink(), "the link itself was replaced");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn average_and_import_refuse_an_existing_output() {
    let dir = tmp("average");
    let out = dir.join("avg.jzm");
    std::fs::write(&out, "mine").unwrap();
    let line = refused(&junglezero(&["average", SAMPLE, SAMPLE, "--out", s(&out)]));
    assert!(line.contains("avg.jzm") && line.contains("exists"), "{line}");
    assert_eq!(std::fs::read(&out).unwrap(), b"mine");
    let o = junglezero(&["average", SAMPLE, SAMPLE, "--out", s(&out), "--force"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(junglezero(&["inspect", s(&out)]).status.success());
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn tournament_refuses_a_folder_whose_results_are_not_its_own() {
    let dir = tmp("tournament");
    let results = dir.join("results.json");
    std::fs::write(&results, "{\"theirs\": true}").unwrap();
    let args = ["tournament", "--players", "random", "alphabeta:depth=1", "--games", "2", "--out", s(&dir)];
    let line = refused(&junglezero(&args));
    assert!(line.contains("results.json") && line.contains("not this tournament's"), "{line}");
    assert_eq!(std::fs::read_to_string(&results).unwrap(), "{\"theirs\": true}");
    assert!(!dir.join("games.jsonl").exists());
    let o = junglezero(&[&args[..], &["--force"]].concat());
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(std::fs::read_to_string(&results).unwrap().contains("standings"));
    // Its own folder: the same command resumes and rewrites its results.
    let o = junglezero(&args);
    assert!(o.status.success(), "{}", stderr(&o));
    std::fs::remove_dir_all(&dir).unwrap();
}

// 3. Huge weights.

/// The export of the shipped network in `dir`: (weights, description).
fn exported(dir: &Path) -> (PathBuf, PathBuf) {
    let st = dir.join("net.safetensors");
    let o = junglezero(&["export", "--model", SAMPLE, "--out", s(&st)]);
    assert!(o.status.success(), "{}", stderr(&o));
    (st, dir.join("net.json"))
}

/// Sets the first float of tensor `name` in safetensors `bytes` to `value`.
fn set_first_float(bytes: &mut [u8], name: &str, value: f32) {
    let n = u64::from_le_bytes(bytes[..8].try_into().unwrap()) as usize;
    let header: serde_json::Value = serde_json::from_slice(&bytes[8..8 + n]).unwrap();
    assert_eq!(header[name]["dtype"], "F32");
    let start = 8 + n + header[name]["data_offsets"][0].as_u64().unwrap() as usize;
    bytes[start..start + 4].copy_from_slice(&value.to_le_bytes());
}

#[test]
fn a_network_with_one_huge_weight_is_refused_at_import_and_at_load() {
    let dir = tmp("huge");
    let (st, _) = exported(&dir);
    let mut bytes = std::fs::read(&st).unwrap();
    set_first_float(&mut bytes, "value_fc2.weight", 3e38);
    std::fs::write(&st, &bytes).unwrap();
    let out = dir.join("huge.jzm");
    let line = refused(&junglezero(&["import", s(&st), "--out", s(&out)]));
    assert!(line.contains("net.safetensors") && line.contains("3.000e38") && line.contains("beyond"), "{line}");
    assert!(!out.exists());

    // A model file carrying such a weight (written past the check, as a hostile file would be).
    use burn::module::Module;
    use burn::store::{ModuleSnapshot, PyTorchToBurnAdapter, SafetensorsStore};
    use junglezero::nn::modelfile;
    let device = junglezero::nn::device::parse_device("flex").unwrap();
    let (_, meta) = modelfile::load_any(Path::new(SAMPLE), &device).unwrap();
    let mut net = meta.model.init(<junglezero::jungle::JungleGame as junglezero::game::Encode>::SHAPE, &device);
    let mut store = SafetensorsStore::from_bytes(Some(bytes)).with_from_adapter(PyTorchToBurnAdapter);
    net.load_from(&mut store).unwrap();
    assert!(net.num_params() > 0);
    std::fs::write(&out, modelfile::encode(&net, &meta).unwrap()).unwrap();
    let line = refused(&junglezero(&["inspect", s(&out)]));
    assert!(line.contains("huge.jzm") && line.contains("beyond"), "{line}");
    let line = refused(&junglezero(&["arena", "--a", &format!("mcts:model={},sims=8", out.display()), "--b", "random", "--games", "2"]));
    assert!(line.contains("beyond"), "{line}");
    let sample_tables = dir.join("tables");
    let o = junglezero(&["tb", "build", "--pieces", "2", "--out", s(&sample_tables)]);
    assert!(o.status.success(), "{}", stderr(&o));
    let line = refused(&junglezero(&["tb", "score", "--tb", s(&sample_tables), s(&out)]));
    assert!(line.contains("beyond") && !line.contains("NaN"), "{line}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_search_on_a_network_that_answers_nan_reports_it_and_never_panics() {
    use junglezero::jungle::JungleGame;
    use junglezero::mcts::baseline::UniformEvaluator;
    use junglezero::mcts::{MctsConfig, MctsPlayer};
    use junglezero::player::{Failure, Limits, Player};
    for value in [f32::NAN, f32::INFINITY] {
        let mut p = MctsPlayer::new(std::sync::Arc::new(UniformEvaluator { value }), &MctsConfig::default(), 32);
        let g = JungleGame::start(Default::default());
        assert_eq!(p.choose(&g, &Limits::nodes(32), &mut |_| {}), None, "no move from a broken network");
        assert_eq!(p.failure(), Some(Failure::Network));
    }
    assert_eq!(junglezero::mcts::search::wdl(f32::NAN, 0.5), [0.25, 0.5, 0.25]);
    assert_eq!(junglezero::mcts::search::wdl(3.0, 0.5), [1.0, 0.0, 0.0]);
}

// 12. An export's description.

#[test]
fn an_export_description_with_rules_this_build_cannot_read_is_refused() {
    let dir = tmp("rules");
    let (st, json) = exported(&dir);
    let text = std::fs::read_to_string(&json).unwrap();
    let mut v: serde_json::Value = serde_json::from_str(&text).unwrap();
    v["rules"] = "bogus".into();
    std::fs::write(&json, v.to_string()).unwrap();
    let out = dir.join("back.jzm");
    let line = refused(&junglezero(&["import", s(&st), "--out", s(&out)]));
    assert!(line.contains("net.json") && line.contains("rules") && line.contains("bogus"), "{line}");
    assert!(!out.exists());
    std::fs::remove_dir_all(&dir).unwrap();
}

// 7. FIFOs where files are read.

#[cfg(unix)]
fn mkfifo(path: &Path) {
    let c = std::ffi::CString::new(s(path)).unwrap();
    // SAFETY: a plain mkfifo(3) on a path we own.
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o644) }, 0);
}

#[cfg(unix)]
#[test]
fn a_fifo_where_a_file_is_read_is_refused_at_once() {
    let dir = tmp("fifo");
    let fifo = dir.join("in.fifo");
    mkfifo(&fifo);
    let line = refused(&junglezero(&["search", "--config", s(&fifo), "--depth", "1"]));
    assert!(line.contains("in.fifo") && line.contains("not a regular file (a FIFO)"), "{line}");
    let line = refused(&junglezero(&["serve", "--model", s(&fifo), "--port", "0"]));
    assert!(line.contains("in.fifo") && line.contains("FIFO"), "{line}");
    let line = refused(&junglezero(&["arena", "--a", "random", "--b", "random", "--games", "2", "--openings", s(&fifo)]));
    assert!(line.contains("FIFO"), "{line}");
    let line = refused(&junglezero(&["arena", "--a", "random", "--b", "random", "--games", "2", "--log", s(&fifo)]));
    assert!(line.contains("FIFO"), "{line}");
    let line = refused(&junglezero(&["arena", "--a", "random", "--b", "random", "--games", "2", "--log", "/dev/full"]));
    assert!(line.contains("/dev/full") && line.contains("a device"), "{line}");

    // A table file that is a FIFO.
    let tables = dir.join("tables");
    let o = junglezero(&["tb", "build", "--material", "E-r", "--out", s(&tables)]);
    assert!(o.status.success(), "{}", stderr(&o));
    mkfifo(&tables.join("L-r.jztb"));
    let line = refused(&junglezero(&["tb", "probe", "--tb", s(&tables)]));
    assert!(line.contains("L-r.jztb") && line.contains("FIFO"), "{line}");

    // The protocol's Model option: an error, and the session still answers.
    let mut child = Command::new(bin()).arg("uci").stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::null()).spawn().unwrap();
    let mut input = child.stdin.take().unwrap();
    writeln!(input, "uci\nsetoption name Model value {}\nisready", fifo.display()).unwrap();
    let (tx, rx) = std::sync::mpsc::channel();
    let stdout = child.stdout.take().unwrap();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines().map_while(Result::ok) {
            let _ = tx.send(line);
        }
    });
    let mut seen = Vec::new();
    let deadline = Instant::now() + Duration::from_secs(10);
    while !seen.iter().any(|l: &String| l == "readyok") {
        match rx.recv_timeout(deadline.saturating_duration_since(Instant::now())) {
            Ok(l) => seen.push(l),
            Err(_) => {
                let _ = child.kill();
                panic!("no readyok after a FIFO model: {seen:?}");
            }
        }
    }
    assert!(seen.iter().any(|l| l.starts_with("info string error") && l.contains("FIFO")), "{seen:?}");
    writeln!(input, "quit").unwrap();
    assert!(child.wait().unwrap().success());
    std::fs::remove_dir_all(&dir).unwrap();
}

// 9. Damaged tables.

/// Probes `fen` in `tables` through `tb probe`.
fn probe(tables: &Path, fen: &str) -> Output {
    let mut child =
        Command::new(bin()).args(["tb", "probe", "--tb", s(tables)]).stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().unwrap();
    // A refusal may come before the position is read: the pipe is then closed, which is fine.
    let _ = writeln!(child.stdin.take().unwrap(), "{fen}");
    child.wait_with_output().unwrap()
}

#[test]
fn damaged_truncated_and_renamed_tables_are_errors_naming_the_file() {
    let dir = tmp("tables");
    let o = junglezero(&["tb", "build", "--material", "E-r,L-r", "--out", s(&dir)]);
    assert!(o.status.success(), "{}", stderr(&o));
    // Red Elephant next to the Blue den's trap, Blue's Rat far away: a win in 1.
    let fen = "7/3E3/7/7/7/7/7/7/r6 w";
    let o = probe(&dir, fen);
    assert_eq!(String::from_utf8_lossy(&o.stdout), "win 1\n", "{}", stderr(&o));
    let table = dir.join("E-r.jztb");
    let good = std::fs::read(&table).unwrap();

    // One byte flipped inside the deflated codes: the checksum says so, naming the file.
    let mut flipped = good.clone();
    let at = flipped.len() - 20;
    flipped[at] ^= 0x10;
    std::fs::write(&table, &flipped).unwrap();
    let line = refused(&probe(&dir, fen));
    assert!(line.contains("E-r.jztb") && line.contains("checksum"), "{line}");

    // Truncated: refused when the folder opens, whatever is probed.
    std::fs::write(&table, &good[..good.len() - 9]).unwrap();
    let line = refused(&probe(&dir, "7/7/7/7/7/7/7/7/7 w"));
    assert!(line.contains("E-r.jztb") && line.contains("truncated"), "{line}");

    // Another material's table copied over this one's name.
    std::fs::copy(dir.join("L-r.jztb"), &table).unwrap();
    let line = refused(&probe(&dir, fen));
    assert!(line.contains("E-r.jztb") && line.contains("holds the table of L-r"), "{line}");

    // And `tb build` does not take the copied file for this material's table.
    let line = refused(&junglezero(&["tb", "build", "--material", "E-r", "--out", s(&dir)]));
    assert!(line.contains("E-r.jztb"), "{line}");
    std::fs::remove_dir_all(&dir).unwrap();
}

// 10. Damaged journals.

#[test]
fn damaged_journals_are_refused_by_file_and_line() {
    let dir = tmp("journal");
    let log = dir.join("match.jsonl");
    let openings = dir.join("openings.txt");
    std::fs::write(&openings, "a3a4 g7g6\na3a4\n").unwrap();
    let args = ["arena", "--a", "random", "--b", "alphabeta:depth=1", "--games", "4", "--openings", s(&openings), "--log", s(&log)];
    let o = junglezero(&args);
    assert!(o.status.success(), "{}", stderr(&o));
    let good = std::fs::read_to_string(&log).unwrap();
    let lines: Vec<&str> = good.lines().collect();
    assert_eq!(lines.len(), 5, "{good}");

    // Blank lines and trailing spaces in the openings: the same match, nothing to play.
    std::fs::write(&openings, "a3a4 g7g6  \n\na3a4\n\n").unwrap();
    let o = junglezero(&args);
    assert!(o.status.success() && stderr(&o).contains("4 games already played"), "{}", stderr(&o));

    let game = lines[1];
    let damaged = [
        (format!("{good}{game}\n"), "a second time"),
        (format!("{good}{}\n", game.replace(&format!("\"pair\":{}", pair_of(game)), "\"pair\":9")), "out of range"),
        (good.replacen(&format!("\"a_points\":{}", points_of(game)), "\"a_points\":0.3", 1), "0, 0.5 or 1"),
        (good.replacen(&format!("\"reason\":\"{}\"", reason_of(game)), "\"reason\":\"bogus\"", 1), "unknown reason"),
    ];
    for (text, says) in damaged {
        std::fs::write(&log, &text).unwrap();
        let line = refused(&junglezero(&args));
        assert!(line.contains("match.jsonl line") && line.contains(says), "{says}: {line}");
        assert_eq!(std::fs::read_to_string(&log).unwrap(), text, "a damaged journal is left as it is");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

fn points_of(line: &str) -> String {
    let v: serde_json::Value = serde_json::from_str(line).unwrap();
    let p = v["a_points"].as_f64().unwrap();
    serde_json::to_string(&p).unwrap()
}

fn pair_of(line: &str) -> u64 {
    let v: serde_json::Value = serde_json::from_str(line).unwrap();
    v["pair"].as_u64().unwrap()
}

fn reason_of(line: &str) -> String {
    let v: serde_json::Value = serde_json::from_str(line).unwrap();
    v["reason"].as_str().unwrap().to_string()
}
