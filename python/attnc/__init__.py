"""attnc: run attnc kernels on PyTorch CUDA tensors through the runtime's C API.

    import attnc
    kernel = attnc.Kernel("causal.attnc")            # an artifact from `attnc compile`
    out, lse = kernel(q, k, v)                       # q [B, Hq, Sq, D], k/v [B, Hkv, Sk, D]

The launch goes on PyTorch's current stream and allocates only the outputs.
libattnrt.so is looked up next to the artifact, in $ATTNRT_LIB, or by name.
"""
import ctypes
import os

__all__ = ["Kernel", "AttncError"]

_DTYPES = {"bf16": 0, "f16": 1, "f32": 2}


class AttncError(RuntimeError):
    """A runtime call failed; the message is the runtime's."""


class _Args(ctypes.Structure):
    _fields_ = [
        ("dtype", ctypes.c_int),
        ("batch", ctypes.c_int64), ("num_q_heads", ctypes.c_int64),
        ("num_kv_heads", ctypes.c_int64), ("seq_q", ctypes.c_int64),
        ("seq_k", ctypes.c_int64), ("head_dim", ctypes.c_int64),
        ("value_head_dim", ctypes.c_int64),
        ("q", ctypes.c_void_p), ("k", ctypes.c_void_p), ("v", ctypes.c_void_p),
        ("o", ctypes.c_void_p), ("lse", ctypes.c_void_p),
        ("q_strides", ctypes.c_int64 * 4), ("k_strides", ctypes.c_int64 * 4),
        ("v_strides", ctypes.c_int64 * 4), ("o_strides", ctypes.c_int64 * 4),
        ("seq_ids", ctypes.c_void_p), ("cu_seqlens", ctypes.c_void_p),
        ("num_cu_seqlens", ctypes.c_int64),
        ("block_mask", ctypes.c_void_p),
        ("block_mask_b", ctypes.c_int64), ("block_mask_h", ctypes.c_int64),
        ("alibi_slopes", ctypes.c_void_p),
    ]


def _load_library(hint_dir):
    candidates = []
    if os.environ.get("ATTNRT_LIB"):
        candidates.append(os.environ["ATTNRT_LIB"])
    if hint_dir:
        candidates.append(os.path.join(hint_dir, "libattnrt.so"))
        candidates.append(os.path.join(hint_dir, "..", "libattnrt.so"))
    candidates.append("libattnrt.so")
    last = None
    for path in candidates:
        try:
            lib = ctypes.CDLL(path)
            break
        except OSError as e:
            last = e
    else:
        raise AttncError(f"cannot load libattnrt.so: {last}")
    lib.attnrt_last_error.restype = ctypes.c_char_p
    lib.attnrt_artifact_load_file.argtypes = [ctypes.c_char_p, ctypes.POINTER(ctypes.c_void_p)]
    lib.attnrt_artifact_get.restype = ctypes.c_char_p
    lib.attnrt_artifact_get.argtypes = [ctypes.c_void_p, ctypes.c_char_p]
    lib.attnrt_launch.argtypes = [ctypes.c_void_p, ctypes.POINTER(_Args), ctypes.c_void_p]
    lib.attnrt_validate.argtypes = [ctypes.c_void_p, ctypes.POINTER(_Args)]
    lib.attnrt_artifact_destroy.argtypes = [ctypes.c_void_p]
    return lib


class Kernel:
    """One compiled attention: load once, call on many tensors."""

    def __init__(self, path):
        self._lib = _load_library(os.path.dirname(os.path.abspath(path)))
        handle = ctypes.c_void_p()
        if self._lib.attnrt_artifact_load_file(path.encode(), ctypes.byref(handle)) != 0:
            raise AttncError(self._lib.attnrt_last_error().decode())
        self._handle = handle
        self.manifest = {key: self._get(key) for key in (
            "spec", "target", "dtype", "num_q_heads", "num_kv_heads", "head_dim",
            "value_head_dim", "reads_lse", "reads_cu_seqlens", "reads_seq_ids",
            "reads_block_mask", "reads_alibi_slopes")}

    def _get(self, key):
        v = self._lib.attnrt_artifact_get(self._handle, key.encode())
        return v.decode() if v is not None else None

    def __del__(self):
        if getattr(self, "_handle", None):
            self._lib.attnrt_artifact_destroy(self._handle)
            self._handle = None

    def __call__(self, q, k, v, *, out=None, lse=None, seq_ids=None, cu_seqlens=None,
                 block_mask=None, alibi_slopes=None, stream=None):
        """Runs the kernel; returns (out, lse) (lse is None without one)."""
        import torch
        if out is None:
            out = torch.empty(q.shape[:3] + (v.shape[3],), device=q.device, dtype=q.dtype)
        if lse is None and self.manifest["reads_lse"] == "1":
            lse = torch.empty(q.shape[:3], device=q.device, dtype=torch.float32)
        a = _Args()
        a.dtype = _DTYPES[self.manifest["dtype"]]
        a.batch, a.num_q_heads, a.seq_q, a.head_dim = q.shape
        a.num_kv_heads, a.seq_k = k.shape[1], k.shape[2]
        a.value_head_dim = v.shape[3]
        a.q, a.k, a.v, a.o = q.data_ptr(), k.data_ptr(), v.data_ptr(), out.data_ptr()
        a.lse = lse.data_ptr() if lse is not None else None
        for name, t in (("q_strides", q), ("k_strides", k), ("v_strides", v), ("o_strides", out)):
            getattr(a, name)[:] = list(t.stride())
        if seq_ids is not None:
            a.seq_ids = seq_ids.data_ptr()
        if cu_seqlens is not None:
            a.cu_seqlens = cu_seqlens.data_ptr()
            a.num_cu_seqlens = cu_seqlens.numel()
        if block_mask is not None:
            a.block_mask = block_mask.data_ptr()
            a.block_mask_b, a.block_mask_h = block_mask.shape[0], block_mask.shape[1]
        if alibi_slopes is not None:
            a.alibi_slopes = alibi_slopes.data_ptr()
        if stream is None:
            stream = torch.cuda.current_stream(q.device).cuda_stream
        if self._lib.attnrt_launch(self._handle, ctypes.byref(a), ctypes.c_void_p(stream)) != 0:
            raise AttncError(self._lib.attnrt_last_error().decode())
        return out, lse
