#!/usr/bin/env bash
# Runs on the GPU machine over build-gpu/ (scripts/build-gpu-artifacts.sh):
# the conformance sweep of conformance.list against the float64 reference
# (output poisoned before each run), then, with BENCH="D:S:mask ..." (or
# BENCH=all), bench/bench.py side by side with the peers (BENCH_TIMEOUT=S:
# each named case in its own process under an S-second limit).
# CONFORMANCE_FILTER=regex runs only the conformance entries whose name
# matches it (grep -E), each on the inputs of the full sweep (seeds from the
# entry's name and run); JOB_TIMEOUT=S limits a run (default 120: the
# float64 reference of document_d128_bf16's 6147-row run takes 56 s alone
# on the GPU machine's cores and passed 60 under 16 jobs at once, twenty-
# sixth session runs 5-6); NO_CONFORMANCE=1 none, NO_SANITIZER=1 skips
# compute-sanitizer, NO_EXTRA=1 the custom-region, layout, soft-capped-extremes and fp8
# scale-sign checks.
# Exits 1 when any conformance run, sanitizer check or extra check failed.
# Usage: bench/gpu-check.sh BUILD_GPU_DIR LOG_DIR
set -uo pipefail
DIR=${1:?build-gpu dir}
LOGS=${2:?log dir}
mkdir -p "$LOGS"
RUN="$DIR/attnrt-run"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv > "$LOGS/gpu.txt" 2>&1

# One job per (artifact, run spec); the reference runs on the CPU cores.
jobs="$LOGS/jobs.txt"
: > "$jobs"
i=0
while IFS='|' read -r name spec runs; do
  name=$(echo "$name" | xargs)
  case "$name" in ''|'#'*) continue ;; esac
  if [ -n "${CONFORMANCE_FILTER:-}" ] && ! grep -qE -- "$CONFORMANCE_FILTER" <<< "$name"; then
    continue
  fi
  IFS=';' read -ra list <<< "$runs"
  for r in "${list[@]}"; do
    i=$((i + 1))
    printf '%s\t%s\t%s\n' "$i" "$name" "$(echo "$r" | xargs)" >> "$jobs"
  done
done < "$DIR/conformance.list"

run_job() {
  IFS=$'\t' read -r n name spec <<< "$1"
  job="$name|$spec"
  # "spec @splits=N": a forced split count (attnrt-run --splits); "spec
  # @plan=N": a work list for N resident blocks (attnrt-run --plan); "spec
  # @o_row_stride=N": O's rows N elements apart (attnrt-run --o-row-stride).
  extra=()
  if [[ "$spec" == *" @splits="* ]]; then
    extra=(--splits="${spec##* @splits=}")
    spec="${spec% @splits=*}"
  elif [[ "$spec" == *" @plan="* ]]; then
    extra=(--plan="${spec##* @plan=}")
    spec="${spec% @plan=*}"
  elif [[ "$spec" == *" @o_row_stride="* ]]; then
    extra=(--o-row-stride="${spec##* @o_row_stride=}")
    spec="${spec% @o_row_stride=*}"
  fi
  # The inputs' seed comes from the entry's name and run (a CRC), not from
  # the job's number: a filtered sweep (CONFORMANCE_FILTER) or a list with
  # entries added runs each (artifact, run) on the inputs of the full one.
  # (By job number, alibi_none's sq=1 run failed 2 of 31 seeds on main:
  # 8 output rows, bench/RESULTS.md twenty-sixth session run 2.)
  seed=$(printf '%s' "$job" | cksum | cut -d' ' -f1)
  # A kernel that hangs (a barrier never completing) fails its job.
  timeout "${JOB_TIMEOUT:-120}" "$RUN" --artifact="$DIR/artifacts/$name.attnc" \
    --spec="$spec" --seed="$seed" "${extra[@]}" > "$LOGS/run.$n.log" 2>&1
  echo "$? $name | $spec${extra[*]:+ ${extra[*]}}" > "$LOGS/rc.$n"
}
export -f run_job
export RUN DIR LOGS
[ -n "${NO_CONFORMANCE:-}" ] && : > "$jobs"
tr '\n' '\0' < "$jobs" | xargs -0 -P "${JOBS:-12}" -I{} bash -c 'run_job "$@"' _ {}

