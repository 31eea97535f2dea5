"""Writes bench/conformance.list: the GPU conformance sweep.

Each line is `name | compile spec | run spec; run spec; ...`. The compile
spec fixes everything but the sizes; each run spec changes only b, sq, sk
(and document lengths), so one artifact serves all of its runs.
"""
import itertools


def spec(**kw):
    order = ["b", "hq", "hkv", "sq", "sk", "d", "dv", "dtype", "mask", "softcap", "alibi"]
    parts = []
    for k in order:
        if k in kw and kw[k] is not None:
            parts.append("alibi" if k == "alibi" else f"{k}={kw[k]}")
    return " ".join(parts)


masks = {
    "none": "none",
    "causal": "causal",
    "causal_tl": "causal:top_left",
    "window": "window:100,0",
    "window2": "window:37,20:top_left",
    "prefix": "prefix:77",
    "blocksparse": "blocksparse:64,64,0.5",
}
sizes = [(2, 1000, 1000), (1, 1, 777), (1, 129, 127), (1, 300, 100), (3, 77, 1031)]


def o_row_stride_runs(d, base):
    """Runs with O's rows d + 8 elements apart, and d + 1 with one query row."""
    return [spec(b=2, sq=1000, sk=1000, **base) + f" @o_row_stride={d + 8}",
            spec(b=3, sq=1, sk=777, **base) + f" @o_row_stride={d + 1}"]


lines = []
for (mname, m), d, dtype, (hq, hkv) in itertools.product(
        masks.items(), [64, 128], ["bf16", "f16"], [(8, 8), (8, 2)]):
    if dtype == "f16" and (hq, hkv) == (8, 8):
        continue
    name = f"{mname}_d{d}_{dtype}_gqa{hq // hkv}"
    base = dict(hq=hq, hkv=hkv, d=d, dtype=dtype, mask=m)
    runs = []
    for b, sq, sk in sizes:
        if m.startswith("blocksparse"):
            pass
        runs.append(spec(b=b, sq=sq, sk=sk, **base))
    # More work items than an H200 holds blocks (17 query tiles x 8 heads
    # x 3): the persistent grid's blocks (D = 128) each run several.
    if d == 128 and mname in ("none", "causal", "prefix"):
        runs.append(spec(b=3, sq=2100, sk=2001, **base))
    # No mask: items of one and of three key tiles, many to a block (the
    # consumers carry each next item's first tile from the item before).
    if d == 128 and mname == "none":
        runs.append(spec(b=8, sq=2000, sk=100, **base))
        runs.append(spec(b=4, sq=1500, sk=300, **base))
    # The persistent no-mask kernel's balanced tail (tail_splits) forced
    # (num_splits 2): the 12 items past 3 waves of 132 blocks, 24 items of
    # 6 key tiles (144 tiles over 132 blocks), and 8 items of 2 (16 tiles:
    # most blocks get none), besides the runtime's own choices above.
    if d == 128 and mname == "none":
        runs.append(spec(b=3, sq=2100, sk=2001, **base) + " @splits=2")
        runs.append(spec(b=3, sq=77, sk=1031, **base) + " @splits=2")
        runs.append(spec(b=1, sq=77, sk=300, **base) + " @splits=2")
    # D = 64 artifacts (and D = 128 ones without a mask) hold a second
    # kernel for short sequences (seq_q and seq_k at most 1024 without a
    # mask, 2048 under a causal mask, and nested in that one a third up to
    # 1024): runs at the bound take it, runs past it in either length the
    # main kernel.
    if mname == "none":  # D = 128 too: 128-key tiles up to 1024
        runs.append(spec(b=1, sq=1024, sk=1024, **base))
        runs.append(spec(b=1, sq=1025, sk=1100, **base))
    if d == 64 and mname in ("causal", "causal_tl"):
        # Under a causal mask the short kernel nests a third for sequences
        # of at most 1024 (one consumer warpgroup, three blocks a
        # multiprocessor): at its bound, and one past it.
        runs.append(spec(b=1, sq=1024, sk=1024, **base))
        runs.append(spec(b=2, sq=1025, sk=1000, **base))
        runs.append(spec(b=1, sq=2048, sk=2048, **base))
        runs.append(spec(b=1, sq=2100, sk=2001, **base))
        runs.append(spec(b=1, sq=1500, sk=2049, **base))
    # O written with padded rows (attnrt-run --o-row-stride): 8 elements past
    # each row (the 16-byte stores on a strided O) and, with one query row, an
    # odd stride, which takes the 4-byte stores behind the kernels' 16-byte
    # test (the runtime refuses such strides where a head has several rows).
    if mname in ("none", "causal") and dtype == "bf16" and (hq, hkv) == (8, 2):
        runs += o_row_stride_runs(d, base)
    lines.append(f"{name} | {spec(b=1, sq=128, sk=128, **base)} | {'; '.join(runs)}")
# A wide window (1024 keys: at D = 80-128 two warpgroups, persistent, as at
# D = 64 from 2048 keys, where 1024 takes one warpgroup, three blocks a
# multiprocessor; D = 80's O stores 16 bytes a lane but for its last 16
# columns), with more work items than an H200 holds blocks in the last run.
for d, dtype, keys in [(128, "bf16", 1024), (128, "f16", 1024), (64, "bf16", 1024),
                       (80, "bf16", 1024), (64, "bf16", 2048)]:
    base = dict(hq=8, hkv=2, d=d, dtype=dtype, mask=f"window:{keys - 1},0")
    runs = [spec(b=b, sq=sq, sk=sk, **base) for b, sq, sk in sizes[:3]]
    extra = keys - 1024  # the last run's queries past the window's keys as at 1024
    runs.append(spec(b=3, sq=2100 + extra, sk=2001 + extra, **base))
    wide = "widewindow" if keys == 1024 else f"widewindow{keys // 1024}k"
    lines.append(f"{wide}_d{d}_{dtype}_gqa4 | {spec(b=1, sq=128, sk=128, **base)} | {'; '.join(runs)}")
