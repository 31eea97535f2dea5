#!/usr/bin/env bash
# attnc's main job on the example in examples/: set up, build, compile the
# attention through every level (attn -> tiled -> loops -> llvm), print its
# cost report, compile it to a GPU kernel (PTX + cubin artifact), and run it
# against the float64 reference: on the GPU where one is present, on the
# CPU path otherwise.
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD_DIR=${BUILD_DIR:-build}
EXAMPLE=${1:-examples/causal_gqa_softcap.mlir}
SIZES=${SIZES:-b=2 sq=300 sk=300}

scripts/setup.sh
scripts/build.sh
BIN="$BUILD_DIR/bin"
OUT="$BUILD_DIR/demo"
mkdir -p "$OUT"

echo
echo "== $EXAMPLE: parsed, verified and printed by attnc-opt"
"$BIN/attnc-opt" "$EXAMPLE"

for level in attn tiled loops llvm; do
  "$BIN/attnc" compile "$EXAMPLE" --target=cpu --emit=$level \
    -o "$OUT/example.$level.mlir" 2> "$OUT/example.$level.log"
  echo
  echo "== --emit=$level: $(wc -l < "$OUT/example.$level.mlir") lines in $OUT/example.$level.mlir"
  case $level in
    tiled) grep -E "remark" "$OUT/example.$level.log" | sed 's/^/   /' | head -3
           grep -E "scf.parallel|scf.for .*step|attn.tile_step|attn.tile_finalize" \
             "$OUT/example.$level.mlir" | sed -E 's/ : memref.*//; s/^ +/   /' | head -12 ;;
    loops) grep -cE "math.exp2" "$OUT/example.$level.mlir" | sed 's/^/   math.exp2 ops: /' ;;
    llvm)  grep -cE "llvm.intr.exp2|llvm.call" "$OUT/example.$level.mlir" | sed 's/^/   exp2 intrinsics and calls: /' ;;
  esac
done

echo
echo "== cost report ($SIZES)"
"$BIN/attnc" compile "$EXAMPLE" --report --sizes="$SIZES"

echo
export CUDA_ROOT=${CUDA_ROOT:-/usr/local/cuda}
if [ -x "$CUDA_ROOT/bin/ptxas" ]; then
  echo "== GPU kernel: $OUT/example.attnc (sm_90a)"
  "$BIN/attnc" compile "$EXAMPLE" --target=sm_90a -o "$OUT/example.attnc"
  head -c 1000 "$OUT/example.attnc" | grep -aE "^(kernel|target|spec|threads|dynamic_shared_memory) =" | sed 's/^/   /'
  "$BIN/attnc" compile "$EXAMPLE" --target=sm_90a --emit=ptx -o "$OUT/example.ptx"
  "$CUDA_ROOT/bin/ptxas" -arch=sm_90a -v "$OUT/example.ptx" -o /dev/null 2>&1 | grep -E "registers|spill" | sed 's/^ptxas info *: /   ptxas: /'
  echo "   wgmma.mma_async: $(grep -c 'wgmma.mma_async' "$OUT/example.ptx"), TMA loads (cp.async.bulk.tensor): $(grep -c 'cp.async.bulk.tensor' "$OUT/example.ptx"), setmaxnreg: $(grep -c 'setmaxnreg' "$OUT/example.ptx")"
else
  echo "== GPU kernel: skipped (no CUDA toolkit at $CUDA_ROOT: ptxas and libdevice are needed)"
fi

echo
if command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi -L >/dev/null 2>&1; then
  echo "== run on the GPU against the float64 reference ($SIZES)"
  "$BIN/attnc-run" "$EXAMPLE" --sizes="$SIZES" --device=cuda --seed=3
else
  echo "== run on the CPU against the float64 reference ($SIZES; no GPU here)"
  "$BIN/attnc-run" "$EXAMPLE" --sizes="$SIZES" --device=cpu --seed=3
fi
