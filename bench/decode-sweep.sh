#!/usr/bin/env bash
# Times decode-kernel variants (scripts/build-decode-sweep.sh) with
# attnrt-run, each run checked against the float64 reference first:
# B=64 Sk=8K and B=1 Sk=128K (Hq=32, Hkv=8, D=128), the runtime's split
# count and forced ones. Usage: bench/decode-sweep.sh BUILD_GPU_DIR
DIR=${1:?build-gpu dir}
RUN="$DIR/attnrt-run"
base="hq=32 hkv=8 sq=1 d=128 dtype=bf16 mask=none decode=1"
for a in "$DIR"/sweep/*.attnc; do
  for size in "b=64 sk=8192" "b=1 sk=131072"; do
    out=$("$RUN" --artifact="$a" --spec="$size $base" --time=50 2>&1)
    echo "$(basename "$a") $size: $(echo "$out" | grep -oE '^(PASS|FAIL)') \
$(echo "$out" | grep -oE 'key splits: [0-9]+') $(echo "$out" | grep -oE 'median [0-9.]+ ms')"
  done
done
a="$DIR/sweep/decode_bk64.attnc"
for s in 1 2 3 4 6 8; do
  out=$("$RUN" --artifact="$a" --spec="b=64 sk=8192 $base" --time=50 --splits=$s 2>&1)
  echo "bk64 b=64 splits=$s: $(echo "$out" | grep -oE '^(PASS|FAIL)') $(echo "$out" | grep -oE 'median [0-9.]+ ms')"
done
for s in 16 32 48 64 96 128 192; do
  out=$("$RUN" --artifact="$a" --spec="b=1 sk=131072 $base" --time=50 --splits=$s 2>&1)
  echo "bk64 b=1 splits=$s: $(echo "$out" | grep -oE '^(PASS|FAIL)') $(echo "$out" | grep -oE 'median [0-9.]+ ms')"
done
