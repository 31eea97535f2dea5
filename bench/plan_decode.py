"""Decode over a batch of uneven KV lengths: the runtime's split count (one
count for every sequence) against an attnrt_plan work list (splits per
sequence from the lengths, one thread block per item, longest first).

Runs on the GPU machine: python3 bench/plan_decode.py BUILD_GPU_DIR
(OUT=dir writes plan_decode.txt). Hq=32, Hkv=8, D=128, bf16, one query token
per sequence, a contiguous cache [B, Hkv, Sk, D] with kv_lens (artifact
bench_decode_d128_kvlens). Cases: one long sequence among short ones, random
lengths, equal lengths (B=64, 8K) and one sequence of 128K.

Every output is checked first, on (batch, head) pairs that include the
longest and the shortest sequence, against a float64 reference over each
sequence's own keys; attnc must be within 1.25x the error of a naive bf16
implementation there or its timing is not reported. KV GB/s counts the
bytes of the keys and values the lengths cover.
"""
import math
import os
import random
import sys

import torch
from triton.testing import do_bench

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python"))
import attnc  # noqa: E402

DEV = "cuda"
HQ, HKV, D = 32, 8, 128


def reference(q, k, v, lens, pairs):
    out64, naive = [], []
    g = HQ // HKV
    for b, h in pairs:
        n = lens[b]
        kh, vh = k[b, h // g, :n], v[b, h // g, :n]
        s = (q[b, h].double() @ kh.double().T) / math.sqrt(D)
        out64.append(torch.softmax(s, dim=-1) @ vh.double())
        sb = ((q[b, h] @ kh.T).float() / math.sqrt(D)).to(q.dtype).float()
        naive.append((torch.softmax(sb, dim=-1).to(v.dtype) @ vh).float())
    return torch.stack(out64), torch.stack(naive)


def case(kern, name, lens, results):
    B, Sk = len(lens), max(lens)
    torch.manual_seed(0)
    q = torch.randn(B, HQ, 1, D, device=DEV, dtype=torch.bfloat16)
    k = torch.randn(B, HKV, Sk, D, device=DEV, dtype=torch.bfloat16)
    v = torch.randn(B, HKV, Sk, D, device=DEV, dtype=torch.bfloat16)
    kv_lens = torch.tensor(lens, device=DEV, dtype=torch.int32)
    longest, shortest = max(range(B), key=lambda b: lens[b]), min(range(B), key=lambda b: lens[b])
    pairs = sorted({(longest, 0), (longest, HQ - 1), (shortest, 5), (B // 2, 17)})
    ref, naive = reference(q, k, v, lens, pairs)
    bar = 1.25 * ((naive.double() - ref).norm() / ref.norm()).item() + 1e-6
    plan = kern.plan([1] * B, lens)
    systems = [("runtime splits", lambda: kern(q, k, v, kv_lens=kv_lens)[0]),
               ("plan", lambda: kern(q, k, v, kv_lens=kv_lens, plan=plan)[0])]
    kv_bytes = 2 * HKV * D * 2 * sum(lens)
    header = (f"{name}: B={B} Sk={Sk} (lengths {min(lens)}..{max(lens)}, "
              f"{sum(lens)} keys); plan: {plan.num_items} items, {plan.num_partials} partials")
    print(header, flush=True)
    results.append(header)
    for label, f in systems:
        o = f()
        torch.cuda.synchronize()
        got = torch.stack([o[b, h] for b, h in pairs])
        err = ((got.double() - ref).norm() / ref.norm()).item()
        if not (math.isfinite(err) and err <= bar):
            line = f"  {label:16s} CHECK FAILED err={err:.2e} bar={bar:.2e}"
        else:
            us = do_bench(f, warmup=25, rep=200, return_mode="median") * 1e3
            line = (f"  {label:16s} {us:8.1f} us  KV {kv_bytes / us / 1e3:6.0f} GB/s  "
                    f"err={err:.2e} (bar {bar:.2e})")
        print(line, flush=True)
        results.append(line)
    del q, k, v
    torch.cuda.empty_cache()


def main():
    build = sys.argv[1]
    kern = attnc.Kernel(os.path.join(build, "artifacts", "bench_decode_d128_kvlens.attnc"))
    results = []
    rng = random.Random(5)
    cases = [("one long among short", [131072] + [2048] * 15),
             ("random lengths", [rng.randint(1000, 32768) for _ in range(32)]),
             ("equal lengths", [8192] * 64),
             ("one sequence", [131072])]
    for name, lens in cases:
        case(kern, name, lens, results)
    out = os.environ.get("OUT")
    if out:
        with open(os.path.join(out, "plan_decode.txt"), "w") as f:
            f.write("\n".join(results) + "\n")


if __name__ == "__main__":
    main()
