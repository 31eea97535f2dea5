"""attnc.attention: one call, like F.scaled_dot_product_attention.

    out = attnc.attention(q, k, v, mask="causal")                 # q [B, Hq, S, D]
    out, lse = attnc.attention(q, k, v, mask="window:1023,0", softcap=30.0,
                               return_lse=True, layout="bshd")    # q [B, S, Hq, D]

The kernel for the call's variant (head counts and dims, dtype, mask, scale,
soft-cap, ALiBi, LSE; any batch and length) is looked up in an on-disk cache
keyed by the variant, the GPU target and the attnc version. When it is
missing it is compiled with the attnc compiler (`attnc compile`, found as
$ATTNC_BIN, on PATH, or in the build next to this package); without one, the
error says how to compile it. Under torch.compile the call goes through
the custom op `torch.ops.attnc.attention` (with a fake implementation), so it
traces without a graph break; eager calls skip the dispatcher. CUDA graphs
capture it: a launch
allocates nothing but the outputs and synchronises nothing.

Masks are spelled as in specs (docs/attnc-run.md): "none", "causal",
"causal:top_left", "window:LEFT,RIGHT[:top_left]", "prefix:N[:top_left]".
"""
import hashlib
import os
import shutil
import subprocess

from . import AttncError, Kernel, needs_scratch

__version__ = "0.2"
# Bumped with the kernel ABI (include/attnc/Artifact/KernelAbi.h).
ABI_VERSION = 7

_SPEC_DTYPES = {"torch.bfloat16": "bf16", "torch.float16": "f16"}
_MASKS = ("none", "causal", "window", "prefix")
_kernels = {}


def kernel_spec(q, k, v, *, mask="none", scale=None, softcap=None, alibi=False,
                return_lse=False, layout="bhsd"):
    """The compile spec of a call (batch and lengths are chosen at run time).
    A decode-shaped call (query length x query heads per KV head <= 16, e.g.
    one token per sequence) gets decode=1: the decode kernel (GQA packing,
    split-KV; docs/gpu.md)."""
    if layout not in ("bhsd", "bshd"):
        raise AttncError(f"expected layout 'bhsd' or 'bshd', got {layout!r}")
    if len(q.shape) != 4 or len(k.shape) != 4 or len(v.shape) != 4:
        raise AttncError("expected q, k and v of rank 4")
    h_dim = 1 if layout == "bhsd" else 2
    dtype = _SPEC_DTYPES.get(str(q.dtype))
    if dtype is None:
        raise AttncError(f"expected q of dtype torch.bfloat16 or torch.float16, got {q.dtype}")
    mask = mask or "none"
    if mask.split(":")[0] not in _MASKS:
        raise AttncError(f"expected mask {', '.join(_MASKS)} (spec syntax), got {mask!r}; "
                         "documents and block-sparse masks take operands: use attnc.Kernel")
    parts = [f"b=1 hq={int(q.shape[h_dim])} hkv={int(k.shape[h_dim])} sq=128",
             f"d={int(q.shape[3])} dv={int(v.shape[3])} dtype={dtype} mask={mask}",
             f"lse={1 if return_lse else 0}"]
    if scale is not None:
        parts.append(f"scale={float(scale)!r}")
    if softcap is not None:
        parts.append(f"softcap={float(softcap)!r}")
    if alibi:
        parts.append("alibi")
    s_dim = 2 if layout == "bhsd" else 1
    group = int(q.shape[h_dim]) // max(1, int(k.shape[h_dim]))
    if int(q.shape[s_dim]) * group <= 16:
        parts.append("decode=1")
    return " ".join(parts)


def target_of(device):
    """The attnc target of a CUDA device: sm_90a (Hopper) or sm_80 (Ampere+)."""
    import torch
    major, minor = torch.cuda.get_device_capability(device)
    if major == 9:
        return "sm_90a"
    if major >= 8:
        return "sm_80"
    raise AttncError(f"expected a GPU of compute capability 8.0 or later, got {major}.{minor}")


def cache_dir():
    return os.environ.get("ATTNC_CACHE") or os.path.join(
        os.path.expanduser("~"), ".cache", "attnc")


def cache_path(spec, target, directory=None):
    """Where the artifact of (spec, target) lives in the cache."""
    key = hashlib.sha256(f"{spec}|{target}|{__version__}|abi{ABI_VERSION}".encode()).hexdigest()
    return os.path.join(directory or cache_dir(), key[:24] + ".attnc")


