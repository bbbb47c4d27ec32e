//! `junglezero serve`'s endpoints, called in-process through the router: positions and legal
//! moves, illegal input answered with a one-line 4xx, engine moves, the analysis stream's
//! events, game records, the report files and the search slots.

use std::sync::Arc;

use axum::Router;
use axum::body::Body;
use axum::http::{Request, StatusCode};
use serde_json::Value;
use tower::ServiceExt;

use junglezero::config::Config;
use junglezero::game::{Game, Reason, Seat};
use junglezero::jungle::encode::SHAPE;
use junglezero::jungle::{JungleGame, START_FEN, parse_move};
use junglezero::nn::NetEvaluator;
use junglezero::nn::device::parse_device;
use junglezero::nn::model::ModelConfig;
use junglezero::selfplay::record::{GameRecord, MoveRecord, encode_shard};
use junglezero::serve::{ServeState, router};

/// Red to move; the Red elephant on d8 enters Blue's den with d8d9.
const DEN_WIN_FEN: &str = "l5t/1d1E1c1/r1p1w1e/7/7/7/2W1P1R/1C3D1/T5L w 0 1";

pub(crate) fn small_net() -> Arc<NetEvaluator> {
    let model = ModelConfig {
        blocks: 1,
        channels: 8,
        policy_channels: 4,
        value_channels: 2,
        value_hidden: 16,
        moves_left: false,
        opponent_policy: false,
        short_value: false,
    };
    let device = parse_device("flex").unwrap();
    Arc::new(NetEvaluator::new(model.init(SHAPE, &device), device, "test", &model))
}

fn app_with(net: bool, report: Option<std::path::PathBuf>, searches: usize) -> Router {
    let network = net.then(small_net);
    router(Arc::new(ServeState::new(Config::default(), network, net.then(|| "test.jzm".to_string()), report, searches)))
}

fn app(net: bool) -> Router {
    app_with(net, None, 2)
}

async fn send(app: &Router, req: Request<Body>) -> (StatusCode, Vec<u8>) {
    let resp = app.clone().oneshot(req).await.unwrap();
    let status = resp.status();
    let body = axum::body::to_bytes(resp.into_body(), 64 << 20).await.unwrap();
    (status, body.to_vec())
}

async fn get(app: &Router, uri: &str) -> (StatusCode, Value) {
    let (s, b) = send(app, Request::get(uri).body(Body::empty()).unwrap()).await;
    (s, serde_json::from_slice(&b).unwrap_or(Value::Null))
}

async fn post(app: &Router, uri: &str, body: Value) -> (StatusCode, Value) {
    let req = Request::post(uri).header("content-type", "application/json").body(Body::from(body.to_string())).unwrap();
    let (s, b) = send(app, req).await;
    (s, serde_json::from_slice(&b).unwrap_or_else(|_| panic!("{uri}: not JSON: {}", String::from_utf8_lossy(&b))))
}

/// A 4xx answer whose body is `{"error": one line}` naming `needle`.
fn assert_error(status: StatusCode, body: &Value, want: StatusCode, needle: &str) {
    assert_eq!(status, want, "{body}");
    let msg = body["error"].as_str().unwrap_or_else(|| panic!("no error message: {body}"));
    assert!(!msg.contains('\n'), "multi-line error: {msg}");
    assert!(msg.contains(needle), "'{msg}' does not mention '{needle}'");
}

fn strings(v: &Value) -> Vec<String> {
    v.as_array().unwrap().iter().map(|x| x.as_str().unwrap().to_string()).collect()
}

#[tokio::test]
async fn info_names_the_network_and_the_caps() {
    let (s, v) = get(&app(true), "/api/info").await;
    assert_eq!(s, StatusCode::OK);
    assert_eq!(v["model"], "test.jzm");
    assert_eq!(v["start_fen"], START_FEN);
    assert_eq!(v["report"], false);
    assert!(v["max_sims"].as_u64().unwrap() > 0);
    let (_, v) = get(&app(false), "/api/info").await;
    assert!(v["model"].is_null());
}

