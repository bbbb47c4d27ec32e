//! The endpoints.

use std::convert::Infallible;
use std::sync::Arc;
use std::sync::atomic::Ordering;

use axum::Json;
use axum::extract::rejection::{JsonRejection, QueryRejection};
use axum::extract::{Query, State};
use axum::response::sse::{Event, KeepAlive, Sse};
use serde::{Deserialize, Serialize};
use tokio_stream::Stream;
use tokio_stream::StreamExt as _;

use super::analysis::{AlphaBetaView, Budget, MAX_DEPTH, MAX_MOVETIME_MS, MAX_SIMS, MctsView};
use super::board::{Board, ServeGame};
use super::position::{PositionRequest, PositionView};
use super::records::{RecordView, parse_records};
use super::{ApiError, ServeState};
use crate::nn::NetEvaluator;
use crate::pipeline::RunGame;
use crate::registry::GameName;
use crate::trainable::Trainable;

type AppState = State<Arc<ServeState>>;

#[derive(Serialize, Deserialize, Debug, PartialEq)]
pub struct InfoView {
    pub version: String,
    /// The loaded network (none: only alpha-beta is offered).
    pub model: Option<String>,
    /// The game the network plays (`jungle` or `flip`).
    pub model_game: Option<GameName>,
    /// The rules and start of the game a request plays when it names none.
    pub rules: String,
    pub start_fen: String,
    /// Whether `/report/` serves a run's report.
    pub report: bool,
    pub max_sims: u32,
    pub max_depth: u32,
    pub max_movetime_ms: u64,
    /// The levels of the Elo scale (alpha-beta depth 1 = 0) each game's alpha-beta plays at
    /// (`elo` of `/api/engine`); a game without levels is not listed.
    #[serde(default)]
    pub levels: Vec<LevelRange>,
}

/// The weakest and strongest level a game's alpha-beta plays at.
#[derive(Serialize, Deserialize, Debug, PartialEq)]
pub struct LevelRange {
    pub game: GameName,
    pub min: i32,
    pub max: i32,
}

pub async fn info(State(st): AppState) -> Json<InfoView> {
    let (rules, start_fen) = crate::with_game!(GameName::default(), G => {
        let rules = <G as RunGame>::rules(&st.config);
        (rules.to_string(), <G as Trainable>::root_text(&<G as Trainable>::start_under(&rules)))
    });
    Json(InfoView {
        version: env!("CARGO_PKG_VERSION").to_string(),
        model: st.model_name.clone(),
        model_game: st.network_game,
        rules,
        start_fen,
        report: st.report_dir.is_some(),
        max_sims: MAX_SIMS,
        max_depth: MAX_DEPTH,
        max_movetime_ms: MAX_MOVETIME_MS,
        levels: GameName::ALL.iter().filter_map(|&g| levels_of(g).map(|(min, max)| LevelRange { game: g, min, max })).collect(),
    })
}

/// The position after the request's moves: pieces, legal moves, result.
pub async fn position(State(st): AppState, body: Result<Json<PositionRequest>, JsonRejection>) -> Result<Json<PositionView>, ApiError> {
    let req = body?.0;
    Ok(Json(board_of(&st, &req)?.view()))
}

/// The board of the game a request names.
pub fn board_of(st: &ServeState, req: &PositionRequest) -> Result<Box<dyn Board>, ApiError> {
    crate::with_game!(req.game, G => G::board(st, req))
}

/// Which engine answers `/api/engine`.
#[derive(Clone, Copy, Debug, Deserialize, Serialize, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum EngineName {
    Alphabeta,
    Network,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EngineRequest {
    pub position: PositionRequest,
    pub engine: EngineName,
    #[serde(default)]
    pub sims: Option<u32>,
    #[serde(default)]
    pub depth: Option<u32>,
    #[serde(default)]
    pub movetime: Option<u64>,
    /// Alpha-beta plays at this level of the Elo scale (alpha-beta depth 1 = 0) instead of its
    /// full strength.
    #[serde(default)]
    pub elo: Option<i32>,
    /// The page's session: a new search of a session stops its previous one (none: the
    /// request is a session of its own).
    #[serde(default)]
    pub session: Option<String>,
}

/// The session a search runs under: the one named, or a new one of its own.
fn session_of(named: Option<&str>) -> String {
    static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    named.map_or_else(|| format!("request-{}", NEXT.fetch_add(1, Ordering::Relaxed)), str::to_string)
}

#[derive(Debug, Serialize, Deserialize)]
pub struct EngineReply {
    #[serde(rename = "move")]
    pub mv: String,
    /// The position after the move.
    pub position: PositionView,
    pub alphabeta: Option<AlphaBetaView>,
    pub mcts: Option<MctsView>,
}