# Documents: lengths change per run.
for d, dtype, causal in [(64, "bf16", ""), (128, "f16", ":causal"), (64, "f16", ":causal"),
                         (128, "bf16", ""), (96, "bf16", ":causal"), (80, "bf16", ""),
                         (192, "bf16", ":causal"), (96, "bf16", "")]:
    m = f"document:100,28{causal}"
    base = dict(hq=4, hkv=2, d=d, dtype=dtype)
    runs = [spec(b=2, mask=f"document:1,500,37,462{causal}", **base),
            spec(b=1, mask=f"document:129{causal}", **base),
            spec(b=1, mask=f"document:64,64,64,1,300{causal}", **base),
            # Many query tiles of uneven cost, over several of the wgmma
            # block grid's longest-first groups.
            spec(b=2, mask=f"document:3000,17,900,129,2100,1{causal}", **base),
            # Documents starting in a query tile's first rows: most of the
            # tile's rows (a later consumer warpgroup's all) see none of the
            # previous document's key tiles, which the tile computes.
            spec(b=1, mask=f"document:200,60,250,30,500,5,150{causal}", **base)]
    # D = 64: past 8192 tokens the main kernel (three warpgroups), below it
    # the short-sequence one (one warpgroup, three blocks a multiprocessor;
    # at D = 80-128 under the causal mask two, up to 2048 tokens).
    if d == 64:
        runs.append(spec(b=1, mask=f"document:5000,17,3000,129,1000{causal}", **base))
    lines.append(f"document{causal.replace(':', '_')}_d{d}_{dtype} | {spec(b=1, mask=m, **base)} | {'; '.join(runs)}")
# Score modifications.
for name, extra in [("softcap", dict(softcap=30)), ("alibi", dict(alibi=True)),
                    ("softcap_alibi", dict(softcap=20, alibi=True))]:
    for m in ["none", "causal", "window:64,0"]:
        base = dict(hq=8, hkv=2, d=64, dtype="bf16", mask=m, **extra)
        runs = [spec(b=b, sq=sq, sk=sk, **base) for b, sq, sk in sizes[:3]]
        # D = 64 soft-capped causal (cap 30): short-sequence kernels on
        # 64-key tiles up to 2048 queries and keys and on 96-key ones up to
        # 4096, the main kernel past them: a run between and a run past.
        if (name, m) == ("softcap", "causal"):
            runs.append(spec(b=1, sq=2500, sk=2503, **base))
            runs.append(spec(b=1, sq=4100, sk=4097, **base))
        lines.append(f"{name}_{m.split(':')[0]} | {spec(b=1, sq=128, sk=128, **base)} | {'; '.join(runs)}")
# Soft-capped D = 128 prefill: bf16 at caps whose softmax takes the cap as
# the reference (30; 34, near the bound 34.65), with a row maximum (50; f16).
for name, extra in [("softcap_causal_d128", dict(mask="causal", softcap=30)),
                    ("softcap_prefix_d128", dict(mask="prefix:77", softcap=30)),
                    ("softcap34_causal_d128", dict(mask="causal", softcap=34)),
                    ("softcap50_causal_d128", dict(mask="causal", softcap=50)),
                    ("softcap_causal_d128_f16", dict(mask="causal", softcap=30,
                                                     dtype="f16"))]:
    base = dict(hq=8, hkv=2, d=128, dtype="bf16")
    base.update(extra)
    runs = [spec(b=b, sq=sq, sk=sk, **base) for b, sq, sk in sizes[:3] + [sizes[4]]]
    lines.append(f"{name} | {spec(b=1, sq=128, sk=128, **base)} | {'; '.join(runs)}")
# Soft-capped cu_seqlens documents (D = 128: the causal documents'
# short-sequence kernel up to 2048 tokens, the persistent pairs past it).
base = dict(hq=8, hkv=2, d=128, dtype="bf16", softcap=30)
runs = [spec(b=b, mask=f"document:{lengths}:causal", **base)
        for b, lengths in [(2, "1,500,37,462"), (1, "200,60,250,30,500,5,150"),
                           (1, "5000,17,3000,129,1000")]]
lines.append(f"softcap_document_d128 | {spec(b=1, mask='document:100,28:causal', **base)} | "
             f"{'; '.join(runs)}")
# Other head dims.
for d in [32, 80, 96, 192, 256]:
    base = dict(hq=4, hkv=1, d=d, dtype="bf16", mask="causal")
    runs = [spec(b=b, sq=sq, sk=sk, **base) for b, sq, sk in sizes[:3]]
    if d in (32, 80, 96, 192):  # two kernels, as at D = 64
        runs += [spec(b=1, sq=2048, sk=2048, **base), spec(b=1, sq=2100, sk=2001, **base)]
    if d == 192:  # the short kernel's O through shared memory (staged_stores)
        runs += o_row_stride_runs(d, base)
    lines.append(f"causal_d{d}_bf16 | {spec(b=1, sq=128, sk=128, **base)} | {'; '.join(runs)}")