#[tokio::test]
async fn the_position_lists_exactly_the_legal_moves() {
    let app = app(false);
    let (s, v) = post(&app, "/api/position", serde_json::json!({ "moves": ["a3a4", "g7g6"] })).await;
    assert_eq!(s, StatusCode::OK, "{v}");
    let mut g = JungleGame::default();
    for m in ["a3a4", "g7g6"] {
        g.play_text(m).unwrap();
    }
    let mut want: Vec<String> = g.legal_moves().iter().map(|m| m.to_string()).collect();
    let mut got = strings(&v["legal"]);
    want.sort();
    got.sort();
    assert_eq!(got, want);
    assert_eq!(v["fen"], g.fen());
    assert_eq!(v["side_to_move"], "red");
    assert_eq!(v["last_move"], "g7g6");
    assert_eq!(v["pieces"].as_array().unwrap().len(), 16);
    let elephant = v["pieces"].as_array().unwrap().iter().find(|p| p["square"] == "a4").unwrap();
    assert_eq!((elephant["side"].as_str(), elephant["kind"].as_str(), elephant["strength"].as_u64()), (Some("red"), Some("elephant"), Some(8)));
    assert!(v["result"].is_null());
}

#[tokio::test]
async fn a_fen_round_trips() {
    let app = app(false);
    let (_, a) = post(&app, "/api/position", serde_json::json!({ "moves": ["a3a4", "g7g6", "a4a5"] })).await;
    let fen = a["fen"].as_str().unwrap();
    let (s, b) = post(&app, "/api/position", serde_json::json!({ "fen": fen })).await;
    assert_eq!(s, StatusCode::OK);
    assert_eq!(b["fen"], fen);
    assert_eq!(b["root_fen"], fen);
    assert_eq!(b["legal"], a["legal"]);
    assert_eq!(b["pieces"], a["pieces"]);
}

#[tokio::test]
async fn the_end_of_a_game_is_reported_with_its_reason() {
    let (s, v) = post(&app(false), "/api/position", serde_json::json!({ "fen": DEN_WIN_FEN, "moves": ["d8d9"] })).await;
    assert_eq!(s, StatusCode::OK);
    assert_eq!(v["result"]["winner"], "red");
    assert_eq!(v["result"]["reason"], Reason::Den.name());
    assert!(v["result"]["text"].as_str().unwrap().contains("den"));
    assert!(v["legal"].as_array().unwrap().is_empty());
}

#[tokio::test]
async fn bad_positions_get_a_one_line_4xx() {
    let app = app(false);
    let (s, v) = post(&app, "/api/position", serde_json::json!({ "moves": ["a3a4", "a4a9"] })).await;
    assert_error(s, &v, StatusCode::BAD_REQUEST, "move 2 ('a4a9')");
    let (s, v) = post(&app, "/api/position", serde_json::json!({ "moves": ["zz"] })).await;
    assert_error(s, &v, StatusCode::BAD_REQUEST, "move 1 ('zz')");
    let (s, v) = post(&app, "/api/position", serde_json::json!({ "fen": "l5t/7 w 0 1" })).await;
    assert_error(s, &v, StatusCode::BAD_REQUEST, "bad FEN");
    let (s, v) = post(&app, "/api/position", serde_json::json!({ "rules": "repetition=sometimes" })).await;
    assert_error(s, &v, StatusCode::BAD_REQUEST, "bad rules");
    let (s, v) = post(&app, "/api/position", serde_json::json!({ "move": "a3a4" })).await;
    assert_error(s, &v, StatusCode::UNPROCESSABLE_ENTITY, "unknown field");
    let long: Vec<&str> = std::iter::repeat_n("a3a4", 5000).collect();
    let (s, v) = post(&app, "/api/position", serde_json::json!({ "moves": long })).await;
    assert_error(s, &v, StatusCode::BAD_REQUEST, "moves is more than");
    let req = Request::post("/api/position").header("content-type", "application/json").body(Body::from("{not json")).unwrap();
    let (s, b) = send(&app, req).await;
    assert_error(s, &serde_json::from_slice(&b).unwrap(), StatusCode::BAD_REQUEST, "JSON");
    let (s, v) = get(&app, "/api/nothing").await;
    assert_error(s, &v, StatusCode::NOT_FOUND, "no such");
    let (s, v) = get(&app, "/api/position").await;
    assert_error(s, &v, StatusCode::METHOD_NOT_ALLOWED, "method");
}

