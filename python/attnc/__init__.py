"""attnc: run attnc kernels on PyTorch CUDA tensors through the runtime's C API.

    import attnc
    out = attnc.attention(q, k, v, mask="causal")    # compiled and cached on first use
    kernel = attnc.Kernel("causal.attnc")            # or an artifact from `attnc compile`
    out, lse = kernel(q, k, v)                       # q [B, Hq, Sq, D], k/v [B, Hkv, Sk, D]
    out, lse = ragged(q, k, v, cu_seqlens_q=cu_q, cu_seqlens_k=cu_k)  # q [Tq, Hq, D] packed

The launch goes on PyTorch's current stream and allocates only the outputs.
libattnrt.so is looked up next to the artifact, in $ATTNRT_LIB, or by name.
"""
import ctypes
import numbers
import os

__all__ = ["Kernel", "WorkList", "AttncError", "validate_arguments"]

_DTYPES = {"bf16": 0, "f16": 1, "f32": 2}
# The torch dtype of each artifact dtype, by name (no torch import needed).
_TORCH_DTYPE_NAMES = {"bf16": "torch.bfloat16", "f16": "torch.float16", "f32": "torch.float32"}



def needs_scratch(manifest):
    """Whether a launch of the artifact of `manifest` may need scratch
    (attnrt_scratch_size): a split_kv kernel, a persistent kernel with tail
    splits, or a short-sequence kernel beside the main one (which may have
    tail splits of its own: its manifest is not the main one's)."""
    return "1" in (manifest.get("split_kv"), manifest.get("tail_splits")) or \
        manifest.get("short_kernel_max_seq") not in (None, "0")

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
        ("num_splits", ctypes.c_int64), ("scratch", ctypes.c_void_p),
        ("scratch_bytes", ctypes.c_size_t),
        ("kv_lens", ctypes.c_void_p), ("page_table", ctypes.c_void_p),
        ("max_pages", ctypes.c_int64), ("num_pages", ctypes.c_int64),
        ("kv_scales", ctypes.c_void_p),
        ("cu_seqlens_q", ctypes.c_void_p), ("cu_seqlens_k", ctypes.c_void_p),
        ("max_seqlen_q", ctypes.c_int64),
        ("plan", ctypes.c_void_p), ("plan_items", ctypes.c_int64),
        ("plan_partials", ctypes.c_int64),
    ]


class _PlanRequest(ctypes.Structure):
    """attnrt_plan_request (include/attnc/Runtime/attnrt_plan.h)."""
    _fields_ = [
        ("batch", ctypes.c_int32), ("num_kv_heads", ctypes.c_int32),
        ("group_size", ctypes.c_int32),
        ("seq_q", ctypes.c_void_p), ("seq_k", ctypes.c_void_p),
        ("block_q", ctypes.c_int32), ("block_k", ctypes.c_int32),
        ("causal", ctypes.c_int32), ("num_ctas", ctypes.c_int32),
        ("max_splits", ctypes.c_int32), ("min_split_tiles", ctypes.c_int32),
    ]


class _PlanInfo(ctypes.Structure):
    """attnrt_plan_info."""
    _fields_ = [
        ("num_items", ctypes.c_int32), ("num_partials", ctypes.c_int32),
        ("max_num_splits", ctypes.c_int32), ("items_offset", ctypes.c_size_t),
        ("total_cost", ctypes.c_int64), ("max_cta_cost", ctypes.c_int64),
    ]


