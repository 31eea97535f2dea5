#!/usr/bin/env bash
# Writes the PTX and the compiler's remarks of every configuration of
# bench/conformance.list and bench/bench.list into OUTDIR/<target>/<name>.ptx
# and .remark (sm_90a for all, sm_80 for those without an fp8 cache), so
# that a change meant to leave the kernels alone (a refactor of the kernel
# builder) can be checked: snapshot before and after, then
# `diff -r BEFORE AFTER` (no output: byte-identical kernels and remarks).
# Usage: scripts/ptx-snapshot.sh OUTDIR [build dir]; JOBS at a time.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
OUT=${1:?usage: scripts/ptx-snapshot.sh OUTDIR [build dir]}
BUILD_DIR=${2:-${BUILD_DIR:-build}}
JOBS=${JOBS:-$(nproc)}
export CUDA_ROOT=${CUDA_ROOT:-/usr/local/cuda}
export ATTNC="$BUILD_DIR/bin/attnc" OUT
mkdir -p "$OUT/sm_90a" "$OUT/sm_80"
cat bench/conformance.list bench/bench.list | grep -v '^ *#' | grep '|' |
  while IFS='|' read -r name spec _; do
    name=$(echo "$name" | xargs)
    spec=$(echo "$spec" | xargs)
    echo "sm_90a|$name|$spec"
    case " $spec " in *" kv_dtype=fp8 "*) ;; *) echo "sm_80|$name|$spec" ;; esac
  done > "$OUT/jobs.txt"
one() {
  IFS='|' read -r target name spec <<< "$1"
  "$ATTNC" compile --spec "$spec" --target="$target" --emit=ptx \
    -o "$OUT/$target/$name.ptx" 2> "$OUT/$target/$name.remark"
  echo "rc=$?" >> "$OUT/$target/$name.remark"
}
export -f one
tr '\n' '\0' < "$OUT/jobs.txt" | xargs -0 -P "$JOBS" -I{} bash -c 'one "$1"' _ {}
echo "ptx-snapshot: $(wc -l < "$OUT/jobs.txt") kernels in $OUT"
