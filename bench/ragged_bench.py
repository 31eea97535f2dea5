"""A ragged prefill batch against the dense rate over the same pairs.

Runs on the GPU machine: python3 bench/ragged_bench.py BUILD_GPU_DIR
(artifacts from scripts/build-gpu-artifacts.sh). The batch: 16 sequences of
self-attention (each as many queries as keys) with lengths spread evenly
from 100 to 8000, causal (MASK=none: no mask, each sequence attending to
all of its own keys), Hq=32, Hkv=8, D=128, bf16, packed [tokens, H, D]
with cu_seqlens (FlashAttention's varlen layout). Systems, on the same
tensors in this one process:

- attnc_ragged: one launch of bench_ragged_d128_MASK (cu_seqlens_q/k);
  with VARIANTS="DIR ..." also each DIR's artifacts/bench_ragged_d128_MASK
  (attnc_ragged_<DIR's last name>), for an A/B of kernel configurations;
- attnc_dense_loop: the dense artifact (bench_dense_gqa4_d128_MASK,
  the sm_90a default kernel) launched once per sequence, on the same
  packed tensors viewed per sequence: the dense rate over the same pairs;
- attnc_dense_loop_mma: the same loop with the sm_80-class mma.sync dense
  kernel (bench_dense_gqa4_d128_causal_sm80, run through PTX JIT), the
  kernel family the ragged launch uses;
- attnc_dense_8k: the dense kernel at B=1, S=8192 (one long sequence), for
  the rate of a full-size launch;
- flex: FlexAttention over the packed tokens with a document(-causal) block
  mask (its varlen form).

Every system's output is checked first against a float64 reference of two
heads of every sequence; attnc must be within 1.25x the error of a naive
bf16 implementation there, or its timing is not reported. The systems are
then timed ROUNDS times (default 3), the order rotated by one each round,
and the median round is reported beside every round's rate. TFLOP/s = 4 * Hq
* D * visible pairs / median time.
"""
import math
import os
import sys

import torch
from triton.testing import do_bench

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python"))
import attnc  # noqa: E402

DEV = "cuda"
HQ, HKV, D = 32, 8, 128
MASK = os.environ.get("MASK", "causal")
ROUNDS = max(int(os.environ.get("ROUNDS", "3")), 1)
if MASK not in ("causal", "none"):
    sys.exit(f"ragged_bench.py: MASK={MASK}: expected causal or none")


def lengths():
    n = 16
    return [round(100 + i * (8000 - 100) / (n - 1)) for i in range(n)]


