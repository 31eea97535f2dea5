#!/usr/bin/env bash
# Builds the libFuzzer targets of fuzz/ (clang with -fsanitize=fuzzer,
# address,undefined) over the plain C++ parsers and the work planner, runs each for a bounded
# number of inputs from its seed corpus in fuzz/corpus/, and ends with
# "N passed, M failed" (a target fails when it crashes, trips a sanitizer
# or breaks its own round-trip check). FUZZ_RUNS sets the inputs per target
# (default 30000; longer campaigns: FUZZ_RUNS=1000000); skipped, saying so, without clang.
# Usage: scripts/fuzz.sh [OUT_DIR]
set -uo pipefail
cd "$(dirname "$0")/.."
OUT=${1:-build/fuzz}
RUNS=${FUZZ_RUNS:-30000}
CXX=${FUZZ_CXX:-clang++}
if ! command -v "$CXX" >/dev/null 2>&1; then
  echo "fuzz: $CXX not found: fuzz targets skipped"
  echo "0 passed, 0 failed"
  exit 0
fi
mkdir -p "$OUT"
FLAGS="-std=c++17 -O1 -g -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all -Iinclude -I."
declare -A SOURCES=(
  [spec]="fuzz/spec_fuzzer.cpp lib/Spec/Spec.cpp lib/Mask/MaskSemantics.cpp"
  [artifact]="fuzz/artifact_fuzzer.cpp lib/Artifact/Artifact.cpp"
  [npy]="fuzz/npy_fuzzer.cpp lib/Npy/Npy.cpp"
  [plan]="fuzz/plan_fuzzer.cpp lib/Runtime/Plan.cpp"
)
passed=0; failed=0
for name in spec artifact npy plan; do
  bin="$OUT/${name}_fuzzer"
  if ! $CXX $FLAGS ${SOURCES[$name]} -o "$bin" > "$OUT/$name.build.log" 2>&1; then
    echo "FAIL: $name fuzzer did not build:"; tail -20 "$OUT/$name.build.log"
    failed=$((failed + 1)); continue
  fi
  # A scratch copy of the seeds: the fuzzer adds what it finds to it.
  rm -rf "$OUT/corpus-$name"; cp -r "fuzz/corpus/$name" "$OUT/corpus-$name"
  # Inputs that once crashed (fuzz/regressions/) run first, then the corpus.
  if [ -d "fuzz/regressions/$name" ] &&
     ! "$bin" fuzz/regressions/"$name"/* > "$OUT/$name.regressions.log" 2>&1; then
    echo "FAIL: $name fuzzer on a regression input (log: $OUT/$name.regressions.log)"
    failed=$((failed + 1)); continue
  fi
  if "$bin" -runs="$RUNS" -max_len=4096 -seed=1 -artifact_prefix="$OUT/" \
       "$OUT/corpus-$name" \
       > "$OUT/$name.log" 2>&1; then
    echo "PASS: $name fuzzer ($RUNS inputs, $(ls "$OUT/corpus-$name" | wc -l) in the corpus)"
    passed=$((passed + 1))
  else
    echo "FAIL: $name fuzzer (log: $OUT/$name.log):"; grep -E "ERROR|SUMMARY|runtime error|Test unit written" "$OUT/$name.log" | head -10
    failed=$((failed + 1))
  fi
done
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
