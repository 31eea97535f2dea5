"""Writes q, k, v and two block masks ([1,1,4,5] and [1,4,4,5]) for block-sparse-heads.mlir."""
import numpy as np, sys
d = sys.argv[1]
rng = np.random.default_rng(1)
for n, s in [("q", (1,4,64,32)), ("k", (1,4,70,32)), ("v", (1,4,70,32))]:
    np.save(f"{d}/{n}.npy", rng.standard_normal(s).astype(np.float32))
np.save(f"{d}/bm11.npy", np.ones((1,1,4,5), dtype=np.uint8))
np.save(f"{d}/bm14.npy", (rng.random((1,4,4,5)) < 0.5).astype(np.uint8))
