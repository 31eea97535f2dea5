"""A decode call with a work list, captured once in a CUDA graph and
replayed with new KV lengths: the lengths tensor and the work list
(WorkList.update, into the same device buffer) change between replays,
nothing else is captured again.

Runs on the GPU machine: python3 bench/plan_graph_check.py BUILD_GPU_DIR
(artifact bench_decode_d128_kvlens: Hq=32, Hkv=8, D=128, bf16, one query
token per sequence, a contiguous cache [B, Hkv, Sk, D] with kv_lens). Each
replay's output is checked, on (batch, head) pairs including the longest and
the shortest sequence, against a float64 reference over each sequence's own
keys (within 1.25x the error of a naive bf16 implementation) and against an
eager call without a plan. Prints PASS or FAIL per replay; exits 1 on a
failure.
"""
import math
import os
import random
import sys

import torch

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python"))
import attnc  # noqa: E402
from plan_decode import D, HKV, HQ, reference  # noqa: E402  (the same shapes)

DEV = "cuda"
B, CAPACITY = 16, 16384


def main():
    kern = attnc.Kernel(os.path.join(sys.argv[1], "artifacts", "bench_decode_d128_kvlens.attnc"))
    rng = random.Random(7)
    rounds = [("random", [rng.randint(1, CAPACITY) for _ in range(B)]),
              ("one long among short", [CAPACITY] + [rng.randint(1, 300) for _ in range(B - 1)]),
              ("equal", [4096] * B),
              ("random again", [rng.randint(1, CAPACITY) for _ in range(B)])]
    torch.manual_seed(0)
    q = torch.randn(B, HQ, 1, D, device=DEV, dtype=torch.bfloat16)
    k = torch.randn(B, HKV, CAPACITY, D, device=DEV, dtype=torch.bfloat16)
    v = torch.randn(B, HKV, CAPACITY, D, device=DEV, dtype=torch.bfloat16)
    kv_lens = torch.tensor(rounds[0][1], device=DEV, dtype=torch.int32)
    # A bound on the items of every round's plan: the launches (grid and
    # scratch) are captured for it.
    work = kern.plan([1] * B, rounds[0][1], max_items=4 * B * HKV * 8)
    # Outside the capture first: the module loads, the scratch is made.
    kern(q, k, v, kv_lens=kv_lens, plan=work)
    torch.cuda.synchronize()
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        out = kern(q, k, v, kv_lens=kv_lens, plan=work)[0]
    failed = 0
    for name, lens in rounds:
        q.copy_(torch.randn_like(q))
        kv_lens.copy_(torch.tensor(lens, dtype=torch.int32))
        work.update([1] * B, lens)
        graph.replay()
        torch.cuda.synchronize()
        longest = max(range(B), key=lambda b: lens[b])
        shortest = min(range(B), key=lambda b: lens[b])
        pairs = sorted({(longest, 0), (longest, HQ - 1), (shortest, 3), (B // 2, 17)})
        ref, naive = reference(q, k, v, lens, pairs)
        bar = 1.25 * ((naive.double() - ref).norm() / ref.norm()).item() + 1e-6
        got = torch.stack([out[b, h] for b, h in pairs])
        err = ((got.double() - ref).norm() / ref.norm()).item()
        eager = kern(q, k, v, kv_lens=kv_lens)[0]
        diff = (out.float() - eager.float()).abs().max().item()
        ok = math.isfinite(err) and err <= bar and diff <= 2e-2
        failed += not ok
        print(f"{'PASS' if ok else 'FAIL'} replay '{name}': lengths {min(lens)}..{max(lens)}, "
              f"plan {work.num_items} items ({work.num_partials} partials, bound "
              f"{work.max_items}); err {err:.2e} (bar {bar:.2e}); max |graph - eager| "
              f"{diff:.2e}", flush=True)
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
