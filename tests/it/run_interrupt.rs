//! A training run interrupted and resumed as a user does it, through the binary: Ctrl-C in the
//! ladder's calibration and in the teacher's games, and the resume line counting the games kept.

use std::io::{BufRead, BufReader};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

use crate::common::{fresh_dir, junglezero, smoke_config};

fn tmp(name: &str) -> PathBuf {
    fresh_dir("interrupt", name)
}

/// A training process whose stderr lines arrive on a channel as they are written.
struct Training {
    child: Child,
    lines: mpsc::Receiver<String>,
    seen: Vec<String>,
}

impl Training {
    fn start(args: &[&str]) -> Training {
        let mut child = Command::new(env!("CARGO_BIN_EXE_junglezero"))
            .args(args)
            .env("NO_COLOR", "1")
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("binary runs");
        let (tx, lines) = mpsc::channel();
        let err = child.stderr.take().unwrap();
        std::thread::spawn(move || {
            for l in BufReader::new(err).lines().map_while(Result::ok) {
                if tx.send(l).is_err() {
                    break;
                }
            }
        });
        Training { child, lines, seen: Vec::new() }
    }

    /// Waits (at most two minutes in all) for a stderr line holding `text`.
    fn wait_for(&mut self, text: &str) -> String {
        let deadline = std::time::Instant::now() + Duration::from_secs(120);
        loop {
            match self.lines.recv_timeout(deadline.saturating_duration_since(std::time::Instant::now())) {
                Ok(l) => {
                    self.seen.push(l.clone());
                    if l.contains(text) {
                        return l;
                    }
                }
                Err(_) => {
                    let _ = self.child.kill();
                    panic!("no line with {text:?}: {:#?}", self.seen)
                }
            }
        }
    }

    fn ctrl_c(&self) {
        // SAFETY: kill(2) with a pid this test started and a valid signal number.
        let r = unsafe { libc::kill(self.child.id() as libc::pid_t, libc::SIGINT) };
        assert_eq!(r, 0, "kill failed");
    }

    /// Exit status, stdout and every stderr line, once the process ends.
    fn finish(mut self) -> (Option<i32>, String, Vec<String>) {
        let status = self.child.wait().unwrap();
        let mut out = String::new();
        std::io::Read::read_to_string(&mut self.child.stdout.take().unwrap(), &mut out).unwrap();
        self.seen.extend(self.lines.iter());
        (status.code(), out, self.seen)
    }
}