#[tokio::test]
async fn the_engines_answer_with_a_legal_move() {
    let app = app(true);
    let start = serde_json::json!({ "moves": [] });
    for (engine, extra) in [("alphabeta", serde_json::json!({ "depth": 2 })), ("network", serde_json::json!({ "sims": 16 }))] {
        let mut req = serde_json::json!({ "position": start, "engine": engine, "session": "t" });
        req.as_object_mut().unwrap().extend(extra.as_object().unwrap().clone());
        let (s, v) = post(&app, "/api/engine", req).await;
        assert_eq!(s, StatusCode::OK, "{engine}: {v}");
        let mv = v["move"].as_str().unwrap();
        assert!(JungleGame::default().is_legal(parse_move(mv).unwrap()), "{engine}: {mv}");
        assert_eq!(strings(&v["position"]["moves"]), vec![mv.to_string()]);
        assert_eq!(v["position"]["side_to_move"], "blue");
    }
    let (s, v) = post(&app, "/api/engine", serde_json::json!({ "position": { "fen": DEN_WIN_FEN }, "engine": "alphabeta", "depth": 3, "session": "t" })).await;
    assert_eq!(s, StatusCode::OK);
    assert_eq!(v["move"], "d8d9");
    assert_eq!(v["position"]["result"]["reason"], "den");
}

#[tokio::test]
async fn engine_requests_past_the_caps_or_without_a_network_are_refused() {
    let with = app(true);
    let pos = serde_json::json!({ "moves": [] });
    for (field, value, needle) in [("sims", 0u64, "sims"), ("sims", 1_000_000, "sims"), ("depth", 99, "depth"), ("movetime", 999_999, "movetime")] {
        let mut req = serde_json::json!({ "position": pos, "engine": "alphabeta", "session": "t" });
        req[field] = value.into();
        let (s, v) = post(&with, "/api/engine", req).await;
        assert_error(s, &v, StatusCode::BAD_REQUEST, needle);
    }
    let (s, v) = post(&app(false), "/api/engine", serde_json::json!({ "position": pos, "engine": "network", "session": "t" })).await;
    assert_error(s, &v, StatusCode::CONFLICT, "no network");
    let (s, v) =
        post(&with, "/api/engine", serde_json::json!({ "position": { "fen": DEN_WIN_FEN, "moves": ["d8d9"] }, "engine": "alphabeta", "session": "t" })).await;
    assert_error(s, &v, StatusCode::CONFLICT, "game is over");
    let (s, v) = post(&with, "/api/engine", serde_json::json!({ "position": pos, "engine": "alphabeta", "session": "no spaces!" })).await;
    assert_error(s, &v, StatusCode::BAD_REQUEST, "session");
    let (s, v) = post(&with, "/api/engine", serde_json::json!({ "position": pos, "engine": "oracle", "session": "t" })).await;
    assert_error(s, &v, StatusCode::UNPROCESSABLE_ENTITY, "engine");
}

/// The analysis stream's events as (name, data).
fn events(body: &[u8]) -> Vec<(String, Value)> {
    let text = String::from_utf8_lossy(body);
    let mut out = Vec::new();
    for block in text.split("\n\n") {
        let name = block.lines().find_map(|l| l.strip_prefix("event: ")).map(str::to_string);
        let data = block.lines().find_map(|l| l.strip_prefix("data: "));
        if let (Some(n), Some(d)) = (name, data) {
            out.push((n, serde_json::from_str(d).unwrap()));
        }
    }
    out
}

