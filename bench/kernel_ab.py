#!/usr/bin/env python3
"""Times attnc builds against each other alone: one process, the same tensors,
each build's artifact timed in turn (no peers between them), ROUNDS rounds
(default 6) with the order rotated each round, each build writing its own
output, after checking every output against float64 as bench.py does (batch
0, the first and last heads, within 1.25x the error of a naive bf16 one).

Runs on the GPU machine:
  python3 bench/kernel_ab.py D:S:mask[:B] BUILD_DIR [BUILD_DIR ...]
The cases, masks and shapes of bench/bench.py (none, causal, window, document,
document_nc, prefix, softcap, blocksparse; B*S = 16384 tokens unless B is given, H =
2048/D); each BUILD_DIR holds artifacts/bench_d{D}_{mask}.attnc
(scripts/build-gpu-artifacts.sh or bench/make_variants.py).

Why: bench.py times attnc beside its peers, and a kernel's place in that
rotation moved it by 3% in the forty-eighth session (bench/RESULTS.md, runs
1-2), while neither the kernel object nor its output buffer did (run 3).
"""
import os
import sys

import torch
from triton.testing import do_bench

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import bench  # noqa: E402  (its masks, shapes and reference; bench.py imports attnc)


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    fields, builds = sys.argv[1].split(":"), sys.argv[2:]
    D, S, mask = int(fields[0]), int(fields[1]), fields[2]
    c = bench.Case(D, S, mask, int(fields[3]) if len(fields) > 3 else None)
    q, k, v, heads, extra, case = c.q, c.k, c.v, c.heads, c.extra, c.name
    bar = 1.25 * c.naive_err + 1e-6
    calls = {}
    for b in builds:
        kern = bench.attnc.Kernel(os.path.join(b, "artifacts", f"bench_d{D}_{mask}.attnc"))
        out = torch.empty(c.B, c.H, S, D, device=bench.DEV, dtype=torch.bfloat16)
        lse = None
        if kern.manifest.get("reads_lse") == "1":
            lse = torch.empty(c.B, c.H, S, device=bench.DEV, dtype=torch.float32)
        calls[b] = lambda kern=kern, out=out, lse=lse: kern(q, k, v, out=out, lse=lse, **extra)
        err = bench.rel(calls[b]()[0][0, heads], c.ref)
        if not err <= bar:
            sys.exit(f"{case} {b}: CHECK FAILED err={err:.2e} (bar {bar:.2e})")
        print(f"{case} {b}: err={err:.2e} against float64 (bar {bar:.2e})", flush=True)
    rounds = int(os.environ.get("ROUNDS", "6"))
    times = {b: [] for b in builds}
    for r in range(rounds):
        start = r % len(builds)
        for b in builds[start:] + builds[:start]:
            times[b].append(do_bench(calls[b], warmup=50, rep=300, return_mode="median"))
    for b in builds:
        ms = sorted(times[b])[len(times[b]) // 2]
        print(f"{case} {b:30s} {c.flops / ms / 1e9:7.1f} TFLOP/s (median) rounds "
              + " ".join(f"{c.flops / t / 1e9:.1f}" for t in times[b]), flush=True)


if __name__ == "__main__":
    main()
