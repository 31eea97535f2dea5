#!/usr/bin/env python3
"""Compiles the artifacts of bench/bench.list with kernel configurations set by hand,
for side-by-side sweeps of #attn.gpu_kernel parameters (bench.py VARIANTS=...).

Usage: python3 bench/make_variants.py BUILD_DIR OUT_DIR NAME:D:KEY=VAL,KEY=VAL ...
  (LIST=bench/conformance.list ONLY=regex: that list's entries whose names match instead;
  D=0 takes every head dim)
  e.g. w4k64:128:warps=4,block_k=64   (block_q follows warps and m_tiles)
  NAME:D: (no parameters) compiles the entries as they are, the target's own choice with its
  short-sequence kernels: the baseline beside the variants (bench/kernel_ab.py).
Each variant NAME gets OUT_DIR/NAME/artifacts/bench_d{D}_{mask}.attnc for every
bench.list entry of head dim D: the chosen configuration (attnc compile --emit=attn)
with the given parameters replaced, compiled from that IR (the verifier and the
target check the result; a configuration they refuse is reported and skipped).
"""
import os
import re
import subprocess
import sys


def main():
    build, out = sys.argv[1], sys.argv[2]
    attnc = os.path.join(build, "bin", "attnc")
    here = os.path.dirname(os.path.abspath(__file__))
    entries = []
    only = re.compile(os.environ.get("ONLY", "."))
    for line in open(os.environ.get("LIST", os.path.join(here, "bench.list"))):
        if not line.strip() or line.startswith("#"):
            continue
        name, spec = (x.strip() for x in line.split("|")[:2])
        if "decode=1" in spec or not only.search(name):
            continue
        entries.append((name, spec))
    for variant in sys.argv[3:]:
        vname, dim, params = variant.split(":")
        sets = dict(kv.split("=") for kv in params.split(",")) if params else {}
        os.makedirs(os.path.join(out, vname, "artifacts"), exist_ok=True)
        for name, spec in entries:
            if dim != "0" and f"d={dim} " not in spec + " ":
                continue
            if not sets:
                path = os.path.join(out, vname, "artifacts", name + ".attnc")
                r = subprocess.run([attnc, "compile", "--spec", spec, "--target=sm_90a", "-o",
                                    path], capture_output=True, text=True)
                status = "ok" if r.returncode == 0 else "FAILED: " + r.stderr.strip().splitlines()[-1]
                print(f"{vname} {name}: the target's choice {status}")
                continue
            ir = subprocess.run([attnc, "compile", "--spec", spec, "--target=sm_90a",
                                 "--emit=attn"], capture_output=True, text=True, check=True).stdout
            m = re.search(r"#attn\.gpu_kernel<([^>]*)>", ir)
            fields = dict(f.strip().split(" = ") for f in m.group(1).split(","))
            for k, v in sets.items():
                fields[k] = v
            if "wgmma" in fields and fields["wgmma"] == "false":
                del fields["wgmma"]
            fields["block_q"] = str(16 * int(fields["m_tiles"]) * int(fields["warps"]))
            # The attribute's parameters parse in their declared order.
            order = ["chip", "block_q", "block_k", "warps", "m_tiles", "stages", "q_in_smem",
                     "gqa_pack", "key_warps", "split_kv", "wgmma", "persistent", "tma_loads",
                     "ping_pong", "wide_stores", "lazy_rescale", "trim_keys", "staged_stores",
                     "q_buffers", "blocks_per_sm", "chain_items", "exp2_fma"]
            fields = dict(sorted(fields.items(), key=lambda kv: order.index(kv[0])))
            config = "#attn.gpu_kernel<" + ", ".join(f"{k} = {v}" for k, v in fields.items()) + ">"
            ir = ir[:m.start()] + config + ir[m.end():]
            ir = re.sub(r", attn\.tile_sizes = array<i64: [0-9, ]*>", "", ir)
            path = os.path.join(out, vname, "artifacts", name + ".mlir")
            with open(path, "w") as f:
                f.write(ir)
            r = subprocess.run([attnc, "compile", path, "--target=sm_90a", "-o",
                                path[:-5] + ".attnc"], capture_output=True, text=True)
            status = "ok" if r.returncode == 0 else "REFUSED: " + r.stderr.strip().splitlines()[-1]
            print(f"{vname} {name}: {config} {status}")


if __name__ == "__main__":
    main()
