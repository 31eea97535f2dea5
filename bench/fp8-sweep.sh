#!/usr/bin/env bash
# Times fp8-cache decode variants against the bf16 kernel with attnrt-run
# (each run checked against the float64 reference first), then profiles the
# default bf16 and fp8 kernels with ncu. Usage: bench/fp8-sweep.sh DIR LOGS
# (DIR/fp8sweep/*.attnc: NAME = dtype and configuration).
DIR=${1:?build-gpu dir}
LOGS=${2:?log dir}
mkdir -p "$LOGS"
RUN="$DIR/attnrt-run"
for a in "$DIR"/fp8sweep/*.attnc; do
  name=$(basename "$a" .attnc)
  dtype=bf16; [[ "$name" == *f16_* && "$name" != *bf16* ]] && dtype=f16
  kv=""; [[ "$name" == fp8* ]] && kv="kv_dtype=fp8"
  base="hq=32 hkv=8 sq=1 d=128 dtype=$dtype mask=none decode=1 $kv"
  for size in "b=64 sk=8192" "b=1 sk=131072"; do
    out=$("$RUN" --artifact="$a" --spec="$size $base" --time=50 2>&1)
    echo "$name $size: $(echo "$out" | grep -oE '^(PASS|FAIL)') \
$(echo "$out" | grep -oE 'key splits: [0-9]+') $(echo "$out" | grep -oE 'median [0-9.]+ ms')" | tee -a "$LOGS/sweep.txt"
  done
done
NCU=$(command -v ncu || echo /usr/local/cuda/bin/ncu)
for name in bf16_bk64 fp8_bf16_bk64; do
  kv=""; [[ "$name" == fp8* ]] && kv="kv_dtype=fp8"
  timeout 120 "$NCU" --kernel-name attnc_attention --launch-skip 3 --launch-count 1 \
    --section SpeedOfLight --section Occupancy --section WarpStateStats --section MemoryWorkloadAnalysis \
    "$RUN" --artifact="$DIR/fp8sweep/$name.attnc" \
    --spec="b=64 sk=8192 hq=32 hkv=8 sq=1 d=128 dtype=bf16 mask=none decode=1 $kv" --time=5 \
    > "$LOGS/ncu_$name.txt" 2>&1
  grep -E "Duration|DRAM Throughput|Memory Throughput|Achieved Occupancy|Theoretical Occupancy|Warp Cycles Per Issued|Stall|Block Limit" "$LOGS/ncu_$name.txt" | head -30 | sed "s/^/$name: /"
done
