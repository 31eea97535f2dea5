"""attnc side by side with PyTorch SDPA (cuDNN, flash) and FlexAttention.

Runs on the GPU machine: python3 bench/bench.py BUILD_GPU_DIR [case ...]
(with PREV_BUILD=OTHER_BUILD_GPU_DIR, an earlier build's kernels are timed
beside, as attnc_prev, for A/B comparisons; with VARIANTS="DIR ...", the
artifacts of bench/make_variants.py configuration sweeps, as attnc@DIR)
where a case is D:S:mask or D:S:mask:B (mask: none, causal, window, document (causal
within each document), document_nc (the same documents, each row seeing its whole
document), prefix (prefix-LM, 1024 keys), softcap (causal, soft-capped at 30), blocksparse
(128 x 128 blocks, each kept with probability 1/2, the diagonal always)) and the
artifacts bench_d{D}_{mask}.attnc come from scripts/build-gpu-artifacts.sh.
Standard shapes of PERF.md: bf16, B*S = 16384 tokens, hidden 2048 (H = 2048/D);
a case's fourth field sets B instead (to compare masks over the same number
of unmasked pairs: `python3 bench/bench.py DIR --match 128:8192:window`
times that case and causal attention at the same B and H whose S gives the
nearest number of unmasked pairs).

Every system's output is checked first against a float64 reference on two
heads; attnc must be within 1.25x the error of a naive bf16 implementation
(S and P materialised in bf16) on those heads, or its timing is not reported.
All systems run in this one process on the same tensors; TFLOP/s =
4 * B * H * D * unmasked pairs / median time. ROUNDS=n times every system n
times, rotating the order each round, and reports the median (and each
round's rate): for A/B comparisons closer than the ~3% that a system's place
in one fixed order can move it. NO_FLEX=1 leaves FlexAttention out.
WINDOW=n makes the window n keys (default 1024, bench.list's `window:1023,0`):
the artifact must be compiled for the same window, or attnc fails the check.
"""
import math
import os
import sys

import torch
import torch.nn.functional as F
from torch.nn.attention import SDPBackend, sdpa_kernel
from triton.testing import do_bench

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python"))
import attnc  # noqa: E402

import torch._dynamo  # noqa: E402
for _n in ("recompile_limit", "cache_size_limit", "accumulated_recompile_limit",
           "accumulated_cache_size_limit"):
    if hasattr(torch._dynamo.config, _n):
        setattr(torch._dynamo.config, _n, 4096)

DEV = "cuda"
WINDOW = int(os.environ.get("WINDOW", "1024"))  # window: each row sees its last WINDOW keys
PREFIX = 1024   # prefix-LM: every row sees the first PREFIX keys, the rest causal
SOFTCAP = 30.0  # softcap: causal with s = c tanh(s / c)
BLOCK = 128     # blocksparse: the block mask's block (query and key)


def block_table(S):
    """The blocksparse case's [S/BLOCK, S/BLOCK] bool table: each block kept
    with probability 1/2 (seeded), the diagonal always (no empty row)."""
    g = torch.Generator().manual_seed(2)
    n = S // BLOCK
    return ((torch.rand(n, n, generator=g) < 0.5) | torch.eye(n, dtype=torch.bool)).to(DEV)


