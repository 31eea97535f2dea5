#!/usr/bin/env bash
# Compiles variants of the decode kernel (bench/decode-sweep.sh times them on
# the GPU machine): the chosen #attn.gpu_kernel of a decode spec with other
# block_k values, pinned in the IR. Usage: scripts/build-decode-sweep.sh DIR
set -euo pipefail
cd "$(dirname "$0")/.."
OUT=${1:?output dir}
export CUDA_ROOT=${CUDA_ROOT:-/usr/local/cuda}
mkdir -p "$OUT"
SPEC="b=1 hq=32 hkv=8 sq=1 d=128 dtype=bf16 mask=none decode=1"
ir=$(build/bin/attnc compile --spec "$SPEC" --target=sm_90a --emit=attn 2>/dev/null |
  sed -e 's/, attn.tile_sizes = array<i64: [0-9]*, [0-9]*>//')
for bk in 16 32 64 128; do
  echo "$ir" | sed -e "s/block_k = [0-9]*/block_k = $bk/" > "$OUT/decode_bk$bk.mlir"
  build/bin/attnc compile "$OUT/decode_bk$bk.mlir" --target=sm_90a \
    -o "$OUT/decode_bk$bk.attnc" 2>&1 | grep -v "remark\|^ *%\|^ *\^" || true
done
ls "$OUT"