#[tokio::test]
async fn the_analysis_stream_shows_the_network_mcts_and_alphabeta() {
    let app = app(true);
    let fen = DEN_WIN_FEN.replace(' ', "%20").replace('/', "%2F");
    let (s, body) = send(&app, Request::get(format!("/api/analyse?session=a&fen={fen}&sims=64&depth=3")).body(Body::empty()).unwrap()).await;
    assert_eq!(s, StatusCode::OK);
    let ev = events(&body);
    let names: Vec<&str> = ev.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(names.first(), Some(&"position"));
    assert_eq!(names.last(), Some(&"done"));
    let net = &ev.iter().find(|(n, _)| n == "network").expect("a network event").1;
    let policy = net["policy"].as_array().unwrap();
    let legal = strings(&ev[0].1["legal"]);
    assert_eq!(policy.len(), legal.len());
    let total: f64 = policy.iter().map(|p| p["p"].as_f64().unwrap()).sum();
    assert!((total - 1.0).abs() < 1e-4, "policy sums to {total}");
    let wdl: f64 = net["wdl"].as_array().unwrap().iter().map(|x| x.as_f64().unwrap()).sum();
    assert!((wdl - 1.0).abs() < 1e-4);
    let mcts = &ev.iter().rev().find(|(n, _)| n == "mcts").expect("an mcts event").1;
    // 64 simulations, or fewer once the search proves the den entry (its untrained network
    // is drawn afresh each run, so when it finds the move varies).
    let sims = mcts["sims"].as_u64().unwrap();
    assert!(sims == 64 || (sims < 64 && mcts["mate"] == 1), "{mcts}");
    // The most visited children first (at most a dozen shown), never more visits than sims.
    let visits: Vec<u64> = mcts["children"].as_array().unwrap().iter().map(|c| c["visits"].as_u64().unwrap()).collect();
    assert!(!visits.is_empty() && visits.len() <= 12);
    assert!(visits.windows(2).all(|w| w[0] >= w[1]), "{visits:?}");
    assert!(visits.iter().sum::<u64>() <= 64);
    // The move played is the most visited, or the proven win (the den entry) once proven.
    if mcts["mate"] == 1 {
        assert_eq!(mcts["best"], "d8d9", "{mcts}");
    } else {
        assert_eq!(mcts["best"], mcts["children"][0]["move"]);
    }
    let ab = &ev.iter().rev().find(|(n, _)| n == "alphabeta").expect("an alphabeta event").1;
    assert_eq!(ab["best"], "d8d9");
    assert_eq!(ab["mate"], 1);
}

#[tokio::test]
async fn analysis_requests_are_checked_before_a_search_starts() {
    let (s, v) = get(&app(false), "/api/analyse?session=a&engines=mcts").await;
    assert_error(s, &v, StatusCode::CONFLICT, "no network");
    let (s, v) = get(&app(true), "/api/analyse?session=a&engines=oracle").await;
    assert_error(s, &v, StatusCode::BAD_REQUEST, "oracle");
    let (s, v) = get(&app(true), "/api/analyse?session=a&moves=a3a9").await;
    assert_error(s, &v, StatusCode::BAD_REQUEST, "a3a9");
    // A session is optional, but one named must be a sane name.
    let (s, v) = get(&app(true), "/api/analyse?moves=a3a4&session=a%20b").await;
    assert_error(s, &v, StatusCode::BAD_REQUEST, "session");
    let (s, v) = get(&app(true), "/api/analyse?session=a&sims=-3").await;
    assert_error(s, &v, StatusCode::BAD_REQUEST, "sims");
}

#[tokio::test]
async fn a_busy_server_refuses_a_second_search_and_frees_the_slot_when_the_first_ends() {
    let app = app_with(false, None, 1);
    // A long analysis holds the only slot while its stream is open and unread.
    let first = app.clone().oneshot(Request::get("/api/analyse?session=a&movetime=20000").body(Body::empty()).unwrap()).await.unwrap();
    assert_eq!(first.status(), StatusCode::OK);
    let (s, v) = post(&app, "/api/engine", serde_json::json!({ "position": {}, "engine": "alphabeta", "depth": 1, "session": "b" })).await;
    assert_error(s, &v, StatusCode::TOO_MANY_REQUESTS, "busy");
    // Stopping session a ends its search; then b gets the slot.
    let (s, v) = post(&app, "/api/stop", serde_json::json!({ "sessions": ["a"] })).await;
    assert_eq!((s, v["stopped"].as_u64()), (StatusCode::OK, Some(1)));
    drop(first);
    let (s, v) = post(&app, "/api/engine", serde_json::json!({ "position": {}, "engine": "alphabeta", "depth": 1, "session": "b" })).await;
    assert_eq!(s, StatusCode::OK, "{v}");
}

async fn upload(app: &Router, bytes: Vec<u8>) -> (StatusCode, Value) {
    let (s, b) = send(app, Request::post("/api/records").body(Body::from(bytes)).unwrap()).await;
    (s, serde_json::from_slice(&b).unwrap())
}

