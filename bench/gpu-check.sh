#!/usr/bin/env bash
# Runs on the GPU machine over build-gpu/ (scripts/build-gpu-artifacts.sh):
# the conformance sweep of conformance.list against the float64 reference
# (output poisoned before each run), then, with BENCH="D:S:mask ..." (or
# BENCH=all), bench/bench.py side by side with the peers.
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
  IFS=';' read -ra list <<< "$runs"
  for r in "${list[@]}"; do
    i=$((i + 1))
    printf '%s\t%s\t%s\n' "$i" "$name" "$(echo "$r" | xargs)" >> "$jobs"
  done
done < "$DIR/conformance.list"

run_job() {
  IFS=$'\t' read -r n name spec <<< "$1"
  "$RUN" --artifact="$DIR/artifacts/$name.attnc" --spec="$spec" --seed="$n" \
    > "$LOGS/run.$n.log" 2>&1
  echo "$? $name | $spec" > "$LOGS/rc.$n"
}
export -f run_job
export RUN DIR LOGS
tr '\n' '\0' < "$jobs" | xargs -0 -P "${JOBS:-12}" -I{} bash -c 'run_job "$@"' _ {}

pass=0; fail=0
: > "$LOGS/conformance.txt"
for f in $(ls "$LOGS"/rc.* | sort -t. -k2 -n); do
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

# Side by side with the peers (bench/bench.py), when asked.
if [ -n "${BENCH+x}" ]; then
  [ "$BENCH" = all ] && BENCH=""
  OUT="$LOGS" python3 "$(dirname "$0")/bench.py" "$DIR" $BENCH 2>&1 | tail -40
fi
rm -f "$LOGS"/rc.* 
tar czf "$LOGS/runs.tgz" -C "$LOGS" $(cd "$LOGS" && ls run.*.log) 2>/dev/null && rm -f "$LOGS"/run.*.log