/// The engine's move in the request's position, and the position after it.
pub async fn engine_move(State(st): AppState, body: Result<Json<EngineRequest>, JsonRejection>) -> Result<Json<EngineReply>, ApiError> {
    let req = body?.0;
    let budget = Budget { sims: req.sims, depth: req.depth, movetime: req.movetime, elo: req.elo };
    budget.check()?;
    let board = board_of(&st, &req.position)?;
    if let Some(elo) = req.elo {
        let levels = levels_of(board.name());
        match levels {
            _ if req.engine != EngineName::Alphabeta => return Err(ApiError::bad("elo: only the alpha-beta engine plays at a level")),
            None => return Err(ApiError::bad(format!("elo: the {} game's engine has no strength levels", board.name().name()))),
            Some((lo, hi)) if !(lo..=hi).contains(&elo) => return Err(ApiError::bad(format!("elo must be {lo}..={hi}, not {elo}"))),
            Some(_) => {}
        }
    }
    if let Some(r) = board.is_over().then(|| board.view().result).flatten() {
        return Err(ApiError::conflict(format!("the game is over: {}", r.text)));
    }
    let net = match req.engine {
        EngineName::Network => {
            let net = network(&st, board.name())?;
            board.check_tables(&st)?;
            Some(net)
        }
        EngineName::Alphabeta => None,
    };
    let guard = st.start_search(&session_of(req.session.as_deref())).await?;
    let st2 = st.clone();
    let mut position = req.position;
    let _stop_if_dropped = super::StopOnDrop(guard.stop.clone());
    let reply = tokio::task::spawn_blocking(move || {
        let (mut ab, mut mc) = (None, None);
        let best = match &net {
            Some(net) => mc.insert(board.mcts(&st2, net, budget, &guard.stop, &mut |_| true)).best.clone(),
            None => ab.insert(board.alphabeta(&st2, budget, &guard.stop, &mut |_| true)).best.clone(),
        };
        let mv = best.ok_or_else(|| ApiError::conflict("the search was stopped before it chose a move"))?;
        // The position after the move, by the same path as every request (a flip's outcome
        // is drawn there).
        position.moves.push(mv);
        let after = board_of(&st2, &position)?.view();
        let mv = after.last_move.clone().unwrap_or_default();
        Ok::<_, ApiError>(EngineReply { mv, position: after, alphabeta: ab, mcts: mc })
    })
    .await
    .map_err(|_| ApiError::internal("the search thread failed"))??;
    Ok(Json(reply))
}

/// The levels of the Elo scale `game`'s classical engine plays at, if it has levels.
fn levels_of(game: GameName) -> Option<(i32, i32)> {
    crate::with_game!(game, G => <G as crate::arena::match_game::ArenaGame>::LEVELS)
}

/// The loaded network, if it plays `game`.
fn network(st: &ServeState, game: GameName) -> Result<Arc<NetEvaluator>, ApiError> {
    match (&st.network, st.network_game) {
        (Some(n), Some(g)) if g == game => Ok(n.clone()),
        (Some(_), Some(g)) => Err(ApiError::conflict(format!("the loaded network plays the {} game, not this one", g.name()))),
        _ => Err(ApiError::conflict("no network is loaded (start the server with --model FILE)")),
    }
}

/// `/api/analyse`'s query: the position (moves separated by spaces or commas), the budget,
/// which engines to run (`network`, `mcts`, `alphabeta`, comma-separated; default: all there
/// are) and the session.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AnalyseQuery {
    #[serde(default)]
    pub game: GameName,
    #[serde(default)]
    pub fen: Option<String>,
    #[serde(default)]
    pub moves: Option<String>,
    #[serde(default)]
    pub rules: Option<String>,
    #[serde(default)]
    pub sims: Option<u32>,
    #[serde(default)]
    pub depth: Option<u32>,
    #[serde(default)]
    pub movetime: Option<u64>,
    #[serde(default)]
    pub engines: Option<String>,
    #[serde(default)]
    pub session: Option<String>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Engines {
    network: bool,
    mcts: bool,
    alphabeta: bool,
}