def _compiler():
    """$ATTNC_BIN (which must then be the compiler), attnc on PATH, or the
    build next to this package; None when there is none."""
    explicit = os.environ.get("ATTNC_BIN")
    if explicit:
        if not (os.path.isfile(explicit) and os.access(explicit, os.X_OK)):
            raise AttncError(f"ATTNC_BIN={explicit} is not an executable attnc compiler")
        return explicit
    candidates = [shutil.which("attnc"),
                  os.path.join(os.path.dirname(__file__), "..", "..", "build", "bin", "attnc")]
    for c in candidates:
        if c and os.path.isfile(c) and os.access(c, os.X_OK):
            return c
    return None


def compile_kernel(spec, target, directory=None):
    """The cached artifact of (spec, target), compiled when missing."""
    path = cache_path(spec, target, directory)
    if os.path.exists(path):
        return path
    attnc_bin = _compiler()
    if attnc_bin is None:
        raise AttncError(
            f"no compiled kernel for '{spec}' ({target}) in {os.path.dirname(path)} and no attnc "
            f"compiler found (set ATTNC_BIN or put attnc on PATH), or compile it elsewhere with: "
            f"attnc compile --spec \"{spec}\" --target={target} -o {path}")
    os.makedirs(os.path.dirname(path), exist_ok=True)
    tmp = f"{path}.{os.getpid()}.tmp"
    run = subprocess.run([attnc_bin, "compile", "--spec", spec, f"--target={target}", "-o", tmp],
                         capture_output=True, text=True)
    if run.returncode != 0:
        raise AttncError(f"attnc compile failed for '{spec}' ({target}):\n{run.stderr.strip()}")
    os.replace(tmp, path)
    return path


def _kernel(spec, target):
    key = (spec, target)
    if key not in _kernels:
        _kernels[key] = Kernel(compile_kernel(spec, target))
    return _kernels[key]


class _Launch:
    """A prepared launch of one call shape: the kernel, its argument struct
    (sizes and strides filled in; pointers set per call) and the outputs."""

    def __init__(self, kernel, args, out_shape, lse_shape, device_index):
        self.kernel, self.args = kernel, args
        self.out_shape, self.lse_shape = out_shape, lse_shape
        self.device_index = device_index


# Prepared launches by call shape: a repeated call skips the spec, the cache
# lookup and the argument checks (its shapes, strides, dtypes and device were
# checked the first time; the runtime still checks every launch).
_launches = {}


def _prepare(q, k, v, mask, scale, softcap, alibi, return_lse, layout):
    import torch
    from . import _Args, _DTYPES, validate_arguments
    spec = kernel_spec(q, k, v, mask=mask, scale=scale, softcap=softcap, alibi=alibi,
                       return_lse=return_lse, layout=layout)
    kernel = _kernel(spec, target_of(q.device))
    if layout == "bshd":
        b, s, h, _ = q.shape
        out_shape = (b, s, h, v.shape[3])
        qh, kh, vh = q.transpose(1, 2), k.transpose(1, 2), v.transpose(1, 2)
        out_strides = (s * h * v.shape[3], v.shape[3], h * v.shape[3], 1)
    else:
        b, h, s, _ = q.shape
        out_shape = (b, h, s, v.shape[3])
        qh, kh, vh = q, k, v
        out_strides = (h * s * v.shape[3], s * v.shape[3], v.shape[3], 1)
    validate_arguments(kernel.manifest, qh, kh, vh)
    a = _Args()
    a.dtype = _DTYPES[kernel.manifest["dtype"]]
    a.batch, a.num_q_heads, a.seq_q, a.head_dim = qh.shape
    a.num_kv_heads, a.seq_k = kh.shape[1], kh.shape[2]
    a.value_head_dim = vh.shape[3]
    a.q_strides[:] = list(qh.stride())
    a.k_strides[:] = list(kh.stride())
    a.v_strides[:] = list(vh.stride())
    a.o_strides[:] = list(out_strides)
    # A split-KV (decode) kernel or one with tail splits: the split count of
    # this call shape, fixed once so that launches do not ask the device
    # again, and its scratch.
    scratch = None
    if needs_scratch(kernel.manifest):
        # The runtime validates the whole launch: stand-in pointers (q's,
        # aligned and non-null) until each call sets the real ones.
        a.q, a.k, a.v, a.o = qh.data_ptr(), kh.data_ptr(), vh.data_ptr(), qh.data_ptr()
        a.lse = qh.data_ptr() if return_lse else None
        with torch.cuda.device(q.device):
            a.num_splits = kernel.num_splits(a)
            size = kernel.scratch_size(a)
        if size:
            scratch = torch.empty(size, dtype=torch.uint8, device=q.device)
            a.scratch, a.scratch_bytes = scratch.data_ptr(), size
    lse_shape = (b, h, s) if return_lse else None
    launch = _Launch(kernel, a, out_shape, lse_shape, q.device.index)
    launch.scratch = scratch  # kept alive with the launch
    return launch


