#!/usr/bin/env bash
# The GPU check: runs on a GPU machine without compiling and without network access, from the
# binaries scripts/build-gpu-binaries.sh put under target/gpu/. Prints the adapter, then
# bench nn, bench selfplay and bench train for the configs/gpu.toml network, then a 2-minute
# train --config configs/gpu.toml (ladder off), and a summary table for BENCHMARKS.md "GPU".
# Every step has its own time limit; the whole script ends within 8 minutes (9 with a CUDA build
# to probe). A fresh machine tunes the backend's kernels for every new shape (seconds each, on
# the H200 about 60 s for bench nn's first nine batch sizes and over 60 s for bench train's
# backward pass): the limits below leave room for that, and later steps reuse the tuning.
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

step adapter 30 "$bin" bench nn "${set_dev[@]}" --max-batch 1 --seconds 0.2
step nn 100 "$bin" bench nn "${set_dev[@]}" --max-batch 4096 --seconds 0.5
step selfplay 85 "$bin" bench selfplay "${set_dev[@]}" --seconds 45
step train-bench 130 "$bin" bench train "${set_dev[@]}" --steps 10
rm -rf "$out/run"
train_minutes=2
# Without the ladder: its games search one position at a time, which on the H200 took the whole
# 3 minutes for generation 0's first three depths.
step train 125 "$bin" train "${set_dev[@]}" --run "$out/run" --set train.time_limit_minutes=$train_minutes --set ladder.every=0

# The summary.
adapter=$(grep -m1 -o 'device [^ ].*threads' "$out/adapter.txt" | sed 's/ threads$//; s/^device //')
best_nn=$(awk '/^batch/ { if ($4 > m) { m = $4; b = $2 } } END { if (m) printf "%d evals/s (batch %d)", m, b }' "$out/nn.txt")
selfplay=$(grep -m1 '^selfplay evals/s' "$out/selfplay.txt")
device_batch=$(grep -m1 -o 'mean batch [0-9.]* on the device' "$out/selfplay.txt")
train_rate=$(grep -m1 -o '[0-9]* samples/s' "$out/train-bench.txt")
metrics="$out/run/metrics.jsonl"
gens=0 games=0 steps=0 elo="none"
if [ -f "$metrics" ]; then
    gens=$(grep -c '"kind":"gate"' "$metrics")
    games=$(grep '"kind":"selfplay"' "$metrics" | grep -o '"games":[0-9]*' | cut -d: -f2 | paste -sd+ | bc 2>/dev/null || echo 0)
    steps=$(grep '"kind":"train"' "$metrics" | tail -1 | grep -o '"step":[0-9]*' | cut -d: -f2)
    elo=$(grep '"kind":"match"' "$metrics" | grep '"source":"ladder"' | tail -1 | cut -c1-160)
fi
secs=$((train_minutes * 60))
echo
echo "| | |"
echo "|---|---|"
echo "| adapter | ${adapter:-unknown} |"
echo "| bench nn (configs/gpu.toml net), best | ${best_nn:-none} |"
echo "| bench selfplay | ${selfplay:-none}; ${device_batch:-no server figure} |"
echo "| bench train | ${train_rate:-none} |"
echo "| train, $train_minutes minutes | $gens generations gated, ${steps:-0} training steps, ${games:-0} self-play games ($(awk -v g="${games:-0}" -v s="$secs" 'BEGIN { printf "%.2f", g / s }') games/s) |"
echo "| last ladder match | ${elo:-none} |"
log "done"
