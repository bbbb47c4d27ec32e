#!/usr/bin/env bash
# The first check on an NVIDIA GPU machine: every figure in one call of at most 5 minutes, without
# compiling and without network access, from the binary scripts/build-gpu-binaries.sh put under
# target/gpu/ (cuDNN inference, wgpu training). In this order, each step with its own limit:
#   device        open the GPU through cuDNN and run one batch (bench nn at batch 1); the check
#                 stops here if this fails
#   agree-512     the cuDNN path against burn on the CPU, batches of 512 (bench agree: largest
#                 differences, top-move agreement; it fails beyond half precision's tolerance)
#   agree-ragged  the same with batches of 300, 300 and 100 (sizes between the tuned buckets)
#   nn            bench nn through cuDNN, batch sizes 1 to 4 096, and how many tunings ran
#   selfplay      bench selfplay for 30 s with the inference server
#   train-bench   bench train on the training backend
#   train         a 2-minute train, only if that much time is left
# then one summary table. A step that fails (other than by reaching its limit) runs once more
# with cuDNN's and cuBLASLt's logs on (CUDNN_LOGLEVEL_DBG=2, CUBLASLT_LOG_LEVEL=2), kept beside
# its output. The output folder gets a whole log (gpu-check.log), one file per step and the
# summary; nothing large (the unpacked binary and the training run live in a temporary folder).
# Commit it as checkpoints/gpu-<machine>-<date>/.
#
#   OUT=folder scripts/gpu-check.sh        # or: scripts/gpu-check.sh [folder]
#                                          # (default target/gpu-check)
#   GPU_CHECK_SECONDS=290                  # the overall limit in seconds (default 290)
#   JZ_GPU_BIN=path/to/junglezero          # a binary to use instead of target/gpu/'s
set -uo pipefail
self="$(cd "$(dirname "$0")" && pwd)/$(basename "$0")"
out="${OUT:-${1:-}}"
case "$out" in
    "") out="$(dirname "$self")/../target/gpu-check" ;;
    /*) ;;
    *) out="$PWD/$out" ;;
esac
cd "$(dirname "$self")/.." || exit 1
total="${GPU_CHECK_SECONDS:-290}"
mkdir -p "$out" || exit 1

# One overall limit: the script runs itself again under `timeout`, which ends every step it
# started when the limit passes.
if [ -z "${GPU_CHECK_INNER:-}" ]; then
    OUT="$out" GPU_CHECK_INNER=1 GPU_CHECK_START=$(date +%s) timeout --kill-after=10 "$total" "$self"
    rc=$?
    if [ "$rc" -eq 124 ] || [ "$rc" -eq 137 ]; then
        echo "gpu-check: stopped at the overall limit of $total s" | tee -a "$out/gpu-check.log"
    fi
    exit "$rc"
fi

# Everything from here on also goes to the whole log; its tee outlives the limit's signal.
exec > >(trap '' TERM INT; exec tee -a "$out/gpu-check.log") 2>&1
start=${GPU_CHECK_START:-$(date +%s)}
deadline=$((start + total - 5))
log() { echo "[$(($(date +%s) - start)) s] $*"; }
left() { echo $((deadline - $(date +%s))); }
work=$(mktemp -d "${TMPDIR:-/tmp}/junglezero-gpu-check.XXXXXX") || exit 1
trap 'rm -rf "$work"' EXIT
log "gpu-check into $out, at most $total s; $(uname -srm)"

bin="${JZ_GPU_BIN:-}"
if [ -z "$bin" ]; then
    if [ ! -f target/gpu/junglezero-gpu.xz ]; then
        log "FAILED: no target/gpu/junglezero-gpu.xz: run scripts/build-gpu-binaries.sh on a build machine and carry target/gpu with the repository"
        exit 1
    fi
    bin="$work/junglezero-gpu"
    if ! xz -dc target/gpu/junglezero-gpu.xz > "$bin" || ! chmod +x "$bin"; then
        log "FAILED: could not unpack target/gpu/junglezero-gpu.xz"
        exit 1
    fi
fi

# cuDNN and cuBLASLt: PyTorch's pip packages (nvidia/*/lib in a Python's site-packages: cuDNN,
# cuBLAS with cuBLASLt, NVRTC), then the usual CUDA folders; a short bounded search of /usr,
# /opt and the home folders only if those lack either library.
shopt -s nullglob
candidates=()
for py in python3 python; do
    command -v "$py" >/dev/null || continue
    while IFS= read -r d; do
        candidates+=("$d"/*/lib)
    done < <(timeout 20 "$py" -c 'import nvidia; print(*nvidia.__path__, sep="\n")' 2>/dev/null)
done
[ -n "${VIRTUAL_ENV:-}" ] && candidates+=("$VIRTUAL_ENV"/lib/python3*/site-packages/nvidia/*/lib)
candidates+=(
    /usr/local/lib/python3*/dist-packages/nvidia/*/lib /usr/lib/python3*/dist-packages/nvidia/*/lib
    /opt/*/lib/python3*/site-packages/nvidia/*/lib /opt/*/*/lib/python3*/site-packages/nvidia/*/lib
    "$HOME"/.local/lib/python3*/site-packages/nvidia/*/lib /root/*/lib/python3*/site-packages/nvidia/*/lib
    /usr/local/cuda/lib64 /usr/local/cuda-*/lib64 /usr/local/cuda/targets/*/lib /usr/lib/x86_64-linux-gnu
)
libdirs=()
# Whether a library folder holds a file matching the pattern $1 (nullglob is on).
# shellcheck disable=SC2086
has() {
    local d f
    for d in "${libdirs[@]}"; do for f in "$d"/$1; do [ -e "$f" ] && return 0; done; done
    return 1
}
for d in "${candidates[@]}"; do
    [ -d "$d" ] || continue
    case " ${libdirs[*]} " in *" $d "*) continue ;; esac
    libdirs+=("$d")
done
if ! has 'libcudnn.so.9*' || ! has 'libcublasLt.so.1[23]*'; then
    log "cuDNN or cuBLASLt not in the usual folders: searching /usr, /opt and the home folders (at most 15 s)"
    while IFS= read -r d; do
        libdirs+=("$d")
    done < <(timeout 15 find /usr /opt /home /root -xdev -maxdepth 9 \( -name 'libcudnn.so.9*' -o -name 'libcublasLt.so.1[23]*' \) -printf '%h\n' 2>/dev/null | sort -u)
fi
has 'libcudnn.so.9*' || log "cuDNN 9 (libcudnn.so.9) not found"
has 'libcublasLt.so.1[23]*' || log "cuBLASLt (libcublasLt.so.12 or .13) not found"
LD_LIBRARY_PATH="$(IFS=:; echo "${libdirs[*]}")${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export LD_LIBRARY_PATH
log "library folders: ${libdirs[*]:-none}"
for lib in 'libcudnn.so.9*' 'libcublasLt.so.1[23]*' 'libnvrtc.so*'; do
    # shellcheck disable=SC2086
    for d in "${libdirs[@]}"; do for f in "$d"/$lib; do echo "  $f"; done; done
done
# wgpu (the training backend of this binary) needs the Vulkan loader; a libvulkan1 package put
# beside the binary by scripts/build-gpu-binaries.sh is unpacked when the machine lacks it.
if ! ldconfig -p 2>/dev/null | grep -q 'libvulkan.so.1 '; then
    for deb in target/gpu/libvulkan1_*.deb; do
        dpkg-deb -x "$deb" "$work/vulkan" 2>/dev/null || continue
        vulkan=("$work"/vulkan/usr/lib/*-linux-gnu)
        if [ "${#vulkan[@]}" -gt 0 ]; then
            LD_LIBRARY_PATH="$LD_LIBRARY_PATH:${vulkan[0]}"
            log "Vulkan loader unpacked from $deb"
        fi
    done
fi
shopt -u nullglob

log "binary $bin: $("$bin" --version 2>&1 | head -1)"
command -v nvidia-smi >/dev/null && timeout 15 nvidia-smi 2>&1 | tee "$out/nvidia-smi.txt"
cudnn=(--config configs/gpu.toml --set hardware.device=cudnn)

# A step: NAME SECONDS COMMAND...; its output goes to $out/NAME.txt and the log. Its limit is
# cut to the time left. A failure that is not the limit runs it once more with the libraries'
# logs on ($out/NAME-debug.txt, NAME-cudnn.log, NAME-cublaslt.log).
declare -A status
step() {
    local name=$1 limit=$2 rc
    shift 2
    if [ "$(left)" -lt 10 ]; then
        log "$name: skipped, no time left"
        status[$name]=skipped
        return 1
    fi
    [ "$limit" -gt "$(left)" ] && limit=$(left)
    log "$name (at most $limit s): $*"
    timeout --signal=INT --kill-after=5 "$limit" "$@" 2>&1 | tee "$out/$name.txt"
    rc=${PIPESTATUS[0]}
    status[$name]=$rc
    [ "$rc" -eq 0 ] && return 0
    if [ "$rc" -eq 124 ] || [ "$rc" -eq 137 ]; then
        log "$name stopped at its limit of $limit s"
        return "$rc"
    fi
    log "$name FAILED with status $rc"
    limit=$(($(left) < limit ? $(left) : limit))
    if [ "$limit" -ge 10 ]; then
        log "$name once more (at most $limit s) with CUDNN_LOGLEVEL_DBG=2 and CUBLASLT_LOG_LEVEL=2"
        CUDNN_LOGLEVEL_DBG=2 CUDNN_LOGDEST_DBG="$out/$name-cudnn.log" CUBLASLT_LOG_LEVEL=2 CUBLASLT_LOG_FILE="$out/$name-cublaslt.log" \
            timeout --signal=INT --kill-after=5 "$limit" "$@" 2>&1 | tee "$out/$name-debug.txt"
        log "$name's second run ended with status ${PIPESTATUS[0]}"
        for f in "$out/$name-cudnn.log" "$out/$name-cublaslt.log"; do
            [ -f "$f" ] && truncate -s '<4M' "$f"
        done
    fi
    return "$rc"
}

if ! step device 45 "$bin" bench nn "${cudnn[@]}" --max-batch 1 --seconds 0.2; then
    log "FAILED: the GPU did not open or run a batch through cuDNN (see $out/device.txt); nothing else was run"
    exit 1
fi
step agree-512 50 "$bin" bench agree "${cudnn[@]}" --positions 1024 --batch 512
step agree-ragged 40 "$bin" bench agree "${cudnn[@]}" --positions 700 --batch 300
step nn 60 "$bin" bench nn "${cudnn[@]}" --max-batch 4096 --seconds 0.3
step selfplay 60 "$bin" bench selfplay "${cudnn[@]}" --seconds 30
step train-bench 120 "$bin" bench train "${cudnn[@]}" --steps 10
train_minutes=2
if [ "$(left)" -ge $((train_minutes * 60 + 25)) ]; then
    step train $((train_minutes * 60 + 20)) "$bin" train "${cudnn[@]}" --run "$work/run" --set train.time_limit_minutes=$train_minutes \
        --set ladder.every=0 --set train.games_per_iteration=256
    [ -f "$work/run/metrics.jsonl" ] && cp "$work/run/metrics.jsonl" "$out/train-metrics.jsonl"
else
    log "train: skipped ($(left) s left, it needs $((train_minutes * 60 + 25)))"
    status[train]=skipped
fi

# The summary.
first() { grep -m1 "$@" 2>/dev/null; }
best() { awk '/^batch/ { if ($4 > m) { m = $4; b = $2 } } END { if (m) printf "%d evals/s (batch %d)", m, b }' "$1" 2>/dev/null; }
device=$(first -o 'device cudnn.*threads' "$out/device.txt" | sed 's/ threads$//; s/^device //')
gens=0
[ -f "$out/train-metrics.jsonl" ] && gens=$(grep -c '"kind":"gate"' "$out/train-metrics.jsonl")
echo
echo "| step | status | figures |"
echo "|---|---|---|"
echo "| device | ${status[device]:-} | ${device:-unknown} |"
echo "| agree, batch 512 | ${status[agree-512]:-} | $(first '^agree ' "$out/agree-512.txt") |"
echo "| agree, batches 300/300/100 | ${status[agree-ragged]:-} | $(first '^agree ' "$out/agree-ragged.txt") |"
echo "| bench nn, best | ${status[nn]:-} | $(best "$out/nn.txt"); $(first -o 'tunings: [0-9]*' "$out/nn.txt") |"
echo "| bench selfplay, 30 s | ${status[selfplay]:-} | $(first '^selfplay evals/s' "$out/selfplay.txt"); $(first -o 'mean batch [0-9.]* on the device' "$out/selfplay.txt"); $(first -o 'tunings: [0-9]*' "$out/selfplay.txt") |"
echo "| bench train | ${status[train-bench]:-} | $(first -o '[0-9]* samples/s' "$out/train-bench.txt") |"
echo "| train, $train_minutes minutes | ${status[train]:-} | $gens generations |"
log "done"
