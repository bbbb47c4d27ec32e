//! Hooks for what interrupts runs: the stage that starts now, and after each finished game how
//! many are not in a shard yet (what a kill at that moment would lose). Tools that interrupt
//! runs on purpose (scripts/kill_soak.py) see them with
//! `RUST_LOG=info,junglezero::phase=debug`; the command line reads the current stage to say
//! what a Ctrl-C keeps.

use std::sync::Mutex;

/// The stage under way (empty before the first).
static CURRENT: Mutex<String> = Mutex::new(String::new());

/// A stage (`teacher`, `selfplay`, `train`, `gate`, `ladder`) starts.
pub fn phase(name: &str) {
    enter(name);
    tracing::debug!(target: "junglezero::phase", "phase {name}");
}

/// A part of a stage starts (the ladder's `calibration`): recorded, not announced.
pub fn enter(name: &str) {
    if let Ok(mut current) = CURRENT.lock() {
        name.clone_into(&mut current);
    }
}

/// The stage or part of one under way.
pub fn current() -> String {
    CURRENT.lock().map(|c| c.clone()).unwrap_or_default()
}

/// Finished games not written to a shard yet.
pub fn unwritten(games: usize) {
    tracing::debug!(target: "junglezero::phase", "unwritten games {games}");
}
