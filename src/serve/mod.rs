//! `junglezero serve`: a local web page to play and analyse with the alpha-beta engine and a
//! trained network. JSON endpoints under `/api/`, one server-sent event stream for live
//! analysis, the page's files embedded in the binary, and a run's `report/` when asked.
//!
//! Every search runs on its own thread, holds one of a few search slots (a request that finds
//! none free gets 429), and is capped in simulations, depth and time. A page names its session;
//! a session's new search stops its previous one. No request names a file the server opens.

pub mod analysis;
pub mod assets;
pub mod error;
pub mod flip;
pub mod handlers;
pub mod position;
pub mod records;

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::Router;
use axum::extract::DefaultBodyLimit;
use axum::routing::{get, post};

pub use error::ApiError;

use crate::config::Config;
use crate::nn::burn_eval::NetEvaluator;

/// The largest upload (`/api/records`) accepted.
pub const MAX_UPLOAD: usize = 64 << 20;
/// How long a search request waits for a free slot before it is refused.
const SLOT_WAIT: Duration = Duration::from_secs(3);

/// What the server serves.
pub struct ServeState {
    pub config: Config,
    pub network: Option<Arc<NetEvaluator>>,
    /// The game the network plays.
    pub network_game: Option<crate::games::GameName>,
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
        let network_game = network.as_ref().map(|n| if n.shape() == crate::games::GameName::Flip.shape() { crate::games::GameName::Flip } else { crate::games::GameName::Jungle });
        ServeState { config, network, network_game, model_name, report_dir, sessions: Mutex::new(HashMap::new()), slots: Arc::new(tokio::sync::Semaphore::new(searches.max(1))), searches: searches.max(1) }
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
    let mut app = Router::new()
        .route("/", get(assets::index))
        .route("/app.js", get(assets::script))
        .route("/style.css", get(assets::style))
        .route("/api/info", get(handlers::info))
        .route("/api/position", post(handlers::position))
        .route("/api/engine", post(handlers::engine_move))
        .route("/api/analyse", get(handlers::analyse))
        .route("/api/stop", post(handlers::stop))
        .route("/api/records", post(handlers::records).layer(DefaultBodyLimit::max(MAX_UPLOAD)))
        .route("/api/report", get(handlers::report_files));
    if let Some(dir) = &state.report_dir {
        app = app.nest_service("/report", tower_http::services::ServeDir::new(dir));
    }
    app.fallback(handlers::not_found).method_not_allowed_fallback(handlers::method_not_allowed).with_state(state)
}

/// Serves `router(state)` on `listener` until Ctrl-C.
pub async fn serve(listener: tokio::net::TcpListener, state: Arc<ServeState>) -> std::io::Result<()> {
    axum::serve(listener, router(state))
        .with_graceful_shutdown(async {
            let _ = tokio::signal::ctrl_c().await;
        })
        .await
}
