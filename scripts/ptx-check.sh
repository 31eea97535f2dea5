#!/usr/bin/env bash
# Compiles the compile spec of every artifact of bench/conformance.list
# (lines "name | compile spec | run specs") to PTX for sm_80 and sm_90a with
# attnc, assembles it with ptxas -v, and checks that ptxas succeeds without
# register spills and, for the wgmma kernels, without serialising their
# warpgroup MMAs or ignoring their setmaxnreg (info C7507-C7519). Configurations with a head dim of 256 or d + dv > 256 may
# spill: their spill bytes are reported in a note and do not fail. An fp8
# cache (kv_dtype=fp8) must be refused for sm_80 with the target's message
# (it has no e4m3 conversion); that refusal passes. attnc rebuilds a
# kernel that spills on a smaller configuration (its spill ladder, each
# rung a remark): a line whose name starts with bench_ (bench/bench.list,
# the standard configurations of the performance table) fails when that
# happens on sm_90a, since the kernel timed would not be the one chosen;
# other lines pass with a note naming the configuration that spilled.
# For sm_90a each spec is also compiled to an artifact, which assembles the
# target's short-sequence kernels (and theirs, nested): a short kernel the
# target chose but left out, because ptxas spilled or serialised it or
# failed on it (attnc's remark "no short-sequence kernel with ..."), fails,
# since its sequences would silently run the slower kernel beside it.
# Prints one
# line per (artifact, target) and ends with "N passed, M failed"; exits
# non-zero when one fails. Without $CUDA_ROOT/bin/ptxas it skips everything.
# With PTX_SNAPSHOT=DIR it also keeps each kernel's PTX and attnc's remarks
# as DIR/<target>/<name>.ptx and .remark, so that a change meant to leave
# the kernels alone (a refactor of the kernel builder) can be checked:
# a snapshot before and one after, then `diff -r` (no output: identical).
# Usage: scripts/ptx-check.sh [conformance list] [build dir]
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
LIST=${1:-bench/conformance.list}
BUILD_DIR=${2:-${BUILD_DIR:-build}}
export CUDA_ROOT=${CUDA_ROOT:-/usr/local/cuda}
ATTNC="$BUILD_DIR/bin/attnc"
PTXAS="$CUDA_ROOT/bin/ptxas"
TARGETS="sm_80 sm_90a"
JOBS=${JOBS:-$(nproc)}

if [ ! -x "$PTXAS" ]; then
  echo "ptx-check: no CUDA toolkit at $CUDA_ROOT: skipped"
  echo "0 passed, 0 failed"
  exit 0
fi

LOGS=$(mktemp -d)
trap 'rm -rf "$LOGS"' EXIT

