"""Prints dtype, shape and finiteness of .npy files: check_npy.py F SHAPE ..."""
import os
import sys

import numpy as np

args = sys.argv[1:]
for path, shape in zip(args[::2], args[1::2]):
    a = np.load(path)
    want = tuple(int(s) for s in shape.split(","))
    assert a.shape == want, (path, a.shape, want)
    # Output rows are finite; LSE rows of fully masked queries may be -inf.
    ok = np.all(np.isfinite(a) | np.isneginf(a))
    print(os.path.basename(path), a.dtype, a.shape, "finite" if ok else "NON-FINITE")