def _raw_stream(torch, index):
    """The current CUDA stream of device `index` as an int (CUstream)."""
    get = getattr(torch._C, "_cuda_getCurrentRawStream", None)
    if get is not None:
        return get(index)
    return torch.cuda.current_stream(index).cuda_stream


def _run(q, k, v, mask, scale, softcap, alibi, return_lse, layout, lse_tensor=True):
    """The implementation: a prepared launch for the call's shape. Without
    return_lse the LSE is an empty tensor (lse_tensor, the custom op's
    contract) or None (eager calls: one allocation less)."""
    import torch
    key = (q.shape, k.shape, v.shape, q.stride(), k.stride(), v.stride(), q.dtype, k.dtype,
           v.dtype, q.device, mask, scale, softcap, alibi, return_lse, layout)
    launch = _launches.get(key)
    if launch is None:
        launch = _prepare(q, k, v, mask, scale, softcap, alibi, return_lse, layout)
        _launches[key] = launch
    out = torch.empty(launch.out_shape, device=q.device, dtype=q.dtype)
    a = launch.args
    if return_lse:
        lse = torch.empty(launch.lse_shape, device=q.device, dtype=torch.float32)
        a.lse = lse.data_ptr()
    else:
        lse = torch.empty((0,), device=q.device, dtype=torch.float32) if lse_tensor else None
    a.q, a.k, a.v, a.o = q.data_ptr(), k.data_ptr(), v.data_ptr(), out.data_ptr()
    # The launch goes on the current stream of q's device, under that device.
    index = launch.device_index
    if index != torch._C._cuda_getDevice():
        with torch.cuda.device(q.device):
            launch.kernel.launch(a, _raw_stream(torch, index))
    else:
        launch.kernel.launch(a, _raw_stream(torch, index))
    return out, lse


_op = None


def _torch_op():
    """torch.ops.attnc.attention, registered on first use."""
    global _op
    if _op is not None:
        return _op
    import torch

    @torch.library.custom_op("attnc::attention", mutates_args=())
    def attention_op(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, mask: str,
                     scale: float, softcap: float, alibi: bool, return_lse: bool,
                     layout: str) -> tuple[torch.Tensor, torch.Tensor]:
        return _run(q, k, v, mask, None if scale < 0 else scale,
                    None if softcap < 0 else softcap, alibi, return_lse, layout)

    @attention_op.register_fake
    def _(q, k, v, mask, scale, softcap, alibi, return_lse, layout):
        if layout == "bshd":
            out = q.new_empty(q.shape[0], q.shape[1], q.shape[2], v.shape[3])
            lse_shape = (q.shape[0], q.shape[2], q.shape[1])
        else:
            out = q.new_empty(q.shape[0], q.shape[1], q.shape[2], v.shape[3])
            lse_shape = (q.shape[0], q.shape[1], q.shape[2])
        lse = q.new_empty(lse_shape if return_lse else (0,), dtype=torch.float32)
        return out, lse

    _op = attention_op
    return _op


def attention(q, k, v, *, mask="none", scale=None, softcap=None, alibi=False,
              return_lse=False, layout="bhsd"):
    """Masked attention on CUDA tensors. layout "bhsd": q [B, Hq, Sq, D], k and
    v [B, Hkv, Sk, D]; "bshd": q [B, Sq, Hq, D], k and v [B, Sk, Hkv, D] (read
    in place). Returns out (in q's layout) or (out, lse) with lse [B, Hq, Sq]
    (natural log). Scale defaults to 1/sqrt(D); ALiBi uses the standard
    slopes 2^(-8 (h + 1) / Hq)."""
    import torch
    mask = mask or "none"
    if torch.compiler.is_compiling():
        # Traced: the custom op (its fake implementation gives the shapes).
        out, lse = _torch_op()(q, k, v, mask, -1.0 if scale is None else float(scale),
                               -1.0 if softcap is None else float(softcap), bool(alibi),
                               bool(return_lse), layout)
    else:
        # Eager: the op's implementation directly, without the dispatcher.
        _torch_op()
        out, lse = _run(q, k, v, mask, None if scale is None else float(scale),
                        None if softcap is None else float(softcap), bool(alibi),
                        bool(return_lse), layout, lse_tensor=False)
    return (out, lse) if return_lse else out
