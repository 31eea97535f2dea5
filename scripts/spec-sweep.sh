#!/usr/bin/env bash
# Random-spec sweep: nothing may crash, nothing may be silently wrong.
# Each spec of scripts/random-specs.py SEED COUNT is compiled for sm_90a and
# sm_80 (`attnc compile -o`, through ptxas and the spill ladder when the
# CUDA toolkit is there) and run on the CPU against float64 (`attnc-run
# --device=cpu`). A compile passes when it writes an artifact or refuses the
# spec with an "error: expected ..." message; a run passes on PASS (exit 0)
# or a refusal (exit 2). A crash, a timeout, an internal error (LLVM ERROR,
# an assertion, a verifier failure of the generated IR) or a run that FAILs
# its float64 check fails, with its log.
# Usage: scripts/spec-sweep.sh [SEED] [COUNT] [build dir]; JOBS at a time.
# Prints a line per spec and ends with "N passed, M failed".
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
SEED=${1:-1}
COUNT=${2:-20}
BUILD_DIR=${3:-${BUILD_DIR:-build}}
JOBS=${JOBS:-$(nproc)}
export CUDA_ROOT=${CUDA_ROOT:-/usr/local/cuda}
export ATTNC="$BUILD_DIR/bin/attnc" ATTNC_RUN="$BUILD_DIR/bin/attnc-run"
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
/usr/bin/python3 scripts/random-specs.py "$SEED" "$COUNT" > "$WORK/specs" || exit 1

one() {
  local n=$1 spec=$2 dir="$WORK/$1" verdict="" rc
  mkdir -p "$dir"
  for target in sm_90a sm_80; do
    timeout 300 "$ATTNC" compile --spec "$spec" --target=$target \
      -o "$dir/k.attnc" > "$dir/$target.log" 2>&1
    rc=$?
    if [ $rc -ge 124 ] || grep -qE "LLVM ERROR|Assertion|Stack dump|PLEASE submit|Segmentation|failed to legalize|verification failed|internal error" "$dir/$target.log"; then
      verdict="$verdict compile-$target(exit $rc)"
    elif [ $rc -ne 0 ] && ! grep -q "error: expected" "$dir/$target.log"; then
      verdict="$verdict compile-$target(exit $rc, no 'expected' message)"
    fi
  done
  timeout 300 "$ATTNC_RUN" --spec "$spec" --device=cpu --seed="$n" > "$dir/run.log" 2>&1
  rc=$?
  if [ $rc -ne 0 ] && [ $rc -ne 2 ]; then
    verdict="$verdict cpu-run(exit $rc)"
  fi
  if [ -z "$verdict" ]; then
    echo "PASS: $spec"
  else
    echo "FAIL: $spec:$verdict"
    for log in "$dir"/*.log; do sed "s|^|  $(basename "$log"): |" "$log" | tail -20; done
  fi
}
export -f one
export WORK
nl -ba -w1 -s'|' "$WORK/specs" | tr '\n' '\0' |
  xargs -0 -P "$JOBS" -I{} bash -c 'line="$1"; one "${line%%|*}" "${line#*|}"' _ {} \
  > "$WORK/out"
cat "$WORK/out"
passed=$(grep -c "^PASS:" "$WORK/out")
failed=$(grep -c "^FAIL:" "$WORK/out")
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
