"""One decode step of a 32-layer model, eager and captured in a CUDA graph,
for attnc and SDPA (cuDNN) on the same tensors: B sequences of one query
token, Hq=32, Hkv=8, D=128, bf16, a contiguous cache of Sk keys per layer
(artifact bench_decode_d128_none; its split count is fixed once, so the
graph replays without asking the device). Before timing, layers 0 and 31
of each system, eager and replayed, are checked on 3 (batch, head) pairs
against float64 (decode_bench.reference, within 1.25x the naive bf16
error). Usage: python3 bench/graph_decode.py BUILD_GPU_DIR [B:Sk]
(default 16:4096); OUT=dir writes graph_decode.txt.
"""
import math
import os
import sys

import torch
import torch.nn.functional as F
from torch.nn.attention import SDPBackend, sdpa_kernel
from triton.testing import do_bench

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from decode_bench import DEV, D, HKV, HQ, attnc, reference  # noqa: E402

LAYERS = 32


def main():
    build = sys.argv[1]
    B, Sk = (int(x) for x in (sys.argv[2] if len(sys.argv) > 2 else "16:4096").split(":"))
    torch.manual_seed(0)
    q = [torch.randn(B, HQ, 1, D, device=DEV, dtype=torch.bfloat16) for _ in range(LAYERS)]
    k = [torch.randn(B, HKV, Sk, D, device=DEV, dtype=torch.bfloat16) for _ in range(LAYERS)]
    v = [torch.randn(B, HKV, Sk, D, device=DEV, dtype=torch.bfloat16) for _ in range(LAYERS)]
    out = [torch.empty(B, HQ, 1, D, device=DEV, dtype=torch.bfloat16) for _ in range(LAYERS)]
    kern = attnc.Kernel(os.path.join(build, "artifacts", "bench_decode_d128_none.attnc"))
    splits = 0  # the runtime's choice for this shape, fixed below

    def attnc_step():
        for layer in range(LAYERS):
            kern(q[layer], k[layer], v[layer], out=out[layer], num_splits=splits)

    def sdpa_step():
        with sdpa_kernel(SDPBackend.CUDNN_ATTENTION):
            for layer in range(LAYERS):
                out[layer].copy_(F.scaled_dot_product_attention(q[layer], k[layer], v[layer],
                                                                enable_gqa=True))

    pairs = [(0, 0), (0, HQ - 1), (B - 1, 5)]
    refs = {layer: reference(q[layer], k[layer], v[layer], pairs) for layer in (0, LAYERS - 1)}

    def check(name):
        torch.cuda.synchronize()
        for layer, (ref, naive) in refs.items():
            got = torch.stack([out[layer][b, h] for b, h in pairs])
            err = ((got.double() - ref).norm() / ref.norm()).item()
            bar = 1.25 * ((naive.double() - ref).norm() / ref.norm()).item() + 1e-6
            if not (err <= bar and math.isfinite(err)):
                raise SystemExit(f"{name}: layer {layer} CHECK FAILED err={err:.2e} bar={bar:.2e}")
        for o in out:
            o.fill_(float("nan"))

    results = [f"# {torch.cuda.get_device_properties(0).name} torch {torch.__version__}",
               f"# {LAYERS} layers, decode B={B} Sk={Sk} Hq={HQ} Hkv={HKV} D={D} bf16"]
    # The runtime's split count for this shape, then fixed for the graph.
    a = attnc._Args()
    a.dtype, a.batch, a.num_q_heads, a.num_kv_heads = 0, B, HQ, HKV
    a.seq_q, a.seq_k, a.head_dim, a.value_head_dim = 1, Sk, D, D
    a.q, a.k, a.v, a.o = q[0].data_ptr(), k[0].data_ptr(), v[0].data_ptr(), out[0].data_ptr()
    # The artifact writes the LSE: the split count query validates the whole launch.
    lse0 = torch.empty(B, HQ, 1, device=DEV, dtype=torch.float32)
    if kern.manifest["reads_lse"] == "1":
        a.lse = lse0.data_ptr()
    for name, t in (("q_strides", q[0]), ("k_strides", k[0]), ("v_strides", v[0]),
                    ("o_strides", out[0])):
        getattr(a, name)[:] = list(t.stride())
    splits = kern.num_splits(a)
    results.append(f"# attnc key splits: {splits}")
    for name, step in (("attnc", attnc_step), ("sdpa_cudnn", sdpa_step)):
        step()
        check(f"{name} eager")
        graph = torch.cuda.CUDAGraph()
        with torch.cuda.graph(graph):
            step()
        graph.replay()
        check(f"{name} graph")
        eager_ms = do_bench(step, warmup=10, rep=200, return_mode="median")
        graph_ms = do_bench(graph.replay, warmup=10, rep=200, return_mode="median")
        results.append(f"{name:11s} eager {eager_ms * 1000:8.1f} us  graph {graph_ms * 1000:8.1f} us"
                       f"  ({eager_ms / graph_ms:4.2f}x)")
        print(results[-1], flush=True)
    if os.environ.get("OUT"):
        with open(os.path.join(os.environ["OUT"], "graph_decode.txt"), "w") as f:
            f.write("\n".join(results) + "\n")


if __name__ == "__main__":
    main()