# D = 32 under a window: D = 64's one warpgroup on 64-key tiles, three blocks
# a multiprocessor, with more blocks than an H200 holds at once in the last run.
base = dict(hq=4, hkv=1, d=32, dtype="bf16", mask="window:100,0")
runs = [spec(b=b, sq=sq, sk=sk, **base) for b, sq, sk in sizes[:3]]
runs.append(spec(b=4, sq=2100, sk=2001, **base))  # 528 blocks, 396 resident
lines.append(f"window_d32_bf16 | {spec(b=1, sq=128, sk=128, **base)} | {'; '.join(runs)}")
# Head dims 80, 96 and 192 without a mask (on the persistent grid, with its
# tail split), under a prefix-LM mask, a window and a soft-capped causal
# mask, GQA 2, and f16 under a causal mask, GQA 4 (both of D = 80's and
# 96's kernels); more work items than an H200 holds blocks in their last
# runs.
for d in [80, 96, 192]:
    for mname, m, dtype, hq, cap in [("none", "none", "bf16", 4, None),
                                     ("prefix", "prefix:77", "bf16", 4, None),
                                     ("window", "window:100,0", "bf16", 4, None),
                                     ("softcap", "causal", "bf16", 4, 30),
                                     ("causal", "causal", "f16", 8, None)]:
        base = dict(hq=hq, hkv=2, d=d, dtype=dtype, mask=m, softcap=cap)
        runs = [spec(b=b, sq=sq, sk=sk, **base) for b, sq, sk in sizes]
        runs.append(spec(b=3, sq=2100, sk=2001, **base))
        if mname == "none":
            runs.append(spec(b=3, sq=2100, sk=2001, **base) + " @splits=2")
        lines.append(f"{mname}_d{d}_{dtype}_gqa{hq // 2} | {spec(b=1, sq=128, sk=128, **base)} | {'; '.join(runs)}")
# D = 256 without a mask (80-key tiles on sm_90a).
base = dict(hq=4, hkv=1, d=256, dtype="bf16", mask="none")
runs = [spec(b=b, sq=sq, sk=sk, **base) for b, sq, sk in sizes[:3] + sizes[4:]]
runs.append(spec(b=5, sq=2100, sk=2001, **base) + " @splits=2")
lines.append(f"none_d256_bf16 | {spec(b=1, sq=128, sk=128, **base)} | {'; '.join(runs)}")
# Block masks of other block sizes (on sm_90a: blocks of 8-key multiples take
# 128-key tiles, keys blocks wider or narrower than a tile; D = 256 falls
# back from spilling configurations; D = 192 on the overlapped schedule's
# compacted ring).
for d, blocks in [(128, "128,128"), (64, "128,256"), (128, "32,16"),
                  (256, "64,64"), (128, "64,4"), (192, "128,128"), (192, "16,32")]:
    base = dict(hq=8, hkv=2, d=d, dtype="bf16", mask=f"blocksparse:{blocks},0.5")
    runs = [spec(b=b, sq=sq, sk=sk, **base) for b, sq, sk in sizes[:3] + sizes[4:]]
    name = "blocks" + blocks.replace(",", "x")
    lines.append(f"{name}_d{d}_bf16_gqa4 | {spec(b=1, sq=128, sk=128, **base)} | {'; '.join(runs)}")
# GQA 7, MQA.
for hq, hkv in [(7, 1), (14, 2)]:
    base = dict(hq=hq, hkv=hkv, d=128, dtype="bf16", mask="causal")
    runs = [spec(b=b, sq=sq, sk=sk, **base) for b, sq, sk in sizes[:3]]
    lines.append(f"causal_gqa{hq // hkv}_hq{hq} | {spec(b=1, sq=128, sk=128, **base)} | {'; '.join(runs)}")

# Decode kernels (decode=1: gqa_pack, split_kv). A run spec may end in
# "@splits=N" (attnrt-run --splits=N) or "@plan=N" (an attnrt_plan work list
# for N resident blocks, 0: the device's; attnrt-run --plan=N); otherwise
# the runtime chooses the splits.
decode_sizes = ["b=3 sq=1 sk=777", "b=1 sq=1 sk=8191", "b=2 sq=1 sk=3001 @splits=7",
                "b=1 sq=1 sk=1", "b=1 sq=5 sk=1000 @splits=3", "b=1 sq=129 sk=127",
                "b=3 sq=1 sk=777 @plan=0", "b=1 sq=1 sk=8191 @plan=0",
                "b=1 sq=5 sk=1000 @plan=7"]
def decode_runs(base):
    runs = []
    for sizes_text in decode_sizes:
        spec_text, _, splits = sizes_text.partition(" @")
        kw = dict(x.split("=") for x in spec_text.split())
        run = spec(b=kw["b"], sq=kw["sq"], sk=kw["sk"], **base) + " decode=1"
        runs.append(run + (f" @{splits}" if splits else ""))
    return runs
for (mname, m), d, (hq, hkv) in itertools.product(masks.items(), [64, 128],
                                                   [(8, 8), (8, 2), (16, 2)]):
    base = dict(hq=hq, hkv=hkv, d=d, dtype="bf16", mask=m)
    lines.append(f"decode_{mname}_d{d}_bf16_gqa{hq // hkv} | "
                 f"{spec(b=1, sq=1, sk=128, **base)} decode=1 | {'; '.join(decode_runs(base))}")
for name, extra in [("f16_causal", dict(dtype="f16", mask="causal")),
                    ("softcap_causal", dict(dtype="bf16", mask="causal", softcap=30)),
                    ("softcap_alibi_causal", dict(dtype="bf16", mask="causal", softcap=20,
                                                  alibi=True))]:
    base = dict(hq=8, hkv=2, d=128, **extra)
    lines.append(f"decode_{name}_d128_gqa4 | {spec(b=1, sq=1, sk=128, **base)} decode=1 | "
                 f"{'; '.join(decode_runs(base))}")