trim() {
  local s=$1
  s=${s#"${s%%[![:space:]]*}"}
  printf '%s' "${s%"${s##*[![:space:]]}"}"
}

# One job per (artifact, target): $LOGS/<n>.{name,spec,target}.
n=0
while IFS= read -r line; do
  case "$line" in ''|'#'*) continue ;; esac
  IFS='|' read -r name spec _ <<< "$line"
  name=$(trim "$name")
  spec=$(trim "$spec")
  for t in $TARGETS; do
    n=$((n + 1))
    printf '%s\n' "$name" > "$LOGS/$n.name"
    printf '%s\n' "$spec" > "$LOGS/$n.spec"
    printf '%s\n' "$t" > "$LOGS/$n.target"
  done
done < "$LIST"

run_job() {
  local j=$1 spec t
  spec=$(cat "$LOGS/$j.spec")
  t=$(cat "$LOGS/$j.target")
  if [ "$t" = sm_80 ] && [[ " $spec " == *" kv_dtype=fp8 "* ]]; then
    if "$ATTNC" compile --spec "$spec" --target="$t" --emit=ptx \
         -o "$LOGS/$j.ptx" > "$LOGS/$j.log" 2>&1; then
      echo accepted > "$LOGS/$j.rc"
    elif grep -q "needs the e4m3 conversions of sm_89 and later" "$LOGS/$j.log"; then
      echo refused > "$LOGS/$j.rc"
    else
      echo compile > "$LOGS/$j.rc"
    fi
    return
  fi
  if ! "$ATTNC" compile --spec "$spec" --target="$t" --emit=ptx \
         -o "$LOGS/$j.ptx" > "$LOGS/$j.log" 2>&1; then
    echo compile > "$LOGS/$j.rc"
    return
  fi
  if [ -n "${PTX_SNAPSHOT:-}" ]; then
    mkdir -p "$PTX_SNAPSHOT/$t"
    cp "$LOGS/$j.ptx" "$PTX_SNAPSHOT/$t/$(cat "$LOGS/$j.name").ptx"
    cp "$LOGS/$j.log" "$PTX_SNAPSHOT/$t/$(cat "$LOGS/$j.name").remark"
  fi
  # The spill ladder's remarks: each configuration that spilled.
  grep -oE "(the kernel spills registers|ptxas has too few registers for the kernel) with #attn.gpu_kernel<[^>]*>" \
    "$LOGS/$j.log" > "$LOGS/$j.ladder"
  "$PTXAS" -arch="$t" -v "$LOGS/$j.ptx" -o "$LOGS/$j.cubin" \
    > "$LOGS/$j.log" 2>&1
  echo $? > "$LOGS/$j.rc"
  # The artifact, with its short-sequence kernels (sm_90a's).
  if [ "$t" = sm_90a ]; then
    if ! "$ATTNC" compile --spec "$spec" --target="$t" \
         -o "$LOGS/$j.attnc" > "$LOGS/$j.art" 2>&1; then
      echo failed > "$LOGS/$j.artfail"
    fi
    grep -oE "no short-sequence kernel with .*" \
      "$LOGS/$j.art" > "$LOGS/$j.shortdrop"
    grep -a -c "^short_kernel_max_seq" "$LOGS/$j.attnc" > "$LOGS/$j.shorts" 2>/dev/null
  fi
}
export -f run_job
export ATTNC PTXAS LOGS PTX_SNAPSHOT
seq 1 "$n" | xargs -r -P "$JOBS" -I{} bash -c 'run_job {}'

# The value of key `key` (d, dv) in a spec; dv defaults to d.
spec_value() {
  local spec=$1 key=$2 word
  for word in $spec; do
    [ "${word%%=*}" = "$key" ] && { echo "${word#*=}"; return; }
  done
}

passed=0
failed=0
for j in $(seq 1 "$n"); do
  name=$(cat "$LOGS/$j.name")
  spec=$(cat "$LOGS/$j.spec")
  t=$(cat "$LOGS/$j.target")
  rc=$(cat "$LOGS/$j.rc" 2>/dev/null || echo missing)
  log="$LOGS/$j.log"
  if [ "$rc" = refused ]; then
    passed=$((passed + 1))
    echo "PASS: $name $t (refused: an fp8 cache needs sm_89 or later)"
    continue
  fi
  if [ "$rc" = accepted ]; then
    failed=$((failed + 1))
    echo "FAIL: $name $t (an fp8 cache compiled for sm_80, which has no e4m3 conversion)"
    continue
  fi
  if [ "$rc" = compile ]; then
    failed=$((failed + 1))
    echo "FAIL: $name $t (attnc compile failed: $spec)"
    # A failing lowering prints the whole module: show its start only.
    head -n 40 "$log" | sed 's/^/    /'
    lines=$(wc -l < "$log")
    [ "$lines" -gt 40 ] && echo "    ... ($((lines - 40)) more lines)"
    continue
  fi
  if [ "$rc" != 0 ]; then
    failed=$((failed + 1))
    echo "FAIL: $name $t (ptxas exit $rc)"
    sed 's/^/    /' "$log"
    continue
  fi
  regs=$(sed -n 's/.*Used \([0-9]*\) registers.*/\1/p' "$log" | head -1)
  stores=$(sed -n 's/.* \([0-9]*\) bytes spill stores.*/\1/p' "$log" | head -1)
  loads=$(sed -n 's/.* \([0-9]*\) bytes spill loads.*/\1/p' "$log" | head -1)
  if [ -z "$regs" ] || [ -z "$stores" ] || [ -z "$loads" ]; then
    failed=$((failed + 1))
    echo "FAIL: $name $t (no register or spill report from ptxas -v)"
    sed 's/^/    /' "$log"
    continue
  fi
  # ptxas serialising the warpgroup MMAs (C7511-C7519) or ignoring a
  # setmaxnreg (C7507, C7508) fails on any head dim.
  if grep -qE "C75(0[0-9]|1[0-9])" "$log"; then
    failed=$((failed + 1))
    echo "FAIL: $name $t (ptxas serialises wgmma or ignores setmaxnreg)"
    grep -E "C75(0[0-9]|1[0-9])" "$log" | sed 's/^/    /'
    continue
  fi
  if [ -s "$LOGS/$j.artfail" ]; then
    failed=$((failed + 1))
    echo "FAIL: $name $t (attnc compile to an artifact failed: $spec)"
    head -n 40 "$LOGS/$j.art" | sed 's/^/    /'
    continue
  fi
  if [ -s "$LOGS/$j.shortdrop" ]; then
    failed=$((failed + 1))
    echo "FAIL: $name $t (a short-sequence kernel the target chose was left out)"
    sed 's/^/    /' "$LOGS/$j.shortdrop"
    continue
  fi
  shorts=$(cat "$LOGS/$j.shorts" 2>/dev/null || echo 0)
  with_short=""
  [ "${shorts:-0}" -gt 0 ] && with_short=", $shorts short-sequence kernel(s) beside it"
  # A configuration that spilled and was rebuilt smaller.
  if [ -s "$LOGS/$j.ladder" ] && [ "$t" = sm_90a ] && [[ "$name" == bench_* ]]; then
    failed=$((failed + 1))
    echo "FAIL: $name $t (a standard configuration: the chosen kernel spilled and was rebuilt smaller)"
    sed 's/^/    /' "$LOGS/$j.ladder"
    continue
  fi
  d=$(spec_value "$spec" d)
  dv=$(spec_value "$spec" dv)
  dv=${dv:-$d}
  may_spill=0
  if [ "${d:-0}" -ge 256 ] || [ "${dv:-0}" -ge 256 ] ||
     [ $(( ${d:-0} + ${dv:-0} )) -gt 256 ]; then
    may_spill=1
  fi
  if [ "$stores" = 0 ] && [ "$loads" = 0 ]; then
    passed=$((passed + 1))
    echo "PASS: $name $t ($regs registers$with_short)"
  elif [ "$may_spill" = 1 ]; then
    passed=$((passed + 1))
    echo "PASS: $name $t ($regs registers, $stores bytes spill stores, $loads bytes spill loads)"
    echo "note: $name $t (d=$d dv=$dv) spills $stores bytes of stores and $loads bytes of loads (allowed for head dim 256 or d + dv > 256)"
  else
    failed=$((failed + 1))
    echo "FAIL: $name $t ($regs registers, $stores bytes spill stores, $loads bytes spill loads)"
    sed 's/^/    /' "$log"
    continue
  fi
  # The configurations that spilled before the one kept.
  [ -s "$LOGS/$j.ladder" ] && sed "s/^/note: $name $t: /" "$LOGS/$j.ladder"
  # ptxas warnings do not fail the check, but are worth seeing.
  grep -i "warning" "$log" | sed "s/^/note: $name $t: /"
done
echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
