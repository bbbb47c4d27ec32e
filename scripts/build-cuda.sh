#!/usr/bin/env bash
# Builds junglezero with burn's CUDA backend without internet access beyond Debian's packages.
#
# burn 0.22's cuda backend depends on cubecl-llvm, whose build script downloads an LLVM bundle
# (tracel-llvm 23) unless a folder marked as installed already exists. This script installs
# Debian's LLVM 22, creates that folder with an llvm-config wrapper pointing at Debian's, and
# builds. The LLVM bindings are generated for LLVM 23; linking against 22 works, but treat the
# resulting binary as experimental until it has passed a run on a GPU. The CUDA toolkit is not
# needed to build (cudarc loads libcuda at run time).
#
#   sudo apt-get install -y llvm-22-dev libpolly-22-dev libzstd-dev   # or let the script do it
#   scripts/build-cuda.sh
set -euo pipefail
cd "$(dirname "$0")/.."

if ! command -v /usr/lib/llvm-22/bin/llvm-config >/dev/null 2>&1; then
    echo "installing Debian's LLVM 22 (llvm-22-dev libpolly-22-dev libzstd-dev)"
    # Debian 12 carries LLVM 22 in its security archive: a stale package list does not know it.
    apt-get update
    apt-get install -y --no-install-recommends llvm-22-dev libpolly-22-dev libzstd-dev
fi

bundle="${XDG_DATA_HOME:-$HOME/.local/share}/tracel/tracel-llvm-23.1.0-4"
mkdir -p "$bundle/bin"
touch "$bundle/.tracel-llvm-installed"
# Debian's llvm-config prints system libraries as full paths (/usr/lib/.../libz3.so); the
# bundler expects -lNAME, so rewrite them.
cat > "$bundle/bin/llvm-config" <<'WRAP'
#!/bin/sh
/usr/lib/llvm-22/bin/llvm-config "$@" | sed -E 's#/[^ ]*/lib([A-Za-z0-9_+-]+)\.so[.0-9]*#-l\1#g'
WRAP
chmod +x "$bundle/bin/llvm-config"

# Extra arguments go to cargo.
args=("$@")
if [ ${#args[@]} -eq 0 ]; then args=(--release); fi
cargo build --features cuda "${args[@]}"
echo "built junglezero with the cuda feature; select it with --set hardware.device=cuda"
