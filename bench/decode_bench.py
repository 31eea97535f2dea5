"""Decode attention (one query token per sequence) side by side with
FlexAttention and PyTorch SDPA, and the same-run HBM copy bandwidth.

Runs on the GPU machine: python3 bench/decode_bench.py BUILD_GPU_DIR [B:Sk ...]
(default cases 64:8192 and 1:131072; SPLITS="2 4" also times those forced
key-split counts, of the fp8 kernels with SPLITS_OF=fp8 or fp8_paged16; PEERS=0 leaves out
FlexAttention and SDPA, for sweeps of attnc variants; TIMING=graph times
CUDA-graph replays, without the host time of each call), Hq=32, Hkv=8, D=128, bf16, K/V
contiguous [B, Hkv, Sk, D], and the same keys through a KV cache
(attnc_kvlens: kv_lens over the contiguous tensors; attnc_paged16: pages of
16 rows in shuffled order). The artifacts bench_decode_d128_{none,causal,
kvlens,paged16} come from scripts/build-gpu-artifacts.sh (spec decode=1: GQA packing and
split-KV). A single query row sees every key, so causal (bottom-right) and
no mask compute the same thing. DECODE_D=64 runs the same at D=64 with the
bench_decode_d64_* artifacts the build has (no mask and causal).

Every system's output is checked first against a float64 reference on
(batch, head) pairs; attnc must be within 1.25x the error of a naive bf16
implementation there or its timing is not reported. TFLOP/s = 4 * B * Hq *
D * Sk / time; KV GB/s = bytes of K and V / time, also given as a fraction
of the copy bandwidth (read + write bytes of a 4 GiB device copy / time).
"""
import math
import os
import sys

import torch
import torch.nn.functional as F
from torch.nn.attention import SDPBackend, sdpa_kernel
from triton.testing import do_bench, do_bench_cudagraph

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python"))
import attnc  # noqa: E402

DEV = "cuda"
HQ, HKV = 32, 8
# DECODE_D=64 times the bench_decode_d64_* artifacts (those that exist).
D = int(os.environ.get("DECODE_D", "128"))
# TIMING=graph times each system's calls replayed from a CUDA graph (as
# serving engines run decode) instead of launched from Python one by one:
# no host time per call, which otherwise shows in short launches.
GRAPH = os.environ.get("TIMING") == "graph"


def kernel(build, name):
    """attnc.Kernel of artifact bench_decode_d{D}_{name}, or None if the
    build has none."""
    path = os.path.join(build, "artifacts", f"bench_decode_d{D}_{name}.attnc")
    return attnc.Kernel(path) if os.path.exists(path) else None


