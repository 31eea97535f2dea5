"""Host time of attnc.validate_arguments (the checks every attnc.Kernel call
runs before it launches), on the CPU without torch or a GPU.

Usage: python3 bench/validate_bench.py
It borrows the stand-in tensors of test/Runtime/Inputs/check-python-validation.py
(whose own checks run once, silenced, when it is loaded), validates a decode
call (B=64, Hq=32, Hkv=8, D=128, out and lse given) and prints the best of 9
rounds of 5000 calls, in microseconds a call. Stand-ins are plain Python
objects: torch tensors' attribute reads cost differently, so this times the
checks' own Python work, not a whole call on the GPU machine.
"""
import contextlib
import importlib.util
import io
import os
import sys
import timeit

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
TEST = os.path.join(ROOT, "test", "Runtime", "Inputs", "check-python-validation.py")

sys.argv = [sys.argv[0], os.path.join(ROOT, "python")]
spec = importlib.util.spec_from_file_location("standins", TEST)
standins = importlib.util.module_from_spec(spec)
with contextlib.redirect_stdout(io.StringIO()):
    spec.loader.exec_module(standins)
attnc, T, F32 = standins.attnc, standins.T, standins.F32

manifest = dict(standins.MANIFEST, reads_block_mask="0", split_kv="1", num_q_heads="32",
                num_kv_heads="8", head_dim="128", value_head_dim="128")
args = dict(q=T((64, 32, 1, 128)), k=T((64, 8, 8192, 128)), v=T((64, 8, 8192, 128)),
            out=T((64, 32, 1, 128)), lse=T((64, 32, 1), F32))
attnc.validate_arguments(manifest, **args)  # a valid call: raises otherwise
best = min(timeit.repeat(lambda: attnc.validate_arguments(manifest, **args),
                         number=5000, repeat=9)) / 5000
print(f"validate_arguments (decode call, stand-in tensors): {best * 1e6:.2f} us a call")