base = dict(hq=8, hkv=2, d=128, dtype="bf16")
runs = [spec(b=2, mask="document:1,500,37,462:causal", **base) + " decode=1 @splits=5",
        spec(b=1, mask="document:64,64,64,1,300:causal", **base) + " decode=1",
        spec(b=2, mask="document:1,500,37,462:causal", **base) + " decode=1 @plan=0"]
lines.append(f"decode_document_causal_d128_gqa4 | "
             f"{spec(b=1, mask='document:100,28:causal', **base)} decode=1 | {'; '.join(runs)}")

# KV caches: per-sequence lengths (kv_lens=1: the first sequence full, the
# second of one key, the fourth empty) and paged caches (paged=P: shuffled
# pages, a spare page of NaN, the third sequence sharing the first one's
# first page), prefill and decode: on sm_90a a prefill over a contiguous
# 16-bit cache (kv_lens) takes the wgmma kernel, pages, fp8 codes and
# decode the mma.sync kernels.
def cache_runs(base, sizes, extra=""):
    runs = []
    for text in sizes:
        spec_text, _, splits = text.partition(" @")
        kw = dict(x.split("=") for x in spec_text.split())
        run = spec(b=kw["b"], sq=kw["sq"], sk=kw["sk"], **base) + extra
        runs.append(run + (f" @{splits}" if splits else ""))
    return runs
def round_up(n, p):
    return (n + p - 1) // p * p
for (mname, m), d in itertools.product(
        [("none", "none"), ("causal", "causal"), ("window", "window:100,0"),
         ("prefix", "prefix:77")], [64, 128]):
    base = dict(hq=8, hkv=2, d=d, dtype="bf16", mask=m)
    sizes_text = ["b=5 sq=100 sk=1000", "b=4 sq=129 sk=127", "b=1 sq=1 sk=777",
                  "b=3 sq=300 sk=100"]
    lines.append(f"cache_{mname}_d{d}_kvlens | {spec(b=1, sq=128, sk=128, **base)} kv_lens=1 | "
                 f"{'; '.join(cache_runs(base, sizes_text, ' kv_lens=1'))}")
for (mname, m), d, page in [(("causal", "causal"), 64, 16), (("causal", "causal"), 128, 1),
                            (("window", "window:37,20:top_left"), 128, 64),
                            (("none", "none"), 64, 256)]:
    base = dict(hq=8, hkv=2, d=d, dtype="bf16", mask=m)
    sizes_text = [f"b=5 sq=100 sk={round_up(1000, page)}", f"b=4 sq=129 sk={round_up(127, page)}",
                  f"b=3 sq=300 sk={round_up(100, page)}"]
    lines.append(f"cache_{mname}_d{d}_paged{page} | {spec(b=1, sq=128, sk=round_up(128, page), **base)}"
                 f" paged={page} | {'; '.join(cache_runs(base, sizes_text, f' paged={page}'))}")
for (mname, m), d, (hq, hkv), page in itertools.product(
        [("none", "none"), ("causal", "causal"), ("window", "window:100,0")], [64, 128],
        [(8, 8), (8, 2), (16, 2)], [16]):
    base = dict(hq=hq, hkv=hkv, d=d, dtype="bf16", mask=m)
    sizes_text = [f"b=5 sq=1 sk={round_up(777, page)}", f"b=1 sq=1 sk={round_up(8191, page)} @splits=7",
                  f"b=4 sq=5 sk={round_up(1000, page)} @splits=3", f"b=2 sq=1 sk={page}",
                  f"b=4 sq=1 sk={round_up(3001, page)}", f"b=5 sq=1 sk={round_up(3001, page)} @plan=0",
                  f"b=4 sq=5 sk={round_up(1000, page)} @plan=5"]
    lines.append(f"decode_cache_{mname}_d{d}_gqa{hq // hkv}_paged{page} | "
                 f"{spec(b=1, sq=1, sk=round_up(128, page), **base)} decode=1 paged={page} | "
                 f"{'; '.join(cache_runs(base, sizes_text, f' decode=1 paged={page}'))}")
for name, page, extra in [("causal_paged1", 1, dict(mask="causal")),
                          ("causal_paged8", 8, dict(mask="causal")),
                          ("causal_paged256", 256, dict(mask="causal")),
                          ("causal_kvlens", 0, dict(mask="causal")),
                          ("softcap_alibi_paged16", 16, dict(mask="causal", softcap=20,
                                                             alibi=True))]:
    base = dict(hq=8, hkv=2, d=128, dtype="bf16", **extra)
    p = max(page, 1)
    flag = f" paged={page}" if page else " kv_lens=1"
    sizes_text = [f"b=5 sq=1 sk={round_up(777, p)}", f"b=1 sq=1 sk={round_up(8191, p)} @splits=7",
                  f"b=4 sq=5 sk={round_up(1000, p)} @splits=3",
                  f"b=5 sq=1 sk={round_up(3001, p)} @plan=0"]
    lines.append(f"decode_cache_{name}_d128_gqa4 | {spec(b=1, sq=1, sk=round_up(128, p), **base)}"
                 f" decode=1{flag} | {'; '.join(cache_runs(base, sizes_text, ' decode=1' + flag))}")