#[tokio::test]
async fn pgn_records_are_read_with_their_start_and_rules() {
    let pgn = format!(
        "[Event \"junglezero arena\"]\n[White \"a\"]\n[Black \"b\"]\n[Result \"1-0\"]\n[FEN \"{DEN_WIN_FEN}\"]\n[Rules \"repetition=off\"]\n\n1. c3d3 g7g6 2. d8d9 {{den}} 1-0\n\n\
         [Event \"second\"]\n\n1. a3a4 g7g6 *\n"
    );
    let (s, v) = upload(&app(false), pgn.into_bytes()).await;
    assert_eq!(s, StatusCode::OK, "{v}");
    let games = v["games"].as_array().unwrap();
    assert_eq!(games.len(), 2);
    assert_eq!(strings(&games[0]["moves"]), ["c3d3", "g7g6", "d8d9"]);
    assert_eq!(games[0]["fen"], DEN_WIN_FEN);
    assert_eq!(games[0]["rules"], "repetition=off");
    assert_eq!(games[0]["result"]["reason"], "den");
    assert!(games[0]["title"].as_str().unwrap().contains("a – b"));
    assert_eq!(strings(&games[1]["moves"]), ["a3a4", "g7g6"]);
    assert_eq!(games[1]["fen"], START_FEN);
    assert!(games[1]["result"].is_null());
}

#[tokio::test]
async fn bad_records_name_the_game_and_line() {
    let app = app(false);
    let (s, v) = upload(&app, b"[Event \"x\"]\n\n1. a3a4 g7g6\n\n[Event \"y\"]\n\n1. a3a4 a3a5\n".to_vec()).await;
    assert_error(s, &v, StatusCode::BAD_REQUEST, "game 2 (line 5): move 2 ('a3a5')");
    let (s, v) = upload(&app, vec![0xff, 0xfe, 0x00]).await;
    assert_error(s, &v, StatusCode::BAD_REQUEST, "neither");
    let (s, v) = upload(&app, b"JZGS\x02garbage".to_vec()).await;
    assert_error(s, &v, StatusCode::BAD_REQUEST, "shard");
    let (s, v) = upload(&app, b"\n\n".to_vec()).await;
    assert_error(s, &v, StatusCode::BAD_REQUEST, "no game");
    let (s, v) = upload(&app, b"[Event x]\n".to_vec()).await;
    assert_error(s, &v, StatusCode::BAD_REQUEST, "line 1");
}

#[tokio::test]
async fn self_play_shards_are_read_move_by_move() {
    let mut g = JungleGame::default();
    let mut rec = GameRecord::starting(&g, "gen-0003", 42);
    for t in ["a3a4", "g7g6", "a4a5"] {
        let mv = parse_move(t).unwrap();
        rec.moves.push(MoveRecord { mv, full_search: true, root_value: 0.0, visits: vec![(mv, 5)] });
        g.play(mv).unwrap();
    }
    rec.winner = Some(Seat::First);
    rec.reason = Reason::Resignation;
    let (s, v) = upload(&app(false), encode_shard(&[rec.clone(), rec])).await;
    assert_eq!(s, StatusCode::OK, "{v}");
    let games = v["games"].as_array().unwrap();
    assert_eq!(games.len(), 2);
    assert_eq!(strings(&games[0]["moves"]), ["a3a4", "g7g6", "a4a5"]);
    assert!(games[0]["title"].as_str().unwrap().contains("gen-0003"));
}

