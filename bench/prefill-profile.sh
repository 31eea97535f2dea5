#!/usr/bin/env bash
# Runs on the GPU machine: ncu over one launch of each prefill case of
# bench/prefill_profile.py (tensor-pipe utilisation, issue slots, warp
# stall reasons), and the SASS of the cubins in BUILD_GPU_DIR/sass/ (made
# here by ptxas from `attnc compile --emit=ptx`) with per-opcode counts.
# Usage: bench/prefill-profile.sh BUILD_GPU_DIR LOG_DIR [D:S:mask ...]
# PEER=cudnn profiles PyTorch SDPA's cuDNN kernel on the same cases instead
# (prefill_profile.py; KERNEL=regex names the kernels ncu captures, by
# default attnc's, with PEER=cudnn cuDNN's SDPA kernels).
set -uo pipefail
DIR=${1:?build-gpu dir}
LOGS=${2:?log dir}
shift 2
mkdir -p "$LOGS"
cases=("$@")
[ ${#cases[@]} -gt 0 ] || cases=(128:16384:none 128:16384:causal 64:16384:none)
NCU=$(command -v ncu || echo /usr/local/cuda/bin/ncu)
KERNEL=${KERNEL:-$([ "${PEER:-}" = cudnn ] && echo 'sdpa|fmha|fprop|flash' || echo attnc)}
for c in "${cases[@]}"; do
  rep="$LOGS/ncu.${c//:/_}"
  "$NCU" --target-processes all --kernel-name "regex:$KERNEL" --launch-skip 1 --launch-count 1 \
    --section LaunchStats --section SpeedOfLight --section ComputeWorkloadAnalysis --section WarpStateStats \
    --section SchedulerStats --section InstructionStats --section Occupancy \
    --section SourceCounters --import-source no \
    --metrics sm__pipe_tensor_op_gmma_cycles_active.avg.pct_of_peak_sustained_active,sm__inst_executed_pipe_xu.avg.pct_of_peak_sustained_active,smsp__inst_executed.sum \
    -o "$rep" -f python3 "$(dirname "$0")/prefill_profile.py" "$DIR" "$c" > "$rep.log" 2>&1
  "$NCU" -i "$rep.ncu-rep" --print-units base > "$rep.txt" 2>&1
  # Per SASS instruction: executed count and warp stall samples.
  "$NCU" -i "$rep.ncu-rep" --page source --csv --print-source sass > "$rep.sass.csv" 2>&1
  rm -f "$rep.ncu-rep"
done
DUMP=$(command -v cuobjdump || echo /usr/local/cuda/bin/cuobjdump)
for f in "$DIR"/sass/*.cubin; do
  [ -f "$f" ] || continue
  n=$(basename "$f" .cubin)
  "$DUMP" -sass "$f" > "$LOGS/sass.$n.txt" 2>&1
  grep -oE '^\s+/\*[0-9a-f]+\*/\s+(@!?U?P[0-9T]+\s+)?[A-Z][A-Z0-9_.]*' "$LOGS/sass.$n.txt" \
    | awk '{print $NF}' | sort | uniq -c | sort -rn > "$LOGS/sass-ops.$n.txt"
done
# One archive (the device tool brings back a limited number of files).
tar czf "$LOGS.tgz" -C "$(dirname "$LOGS")" "$(basename "$LOGS")" && rm -rf "$LOGS"