# fp8 e4m3 caches (kv_dtype=fp8: codes with per-head scales), sm_90a.
for (mname, m), d, dtype in itertools.product(
        [("none", "none"), ("causal", "causal"), ("window", "window:100,0")], [64, 128],
        ["bf16", "f16"]):
    base = dict(hq=8, hkv=2, d=d, dtype=dtype, mask=m)
    sizes_text = ["b=2 sq=1000 sk=1000", "b=1 sq=129 sk=127", "b=3 sq=77 sk=1031",
                  "b=1 sq=1 sk=777"]
    lines.append(f"fp8_{mname}_d{d}_{dtype} | {spec(b=1, sq=128, sk=128, **base)} kv_dtype=fp8 | "
                 f"{'; '.join(cache_runs(base, sizes_text, ' kv_dtype=fp8'))}")
for name, page, extra in [("causal_kvlens", 0, dict(mask="causal")),
                          ("window_paged16", 16, dict(mask="window:37,20:top_left"))]:
    base = dict(hq=8, hkv=2, d=128, dtype="bf16", **extra)
    flag = (f" paged={page}" if page else " kv_lens=1") + " kv_dtype=fp8"
    p = max(page, 1)
    sizes_text = [f"b=5 sq=100 sk={round_up(1000, p)}", f"b=4 sq=129 sk={round_up(127, p)}"]
    lines.append(f"fp8_{name}_d128 | {spec(b=1, sq=128, sk=round_up(128, p), **base)}{flag} | "
                 f"{'; '.join(cache_runs(base, sizes_text, flag))}")
for (mname, m), d, (hq, hkv) in itertools.product(
        [("none", "none"), ("causal", "causal")], [64, 128], [(8, 8), (8, 2), (16, 2)]):
    base = dict(hq=hq, hkv=hkv, d=d, dtype="bf16", mask=m)
    flag = " decode=1 paged=16 kv_dtype=fp8"
    sizes_text = ["b=5 sq=1 sk=784", "b=1 sq=1 sk=8192 @splits=7", "b=4 sq=5 sk=1008 @splits=3",
                  "b=4 sq=1 sk=3008", "b=5 sq=1 sk=3008 @plan=0"]
    lines.append(f"decode_fp8_{mname}_d{d}_gqa{hq // hkv}_paged16 | "
                 f"{spec(b=1, sq=1, sk=128, **base)}{flag} | {'; '.join(cache_runs(base, sizes_text, flag))}")
# Pages of 8 and 256 rows: 16 boxes and 1 box a 128-key tile (sm_90a).
for name, flag, extra in [("causal", " decode=1 kv_dtype=fp8", dict(mask="causal")),
                          ("causal_paged8", " decode=1 paged=8 kv_dtype=fp8", dict(mask="causal")),
                          ("causal_paged256", " decode=1 paged=256 kv_dtype=fp8",
                           dict(mask="causal")),
                          ("softcap_alibi_paged16", " decode=1 paged=16 kv_dtype=fp8",
                           dict(mask="causal", softcap=20, alibi=True))]:
    base = dict(hq=8, hkv=2, d=128, dtype="bf16", **extra)
    p = int(flag.split("paged=")[1].split()[0]) if "paged=" in flag else 16
    sizes_text = [f"b=5 sq=1 sk={round_up(784, p)}", "b=1 sq=1 sk=8192 @splits=7",
                  f"b=4 sq=5 sk={round_up(1008, p)} @splits=3",
                  f"b=3 sq=1 sk={round_up(3008, p)} @plan=0"]
    lines.append(f"decode_fp8_{name}_d128_gqa4 | {spec(b=1, sq=1, sk=round_up(128, p), **base)}{flag} | "
                 f"{'; '.join(cache_runs(base, sizes_text, flag))}")
# Contiguous fp8 decode (codes by TMA at D=128) over GQA 1 and 8, a window,
# kv_lens and f16 queries.
for name, extra, flag, b_first, b_plan, sk_split3 in [
        ("none_d128_gqa1", dict(hq=8, hkv=8, mask="none"), " decode=1 kv_dtype=fp8", 3, 2, 1001),
        ("window_d128_gqa8", dict(hq=16, hkv=2, mask="window:100,0"), " decode=1 kv_dtype=fp8",
         3, 2, 1001),
        ("kvlens_d128_gqa4", dict(hq=8, hkv=2, mask="causal"), " decode=1 kv_lens=1 kv_dtype=fp8",
         5, 5, 1000),
        ("f16_causal_d128_gqa4", dict(hq=8, hkv=2, mask="causal", dtype="f16"),
         " decode=1 kv_dtype=fp8", 3, 2, 1001)]:
    base = dict(dict(d=128, dtype="bf16"), **extra)
    sizes_text = [f"b={b_first} sq=1 sk=777", "b=1 sq=1 sk=8191 @splits=7",
                  f"b=4 sq=5 sk={sk_split3} @splits=3", f"b={b_plan} sq=1 sk=3001 @plan=0"]
    lines.append(f"decode_fp8_{name} | {spec(b=1, sq=1, sk=128, **base)}{flag} | "
                 f"{'; '.join(cache_runs(base, sizes_text, flag))}")