pass=0; fail=0
: > "$LOGS/conformance.txt"
for f in $(ls "$LOGS"/rc.* 2>/dev/null | sort -t. -k2 -n); do
  n=${f##*.}
  read -r rc rest < "$f"
  err=$(grep -o "rel Frobenius error [0-9.e+-]*" "$LOGS/run.$n.log" | head -1)
  naive=$(grep -o "naive [a-z0-9]*: [0-9.e+-]*" "$LOGS/run.$n.log" | head -1)
  if [ "$rc" = 0 ]; then pass=$((pass + 1)); s=PASS; else fail=$((fail + 1)); s="FAIL($rc)"; fi
  echo "$s $rest ($err, $naive)" >> "$LOGS/conformance.txt"
done
grep -v "^PASS" "$LOGS/conformance.txt" | head -40
for f in $(grep -l "^FAIL\|attnrt-run: error" "$LOGS"/run.*.log 2>/dev/null | head -5); do
  echo "--- $f"; cat "$f"
done
echo "conformance: $pass passed, $fail failed"

# compute-sanitizer memcheck and racecheck on a representative set.
SAN=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
if [ -x "$SAN" ] && [ -z "${NO_SANITIZER:-}" ]; then
  : > "$LOGS/sanitizer.txt"
  # "name | spec [| attnrt-run options]"
  while IFS='|' read -r name spec extra; do
    name=$(echo "$name" | xargs); spec=$(echo "$spec" | xargs); extra=$(echo "$extra" | xargs)
    for tool in memcheck racecheck; do
      # shellcheck disable=SC2086 # the options split into words
      "$SAN" --tool $tool --error-exitcode 9 "$RUN" --artifact="$DIR/artifacts/$name.attnc" \
        --spec="$spec" --seed=1 $extra > "$LOGS/san.$name.$tool.log" 2>&1
      rc=$?
      summary=$(grep -E "ERROR SUMMARY|RACECHECK SUMMARY" "$LOGS/san.$name.$tool.log" | tail -1)
      echo "$tool rc=$rc $name ($spec${extra:+ $extra}): $summary $(grep -E '^(PASS|FAIL)' "$LOGS/san.$name.$tool.log")" >> "$LOGS/sanitizer.txt"
    done
  done <<'EOS'
causal_d128_bf16_gqa4 | b=1 hq=8 hkv=2 sq=129 sk=127 d=128 dtype=bf16 mask=causal
causal_d128_bf16_gqa4 | b=2 hq=8 hkv=2 sq=1100 sk=1001 d=128 dtype=bf16 mask=causal
causal_d64_bf16_gqa4 | b=2 hq=8 hkv=2 sq=1000 sk=777 d=64 dtype=bf16 mask=causal
causal_d64_bf16_gqa4 | b=2 hq=8 hkv=2 sq=1100 sk=1001 d=64 dtype=bf16 mask=causal
causal_d64_bf16_gqa4 | b=1 hq=8 hkv=2 sq=2100 sk=2001 d=64 dtype=bf16 mask=causal
none_d64_bf16_gqa4 | b=2 hq=8 hkv=2 sq=1000 sk=1000 d=64 dtype=bf16 mask=none
window2_d64_f16_gqa4 | b=1 hq=8 hkv=2 sq=129 sk=127 d=64 dtype=f16 mask=window:37,20:top_left
document_causal_d128_f16 | b=1 hq=4 hkv=2 d=128 dtype=f16 mask=document:64,64,1:causal
blocksparse_d64_bf16_gqa1 | b=1 hq=8 hkv=8 sq=129 sk=127 d=64 dtype=bf16 mask=blocksparse:64,64,0.5
blocks128x128_d128_bf16_gqa4 | b=1 hq=8 hkv=2 sq=300 sk=333 d=128 dtype=bf16 mask=blocksparse:128,128,0.5
softcap_alibi_causal | b=1 hq=8 hkv=2 sq=129 sk=127 d=64 dtype=bf16 mask=causal softcap=20 alibi
causal_d256_bf16 | b=1 hq=4 hkv=1 sq=129 sk=127 d=256 dtype=bf16 mask=causal
none_d128_bf16_gqa4 | b=2 hq=8 hkv=2 sq=2100 sk=300 d=128 dtype=bf16 mask=none
decode_causal_d128_bf16_gqa4 | b=2 hq=8 hkv=2 sq=1 sk=3001 d=128 dtype=bf16 mask=causal decode=1
decode_window2_d64_bf16_gqa8 | b=1 hq=16 hkv=2 sq=5 sk=1000 d=64 dtype=bf16 mask=window:37,20:top_left decode=1
cache_window_d128_kvlens | b=4 hq=8 hkv=2 sq=129 sk=127 d=128 dtype=bf16 mask=window:100,0 kv_lens=1
cache_causal_d64_paged16 | b=4 hq=8 hkv=2 sq=129 sk=128 d=64 dtype=bf16 mask=causal paged=16
decode_cache_causal_d128_gqa4_paged16 | b=5 hq=8 hkv=2 sq=1 sk=784 d=128 dtype=bf16 mask=causal decode=1 paged=16
fp8_causal_d128_bf16 | b=1 hq=8 hkv=2 sq=129 sk=127 d=128 dtype=bf16 mask=causal kv_dtype=fp8
decode_fp8_causal_d128_gqa4_paged16 | b=4 hq=8 hkv=2 sq=5 sk=1008 d=128 dtype=bf16 mask=causal decode=1 paged=16 kv_dtype=fp8
ragged_causal_d128_bf16_gqa4 | hq=8 hkv=2 d=128 dtype=bf16 mask=causal ragged=129:127,1:300,0:5,70:0
ragged_causal_d64_gqa4_paged16 | hq=8 hkv=2 d=64 dtype=bf16 mask=causal paged=16 ragged=129:128,1:33,0:16
softcap_causal_d128 | b=2 hq=8 hkv=2 sq=300 sk=300 d=128 dtype=bf16 mask=causal softcap=30
decode_causal_d128_bf16_gqa4 | b=3 hq=8 hkv=2 sq=1 sk=3001 d=128 dtype=bf16 mask=causal decode=1 | --plan=0
decode_cache_causal_d128_gqa4_paged16 | b=5 hq=8 hkv=2 sq=1 sk=3008 d=128 dtype=bf16 mask=causal decode=1 paged=16 | --plan=0
EOS
  cat "$LOGS/sanitizer.txt"
  rm -f "$LOGS"/san.*.log
fi

# NO_EXTRA=1 skips the custom-region, layout, soft-capped-extremes and fp8 scale-sign checks
# (short runs).
if [ -z "${NO_EXTRA:-}" ]; then
  # Custom mask_fn / score_fn regions, against their Python twins.
  python3 "$(dirname "$0")/custom_check.py" "$DIR" 2>&1 | tee "$LOGS/custom.txt" | grep -v "^PASS"

  # Strided layouts ([B, S, H, D] views, packed tokens, padded rows) in place.
  python3 "$(dirname "$0")/layout_check.py" "$DIR" 2>&1 | tee "$LOGS/layout.txt" | grep -v "^PASS"

  # Soft-capped logits far from 0 (the kernels that take the cap as the
  # softmax's reference, beside those keeping a row maximum).
  python3 "$(dirname "$0")/softcap_extremes.py" "$DIR" 2>&1 | tee "$LOGS/softcap-extremes.txt" | grep -v "^PASS"

  # fp8 caches whose scales are negative, zero or tiny (the wgmma kernel's
  # raw scores take the key scale's sign in Q and a positive factor).
  python3 "$(dirname "$0")/fp8_scale_signs.py" "$DIR" 2>&1 | tee "$LOGS/fp8-scale-signs.txt" | grep -v "^PASS"
fi

# Side by side with the peers (bench/bench.py), when asked.
# With BENCH_TIMEOUT=S and named cases, each case runs in a process of its
# own under an S-second limit: a kernel that never returns (a deadlock)
# costs its case, not the rest of the device time.
if [ -n "${BENCH+x}" ]; then
  [ "$BENCH" = all ] && BENCH=""
  if [ -n "${BENCH_TIMEOUT:-}" ] && [ -n "$BENCH" ]; then
    : > "$LOGS/bench.log"
    : > "$LOGS/bench.txt"
    for c in $BENCH; do
      mkdir -p "$LOGS/case"
      rm -f "$LOGS/case/bench.txt"
      OUT="$LOGS/case" timeout "$BENCH_TIMEOUT" python3 "$(dirname "$0")/bench.py" "$DIR" "$c" \
        >> "$LOGS/bench.log" 2>&1
      rc=$?
      if [ -f "$LOGS/case/bench.txt" ]; then
        cat "$LOGS/case/bench.txt" >> "$LOGS/bench.txt"
      else
        echo "case $c: bench.py exited $rc (124: over BENCH_TIMEOUT=$BENCH_TIMEOUT s); its lines so far are in bench.log" \
          | tee -a "$LOGS/bench.txt" >> "$LOGS/bench.log"
      fi
    done
    rm -rf "$LOGS/case"
    tail -40 "$LOGS/bench.log"
  else
    OUT="$LOGS" python3 "$(dirname "$0")/bench.py" "$DIR" $BENCH 2>&1 | tee "$LOGS/bench.log" | tail -40
  fi
fi
rm -f "$LOGS"/rc.*
if ls "$LOGS"/run.*.log > /dev/null 2>&1; then
  tar czf "$LOGS/runs.tgz" -C "$LOGS" $(cd "$LOGS" && ls run.*.log) && rm -f "$LOGS"/run.*.log
fi

# Exit status: 1 when a conformance run, a sanitizer check or an extra check
# failed (bench.py's timings do not count), 0 otherwise.
bad=$fail
[ -f "$LOGS/sanitizer.txt" ] && bad=$((bad + $(grep -vc ' PASS$' "$LOGS/sanitizer.txt")))
for x in custom layout softcap-extremes fp8-scale-signs; do
  [ -f "$LOGS/$x.txt" ] && bad=$((bad + $(grep -c '^FAIL' "$LOGS/$x.txt")))
done
echo "gpu-check: $bad failed"
[ "$bad" = 0 ]