#[test]
fn ctrl_c_in_the_calibration_says_what_is_kept_and_the_run_resumes() {
    let dir = tmp("calibration");
    let d = dir.to_str().unwrap();
    // A calibration long enough to be interrupted in.
    let mut t = Training::start(&["train", "--config", &smoke_config(), "--run", d, "--set", "ladder.calibration_games=100000"]);
    let start = t.wait_for("ladder calibration: 1 match of 100000 games");
    assert!(start.contains("pin down the Elo scale"), "{start}");
    t.ctrl_c();
    let (code, _, err) = t.finish();
    assert_eq!(code, Some(130), "{err:#?}");
    let said = err.iter().find(|l| l.starts_with("interrupted ")).unwrap_or_else(|| panic!("nothing said: {err:#?}"));
    assert!(said.contains("calibration") && said.contains("the run resumes with the same command"), "{said}");

    // The run is whole and resumes: the calibration (another match now: 4 games), then the rest.
    let o = junglezero(&["verify", "--run", d]);
    assert!(o.status.success() && String::from_utf8_lossy(&o.stdout).lines().last() == Some("ok"), "{}", String::from_utf8_lossy(&o.stdout));
    let o = junglezero(&["train", "--run", d, "--set", "ladder.calibration_games=4", "--set", "train.iterations=1"]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "{err}");
    assert!(err.contains("ladder calibration: alphabeta:depth=2 vs depth 1: "), "{err}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn ctrl_c_in_the_teacher_keeps_its_games_and_the_resume_line_counts_them() {
    let dir = tmp("teacher");
    let d = dir.to_str().unwrap();
    let mut t = Training::start(&["train", "--config", &smoke_config(), "--run", d, "--set", "teacher.games=100000", "--set", "ladder.every=0"]);
    t.wait_for("teacher: alpha-beta depth 2 plays 100000 games");
    // Wait for a shard (4 games each in the smoke config), so that some games are kept.
    let games = dir.join("games");
    for _ in 0..1200 {
        if std::fs::read_dir(&games).is_ok_and(|mut r| r.next().is_some()) {
            break;
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    t.ctrl_c();
    let (code, out, err) = t.finish();
    assert_eq!(code, Some(0), "{err:#?}");
    let said = err.iter().find(|l| l.starts_with("interrupted ")).unwrap_or_else(|| panic!("nothing said: {err:#?}"));
    assert!(said.contains("every finished game is kept"), "{said}");
    assert!(out.starts_with("run "), "{out}");
    // "teacher: 37 games (3004 plies) in 4 s"
    let kept: u64 =
        err.iter().find_map(|l| l.split("teacher: ").nth(1)?.split(" games (").next()?.parse().ok()).unwrap_or_else(|| panic!("no teacher summary: {err:#?}"));
    assert!(kept > 0, "{err:#?}");

    // Resumed with the teacher's games it has: the line counts them, then training goes on.
    let teacher = format!("teacher.games={kept}");
    let o = junglezero(&["train", "--run", d, "--set", &teacher, "--set", "train.iterations=1"]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "{err}");
    let resumed = err.lines().find(|l| l.contains("resumed run ")).unwrap_or_else(|| panic!("{err}"));
    assert!(resumed.contains(&format!("at generation 0, step 0, {kept} games seen ({kept} of them the teacher's, {kept} not trained on yet)")), "{resumed}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_time_limit_covers_the_teacher_and_leaves_a_trained_network() {
    // The teacher has far more games to play than the limit allows: it stops at the limit with
    // the games it finished, the first network trains on them, and the run ends. No calibration
    // or ladder comes before the teacher (the untrained generation 0 is not rated).
    let dir = tmp("time-limit");
    let d = dir.to_str().unwrap();
    let o = junglezero(&[
        "train",
        "--config",
        &smoke_config(),
        "--run",
        d,
        "--set",
        "train.time_limit_minutes=0.03",
        "--set",
        "teacher.games=100000",
        "--set",
        "train.iterations=0",
    ]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "{err}");
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(out.contains("generation 1 "), "a first network was trained: {out}");
    assert!(err.contains("reached train.time_limit_minutes"), "{err}");
    let games: u64 = out.split(" games ").nth(1).and_then(|r| r.split_whitespace().next()).and_then(|g| g.parse().ok()).unwrap_or(0);
    assert!(games > 0 && games < 100_000, "the teacher stopped at the limit with its finished games: {out}");
    assert!(!err.contains("calibration") && !err.contains("ladder:"), "nothing rated before the first network: {err}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_kill_in_the_calibration_keeps_its_finished_games() {
    let dir = tmp("calibration-kill");
    let d = dir.to_str().unwrap();
    let args = ["train", "--config", &smoke_config(), "--run", d, "--set", "ladder.calibration_games=100000", "--set", "train.iterations=1"];
    let mut t = Training::start(&args);
    t.wait_for("ladder calibration: 1 match of 100000 games");
    // Some games finish, then the process is killed outright.
    let journal =
        || std::fs::read_dir(dir.join("ladder")).into_iter().flatten().flatten().map(|e| e.path()).find(|p| p.extension().is_some_and(|x| x == "jsonl"));
    let lines = |p: &std::path::Path| std::fs::read_to_string(p).map(|t| t.lines().count()).unwrap_or(0);
    let start = std::time::Instant::now();
    while journal().is_none_or(|p| lines(&p) < 20) && start.elapsed() < Duration::from_secs(60) {
        std::thread::sleep(Duration::from_millis(20));
    }
    t.child.kill().unwrap();
    let (_, _, _) = t.finish();
    let path = journal().expect("the calibration match keeps a journal");
    let kept = lines(&path) - 1;
    assert!(kept >= 19, "{kept} games journaled");
    // The same command resumes the match from its journal.
    let mut again = Training::start(&args);
    let said = again.wait_for("kept from before");
    let n: usize = said.split(": ").nth(1).and_then(|r| r.split_whitespace().next()).and_then(|x| x.parse().ok()).unwrap_or(0);
    assert!(n >= kept, "{said}");
    let _ = again.child.kill();
    let _ = again.finish();
    std::fs::remove_dir_all(&dir).unwrap();
}
