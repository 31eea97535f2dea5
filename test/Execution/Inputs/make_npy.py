"""Writes random q, k, v .npy files: make_npy.py DIR B H SQ SK D."""
import sys

import numpy as np

out, b, h, sq, sk, d = sys.argv[1], *map(int, sys.argv[2:])
rng = np.random.default_rng(7)
np.save(f"{out}/q.npy", rng.standard_normal((b, h, sq, d)))
np.save(f"{out}/k.npy", rng.standard_normal((b, h, sk, d)))
np.save(f"{out}/v.npy", rng.standard_normal((b, h, sk, d)))