def reference(q, k, v, pairs, kn=None, vn=None):
    """float64 outputs on `pairs`, and a naive implementation's in q's
    16-bit type on the tensors kn, vn (k, v when not given)."""
    kn = k if kn is None else kn
    vn = v if vn is None else vn
    out64, naive = [], []
    g = HQ // HKV
    for b, h in pairs:
        qh, kh, vh = q[b, h].double(), k[b, h // g].double(), v[b, h // g].double()
        s = (qh @ kh.T) / math.sqrt(D)
        out64.append(torch.softmax(s, dim=-1) @ vh)
        sb = ((q[b, h] @ kn[b, h // g].T).float() / math.sqrt(D)).to(q.dtype).float()
        naive.append((torch.softmax(sb, dim=-1).to(vn.dtype) @ vn[b, h // g]).float())
    return torch.stack(out64), torch.stack(naive)


def copy_bandwidth(results):
    x = torch.empty(1 << 31, dtype=torch.int16, device=DEV)
    y = torch.empty_like(x)
    ms = do_bench(lambda: y.copy_(x), warmup=20, rep=200, return_mode="median")
    gbs = 2 * x.numel() * 2 / ms / 1e6
    line = f"copy 4 GiB device-to-device: {ms:.3f} ms, {gbs:.0f} GB/s (read + write)"
    print(line, flush=True)
    results.append(line)
    del x, y
    torch.cuda.empty_cache()
    return gbs


def run_peers(systems, q, k, v):
    """FlexAttention and the SDPA backends on q, k, v (none with PEERS=0,
    for sweeps of attnc variants whose peers a full run has timed)."""
    if os.environ.get("PEERS", "1") == "0":
        return
    from torch.nn.attention.flex_attention import flex_attention
    cflex = torch.compile(flex_attention, dynamic=False)
    systems.append(("flex", lambda: cflex(q, k, v, enable_gqa=True)))
    systems.append(("sdpa_default", lambda: F.scaled_dot_product_attention(q, k, v, enable_gqa=True)))
    for name, be in [("sdpa_flash", SDPBackend.FLASH_ATTENTION),
                     ("sdpa_efficient", SDPBackend.EFFICIENT_ATTENTION),
                     ("sdpa_cudnn", SDPBackend.CUDNN_ATTENTION)]:
        def f(be=be):
            with sdpa_kernel(be):
                return F.scaled_dot_product_attention(q, k, v, enable_gqa=True)
        systems.append((name, f))


def run(build, B, Sk, copy_gbs, results):
    torch.manual_seed(0)
    q = torch.randn(B, HQ, 1, D, device=DEV, dtype=torch.bfloat16)
    k = torch.randn(B, HKV, Sk, D, device=DEV, dtype=torch.bfloat16)
    v = torch.randn(B, HKV, Sk, D, device=DEV, dtype=torch.bfloat16)
    pairs = [(0, 0), (0, HQ - 1), (B - 1, 5)]
    ref, naive = reference(q, k, v, pairs)
    naive_err = ((naive.double() - ref).norm() / ref.norm()).item()
    kv_bytes = 2 * B * HKV * Sk * D * 2
    flops = 4 * B * HQ * D * Sk
    case = f"decode B={B} Sk={Sk} Hq={HQ} Hkv={HKV} D={D}"

    systems = []
    for mask in ("none", "causal"):
        kern = kernel(build, mask)
        if kern:
            systems.append((f"attnc_{mask}", lambda kern=kern: kern(q, k, v)[0]))
    # The same keys and values through a KV cache: per-sequence lengths
    # (all Sk) over the contiguous tensors, and pages of 16 rows in a
    # shuffled order ([num_pages, 16, Hkv, D], page_table [B, Sk / 16]).
    lens = torch.full((B,), Sk, dtype=torch.int32, device=DEV)
    kern_lens = kernel(build, "kvlens")
    if kern_lens:
        systems.append(("attnc_kvlens", lambda: kern_lens(q, k, v, kv_lens=lens)[0]))
    pages = B * Sk // 16
    perm = torch.randperm(pages, device=DEV)
    def paged(x):
        logical = x.transpose(1, 2).reshape(pages, 16, HKV, D)
        out = torch.empty_like(logical)
        out[perm] = logical
        return out
    kp, vp = paged(k), paged(v)
    table = perm.view(B, Sk // 16).to(torch.int32).contiguous()
    kern_paged = kernel(build, "paged16")
    if kern_paged:
        systems.append(("attnc_paged16",
                        lambda: kern_paged(q, kp, vp, kv_lens=lens, page_table=table)[0]))
    # fp8 e4m3 codes with per-head scales (max |x| / 448), contiguous and in
    # the same shuffled pages; checked against their own float64 reference on
    # the dequantised values (and their own naive bf16 bar).
    def quantize(x):
        scale = x.float().abs().amax(dim=(0, 2, 3)) / 448
        codes = (x.float() / scale.view(1, HKV, 1, 1)).to(torch.float8_e4m3fn)
        return codes, scale
    k8, ks = quantize(k)
    v8, vs = quantize(v)
    scales = torch.stack([ks, vs]).contiguous()
    kd = (k8.float() * ks.view(1, HKV, 1, 1)).to(torch.float64)
    vd = (v8.float() * vs.view(1, HKV, 1, 1)).to(torch.float64)
    kern_fp8 = kernel(build, "fp8")
    kern_fp8p = kernel(build, "fp8_paged16")
    k8p, v8p = paged(k8.view(torch.uint8)).view(torch.float8_e4m3fn), \
        paged(v8.view(torch.uint8)).view(torch.float8_e4m3fn)
    fp8_systems = []
    if kern_fp8:
        fp8_systems.append(("attnc_fp8", lambda: kern_fp8(q, k8, v8, kv_scales=scales)[0]))
    if kern_fp8p:
        fp8_systems.append(("attnc_fp8_paged16",
                            lambda: kern_fp8p(q, k8p, v8p, kv_lens=lens, page_table=table,
                                              kv_scales=scales)[0]))
    kern1 = kernel(build, "none")
    # Forced split counts (SPLITS="1 2 4 ..."; default: 1, the unsplit kernel)
    # of the bf16 kernel, or with SPLITS_OF=fp8 (fp8_paged16) of the fp8 one.
    splits_of = os.environ.get("SPLITS_OF", "none")
    for n in os.environ.get("SPLITS", "1").split():
        n = int(n)
        if splits_of == "fp8" and kern_fp8:
            fp8_systems.append((f"attnc_fp8_{n}split", lambda n=n: kern_fp8(
                q, k8, v8, kv_scales=scales, num_splits=n)[0]))
        elif splits_of == "fp8_paged16" and kern_fp8p:
            fp8_systems.append((f"attnc_fp8p_{n}split", lambda n=n: kern_fp8p(
                q, k8p, v8p, kv_lens=lens, page_table=table, kv_scales=scales,
                num_splits=n)[0]))
        elif splits_of == "none" and kern1:
            systems.append((f"attnc_{n}split", lambda n=n: kern1(q, k, v, num_splits=n)[0]))
    run_peers(systems, q, k, v)

    ref8, naive8 = reference(q, kd, vd, pairs, kd.bfloat16(), vd.bfloat16())
    naive8_err = ((naive8.double() - ref8).norm() / ref8.norm()).item()
    checks = {name: (ref8, naive8_err) for name, _ in fp8_systems}
    systems[2:2] = fp8_systems
    for name, f in systems:
        ref_, naive_err_ = checks.get(name, (ref, naive_err))
        try:
            torch.cuda.synchronize()
            o = f()
            torch.cuda.synchronize()
            got = torch.stack([o[b, h] for b, h in pairs])
            err = ((got.double() - ref_).norm() / ref_.norm()).item()
            ok = err <= 1.25 * naive_err_ + 1e-6 and math.isfinite(err)
            if name.startswith("attnc") and not ok:
                line = f"{case} {name:14s} CHECK FAILED err={err:.2e} naive_bf16={naive_err_:.2e}"
                print(line, flush=True)
                results.append(line)
                continue
            if GRAPH:
                ms = do_bench_cudagraph(f, rep=100, return_mode="median")
            else:
                ms = do_bench(f, warmup=50, rep=300, return_mode="median")
            # The bytes of K and V this system reads (fp8: one a value).
            gbs = kv_bytes / (2 if name in checks else 1) / ms / 1e6
            line = (f"{case} {name:14s} {ms * 1000:9.1f} us {flops / ms / 1e9:6.1f} TFLOP/s "
                    f"KV {gbs:5.0f} GB/s = {gbs / copy_gbs:5.1%} of copy  err={err:.2e} "
                    f"(naive bf16 {naive_err_:.2e})")
        except Exception as e:  # a peer that cannot run this case
            line = f"{case} {name:14s} FAILED {type(e).__name__}: {str(e)[:100]}"
        print(line, flush=True)
        results.append(line)
    del q, k, v, kp, vp, k8, v8, k8p, v8p, kd, vd
    torch.cuda.empty_cache()


if __name__ == "__main__":
    build = sys.argv[1]
    cases = sys.argv[2:] or ["64:8192", "1:131072"]
    props = torch.cuda.get_device_properties(0)
    results = [f"# {props.name} torch {torch.__version__} timing "
               f"{'CUDA graph replay' if GRAPH else 'per-call launches (do_bench)'}"]
    print(results[0], flush=True)
    gbs = copy_bandwidth(results)
    for c in cases:
        B, Sk = (int(x) for x in c.split(":"))
        run(build, B, Sk, gbs, results)
    out = os.environ.get("OUT")
    if out:
        with open(os.path.join(out, "decode.txt"), "w") as f:
            f.write("\n".join(results) + "\n")
