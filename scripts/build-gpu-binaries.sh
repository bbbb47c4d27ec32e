#!/usr/bin/env bash
# Builds the binary scripts/gpu-check.sh runs on a GPU machine, on an ordinary machine (no GPU and
# no CUDA needed): the wgpu and cudnn features together (cuDNN and cuBLASLt inference, loaded when
# the device is opened; wgpu training) in the `dist` profile for shipped binaries, stripped and
# xz-compressed as target/gpu/junglezero-gpu.xz, with Debian's Vulkan loader package (libvulkan1,
# for wgpu) beside it when apt-get can download it: scripts/gpu-check.sh unpacks it on a GPU
# machine that lacks the loader.
# With --cuda it also tries burn's cuda backend (scripts/build-cuda.sh) as junglezero-cuda.xz.
# Everything under target/gpu/ must stay under 60 MiB so it can travel with the repository.
#
#   scripts/build-gpu-binaries.sh          # the GPU binary
#   scripts/build-gpu-binaries.sh --cuda   # and the cuda build, if it builds
set -euo pipefail
cd "$(dirname "$0")/.."
out=target/gpu
mkdir -p "$out"
limit=$((60 * 1024 * 1024))

pack() { strip -o "$out/junglezero-$1" "target/$2/junglezero" && xz -6 -T0 -f "$out/junglezero-$1"; }

echo "== wgpu + cudnn build"
cargo build --locked --profile dist --features wgpu,cudnn
pack gpu dist

rm -f "$out"/libvulkan1_*.deb
if command -v apt-get >/dev/null && (cd "$out" && apt-get download libvulkan1 >/dev/null 2>&1); then
    echo "== the Vulkan loader package: $(cd "$out" && ls libvulkan1_*.deb)"
else
    echo "== no libvulkan1 package (apt-get download failed): the GPU machine must have the Vulkan loader for wgpu"
fi

rm -f "$out/junglezero-cuda.xz"
if [ "${1:-}" = "--cuda" ]; then
    echo "== cuda build (scripts/build-cuda.sh)"
    if scripts/build-cuda.sh --locked --release; then
        pack cuda release
    else
        echo "the cuda build failed; target/gpu holds the GPU binary only"
    fi
fi

total=$(cat "$out"/junglezero-*.xz | wc -c)
ls -l "$out"
echo "total $((total / 1024 / 1024)) MiB (limit 60 MiB)"
if [ "$total" -gt "$limit" ]; then
    echo "the GPU binaries exceed 60 MiB" >&2
    exit 1
fi
