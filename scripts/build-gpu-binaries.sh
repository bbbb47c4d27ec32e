#!/usr/bin/env bash
# Builds the binaries scripts/gpu-check.sh runs on a GPU machine, on an ordinary machine (no GPU
# needed): a wgpu build and, where scripts/build-cuda.sh succeeds, a cuda build, stripped and
# xz-compressed, under target/gpu/. Together they must stay under 60 MiB so they travel with the
# repository (a stripped wgpu build is about 94 MiB, 19 MiB compressed; a stripped cuda build
# about 160 MiB, 34 MiB compressed).
#
#   scripts/build-gpu-binaries.sh            # wgpu, then cuda if it builds
#   scripts/build-gpu-binaries.sh --no-cuda  # wgpu only
set -euo pipefail
cd "$(dirname "$0")/.."
out=target/gpu
mkdir -p "$out"
limit=$((60 * 1024 * 1024))

# Release builds, stripped of their line tables and symbols on the way out.
echo "== wgpu build"
cargo build --locked --release --features wgpu
pack() { strip -o "$out/junglezero-$1" target/release/junglezero && xz -6 -T0 -f "$out/junglezero-$1"; }
pack wgpu

rm -f "$out/junglezero-cuda.xz"
if [ "${1:-}" != "--no-cuda" ]; then
    echo "== cuda build (scripts/build-cuda.sh)"
    if scripts/build-cuda.sh --locked --release; then
        pack cuda
    else
        echo "the cuda build failed; target/gpu holds the wgpu build only"
    fi
fi

total=$(cat "$out"/junglezero-*.xz | wc -c)
ls -l "$out"
echo "total $((total / 1024 / 1024)) MiB (limit 60 MiB)"
if [ "$total" -gt "$limit" ]; then
    echo "the GPU binaries exceed 60 MiB" >&2
    exit 1
fi
