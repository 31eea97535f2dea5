#!/usr/bin/env bash
# Compiles every artifact of bench/conformance.list (and the benchmark
# shapes of bench/bench.list) into build-gpu/, with the MLIR-free runner and
# runtime, ready to carry to the GPU machine (bench/gpu-check.sh runs there).
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD_DIR=${BUILD_DIR:-build}
OUT=${1:-build-gpu}
TARGET=${TARGET:-sm_90a}
export CUDA_ROOT=${CUDA_ROOT:-/usr/local/cuda}
ninja -C "$BUILD_DIR" attnc attnrt-run attnrt >/dev/null
rm -rf "$OUT"
mkdir -p "$OUT/artifacts"
cp "$BUILD_DIR/bin/attnrt-run" "$OUT/"
cp "$BUILD_DIR/lib/libattnrt.so" "$OUT/"
n=0
for list in bench/conformance.list bench/bench.list; do
  [ -f "$list" ] || continue
  cp "$list" "$OUT/"
  while IFS='|' read -r name spec runs; do
    name=$(echo "$name" | xargs)
    case "$name" in ''|'#'*) continue ;; esac
    spec=$(echo "$spec" | xargs)
    "$BUILD_DIR/bin/attnc" compile --spec "$spec" --target="$TARGET" \
      -o "$OUT/artifacts/$name.attnc"
    n=$((n + 1))
  done < "$list"
done
# Custom regions (checked by bench/custom_check.py against Python twins).
for f in bench/custom/*.mlir; do
  "$BUILD_DIR/bin/attnc" compile "$f" --target="$TARGET" \
    -o "$OUT/artifacts/custom_$(basename "$f" .mlir).attnc" 2>/dev/null
  n=$((n + 1))
done
echo "build-gpu: $n artifacts for $TARGET in $OUT ($(du -sh "$OUT" | cut -f1))"
