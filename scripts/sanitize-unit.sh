#!/usr/bin/env bash
# Builds the GoogleTest unit tests (plain C++: masks, specs, the reference,
# .npy, artifacts, the runtime) with clang's AddressSanitizer (leaks
# included) and UndefinedBehaviorSanitizer, every report fatal, runs them,
# and ends with "N passed, M failed" (one test: the whole sanitized run).
# Skipped, saying so, without clang. Usage: scripts/sanitize-unit.sh BUILD_DIR
set -uo pipefail
cd "$(dirname "$0")/.."
BUILD_DIR=${1:-build}
OUT="$BUILD_DIR/sanitize"
CXX=${SANITIZE_CXX:-clang++}
if ! command -v "$CXX" >/dev/null 2>&1; then
  echo "sanitize: $CXX not found: the sanitizer build of the unit tests is skipped"
  echo "0 passed, 0 failed"
  exit 0
fi
mkdir -p "$OUT"
# RuntimeTest runs the (normally built) attnrt-run for its exit codes.
if ! $CXX -std=c++17 -O1 -g -fno-omit-frame-pointer \
    -fsanitize=address,undefined -fno-sanitize-recover=all \
    -Iinclude -I. -DATTNRT_RUN_PATH="\"$PWD/$BUILD_DIR/bin/attnrt-run\"" \
    test/Unit/*.cpp lib/Mask/MaskSemantics.cpp lib/Spec/Spec.cpp \
    lib/Reference/*.cpp lib/Npy/*.cpp lib/Artifact/Artifact.cpp \
    lib/Runtime/attnrt.cpp lib/Runtime/Plan.cpp lib/Runtime/CudaDriver.cpp \
    lib/Runtime/DeviceRun.cpp \
    -lgtest -lgtest_main -lpthread -ldl -o "$OUT/unit-tests" \
    > "$OUT/build.log" 2>&1; then
  echo "FAIL: the sanitizer build of the unit tests did not build:"
  tail -20 "$OUT/build.log"
  echo "0 passed, 1 failed"
  exit 1
fi
if "$OUT/unit-tests" --gtest_brief=1 > "$OUT/run.log" 2>&1; then
  echo "PASS: unit tests under ASan + UBSan ($(grep -o '[0-9]* tests from' "$OUT/run.log" | head -1 | cut -d' ' -f1) tests)"
  echo "1 passed, 0 failed"
else
  echo "FAIL: unit tests under ASan + UBSan (log: $OUT/run.log):"
  grep -E "ERROR|runtime error|SUMMARY|FAILED" "$OUT/run.log" | head -10
  echo "0 passed, 1 failed"
  exit 1
fi
