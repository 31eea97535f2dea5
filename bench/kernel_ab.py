#!/usr/bin/env python3
"""Times attnc builds against each other alone: one process, the same tensors,
each build's artifact timed in turn (no peers between them), ROUNDS rounds
(default 6) with the order rotated each round, each build writing its own
output, after checking every output against float64 on two heads.

Runs on the GPU machine:
  python3 bench/kernel_ab.py D:S:mask BUILD_DIR [BUILD_DIR ...]
mask: none or causal; the standard shapes of bench/bench.py (bf16, B*S = 16384
tokens, H = 2048/D); each BUILD_DIR holds artifacts/bench_d{D}_{mask}.attnc
(scripts/build-gpu-artifacts.sh or bench/make_variants.py).

Why: bench.py times attnc beside its peers, and a kernel's place in that
rotation moved it by 3% in the forty-eighth session (bench/RESULTS.md, runs
1-2), while neither the kernel object nor its output buffer did (run 3).
"""
import os
import sys

import torch
from triton.testing import do_bench

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python"))
import attnc  # noqa: E402


def main():
    case, builds = sys.argv[1], sys.argv[2:]
    D, S, mask = case.split(":")
    D, S = int(D), int(S)
    if mask not in ("none", "causal") or not builds:
        sys.exit(__doc__)
    B, H = max(1, 16384 // S), 2048 // D
    torch.manual_seed(0)
    q, k, v = (torch.randn(B, H, S, D, device="cuda", dtype=torch.bfloat16) for _ in range(3))
    pairs = S * (S + 1) // 2 if mask == "causal" else S * S
    flops = 4 * B * H * D * pairs
    kerns, outs = {}, {}
    for b in builds:
        kerns[b] = attnc.Kernel(os.path.join(b, "artifacts", f"bench_d{D}_{mask}.attnc"))
        lse = None
        if kerns[b].manifest.get("reads_lse") == "1":
            lse = torch.empty(B, H, S, device="cuda", dtype=torch.float32)
        outs[b] = (torch.empty(B, H, S, D, device="cuda", dtype=torch.bfloat16), lse)
    hidden = torch.ones(S, S, dtype=torch.bool, device="cuda").triu(1)
    for bi, hi in ((0, 0), (B - 1, H - 1)):
        qq, kk, vv = (t[bi, hi].double() for t in (q, k, v))
        scores = qq @ kk.T / D ** 0.5
        if mask == "causal":
            scores = scores.masked_fill(hidden, float("-inf"))
        want = torch.softmax(scores, -1) @ vv
        for b in builds:
            o = kerns[b](q, k, v, out=outs[b][0], lse=outs[b][1])[0]
            err = ((o[bi, hi].double() - want).norm() / want.norm()).item()
            if not err < 1e-2:
                sys.exit(f"{b}: head ({bi}, {hi}) rel. error {err:.2e} against float64")
    print(f"{case} B={B} H={H}: every output checked against float64 on two heads")
    rounds = int(os.environ.get("ROUNDS", "6"))
    times = {b: [] for b in builds}
    for r in range(rounds):
        start = r % len(builds)
        for b in builds[start:] + builds[:start]:
            times[b].append(do_bench(lambda b=b: kerns[b](q, k, v, out=outs[b][0], lse=outs[b][1]),
                                     warmup=50, rep=300, return_mode="median"))
    for b in builds:
        ms = sorted(times[b])[len(times[b]) // 2]
        print(f"{case} {b:30s} {flops / ms / 1e9:7.1f} TFLOP/s (median) rounds "
              + " ".join(f"{flops / t / 1e9:.1f}" for t in times[b]), flush=True)


if __name__ == "__main__":
    main()
