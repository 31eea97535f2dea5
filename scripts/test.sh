#!/usr/bin/env bash
# Sets up, builds and runs every attnc test: lit/FileCheck tests (dialect,
# passes, pipelines, CPU execution), the GoogleTest unit tests, and the CPU
# sweep of test/Execution/cpu-sweep.specs against float64, and the PTX check
# of bench/conformance.list (ptxas for sm_80 and sm_90a, no spills, no
# short-sequence kernel left out on sm_90a; skipped
# without the CUDA toolkit) and of bench/bench.list (its standard
# configurations also not rebuilt smaller by the spill ladder), docs/kernels.md
# against the kernels the compiler chooses (bench/kernel_table.py --check),
# examples/embed built against an installed attnc,
# the unit tests again under ASan + UBSan, an IR
# mutation smoke run over attnc-opt, the libFuzzer targets of fuzz/
# (bounded), and a random-spec sweep (scripts/spec-sweep.sh: random specs
# compiled for sm_90a and sm_80 and run on the CPU against float64).
# Ends with
# the line "N passed, M failed" counting every test of every kind; exits
# non-zero when any test fails.
set -uo pipefail
cd "$(dirname "$0")/.."
ROOT=$(pwd)
BUILD_DIR=${BUILD_DIR:-build}

scripts/setup.sh || exit 1
scripts/build.sh || { echo "test: build failed"; echo "0 passed, 1 failed"; exit 1; }

export CUDA_ROOT=${CUDA_ROOT:-/usr/local/cuda}
RESULTS=$(mktemp -d)
trap 'rm -rf "$RESULTS"' EXIT

echo "== lit tests"
/usr/lib/llvm-22/bin/lit -sv --output "$RESULTS/lit.json" "$BUILD_DIR/test"

echo "== unit tests"
"$BUILD_DIR/bin/attnc-unit-tests" --gtest_brief=1 \
  --gtest_output="json:$RESULTS/unit.json"

echo "== CPU sweep against float64"
scripts/cpu-sweep.sh test/Execution/cpu-sweep.specs "$BUILD_DIR" | tee "$RESULTS/sweep.txt" | grep -v "^PASS"

echo "== PTX check: ptxas for sm_80 and sm_90a"
scripts/ptx-check.sh bench/conformance.list "$BUILD_DIR" | tee "$RESULTS/ptx.txt" | grep -v "^PASS"

echo "== PTX check of the standard configurations (bench/bench.list): none may spill, none rebuilt smaller"
scripts/ptx-check.sh bench/bench.list "$BUILD_DIR" | tee "$RESULTS/ptx-bench.txt" | grep -v "^PASS"

echo "== docs/kernels.md is what the compiler chooses (bench/kernel_table.py)"
if [ -x "$CUDA_ROOT/bin/ptxas" ]; then
  if /usr/bin/python3 bench/kernel_table.py "$BUILD_DIR" --check docs/kernels.md; then
    echo "1 passed, 0 failed"
  else
    echo "0 passed, 1 failed"
  fi
else
  echo "kernel table: no CUDA toolkit at $CUDA_ROOT: skipped"
  echo "0 passed, 0 failed"
fi | tee "$RESULTS/kernels.txt" | grep -v "^PASS"

echo "== examples/embed against an installed attnc (find_package(attnc))"
scripts/embed-check.sh "$BUILD_DIR" | tee "$RESULTS/embed.txt" | grep -v "^PASS"

echo "== unit tests under ASan + UBSan"
scripts/sanitize-unit.sh "$BUILD_DIR" | tee "$RESULTS/sanitize.txt" | grep -v "^PASS"

echo "== IR mutation smoke run: attnc-opt and the passes on mutated attn IR"
/usr/bin/python3 scripts/ir-mutate.py "$BUILD_DIR" --mutants 100 | tee "$RESULTS/mutate.txt" | grep -E "^(PASS|FAIL)"

echo "== fuzz targets (libFuzzer, bounded): spec parser, artifact reader, .npy reader, work planner"
scripts/fuzz.sh "$BUILD_DIR/fuzz" | tee "$RESULTS/fuzz.txt"

echo "== random-spec sweep: compiled for sm_90a and sm_80, run on the CPU against float64"
scripts/spec-sweep.sh "${SPEC_SWEEP_SEED:-1}" "${SPEC_SWEEP_COUNT:-16}" "$BUILD_DIR" |
  tee "$RESULTS/spec-sweep.txt" | grep -v "^PASS"

echo "== tile geometry (bench/tile_geometry.py): visible pairs over computed ones against closed forms"
/usr/bin/python3 bench/tile_geometry.py --check | tee "$RESULTS/geometry.txt" | grep -v "^PASS"

echo "== the Python scripts the GPU machine runs compile (bench/, python/attnc/, scripts/)"
# They import torch and run only there: a syntax error would cost a device run.
/usr/bin/python3 - bench/*.py python/attnc/*.py scripts/*.py <<'PY' |
import sys
bad = 0
for path in sys.argv[1:]:
    try:
        compile(open(path).read(), path, "exec")
    except SyntaxError as e:
        bad += 1
        print(f"FAIL: {path}: {type(e).__name__}: {e}")
print(f"{len(sys.argv) - 1 - bad} passed, {bad} failed")
PY
  tee "$RESULTS/pycompile.txt" | grep -v "^PASS"

/usr/bin/python3 - "$RESULTS" <<'PY'
import json, os, re, sys
d = sys.argv[1]
passed = failed = 0
lit = os.path.join(d, "lit.json")
if os.path.exists(lit):
    for t in json.load(open(lit))["tests"]:
        code = t["code"]
        if code in ("PASS", "XFAIL"):
            passed += 1
        elif code in ("UNSUPPORTED",):
            pass  # skipped, reported by lit above
        else:
            failed += 1
else:
    failed += 1
unit = os.path.join(d, "unit.json")
if os.path.exists(unit):
    for suite in json.load(open(unit))["testsuites"]:
        for t in suite["testsuite"]:
            if t.get("failures"):
                failed += 1
            elif t.get("result") == "COMPLETED" and t.get("status") == "RUN":
                passed += 1
else:
    failed += 1
for name in ("sweep.txt", "ptx.txt", "ptx-bench.txt", "kernels.txt", "embed.txt", "sanitize.txt", "mutate.txt", "fuzz.txt", "spec-sweep.txt",
             "geometry.txt", "pycompile.txt"):
    lines = open(os.path.join(d, name)).read().strip().splitlines()
    m = re.fullmatch(r"(\d+) passed, (\d+) failed", lines[-1] if lines else "")
    if m:
        passed += int(m.group(1))
        failed += int(m.group(2))
    else:
        failed += 1
print(f"{passed} passed, {failed} failed")
sys.exit(1 if failed else 0)
PY