# f16 queries over caches: paged and kv_lens prefill, paged decode, and an fp8
# paged decode (P V in f16 either way).
for name, flag, extra, sizes_text in [
        ("cache_causal_d128_f16_paged16", " paged=16", dict(mask="causal"),
         ["b=5 sq=100 sk=1008", "b=4 sq=129 sk=128", "b=3 sq=300 sk=112"]),
        ("cache_window_d64_f16_kvlens", " kv_lens=1", dict(mask="window:100,0", d=64),
         ["b=5 sq=100 sk=1000", "b=4 sq=129 sk=127", "b=1 sq=1 sk=777"]),
        ("decode_cache_causal_d128_f16_gqa4_paged16", " decode=1 paged=16", dict(mask="causal"),
         ["b=5 sq=1 sk=784", "b=1 sq=1 sk=8192 @splits=7", "b=4 sq=5 sk=1008 @splits=3",
          "b=5 sq=1 sk=3008 @plan=0"]),
        ("decode_fp8_causal_d128_f16_gqa4_paged16", " decode=1 paged=16 kv_dtype=fp8",
         dict(mask="causal"),
         ["b=5 sq=1 sk=784", "b=1 sq=1 sk=8192 @splits=7", "b=3 sq=1 sk=3008 @plan=0"])]:
    base = dict(hq=8, hkv=2, dtype="f16", **dict(dict(d=128), **extra))
    sq = 1 if "decode" in flag else 128
    lines.append(f"{name} | {spec(b=1, sq=sq, sk=128, **base)}{flag} | "
                 f"{'; '.join(cache_runs(base, sizes_text, flag))}")
# The other masks a cache takes (prefix-LM, block masks; documents are
# refused with a cache): paged and kv_lens prefill, paged decode, fp8.
bs = "blocksparse:64,64,0.5"
for name, flag, mask, d, sizes_text in [
        ("cache_prefix_d64_paged16", " paged=16", "prefix:77", 64,
         ["b=5 sq=100 sk=1008", "b=4 sq=129 sk=128", "b=3 sq=300 sk=112"]),
        ("cache_blocksparse_d128_paged16", " paged=16", bs, 128,
         ["b=5 sq=100 sk=1008", "b=4 sq=129 sk=128", "b=3 sq=300 sk=112"]),
        ("cache_blocksparse_d64_kvlens", " kv_lens=1", bs, 64,
         ["b=5 sq=100 sk=1000", "b=4 sq=129 sk=127", "b=1 sq=1 sk=777"]),
        ("decode_cache_prefix_d128_gqa4_paged16", " decode=1 paged=16", "prefix:77", 128,
         ["b=5 sq=1 sk=784", "b=1 sq=1 sk=8192 @splits=7", "b=4 sq=5 sk=1008 @splits=3",
          "b=5 sq=1 sk=3008 @plan=0"]),
        ("decode_cache_blocksparse_d64_gqa4_paged16", " decode=1 paged=16", bs, 64,
         ["b=5 sq=1 sk=784", "b=1 sq=1 sk=8192 @splits=7", "b=4 sq=5 sk=1008 @splits=3",
          "b=5 sq=1 sk=3008 @plan=0"]),
        ("fp8_prefix_d128", " kv_dtype=fp8", "prefix:77", 128,
         ["b=2 sq=1000 sk=1000", "b=1 sq=129 sk=127", "b=1 sq=300 sk=100"]),
        ("fp8_blocksparse_d64", " kv_dtype=fp8", bs, 64,
         ["b=2 sq=1000 sk=1000", "b=1 sq=129 sk=127", "b=1 sq=300 sk=100"])]:
    base = dict(hq=8, hkv=2, d=d, dtype="bf16", mask=mask)
    sq = 1 if "decode" in flag else 128
    lines.append(f"{name} | {spec(b=1, sq=sq, sk=128, **base)}{flag} | "
                 f"{'; '.join(cache_runs(base, sizes_text, flag))}")

# The wgmma kernel over kv_lens caches (sm_90a) at more head dims and score
# modifications: other key tiles (80 at D = 256 without a mask, 64 at
# D = 192) and the configurations the compiler falls back to.
for name, d, extra in [
        ("cache_none_d256_kvlens", 256, dict(mask="none")),
        ("cache_causal_d96_kvlens", 96, dict(mask="causal")),
        ("cache_causal_d192_kvlens", 192, dict(mask="causal")),
        ("cache_softcap_causal_d128_kvlens", 128, dict(mask="causal", softcap=30)),
        ("cache_alibi_causal_d128_kvlens", 128, dict(mask="causal", alibi=1))]:
    base = dict(hq=8, hkv=2, d=d, dtype="bf16", **extra)
    sizes_text = ["b=5 sq=100 sk=1000", "b=4 sq=129 sk=127", "b=2 sq=700 sk=2001",
                  "b=3 sq=300 sk=100"]
    lines.append(f"{name} | {spec(b=1, sq=128, sk=128, **base)} kv_lens=1 | "
                 f"{'; '.join(cache_runs(base, sizes_text, ' kv_lens=1'))}")
# ... and over pages (sm_90a: a TMA box a page, or a key tile of a larger
# page): 160-key tiles over pages of 32 rows and of 16 (10 boxes a tile),
# 96-key tiles over pages of 24, pages of 8 (16 boxes a tile), a tile of a
# page of 256, 80-key tiles of 5 boxes at D = 256.
for name, d, page, extra in [
        ("cache_none_d128_paged32", 128, 32, dict(mask="none")),
        ("cache_none_d128_paged16", 128, 16, dict(mask="none")),
        ("cache_causal_d128_paged24", 128, 24, dict(mask="causal")),
        ("cache_causal_d128_paged8", 128, 8, dict(mask="causal")),
        ("cache_causal_d128_paged256", 128, 256, dict(mask="causal")),
        ("cache_none_d256_paged16", 256, 16, dict(mask="none"))]:
    base = dict(hq=8, hkv=2, d=d, dtype="bf16", **extra)
    sizes_text = [f"b=5 sq=100 sk={round_up(1000, page)}", f"b=4 sq=129 sk={round_up(127, page)}",
                  f"b=2 sq=700 sk={round_up(2001, page)}", f"b=3 sq=300 sk={round_up(100, page)}"]
    lines.append(f"{name} | {spec(b=1, sq=128, sk=round_up(128, page), **base)} paged={page} | "
                 f"{'; '.join(cache_runs(base, sizes_text, f' paged={page}'))}")

