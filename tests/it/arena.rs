//! Matches, the arena command, exports and reports.

use std::path::PathBuf;
use std::process::{Command, Output};
use std::time::Duration;

use junglezero::arena::match_game::ArenaGame;
use junglezero::arena::openings::{Opening, start_game};
use junglezero::arena::play::{MatchSettings, run_match};
use junglezero::arena::spec::PlayerSpec;
use junglezero::config::Config;
use junglezero::jungle::{JungleGame, Rules};

fn junglezero(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_junglezero")).args(args).output().expect("binary runs")
}

fn tmp(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("jz-arena-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn settings(games: u32) -> MatchSettings<JungleGame> {
    MatchSettings {
        games,
        concurrency: 2,
        opening_plies: 4,
        seed: 11,
        rules: Rules { max_plies: 400, ..Rules::default() },
        sprt: None,
        max_consecutive_forfeits: 3,
        adjudication: Default::default(),
        time_margin: Duration::from_millis(100),
        oracle: None,
    }
}

#[test]
fn alphabeta_depth_3_beats_random() {
    let c = Config::default();
    let a = JungleGame::factory("alphabeta:depth=3".parse().unwrap(), &c.players(), &c.rules.jungle, None).unwrap();
    let b = JungleGame::factory(PlayerSpec::Random { tc: None }, &c.players(), &c.rules.jungle, None).unwrap();
    let out = run_match(&*a, &*b, &settings(20), |_, _, _| {}).unwrap();
    assert_eq!(out.tally.games(), 20);
    assert!(out.tally.wins >= 18, "{:?}", out.tally);
}

#[test]
fn each_opening_is_played_with_both_colours_and_openings_differ() {
    let c = Config::default();
    let a = JungleGame::factory("alphabeta:depth=1".parse().unwrap(), &c.players(), &c.rules.jungle, None).unwrap();
    let b = JungleGame::factory(PlayerSpec::Random { tc: None }, &c.players(), &c.rules.jungle, None).unwrap();
    let s = settings(16);
    let out = run_match(&*a, &*b, &s, |_, _, _| {}).unwrap();
    assert_eq!(out.games.len(), 16);
    assert_eq!(out.tally.pairs(), 8);
    let mut positions = std::collections::HashSet::new();
    for pair in out.games.chunks(2) {
        let (x, y) = (&pair[0], &pair[1]);
        assert_eq!(x.pair, y.pair);
        assert!(x.a_red != y.a_red, "colours swapped within a pair");
        assert_eq!(x.moves[..4], y.moves[..4], "same opening within a pair");
        let opening = Opening::<JungleGame> { deal: (), moves: x.moves[..4].to_vec(), root: None };
        positions.insert(start_game(&s.rules, &opening).position().hash());
    }
    assert_eq!(positions.len(), 8, "distinct openings across pairs");
}

#[test]
fn arena_command_reports_json_pgn_and_stops_on_the_sprt() {
    let d = tmp("cmd");
    let json = d.join("r.json");
    let pgn = d.join("g.pgn");
    let o = junglezero(&[
        "arena",
        "--a",
        "alphabeta:depth=3",
        "--b",
        "random",
        "--games",
        "200",
        "--sprt",
        "elo0=0,elo1=100,alpha=0.05,beta=0.05",
        "--concurrency",
        "2",
        "--json",
        json.to_str().unwrap(),
        "--games-out",
        pgn.to_str().unwrap(),
        "--set",
        "rules.max_plies=400",
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(text.starts_with("Score of alphabeta:depth=3 vs random: "), "{text}");
    for want in ["Elo difference:", "LOS:", "DrawRatio:", "Ptnml(0-2):", "LLR", "H1 accepted"] {
        assert!(text.contains(want), "missing {want}: {text}");
    }
    let v: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    for key in ["games", "wins", "losses", "draws", "elo", "elo_ci95", "los", "penta", "llr", "sprt"] {
        assert!(v.get(key).is_some(), "JSON lacks {key}: {v}");
    }
    let games = v["games"].as_u64().unwrap();
    assert!(games < 200, "the SPRT should stop the match early ({games} games)");
    assert_eq!(v["wins"].as_u64().unwrap() + v["losses"].as_u64().unwrap() + v["draws"].as_u64().unwrap(), games);
    assert_eq!(v["sprt"]["verdict"], "h1");
    let pgn_text = std::fs::read_to_string(&pgn).unwrap();
    assert_eq!(pgn_text.matches("[Variant \"jungle\"]").count() as u64, games);
    for tag in ["[FEN \"", "[Rules \"", "[Termination \"", "[Result \""] {
        assert!(pgn_text.contains(tag), "PGN lacks {tag}");
    }
    std::fs::remove_dir_all(&d).unwrap();
}

#[test]
fn external_engines_play_through_the_protocol() {
    let cmd = format!("external:cmd=\"{} uci\",depth=2", env!("CARGO_BIN_EXE_junglezero"));
    let o = junglezero(&["arena", "--a", &cmd, "--b", "random", "--games", "4", "--concurrency", "2", "--set", "rules.max_plies=300"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(text.contains(" vs random: 4 - 0 - 0"), "{text}");
    // A command that is not an engine fails before the match, in one line.
    let o = junglezero(&["arena", "--a", "external:cmd=\"cat /dev/null\"", "--b", "random", "--games", "2"]);
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("uciok") && err.trim().lines().count() == 1, "{err}");
}

#[test]
fn clocks_reach_external_engines_and_an_engine_that_runs_out_loses_on_time() {
    // Our own engine over the protocol, told the clocks (and capped at depth 2), plays on.
    let cmd = format!("external:cmd=\"{} uci\",depth=2,tc=0/60+1", env!("CARGO_BIN_EXE_junglezero"));
    let o = junglezero(&["arena", "--a", &cmd, "--b", "random:tc=0/60", "--games", "2", "--set", "rules.max_plies=300"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(text.contains(": 2 - 0 - 0") && !text.contains("Lost on time"), "{text}");
    // An engine that never answers `go` loses each game on time, not by forfeit, and the match
    // goes on to the end.
    let d = tmp("silent-engine");
    let script = d.join("silent.py");
    std::fs::write(
        &script,
        "import sys\nfor line in sys.stdin:\n    w = line.split()\n    if w[:1] == ['uci']: print('uciok', flush=True)\n    elif w[:1] == ['isready']: print('readyok', flush=True)\n    elif w[:1] == ['quit']: break\n",
    )
    .unwrap();
    let json = d.join("m.json");
    let spec = format!("external:cmd=\"python3 {}\",tc=0/0.2", script.display());
    let o = junglezero(&["arena", "--a", &spec, "--b", "random", "--games", "2", "--json", json.to_str().unwrap()]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(text.contains(": 0 - 2 - 0") && text.contains("Lost on time: A 2, B 0") && !text.contains("Forfeits"), "{text}");
    let v: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    assert_eq!(v["time_losses"], serde_json::json!({"a": 2, "b": 0}));
    std::fs::remove_dir_all(&d).unwrap();
}

/// A protocol engine in Python that forwards to `junglezero uci` but answers `bestmove 0000`
/// (its own bug) to the first `go` whose marker file it manages to create, or to every `go`
/// when `always` is set.
fn flaky_engine(dir: &std::path::Path, always: bool) -> String {
    let script = dir.join("flaky.py");
    let text = format!(
        r#"import os, subprocess, sys
inner = subprocess.Popen([{bin:?}, "uci"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, bufsize=1)
def ask(line, until):
    inner.stdin.write(line + "\n"); inner.stdin.flush()
    while True:
        out = inner.stdout.readline()
        if not out or out.startswith(until):
            return out
for line in sys.stdin:
    line = line.strip()
    if line == "uci":
        print("id name flaky"); print("uciok", flush=True)
    elif line == "isready":
        print("readyok", flush=True)
    elif line.startswith("position") or line == "ucinewgame":
        inner.stdin.write(line + "\n"); inner.stdin.flush()
    elif line.startswith("go"):
        try:
            fail = {always}
            if not fail:
                os.close(os.open({marker:?}, os.O_CREAT | os.O_EXCL)); fail = True
        except FileExistsError:
            fail = False
        answer = ask(line, "bestmove")
        print("bestmove 0000" if fail else answer.strip(), flush=True)
    elif line == "quit":
        break
"#,
        bin = env!("CARGO_BIN_EXE_junglezero"),
        marker = dir.join("failed-once").to_str().unwrap(),
        always = if always { "True" } else { "False" },
    );
    std::fs::write(&script, text).unwrap();
    format!("external:cmd=\"python3 {}\",depth=2", script.display())
}

#[test]
fn an_engine_that_fails_once_loses_that_game_only() {
    let d = tmp("flaky-once");
    let spec = flaky_engine(&d, false);
    let json = d.join("m.json");
    let o = junglezero(&[
        "arena",
        "--a",
        &spec,
        "--b",
        "random",
        "--games",
        "6",
        "--concurrency",
        "2",
        "--json",
        json.to_str().unwrap(),
        "--set",
        "rules.max_plies=300",
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(text.contains(" vs random: 5 - 1 - 0"), "one forfeit, the other games won: {text}");
    assert!(text.contains("Forfeits: A 1 (unreadable answer 1), B 0"), "{text}");
    let v: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    assert_eq!(v["forfeits"]["a"]["unreadable answer"], 1);
    std::fs::remove_dir_all(&d).unwrap();
}

#[test]
fn an_engine_that_keeps_failing_stops_the_match_with_one_line() {
    let d = tmp("flaky-always");
    let spec = flaky_engine(&d, true);
    let o = junglezero(&["arena", "--a", &spec, "--b", "random", "--games", "20", "--concurrency", "1"]);
    assert!(!o.status.success());
    let err = String::from_utf8_lossy(&o.stderr);
    let last = err.trim().lines().last().unwrap_or("");
    assert!(last.contains("forfeited 3 games in a row (last: unreadable answer)"), "{err}");
    std::fs::remove_dir_all(&d).unwrap();
}

#[test]
fn smoke_run_report_and_export() {
    let d = tmp("report");
    let run = d.join("run");
    let cfg = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("configs/smoke.toml");
    let o = junglezero(&["train", "--config", cfg.to_str().unwrap(), "--run", run.to_str().unwrap()]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    // The finished run verifies: everything loads and the learner's books balance.
    let o = junglezero(&["verify", "--run", run.to_str().unwrap(), "--json"]);
    assert!(o.status.success(), "{}{}", String::from_utf8_lossy(&o.stdout), String::from_utf8_lossy(&o.stderr));
    let audit: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(audit["problems"], serde_json::json!([]));
    assert!(audit["shards"].as_u64().unwrap() > 0 && audit["checkpoint"]["games_seen"] == audit["shard_games"], "{audit}");
    let o = junglezero(&["report", "--run", run.to_str().unwrap()]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let report = run.join("report");
    let md = std::fs::read_to_string(report.join("report.md")).unwrap();
    for section in ["# Training report", "## Strength over training", "## Training", "## Gate decisions", "## Self-play", "## Hardware, versions and config"] {
        assert!(md.contains(section), "report lacks {section}");
    }
    assert!(md.contains("alpha-beta depth 1 | | | | +0"), "ratings are anchored at depth 1:\n{md}");
    for fig in ["elo", "losses", "gate", "colours", "reasons", "lengths"] {
        let png = std::fs::read(report.join(format!("{fig}.png"))).unwrap();
        assert!(png.starts_with(b"\x89PNG") && png.len() > 5000, "{fig}.png");
        let svg = std::fs::read_to_string(report.join(format!("{fig}.svg"))).unwrap();
        assert!(svg.contains("<svg") && svg.contains("<text"), "{fig}.svg");
        assert!(md.contains(&format!("({fig}.png)")), "report does not show {fig}.png");
    }

    // Export the best network and check the weights file against the samples in Rust (the
    // numpy check runs in CI: scripts/verify_export.py).
    let model = junglezero::store::run::RunDir::new(&run).best().expect("a promoted model").1;
    let out = d.join("export/net.safetensors");
    let o = junglezero(&["export", "--model", model.to_str().unwrap(), "--out", out.to_str().unwrap()]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let meta: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(d.join("export/net.json")).unwrap()).unwrap();
    assert_eq!(meta["format_version"], 1);
    assert_eq!(meta["input"]["shape"], serde_json::json!([32, 9, 7]));
    assert_eq!(meta["policy"]["size"], 252);
    let mut npz = ndarray_npy::NpzReader::new(std::fs::File::open(d.join("export/net.samples.npz")).unwrap()).unwrap();
    let inputs: ndarray::Array4<f32> = npz.by_name("inputs.npy").unwrap();
    let logits: ndarray::Array2<f32> = npz.by_name("policy_logits.npy").unwrap();
    assert_eq!(inputs.shape(), &[32, 32, 9, 7]);
    assert_eq!(logits.shape(), &[32, 252]);
    // The safetensors weights, loaded back into a fresh network, reproduce the samples.
    use burn::store::{ModuleSnapshot, PyTorchToBurnAdapter, SafetensorsStore};
    let device = junglezero::nn::device::parse_device("flex").unwrap();
    let (_, m) = junglezero::nn::modelfile::load(&model, &device, junglezero::jungle::encode::SHAPE).unwrap();
    let mut net = m.model.init(junglezero::jungle::encode::SHAPE, &device);
    let res = net.load_from(&mut SafetensorsStore::from_file(&out).with_from_adapter(PyTorchToBurnAdapter)).unwrap();
    assert!(res.errors.is_empty() && res.missing.is_empty(), "{res:?}");
    let eval = junglezero::nn::NetEvaluator::new(net, device, "x", &m.model);
    let p = eval.forward(inputs.as_slice().unwrap(), 32).policy;
    let worst = p.iter().zip(logits.iter()).map(|(a, b)| (a - b).abs()).fold(0.0f32, f32::max);
    assert!(worst < 1e-4, "{worst}");

    // A damaged run does not verify, and each damage is named: a torn shard, a shard the
    // learner read that is gone, and a network file cut short.
    let shards = junglezero::store::run::RunDir::new(&run).shards();
    let bytes = std::fs::read(&shards[0]).unwrap();
    std::fs::write(&shards[0], &bytes[..bytes.len() / 2]).unwrap();
    std::fs::remove_file(&shards[1]).unwrap();
    std::fs::write(&model, b"JZ").unwrap();
    let o = junglezero(&["verify", "--run", run.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2));
    let text = String::from_utf8_lossy(&o.stdout);
    let name = |p: &std::path::Path| p.file_name().unwrap().to_string_lossy().into_owned();
    assert!(text.contains("problem: shard does not read") && text.contains(&name(&shards[0])), "{text}");
    assert!(text.contains(&format!("shard games/{} was read by the learner but is gone", name(&shards[1]))), "{text}");
    assert!(text.contains("problem: network does not load") && text.contains(&name(&model)), "{text}");
    assert_eq!(String::from_utf8_lossy(&o.stderr).trim().lines().count(), 1);
    std::fs::remove_dir_all(&d).unwrap();
}

#[test]
fn adjudication_ends_games_on_agreeing_scores_and_is_off_by_default() {
    use junglezero::arena::adjudicate::Adjudication;
    use junglezero::game::Reason;
    let c = Config::default();
    let a = JungleGame::factory("alphabeta:depth=3".parse().unwrap(), &c.players(), &c.rules.jungle, None).unwrap();
    let b = JungleGame::factory("alphabeta:depth=1".parse().unwrap(), &c.players(), &c.rules.jungle, None).unwrap();
    let plain = run_match(&*a, &*b, &settings(8), |_, _, _| {}).unwrap();
    assert!(plain.games.iter().all(|g| g.outcome.reason != Reason::Adjudication));
    let adjudication = Adjudication { win_plies: 4, win_score: 400, ..Adjudication::default() };
    let judged = run_match(&*a, &*b, &MatchSettings { adjudication, ..settings(8) }, |_, _, _| {}).unwrap();
    let adjudicated: Vec<_> = judged.games.iter().filter(|g| g.outcome.reason == Reason::Adjudication).collect();
    assert!(!adjudicated.is_empty(), "two alpha-beta engines agree on lopsided positions");
    for g in &adjudicated {
        assert!(g.outcome.winner.is_some(), "win adjudication only decides");
        assert!(g.moves.len() >= g.opening_plies + 4, "four scored plies at least");
    }
    let mean = |o: &junglezero::arena::play::MatchOutcome<JungleGame>| o.games.iter().map(|g| g.moves.len()).sum::<usize>() as f64 / o.games.len() as f64;
    assert!(mean(&judged) < mean(&plain), "adjudicated games are shorter");
}

/// A round robin of three engines: standings and a crosstable; interrupted (its games file cut
/// after five games and a torn line), the same command finishes it with the same results as an
/// uninterrupted one; another tournament in the same folder is refused.
#[test]
fn a_tournament_resumes_where_it_stopped_and_ends_as_an_uninterrupted_one() {
    let players = ["alphabeta:depth=1", "alphabeta:depth=2", "alphabeta:depth=3"];
    let run = |dir: &std::path::Path| {
        let mut args = vec!["tournament", "--games", "4", "--concurrency", "2", "--seed", "5", "--out", dir.to_str().unwrap(), "--players"];
        args.extend(players);
        junglezero(&args)
    };
    let whole = tmp("tournament-whole");
    let o = run(&whole);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let out = String::from_utf8_lossy(&o.stdout).into_owned();
    assert!(out.starts_with("Rank Name") && out.contains("12 games; ratings anchored at alphabeta:depth=1 = 0"), "{out}");
    // Three pairings of 4 games: each engine played 8, and the crosstable's cells add up.
    let results: serde_json::Value = serde_json::from_slice(&std::fs::read(whole.join("results.json")).unwrap()).unwrap();
    let standings = results["standings"].as_array().unwrap();
    assert_eq!(standings.len(), 3);
    assert!(standings.iter().all(|s| s["games"] == 8), "{standings:?}");
    let points: f64 = standings.iter().map(|s| s["points"].as_f64().unwrap()).sum();
    assert_eq!(points, 12.0);
    let cells = |r: &serde_json::Value| {
        let mut v: Vec<(String, String, f64)> = r["crosstable"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| (c["player"].as_str().unwrap().to_string(), c["opponent"].as_str().unwrap().to_string(), c["points"].as_f64().unwrap()))
            .collect();
        v.sort_by(|a, b| (&a.0, &a.1).cmp(&(&b.0, &b.1)));
        v
    };
    assert_eq!(cells(&results).len(), 6);

    let cut = tmp("tournament-cut");
    assert!(run(&cut).status.success());
    let games = std::fs::read_to_string(cut.join("games.jsonl")).unwrap();
    // The description, then five games.
    let kept: Vec<&str> = games.lines().take(6).collect();
    std::fs::write(cut.join("games.jsonl"), kept.join("\n") + "\n{\"a\":0,\"b\"").unwrap();
    let o = run(&cut);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(String::from_utf8_lossy(&o.stderr).contains("resuming: 5 games already played"), "{}", String::from_utf8_lossy(&o.stderr));
    assert_eq!(std::fs::read_to_string(cut.join("games.jsonl")).unwrap().lines().count(), 13);
    let resumed: serde_json::Value = serde_json::from_slice(&std::fs::read(cut.join("results.json")).unwrap()).unwrap();
    assert_eq!(cells(&resumed), cells(&results));

    let o = junglezero(&["tournament", "--games", "2", "--out", cut.to_str().unwrap(), "--players", "random", "alphabeta:depth=1"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("holds another match"), "{}", String::from_utf8_lossy(&o.stderr));
    std::fs::remove_dir_all(&whole).unwrap();
    std::fs::remove_dir_all(&cut).unwrap();
}

#[test]
fn openings_come_from_a_file_of_lines_or_pgn_and_bad_ones_are_named() {
    use junglezero::arena::openings::openings_from_text;
    let rules = Rules::default();
    let lines = "# two openings\na3a4 g7g6\n\n1. a3a4 2. a7a6 b2b1\n";
    let book = openings_from_text::<JungleGame>(lines, &rules, 1).unwrap();
    let texts: Vec<Vec<String>> = book.iter().map(|o| o.moves.iter().map(|m| m.to_string()).collect()).collect();
    assert_eq!(texts, vec![vec!["a3a4", "g7g6"], vec!["a3a4", "a7a6", "b2b1"]]);
    let pgn = "[Event \"x\"]\n[Result \"*\"]\n\n1. a3a4 {a comment} g7g6\n2. b2b1 *\n\n[Event \"y\"]\n\n1. g3g4 1-0\n";
    let book = openings_from_text::<JungleGame>(pgn, &rules, 1).unwrap();
    let texts: Vec<Vec<String>> = book.iter().map(|o| o.moves.iter().map(|m| m.to_string()).collect()).collect();
    assert_eq!(texts, vec![vec!["a3a4", "g7g6", "b2b1"], vec!["g3g4"]]);
    let e = openings_from_text::<JungleGame>("a3a4\na3a9\n", &rules, 1).unwrap_err().to_string();
    assert!(e.contains("opening 2 (line 2)") && e.contains("a3a9"), "{e}");
    assert!(openings_from_text::<JungleGame>("# nothing\n", &rules, 1).is_err());
    let e = openings_from_text::<junglezero::flip::FlipGame>("f:b3\n", &junglezero::flip::FlipRules::default(), 1).map(|_| ()).unwrap_err().to_string();
    assert!(e.contains("chance"), "{e}");
    // Positions: a FEN line (with moves after it or not), and PGN's FEN tag.
    let fen = "l5t/1d3c1/r1p1w1e/7/7/7/E1W1P1R/1C3D1/T5L w";
    let book = openings_from_text::<JungleGame>(&format!("{fen}\n{fen} moves a3a4\n"), &rules, 1).unwrap();
    assert_eq!(book.len(), 2);
    for o in &book {
        assert_eq!(o.root.as_ref().map(|r| r.1.fen()), Some(JungleGame::from_fen(fen, rules).unwrap().fen()));
    }
    assert_eq!(book[1].moves.iter().map(|m| m.to_string()).collect::<Vec<_>>(), vec!["a3a4"]);
    let tagged = format!("[Event \"x\"]\n[FEN \"{fen}\"]\n\n1. a3a4 *\n\n[Event \"y\"]\n\n1. a3a4 *\n");
    let book = openings_from_text::<JungleGame>(&tagged, &rules, 1).unwrap();
    assert!(book[0].root.is_some() && book[1].root.is_none(), "the tag is the first game's alone");
    let e = openings_from_text::<JungleGame>("a3a4\nl5t/1d3c1 w\n", &rules, 1).unwrap_err().to_string();
    assert!(e.contains("opening 2 (line 2): bad position"), "{e}");
    let e = openings_from_text::<junglezero::flip::FlipGame>("x/y/z w\n", &junglezero::flip::FlipRules::default(), 1).map(|_| ()).unwrap_err().to_string();
    assert!(e.contains("not positions"), "{e}");

    // Through the tournament: a book of two openings is played; a bad book is one line.
    let dir = tmp("tournament-book");
    std::fs::write(dir.join("book.txt"), lines).unwrap();
    let out = dir.join("t");
    let o = junglezero(&[
        "tournament",
        "--games",
        "4",
        "--openings",
        dir.join("book.txt").to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
        "--players",
        "alphabeta:depth=1",
        "alphabeta:depth=2",
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert_eq!(std::fs::read_to_string(out.join("games.jsonl")).unwrap().lines().count(), 5);
    std::fs::write(dir.join("bad.txt"), "a3a4 a3a9\n").unwrap();
    let o = junglezero(&[
        "tournament",
        "--openings",
        dir.join("bad.txt").to_str().unwrap(),
        "--out",
        dir.join("u").to_str().unwrap(),
        "--players",
        "random",
        "random",
    ]);
    let e = String::from_utf8_lossy(&o.stderr).into_owned();
    assert_eq!(o.status.code(), Some(2), "{e}");
    assert!(e.lines().count() == 1 && e.contains("a3a9"), "{e}");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// `arena --log`: interrupted (its journal cut after three games and a torn line), the same
/// command plays the rest and ends with the tally of an uninterrupted match; `--openings`
/// plays the file's positions (FEN lines) and the PGN says where each game started.
#[test]
fn an_arena_match_resumes_from_its_journal_and_plays_openings_from_a_file() {
    let dir = tmp("journal");
    let fen = "l5t/1d3c1/r1p1w1e/7/7/7/E1W1P1R/1C3D1/T5L w";
    std::fs::write(dir.join("book.txt"), format!("{fen}\n{fen} moves a3a4\n")).unwrap();
    let book = dir.join("book.txt");
    let run = |log: &std::path::Path, json: &std::path::Path, pgn: &std::path::Path| {
        junglezero(&[
            "arena",
            "--a",
            "alphabeta:depth=2",
            "--b",
            "alphabeta:depth=1",
            "--games",
            "8",
            "--concurrency",
            "2",
            "--openings",
            book.to_str().unwrap(),
            "--log",
            log.to_str().unwrap(),
            "--json",
            json.to_str().unwrap(),
            "--games-out",
            pgn.to_str().unwrap(),
        ])
    };
    let tally = |json: &std::path::Path| {
        let v: serde_json::Value = serde_json::from_slice(&std::fs::read(json).unwrap()).unwrap();
        (v["wins"].as_u64().unwrap(), v["draws"].as_u64().unwrap(), v["losses"].as_u64().unwrap(), v["penta"].clone())
    };
    let o = run(&dir.join("whole.jsonl"), &dir.join("whole.json"), &dir.join("whole.pgn"));
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let whole = tally(&dir.join("whole.json"));
    assert_eq!(whole.0 + whole.1 + whole.2, 8);
    let pgn = std::fs::read_to_string(dir.join("whole.pgn")).unwrap();
    assert_eq!(pgn.matches(&format!("[FEN \"{fen}")).count(), 8, "every game starts from the file's position");

    let log = dir.join("cut.jsonl");
    assert!(run(&log, &dir.join("first.json"), &dir.join("first.pgn")).status.success());
    let text = std::fs::read_to_string(&log).unwrap();
    assert_eq!(text.lines().count(), 9, "the description and eight games");
    let kept: Vec<&str> = text.lines().take(4).collect();
    std::fs::write(&log, kept.join("\n") + "\n{\"a\":0,").unwrap();
    let o = run(&log, &dir.join("cut.json"), &dir.join("cut.pgn"));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "{err}");
    assert!(err.contains("resuming: 3 games already played"), "{err}");
    assert_eq!(tally(&dir.join("cut.json")), whole, "the resumed match ends as the whole one");
    let pgn = std::fs::read_to_string(dir.join("cut.pgn")).unwrap();
    assert_eq!(pgn.matches("[Event ").count(), 5, "the PGN holds the games this run played");
    // Another match on the same journal is refused.
    let o = junglezero(&["arena", "--a", "random", "--b", "random", "--games", "2", "--log", log.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("holds another match"));
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Knows every position from ply 8 on: the side to move "wins in 1".
struct FromPlyEight;

impl junglezero::mcts::oracle::Oracle<JungleGame> for FromPlyEight {
    fn exact(&self, state: &JungleGame) -> Option<junglezero::mcts::oracle::Exact> {
        use junglezero::game::Game;
        (state.ply() >= 8).then_some(junglezero::mcts::oracle::Exact { value: 1.0, plies: 1 })
    }
    fn source(&self) -> &'static str {
        "test"
    }
}

/// Both match drivers (threaded players, and networks batched across games) end a game at the
/// first position an oracle knows, with its result and termination `tablebase`.
#[test]
fn both_match_drivers_end_games_where_an_oracle_knows_the_result() {
    use junglezero::arena::batched::{NetworkSearch, run_network_match};
    use junglezero::game::{Reason, Seat};
    let oracle: std::sync::Arc<dyn junglezero::mcts::oracle::Oracle<JungleGame>> = std::sync::Arc::new(FromPlyEight);
    let s = MatchSettings { opening_plies: 2, oracle: Some(oracle), ..settings(6) };
    let eval = junglezero::mcts::baseline::UniformEvaluator::default();
    let mcts = junglezero::mcts::MctsConfig::default();
    let batched = run_network_match(&eval, &eval, NetworkSearch { mcts: &mcts, sims: 8, games_in_flight: 3 }, &s, None, |_, _, _| {});
    let players = Config::default().players();
    let a = JungleGame::factory(PlayerSpec::Random { tc: None }, &players, &s.rules, None).unwrap();
    let threaded = run_match(&*a, &*a, &s, |_, _, _| {}).unwrap();
    for out in [&batched, &threaded] {
        assert_eq!(out.games.len(), 6);
        for g in &out.games {
            assert_eq!((g.outcome.reason, g.moves.len()), (Reason::Tablebase, 8), "{:?}", g.outcome);
            // Ply 8: the first player is to move, and the oracle gives it the win.
            assert_eq!(g.outcome.winner, Some(Seat::First));
        }
    }
}

/// A tournament keeps every game's moves in DIR/games.pgn as it ends (a resumed one adds to
/// it), and a gauntlet with `--sprt` ends each pairing once its test decides.
#[test]
fn a_tournament_writes_its_games_as_pgn_and_a_gauntlet_stops_on_its_test() {
    let dir = tmp("tournament-pgn");
    let d = dir.to_str().unwrap();
    let run = |games: &str| junglezero(&["tournament", "--games", games, "--seed", "3", "--out-dir", d, "--players", "alphabeta:depth=1", "random"]);
    let o = run("2");
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let pgn = std::fs::read_to_string(dir.join("games.pgn")).unwrap();
    assert_eq!(pgn.matches("[Result ").count(), 2, "{pgn}");
    assert!(pgn.contains("alphabeta:depth=1") && pgn.contains("random"), "{pgn}");
    // The same command again: nothing left to play, nothing added.
    let o = run("2");
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert_eq!(std::fs::read_to_string(dir.join("games.pgn")).unwrap(), pgn);
    std::fs::remove_dir_all(&dir).unwrap();

    let dir = tmp("tournament-sprt");
    let o = junglezero(&[
        "tournament",
        "--gauntlet",
        "--games",
        "1000",
        "--sprt",
        "elo0=0,elo1=200,alpha=0.05,beta=0.05",
        "--out-dir",
        dir.to_str().unwrap(),
        "--players",
        "alphabeta:depth=2",
        "random",
        "random",
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let results: serde_json::Value = serde_json::from_slice(&std::fs::read(dir.join("results.json")).unwrap()).unwrap();
    let games = results["standings"][0]["games"].as_u64().unwrap();
    assert!((4..200).contains(&games), "each pairing stops long before 1000 games: {games}");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// `--each` gives every player the same keys, before its own (cutechess's -each).
#[test]
fn each_gives_every_player_the_same_keys_and_a_player_s_own_win() {
    let o = junglezero(&["arena", "--a", "alphabeta:depth=1", "--b", "random", "--each", "tc=0/5+0.05", "--games", "2"]);
    let out = String::from_utf8_lossy(&o.stdout).into_owned();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(out.contains("alphabeta:depth=1,tc=0/5+0.05") && out.contains("random:tc=0/5+0.05"), "{out}");
    // A key one kind does not take is refused naming it.
    let o = junglezero(&["arena", "--a", "alphabeta:depth=1", "--b", "random", "--each", "sims=64", "--games", "2"]);
    let e = String::from_utf8_lossy(&o.stderr).into_owned();
    assert!(!o.status.success() && e.trim().lines().count() == 1 && e.contains("sims"), "{e}");
    // A player's own key wins over --each's.
    let dir = tmp("tournament-each");
    let o = junglezero(&[
        "tournament",
        "--games",
        "2",
        "--each",
        "depth=3",
        "--out-dir",
        dir.to_str().unwrap(),
        "--players",
        "alphabeta:depth=1",
        "alphabeta:depth=2",
    ]);
    let out = String::from_utf8_lossy(&o.stdout).into_owned();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(out.contains("alphabeta:depth=1") && out.contains("alphabeta:depth=2") && !out.contains("depth=3"), "{out}");
    std::fs::remove_dir_all(&dir).unwrap();
}