_WORK_ITEM_BYTES = 32  # sizeof(attnrt_work_item)
_PLAN_ITEMS_OFFSET = 8  # ATTNRT_PLAN_ITEMS_OFFSET


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
    lib.attnrt_scratch_size.argtypes = [ctypes.c_void_p, ctypes.POINTER(_Args),
                                        ctypes.POINTER(ctypes.c_size_t)]
    lib.attnrt_num_splits.argtypes = [ctypes.c_void_p, ctypes.POINTER(_Args),
                                      ctypes.POINTER(ctypes.c_int64)]
    lib.attnrt_artifact_destroy.argtypes = [ctypes.c_void_p]
    lib.attnrt_plan_request_init.argtypes = [ctypes.c_void_p, ctypes.POINTER(_Args),
                                             ctypes.POINTER(_PlanRequest)]
    lib.attnrt_plan_workspace_size.argtypes = [ctypes.POINTER(_PlanRequest),
                                               ctypes.POINTER(ctypes.c_size_t)]
    lib.attnrt_plan.argtypes = [ctypes.POINTER(_PlanRequest), ctypes.c_void_p,
                                ctypes.c_size_t, ctypes.POINTER(_PlanInfo)]
    return lib


class WorkList:
    """An attnrt_plan work list of a split_kv (decode) kernel on one device:
    made by Kernel.plan, passed as kernel(..., plan=work_list). update()
    plans new lengths into the same device buffer (no device allocation: a
    CUDA graph that captured a call replays with the new plan, as long as it
    has at most `max_items` items, the bound the launches use)."""

    def __init__(self, kernel, request, device, seq_q, seq_k, max_items=None):
        import torch
        self._kernel = kernel
        self._request = request
        self.batch = request.batch
        self._host = None
        info = self._plan_on_host(seq_q, seq_k)
        self.max_items = max(info.num_items, int(max_items or 0), 1)
        self.buffer = torch.zeros(_PLAN_ITEMS_OFFSET + self.max_items * _WORK_ITEM_BYTES,
                                  dtype=torch.uint8, device=device)
        self._copy(info)

    def _plan_on_host(self, seq_q, seq_k):
        import torch
        seq_q = [int(x) for x in seq_q]
        seq_k = [int(x) for x in seq_k]
        if len(seq_q) != self._request.batch or len(seq_k) != self._request.batch:
            raise AttncError(f"expected {self._request.batch} query and key lengths, got "
                             f"{len(seq_q)} and {len(seq_k)}")
        lens_q = (ctypes.c_int32 * len(seq_q))(*seq_q)
        lens_k = (ctypes.c_int32 * len(seq_k))(*seq_k)
        self._request.seq_q = ctypes.cast(lens_q, ctypes.c_void_p)
        self._request.seq_k = ctypes.cast(lens_k, ctypes.c_void_p)
        lib = self._kernel._lib
        size = ctypes.c_size_t()
        if lib.attnrt_plan_workspace_size(ctypes.byref(self._request), ctypes.byref(size)) != 0:
            raise AttncError(lib.attnrt_last_error().decode())
        if self._host is None or self._host.numel() < size.value:
            self._host = torch.zeros(size.value, dtype=torch.uint8, pin_memory=True)
        elif hasattr(self, "buffer"):
            # The pinned buffer may still feed an earlier copy: wait for it.
            torch.cuda.current_stream(self.buffer.device).synchronize()
        info = _PlanInfo()
        if lib.attnrt_plan(ctypes.byref(self._request), ctypes.c_void_p(self._host.data_ptr()),
                           self._host.numel(), ctypes.byref(info)) != 0:
            raise AttncError(lib.attnrt_last_error().decode())
        return info

    def _copy(self, info):
        used = _PLAN_ITEMS_OFFSET + info.num_items * _WORK_ITEM_BYTES
        self.buffer[:used].copy_(self._host[:used], non_blocking=True)
        self.num_items, self.num_partials = info.num_items, info.num_partials

    def update(self, seq_q, seq_k):
        """Plans sequences of seq_q query and seq_k key lengths (host ints,
        one each per sequence) and copies the list to the device, ordered on
        the current stream before later calls."""
        info = self._plan_on_host(seq_q, seq_k)
        if info.num_items > self.max_items:
            raise AttncError(f"the plan has {info.num_items} items, more than this work "
                             f"list's max_items {self.max_items}")
        self._copy(info)
        return self


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
            "reads_block_mask", "reads_alibi_slopes", "mask_block_q", "mask_block_k",
            "split_kv", "gqa_pack", "reads_kv_lens", "page_size", "reads_kv_scales",
            "reads_cu_seqlens_q", "reads_cu_seqlens_k", "block_q", "block_k",
            "tail_splits", "short_kernel_max_seq")}
        # Split-KV scratch per (device, bytes), reused across calls.
        self._scratch = {}

    def launch(self, args, stream):
        """Launches with a filled attnrt_attention_args (`_Args`) on `stream`
        (a CUstream as int): no checks beyond the runtime's own."""
        if self._lib.attnrt_launch(self._handle, ctypes.byref(args), ctypes.c_void_p(stream)) != 0:
            raise AttncError(self._lib.attnrt_last_error().decode())

    def num_splits(self, args):
        """The key splits a launch with `args` uses (attnrt_num_splits)."""
        n = ctypes.c_int64()
        if self._lib.attnrt_num_splits(self._handle, ctypes.byref(args), ctypes.byref(n)) != 0:
            raise AttncError(self._lib.attnrt_last_error().decode())
        return n.value

    def scratch_size(self, args):
        """Scratch bytes a launch with `args` needs (attnrt_scratch_size)."""
        size = ctypes.c_size_t()
        if self._lib.attnrt_scratch_size(self._handle, ctypes.byref(args),
                                         ctypes.byref(size)) != 0:
            raise AttncError(self._lib.attnrt_last_error().decode())
        return size.value

    def plan(self, seq_q, seq_k, *, num_q_heads=None, device=None, num_ctas=0,
             max_items=None):
        """An attnrt_plan work list (WorkList) for a batch of len(seq_q)
        sequences of seq_q query and seq_k key lengths (host ints) on `device`
        (default: the current CUDA device). num_ctas: the thread blocks
        resident at once that the plan balances over (0: the device's for this
        kernel); max_items: the most items later update() calls may need
        (default: this plan's own count). Needs a split_kv artifact."""
        import torch
        if self.manifest.get("split_kv") != "1":
            raise AttncError("plan: the artifact has no split_kv kernel to run a work list")
        device = torch.device(device if device is not None else "cuda")
        a = _Args()
        a.batch = len(seq_q)
        a.num_q_heads = int(num_q_heads or self.manifest["num_q_heads"])
        request = _PlanRequest()
        with torch.cuda.device(device):
            if self._lib.attnrt_plan_request_init(self._handle, ctypes.byref(a),
                                                  ctypes.byref(request)) != 0:
                raise AttncError(self._lib.attnrt_last_error().decode())
            if num_ctas:
                request.num_ctas = int(num_ctas)
            return WorkList(self, request, device, seq_q, seq_k, max_items)

    def _get(self, key):
        v = self._lib.attnrt_artifact_get(self._handle, key.encode())
        return v.decode() if v is not None else None

    def __del__(self):
        if getattr(self, "_handle", None):
            self._lib.attnrt_artifact_destroy(self._handle)
            self._handle = None

    def __call__(self, q, k, v, *, out=None, lse=None, seq_ids=None, cu_seqlens=None,
                 block_mask=None, alibi_slopes=None, kv_lens=None, page_table=None,
                 kv_scales=None, stream=None, num_splits=0, cu_seqlens_q=None,
                 cu_seqlens_k=None, max_seqlen_q=0, plan=None):
        """Runs the kernel; returns (out, lse) (lse is None without one).

        KV caches: kv_lens (int32 [B]) gives each sequence's key count for an
        artifact compiled with kv_lens; with a paged artifact k and v are pages
        [num_pages, page_size, Hkv, D] and page_table (int32 [B, max_pages])
        maps key j of sequence b to row j % page_size of page
        page_table[b, j // page_size]. An fp8 artifact (kv_dtype=fp8) takes k
        and v as torch.float8_e4m3fn codes and kv_scales (float32 [2, Hkv]).

        Ragged batches (an artifact compiled with ragged=1): q is the packed
        query rows [Tq, Hq, D] of N sequences, sequence n owning rows
        cu_seqlens_q[n] to cu_seqlens_q[n + 1] (int32 [N + 1]); out is
        [Tq, Hq, Dv] and lse float32 [Hq, Tq]. The keys are packed the same
        way, k and v [Tk, Hkv, D] by cu_seqlens_k (int32 [N + 1]), or (an
        artifact with kv_lens) in a cache of N sequences as above.
        max_seqlen_q (0 = Tq) sizes the grid: at least the longest sequence's
        query rows, which the caller knows (reading them here would
        synchronise).

        Every argument is checked first (validate_arguments); a failure is an
        AttncError naming the argument. The launch runs under q's device.
        num_splits: key splits of a split_kv (decode) artifact, or how a
        persistent kernel with manifest tail_splits runs its last wave (1:
        whole items, 2: their key tiles dealt to every block), 0 = the
        runtime's choice; the scratch it needs is allocated here and kept.
        plan: a WorkList of this kernel (Kernel.plan) instead: one thread
        block per item, its grid and scratch sized for max_items.
        """
        import torch
        validate_arguments(self.manifest, q, k, v, out=out, lse=lse, seq_ids=seq_ids,
                           cu_seqlens=cu_seqlens, block_mask=block_mask,
                           alibi_slopes=alibi_slopes, kv_lens=kv_lens,
                           page_table=page_table, kv_scales=kv_scales,
                           cu_seqlens_q=cu_seqlens_q, cu_seqlens_k=cu_seqlens_k,
                           max_seqlen_q=max_seqlen_q, plan=plan, num_splits=num_splits)
        if plan is not None and plan._kernel is not self:
            raise AttncError("expected a plan made by this kernel's plan()")
        ragged = self.manifest.get("reads_cu_seqlens_q") == "1"
        packed_keys = self.manifest.get("reads_cu_seqlens_k") == "1"
        with torch.cuda.device(q.device):
            if ragged:
                # Packed rows [Tq, Hq, D]: out [Tq, Hq, Dv], lse [Hq, Tq].
                if out is None:
                    out = torch.empty(q.shape[:2] + (v.shape[-1],), device=q.device,
                                      dtype=q.dtype)
                if lse is None and self.manifest["reads_lse"] == "1":
                    lse = torch.empty((q.shape[1], q.shape[0]), device=q.device,
                                      dtype=torch.float32)
            else:
                if out is None:
                    out = torch.empty(q.shape[:3] + (v.shape[3],), device=q.device,
                                      dtype=q.dtype)
                if lse is None and self.manifest["reads_lse"] == "1":
                    lse = torch.empty(q.shape[:3], device=q.device, dtype=torch.float32)
            a = _Args()
            a.dtype = _DTYPES[self.manifest["dtype"]]
            if ragged:
                # N sequences in one batch entry of Tq rows: strides {batch,
                # head, row, 1}, the batch stride unused (B = 1).
                a.batch = cu_seqlens_q.numel() - 1
                a.seq_q, a.num_q_heads, a.head_dim = q.shape
                a.value_head_dim = v.shape[-1]
                for name, t in (("q_strides", q), ("o_strides", out)):
                    st = t.stride()
                    getattr(a, name)[:] = [t.numel(), st[1], st[0], st[2]]
            else:
                a.batch, a.num_q_heads, a.seq_q, a.head_dim = q.shape
                a.value_head_dim = v.shape[3]
                for name, t in (("q_strides", q), ("o_strides", out)):
                    getattr(a, name)[:] = list(t.stride())
            a.q, a.k, a.v, a.o = q.data_ptr(), k.data_ptr(), v.data_ptr(), out.data_ptr()
            a.lse = lse.data_ptr() if lse is not None else None
            if page_table is not None:
                # Pages [num_pages, page_size, Hkv, D]: strides {page, head, row, 1}.
                a.num_kv_heads = k.shape[2]
                a.max_pages, a.num_pages = page_table.shape[1], k.shape[0]
                a.seq_k = a.max_pages * k.shape[1]
                for name, t in (("k_strides", k), ("v_strides", v)):
                    st = t.stride()
                    getattr(a, name)[:] = [st[0], st[2], st[1], st[3]]
                a.page_table = page_table.data_ptr()
            elif packed_keys:
                # Packed keys [Tk, Hkv, D] of a ragged batch, like q.
                a.seq_k, a.num_kv_heads = k.shape[0], k.shape[1]
                for name, t in (("k_strides", k), ("v_strides", v)):
                    st = t.stride()
                    getattr(a, name)[:] = [t.numel(), st[1], st[0], st[2]]
            else:
                a.num_kv_heads, a.seq_k = k.shape[1], k.shape[2]
                for name, t in (("k_strides", k), ("v_strides", v)):
                    getattr(a, name)[:] = list(t.stride())
            if kv_lens is not None:
                a.kv_lens = kv_lens.data_ptr()
            if kv_scales is not None:
                a.kv_scales = kv_scales.data_ptr()
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
            if cu_seqlens_q is not None:
                a.cu_seqlens_q = cu_seqlens_q.data_ptr()
            if cu_seqlens_k is not None:
                a.cu_seqlens_k = cu_seqlens_k.data_ptr()
            a.max_seqlen_q = int(max_seqlen_q or 0)
            a.num_splits = int(num_splits)
            if plan is not None:
                a.plan = plan.buffer.data_ptr()
                a.plan_items = a.plan_partials = plan.max_items
            if needs_scratch(self.manifest):
                size = self.scratch_size(a)
                if size:
                    key = (q.device, size)
                    if key not in self._scratch:
                        self._scratch[key] = torch.empty(size, dtype=torch.uint8,
                                                         device=q.device)
                    a.scratch = self._scratch[key].data_ptr()
                    a.scratch_bytes = size
            if stream is None:
                stream = torch.cuda.current_stream(q.device).cuda_stream
            if self._lib.attnrt_launch(self._handle, ctypes.byref(a), ctypes.c_void_p(stream)) != 0:
                raise AttncError(self._lib.attnrt_last_error().decode())
        return out, lse


