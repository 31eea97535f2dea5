#!/usr/bin/env bash
# Compiles every artifact of bench/conformance.list (and the benchmark
# shapes of bench/bench.list) into build-gpu/, with the MLIR-free runner and
# runtime, ready to carry to the GPU machine (bench/gpu-check.sh runs there).
# TARGET=sm_80 builds the sm_80-class kernels (which an H200 runs through
# PTX JIT), leaving out the fp8 entries that target refuses. ONLY=regex
# keeps the entries (of both lists) whose name matches it (grep -E), e.g.
# ONLY='blocksparse|softcap' for a short run on those kernels.
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
skipped=0
for list in bench/conformance.list bench/bench.list; do
  [ -f "$list" ] || continue
  kept="$OUT/$(basename "$list")"
  : > "$kept"
  while IFS= read -r line; do
    IFS='|' read -r name spec runs <<< "$line"
    name=$(echo "$name" | xargs)
    case "$name" in ''|'#'*) echo "$line" >> "$kept"; continue ;; esac
    spec=$(echo "$spec" | xargs)
    if [ -n "${ONLY:-}" ] && ! grep -qE -- "$ONLY" <<< "$name"; then
      continue
    fi
    # sm_80 refuses fp8 caches: those lines are left out of its lists.
    if [ "$TARGET" = sm_80 ] && [[ " $spec " == *" kv_dtype=fp8 "* ]]; then
      skipped=$((skipped + 1))
      continue
    fi
    echo "$line" >> "$kept"
    "$BUILD_DIR/bin/attnc" compile --spec "$spec" --target="$TARGET" \
      -o "$OUT/artifacts/$name.attnc"
    n=$((n + 1))
  done < "$list"
done
if [ "$skipped" -gt 0 ]; then
  echo "build-gpu: $skipped fp8 entries left out for $TARGET"
fi
# The dense causal benchmark kernel also as the sm_80-class kernel (run
# through PTX JIT on Hopper): the kernel family of ragged batches, for
# bench/ragged_bench.py.
if [ "$TARGET" = sm_90a ]; then
  "$BUILD_DIR/bin/attnc" compile \
    --spec "b=1 hq=32 hkv=8 sq=128 d=128 dtype=bf16 mask=causal" --target=sm_80 \
    -o "$OUT/artifacts/bench_dense_gqa4_d128_causal_sm80.attnc" 2>/dev/null
  n=$((n + 1))
fi
# The cache prefill of bench_cache_d128_causal pinned to the mma.sync
# kernel (bench/cache_mma.mlir), for bench/cache_prefill_bench.py.
if [ "$TARGET" = sm_90a ] &&
   { [ -z "${ONLY:-}" ] || grep -qE -- "$ONLY" <<< bench_cache_d128_causal_mma; }; then
  "$BUILD_DIR/bin/attnc" compile bench/cache_mma.mlir --target=sm_90a \
    -o "$OUT/artifacts/bench_cache_d128_causal_mma.attnc" 2>/dev/null
  n=$((n + 1))
fi
# The fp8 cache prefill of bench_cache_d128_causal_fp8 pinned to the
# mma.sync kernel (bench/cache_fp8_mma.mlir), for the same script.
if [ "$TARGET" = sm_90a ] &&
   { [ -z "${ONLY:-}" ] || grep -qE -- "$ONLY" <<< bench_cache_d128_causal_fp8_mma; }; then
  "$BUILD_DIR/bin/attnc" compile bench/cache_fp8_mma.mlir --target=sm_90a \
    -o "$OUT/artifacts/bench_cache_d128_causal_fp8_mma.attnc" 2>/dev/null
  n=$((n + 1))
fi
# Custom regions (checked by bench/custom_check.py against Python twins).
for f in bench/custom/*.mlir; do
  "$BUILD_DIR/bin/attnc" compile "$f" --target="$TARGET" \
    -o "$OUT/artifacts/custom_$(basename "$f" .mlir).attnc" 2>/dev/null
  n=$((n + 1))
done
echo "build-gpu: $n artifacts for $TARGET in $OUT ($(du -sh "$OUT" | cut -f1))"
