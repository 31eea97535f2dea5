#!/usr/bin/env bash
# Prepares one GPU call that checks and times chained work items
# (#attn.gpu_kernel chain_items = true) against the target's choice:
#   bash bench/chain-items-prep.sh build-gpu/NAME   (here, after scripts/build.sh)
#   then on the GPU machine (carry build-gpu/NAME):  bash build-gpu/NAME/run.sh
# It builds, from BUILD_DIR (default build):
#   NAME/a      the target's choice (D = 128 causal, 1024-key window, documents)
#   NAME/q2     the same with q_buffers = 2
#   NAME/c      the same with q_buffers = 2, chain_items = true
#   NAME/conf   D = 128 conformance entries (causal, prefix-LM, windows, documents,
#               soft-capped) with chain_items pinned, and extra runs of several work
#               items a block and of window items with no key tile
#   NAME/a64, NAME/p8, NAME/c8, NAME/c12k96: D = 64 window 1024, documents and causal:
#               the target's choice, two consumer warpgroups on the persistent grid
#               (128-key tiles), the same chained, and three chained on 96-key tiles
#               (three on 128-key tiles serialise their wgmmas when chained)
#   NAME/conf64 D = 64 conformance entries with c8's chained kernel pinned
# run.sh [conf|ab|all|profile] runs that conformance against float64 first (logs in
# $OUT/conf and $OUT/conf64, failures in $OUT/conf.fails), then bench/kernel_ab.py
# (which checks every output against float64 before it times) of a, q2 and c at S = 8K
# (window, documents, causal) and causal 4K and of D = 64's variants at 8K, then
# compute-sanitizer racecheck on two chained runs; `run.sh profile` instead runs ncu
# (bench/prefill-profile.sh) on the D = 128 window and documents at 8K, chained and not
# ($OUT/prof/c, $OUT/prof/a; bench/ncu_regions.py reads their .sass.csv).
set -euo pipefail
cd "$(dirname "$0")/.."
OUT_DIR=${1:?usage: bench/chain-items-prep.sh build-gpu/NAME}
BUILD=${BUILD_DIR:-build}
mkdir -p "$OUT_DIR/conf"
ONLY='^bench_d128_(causal|window|document)$' python3 bench/make_variants.py "$BUILD" "$OUT_DIR" a:128: \
  q2:128:q_buffers=2 c:128:q_buffers=2,chain_items=true
# The conformance entries, with runs of several work items a block added.
python3 - "$OUT_DIR/conf/conformance.list" <<'EOP'
import sys
names = ["causal_d128_bf16_gqa4", "causal_tl_d128_bf16_gqa1", "causal_d128_f16_gqa4",
         "window_d128_bf16_gqa4", "window2_d128_bf16_gqa1", "prefix_d128_bf16_gqa4",
         "widewindow_d128_bf16_gqa4", "document_causal_d128_f16", "document_d128_bf16",
         "softcap_causal_d128", "softcap_document_d128", "causal_gqa7_hq14"]
extra = {
    "causal_d128_bf16_gqa4": ["b=2 hq=8 hkv=2 sq=4097 sk=4097 d=128 dtype=bf16 mask=causal",
                              "b=3 hq=8 hkv=2 sq=2100 sk=3333 d=128 dtype=bf16 mask=causal"],
    "widewindow_d128_bf16_gqa4": [
        "b=2 hq=8 hkv=2 sq=4100 sk=4100 d=128 dtype=bf16 mask=window:1023,0",
        "b=2 hq=8 hkv=2 sq=5000 sk=1500 d=128 dtype=bf16 mask=window:1023,0"],
    "window2_d128_bf16_gqa1": [
        "b=2 hq=8 hkv=8 sq=3000 sk=700 d=128 dtype=bf16 mask=window:37,20:top_left",
        "b=3 hq=8 hkv=8 sq=2100 sk=2001 d=128 dtype=bf16 mask=window:37,20:top_left"],
    "window_d128_bf16_gqa4": [
        "b=3 hq=8 hkv=2 sq=2100 sk=2001 d=128 dtype=bf16 mask=window:100,0",
        "b=2 hq=8 hkv=2 sq=700 sk=3000 d=128 dtype=bf16 mask=window:100,0"],
    "prefix_d128_bf16_gqa4": ["b=2 hq=8 hkv=2 sq=3001 sk=3001 d=128 dtype=bf16 mask=prefix:77"],
    "document_d128_bf16": [
        "b=2 hq=4 hkv=2 d=128 dtype=bf16 mask=document:3000,17,900,129,2100,1,40,1000"],
    "document_causal_d128_f16": [
        "b=2 hq=4 hkv=2 d=128 dtype=f16 mask=document:3000,17,900,129,2100,1,40,1000:causal"],
}
out = []
for line in open("bench/conformance.list"):
    name = line.split("|")[0].strip()
    if name in names:
        out.append(line.rstrip("\n") + "".join("; " + r for r in extra.get(name, [])))
