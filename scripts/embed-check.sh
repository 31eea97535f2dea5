#!/usr/bin/env bash
# Installs attnc into BUILD_DIR/install (cmake --install), builds
# examples/embed against that prefix as an out-of-tree project
# (find_package(attnc CONFIG): attnc::Compiler, attnc::Runtime, attnc::CAPI)
# and runs it.
# Ends with "N passed, M failed". The run needs the CUDA toolkit (ptxas and
# libdevice); without it the build is checked and the run skipped, saying so.
# Usage: scripts/embed-check.sh BUILD_DIR
set -uo pipefail
cd "$(dirname "$0")/.."
BUILD_DIR=${1:-build}
PREFIX="$PWD/$BUILD_DIR/install"
OUT="$BUILD_DIR/embed"
rm -rf "$PREFIX" "$OUT"
if ! cmake --install "$BUILD_DIR" --prefix "$PREFIX" > "$BUILD_DIR/install.log" 2>&1; then
  echo "FAIL: cmake --install"; tail -20 "$BUILD_DIR/install.log"
  echo "0 passed, 1 failed"; exit 1
fi
if ! { cmake -S examples/embed -B "$OUT" -G Ninja -Dattnc_DIR="$PREFIX/lib/cmake/attnc" \
         -DMLIR_DIR=/usr/lib/llvm-22/lib/cmake/mlir && ninja -C "$OUT"; } \
       > "$BUILD_DIR/embed.log" 2>&1; then
  echo "FAIL: examples/embed did not build against the installed attnc:"
  tail -20 "$BUILD_DIR/embed.log"
  echo "0 passed, 1 failed"; exit 1
fi
if ! "$OUT/attnc-embed-capi" | grep -q "C API mask: #attn.sliding_window<left = 256, right = 0>"; then
  echo "FAIL: examples/embed/capi.c:"; "$OUT/attnc-embed-capi"
  echo "0 passed, 1 failed"; exit 1
fi
export CUDA_ROOT=${CUDA_ROOT:-/usr/local/cuda}
if [ ! -x "$CUDA_ROOT/bin/ptxas" ]; then
  echo "PASS: examples/embed builds against the installed attnc and builds a mask through the C API (artifact run skipped: no CUDA toolkit)"
  echo "1 passed, 0 failed"; exit 0
fi
if "$OUT/attnc-embed" "$OUT/embed.attnc" > "$OUT/run.log" 2>&1 &&
   grep -q "runtime: kernel attnc_attention for sm_90a" "$OUT/run.log"; then
  echo "PASS: examples/embed builds against the installed attnc, compiles and loads an artifact and builds a mask through the C API"
  echo "1 passed, 0 failed"
else
  echo "FAIL: examples/embed run:"; cat "$OUT/run.log"
  echo "0 passed, 1 failed"; exit 1
fi
