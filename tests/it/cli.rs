//! The command line, run as a user would: output formats, and bad input giving one line on
//! stderr and exit code 2, never a panic.

use std::process::{Command, Output};

pub fn junglezero(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_junglezero")).args(args).output().expect("binary runs")
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

#[test]
fn perft_prints_the_summary_line() {
    let o = junglezero(&["perft", "4"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    let last = out.lines().last().unwrap();
    let f: Vec<&str> = last.split(' ').collect();
    assert_eq!(f.len(), 6, "{last}");
    assert_eq!((f[0], f[1], f[2], f[4]), ("nodes", "260099", "time", "nps"));
    assert!(f[3].parse::<f64>().is_ok() && f[5].parse::<u64>().is_ok(), "{last}");
}

#[test]
fn perft_divide_lists_each_root_move() {
    let o = junglezero(&["perft", "3", "--divide", "--fen", "6c/7/7/7/7/7/7/7/C6 w", "--rules", "repetition=off"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 3, "{out}");
    let sum: u64 = lines[..2]
        .iter()
        .map(|l| {
            let (mv, n) = l.split_once(' ').unwrap();
            assert!(mv == "a1a2" || mv == "a1b1", "{l}");
            n.parse::<u64>().unwrap()
        })
        .sum();
    assert_eq!(sum, 12);
    assert!(lines[2].starts_with("nodes 12 time "), "{}", lines[2]);
}

#[test]
fn show_draws_the_board_and_lists_moves() {
    let o = junglezero(&["show"]);
    assert!(o.status.success());
    let out = stdout(&o);
    assert!(out.contains("  9  l . # * # . t"), "{out}");
    assert!(out.contains("Red to move, 24 legal moves: a1a2 a1b1"), "{out}");
    let o = junglezero(&["show", "--fen", "3C3/7/7/7/7/7/7/7/6r b"]);
    assert!(stdout(&o).contains("game over: Red wins by entering the den"), "{}", stdout(&o));
}

#[test]
fn bad_input_gets_one_line_and_exit_code_2() {
    let cases: &[(&[&str], &str)] = &[
        (&["perft", "x"], "invalid value 'x'"),
        (&["perft", "3", "--fen", "7/7 w"], "2 ranks"),
        (&["perft", "3", "--fen", "l5t/1d3c1/r1p1w1e/7/7/7/E1W1P1R/1C3D1/T5L q"], "unknown side to move 'q'"),
        (&["perft", "3", "--rules", "repetition=sometimes"], "repetition"),
        (&["perft", "3", "--rules", "colour=red"], "unknown rule 'colour'"),
        (&["show", "--fen", "L5t/1d3c1/r1p1w1e/7/7/7/E1W1P1R/1C3D1/T5L w"], "two Red Lions"),
        (&["frobnicate"], "frobnicate"),
        (&["perft"], "DEPTH"),
    ];
    for (args, want) in cases {
        let o = junglezero(args);
        let err = stderr(&o);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {err}");
        assert_eq!(err.trim_end().lines().count(), 1, "{args:?} should print one line, got {err:?}");
        assert!(err.contains(want), "{args:?}: {err:?} should mention {want:?}");
        assert!(!err.contains("panicked"), "{args:?}: {err}");
    }
}

#[test]
fn perft_of_the_flip_game() {
    let o = junglezero(&["perft", "2", "--game", "flip"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(String::from_utf8_lossy(&o.stdout).starts_with("nodes 57600 "));
    let o = junglezero(&["perft", "1", "--game", "flip", "--rules", "setup=own_half", "--divide"]);
    let out = String::from_utf8_lossy(&o.stdout).into_owned();
    assert_eq!(out.lines().count(), 129, "128 flips and the total: {out}");
    assert!(out.contains("f:a1=R 1") && !out.contains("f:a1=r"), "Red's half reveals Red pieces");
    let o = junglezero(&["perft", "1", "--game", "flip", "--fen", "????/????/????/???? 1 - RCDWPTLErcdwptl 0 0"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("16 face-down squares but 15 face-down pieces"), "{}", stderr(&o));
}

/// Runs the binary with `input` on stdin.
fn with_stdin(args: &[&str], input: &str) -> Output {
    use std::io::Write;
    let mut child = Command::new(env!("CARGO_BIN_EXE_junglezero"))
        .args(args)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("binary runs");
    child.stdin.take().unwrap().write_all(input.as_bytes()).unwrap();
    child.wait_with_output().unwrap()
}

#[test]
fn the_flip_game_plays_in_the_terminal_with_its_pool_shown() {
    let o = with_stdin(&["play", "--game", "flip", "--movetime", "20"], "moves\nf:a1\nb9b8\nundo\nquit\n");
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    assert!(out.contains("face down: RCDWPTLErcdwptle"), "{out}");
    assert!(out.contains("colours undecided"), "{out}");
    assert!(out.contains("legal moves: f:a1 f:a2"), "{out}");
    assert!(out.contains("the flip reveals f:a1="), "{out}");
    assert!(out.contains("junglezero plays"), "{out}");
    assert!(out.contains("'b9b8' is not a flip-game move"), "{out}");
    // A Jungle move list never appears.
    assert!(!out.contains("a3a4"), "{out}");
}

#[test]
fn play_explains_the_board_turns_it_for_blue_and_hints_with_an_evaluation() {
    let legend = "Red is upper case, Blue lower case: R Rat, C Cat, D Dog, W Wolf, P Leopard, T Tiger, L Lion, E Elephant; ~ water, # trap, * den, . empty";
    let o = with_stdin(&["play", "--movetime", "50"], "hint\nhelp\nquit\n");
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    assert_eq!(out.matches(legend).count(), 2, "the legend at the start and with help:\n{out}");
    // Red sees rank 9 at the top and file a on the left.
    let board: Vec<&str> = out.lines().skip_while(|l| !l.starts_with("  9  ")).take(10).collect();
    assert_eq!((board[0], board[8], board[9]), ("  9  l . # * # . t", "  1  T . # * # . L", "     a b c d e f g"), "{out}");
    let hint = out.lines().find_map(|l| l.split("your move> ").last().filter(|h| h.starts_with("hint: "))).unwrap_or_else(|| panic!("no hint:\n{out}"));
    // "hint: a3a4 (score +12 for you at depth 5)": a move, then the engine's view of it.
    let (mv, view) = hint["hint: ".len()..].split_once(' ').unwrap();
    assert!(mv.len() == 4 && view.starts_with("(score ") && view.contains(" for you at depth ") && view.ends_with(')'), "{hint}");

    // Blue sees the board from the other side: rank 1 at the top, file g on the left.
    let o = with_stdin(&["play", "--human", "blue", "--movetime", "30"], "quit\n");
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    let board: Vec<&str> = out.lines().skip_while(|l| !l.starts_with("  1  ")).take(10).collect();
    assert_eq!((board[8], board[9]), ("  9  t . # * # . l", "     g f e d c b a"), "{out}");
    assert!(!out.contains("     a b c d e f g"), "{out}");
}

#[test]
fn flip_positions_show_and_search_and_bad_ones_are_one_line() {
    let o = junglezero(&["show", "--game", "flip"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stdout(&o).contains("position ????/????/????/???? 1 - RCDWPTLErcdwptle 0 0") && stdout(&o).contains("16 legal moves"), "{}", stdout(&o));
    // Red to move (the first player owns Red) with its Rat next to Blue's Elephant: the Rat takes it.
    let o = junglezero(&["search", "--game", "flip", "--fen", "Re2/4/4/4 1 r - 0 9", "--depth", "3"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stdout(&o).trim_end().ends_with("bestmove a4xb4"), "{}", stdout(&o));
    let o = junglezero(&["show", "--game", "flip", "--fen", "R?/4"]);
    assert_eq!(o.status.code(), Some(2));
    assert_eq!(stderr(&o).trim().lines().count(), 1, "{}", stderr(&o));
    assert!(stderr(&o).contains("bad --fen"), "{}", stderr(&o));
}

#[test]
fn inspect_prints_what_a_model_file_holds_and_refuses_a_damaged_one() {
    let sample = concat!(env!("CARGO_MANIFEST_DIR"), "/checkpoints/sample-cpu-1h/gen-0072.jzm");
    let o = junglezero(&["inspect", sample]);
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    // The sample's config.toml: a 4 × 32 network for Jungle, generation 72 of its run.
    for line in ["game:        jungle", "network:     4 residual blocks × 32 channels", "network id:  gen-0072 (generation 72)", "rules:       "] {
        assert!(out.contains(line), "missing {line:?} in:\n{out}");
    }
    let o = junglezero(&["inspect", sample, "--json"]);
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).expect("one JSON object");
    assert_eq!((v["game"].as_str(), v["generation"].as_u64(), v["model"]["channels"].as_u64()), (Some("jungle"), Some(72), Some(32)));
    let parameters = v["parameters"].as_u64().unwrap_or(0);
    // 4 blocks of two 3×3 convolutions of 32 channels alone hold 4 × 2 × 9 × 32 × 32 weights.
    assert!(parameters > 4 * 2 * 9 * 32 * 32 && parameters < 200_000, "{parameters}");

    let dir = std::env::temp_dir().join(format!("jz-inspect-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let mut bytes = std::fs::read(sample).unwrap();
    let n = bytes.len();
    bytes[n / 2] ^= 0x55;
    let bad = dir.join("bad.jzm");
    std::fs::write(&bad, &bytes).unwrap();
    let o = junglezero(&["inspect", bad.to_str().unwrap()]);
    let e = stderr(&o);
    assert_eq!(o.status.code(), Some(2), "{e}");
    assert!(e.lines().count() == 1 && e.contains("bad.jzm"), "{e}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn analyse_shows_the_network_and_the_search_on_one_position() {
    let sample = concat!(env!("CARGO_MANIFEST_DIR"), "/checkpoints/sample-cpu-1h/gen-0072.jzm");
    let o = junglezero(&["analyse", "--model", sample, "--sims", "64", "--moves", "a3a4"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    let lines: Vec<&str> = out.lines().collect();
    assert!(lines[0].starts_with("network gen-0072") && lines[1].starts_with("value ") && lines[2].starts_with("policy "), "{out}");
    assert!(out.contains("sims 64 time "), "{out}");
    let best = lines.last().and_then(|l| l.strip_prefix("bestmove ")).expect("a bestmove line");
    // After a3a4 Blue moves: a Blue piece starts on rows 7 to 9.
    assert!(best.len() == 4 && "789".contains(&best[1..2]), "{best}");

    let o = junglezero(&["analyse", "--model", sample, "--sims", "32", "--json"]);
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).expect("one JSON object");
    let total: f64 = v["network"]["policy"].as_array().unwrap().iter().map(|p| p["p"].as_f64().unwrap()).sum();
    assert!((total - 1.0).abs() < 1e-3, "{total}");
    assert_eq!(v["mcts"]["sims"].as_u64(), Some(32));
    let visits: u64 = v["mcts"]["children"].as_array().unwrap().iter().map(|c| c["visits"].as_u64().unwrap()).sum();
    assert!(visits > 0 && visits <= 32, "{visits}");

    let o = junglezero(&["analyse", "--model", sample, "--fen", "not a position"]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert_eq!(stderr(&o).lines().count(), 1, "{}", stderr(&o));
}

#[test]
fn an_export_imports_back_into_the_same_network() {
    use junglezero::nn::{device::parse_device, model::average::flat_values, modelfile};
    let sample = concat!(env!("CARGO_MANIFEST_DIR"), "/checkpoints/sample-cpu-1h/gen-0072.jzm");
    let dir = std::env::temp_dir().join(format!("jz-import-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let st = dir.join("net.safetensors");
    let back = dir.join("back.jzm");
    let o = junglezero(&["export", "--model", sample, "--out", st.to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
    let o = junglezero(&["import", st.to_str().unwrap(), "--out", back.to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
    let device = parse_device("flex").unwrap();
    let (a, ma) = modelfile::load_any(std::path::Path::new(sample), &device).unwrap();
    let (b, mb) = modelfile::load_any(&back, &device).unwrap();
    assert!(flat_values(&a) == flat_values(&b), "the weights changed on the way");
    // The batch-norm statistics too: the outputs are the same to the bit.
    let size = ma.input_planes * 63;
    let x: Vec<f32> = (0..2 * size).map(|i| ((i * 7) % 5) as f32 * 0.25).collect();
    let eval = |net, meta: &modelfile::ModelMeta| junglezero::nn::NetEvaluator::new(net, device.clone(), "x", &meta.model).forward(&x, 2);
    let (oa, ob) = (eval(a.clone(), &ma), eval(b.clone(), &mb));
    assert!(oa.policy == ob.policy && oa.wdl == ob.wdl, "the outputs changed on the way");
    assert_eq!(
        (&mb.game, &mb.model, &mb.rules, &mb.id, mb.generation, mb.train_steps, mb.games),
        (&ma.game, &ma.model, &ma.rules, &ma.id, ma.generation, ma.train_steps, ma.games)
    );

    // The file written is never replaced.
    let before = std::fs::read(&back).unwrap();
    let o = junglezero(&["import", st.to_str().unwrap(), "--out", back.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("exists"), "{}", stderr(&o));
    assert_eq!(std::fs::read(&back).unwrap(), before);

    // A description that names another network than the weights hold is refused in one line.
    let json = dir.join("net.json");
    let text = std::fs::read_to_string(&json).unwrap();
    for (from, to, says) in [
        ("\"blocks\": 4", "\"blocks\": 5", "cannot hold"),
        ("\"value_hidden\": 64", "\"value_hidden\": 32", "value_fc1"),
        ("\"channels\": 32", "\"channels\": 16", "stem_conv.weight"),
        ("\"blocks\": 4", "\"blocks\": 0", "model.blocks"),
    ] {
        assert!(text.contains(from), "{from} not in the description");
        std::fs::write(&json, text.replace(from, to)).unwrap();
        let out = dir.join(format!("bad-{to}.jzm").replace([' ', '"', ':'], ""));
        let o = junglezero(&["import", st.to_str().unwrap(), "--out", out.to_str().unwrap()]);
        let e = stderr(&o);
        assert_eq!(o.status.code(), Some(2), "{to}: {e}");
        assert!(e.lines().count() == 1 && e.contains(says), "{to}: {e}");
        assert!(!out.exists());
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn the_json_analysis_engine_answers_every_query_by_id_with_shared_batches() {
    use std::io::Write;
    use std::process::Stdio;
    let sample = concat!(env!("CARGO_MANIFEST_DIR"), "/checkpoints/sample-cpu-1h/gen-0072.jzm");
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_junglezero"))
        .args(["analysis", "--model", sample, "--threads", "4"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let queries = [
        r#"{"id":"q1","maxVisits":300,"maxMoves":3}"#,
        r#"{"id":"q2","moves":["a3a4","g7g6"],"analyzeTurns":[0,2],"maxVisits":200,"includePolicy":true}"#,
        r#"{"id":"q3","initialFen":"6c/7/7/7/7/7/7/7/R6 b","maxVisits":50}"#,
        r#"{"id":"over","initialFen":"3C3/7/7/7/7/7/7/7/6r b"}"#,
        r#"{"id":"q4","maxVisits":300,"rules":"repetition=off"}"#,
        "not json",
        r#"{"id":"bad1","moves":["a3a9"]}"#,
        r#"{"id":"bad2","maxTime":-1}"#,
        r#"{"id":"bad3","analyzeTurns":[5]}"#,
    ];
    child.stdin.take().unwrap().write_all((queries.join("\n") + "\n").as_bytes()).unwrap();
    let o = child.wait_with_output().unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
    let answers: Vec<serde_json::Value> = stdout(&o).lines().map(|l| serde_json::from_str(l).expect("one JSON object a line")).collect();
    // q2 asks for two turns: 5 analyses and 5 errors.
    assert_eq!(answers.len(), 10, "{answers:?}");
    let of = |id: &str| answers.iter().filter(|a| a["id"] == id).collect::<Vec<_>>();
    for (id, visits) in [("q1", 300), ("q3", 50), ("q4", 300)] {
        let a = of(id);
        assert_eq!(a.len(), 1, "{id}: {a:?}");
        assert_eq!(a[0]["rootInfo"]["visits"].as_u64(), Some(visits), "{id}");
        let wdl: Vec<f64> = a[0]["rootInfo"]["wdl"].as_array().unwrap().iter().map(|x| x.as_f64().unwrap()).collect();
        let value = a[0]["rootInfo"]["value"].as_f64().unwrap();
        assert!((wdl.iter().sum::<f64>() - 1.0).abs() < 1e-4 && (wdl[0] - wdl[2] - value).abs() < 1e-3, "{id}: {wdl:?} value {value}");
        let moves = a[0]["moveInfos"].as_array().unwrap();
        assert!(!moves.is_empty() && moves[0]["pv"][0] == moves[0]["move"], "{id}: {moves:?}");
        let total: u64 = moves.iter().map(|m| m["visits"].as_u64().unwrap()).sum();
        assert!(total <= visits, "{id}: {total} visits in the moves");
    }
    assert_eq!(of("q1")[0]["moveInfos"].as_array().unwrap().len(), 3);
    // Blue's Cat on g9 against Red's Rat, Blue to move: the Cat's two moves only.
    assert!(of("q3")[0]["moveInfos"].as_array().unwrap().iter().all(|m| m["move"].as_str().unwrap().starts_with("g9")), "{:?}", of("q3"));
    let mut turns: Vec<u64> = of("q2").iter().map(|a| a["turnNumber"].as_u64().unwrap()).collect();
    turns.sort();
    assert_eq!(turns, [0, 2]);
    assert!(of("q2").iter().all(|a| a["policy"].as_array().is_some_and(|p| p.len() > 10)));
    for id in ["bad1", "bad2", "bad3", "over"] {
        assert!(of(id).len() == 1 && of(id)[0]["error"].is_string(), "{id}: {:?}", of(id));
    }
    assert!(answers.iter().any(|a| a["id"].is_null() && a["error"].is_string()));
    // Four searches at once share the network's calls.
    let e = stderr(&o);
    let mean: f64 = e.split("mean batch ").nth(1).and_then(|s| s.trim_end().trim_end_matches(')').parse().ok()).expect("the summary line");
    assert!(mean > 1.2, "{e}");
}

#[test]
fn bench_nn_names_the_kernel_set_and_a_set_the_cpu_lacks_is_refused() {
    let o =
        junglezero(&["bench", "nn", "--max-batch", "1", "--seconds", "0.01", "--set", "hardware.cpu_kernels=portable", "--set", "hardware.cpu_conv=winograd2"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stdout(&o).lines().next().unwrap().contains("fused CPU path: winograd2 on portable"), "{}", stdout(&o));
    #[cfg(target_arch = "x86_64")]
    if !std::arch::is_x86_feature_detected!("avx512f") {
        let o = junglezero(&["bench", "nn", "--max-batch", "1", "--seconds", "0.01", "--set", "hardware.cpu_kernels=avx512"]);
        assert_eq!(o.status.code(), Some(2));
        let err = stderr(&o);
        assert_eq!(err.lines().count(), 1, "{err}");
        assert!(err.contains("hardware.cpu_kernels") && err.contains("AVX-512"), "{err}");
    }
    let o = junglezero(&["bench", "nn", "--max-batch", "1", "--seconds", "0.01", "--set", "hardware.cpu_kernels=sse9"]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("hardware.cpu_kernels"), "{}", stderr(&o));
}

#[test]
fn bench_agree_checks_half_precision_arithmetic_on_the_cpu_against_its_tolerance() {
    // Batches of 10, 10 and 4: ragged, as the GPU check runs them. Success is the verdict:
    // within half precision's tolerance.
    let o = junglezero(&["bench", "agree", "--half-reference", "--positions", "24", "--batch", "10"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    assert!(out.starts_with("reference: ") && out.contains("tested: the NVIDIA path's half-precision arithmetic, on the CPU"), "{out}");
    let lines: Vec<&str> = out.lines().collect();
    assert!(lines[lines.len() - 2].starts_with("reference scale: largest legal logit ") && lines[lines.len() - 2].contains("; tolerance: policy "), "{out}");
    let f: Vec<&str> = lines[lines.len() - 1].split(' ').collect();
    assert_eq!(f.len(), 12, "{out}");
    assert_eq!((f[0], f[1], f[2], f[3], f[6], f[9], f[11]), ("agree", "positions", "24", "policy", "value", "top-move", "%"), "{out}");
    assert!(f[5].parse::<f32>().is_ok() && f[8].parse::<f32>().is_ok() && f[10].parse::<f64>().is_ok(), "{out}");
}