# Ragged batches (ragged=: queries packed by cu_seqlens_q; keys packed by
# cu_seqlens_k, or in a cache of the sequences), on the mma.sync prefill
# kernel: prefill and decode rows mixed in one launch, a sequence with
# queries but no keys, one with more queries than keys, empty sequences, and
# sequences drawn from the seed (ragged=1).
ragged_sizes = ["ragged=1000:1000,1:777,129:127,0:50,300:100,77:1031,5:0",
                "b=6 sq=200 sk=304 ragged=1", "ragged=1:1",
                "ragged=513:513,257:257,1:1,64:64,0:0,200:1000"]
def ragged_runs(base, extra=""):
    runs = []
    for text in ragged_sizes:
        kw = dict(x.split("=") for x in text.split())
        run = spec(**{k: kw[k] for k in ("b", "sq", "sk") if k in kw}, **base)
        runs.append(f"{run} ragged={kw['ragged']}{extra}")
    return runs
for (mname, m), d, (hq, hkv) in itertools.product(
        [x for x in masks.items() if x[0] != "blocksparse"], [64, 128], [(8, 8), (8, 2)]):
    base = dict(hq=hq, hkv=hkv, d=d, dtype="bf16", mask=m)
    lines.append(f"ragged_{mname}_d{d}_bf16_gqa{hq // hkv} | "
                 f"{spec(b=1, sq=128, sk=128, **base)} ragged=1 | {'; '.join(ragged_runs(base))}")
for name, extra in [("f16_causal", dict(dtype="f16", mask="causal")),
                    ("softcap_alibi_causal", dict(dtype="bf16", mask="causal", softcap=20,
                                                  alibi=True))]:
    base = dict(hq=8, hkv=2, d=128, **extra)
    lines.append(f"ragged_{name}_d128_gqa4 | {spec(b=1, sq=128, sk=128, **base)} ragged=1 | "
                 f"{'; '.join(ragged_runs(base))}")
for name, flag in [("kvlens", " kv_lens=1"), ("paged16", " paged=16"),
                   ("fp8", " kv_dtype=fp8"), ("fp8_paged16", " paged=16 kv_dtype=fp8")]:
    for d in [64, 128]:
        base = dict(hq=8, hkv=2, d=d, dtype="bf16", mask="causal")
        lines.append(f"ragged_causal_d{d}_gqa4_{name} | {spec(b=1, sq=128, sk=128, **base)} "
                     f"ragged=1{flag} | {'; '.join(ragged_runs(base, flag))}")

# The rest of the serving matrix (issue 9: every mask x contiguous/kv_lens/
# paged/ragged x bf16/f16 queries/fp8 codes x decode/prefill), one entry for
# each combination the entries above leave out; D alternates between 64 and
# 128 over the masks. Documents take no cache (kv_lens, pages, ragged keys).
matrix_masks = [("none", "none", 64), ("causal", "causal", 128),
                ("window", "window:37,20:top_left", 64), ("prefix", "prefix:77", 128),
                ("blocksparse", bs, 64), ("document", "document:100,28:causal", 128)]
matrix = [
    # (name, flag, mode, query dtype, masks)
    ("decode_f16", " decode=1", "decode", "f16",
     ["none", "window", "prefix", "blocksparse", "document"]),
    ("decode_fp8", " decode=1 kv_dtype=fp8", "decode", "bf16",
     ["prefix", "blocksparse", "document"]),
    ("decode_kvlens", " decode=1 kv_lens=1", "decode", "bf16",
     ["none", "window", "prefix", "blocksparse"]),
    ("decode_kvlens_f16", " decode=1 kv_lens=1", "decode", "f16",
     ["none", "causal", "window", "prefix", "blocksparse"]),
    ("decode_kvlens_fp8", " decode=1 kv_lens=1 kv_dtype=fp8", "decode", "bf16",
     ["none", "window", "prefix", "blocksparse"]),
    ("decode_paged16_f16", " decode=1 paged=16", "decode", "f16",
     ["none", "window", "prefix", "blocksparse"]),
    ("decode_paged16_fp8", " decode=1 paged=16 kv_dtype=fp8", "decode", "bf16",
     ["window", "prefix", "blocksparse"]),
    ("fp8", " kv_dtype=fp8", "prefill", "bf16", ["document"]),
    ("kvlens_f16", " kv_lens=1", "prefill", "f16", ["none", "causal", "prefix", "blocksparse"]),
    ("kvlens_fp8", " kv_lens=1 kv_dtype=fp8", "prefill", "bf16",
     ["none", "window", "prefix", "blocksparse"]),
    ("paged16_f16", " paged=16", "prefill", "f16", ["none", "window", "prefix", "blocksparse"]),
    ("paged16_fp8", " paged=16 kv_dtype=fp8", "prefill", "bf16",
     ["none", "causal", "prefix", "blocksparse"]),
    ("ragged_f16", " ragged=1", "ragged", "f16", ["none", "window", "prefix"]),
    ("ragged_fp8", " ragged=1 kv_dtype=fp8", "ragged", "bf16", ["none", "window", "prefix"]),
    ("ragged_paged16", " ragged=1 paged=16", "ragged", "bf16", ["none", "window", "prefix"]),
    ("ragged_paged16_f16", " ragged=1 paged=16", "ragged", "f16",
     ["none", "causal", "window", "prefix"]),
    ("ragged_paged16_fp8", " ragged=1 paged=16 kv_dtype=fp8", "ragged", "bf16",
     ["none", "window", "prefix"]),
]
for name, flag, mode, dtype, wanted in matrix:
    for mname, m, d in matrix_masks:
        if mname not in wanted:
            continue
        base = dict(hq=8, hkv=2, d=d, dtype=dtype, mask=m)
        if mode == "ragged":
            extra = flag.replace(" ragged=1", "")
            lines.append(f"matrix_{name}_{mname}_d{d} | {spec(b=1, sq=128, sk=128, **base)}"
                         f"{flag} | {'; '.join(ragged_runs(base, extra))}")
            continue
        p = 16 if "paged=16" in flag else 1
        if mname == "document":
            runs = [spec(b=b, **dict(base, mask=f"document:{lengths}:causal")) + flag
                    for b, lengths in [(2, "1,500,37,462"), (1, "64,64,64,1,300")]]
        elif mode == "decode":
            sizes_text = [f"b=5 sq=1 sk={round_up(777, p)}",
                          f"b=1 sq=1 sk={round_up(8191, p)} @splits=7",
                          f"b=4 sq=5 sk={round_up(1000, p)} @splits=3",
                          f"b=3 sq=1 sk={round_up(3001, p)} @plan=0"]
            runs = cache_runs(base, sizes_text, flag)
        else:
            sizes_text = [f"b=5 sq=100 sk={round_up(1000, p)}",
                          f"b=4 sq=129 sk={round_up(127, p)}",
                          f"b=3 sq=300 sk={round_up(100, p)}"]
            runs = cache_runs(base, sizes_text, flag)
        sq = 1 if mode == "decode" else 128
        # Document lengths give the sizes.
        sizes = {} if mname == "document" else dict(sq=sq, sk=128)
        lines.append(f"matrix_{name}_{mname}_d{d} | {spec(b=1, **sizes, **base)}{flag} | "
                     f"{'; '.join(runs)}")

