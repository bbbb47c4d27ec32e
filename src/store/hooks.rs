//! Debug hooks for tools that interrupt runs on purpose (scripts/kill_soak.py): the stage that
//! starts now, and after each finished game how many are not in a shard yet (what a kill at
//! that moment would lose). Seen with `RUST_LOG=info,junglezero::phase=debug`.

/// A stage (`teacher`, `selfplay`, `train`, `gate`, `ladder`) starts.
pub fn phase(name: &str) {
    tracing::debug!(target: "junglezero::phase", "phase {name}");
}

/// Finished games not written to a shard yet.
pub fn unwritten(games: usize) {
    tracing::debug!(target: "junglezero::phase", "unwritten games {games}");
}
