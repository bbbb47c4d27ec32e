#!/usr/bin/env bash
# Kill soak: a real training run killed with SIGKILL at random moments (at least 20 times, aimed
# at each stage in turn) and restarted, with the run's files checked after every kill.
# Usage: scripts/kill-soak.sh MINUTES [--kills N] [--run DIR] [--set KEY=VALUE ...]
# Needs a release build (cargo build --release). See scripts/kill_soak.py for the checks.
set -euo pipefail
cd "$(dirname "$0")/.."
exec python3 scripts/kill_soak.py "$@"
