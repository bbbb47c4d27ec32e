//! The JSON analysis engine's side of KataGo's protocol beyond single queries: `query_version`,
//! `terminate` and `terminate_all`, a query's `priority` and partial answers while it searches
//! (`reportDuringSearchEvery`).

use std::io::{BufRead, BufReader, Write};
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use serde_json::Value;

use super::hostile3_files::bin;

const SAMPLE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/checkpoints/sample-cpu-1h/gen-0072.jzm");

/// A running `analysis` with one search thread: lines go in, answers come out as they are said.
struct Engine {
    child: std::process::Child,
    input: Option<std::process::ChildStdin>,
    answers: mpsc::Receiver<Value>,
}

impl Engine {
    fn start() -> Engine {
        let mut child = Command::new(bin())
            .args(["analysis", "--model", SAMPLE, "--threads", "1"])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("binary runs");
        let stdout = child.stdout.take().unwrap();
        let (tx, answers) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines().map_while(Result::ok) {
                let v: Value = serde_json::from_str(&line).unwrap_or_else(|_| panic!("not JSON: {line}"));
                if tx.send(v).is_err() {
                    break;
                }
            }
        });
        let input = child.stdin.take();
        Engine { child, input, answers }
    }

    fn send(&mut self, line: &str) {
        let input = self.input.as_mut().unwrap();
        writeln!(input, "{line}").unwrap();
        input.flush().unwrap();
    }

    /// The next answer, waiting at most 30 s.
    fn next(&self) -> Value {
        self.answers.recv_timeout(Duration::from_secs(30)).expect("an answer within 30 s")
    }

    /// Ends the input and returns every answer still to come.
    fn finish(mut self) -> Vec<Value> {
        drop(self.input.take());
        let rest: Vec<Value> = self.answers.iter().collect();
        assert!(self.child.wait().unwrap().success());
        rest
    }
}

#[test]
fn versions_priorities_and_answers_during_the_search() {
    let mut e = Engine::start();
    e.send(r#"{"id":"v","action":"query_version"}"#);
    e.send(r#"{"id":"fly","action":"fly"}"#);
    e.send(r#"{"id":"t","action":"terminate"}"#);
    // One thread: `busy` holds it for a second and a half while `low` and then `high` wait;
    // `high` is searched first.
    e.send(r#"{"id":"busy","maxVisits":100000,"maxTime":1.5,"reportDuringSearchEvery":0.3}"#);
    e.send(r#"{"id":"low","maxVisits":1}"#);
    e.send(r#"{"id":"high","maxVisits":1,"priority":5}"#);
    e.send(r#"{"id":"bad","maxVisits":1,"priority":0.5}"#);
    let answers = e.finish();
    let at = |id: &str| answers.iter().position(|a| a["id"] == id).unwrap_or_else(|| panic!("no answer for {id}: {answers:?}"));
    assert_eq!(answers[at("v")]["version"], env!("CARGO_PKG_VERSION"), "{answers:?}");
    assert!(answers[at("fly")]["error"].as_str().is_some_and(|m| m.contains("unknown action 'fly'")), "{answers:?}");
    assert!(answers[at("t")]["error"].as_str().is_some_and(|m| m.contains("terminateId")), "{answers:?}");
    assert!(answers[at("bad")]["error"].as_str().is_some_and(|m| m.starts_with("priority")), "{answers:?}");
    let busy: Vec<&Value> = answers.iter().filter(|a| a["id"] == "busy").collect();
    let partial = busy.iter().filter(|a| a["isDuringSearch"] == true).count();
    assert!(partial >= 2, "{partial} partial answers in 1.5 s at one every 0.3 s: {busy:?}");
    let last = busy.last().unwrap();
    assert_eq!(last["isDuringSearch"], false, "the final answer comes last: {busy:?}");
    assert!(busy.iter().all(|a| a["rootInfo"]["visits"].as_u64() <= last["rootInfo"]["visits"].as_u64()), "{busy:?}");
    assert!(at("high") < at("low"), "the higher priority waited less: {answers:?}");
}

#[test]
fn terminate_ends_a_running_search_and_answers_the_waiting_positions_without_results() {
    let mut e = Engine::start();
    // Two positions of one query: turn 0 searches (for up to a minute), turn 1 waits.
    e.send(r#"{"id":"long","moves":["a3a4"],"analyzeTurns":[0,1],"maxVisits":100000,"maxTime":60,"reportDuringSearchEvery":0.2}"#);
    let first = e.next();
    assert_eq!((first["id"].as_str(), first["isDuringSearch"].as_bool()), (Some("long"), Some(true)), "{first}");
    let sent = Instant::now();
    e.send(r#"{"id":"stop","action":"terminate","terminateId":"long"}"#);
    let mut seen = Vec::new();
    while !seen.iter().any(|a: &Value| a["id"] == "long" && a["turnNumber"] == 0 && a["isDuringSearch"] == false) {
        seen.push(e.next());
    }
    assert!(sent.elapsed() < Duration::from_secs(10), "the search ended {:?} after the terminate", sent.elapsed());
    seen.extend(e.finish());
    let waiting = seen.iter().find(|a| a["id"] == "long" && a["turnNumber"] == 1).unwrap_or_else(|| panic!("{seen:?}"));
    assert_eq!(waiting["noResults"], true, "{waiting}");
    let ack = seen.iter().find(|a| a["id"] == "stop").unwrap_or_else(|| panic!("{seen:?}"));
    assert_eq!((ack["action"].as_str(), ack["terminateId"].as_str()), (Some("terminate"), Some("long")), "{ack}");
    let stopped = seen.iter().find(|a| a["id"] == "long" && a["turnNumber"] == 0 && a["isDuringSearch"] == false).unwrap();
    assert!(stopped["rootInfo"]["visits"].as_u64().is_some_and(|v| v < 100_000) && stopped["moveInfos"][0]["move"].is_string(), "{stopped}");
}