fn engines(spec: Option<&str>, st: &ServeState, game: GameName) -> Result<Engines, ApiError> {
    let have_net = st.network_game == Some(game);
    let Some(spec) = spec.filter(|s| !s.trim().is_empty()) else {
        return Ok(Engines { network: have_net, mcts: have_net, alphabeta: true });
    };
    let mut e = Engines { network: false, mcts: false, alphabeta: false };
    for name in spec.split(',').map(str::trim) {
        match name {
            "network" => e.network = true,
            "mcts" => e.mcts = true,
            "alphabeta" => e.alphabeta = true,
            other => return Err(ApiError::bad(format!("unknown engine '{other}' (network, mcts, alphabeta)"))),
        }
    }
    if e.network || e.mcts {
        network(st, game)?;
    }
    Ok(e)
}

/// Live analysis as server-sent events: `position`, then `network`, `mcts` (repeated as the
/// tree grows) and `alphabeta` (each iteration), then `done`. Closing the stream stops the
/// search.
pub async fn analyse(
    State(st): AppState,
    q: Result<Query<AnalyseQuery>, QueryRejection>,
) -> Result<Sse<impl Stream<Item = Result<Event, Infallible>>>, ApiError> {
    let q = q?.0;
    let moves: Vec<String> = q.moves.as_deref().unwrap_or("").split([' ', ',']).filter(|m| !m.is_empty()).map(str::to_string).collect();
    let req = PositionRequest { game: q.game, fen: q.fen.clone(), moves, rules: q.rules.clone() };
    let board = board_of(&st, &req)?;
    let budget = Budget { sims: q.sims, depth: q.depth, movetime: q.movetime, elo: None };
    budget.check()?;
    let which = engines(q.engines.as_deref(), &st, q.game)?;
    if which.mcts {
        board.check_tables(&st)?;
    }
    let guard = st.start_search(&session_of(q.session.as_deref())).await?;
    let (tx, rx) = tokio::sync::mpsc::channel::<Event>(32);
    let st2 = st.clone();
    std::thread::spawn(move || {
        let send = |name: &str, data: &dyn erased::Json| match Event::default().event(name).json_data(data.value()) {
            Ok(e) => tx.blocking_send(e).is_ok(),
            Err(_) => false,
        };
        analyse_thread(&st2, &*board, budget, which, &guard, &send);
    });
    Ok(Sse::new(tokio_stream::wrappers::ReceiverStream::new(rx).map(Ok)).keep_alive(KeepAlive::default()))
}

/// A value the event sender can serialize (keeps the sender one closure for every view type).
mod erased {
    pub trait Json {
        fn value(&self) -> serde_json::Value;
    }

    impl<T: serde::Serialize> Json for T {
        fn value(&self) -> serde_json::Value {
            serde_json::to_value(self).unwrap_or(serde_json::Value::Null)
        }
    }
}