def documents(S):
    g = torch.Generator().manual_seed(1)
    docs, left = [], S
    while left > 0:
        n = min(left, int(torch.randint(S // 16, S // 2, (1,), generator=g)))
        docs.append(n)
        left -= n
    return docs


def pairs(S, mask, docs, blocks=None):
    if mask == "blocksparse":
        return int(blocks.sum()) * BLOCK * BLOCK
    if mask == "none":
        return S * S
    if mask in ("causal", "softcap"):
        return S * (S + 1) // 2
    if mask == "prefix":
        return sum(min(S, max(i + 1, PREFIX)) for i in range(S))
    if mask == "window":
        return sum(min(i + 1, WINDOW) for i in range(S))
    if mask == "document_nc":
        return sum(n * n for n in docs)
    return sum(n * (n + 1) // 2 for n in docs)


def dense_mask(mask, S, doc_id, blocks=None):
    q = torch.arange(S, device=DEV)[:, None]
    k = torch.arange(S, device=DEV)[None, :]
    if mask == "none":
        return None
    if mask == "blocksparse":
        return blocks[q // BLOCK, k // BLOCK]
    if mask == "document_nc":
        return doc_id[q] == doc_id[k]
    m = q >= k
    if mask == "prefix":
        m |= k < PREFIX
    if mask == "window":
        m &= (q - k) < WINDOW
    if mask == "document":
        m &= doc_id[q] == doc_id[k]
    return m


def reference_heads(q, k, v, mask, heads, softcap=None):
    """float64 attention and a naive bf16 one for batch 0, `heads` (with
    soft-capping when `softcap`)."""
    S, D = q.shape[2], q.shape[3]
    out64, naive = [], []
    for h in heads:
        qh, kh, vh = q[0, h].double(), k[0, h].double(), v[0, h].double()
        s = (qh @ kh.T) / math.sqrt(D)
        if softcap:
            s = softcap * torch.tanh(s / softcap)
        if mask is not None:
            s = s.masked_fill(~mask, float("-inf"))
        out64.append(torch.softmax(s, dim=-1) @ vh)
        sb = (q[0, h] @ k[0, h].T).float() / math.sqrt(D)
        if softcap:
            sb = softcap * torch.tanh(sb / softcap)
        sb = sb.bfloat16().float()
        if mask is not None:
            sb = sb.masked_fill(~mask, float("-inf"))
        pb = torch.softmax(sb, dim=-1).bfloat16()
        naive.append((pb @ v[0, h]).float())
        del s, sb, pb
    return torch.stack(out64), torch.stack(naive)


def rel(a, ref):
    return ((a.double() - ref).norm() / ref.norm()).item()


def batch_of(S):
    """The standard shapes' batch: B * S = 16384 tokens."""
    return max(1, 16384 // S)


class Case:
    """One case's inputs, shared by bench.py and kernel_ab.py: the tensors (seed 0), its
    documents or block table, attnc's extra arguments, the FLOP count and the float64
    reference (with a naive bf16 one) on the first and last heads."""

    def __init__(self, D, S, mask, B=None):
        self.B, self.H = B or batch_of(S), 2048 // D
        B, H = self.B, self.H
        torch.manual_seed(0)
        self.q, self.k, self.v = (torch.randn(B, H, S, D, device=DEV, dtype=torch.bfloat16)
                                  for _ in range(3))
        self.docs = documents(S) if mask.startswith("document") else None
        self.doc_id = self.cu = None
        if self.docs:
            self.doc_id = torch.repeat_interleave(torch.arange(len(self.docs)),
                                                  torch.tensor(self.docs)).to(DEV)
            self.cu = torch.tensor([0] + list(torch.tensor(self.docs).cumsum(0)),
                                   dtype=torch.int32, device=DEV)
        self.blocks = block_table(S) if mask == "blocksparse" else None
        self.pairs = pairs(S, mask, self.docs, self.blocks)
        self.flops = 4 * B * H * D * self.pairs
        self.name = f"D={D} S={S} B={B} H={H} mask={mask}"
        self.dense = dense_mask(mask, S, self.doc_id, self.blocks)
        self.heads = [0, H - 1]
        self.ref, naive = reference_heads(self.q, self.k, self.v, self.dense, self.heads,
                                          SOFTCAP if mask == "softcap" else None)
        self.naive_err = rel(naive, self.ref)
        self.extra = {"cu_seqlens": self.cu} if self.cu is not None else {}
        if self.blocks is not None:
            self.extra = {"block_mask": self.blocks.to(torch.int8)[None, None].contiguous()}


def run(build, D, S, mask, results, B=None):
    c = Case(D, S, mask, B)
    B, H, q, k, v = c.B, c.H, c.q, c.k, c.v
    docs, doc_id, blocks, flops, heads = c.docs, c.doc_id, c.blocks, c.flops, c.heads
    case = c.name
    if os.environ.get("SHOW_PAIRS"):
        case += f" pairs/head={c.pairs}"
    dm, ref, naive_err, extra = c.dense, c.ref, c.naive_err, c.extra

    artifact = os.path.join(build, "artifacts", f"bench_d{D}_{mask}.attnc")
    # ATTNC_DECOY=1: a first attnc.Kernel of the case's artifact, run once
    # and kept, never timed: the first object of a case read 3-4% low in
    # bench.py (bench/RESULTS.md, twenty-sixth session run 2: four objects
    # of one artifact, 591.8 vs 613.7-619.4 TFLOP/s).
    decoy = None
    if os.environ.get("ATTNC_DECOY") == "1":
        decoy = attnc.Kernel(artifact)
        decoy(q, k, v, **extra)
    kernel = attnc.Kernel(artifact)
    # ATTNC_OUT=1: each attnc system writes into an output (and LSE) of its
    # own, allocated once, instead of new ones a call (the peers allocate
    # theirs): with an output a call the same kernel's rounds spread 2-6%
    # (bench/RESULTS.md, twenty-fifth session run 8), with one +-1%.
    # ATTNC_LSE=0 leaves the LSE allocated a call (as before 2026-12-04).
    def attnc_system(kern, **more):
        more.update(extra)
        if os.environ.get("ATTNC_OUT") != "1":
            return lambda: kern(q, k, v, **more)[0]
        buf = torch.empty(B, H, S, D, device=DEV, dtype=torch.bfloat16)
        lbuf = None
        if kern.manifest.get("reads_lse") == "1" and os.environ.get("ATTNC_LSE") != "0":
            lbuf = torch.empty(B, H, S, device=DEV, dtype=torch.float32)
        return lambda: kern(q, k, v, out=buf, lse=lbuf, **more)[0]
    systems = [("attnc", attnc_system(kernel))]
    # TAIL_SPLITS="1 2": the same artifact with num_splits forced (how a
    # persistent kernel runs its last wave: 1 whole items, 2 its key tiles
    # dealt to every block), timed as attnc@splits=<n> where the artifact
    # has tail splits.
    if kernel.manifest.get("tail_splits") == "1":
        for n in os.environ.get("TAIL_SPLITS", "").split():
            systems.append(("attnc@splits=" + n,
                            attnc_system(kernel, num_splits=int(n))))
    # A/B: the same case through another build's artifacts and runtime
    # (PREV_BUILD=dir, where it has this case's artifact), timed on the same
    # tensors in this process.
    prev = os.environ.get("PREV_BUILD")
    prev_artifact = prev and os.path.join(prev, "artifacts", f"bench_d{D}_{mask}.attnc")
    if prev_artifact and os.path.exists(prev_artifact):
        pk = attnc.Kernel(prev_artifact)
        systems.append(("attnc_prev", attnc_system(pk)))
    # Configuration sweeps: VARIANTS="dir ..." (bench/make_variants.py), each
    # timed as attnc@<dir name> where it has this case's artifact.
    for vdir in os.environ.get("VARIANTS", "").split():
        path = os.path.join(vdir, "artifacts", f"bench_d{D}_{mask}.attnc")
        if os.path.exists(path):
            vk = attnc.Kernel(path)
            systems.append(("attnc@" + os.path.basename(vdir.rstrip("/")),
                            attnc_system(vk)))
    if mask in ("none", "causal"):
        for name, be in [("sdpa_cudnn", SDPBackend.CUDNN_ATTENTION),
                         ("sdpa_flash", SDPBackend.FLASH_ATTENTION)]:
            def f(be=be):
                with sdpa_kernel(be):
                    return F.scaled_dot_product_attention(q, k, v, is_causal=(mask == "causal"))
            systems.append((name, f))
    # NO_FLEX=1 leaves FlexAttention out (its compile per shape takes
    # device time a sweep of shapes may not want to spend).
    if os.environ.get("NO_FLEX") != "1":
        from torch.nn.attention.flex_attention import create_block_mask, flex_attention
        score_mod = None
        if mask == "softcap":
            score_mod = lambda sc, b, h, qi, ki: SOFTCAP * torch.tanh(sc / SOFTCAP)  # noqa: E731
        if mask == "none":
            bm = None
        else:
            if mask in ("causal", "softcap"):
                fn = lambda b, h, qi, ki: qi >= ki  # noqa: E731
            elif mask == "prefix":
                fn = lambda b, h, qi, ki: (qi >= ki) | (ki < PREFIX)  # noqa: E731
            elif mask == "window":
                fn = lambda b, h, qi, ki: (qi >= ki) & (qi - ki < WINDOW)  # noqa: E731
            elif mask == "blocksparse":
                fn = lambda b, h, qi, ki: blocks[qi // BLOCK, ki // BLOCK]  # noqa: E731
            elif mask == "document_nc":
                fn = lambda b, h, qi, ki: doc_id[qi] == doc_id[ki]  # noqa: E731
            else:
                fn = lambda b, h, qi, ki: (qi >= ki) & (doc_id[qi] == doc_id[ki])  # noqa: E731
            bm = create_block_mask(fn, None, None, S, S, device=DEV)
        cflex = torch.compile(flex_attention, dynamic=False)
        systems.append(("flex", lambda: cflex(q, k, v, block_mask=bm, score_mod=score_mod)))

    # Outputs first (a system that fails its check, or cannot run this
    # case, is reported and not timed), then the timings: with ROUNDS=n
    # each system is timed n times, the order rotated a round, and its
    # median reported (two byte-identical kernels measured 2.6% apart
    # when timed in different places of one fixed order).
    lines, timed = {}, []
    for name, f in systems:
        try:
            torch.cuda.synchronize()
            o = f()
            torch.cuda.synchronize()
            err = rel(o[0, heads], ref)
            ok = err <= 1.25 * naive_err + 1e-6 and math.isfinite(err)
            if name.startswith("attnc") and not ok:
                lines[name] = f"{case} {name:11s} CHECK FAILED err={err:.2e} naive_bf16={naive_err:.2e}"
                continue
            timed.append((name, f, err))
        except Exception as e:  # a peer that cannot run this case
            lines[name] = f"{case} {name:11s} FAILED {type(e).__name__}: {str(e)[:100]}"
    rounds = max(1, int(os.environ.get("ROUNDS", "1")))
    times = {name: [] for name, _, _ in timed}
    for r in range(rounds):
        # (not k: the systems' closures read this scope's q, k, v)
        start = r % len(timed) if timed else 0
        for name, f, err in timed[start:] + timed[:start]:
            try:
                times[name].append(do_bench(f, warmup=50, rep=300, return_mode="median"))
            except Exception as e:
                lines[name] = f"{case} {name:11s} FAILED {type(e).__name__}: {str(e)[:100]}"
    for name, f, err in timed:
        if name in lines or not times[name]:
            continue
        ms = sorted(times[name])[len(times[name]) // 2]
        line = (f"{case} {name:11s} {ms:8.3f} ms {flops / ms / 1e9:7.1f} TFLOP/s "
                f"err={err:.2e} (naive bf16 {naive_err:.2e})")
        if rounds > 1:
            line += " rounds " + " ".join(f"{flops / t / 1e9:.1f}" for t in times[name])
        lines[name] = line
    for name, _ in systems:
        if name in lines:
            print(lines[name], flush=True)
            results.append(lines[name])
    del q, k, v, ref, dm, extra, decoy, c
    torch.cuda.empty_cache()


def ceilings(results):
    a = torch.randn(8192, 8192, device=DEV, dtype=torch.bfloat16)
    b = torch.randn(8192, 8192, device=DEV, dtype=torch.bfloat16)
    ms = do_bench(lambda: a @ b, warmup=100, rep=500, return_mode="median")
    line = f"ceiling cuBLAS bf16 GEMM 8192^3: {2 * 8192 ** 3 / ms / 1e9:.0f} TFLOP/s"
    print(line, flush=True)
    results.append(line)


if __name__ == "__main__":
    build = sys.argv[1]
    cases = sys.argv[2:] or ["128:4096:none", "128:4096:causal", "128:16384:none",
                             "128:16384:causal", "128:1024:none", "64:16384:none",
                             "64:16384:causal", "128:8192:window", "128:8192:document",
                             "256:8192:none", "256:8192:causal"]
    props = torch.cuda.get_device_properties(0)
    results = [f"# {props.name} torch {torch.__version__} cuDNN {torch.backends.cudnn.version()}"]
    print(results[0], flush=True)
    ceilings(results)
    if cases and cases[0] == "--match":
        # Each case beside causal attention with as many unmasked pairs a
        # head (the same B and H; S from S (S + 1) / 2 = pairs).
        os.environ["SHOW_PAIRS"] = "1"
        matched = []
        for c in cases[1:]:
            D, S, mask = c.split(":")[:3]
            S = int(S)
            B = batch_of(S)
            docs = documents(S) if mask.startswith("document") else None
            blocks = block_table(S) if mask == "blocksparse" else None
            p = pairs(S, mask, docs, blocks)
            Sc = round((math.sqrt(1 + 8 * p) - 1) / 2)
            matched += [f"{D}:{S}:{mask}:{B}", f"{D}:{Sc}:causal:{B}"]
        cases = matched
    for c in cases:
        D, S, mask, *rest = c.split(":")
        run(build, int(D), int(S), mask, results, int(rest[0]) if rest else None)
    out = os.environ.get("OUT")
    if out:
        with open(os.path.join(out, "bench.txt"), "w") as f:
            f.write("\n".join(results) + "\n")