def reference(q, k, v, cu, heads):
    """float64 outputs and a naive bf16 implementation's, per sequence and
    head of `heads` (packed q [T, Hq, D]), concatenated."""
    g = HQ // HKV
    out64, naive = [], []
    for i in range(len(cu) - 1):
        a, b = cu[i], cu[i + 1]
        n = b - a
        visible = torch.ones(n, n, dtype=torch.bool, device=DEV)
        if MASK == "causal":
            visible = visible.tril()
        for h in heads:
            qh, kh, vh = q[a:b, h], k[a:b, h // g], v[a:b, h // g]
            s = (qh.double() @ kh.double().T) / math.sqrt(D)
            s = s.masked_fill(~visible, float("-inf"))
            out64.append(torch.softmax(s, dim=-1) @ vh.double())
            sb = ((qh @ kh.T).float() / math.sqrt(D)).bfloat16().float()
            sb = sb.masked_fill(~visible, float("-inf"))
            naive.append((torch.softmax(sb, dim=-1).bfloat16() @ vh).float())
    return torch.cat(out64), torch.cat(naive)


def gather(o, cu, heads):
    """The rows of `heads` of packed o [T, Hq, D], in reference order."""
    return torch.cat([o[cu[i]:cu[i + 1], h] for i in range(len(cu) - 1) for h in heads])


def rel(a, ref):
    return ((a.double() - ref).norm() / ref.norm()).item()


def main(build):
    props = torch.cuda.get_device_properties(0)
    results = [f"# {props.name} torch {torch.__version__}"]
    print(results[0], flush=True)
    lens = lengths()
    cu = [0]
    for n in lens:
        cu.append(cu[-1] + n)
    total = cu[-1]
    pairs = sum(n * (n + 1) // 2 if MASK == "causal" else n * n for n in lens)
    flops = 4 * HQ * D * pairs
    torch.manual_seed(0)
    q = torch.randn(total, HQ, D, device=DEV, dtype=torch.bfloat16)
    k = torch.randn(total, HKV, D, device=DEV, dtype=torch.bfloat16)
    v = torch.randn(total, HKV, D, device=DEV, dtype=torch.bfloat16)
    cu_t = torch.tensor(cu, dtype=torch.int32, device=DEV)
    case = f"ragged prefill: {len(lens)} sequences, lengths {lens[0]}..{lens[-1]} " \
           f"({total} tokens), {MASK}, Hq={HQ} Hkv={HKV} D={D}"
    print(case, flush=True)
    results.append(case)
    heads = [0, HQ - 1]
    ref, naive = reference(q, k, v, cu, heads)
    naive_err = rel(naive, ref)

    art = lambda name: os.path.join(build, "artifacts", name + ".attnc")  # noqa: E731
    out = torch.empty(total, HQ, D, device=DEV, dtype=torch.bfloat16)

    def run_ragged(path):
        ragged = attnc.Kernel(path)
        return lambda: ragged(q, k, v, out=out, cu_seqlens_q=cu_t, cu_seqlens_k=cu_t,
                              max_seqlen_q=max(lens))[0]

    # Per-sequence dense launches on views of the packed tensors: [1, H, n, D]
    # with strides {., D, H * D, 1}.
    def views(t, a, b):
        return t[a:b].unsqueeze(0).transpose(1, 2)

    def dense_loop(kernel):
        seq = [(views(q, a, b), views(k, a, b), views(v, a, b), views(out, a, b),
                torch.empty(1, HQ, b - a, device=DEV, dtype=torch.float32))
               for a, b in zip(cu[:-1], cu[1:])]

        def f():
            for qs, ks, vs, os_, ls in seq:
                kernel(qs, ks, vs, out=os_, lse=ls)
            return out
        return f

    systems = [("attnc_ragged", run_ragged(art(f"bench_ragged_d128_{MASK}")), flops)]
    for vdir in os.environ.get("VARIANTS", "").split():
        path = os.path.join(vdir, "artifacts", f"bench_ragged_d128_{MASK}.attnc")
        label = os.path.basename(os.path.normpath(vdir))
        systems.append((f"attnc_ragged_{label}", run_ragged(path), flops))
    for name, artifact in [("attnc_dense_loop", f"bench_dense_gqa4_d128_{MASK}"),
                           ("attnc_dense_loop_mma", f"bench_dense_gqa4_d128_{MASK}_sm80")]:
        if os.path.exists(art(artifact)):
            systems.append((name, dense_loop(attnc.Kernel(art(artifact))), flops))

    from torch.nn.attention.flex_attention import create_block_mask, flex_attention
    doc = torch.repeat_interleave(torch.arange(len(lens), device=DEV),
                                  torch.tensor(lens, device=DEV))
    if MASK == "causal":
        def doc_mask(b, h, qi, ki):
            return (qi >= ki) & (doc[qi] == doc[ki])
    else:
        def doc_mask(b, h, qi, ki):
            return doc[qi] == doc[ki]
    bm = create_block_mask(doc_mask,
                           None, None, total, total, device=DEV)
    cflex = torch.compile(flex_attention, dynamic=False)
    qf, kf, vf = (t.unsqueeze(0).transpose(1, 2) for t in (q, k, v))
    systems.append(("flex", lambda: cflex(qf, kf, vf, block_mask=bm,
                                           enable_gqa=True)[0].transpose(0, 1), flops))

    # Check every system first, then time the checked ones ROUNDS times, the
    # order rotated by one each round (in one fixed order the later systems
    # read up to 12% low: main's own kernel in the last slot, bench/RESULTS.md
    # forty-fourth session run 3), and report the median round beside every
    # round's rate.
    checked = []
    for name, f, fl in systems:
        try:
            out.fill_(float("nan"))
            torch.cuda.synchronize()
            o = f()
            torch.cuda.synchronize()
            err = rel(gather(o, cu, heads), ref)
            ok = err <= 1.25 * naive_err + 1e-6 and math.isfinite(err)
            if name.startswith("attnc") and not ok:
                line = f"{name:22s} CHECK FAILED err={err:.2e} naive_bf16={naive_err:.2e}"
                print(line, flush=True)
                results.append(line)
                continue
            checked.append((name, f, fl, err))
        except Exception as e:  # a peer that cannot run this case
            line = f"{name:22s} FAILED {type(e).__name__}: {str(e)[:160]}"
            print(line, flush=True)
            results.append(line)
    times = {name: [] for name, _, _, _ in checked}
    for r in range(ROUNDS):
        turn = r % max(len(checked), 1)
        for name, f, _, _ in checked[turn:] + checked[:turn]:
            times[name].append(do_bench(f, warmup=20, rep=200, return_mode="median"))
    for name, f, fl, err in checked:
        ms = sorted(times[name])[len(times[name]) // 2]
        rates = " ".join(f"{fl / t / 1e9:.1f}" for t in times[name])
        line = (f"{name:22s} {ms:8.3f} ms {fl / ms / 1e9:7.1f} TFLOP/s "
                f"err={err:.2e} (naive bf16 {naive_err:.2e}) rounds: {rates}")
        print(line, flush=True)
        results.append(line)

    # The dense kernel on one long sequence (checked on two heads first).
    dense_path = art(f"bench_dense_gqa4_d128_{MASK}")
    if os.path.exists(dense_path):
        S = 8192
        qd = torch.randn(1, HQ, S, D, device=DEV, dtype=torch.bfloat16)
        kd = torch.randn(1, HKV, S, D, device=DEV, dtype=torch.bfloat16)
        vd = torch.randn(1, HKV, S, D, device=DEV, dtype=torch.bfloat16)
        dk = attnc.Kernel(dense_path)
        o = dk(qd, kd, vd)[0]
        r, nv = reference(qd[0].transpose(0, 1), kd[0].transpose(0, 1),
                          vd[0].transpose(0, 1), [0, S], heads)
        err = rel(torch.cat([o[0, h] for h in heads]), r)
        nerr = rel(nv, r)
        if err <= 1.25 * nerr + 1e-6:
            ms = do_bench(lambda: dk(qd, kd, vd), warmup=20, rep=200, return_mode="median")
            fl = 4 * HQ * D * (S * (S + 1) // 2 if MASK == "causal" else S * S)
            line = (f"{'attnc_dense_8k':22s} {ms:8.3f} ms {fl / ms / 1e9:7.1f} TFLOP/s "
                    f"err={err:.2e} (naive bf16 {nerr:.2e}) [B=1 S=8192]")
        else:
            line = f"{'attnc_dense_8k':22s} CHECK FAILED err={err:.2e} naive_bf16={nerr:.2e}"
        print(line, flush=True)
        results.append(line)

    out_dir = os.environ.get("OUT")
    if out_dir:
        with open(os.path.join(out_dir, "ragged_bench.txt"), "w") as f:
            f.write("\n".join(results) + "\n")


if __name__ == "__main__":
    main(sys.argv[1])