fn analyse_thread(
    st: &ServeState,
    board: &dyn Board,
    budget: Budget,
    which: Engines,
    guard: &super::SearchGuard,
    send: &dyn Fn(&str, &dyn erased::Json) -> bool,
) {
    if !send("position", &board.view()) {
        return;
    }
    let over = board.is_over();
    // Only a network of this game, and only while the game goes on.
    let net = st.network.as_ref().filter(|_| !over && st.network_game == Some(board.name()));
    if let Some(net) = net {
        if which.network && !send("network", &board.network_view(net)) {
            return;
        }
        if which.mcts {
            board.mcts(st, net, budget, &guard.stop, &mut |v| send("mcts", v));
        }
    }
    if which.alphabeta && !over && !guard.stop.load(Ordering::Relaxed) {
        let last = board.alphabeta(st, budget, &guard.stop, &mut |v| send("alphabeta", v));
        if !send("alphabeta", &last) {
            return;
        }
    }
    let stopped = guard.stop.load(Ordering::Relaxed);
    send("done", &serde_json::json!({ "stopped": stopped }));
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct StopRequest {
    #[serde(default)]
    pub sessions: Vec<String>,
    /// One session, as the other endpoints name it.
    #[serde(default)]
    pub session: Option<String>,
}

/// Stops the named sessions' searches (the page's Stop button); answers how many were running.
pub async fn stop(State(st): AppState, body: Result<Json<StopRequest>, JsonRejection>) -> Result<Json<serde_json::Value>, ApiError> {
    let mut req = body?.0;
    req.sessions.extend(req.session.take());
    if req.sessions.len() > 16 {
        return Err(ApiError::bad("at most 16 sessions a request"));
    }
    let mut stopped = 0;
    for s in &req.sessions {
        stopped += usize::from(st.stop(s)?);
    }
    Ok(Json(serde_json::json!({ "stopped": stopped })))
}

#[derive(Serialize, Deserialize, Debug)]
pub struct RecordsReply {
    pub games: Vec<RecordView>,
}

/// The games in the uploaded file (PGN text or a self-play shard), as games of the game a
/// request plays when it names none, under the server's rules. An upload that says it is
/// larger than [`super::MAX_UPLOAD`] is refused before its body is read; one that turns out
/// larger is refused when it passes the limit.
pub async fn records(State(st): AppState, headers: axum::http::HeaderMap, body: axum::body::Body) -> Result<Json<RecordsReply>, ApiError> {
    let too_large =
        || ApiError { status: axum::http::StatusCode::PAYLOAD_TOO_LARGE, message: format!("the upload is larger than {} MiB", super::MAX_UPLOAD >> 20) };
    let declared = headers.get(axum::http::header::CONTENT_LENGTH).and_then(|v| v.to_str().ok()?.parse::<u64>().ok());
    if declared.is_some_and(|n| n > super::MAX_UPLOAD as u64) {
        return Err(too_large());
    }
    let body = axum::body::to_bytes(body, super::MAX_UPLOAD).await.map_err(|e| {
        if let Some(slow) = ApiError::from_slow_body(&e) {
            return slow;
        }
        // axum names the limit's error only in words.
        let over = std::iter::successors(Some(&e as &dyn std::error::Error), |e| e.source()).any(|e| e.to_string().contains("length limit"));
        if over { too_large() } else { ApiError::bad(format!("the upload was not read: {e}")) }
    })?;
    let games = crate::with_game!(GameName::default(), G => {
        let rules = <G as RunGame>::rules(&st.config);
        tokio::task::spawn_blocking(move || parse_records::<G>(&body, rules)).await
    })
    .map_err(|_| ApiError::internal("reading the records failed"))??;
    Ok(Json(RecordsReply { games }))
}

#[derive(Serialize, Deserialize, Debug)]
pub struct ReportFiles {
    /// The report's files (plots and `report.md`), served under `/report/`.
    pub files: Vec<String>,
}

/// The files of the run's report directory.
pub async fn report_files(State(st): AppState) -> Result<Json<ReportFiles>, ApiError> {
    let dir = st.report_dir.as_ref().ok_or_else(|| ApiError::not_found("no run was given (start the server with --run DIR)"))?;
    let entries = std::fs::read_dir(dir).map_err(|e| ApiError::not_found(format!("the run has no report yet ({e}); run `junglezero report`")))?;
    let mut files: Vec<String> = entries
        .filter_map(|e| e.ok())
        .filter(|e| e.file_type().is_ok_and(|t| t.is_file()))
        .filter_map(|e| e.file_name().into_string().ok())
        .filter(|n| n.bytes().all(|b| b.is_ascii_alphanumeric() || b"._-".contains(&b)))
        .collect();
    files.sort();
    Ok(Json(ReportFiles { files }))
}

/// One file of the run's report directory: a plain file named by letters, digits, `.`, `-` and
/// `_` (not starting with `.`); a symbolic link or anything else is not served.
pub async fn report_file(State(st): AppState, axum::extract::Path(name): axum::extract::Path<String>) -> Result<axum::response::Response, ApiError> {
    use axum::response::IntoResponse;
    let dir = st.report_dir.as_ref().ok_or_else(|| ApiError::not_found("no run was given (start the server with --run DIR)"))?;
    let plain_name = !name.is_empty() && !name.starts_with('.') && name.bytes().all(|b| b.is_ascii_alphanumeric() || b"._-".contains(&b));
    let path = dir.join(&name);
    let is_file = plain_name && std::fs::symlink_metadata(&path).is_ok_and(|m| m.file_type().is_file());
    if !is_file {
        return Err(ApiError::not_found(format!("the report has no file '{}'", crate::check::clip(&name))));
    }
    let bytes = tokio::task::spawn_blocking(move || crate::store::read_capped(&path, 256 << 20, "report file"))
        .await
        .map_err(|_| ApiError::internal("reading the file failed"))?
        .map_err(|e| ApiError::not_found(format!("the report file cannot be read: {e}")))?;
    let kind = match name.rsplit('.').next().unwrap_or("") {
        "png" => "image/png",
        "svg" => "image/svg+xml",
        "md" => "text/markdown; charset=utf-8",
        "json" => "application/json",
        "html" => "text/html; charset=utf-8",
        "csv" | "txt" => "text/plain; charset=utf-8",
        _ => "application/octet-stream",
    };
    Ok(([(axum::http::header::CONTENT_TYPE, kind)], bytes).into_response())
}

pub async fn not_found() -> ApiError {
    ApiError::not_found("no such page or endpoint")
}

pub async fn method_not_allowed() -> ApiError {
    ApiError { status: axum::http::StatusCode::METHOD_NOT_ALLOWED, message: "method not allowed for this endpoint".into() }
}
