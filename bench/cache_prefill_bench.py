"""Prefill over a KV cache with per-sequence lengths (chunked prefill,
a prompt appended to cached context) beside the peers.

Runs on the GPU machine: python3 bench/cache_prefill_bench.py BUILD_GPU_DIR
[B:SQ:SK ...] (default cases 8:1024:8192 and 4:2048:16384). A case is B
sequences, each a chunk of SQ new query rows over a cache [B, Hkv, SK, D]
whose first kv_lens[b] rows are its keys (the chunk's own keys last), the
lengths spread evenly from SQ to SK; bottom-right causal (query row i of
sequence b sees keys j <= i + kv_lens[b] - SQ; with MASK=none every key
j < kv_lens[b], and each artifact below is its bench_cache_d128_none
namesake); Hq=32, Hkv=8, D=128, bf16.
Rows of attnc's cache past a sequence's length hold NaN, so a kernel that
reads them fails the check (the peers' copy holds zeros there). Systems, on the same tensors in this one process:

- attnc: artifact bench_cache_d128_causal (kv_lens, compiled by
  scripts/build-gpu-artifacts.sh from bench/bench.list: the sm_90a default);
- attnc_mma: bench_cache_d128_causal_mma, the same attention pinned to the
  mma.sync kernel that sm_90a chose for a cache before the wgmma kernel read
  one (bench/cache_mma.mlir);
- attnc_paged16, attnc_paged64: bench_cache_d128_causal_paged16 and
  _paged64, the same keys in pages of 16 or 64 rows in shuffled order (the
  wgmma kernel, a TMA box a page); with PREV_BUILD=DIR (or
  LABEL=DIR,LABEL=DIR...) also the same artifacts of other builds
  (attnc_paged16_prev, attnc_paged16_LABEL, ...; attnc_LABEL for the
  kv_lens artifact), for an A/B of a kernel
  change;
- attnc_fp8, attnc_fp8_mma: bench_cache_d128_causal_fp8 (the sm_90a
  default: the wgmma kernel, its producer warpgroup converting the codes)
  and _fp8_mma (bench/cache_fp8_mma.mlir: the mma.sync kernel sm_90a chose
  for an fp8 cache before), over the cache quantized to fp8 e4m3 with a
  power-of-two scale per KV head (so that the dequantized cache is exact in
  bf16); checked against the float64 reference of the dequantized cache;
  attnc_fp8_paged16: bench_cache_d128_causal_fp8_paged16, those codes in
  shuffled pages of 16 rows; PREV_BUILD's fp8 artifacts beside them
  (attnc_fp8_LABEL, attnc_fp8_paged16_LABEL, ...);
- flash_attn: flash_attn_with_kvcache (cache_seqlens, causal), when the
  flash_attn package is installed;
- flex: FlexAttention with the mask from the lengths;
- sdpa_mask: PyTorch SDPA with the boolean mask (whichever backend takes it).

Every system's output is checked first against a float64 reference on two
heads of every sequence; attnc must be within 1.25x the error of a naive
bf16 implementation there, or its timing is not reported. The checked
systems are then timed in turn for ROUNDS rounds (default 3; each round a
median of triton's do_bench) and the median round is reported beside every
round's rate. TFLOP/s = 4 * Hq * D * visible pairs / time.
"""
import math
import os
import sys

import torch
import torch.nn.functional as F
from triton.testing import do_bench

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python"))
import attnc  # noqa: E402

DEV = "cuda"
HQ, HKV, D = 32, 8, 128
G = HQ // HKV
ROUNDS = int(os.environ.get("ROUNDS", "3"))
# MASK=none: each query row sees all of its sequence's kv_lens keys (cross
# attention over a cache) instead of the bottom-right causal mask; the
# artifacts are then bench_cache_d128_none*.
MASK = os.environ.get("MASK", "causal")
if MASK not in ("causal", "none"):
    sys.exit(f"cache_prefill_bench.py: MASK={MASK}: expected causal or none")