assert len(out) == len(names), "a conformance entry is missing"
open(sys.argv[1], "w").write("\n".join(out) + "\n")
EOP
LIST="$OUT_DIR/conf/conformance.list" python3 bench/make_variants.py "$BUILD" "$OUT_DIR" \
  conf:128:q_buffers=2,chain_items=true
# Narrow windows take the one-warpgroup kernel: pin the chained one.
LIST="$OUT_DIR/conf/conformance.list" ONLY='^window' python3 bench/make_variants.py "$BUILD" \
  "$OUT_DIR" conf:128:warps=8,block_k=128,persistent=true,wide_stores=true,q_buffers=2,chain_items=true
n=$(grep -l "chain_items = true" "$OUT_DIR"/conf/artifacts/*.mlir | wc -l)
[ "$n" = 12 ] || { echo "chain-items-prep: $n of 12 conformance artifacts chained"; exit 1; }
cp "$BUILD/bin/attnrt-run" "$OUT_DIR/conf/"
# D = 64.
cat > "$OUT_DIR/list64" <<'EOL'
bench_d64_causal | b=1 hq=32 sq=128 d=64 dtype=bf16 mask=causal
bench_d64_window | b=1 hq=32 sq=128 d=64 dtype=bf16 mask=window:1023,0
bench_d64_document | b=1 hq=32 d=64 dtype=bf16 mask=document:100,28:causal
EOL
two=warps=8,block_k=128,persistent=true,wide_stores=true,blocks_per_sm=0
LIST="$OUT_DIR/list64" python3 bench/make_variants.py "$BUILD" "$OUT_DIR" a64:64: p8:64:$two \
  c8:64:$two,q_buffers=2,chain_items=true \
  c12k96:64:warps=12,block_k=96,persistent=true,wide_stores=true,blocks_per_sm=0,q_buffers=2,chain_items=true
mkdir -p "$OUT_DIR/conf64"
grep -E "^(causal_d64_bf16_gqa4|causal_tl_d64_bf16_gqa1|window_d64_bf16_gqa4|window2_d64_bf16_gqa1|prefix_d64_bf16_gqa4|widewindow_d64_bf16_gqa4|document_d64_bf16|document_causal_d64_f16) " \
  bench/conformance.list > "$OUT_DIR/conf64/conformance.list"
LIST="$OUT_DIR/conf64/conformance.list" python3 bench/make_variants.py "$BUILD" "$OUT_DIR" \
  conf64:64:$two,q_buffers=2,chain_items=true
n=$(grep -l "chain_items = true" "$OUT_DIR"/conf64/artifacts/*.mlir | wc -l)
[ "$n" = 8 ] || { echo "chain-items-prep: $n of 8 D = 64 conformance artifacts chained"; exit 1; }
cp "$BUILD/bin/attnrt-run" "$OUT_DIR/conf64/"
cp "$BUILD/lib/libattnrt.so" "$OUT_DIR/"
cat > "$OUT_DIR/run.sh" <<'EOR'
#!/bin/bash
# Made by bench/chain-items-prep.sh: chained work items on the GPU.
S=$(cd "$(dirname "$0")" && pwd)
cd "$S/../.."
S=${S#$PWD/}
export ATTNRT_LIB=$PWD/$S/libattnrt.so
PART=${1:-all}
nvidia-smi --query-gpu=name,clocks.max.sm,clocks.max.mem --format=csv > $OUT/gpu.txt 2>&1
if [ "$PART" = profile ]; then
  for v in c a; do
    timeout 250 bash bench/prefill-profile.sh $S/$v $OUT/prof/$v 128:8192:window 128:8192:document
  done
  exit 0
fi
if [ "$PART" != ab ]; then
  # A smoke run of each chained D = 128 kernel first: one that hangs (a barrier never
  # completing) stops the call here instead of holding every conformance job.
  for spec in "causal_d128_bf16_gqa4|b=2 hq=8 hkv=2 sq=2100 sk=2001 d=128 dtype=bf16 mask=causal" \
      "widewindow_d128_bf16_gqa4|b=2 hq=8 hkv=2 sq=2100 sk=2001 d=128 dtype=bf16 mask=window:1023,0" \
      "document_d128_bf16|b=2 hq=4 hkv=2 d=128 dtype=bf16 mask=document:1,500,37,462,900,129,2100"; do
    timeout 30 $S/conf/attnrt-run --artifact=$S/conf/artifacts/${spec%%|*}.attnc \
      --spec="${spec#*|}" --seed=1 > $OUT/smoke.${spec%%|*}.log 2>&1
    rc=$?
    echo "smoke rc=$rc ${spec%%|*}: $(grep -E '^(PASS|FAIL)' $OUT/smoke.${spec%%|*}.log)"
    [ $rc = 124 ] && { echo "smoke: ${spec%%|*} hung; stopping"; exit 1; }
  done
  for c in conf conf64; do
    CONFORMANCE_FILTER=. JOBS=16 JOB_TIMEOUT=100 NO_SANITIZER=1 NO_EXTRA=1 timeout 200 \
      bash bench/gpu-check.sh $S/$c $OUT/$c > $OUT/$c.log 2>&1
    echo "$c: $(tail -1 $OUT/$c.log)"
    grep -v "^PASS" $OUT/$c/conformance.txt | head -20 >> $OUT/conf.fails
  done
fi
[ "$PART" = conf ] && exit 0
export ROUNDS=${ROUNDS:-3}
for c in 128:8192:window 128:8192:document 128:8192:causal 128:4096:causal; do
  echo "== $c" >> $OUT/ab.log
  timeout 100 python3 -u bench/kernel_ab.py $c $S/a $S/q2 $S/c >> $OUT/ab.log 2>&1
done
for c in 64:8192:window 64:8192:document 64:8192:causal; do
  echo "== $c" >> $OUT/ab.log
  timeout 100 python3 -u bench/kernel_ab.py $c $S/a64 $S/p8 $S/c8 $S/c12k96 >> $OUT/ab.log 2>&1
done
cat $OUT/ab.log
SAN=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
for spec in "b=2 hq=8 hkv=2 sq=2100 sk=2001 d=128 dtype=bf16 mask=window:1023,0|widewindow_d128_bf16_gqa4" \
    "b=2 hq=8 hkv=2 sq=2100 sk=2001 d=128 dtype=bf16 mask=causal|causal_d128_bf16_gqa4"; do
  name=${spec#*|}
  timeout 120 $SAN --tool racecheck --error-exitcode 9 $S/conf/attnrt-run \
    --artifact=$S/conf/artifacts/$name.attnc --spec="${spec%|*}" --seed=1 > $OUT/race.$name.log 2>&1
  echo "racecheck rc=$? $name: $(grep -E 'RACECHECK SUMMARY' $OUT/race.$name.log | tail -1) $(grep -E '^(PASS|FAIL)' $OUT/race.$name.log)"
done
EOR
chmod +x "$OUT_DIR/run.sh"
echo "chain-items-prep: $OUT_DIR ready ($(du -sh "$OUT_DIR" | cut -f1)); on the GPU machine: bash $OUT_DIR/run.sh"