def _shape(t):
    return tuple(map(int, t.shape))


def _is_contiguous(t, shape=None):
    """Dense row-major strides (size-1 dimensions may have any stride);
    `shape` is t's, if already read."""
    expected = 1
    for size, stride in reversed(list(zip(shape or _shape(t), t.stride()))):
        if size != 1 and stride != expected:
            return False
        expected *= size
    return True


def validate_arguments(manifest, q, k, v, *, out=None, lse=None, seq_ids=None,
                       cu_seqlens=None, block_mask=None, alibi_slopes=None, kv_lens=None,
                       page_table=None, kv_scales=None, cu_seqlens_q=None, cu_seqlens_k=None,
                       max_seqlen_q=0, plan=None, num_splits=0):
    """Checks a call against an artifact's manifest before anything reaches
    the GPU: dtypes (from the tensors: q's must be the artifact's, k, v and
    out q's), shapes of every operand, one CUDA device for all, int32 index
    operands, f32 slopes and LSE, operands present exactly when the artifact
    reads them. Raises AttncError naming the argument. Works on any object
    with torch's tensor attributes (dtype, device, shape, stride()).

    A ragged artifact (reads_cu_seqlens_q) takes q [Tq, Hq, D], out
    [Tq, Hq, Dv], lse [Hq, Tq] and cu_seqlens_q int32 [N + 1]; its keys are
    k, v [Tk, Hkv, D] with cu_seqlens_k int32 [N + 1] (reads_cu_seqlens_k),
    or a cache of N sequences. max_seqlen_q is in [0, Tq] (0 otherwise).
    The offsets live on the GPU and are not read here. A plan (WorkList)
    needs a split_kv artifact, num_splits 0, q's device and q's batch.
    """
    def fail(message):
        raise AttncError(message)

    # Each operand's shape, read once a call (a call reads some several times).
    shapes = {}

    def shape_of(t):
        shape = shapes.get(id(t))
        if shape is None:
            shape = shapes[id(t)] = _shape(t)
        return shape

    def operand(name, t, flag, dtype, shape, what, allocated=False):
        reads = manifest.get(flag) == "1"
        if reads and t is None and not allocated:
            fail(f"expected {name}: the artifact reads {what}")
        if not reads and t is not None:
            verb = "write" if name == "lse" else "read"
            fail(f"expected no {name}: the artifact does not {verb} {what}")
        if t is None:
            return
        if str(t.dtype) not in dtype:
            fail(f"expected {name} of dtype {' or '.join(dtype)}, got {t.dtype}")
        if shape is not None and shape_of(t) != shape:
            fail(f"expected {name} of shape {shape}, got {shape_of(t)}")
        if not _is_contiguous(t, shape_of(t)):
            fail(f"expected {name} to be contiguous, got strides {tuple(t.stride())}")

    tensors = {"q": q, "k": k, "v": v}
    for name, t in tensors.items():
        if t is None:
            fail(f"expected a tensor for {name}, got None")
    device = q.device
    optional = {"out": out, "lse": lse, "seq_ids": seq_ids, "cu_seqlens": cu_seqlens,
                "block_mask": block_mask, "alibi_slopes": alibi_slopes, "kv_lens": kv_lens,
                "page_table": page_table, "kv_scales": kv_scales,
                "cu_seqlens_q": cu_seqlens_q, "cu_seqlens_k": cu_seqlens_k}
    for name, t in list(tensors.items()) + [(n, t) for n, t in optional.items() if t is not None]:
        if getattr(t.device, "type", None) != "cuda":
            fail(f"expected {name} on a CUDA device, got {t.device}")
        if t.device != device:
            fail(f"expected {name} on {device} (the device of q), got {t.device}")
    # A ragged batch: q holds the packed rows [Tq, Hq, D] of N sequences
    # (cu_seqlens_q), and with packed keys k and v theirs (cu_seqlens_k).
    ragged = manifest.get("reads_cu_seqlens_q") == "1"
    packed_keys = manifest.get("reads_cu_seqlens_k") == "1"
    layouts = {"q": (4, "[B, H, S, D]"), "k": (4, "[B, H, S, D]"), "v": (4, "[B, H, S, D]")}
    if ragged:
        layouts["q"] = (3, "[Tq, Hq, D] (the packed query rows of a ragged batch)")
    if packed_keys:
        layouts["k"] = (3, "[Tk, Hkv, D] (the packed keys of a ragged batch)")
        layouts["v"] = (3, "[Tk, Hkv, Dv] (the packed values of a ragged batch)")
    for name, (rank, layout) in layouts.items():
        if len(shape_of(tensors[name])) != rank:
            fail(f"expected {name} of rank {rank} {layout}, got shape {shape_of(tensors[name])}")
    want = _TORCH_DTYPE_NAMES[manifest["dtype"]]
    if str(q.dtype) != want:
        fail(f"expected q of dtype {want} (the artifact's {manifest['dtype']}), got {q.dtype}")
    fp8 = manifest.get("reads_kv_scales") == "1"
    for name, t in (("k", k), ("v", v), ("out", out)):
        if t is None:
            continue
        if fp8 and name != "out":
            if str(t.dtype) != "torch.float8_e4m3fn":
                fail(f"expected {name} of dtype torch.float8_e4m3fn (the artifact's fp8 "
                     f"cache), got {t.dtype}")
        elif t.dtype != q.dtype:
            fail(f"expected {name} of dtype {q.dtype} (that of q), got {t.dtype}")
    # The offsets of a ragged batch: int32 [N + 1], the keys' as many as the
    # queries'. Their values stay on the GPU (the kernel clamps them).
    operand("cu_seqlens_q", cu_seqlens_q, "reads_cu_seqlens_q", ("torch.int32",), None,
            "the query offsets of a ragged batch")
    operand("cu_seqlens_k", cu_seqlens_k, "reads_cu_seqlens_k", ("torch.int32",), None,
            "the key offsets of a ragged batch")
    for name, t in (("cu_seqlens_q", cu_seqlens_q), ("cu_seqlens_k", cu_seqlens_k)):
        if t is not None and (len(shape_of(t)) != 1 or shape_of(t)[0] < 2):
            fail(f"expected {name} of rank 1 [N + 1] with at least 2 entries (the offsets of "
                 f"N >= 1 sequences), got shape {shape_of(t)}")
    if cu_seqlens_q is not None and cu_seqlens_k is not None and \
            shape_of(cu_seqlens_k) != shape_of(cu_seqlens_q):
        fail(f"expected cu_seqlens_k of shape {shape_of(cu_seqlens_q)} (one offset per sequence "
             f"of cu_seqlens_q, and the end), got {shape_of(cu_seqlens_k)}")
    if ragged:
        # N sequences in Tq packed rows.
        sq, hq, d = shape_of(q)
        b = shape_of(cu_seqlens_q)[0] - 1
    else:
        b, hq, sq, d = shape_of(q)
    if max_seqlen_q is None:
        max_seqlen_q = 0
    if isinstance(max_seqlen_q, bool) or not isinstance(max_seqlen_q, numbers.Integral):
        fail(f"expected max_seqlen_q of type int, got {type(max_seqlen_q).__name__}")
    if not ragged and max_seqlen_q != 0:
        fail(f"expected max_seqlen_q 0: the artifact does not take a ragged batch, "
             f"got {max_seqlen_q}")
    if ragged and not 0 <= max_seqlen_q <= sq:
        fail(f"expected max_seqlen_q in [0, {sq}] (0: Tq, the rows of q; otherwise at least "
             f"the longest sequence's query rows), got {max_seqlen_q}")
    page_size = int(manifest.get("page_size") or 0)
    if page_size:
        # Pages [num_pages, page_size, Hkv, D]; Sk = max_pages * page_size.
        num_pages, hkv = shape_of(k)[0], shape_of(k)[2]
        if shape_of(k)[1] != page_size:
            fail(f"expected k pages of the artifact's page_size {page_size} "
                 f"[num_pages, page_size, Hkv, D], got shape {shape_of(k)}")
        if page_table is None:
            fail("expected page_table: the artifact reads a paged KV cache")
        if len(shape_of(page_table)) != 2:
            fail(f"expected page_table of rank 2 [B, max_pages], got shape {shape_of(page_table)}")
        sk = shape_of(page_table)[1] * page_size
    elif packed_keys:
        sk, hkv = shape_of(k)[0], shape_of(k)[1]
    else:
        hkv, sk = shape_of(k)[1], shape_of(k)[2]
    dv = shape_of(v)[-1]
    expect = {"num_q_heads": ("q", 1, hq), "num_kv_heads": ("k", 2 if page_size else 1, hkv),
              "head_dim": ("q", 2 if ragged else 3, d),
              "value_head_dim": ("v", 2 if packed_keys else 3, dv)}
    for key, (name, dim, got) in expect.items():
        if got != int(manifest[key]):
            fail(f"expected {name} dimension {dim} to be the artifact's {key} "
                 f"{manifest[key]}, got {got}")
    # The batch of a cache: B, or the N sequences of a ragged batch.
    batch = "N" if ragged else "B"
    if page_size:
        if shape_of(v) != (num_pages, page_size, hkv, dv):
            fail(f"expected v of shape {(num_pages, page_size, hkv, dv)} (the pages of k) "
                 f"[num_pages, page_size, Hkv, Dv], got {shape_of(v)}")
    elif packed_keys:
        if shape_of(k) != (sk, hkv, d):
            fail(f"expected k of shape {(sk, hkv, d)} [Tk, Hkv, D], got {shape_of(k)}")
        if shape_of(v) != (sk, hkv, dv):
            fail(f"expected v of shape {(sk, hkv, dv)} (the rows of k) [Tk, Hkv, Dv], "
                 f"got {shape_of(v)}")
    elif shape_of(k) != (b, hkv, sk, d):
        fail(f"expected k of shape {(b, hkv, sk, d)} [{batch}, Hkv, Sk, D], got {shape_of(k)}")
    elif shape_of(v) != (b, hkv, sk, dv):
        fail(f"expected v of shape {(b, hkv, sk, dv)} [{batch}, Hkv, Sk, Dv], got {shape_of(v)}")
    if ragged:
        if out is not None and shape_of(out) != (sq, hq, dv):
            fail(f"expected out of shape {(sq, hq, dv)} [Tq, Hq, Dv], got {shape_of(out)}")
    elif out is not None and shape_of(out) != (b, hq, sq, dv):
        fail(f"expected out of shape {(b, hq, sq, dv)} [B, Hq, Sq, Dv], got {shape_of(out)}")

    # An absent lse is allocated by the call.
    operand("lse", lse, "reads_lse", ("torch.float32",), (hq, sq) if ragged else (b, hq, sq),
            "the log-sum-exp", allocated=True)
    operand("seq_ids", seq_ids, "reads_seq_ids", ("torch.int32",), (b, sk), "document ids")
    operand("cu_seqlens", cu_seqlens, "reads_cu_seqlens", ("torch.int32",), None,
            "document offsets")
    if cu_seqlens is not None and len(shape_of(cu_seqlens)) != 1:
        fail(f"expected cu_seqlens of rank 1, got shape {shape_of(cu_seqlens)}")
    operand("alibi_slopes", alibi_slopes, "reads_alibi_slopes", ("torch.float32",), (hq,),
            "ALiBi slopes")
    operand("kv_lens", kv_lens, "reads_kv_lens", ("torch.int32",), (b,),
            "per-sequence KV lengths")
    operand("kv_scales", kv_scales, "reads_kv_scales", ("torch.float32",), (2, hkv),
            "the scales of an fp8 cache")
    if page_table is not None:
        if not page_size:
            fail("expected no page_table: the artifact does not read a paged KV cache")
        if str(page_table.dtype) != "torch.int32":
            fail(f"expected page_table of dtype torch.int32, got {page_table.dtype}")
        if shape_of(page_table)[0] != b:
            fail(f"expected page_table of shape [{b}, max_pages], got {shape_of(page_table)}")
        if not _is_contiguous(page_table, shape_of(page_table)):
            fail(f"expected page_table to be contiguous, got strides {tuple(page_table.stride())}")
    operand("block_mask", block_mask, "reads_block_mask", ("torch.int8", "torch.uint8",
            "torch.bool"), None, "a block mask")
    if block_mask is not None:
        mbq, mbk = int(manifest["mask_block_q"]), int(manifest["mask_block_k"])
        shape = shape_of(block_mask)
        want = ((sq + mbq - 1) // mbq, (sk + mbk - 1) // mbk)
        if len(shape) != 4 or shape[0] not in (1, b) or shape[1] not in (1, hq) or \
                shape[2:] != want:
            fail(f"expected block_mask of shape [1 or {b}, 1 or {hq}, {want[0]}, {want[1]}], "
                 f"got {shape}")
    if plan is not None:
        if manifest.get("split_kv") != "1":
            fail("expected no plan: the artifact has no split_kv kernel to run a work list")
        if not isinstance(plan, WorkList):
            fail(f"expected plan to be an attnc.WorkList (Kernel.plan), got "
                 f"{type(plan).__name__}")
        if num_splits:
            fail(f"expected num_splits 0 with a plan (its items carry their splits), "
                 f"got {num_splits}")
        if plan.buffer.device != device:
            fail(f"expected plan on {device} (the device of q), got {plan.buffer.device}")
        if plan.batch != b:
            fail(f"expected a plan of {b} sequences (the batch of q), got {plan.batch}: "
                 f"a plan covers the query tiles of the sequences it was made for")


from .api import (ABI_VERSION, __version__, attention, cache_path,  # noqa: E402
                  compile_kernel, kernel_spec)

__all__ += ["attention", "kernel_spec", "compile_kernel", "cache_path", "ABI_VERSION",
            "__version__"]
