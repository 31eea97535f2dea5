#!/usr/bin/env bash
# attnc's main job on the example in examples/: set up, build, compile the
# attention through every level (attn -> tiled -> loops -> llvm), print its
# cost report, and run it against the float64 reference.
#
# The GPU path (NVVM/PTX kernels and the CUDA runtime) is not implemented
# yet, so the attention runs through the CPU path on every machine.
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
echo "== run on the CPU against the float64 reference ($SIZES)"
if command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi -L >/dev/null 2>&1; then
  echo "   (a GPU is present, but attnc does not emit GPU kernels yet: running the CPU path)"
fi
"$BIN/attnc-run" "$EXAMPLE" --sizes="$SIZES" --device=cpu --seed=3
