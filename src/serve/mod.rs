//! `junglezero serve`: a local web page to play and analyse with the alpha-beta engine and a
//! trained network. JSON endpoints under `/api/`, one server-sent event stream for live
//! analysis, the page's files embedded in the binary, and a run's `report/` when asked.
//!
//! Every search runs on its own thread, holds one of a few search slots (a request that finds
//! none free gets 429), and is capped in simulations, depth and time; a client that goes away
//! stops its search. A page names its session; a session's new search stops its previous one.
//! No request names a file the server opens outside the report folder, and none there that is
//! not a plain file (a symbolic link is refused).
//!
//! Connections are limited ([`MAX_CONNECTIONS`] at once; more are closed at once), a client
//! must send a request's headers within [`HEADER_TIMEOUT`] (an idle kept-alive connection is
//! closed after as long) and its whole body within [`BODY_TIMEOUT`] of them, however it trickles
//! in (408, and the connection is closed).

pub mod analysis;
pub mod assets;
pub mod board;
pub mod error;
pub mod handlers;
pub mod position;
pub mod records;

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::Router;
use axum::routing::{get, post};

pub use error::ApiError;

use crate::config::Config;
use crate::nn::NetEvaluator;

/// The largest upload (`/api/records`) accepted.
pub const MAX_UPLOAD: usize = 64 << 20;
/// How long a search request waits for a free slot before it is refused.
const SLOT_WAIT: Duration = Duration::from_secs(3);
/// Connections served at once; further ones are closed as soon as they are accepted.
pub const MAX_CONNECTIONS: usize = 256;
/// How long a client has to send a request's headers (and how long a kept-alive connection
/// may sit idle).
pub const HEADER_TIMEOUT: Duration = Duration::from_secs(10);
/// How long a client has to send a request's whole body, counted from its headers (an upload
/// of [`MAX_UPLOAD`] included): a total, not a wait between bytes, so a body sent a byte at a
/// time is cut off as surely as one that stops.
pub const BODY_TIMEOUT: Duration = Duration::from_secs(60);

/// What the server serves.
pub struct ServeState {
    pub config: Config,
    pub network: Option<Arc<NetEvaluator>>,
    /// The game the network plays.
    pub network_game: Option<crate::registry::GameName>,
    /// The model file's name as given on the command line (shown on the page).
    pub model_name: Option<String>,
    /// The run's report directory, when serving one.
    pub report_dir: Option<PathBuf>,
    sessions: Mutex<HashMap<String, Arc<AtomicBool>>>,
    slots: Arc<tokio::sync::Semaphore>,
    searches: usize,
}

impl ServeState {
    /// `searches`: how many searches may run at once (each uses one core).
    pub fn new(config: Config, network: Option<Arc<NetEvaluator>>, model_name: Option<String>, report_dir: Option<PathBuf>, searches: usize) -> ServeState {
        let network_game = network.as_ref().and_then(|n| crate::registry::GameName::named(n.shape().game));
        ServeState {
            config,
            network,
            network_game,
            model_name,
            report_dir,
            sessions: Mutex::new(HashMap::new()),
            slots: Arc::new(tokio::sync::Semaphore::new(searches.max(1))),
            searches: searches.max(1),
        }
    }

    /// Starts a search for `session`: stops the session's running search, then takes a slot.
    pub async fn start_search(self: &Arc<Self>, session: &str) -> Result<SearchGuard, ApiError> {
        check_session(session)?;
        let flag = Arc::new(AtomicBool::new(false));
        {
            let mut sessions = self.sessions.lock().unwrap_or_else(|e| e.into_inner());
            if let Some(old) = sessions.insert(session.to_string(), flag.clone()) {
                old.store(true, Ordering::Relaxed);
            }
        }
        let permit = match tokio::time::timeout(SLOT_WAIT, self.slots.clone().acquire_owned()).await {
            Ok(Ok(p)) => p,
            _ => {
                self.forget(session, &flag);
                return Err(ApiError::busy(format!("all {} search slots are busy; try again shortly", self.searches)));
            }
        };
        Ok(SearchGuard { state: self.clone(), session: session.to_string(), stop: flag, _permit: permit })
    }

    /// Stops `session`'s running search, if any; says whether there was one.
    pub fn stop(&self, session: &str) -> Result<bool, ApiError> {
        check_session(session)?;
        let sessions = self.sessions.lock().unwrap_or_else(|e| e.into_inner());
        Ok(sessions.get(session).map(|f| f.store(true, Ordering::Relaxed)).is_some())
    }

    fn forget(&self, session: &str, flag: &Arc<AtomicBool>) {
        let mut sessions = self.sessions.lock().unwrap_or_else(|e| e.into_inner());
        if sessions.get(session).is_some_and(|f| Arc::ptr_eq(f, flag)) {
            sessions.remove(session);
        }
    }
}

/// Raises a search's stop flag when dropped: held by a request's handler, so that a client
/// that goes away (its request dropped mid-search) stops the search and frees its slot.
pub struct StopOnDrop(pub Arc<AtomicBool>);