# Block grids per batch entry and per query head (block_mask=bh: different
# random blocks in each), prefill and decode, dense and over caches: a kernel
# reading another entry's or head's grid fails.
for name, flag, d, sizes_text in [
        ("blocks_bh_d128", " block_mask=bh", 128,
         ["b=2 sq=1000 sk=1000", "b=3 sq=129 sk=127", "b=2 sq=300 sk=100",
          "b=1 sq=129 sk=4500"]),
        ("blocks_b_d64_kvlens", " block_mask=b kv_lens=1", 64,
         ["b=5 sq=100 sk=1000", "b=4 sq=129 sk=127", "b=2 sq=70 sk=2700"]),
        ("decode_blocks_bh_d128_gqa4", " block_mask=bh decode=1", 128,
         ["b=3 sq=1 sk=777", "b=2 sq=1 sk=3001 @splits=7", "b=3 sq=1 sk=777 @plan=0",
          "b=2 sq=5 sk=1000 @splits=3"]),
        ("decode_blocks_bh_d64_gqa4_paged16", " block_mask=bh decode=1 paged=16", 64,
         ["b=5 sq=1 sk=784", "b=4 sq=5 sk=1008 @splits=3", "b=5 sq=1 sk=3008 @plan=0"])]:
    base = dict(hq=8, hkv=2, d=d, dtype="bf16", mask=bs)
    sq = 1 if "decode" in flag else 128
    lines.append(f"{name} | {spec(b=1, sq=sq, sk=128, **base)}{flag} | "
                 f"{'; '.join(cache_runs(base, sizes_text, flag))}")

# Block-sparse masks in a ragged batch: each sequence reads its own plane
# (block_mask=b, bh) or the shared one at its own positions, the planes
# sized to the packed query rows; packed keys (the wgmma kernel on sm_90a)
# and caches (the mma.sync kernel), blocks narrower and wider than tiles.
for name, m, d, dtype, flag in [
        ("ragged_blocks_bh_d64_gqa4", bs, 64, "bf16", " block_mask=bh"),
        ("ragged_blocks_b_d128_gqa4", "blocksparse:32,16,0.5", 128, "bf16", " block_mask=b"),
        ("ragged_blocks_shared_d128_f16_gqa4", "blocksparse:128,256,0.5", 128, "f16", ""),
        ("ragged_blocks_bh_d64_gqa4_paged16", bs, 64, "bf16", " block_mask=bh paged=16"),
        ("ragged_blocks_h_d128_gqa4_kvlens_f16", "blocksparse:32,64,0.4", 128, "f16",
         " block_mask=h kv_lens=1"),
        ("ragged_blocks_bh_d128_gqa4_fp8", bs, 128, "bf16", " block_mask=bh kv_dtype=fp8"),
        ("ragged_blocks_b_d64_gqa4_paged16_fp8", bs, 64, "bf16",
         " block_mask=b paged=16 kv_dtype=fp8")]:
    base = dict(hq=8, hkv=2, d=d, dtype=dtype, mask=m)
    lines.append(f"{name} | {spec(b=1, sq=128, sk=128, **base)} ragged=1{flag} | "
                 f"{'; '.join(ragged_runs(base, flag))}")

with open("bench/conformance.list", "w") as f:
    f.write("# Generated by bench/make_conformance_list.py: name | compile spec | run specs\n")
    f.write("\n".join(lines) + "\n")
print(len(lines), "artifacts,", sum(l.count(";") + 1 for l in lines), "runs")
