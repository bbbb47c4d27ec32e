//! docs/api.md's `curl` example sent to a running `junglezero serve`: with the JSON header it
//! is answered, without it (what `curl -d` alone sends) it gets 415 naming the header.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::process::{Command, Stdio};

/// The example's body and URL path, read from the doc's `curl -H 'Content-Type: ...'` line.
fn documented_request() -> (String, String) {
    let doc = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/docs/api.md")).unwrap();
    let line = doc.lines().find(|l| l.starts_with("curl -H 'Content-Type: application/json' -d '")).expect("the doc shows a curl POST with the header");
    let rest = &line["curl -H 'Content-Type: application/json' -d '".len()..];
    let (body, url) = rest.split_once("' ").unwrap();
    let path = url.trim().strip_prefix("http://127.0.0.1:8080").expect("a URL on the default address");
    (body.to_string(), path.to_string())
}

/// Sends one POST and returns the status code and body.
fn post(port: u16, path: &str, content_type: Option<&str>, body: &str) -> (u16, String) {
    let mut s = TcpStream::connect(("127.0.0.1", port)).unwrap();
    let header = content_type.map_or(String::new(), |t| format!("Content-Type: {t}\r\n"));
    write!(s, "POST {path} HTTP/1.1\r\nHost: 127.0.0.1\r\n{header}Content-Length: {}\r\nConnection: close\r\n\r\n{body}", body.len()).unwrap();
    let mut answer = String::new();
    s.read_to_string(&mut answer).unwrap();
    let status = answer.split_whitespace().nth(1).and_then(|c| c.parse().ok()).unwrap_or(0);
    (status, answer.split_once("\r\n\r\n").map_or(String::new(), |(_, b)| b.to_string()))
}

#[test]
fn the_documented_post_is_answered_and_one_without_its_header_is_refused_by_name() {
    let (body, path) = documented_request();
    let mut child = Command::new(env!("CARGO_BIN_EXE_junglezero")).args(["serve", "--port", "0"]).stdout(Stdio::piped()).stderr(Stdio::null()).spawn().unwrap();
    let mut first = String::new();
    BufReader::new(child.stdout.take().unwrap()).read_line(&mut first).unwrap();
    // "junglezero serve: open http://127.0.0.1:PORT/ (Ctrl-C stops)"
    let port: u16 = first.split("127.0.0.1:").nth(1).and_then(|r| r.split('/').next()).and_then(|p| p.parse().ok()).unwrap_or_else(|| panic!("{first}"));

    let (status, answer) = post(port, &path, Some("application/json"), &body);
    assert_eq!(status, 200, "{answer}");
    let v: serde_json::Value = serde_json::from_str(&answer).unwrap();
    assert_eq!(v["moves"], serde_json::json!(["a3a4"]), "{answer}");
    assert!(v["legal"].as_array().is_some_and(|l| !l.is_empty()), "{answer}");

    for content_type in [None, Some("application/x-www-form-urlencoded")] {
        let (status, answer) = post(port, &path, content_type, &body);
        assert_eq!(status, 415, "{content_type:?}: {answer}");
        assert!(answer.contains("application/json"), "{answer}");
    }
    child.kill().unwrap();
    child.wait().unwrap();
}