def lengths(B, SQ, SK):
    return [SQ + round(i * (SK - SQ) / max(B - 1, 1)) for i in range(B)]


def visible(SQ, L):
    """Pairs a sequence of kv length L sees under the bottom-right causal
    mask: row i sees min(L, L - SQ + i + 1) keys (without a mask all L)."""
    if MASK == "none":
        return SQ * L
    return sum(max(0, min(L, L - SQ + i + 1)) for i in range(SQ))


def dense_mask(SQ, SK, lens):
    q = torch.arange(SQ, device=DEV)[None, :, None]
    k = torch.arange(SK, device=DEV)[None, None, :]
    L = torch.tensor(lens, device=DEV)[:, None, None]
    if MASK == "none":
        return (k < L) & (q >= 0)  # [B, SQ, SK]
    return (k < L) & (k <= q + L - SQ)  # [B, SQ, SK]


def reference(q, k, v, lens, heads):
    """float64 outputs and a naive bf16 implementation's over `heads` of
    every sequence (q [B, Hq, SQ, D], k/v [B, Hkv, SK, D]), concatenated."""
    SQ = q.shape[2]
    out64, naive = [], []
    for b, L in enumerate(lens):
        m = dense_mask(SQ, L, [L])[0]
        for h in heads:
            qh, kh, vh = q[b, h], k[b, h // G, :L], v[b, h // G, :L]
            s = (qh.double() @ kh.double().T) / math.sqrt(D)
            s = s.masked_fill(~m, float("-inf"))
            out64.append(torch.softmax(s, dim=-1) @ vh.double())
            sb = ((qh @ kh.T).float() / math.sqrt(D)).bfloat16().float()
            sb = sb.masked_fill(~m, float("-inf"))
            naive.append((torch.softmax(sb, dim=-1).bfloat16() @ vh).float())
    return torch.cat(out64), torch.cat(naive)


def to_pages(k, v, P):
    """k and v [B, Hkv, SK, D] as shuffled pages of P rows [pages, P, Hkv,
    D] and the page table [B, SK / P] that finds them."""
    codes = k.dtype == torch.float8_e4m3fn  # shuffled as bytes
    if codes:
        k, v = k.view(torch.uint8), v.view(torch.uint8)
    B, _, SK, _ = k.shape
    pages_per = SK // P
    perm = torch.randperm(B * pages_per, device=DEV)
    kp = torch.empty(B * pages_per, P, HKV, D, device=DEV, dtype=k.dtype)
    vp = torch.empty_like(kp)
    kp[perm] = k.transpose(1, 2).reshape(B * pages_per, P, HKV, D)
    vp[perm] = v.transpose(1, 2).reshape(B * pages_per, P, HKV, D)
    if codes:
        kp, vp = kp.view(torch.float8_e4m3fn), vp.view(torch.float8_e4m3fn)
    return kp, vp, perm.view(B, pages_per).to(torch.int32)


def rel(a, ref):
    return ((a.double() - ref).norm() / ref.norm()).item()


def run_case(build, B, SQ, SK, results):
    lens = lengths(B, SQ, SK)
    flops = 4 * HQ * D * sum(visible(SQ, L) for L in lens)
    torch.manual_seed(0)
    q = torch.randn(B, HQ, SQ, D, device=DEV, dtype=torch.bfloat16)
    k = torch.randn(B, HKV, SK, D, device=DEV, dtype=torch.bfloat16)
    v = torch.randn(B, HKV, SK, D, device=DEV, dtype=torch.bfloat16)
    # attnc reads a cache whose rows past a sequence's length are NaN; the
    # peers, which may compute on whole blocks of keys (0 x NaN = NaN), get
    # zeros there (a serving cache holds stale finite values).
    k0, v0 = k.clone(), v.clone()
    for b, L in enumerate(lens):
        k[b, :, L:] = float("nan")
        v[b, :, L:] = float("nan")
        k0[b, :, L:] = 0
        v0[b, :, L:] = 0
    kv_lens = torch.tensor(lens, dtype=torch.int32, device=DEV)
    case = (f"cache prefill B={B} SQ={SQ} SK={SK} kv_lens {lens[0]}..{lens[-1]}, "
            f"{'bottom-right causal' if MASK == 'causal' else 'no mask'}, Hq={HQ} Hkv={HKV} D={D}")
    print(case, flush=True)
    results.append(case)
    heads = [0, HQ - 1]
    ref, naive = reference(q, k0, v0, lens, heads)
    naive_err = rel(naive, ref)
    out = torch.empty(B, HQ, SQ, D, device=DEV, dtype=torch.bfloat16)

    def gather(o):
        return torch.cat([o[b, h] for b in range(B) for h in heads])

    # The fp8 cache: codes of k / scale per KV head (a power of two, so that
    # code * scale is exact in bf16), NaN codes past each length; its own
    # reference from the dequantized cache.
    def quantize(x):
        amax = x.float().abs().amax(dim=(0, 2, 3)).clamp(min=1e-6)
        scale = torch.exp2(torch.ceil(torch.log2(amax / 448)))
        codes = (x.float() / scale[None, :, None, None]).to(torch.float8_e4m3fn)
        deq = (codes.float() * scale[None, :, None, None]).bfloat16()
        return codes, scale, deq
    k8, k_scale, kd = quantize(k0)
    v8, v_scale, vd = quantize(v0)
    scales = torch.stack([k_scale, v_scale]).float().contiguous()
    for b, L in enumerate(lens):
        k8.view(torch.uint8)[b, :, L:] = 0x7F
        v8.view(torch.uint8)[b, :, L:] = 0x7F
        kd[b, :, L:] = 0
        vd[b, :, L:] = 0
    ref8, naive8 = reference(q, kd, vd, lens, heads)
    references = {}

    art = lambda name: os.path.join(build, "artifacts", name + ".attnc")  # noqa: E731
    # PREV_BUILD=DIR or LABEL=DIR[,LABEL=DIR...]: other builds' kernels (kv_lens, paged, fp8).
    prevs = []
    for item in filter(None, os.environ.get("PREV_BUILD", "").split(",")):
        label, _, path = item.rpartition("=")
        prevs.append((label or "prev", path))

    # An artifact of this build and of PREV_BUILD's (SYSTEM_LABEL), those
    # that exist.
    def builds(system, artifact):
        found = [(system, art(artifact))]
        found += [(f"{system}_{label}", os.path.join(path, "artifacts", artifact + ".attnc"))
                  for label, path in prevs]
        return [(label, path) for label, path in found if os.path.exists(path)]
    systems = []
    for name, artifact in [("attnc", f"bench_cache_d128_{MASK}"),
                           ("attnc_mma", f"bench_cache_d128_{MASK}_mma")]:
        for label, path in builds(name, artifact):
            kern = attnc.Kernel(path)
            systems.append((label, lambda kern=kern: kern(q, k, v, out=out, kv_lens=kv_lens)[0]))
    for P in (16, 64):
        kerns = builds(f"attnc_paged{P}", f"bench_cache_d128_{MASK}_paged{P}")
        if not kerns:
            continue
        kp, vp, table = to_pages(k, v, P)
        for label, path in kerns:
            kern = attnc.Kernel(path)
            systems.append((label, lambda kern=kern, kp=kp, vp=vp, table=table: kern(
                q, kp, vp, out=out, kv_lens=kv_lens, page_table=table)[0]))
    for name, artifact in [("attnc_fp8", f"bench_cache_d128_{MASK}_fp8"),
                           ("attnc_fp8_mma", f"bench_cache_d128_{MASK}_fp8_mma")]:
        for label, path in builds(name, artifact):
            kern = attnc.Kernel(path)
            systems.append((label, lambda kern=kern: kern(
                q, k8, v8, out=out, kv_lens=kv_lens, kv_scales=scales)[0]))
            references[label] = (ref8, naive8)
    paged8 = builds("attnc_fp8_paged16", f"bench_cache_d128_{MASK}_fp8_paged16")
    if paged8:
        kp8, vp8, table8 = to_pages(k8, v8, 16)
    for label, path in paged8:
        kern = attnc.Kernel(path)
        systems.append((label, lambda kern=kern: kern(
            q, kp8, vp8, out=out, kv_lens=kv_lens, page_table=table8,
            kv_scales=scales)[0]))
        references[label] = (ref8, naive8)
    try:
        from flash_attn import flash_attn_with_kvcache
        qf = q.transpose(1, 2)
        kf, vf = k0.transpose(1, 2), v0.transpose(1, 2)
        systems.append(("flash_attn", lambda: flash_attn_with_kvcache(
            qf, kf, vf, cache_seqlens=kv_lens, causal=MASK == "causal").transpose(1, 2)))
    except ImportError:
        line = "flash_attn             not installed"
        print(line, flush=True)
        results.append(line)
    from torch.nn.attention.flex_attention import create_block_mask, flex_attention
    Lt = kv_lens.long()
    if MASK == "causal":
        def cache_mask(b, h, qi, ki):
            return (ki < Lt[b]) & (ki <= qi + Lt[b] - SQ)
    else:
        def cache_mask(b, h, qi, ki):
            return ki < Lt[b]
    bm = create_block_mask(cache_mask, B, None, SQ, SK, device=DEV)
    cflex = torch.compile(flex_attention, dynamic=False)
    systems.append(("flex", lambda: cflex(q, k0, v0, block_mask=bm, enable_gqa=True)))
    m = dense_mask(SQ, SK, lens)[:, None]
    systems.append(("sdpa_mask", lambda: F.scaled_dot_product_attention(
        q, k0, v0, attn_mask=m, enable_gqa=True)))

    # Check every system first, then time the checked ones ROUNDS times in
    # turn (the cache bench drifts up to 5% between runs and within one;
    # interleaved rounds see the same drift) and report the median.
    checked = []
    for name, f in systems:
        try:
            out.fill_(float("nan"))
            torch.cuda.synchronize()
            o = f()
            torch.cuda.synchronize()
            r, naive_r = references.get(name, (ref, naive_err))
            if name in references:
                naive_r = rel(naive_r, r)
            err = rel(gather(o), r)
            ok = err <= 1.25 * naive_r + 1e-6 and math.isfinite(err)
            if not ok:
                line = f"{name:22s} CHECK FAILED err={err:.2e} naive_bf16={naive_r:.2e}"
                print(line, flush=True)
                results.append(line)
                continue
            checked.append((name, f, err, naive_r))
        except Exception as e:  # a peer that cannot run this case
            line = f"{name:22s} FAILED {type(e).__name__}: {str(e)[:160]}"
            print(line, flush=True)
            results.append(line)
    times = {name: [] for name, _, _, _ in checked}
    for _ in range(ROUNDS):
        for name, f, _, _ in checked:
            times[name].append(do_bench(f, warmup=20, rep=200, return_mode="median"))
    for name, f, err, naive_r in checked:
        ms = sorted(times[name])[len(times[name]) // 2]
        rates = " ".join(f"{flops / t / 1e9:.1f}" for t in times[name])
        line = (f"{name:22s} {ms:8.3f} ms {flops / ms / 1e9:7.1f} TFLOP/s "
                f"err={err:.2e} (naive bf16 {naive_r:.2e}) rounds: {rates}")
        print(line, flush=True)
        results.append(line)


def main(build, cases):
    props = torch.cuda.get_device_properties(0)
    results = [f"# {props.name} torch {torch.__version__}"]
    print(results[0], flush=True)
    for c in cases or ["8:1024:8192", "4:2048:16384"]:
        B, SQ, SK = (int(x) for x in c.split(":"))
        run_case(build, B, SQ, SK, results)
    out_dir = os.environ.get("OUT")
    if out_dir:
        with open(os.path.join(out_dir, "cache_prefill_bench.txt"), "w") as f:
            f.write("\n".join(results) + "\n")


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2:])