impl Drop for StopOnDrop {
    fn drop(&mut self) {
        self.0.store(true, Ordering::Relaxed);
    }
}

/// A running search's slot and stop flag; dropping it frees both.
pub struct SearchGuard {
    state: Arc<ServeState>,
    session: String,
    pub stop: Arc<AtomicBool>,
    _permit: tokio::sync::OwnedSemaphorePermit,
}

impl Drop for SearchGuard {
    fn drop(&mut self) {
        self.state.forget(&self.session, &self.stop);
    }
}

/// A session name: 1 to 64 letters, digits, `-` or `_`.
fn check_session(s: &str) -> Result<(), ApiError> {
    if s.is_empty() || s.len() > 64 || !s.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_') {
        return Err(ApiError::bad("session must be 1 to 64 letters, digits, '-' or '_'"));
    }
    Ok(())
}

/// The whole application: page, API and (when a run was given) its report.
pub fn router(state: Arc<ServeState>) -> Router {
    let app = Router::new()
        .route("/", get(assets::index))
        .route("/app.js", get(assets::script))
        .route("/style.css", get(assets::style))
        .route("/api/info", get(handlers::info))
        .route("/api/position", post(handlers::position))
        .route("/api/engine", post(handlers::engine_move))
        .route("/api/analyse", get(handlers::analyse))
        .route("/api/stop", post(handlers::stop))
        .route("/api/records", post(handlers::records))
        .route("/api/report", get(handlers::report_files))
        .route("/report/{name}", get(handlers::report_file));
    app.fallback(handlers::not_found).method_not_allowed_fallback(handlers::method_not_allowed).with_state(state)
}

/// Serves `router(state)` on `listener` until Ctrl-C.
pub async fn serve(listener: tokio::net::TcpListener, state: Arc<ServeState>) -> std::io::Result<()> {
    let ctrl_c = async {
        let _ = tokio::signal::ctrl_c().await;
    };
    serve_until(listener, router(state), ConnectionLimits::default(), ctrl_c).await
}

/// What a connection may take: how many are served at once, how long a client has for a
/// request's headers (or may sit idle between requests), and for its whole body after them.
#[derive(Clone, Copy, Debug)]
pub struct ConnectionLimits {
    pub connections: usize,
    pub header_timeout: Duration,
    pub body_timeout: Duration,
}

impl Default for ConnectionLimits {
    fn default() -> Self {
        ConnectionLimits { connections: MAX_CONNECTIONS, header_timeout: HEADER_TIMEOUT, body_timeout: BODY_TIMEOUT }
    }
}

/// `req` with a body that ends in [`error::BodyTooSlow`] once `limit` has passed since now,
/// however much of it has come: the handler reading it answers 408, and the connection, its
/// body unread, is closed.
async fn body_deadline(req: axum::extract::Request, next: axum::middleware::Next, limit: Duration) -> axum::response::Response {
    use futures_util::StreamExt;
    let deadline = tokio::time::Instant::now() + limit;
    let req = req.map(|body| {
        let data = body.into_data_stream();
        let bounded = futures_util::stream::unfold(Some(data), move |data| async move {
            let mut data = data?;
            match tokio::time::timeout_at(deadline, data.next()).await {
                Ok(Some(chunk)) => Some((chunk, Some(data))),
                Ok(None) => None,
                Err(_) => Some((Err(axum::Error::new(error::BodyTooSlow(limit.as_secs_f64()))), None)),
            }
        });
        axum::body::Body::from_stream(bounded)
    });
    next.run(req).await
}

/// Serves `app` on `listener` until `shutdown` completes, under `limits`.
pub async fn serve_until(
    listener: tokio::net::TcpListener,
    app: Router,
    limits: ConnectionLimits,
    shutdown: impl std::future::Future<Output = ()>,
) -> std::io::Result<()> {
    use hyper_util::rt::{TokioIo, TokioTimer};
    use hyper_util::service::TowerToHyperService;
    let connections = Arc::new(tokio::sync::Semaphore::new(limits.connections.max(1)));
    let body_timeout = limits.body_timeout;
    let app = app.layer(axum::middleware::from_fn(move |req, next| body_deadline(req, next, body_timeout)));
    tokio::pin!(shutdown);
    loop {
        let (stream, _) = tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok(c) => c,
                Err(e) => {
                    // Out of file descriptors and the like: wait for connections to end.
                    tracing::warn!("cannot accept a connection: {e}");
                    tokio::time::sleep(Duration::from_millis(100)).await;
                    continue;
                }
            },
            () = &mut shutdown => return Ok(()),
        };
        let Ok(permit) = connections.clone().try_acquire_owned() else {
            drop(stream);
            continue;
        };
        let service = TowerToHyperService::new(app.clone());
        tokio::spawn(async move {
            let _permit = permit;
            let mut http = hyper::server::conn::http1::Builder::new();
            http.timer(TokioTimer::new()).header_read_timeout(limits.header_timeout);
            let _ = http.serve_connection(TokioIo::new(stream), service).await;
        });
    }
}
