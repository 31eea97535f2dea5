#!/usr/bin/env bash
# Runs every case of test/Execution/cpu-sweep.specs through attnc-run on the
# CPU against the float64 reference, two at a time. Prints one line per case
# and ends with "N passed, M failed"; exits non-zero when a case fails.
# Usage: scripts/cpu-sweep.sh [specs file] [build dir]
set -uo pipefail
cd "$(dirname "$0")/.."
SPECS=${1:-test/Execution/cpu-sweep.specs}
BUILD_DIR=${2:-${BUILD_DIR:-build}}
RUN="$BUILD_DIR/bin/attnc-run"
JOBS=${JOBS:-$(nproc)}
LOGS=$(mktemp -d)
trap 'rm -rf "$LOGS"' EXIT

i=0
while IFS= read -r line; do
  case "$line" in ''|'#'*) continue ;; esac
  i=$((i + 1))
  spec=${line%%;*}
  flags=""
  [[ "$line" == *";"* ]] && flags=${line#*;}
  printf '%s\n' "$spec" > "$LOGS/$i.spec"
  printf '%s\n' "$flags" > "$LOGS/$i.flags"
done < "$SPECS"

run_case() {
  local n=$1 spec flags
  spec=$(cat "$LOGS/$n.spec")
  flags=$(cat "$LOGS/$n.flags")
  # shellcheck disable=SC2086
  "$RUN" --spec="$spec" --device=cpu --seed="$n" $flags > "$LOGS/$n.out" 2>&1
  echo $? > "$LOGS/$n.rc"
}
export -f run_case
export RUN LOGS
seq 1 "$i" | xargs -P "$JOBS" -I{} bash -c 'run_case {}'

passed=0
failed=0
for n in $(seq 1 "$i"); do
  rc=$(cat "$LOGS/$n.rc" 2>/dev/null || echo 99)
  spec=$(cat "$LOGS/$n.spec")
  flags=$(cat "$LOGS/$n.flags")
  err=$(grep -o "rel Frobenius error [0-9.e+-]*" "$LOGS/$n.out" | head -1)
  if [ "$rc" = 0 ]; then
    passed=$((passed + 1))
    echo "PASS: $spec$flags ($err)"
  else
    failed=$((failed + 1))
    echo "FAIL: $spec$flags (exit $rc)"
    sed 's/^/    /' "$LOGS/$n.out"
  fi
done
echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
