#!/usr/bin/env bash
# The GPU check: runs on a GPU machine without compiling and without network access, from the
# binaries scripts/build-gpu-binaries.sh put under target/gpu/. Prints the adapter, then
# bench nn, bench selfplay and bench train for the configs/gpu.toml network, then a 3-minute
# train --config configs/gpu.toml, and a summary table for BENCHMARKS.md "GPU". Every step has
# its own time limit; the whole script ends within 8 minutes (9 with a CUDA build to probe).
#
#   scripts/gpu-check.sh [OUTPUT_DIR]     # default target/gpu-check
set -uo pipefail
cd "$(dirname "$0")/.."
out="${1:-target/gpu-check}"
mkdir -p "$out"
start=$(date +%s)
log() { echo "[$(( $(date +%s) - start )) s] $*"; }

# Unpack the compressed builds, then pick the binary and device: cuda where that build exists
# and finds a device, else wgpu.
mkdir -p "$out/bin"
for f in target/gpu/junglezero-*.xz; do
    [ -e "$f" ] || continue
    xz -dc "$f" > "$out/bin/$(basename "$f" .xz)" && chmod +x "$out/bin/$(basename "$f" .xz)"
done
bin="" device=""
if [ -x "$out/bin/junglezero-cuda" ] && timeout 60 "$out/bin/junglezero-cuda" bench nn --config configs/gpu.toml --set hardware.device=cuda --max-batch 1 --seconds 0.2 > "$out/probe-cuda.txt" 2>&1; then
    bin="$out/bin/junglezero-cuda" device=cuda
elif [ -x "$out/bin/junglezero-wgpu" ]; then
    bin="$out/bin/junglezero-wgpu" device=wgpu
else
    echo "no GPU binaries under target/gpu/: run scripts/build-gpu-binaries.sh on a build machine first" >&2
    exit 1
fi
set_dev=(--config configs/gpu.toml --set "hardware.device=$device")
log "binary $bin, device $device"
command -v nvidia-smi >/dev/null && nvidia-smi -L | tee "$out/nvidia-smi.txt"

# A step: NAME SECONDS COMMAND...; its output goes to $out/NAME.txt and the terminal.
step() {
    local name=$1 limit=$2
    shift 2
    log "$name (at most $limit s): $*"
    timeout --signal=INT --kill-after=15 "$limit" "$@" 2>&1 | tee "$out/$name.txt"
    local rc=${PIPESTATUS[0]}
    [ "$rc" -eq 0 ] || log "$name ended with status $rc"
}

step adapter 60 "$bin" bench nn "${set_dev[@]}" --max-batch 1 --seconds 0.2
step nn 60 "$bin" bench nn "${set_dev[@]}" --max-batch 4096 --seconds 1
step selfplay 75 "$bin" bench selfplay "${set_dev[@]}" --seconds 30
step train-bench 60 "$bin" bench train "${set_dev[@]}" --steps 10
rm -rf "$out/run"
step train 220 "$bin" train "${set_dev[@]}" --run "$out/run" --set train.time_limit_minutes=3

# The summary.
adapter=$(grep -m1 -o 'device [^ ].*threads' "$out/adapter.txt" | sed 's/ threads$//; s/^device //')
best_nn=$(awk '/^batch/ { if ($4 > m) { m = $4; b = $2 } } END { if (m) printf "%d evals/s (batch %d)", m, b }' "$out/nn.txt")
selfplay=$(grep -m1 '^selfplay evals/s' "$out/selfplay.txt")
device_batch=$(grep -m1 -o 'mean batch [0-9.]* on the device' "$out/selfplay.txt")
train_rate=$(grep -m1 -o '[0-9]* samples/s' "$out/train-bench.txt")
metrics="$out/run/metrics.jsonl"
gens=0 games=0 elo="none"
if [ -f "$metrics" ]; then
    gens=$(grep -c '"kind":"gate"' "$metrics")
    games=$(grep '"kind":"selfplay"' "$metrics" | grep -o '"games":[0-9]*' | cut -d: -f2 | paste -sd+ | bc 2>/dev/null || echo 0)
    elo=$(grep '"kind":"match"' "$metrics" | grep '"source":"ladder"' | tail -1 | cut -c1-160)
fi
secs=180
echo
echo "| | |"
echo "|---|---|"
echo "| adapter | ${adapter:-unknown} |"
echo "| bench nn (configs/gpu.toml net), best | ${best_nn:-none} |"
echo "| bench selfplay | ${selfplay:-none}; ${device_batch:-no server figure} |"
echo "| bench train | ${train_rate:-none} |"
echo "| train, 3 minutes | $gens generations gated, ${games:-0} self-play games ($(awk -v g="${games:-0}" -v s="$secs" 'BEGIN { printf "%.2f", g / s }') games/s) |"
echo "| last ladder match | ${elo:-none} |"
log "done"