#[tokio::test]
async fn the_report_is_served_from_the_run_and_nothing_else() {
    let dir = std::env::temp_dir().join(format!("jz-serve-report-{}", std::process::id()));
    let report = dir.join("report");
    std::fs::create_dir_all(&report).unwrap();
    std::fs::write(report.join("elo.svg"), "<svg xmlns=\"http://www.w3.org/2000/svg\"/>").unwrap();
    std::fs::write(report.join("report.md"), "# report").unwrap();
    std::fs::write(dir.join("secret.toml"), "x = 1").unwrap();
    let app = app_with(false, Some(report.clone()), 1);
    let (s, v) = get(&app, "/api/report").await;
    assert_eq!(s, StatusCode::OK);
    assert_eq!(strings(&v["files"]), ["elo.svg", "report.md"]);
    let (s, b) = send(&app, Request::get("/report/report.md").body(Body::empty()).unwrap()).await;
    assert_eq!((s, b.as_slice()), (StatusCode::OK, &b"# report"[..]));
    for uri in ["/report/../secret.toml", "/report/%2e%2e/secret.toml", "/report/..%2fsecret.toml"] {
        let (s, b) = send(&app, Request::get(uri).body(Body::empty()).unwrap()).await;
        assert!(s.is_client_error(), "{uri}: {s}");
        assert!(!String::from_utf8_lossy(&b).contains("x = 1"), "{uri} served a file outside the report");
    }
    let (s, v) = get(&app_with(false, None, 1), "/api/report").await;
    assert_error(s, &v, StatusCode::NOT_FOUND, "--run");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[tokio::test]
async fn the_page_and_its_files_are_served() {
    let app = app(false);
    for (uri, kind, needle) in [("/", "text/html", "id=\"board\""), ("/app.js", "javascript", "/api/analyse"), ("/style.css", "text/css", "#board")] {
        let resp = app.clone().oneshot(Request::get(uri).body(Body::empty()).unwrap()).await.unwrap();
        assert_eq!(resp.status(), StatusCode::OK);
        assert!(resp.headers()["content-type"].to_str().unwrap().contains(kind));
        let body = axum::body::to_bytes(resp.into_body(), 1 << 20).await.unwrap();
        assert!(String::from_utf8_lossy(&body).contains(needle), "{uri}");
    }
}

#[tokio::test]
async fn the_flip_game_starts_face_down_and_nature_draws_each_flip() {
    let app = app(false);
    let (s, v) = post(&app, "/api/position", serde_json::json!({ "game": "flip" })).await;
    assert_eq!(s, StatusCode::OK, "{v}");
    assert_eq!(v["game"], "flip");
    assert_eq!(v["flip"]["hidden"].as_array().unwrap().len(), 16);
    assert_eq!(v["flip"]["pool"].as_array().unwrap().len(), 16);
    assert!(v["flip"]["first_colour"].is_null());
    assert!(v["pieces"].as_array().unwrap().is_empty());
    let legal = strings(&v["legal"]);
    assert_eq!(legal.len(), 16);
    assert!(legal.iter().all(|m| m.starts_with("f:")));
    // A bare flip comes back with what it revealed; the piece is on the board, face up.
    let (s, v) = post(&app, "/api/position", serde_json::json!({ "game": "flip", "moves": ["f:b2"] })).await;
    assert_eq!(s, StatusCode::OK, "{v}");
    let mv = strings(&v["moves"])[0].clone();
    assert!(mv.len() == 6 && mv.starts_with("f:b2="), "{mv}");
    let letter = &mv[5..];
    let piece = &v["pieces"][0];
    assert_eq!((piece["square"].as_str(), piece["letter"].as_str()), (Some("b2"), Some(letter)));
    assert_eq!(v["flip"]["hidden"].as_array().unwrap().len(), 15);
    let owner = if letter.chars().all(|c| c.is_ascii_uppercase()) { "red" } else { "blue" };
    assert_eq!(v["flip"]["first_colour"], owner);
    assert_eq!(v["side_to_move"], "blue", "the second player moves next");
    // A flip with its outcome given is replayed as written.
    let (_, v) = post(&app, "/api/position", serde_json::json!({ "game": "flip", "moves": ["f:b2=L", "f:c3=e"] })).await;
    assert_eq!(strings(&v["moves"]), ["f:b2=L", "f:c3=e"]);
    assert_eq!(v["flip"]["first_colour"], "red");
    let (s, v) = post(&app, "/api/position", serde_json::json!({ "game": "flip", "moves": ["f:b2=L", "b2b3"] })).await;
    assert_error(s, &v, StatusCode::BAD_REQUEST, "move 2 ('b2b3')");
    let (s, v) = post(&app, "/api/position", serde_json::json!({ "game": "flip", "fen": "garbage" })).await;
    assert_error(s, &v, StatusCode::BAD_REQUEST, "garbage");
}

#[tokio::test]
async fn the_flip_game_has_an_engine_and_an_analysis() {
    let app = app(true);
    let (s, v) = post(
        &app,
        "/api/engine",
        serde_json::json!({ "position": { "game": "flip", "moves": ["f:a1=R"] }, "engine": "alphabeta", "depth": 2, "session": "f" }),
    )
    .await;
    assert_eq!(s, StatusCode::OK, "{v}");
    let mv = v["move"].as_str().unwrap();
    assert_eq!(strings(&v["position"]["moves"]).last().map(String::as_str), Some(mv));
    assert_eq!(v["position"]["moves"].as_array().unwrap().len(), 2);
    // The loaded network plays the big game: asking it about the flip game is refused.
    let (s, v) = post(&app, "/api/engine", serde_json::json!({ "position": { "game": "flip" }, "engine": "network", "session": "f" })).await;
    assert_error(s, &v, StatusCode::CONFLICT, "jungle game");
    let (s, v) = get(&app, "/api/analyse?session=f&game=flip&engines=mcts").await;
    assert_error(s, &v, StatusCode::CONFLICT, "jungle game");
    let (s, body) = send(&app, Request::get("/api/analyse?session=f&game=flip&moves=f:a1%3DR&depth=2").body(Body::empty()).unwrap()).await;
    assert_eq!(s, StatusCode::OK);
    let ev = events(&body);
    let names: Vec<&str> = ev.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(names.first(), Some(&"position"));
    assert!(!names.contains(&"mcts") && !names.contains(&"network"), "{names:?}");
    let ab = &ev.iter().rev().find(|(n, _)| n == "alphabeta").expect("an alphabeta event").1;
    assert_eq!(ab["depth"], 2);
    let best = ab["best"].as_str().unwrap();
    assert!(strings(&ev[0].1["legal"]).iter().any(|m| m == best), "{best}");
    assert_eq!(names.last(), Some(&"done"));
}

/// Sessions are optional (a request without one is a session of its own), and `/api/stop`
/// takes `session` as the other endpoints write it, or a list.
#[tokio::test]
async fn sessions_are_optional_and_named_alike_everywhere() {
    let app = app(false);
    let (s, v) = post(&app, "/api/engine", serde_json::json!({ "position": { "fen": DEN_WIN_FEN }, "engine": "alphabeta", "depth": 3 })).await;
    assert_eq!(s, StatusCode::OK, "{v}");
    assert_eq!(v["move"], "d8d9");
    let (s, v) = post(&app, "/api/stop", serde_json::json!({ "session": "nobody" })).await;
    assert_eq!(s, StatusCode::OK, "{v}");
    let (s, v) = post(&app, "/api/stop", serde_json::json!({ "sessions": ["a", "b"], "session": "c" })).await;
    assert_eq!(s, StatusCode::OK, "{v}");
    let (s, _) = post(&app, "/api/stop", serde_json::json!({ "sessions": vec!["x"; 17] })).await;
    assert_eq!(s, StatusCode::BAD_REQUEST);
}

#[tokio::test]
async fn alpha_beta_plays_at_a_level_where_the_game_has_levels() {
    let app = app(false);
    let (s, info) = get(&app, "/api/info").await;
    assert_eq!(s, StatusCode::OK);
    let levels = info["levels"].as_array().expect("levels are listed");
    assert_eq!(levels.len(), 1, "only Jungle's engine has levels: {info}");
    assert_eq!(levels[0]["game"], "jungle");
    let (lo, hi) = (levels[0]["min"].as_i64().unwrap(), levels[0]["max"].as_i64().unwrap());
    assert!(lo < 0 && hi > 0, "{info}");
    let start = serde_json::json!({ "moves": [] });
    for elo in [lo, 0, hi] {
        let (s, v) = post(&app, "/api/engine", serde_json::json!({ "position": start, "engine": "alphabeta", "elo": elo, "session": "l" })).await;
        assert_eq!(s, StatusCode::OK, "{elo}: {v}");
        let mv = v["move"].as_str().unwrap();
        assert!(JungleGame::default().is_legal(parse_move(mv).unwrap()), "{elo}: {mv}");
    }
    let (s, v) = post(&app, "/api/engine", serde_json::json!({ "position": start, "engine": "alphabeta", "elo": hi + 1, "session": "l" })).await;
    assert_error(s, &v, StatusCode::BAD_REQUEST, "elo must be");
    let (s, v) = post(&app, "/api/engine", serde_json::json!({ "position": start, "engine": "network", "elo": 0, "session": "l" })).await;
    assert_error(s, &v, StatusCode::BAD_REQUEST, "only the alpha-beta engine");
    let (s, v) = post(&app, "/api/engine", serde_json::json!({ "position": { "game": "flip" }, "engine": "alphabeta", "elo": 0, "session": "l" })).await;
    assert_error(s, &v, StatusCode::BAD_REQUEST, "no strength levels");
}
