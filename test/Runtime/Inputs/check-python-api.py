"""attnc.attention's compile-and-cache path, without a GPU or torch.

Usage: check-python-api.py PYTHON_DIR ATTNC_BIN CACHE_DIR. Prints the spec of
a few calls (stand-in tensors), compiles one into an empty cache with the
attnc compiler, finds it there again without compiling, and shows the
message when neither the kernel nor a compiler is there.
"""
import os
import sys

sys.path.insert(0, sys.argv[1])
import attnc  # noqa: E402


class Dtype:
    def __init__(self, name):
        self.name = name

    def __str__(self):
        return self.name


class T:
    def __init__(self, shape, dtype="torch.bfloat16"):
        self.shape, self.dtype = tuple(shape), Dtype(dtype)


q, k, v = T((2, 8, 100, 64)), T((2, 2, 120, 64)), T((2, 2, 120, 64))
print("spec:", attnc.kernel_spec(q, k, v, mask="causal"))
print("spec:", attnc.kernel_spec(T((2, 100, 8, 128), "torch.float16"), T((2, 120, 1, 128)),
                                 T((2, 120, 1, 128)), mask="window:1023,0", softcap=30.0,
                                 return_lse=True, layout="bshd"))
# Decode-shaped calls (Sq x Hq/Hkv <= 16) get the decode kernel.
print("spec:", attnc.kernel_spec(T((64, 32, 1, 128)), T((64, 8, 8192, 128)),
                                 T((64, 8, 8192, 128)), mask="causal"))
for sq in (4, 5):  # 16 packed rows: decode; 20: prefill
    print("spec:", attnc.kernel_spec(T((1, sq, 16, 64)), T((1, 300, 4, 64)), T((1, 300, 4, 64)),
                                     layout="bshd"))
for bad in (dict(mask="document:4,4"), dict(layout="sbhd")):
    try:
        attnc.kernel_spec(q, k, v, **bad)
    except attnc.AttncError as e:
        print("error:", e)
try:
    attnc.kernel_spec(T((2, 8, 100, 64), "torch.float32"), k, v)
except attnc.AttncError as e:
    print("error:", e)

spec = attnc.kernel_spec(q, k, v, mask="causal")
cache = sys.argv[3]
a = attnc.cache_path(spec, "sm_90a", cache)
print("key differs by target:", a != attnc.cache_path(spec, "sm_80", cache))
print("key differs by variant:", a != attnc.cache_path(spec.replace("causal", "none"), "sm_90a", cache))

os.environ["ATTNC_BIN"] = sys.argv[2]
path = attnc.compile_kernel(spec, "sm_90a", cache)
print("compiled:", os.path.basename(path) == os.path.basename(a), os.path.getsize(path) > 1000)
with open(path, "rb") as f:
    head = f.read(600).decode("latin1")
print("manifest target:", "target = sm_90a" in head, "spec:", "mask=causal" in head)
# Found in the cache again: no compiler is needed.
os.environ["ATTNC_BIN"] = "/nonexistent/attnc"
os.environ["PATH"] = ""
print("cached:", attnc.compile_kernel(spec, "sm_90a", cache) == path)
try:
    attnc.compile_kernel(spec.replace("causal", "none"), "sm_90a", cache + "-empty")
except attnc.AttncError as e:
    print("error:", e)
