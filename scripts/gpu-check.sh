#!/usr/bin/env bash
# The GPU check: runs on an NVIDIA GPU machine without compiling and without network access, from
# the binary scripts/build-gpu-binaries.sh put under target/gpu/ (cuDNN inference, wgpu
# training). Prints the GPU, then:
#   agree     the cuDNN path against burn on the CPU for 4 096 positions (largest differences,
#             top-move agreement; it fails beyond half precision's tolerance)
#   nn        bench nn through cuDNN over batch sizes 1 to 4 096 (and through wgpu, for the ratio)
#   selfplay  bench selfplay: 16 workers, the inference server, the mean batch on the device and
#             the share of the workers' time spent in the network (the rest is the search)
#   train     bench train on the training device, and a short train run that completes and
#             rates at least one generation
# and one summary table. Every step has its own time limit; the whole script ends within
# 9 minutes whatever happens. Raw output goes to the output folder (commit it as
# checkpoints/gpu-<machine>-<date>/).
#
#   scripts/gpu-check.sh [OUTPUT_DIR]     # default target/gpu-check
set -uo pipefail
cd "$(dirname "$0")/.."
out="${1:-target/gpu-check}"
mkdir -p "$out"
start=$(date +%s)
log() { echo "[$(( $(date +%s) - start )) s] $*"; }

# cuDNN and cuBLAS from wherever the machine has them (the pip packages of PyTorch's venv, or a
# system CUDA), put on the loader's path.
libdirs=$(find / -xdev \( -name 'libcudnn.so.9*' -o -name 'libcublasLt.so.1[23]*' \) -printf '%h\n' 2>/dev/null | sort -u | paste -sd:)
export LD_LIBRARY_PATH="${libdirs}${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
log "library folders: ${libdirs:-none found}"

mkdir -p "$out/bin"
for f in target/gpu/junglezero-*.xz; do
    [ -e "$f" ] || continue
    xz -dc "$f" > "$out/bin/$(basename "$f" .xz)" && chmod +x "$out/bin/$(basename "$f" .xz)"
done
bin="$out/bin/junglezero-gpu"
if [ ! -x "$bin" ]; then
    echo "no GPU binary under target/gpu/: run scripts/build-gpu-binaries.sh on a build machine first" >&2
    exit 1
fi
command -v nvidia-smi >/dev/null && nvidia-smi -L | tee "$out/nvidia-smi.txt"
cudnn=(--config configs/gpu.toml --set hardware.device=cudnn)
wgpu=(--config configs/gpu.toml --set hardware.device=wgpu)

# A step: NAME SECONDS COMMAND...; its output goes to $out/NAME.txt and the terminal.
step() {
    local name=$1 limit=$2
    shift 2
    log "$name (at most $limit s): $*"
    timeout --signal=INT --kill-after=10 "$limit" "$@" 2>&1 | tee "$out/$name.txt"
    local rc=${PIPESTATUS[0]}
    [ "$rc" -eq 0 ] || log "$name ended with status $rc"
}

step device 30 "$bin" bench nn "${cudnn[@]}" --max-batch 1 --seconds 0.2
step agree 60 "$bin" bench agree "${cudnn[@]}" --positions 4096 --batch 512
step nn 90 "$bin" bench nn "${cudnn[@]}" --max-batch 4096 --seconds 0.5
step nn-wgpu 60 "$bin" bench nn "${wgpu[@]}" --max-batch 4096 --seconds 0.3
step selfplay 75 "$bin" bench selfplay "${cudnn[@]}" --seconds 40 --set selfplay.workers=16
step train-bench 80 "$bin" bench train "${cudnn[@]}" --steps 10
rm -rf "$out/run"
train_minutes=2
step train 130 "$bin" train "${cudnn[@]}" --run "$out/run" --set train.time_limit_minutes=$train_minutes --set ladder.every=1 \
    --set ladder.depths=[1,2] --set ladder.games=2 --set ladder.calibration_games=2 --set train.games_per_iteration=256

# The summary.
device=$(grep -m1 -o 'device [^ ].*threads' "$out/device.txt" | sed 's/ threads$//; s/^device //')
agree=$(grep -m1 '^agree ' "$out/agree.txt")
best_nn=$(awk '/^batch/ { if ($4 > m) { m = $4; b = $2 } } END { if (m) printf "%d evals/s (batch %d)", m, b }' "$out/nn.txt")
best_wgpu=$(awk '/^batch/ { if ($4 > m) { m = $4; b = $2 } } END { if (m) printf "%d evals/s (batch %d)", m, b }' "$out/nn-wgpu.txt")
selfplay=$(grep -m1 '^selfplay evals/s' "$out/selfplay.txt")
device_batch=$(grep -m1 -o 'mean batch [0-9.]* on the device' "$out/selfplay.txt")
network_share=$(grep -m1 -o '[0-9]*% of worker time in the network' "$out/selfplay.txt")
train_rate=$(grep -m1 -o '[0-9]* samples/s' "$out/train-bench.txt")
metrics="$out/run/metrics.jsonl"
gens=0 games=0 rated="none"
if [ -f "$metrics" ]; then
    gens=$(grep -c '"kind":"gate"' "$metrics")
    games=$(grep '"kind":"selfplay"' "$metrics" | grep -o '"games":[0-9]*' | cut -d: -f2 | paste -sd+ | bc 2>/dev/null || echo 0)
    rated=$(grep '"kind":"ratings"' "$metrics" | tail -1 | cut -c1-160)
fi
echo
echo "| | |"
echo "|---|---|"
echo "| device | ${device:-unknown} |"
echo "| cuDNN against burn on the CPU | ${agree:-failed (see agree.txt)} |"
echo "| bench nn, cuDNN, best | ${best_nn:-none} |"
echo "| bench nn, wgpu, best | ${best_wgpu:-none} |"
echo "| bench selfplay (16 workers, inference server) | ${selfplay:-none}; ${device_batch:-no server figure}; ${network_share:-?} |"
echo "| bench train | ${train_rate:-none} |"
echo "| train, $train_minutes minutes | $gens generations, ${games:-0} self-play games |"
echo "| last ratings | ${rated:-none} |"
log "done"
