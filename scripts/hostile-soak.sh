#!/usr/bin/env bash
# Hostile soak: a real training run with bad settings and damaged files injected between legs,
# every command under a memory and a time limit; checks that nothing is lost, nothing spins,
# nothing panics and no process is left. Usage: scripts/hostile-soak.sh [--run DIR] [--memory-gib N]
# Needs a release build (cargo build --release). See scripts/hostile_soak.py for the checks.
set -euo pipefail
cd "$(dirname "$0")/.."
exec python3 scripts/hostile_soak.py "$@"
