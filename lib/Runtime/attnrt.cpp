//===- attnrt.cpp - the attnc runtime C API -------------------------------===//
//
// Loads artifacts, checks launches against their manifests and launches the
// kernels through the CUDA driver (opened at run time, CudaDriver.h). A
// launch allocates nothing and synchronises nothing.
//
//===----------------------------------------------------------------------===//

#include "attnc/Runtime/attnrt.h"
#include "Errors.h"
#include "SplitKv.h"
#include "TensorMaps.h"
#include "attnc/Artifact/Artifact.h"
#include "attnc/Artifact/KernelAbi.h"
#include "attnc/Runtime/CudaDriver.h"

#include "attnc/Runtime/attnrt_plan.h"

#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <memory>
#include <mutex>
#include <new>
#include <string>
#include <utility>
#include <vector>

using namespace attnc;
using namespace attnc::cuda;

/// Kernels use at most this much dynamic shared memory without opting in.
static constexpr int64_t kDefaultDynamicSharedMemory = 48 * 1024;

struct attnrt_artifact {
  Artifact file;
  KernelManifest manifest;

  /// The module and function loaded in one context.
  struct Loaded {
    CUcontext context;
    unsigned long long contextId; // 0 when the driver has no cuCtxGetId
    CUmodule module;
    CUfunction function;
    /// The split-KV combine kernel (null without split_kv).
    CUfunction combine;
    /// split_kv and persistent: the blocks of the kernel resident at once
    /// on the device (SMs x blocks per SM) and its SMs, read at load; 0 when
    /// the driver cannot say.
    int64_t slots;
    int64_t sms;
  };
  std::mutex mutex;
  std::vector<Loaded> loaded;
  /// The kernel for short sequences (manifest key short_kernel_max_seq),
  /// loaded from section `short_kernel`; null when the artifact has one.
  attnrt_artifact *shortKernel = nullptr;
};

//===----------------------------------------------------------------------===//
// Errors
//===----------------------------------------------------------------------===//

static thread_local std::string lastError;

attnrt_status attnc::rt::fail(attnrt_status status, std::string message) {
  lastError = std::move(message);
  return status;
}
using attnc::rt::fail;

extern "C" const char *attnrt_last_error(void) { return lastError.c_str(); }

//===----------------------------------------------------------------------===//
// Loading artifacts
//===----------------------------------------------------------------------===//

/// `file` as a loaded artifact; `parsed`, when given, is its manifest
/// already parsed (a nested short kernel's, by checkShortKernel).
static attnrt_status makeArtifact(Artifact file, attnrt_artifact **out,
                                  const std::string &where,
                                  KernelManifest *parsed = nullptr) {
  KernelManifest manifest;
  std::string error;
  if (parsed)
    manifest = std::move(*parsed);
  else if (!parseKernelManifest(file, manifest, error))
    return fail(ATTNRT_ERROR_BAD_ARTIFACT, where + error);
  std::unique_ptr<attnrt_artifact> artifact(new (std::nothrow) attnrt_artifact);
  if (!artifact)
    return fail(ATTNRT_ERROR_BAD_ARTIFACT, "out of memory");
  // A short-sequence kernel: an artifact nested whole, checked against
  // this one (checkShortKernel), which may nest one of its own.
  if (manifest.shortKernelMaxSeq > 0) {
    Artifact nested;
    KernelManifest nestedManifest;
    if (!readShortKernel(file, manifest, nested, nestedManifest, error))
      return fail(ATTNRT_ERROR_BAD_ARTIFACT, where + error);
    attnrt_status status =
        makeArtifact(std::move(nested), &artifact->shortKernel,
                     where + "section 'short_kernel': ", &nestedManifest);
    if (status != ATTNRT_OK)
      return status;
  }
  artifact->file = std::move(file);
  artifact->manifest = std::move(manifest);
  *out = artifact.release();
  return ATTNRT_OK;
}

extern "C" attnrt_status attnrt_artifact_load_file(const char *path,
                                                   attnrt_artifact **out) {
  if (!out)
    return fail(ATTNRT_ERROR_INVALID_ARGUMENT, "expected a non-null out");
  *out = nullptr;
  if (!path)
    return fail(ATTNRT_ERROR_INVALID_ARGUMENT, "expected a non-null path");
  Artifact file;
  std::string error;
  if (!readArtifactFile(path, file, error))
    return fail(ATTNRT_ERROR_BAD_ARTIFACT, error);
  return makeArtifact(std::move(file), out, std::string(path) + ": ");
}

extern "C" attnrt_status attnrt_artifact_load_memory(const void *data,
                                                     size_t size,
                                                     attnrt_artifact **out) {
  if (!out)
    return fail(ATTNRT_ERROR_INVALID_ARGUMENT, "expected a non-null out");
  *out = nullptr;
  if (!data && size)
    return fail(ATTNRT_ERROR_INVALID_ARGUMENT, "expected non-null data");
  Artifact file;
  std::string error;
  if (!readArtifact(data, size, file, error))
    return fail(ATTNRT_ERROR_BAD_ARTIFACT, error);
  return makeArtifact(std::move(file), out, "");
}

extern "C" void attnrt_artifact_destroy(attnrt_artifact *artifact) {
  if (!artifact)
    return;
  attnrt_artifact_destroy(artifact->shortKernel);
  artifact->shortKernel = nullptr;
  if (!artifact->loaded.empty()) {
    // Unload each module in its own context. The driver answers an error,
    // which is ignored, for contexts it has already torn down.
    std::string error;
    if (const Driver *d = getDriver(error)) {
      CUcontext current = nullptr;
      if (d->cuCtxGetCurrent(&current) != CUDA_SUCCESS)
        current = nullptr;
      for (const attnrt_artifact::Loaded &l : artifact->loaded) {
        if (l.context == current) {
          d->cuModuleUnload(l.module);
        } else if (d->cuCtxPushCurrent && d->cuCtxPopCurrent &&
                   d->cuCtxPushCurrent(l.context) == CUDA_SUCCESS) {
          d->cuModuleUnload(l.module);
          CUcontext popped;
          d->cuCtxPopCurrent(&popped);
        }
      }
    }
  }
  delete artifact;
}

extern "C" const char *attnrt_artifact_get(const attnrt_artifact *artifact,
                                           const char *key) {
  if (!artifact || !key)
    return nullptr;
  const std::string *value = artifact->file.get(key);
  return value ? value->c_str() : nullptr;
}

//===----------------------------------------------------------------------===//
// Validation
//===----------------------------------------------------------------------===//

/// The name of the dtype a caller wrote, read as the integer it is: a C
/// caller (or ctypes) can store any int there, and loading an out-of-range
/// value as the enum would be undefined behaviour (found by the
/// UBSan build of the unit tests).
static int dtypeValue(const attnrt_attention_args &a) {
  int value;
  static_assert(sizeof(value) == sizeof(a.dtype), "dtype is an int");
  std::memcpy(&value, &a.dtype, sizeof value);
  return value;
}

static const char *dtypeName(int t) {
  switch (t) {
  case ATTNRT_BF16:
    return "bf16";
  case ATTNRT_F16:
    return "f16";
  case ATTNRT_F32:
    return "f32";
  }
  return nullptr;
}

static std::string pointerText(const void *p) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%p", p);
  return buf;
}

static std::string listText(const int64_t *v, size_t n) {
  std::string s = "{";
  for (size_t i = 0; i < n; ++i)
    s += (i ? ", " : "") + std::to_string(v[i]);
  return s + "}";
}

/// Query tiles per (group, batch entry) of a launch.
static int64_t queryTiles(const KernelManifest &m,
                          const attnrt_attention_args &a) {
  // A ragged batch: tiles of its longest sequence.
  int64_t rows =
      m.readsCuSeqlensQ && a.max_seqlen_q > 0 ? a.max_seqlen_q : a.seq_q;
  return (rows * m.gqaPack + m.blockQ - 1) / m.blockQ;
}

/// The work items of a launch: query tiles x KV groups x batch entries
/// (the blocks of KernelAbi.h kGrid without splits).
static int64_t workItems(const KernelManifest &m,
                         const attnrt_attention_args &a) {
  return queryTiles(m, a) * (a.num_q_heads / m.gqaPack) * a.batch;
}

/// The key tiles of block_k keys of a launch's sequences.
static int64_t keyTiles(const KernelManifest &m,
                        const attnrt_attention_args &a) {
  return (a.seq_k + m.blockK - 1) / m.blockK;
}

namespace {
/// The checks of one launch, each failing with a message naming the field.
struct Checker {
  const KernelManifest &m;
  const attnrt_attention_args &a;
  std::string &error;
  /// Whether the kernel the launch runs (the main one, or the
  /// short-sequence one where the lengths take it) has tail splits.
  bool tailSplits = false;

  bool equal(const char *field, int64_t got, int64_t want) {
    if (got == want)
      return true;
    error = std::string("expected ") + field + " " + std::to_string(got) +
            " to match the artifact's " + std::to_string(want);
    return false;
  }

  bool inRange(const char *field, int64_t got, int64_t min, int64_t max,
               const char *why) {
    if (got >= min && got <= max)
      return true;
    error = std::string("expected ") + field + " in [" + std::to_string(min) +
            ", " + std::to_string(max) + "]" + why + ", got " +
            std::to_string(got);
    return false;
  }

  bool tensor(const char *name, const void *p) {
    if (!p) {
      error = std::string("expected a non-null ") + name;
      return false;
    }
    if (reinterpret_cast<uintptr_t>(p) % 16 != 0) {
      error = std::string("expected ") + name + " (" + pointerText(p) +
              ") to be 16-byte aligned";
      return false;
    }
    return true;
  }

  /// Strides (in elements) of a [B, H, S, D] view that the kernel can read
  /// or write in place: the innermost dimension contiguous (stride 1), every
  /// other stride non-negative and a multiple of 8 elements (16 bytes, the
  /// kernel's copy width) unless its dimension has size 1, every address
  /// within 2^63 elements, and the rows of one head within 2^31 elements. With `output`, no two elements may share an
  /// address. Dense [B, H, S, D], PyTorch's [B, S, H, D].transpose(1, 2) and
  /// the packed [tokens, H, D] layout all qualify.
  bool strides(const char *field, const int64_t *got, int64_t b, int64_t h,
               int64_t s, int64_t d, const char *shape, bool output,
               int64_t elementBytes = 2) {
    // The kernel copies 16-byte chunks.
    const int64_t chunk = 16 / elementBytes;
    const int64_t extent[4] = {b, h, s, d};
    if (got[3] != 1) {
      error = std::string("expected ") + field + " " + listText(got, 4) +
              " to have an innermost stride of 1 (contiguous rows of " + shape +
              ")";
      return false;
    }
    int64_t last = 0;
    for (int i = 0; i < 4; ++i) {
      if (extent[i] == 1)
        continue;
      if (got[i] < 0 || (i < 3 && got[i] % chunk != 0)) {
        error = std::string("expected ") + field + " " + listText(got, 4) +
                " of " + shape + " to be non-negative multiples of " +
                std::to_string(chunk) + " elements (16 bytes)";
        return false;
      }
      int64_t span = 0;
      if (__builtin_mul_overflow(extent[i] - 1, got[i], &span) ||
          __builtin_add_overflow(last, span, &last)) {
        error = std::string("expected ") + field + " " + listText(got, 4) +
                " of " + shape + " to address fewer than 2^63 elements";
        return false;
      }
    }
    // The kernel addresses the rows of one (batch, head) with 32-bit
    // offsets.
    int64_t headSpan = (s - 1) * (s == 1 ? 0 : got[2]) + d;
    if (headSpan > INT32_MAX) {
      error = std::string("expected ") + field + " " + listText(got, 4) +
              " of " + shape + " to keep one head within 2^31 elements, got " +
              "(S - 1) * stride_s + D = " + std::to_string(headSpan);
      return false;
    }
    if (!output)
      return true;
    // No overlap: ordered by stride, each dimension starts past the whole
    // span of the smaller ones.
    int order[4] = {0, 1, 2, 3};
    std::sort(order, order + 4, [&](int x, int y) {
      return got[x] < got[y] || (got[x] == got[y] && x > y);
    });
    int64_t covered = 1;
    for (int i : order) {
      if (extent[i] == 1)
        continue;
      if (got[i] < covered) {
        error = std::string("expected ") + field + " " + listText(got, 4) +
                " of " + shape +
                " not to overlap: an output element would be written twice";
        return false;
      }
      covered = got[i] * extent[i];
    }
    return true;
  }

  /// The KV-cache fields: kv_lens and the page table present exactly when
  /// the artifact reads them; a paged launch's page counts and seq_k.
  bool cache() {
    if (!operand("kv_lens", a.kv_lens, m.readsKvLens, "read",
                 "per-sequence KV lengths", 4) ||
        !operand("page_table", a.page_table, m.pageSize > 0, "read",
                 "a paged KV cache", 4) ||
        !operand("kv_scales", a.kv_scales, m.readsKvScales, "read",
                 "the scales of an fp8 cache", 4))
      return false;
    if (m.pageSize == 0) {
      if (a.max_pages != 0 || a.num_pages != 0) {
        error = "expected max_pages and num_pages 0: the artifact does not "
                "read a paged KV cache";
        return false;
      }
      return true;
    }
    if (!inRange("max_pages", a.max_pages, 1, INT32_MAX / m.pageSize, "") ||
        !inRange("num_pages", a.num_pages, 1, INT32_MAX, ""))
      return false;
    if (a.seq_k != a.max_pages * m.pageSize) {
      error = "expected seq_k " + std::to_string(a.seq_k) +
              " to be max_pages * page_size = " + std::to_string(a.max_pages) +
              " * " + std::to_string(m.pageSize) + " (a paged cache)";
      return false;
    }
    return true;
  }

  /// The ragged-batch fields: the offsets present exactly when the artifact
  /// reads them, max_seqlen_q within [0, seq_q] (0 without a ragged batch).
  bool ragged() {
    if (!operand("cu_seqlens_q", a.cu_seqlens_q, m.readsCuSeqlensQ, "read",
                 "the query offsets of a ragged batch", 4) ||
        !operand("cu_seqlens_k", a.cu_seqlens_k, m.readsCuSeqlensK, "read",
                 "the key offsets of a ragged batch", 4))
      return false;
    if (!m.readsCuSeqlensQ)
      return inRange("max_seqlen_q", a.max_seqlen_q, 0, 0,
                     " (the artifact does not take a ragged batch)");
    return inRange("max_seqlen_q", a.max_seqlen_q, 0, a.seq_q,
                   " (0: seq_q; the longest sequence's query rows)");
  }

  /// The work-list fields: a plan only for split_kv artifacts, with
  /// num_splits 0 and its counts in range; all zero without a plan.
  bool plan() {
    if (!a.plan) {
      if (a.plan_items != 0 || a.plan_partials != 0) {
        error = "expected plan_items and plan_partials 0 without a plan";
        return false;
      }
      return true;
    }
    if (!m.splitKv) {
      error = "expected plan to be NULL: the artifact has no split_kv kernel "
              "to run a work list";
      return false;
    }
    if (reinterpret_cast<uintptr_t>(a.plan) % 8 != 0) {
      error =
          "expected plan (" + pointerText(a.plan) + ") to be 8-byte aligned";
      return false;
    }
    if (a.num_splits != 0) {
      error = "expected num_splits 0 with a plan (its items carry their "
              "splits), got " +
              std::to_string(a.num_splits);
      return false;
    }
    return inRange("plan_items", a.plan_items, 1, INT32_MAX,
                   " (at least the plan's num_items)") &&
           inRange("plan_partials", a.plan_partials, 0, INT32_MAX,
                   " (at least the plan's num_partials)");
  }

  /// An optional operand: present exactly when the artifact reads it, and
  /// `align`-byte aligned.
  /// `verb` is "read" or "write".
  bool operand(const char *name, const void *p, bool reads, const char *verb,
               const char *what, unsigned align) {
    if (reads && !p) {
      error = std::string("expected a non-null ") + name + ": the artifact " +
              verb + "s " + what;
      return false;
    }
    if (!reads && p) {
      error = std::string("expected ") + name +
              " to be NULL: the artifact does not " + verb + " " + what;
      return false;
    }
    if (p && reinterpret_cast<uintptr_t>(p) % align != 0) {
      error = std::string("expected ") + name + " (" + pointerText(p) +
              ") to be " + std::to_string(align) + "-byte aligned";
      return false;
    }
    return true;
  }

  bool run() {
    const char *dtype = dtypeName(dtypeValue(a));
    if (!dtype) {
      error = "expected dtype ATTNRT_BF16, ATTNRT_F16 or ATTNRT_F32, got " +
              std::to_string(dtypeValue(a));
      return false;
    }
    if (m.dtype != dtype) {
      error = std::string("expected dtype ") + dtype +
              " to match the artifact's " + m.dtype;
      return false;
    }
    if (!equal("num_q_heads", a.num_q_heads, m.numQHeads) ||
        !equal("num_kv_heads", a.num_kv_heads, m.numKvHeads) ||
        !equal("head_dim", a.head_dim, m.headDim) ||
        !equal("value_head_dim", a.value_head_dim, m.valueHeadDim))
      return false;
    if (!inRange("batch", a.batch, 1, 65535, " (the grid's z limit)") ||
        !inRange("seq_q", a.seq_q, 1, INT32_MAX, "") ||
        !inRange("seq_k", a.seq_k, 1, INT32_MAX, ""))
      return false;
    if (!tensor("q", a.q) || !tensor("k", a.k) || !tensor("v", a.v) ||
        !tensor("o", a.o))
      return false;
    int64_t hq = a.num_q_heads, hkv = a.num_kv_heads;
    if (!cache() || !ragged() || !plan())
      return false;
    // K and V: [B, Hkv, Sk] or, paged, [num_pages, Hkv, page_size]; a
    // ragged batch's packed rows are batch entry 0.
    const bool paged = m.pageSize > 0;
    const int64_t kvBytes = m.readsKvScales ? 1 : 2;
    int64_t qB = m.readsCuSeqlensQ ? 1 : a.batch;
    int64_t kvB = paged                ? a.num_pages
                  : m.readsCuSeqlensK ? 1
                                      : a.batch,
            kvS = paged ? m.pageSize : a.seq_k;
    const char *kShape = paged ? "pages [num_pages, page_size, Hkv, D]"
                               : "[B, Hkv, Sk, D]",
               *vShape = paged ? "pages [num_pages, page_size, Hkv, Dv]"
                               : "[B, Hkv, Sk, Dv]";
    if (!strides("q_strides", a.q_strides, qB, hq, a.seq_q, a.head_dim,
                 "[B, Hq, Sq, D]", false) ||
        !strides("k_strides", a.k_strides, kvB, hkv, kvS, a.head_dim, kShape,
                 false, kvBytes) ||
        !strides("v_strides", a.v_strides, kvB, hkv, kvS, a.value_head_dim,
                 vShape, false, kvBytes) ||
        !strides("o_strides", a.o_strides, qB, hq, a.seq_q,
                 a.value_head_dim, "[B, Hq, Sq, Dv]", true))
      return false;
    if (!operand("lse", a.lse, m.readsLse, "write", "the log-sum-exp", 4) ||
        !operand("seq_ids", a.seq_ids, m.readsSeqIds, "read", "document ids",
                 4) ||
        !operand("cu_seqlens", a.cu_seqlens, m.readsCuSeqlens, "read",
                 "document offsets", 4) ||
        !operand("block_mask", a.block_mask, m.readsBlockMask, "read",
                 "a block mask", 1) ||
        !operand("alibi_slopes", a.alibi_slopes, m.readsAlibiSlopes, "read",
                 "ALiBi slopes", 4))
      return false;
    if (m.readsCuSeqlens && a.num_cu_seqlens < 2) {
      error = "expected num_cu_seqlens >= 2 (one document at least), got " +
              std::to_string(a.num_cu_seqlens);
      return false;
    }
    if (!inRange("num_splits", a.num_splits, 0,
                 m.splitKv    ? 4096
                 : tailSplits ? rt::kBalancedTail
                              : 1,
                 m.splitKv ? ""
                 : tailSplits
                     ? " (2: the persistent kernel's last wave dealt to "
                       "every block by keys)"
                     : " (the artifact has no split_kv kernel)"))
      return false;
    // A persistent kernel numbers its work items (query tiles x query
    // heads / gqa_pack x batch entries) in 32 bits where it orders them
    // (sliding windows, FlashKernel.cpp buildWork).
    if (m.persistent) {
      const int64_t tiles = queryTiles(m, a);
      const int64_t units = a.num_q_heads / m.gqaPack * a.batch;
      if (tiles > 0 && units > INT32_MAX / tiles) {
        error = "expected at most 2^31 - 1 work items for the persistent "
                "kernel (query tiles of " +
                std::to_string(m.blockQ) +
                " rows x query heads x batch), got " + std::to_string(tiles) +
                " x " + std::to_string(units);
        return false;
      }
    }
    if (m.readsBlockMask) {
      if (a.block_mask_b != 1 && a.block_mask_b != a.batch) {
        error = "expected block_mask_b 1 or batch " + std::to_string(a.batch) +
                ", got " + std::to_string(a.block_mask_b);
        return false;
      }
      if (a.block_mask_h != 1 && a.block_mask_h != a.num_q_heads) {
        error = "expected block_mask_h 1 or num_q_heads " +
                std::to_string(a.num_q_heads) + ", got " +
                std::to_string(a.block_mask_h);
        return false;
      }
    }
    return true;
  }
};
} // namespace

/// The kernel a launch `a` of `artifact` runs: its short-sequence
/// kernel where it has one and both lengths are within its bound, and so
/// on down the nested short kernels.
static attnrt_artifact *launchedKernel(const attnrt_artifact *artifact,
                                       const attnrt_attention_args &a) {
  while (artifact->shortKernel &&
         a.seq_q <= artifact->manifest.shortKernelMaxSeq &&
         a.seq_k <= artifact->manifest.shortKernelMaxSeq)
    artifact = artifact->shortKernel;
  return const_cast<attnrt_artifact *>(artifact);
}

static attnrt_status validate(const attnrt_artifact *artifact,
                              const attnrt_attention_args *args) {
  if (!artifact)
    return fail(ATTNRT_ERROR_INVALID_ARGUMENT, "expected a non-null artifact");
  if (!args)
    return fail(ATTNRT_ERROR_INVALID_ARGUMENT, "expected non-null args");
  std::string error;
  Checker checker{artifact->manifest, *args, error};
  checker.tailSplits = launchedKernel(artifact, *args)->manifest.tailSplits;
  if (!checker.run())
    return fail(ATTNRT_ERROR_INVALID_ARGUMENT, error);
  return ATTNRT_OK;
}

extern "C" attnrt_status attnrt_validate(const attnrt_artifact *artifact,
                                         const attnrt_attention_args *args) {
  return validate(artifact, args);
}


//===----------------------------------------------------------------------===//
// Launching
//===----------------------------------------------------------------------===//

/// The driver, initialised once; NO_DRIVER / NO_DEVICE / CUDA otherwise.
static attnrt_status initDriver(const Driver *&driver) {
  std::string error;
  driver = getDriver(error);
  if (!driver)
    return fail(ATTNRT_ERROR_NO_DRIVER, error);
  static const CUresult initResult = driver->cuInit(0);
  if (initResult == CUDA_ERROR_NO_DEVICE)
    return fail(ATTNRT_ERROR_NO_DEVICE,
                "no CUDA device: " + driver->describe("cuInit", initResult));
  if (initResult != CUDA_SUCCESS)
    return fail(ATTNRT_ERROR_CUDA, driver->describe("cuInit", initResult));
  return ATTNRT_OK;
}

/// Blocks of `function` resident at once on the current device (SMs x
/// blocks per SM; 1 per SM when the occupancy query is missing) and the
/// SMs, both 0 when the device cannot be read. Only split_kv artifacts (to
/// choose splits) and persistent ones (their grid) ask.
static std::pair<int64_t, int64_t>
residentSlots(const Driver &d, const KernelManifest &m, CUfunction function) {
  CUdevice device = 0;
  int sms = 0;
  const int kMultiprocessorCount = 16; // CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT
  if (!(m.splitKv || m.persistent) || !d.cuCtxGetDevice ||
      d.cuCtxGetDevice(&device) != CUDA_SUCCESS ||
      d.cuDeviceGetAttribute(&sms, kMultiprocessorCount, device) !=
          CUDA_SUCCESS ||
      sms < 1)
    return {0, 0};
  int perSm = 0;
  if (!d.cuOccupancyMaxActiveBlocksPerMultiprocessor ||
      d.cuOccupancyMaxActiveBlocksPerMultiprocessor(
          &perSm, function, static_cast<int>(m.threads),
          static_cast<size_t>(m.dynamicSharedMemory)) != CUDA_SUCCESS ||
      perSm < 1)
    perSm = 1;
  return {static_cast<int64_t>(sms) * perSm, sms};
}

/// Loads the artifact's module into the current context `ctx`: the cubin,
/// or the PTX (compiled by the driver) when there is no cubin or the cubin
/// does not load (another GPU architecture).
static attnrt_status loadModule(const Driver &d, attnrt_artifact &artifact,
                                CUcontext ctx, unsigned long long ctxId) {
  CUfunction function = nullptr, combine = nullptr;
  const KernelManifest &m = artifact.manifest;
  auto section = [&](const char *name) -> const std::string * {
    auto it = artifact.file.sections.find(name);
    return it == artifact.file.sections.end() || it->second.empty()
               ? nullptr
               : &it->second;
  };
  CUmodule module = nullptr;
  std::string failures;
  if (const std::string *cubin = section("cubin")) {
    CUresult r = d.cuModuleLoadData(&module, cubin->data());
    if (r != CUDA_SUCCESS) {
      module = nullptr;
      failures =
          "cubin (" + m.target + "): " + d.describe("cuModuleLoadData", r);
    }
  }
  if (!module) {
    if (const std::string *ptx = section("ptx")) {
      // The PTX section is text; std::string keeps it NUL-terminated.
      std::vector<char> log(16 * 1024, '\0');
      int options[] = {CU_JIT_ERROR_LOG_BUFFER,
                       CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
      void *values[] = {
          log.data(),
          reinterpret_cast<void *>(static_cast<uintptr_t>(log.size() - 1))};
      CUresult r =
          d.cuModuleLoadDataEx(&module, ptx->c_str(), 2, options, values);
      if (r != CUDA_SUCCESS) {
        module = nullptr;
        if (!failures.empty())
          failures += "; ";
        failures +=
            "ptx (" + m.target + "): " + d.describe("cuModuleLoadDataEx", r);
        std::string text(log.data());
        while (!text.empty() && (text.back() == '\n' || text.back() == ' '))
          text.pop_back();
        if (!text.empty())
          failures += ": " + text;
      }
    }
  }
  if (!module)
    return fail(ATTNRT_ERROR_CUDA,
                "cannot load kernel '" + m.kernel + "': " + failures);

  CUresult r = d.cuModuleGetFunction(&function, module, m.kernel.c_str());
  if (r != CUDA_SUCCESS) {
    d.cuModuleUnload(module);
    return fail(ATTNRT_ERROR_CUDA,
                "kernel '" + m.kernel +
                    "' not found in the artifact's module: " +
                    d.describe("cuModuleGetFunction", r));
  }
  if (m.dynamicSharedMemory > kDefaultDynamicSharedMemory) {
    r = d.cuFuncSetAttribute(function,
                             CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                             static_cast<int>(m.dynamicSharedMemory));
    if (r != CUDA_SUCCESS) {
      d.cuModuleUnload(module);
      return fail(ATTNRT_ERROR_CUDA, "cannot give kernel '" + m.kernel + "' " +
                                         std::to_string(m.dynamicSharedMemory) +
                                         " bytes of dynamic shared memory: " +
                                         d.describe("cuFuncSetAttribute", r));
    }
  }
  if (m.splitKv) {
    r = d.cuModuleGetFunction(&combine, module, abi::kCombineKernel);
    if (r != CUDA_SUCCESS) {
      d.cuModuleUnload(module);
      return fail(ATTNRT_ERROR_CUDA,
                  std::string("kernel '") + abi::kCombineKernel +
                      "' (split_kv) not found in the artifact's module: " +
                      d.describe("cuModuleGetFunction", r));
    }
  }
  auto [slots, sms] = residentSlots(d, m, function);
  artifact.loaded.push_back(
      {ctx, ctxId, module, function, combine, slots, sms});
  return ATTNRT_OK;
}

/// The artifact's kernels in the current context (loaded on first use).
static attnrt_status currentKernels(attnrt_artifact &artifact, const Driver *&d,
                                    attnrt_artifact::Loaded &kernels,
                                    const char *caller) {
  if (attnrt_status s = initDriver(d))
    return s;
  CUcontext ctx = nullptr;
  CUresult r = d->cuCtxGetCurrent(&ctx);
  if (r != CUDA_SUCCESS)
    return fail(ATTNRT_ERROR_CUDA, d->describe("cuCtxGetCurrent", r));
  if (!ctx)
    return fail(ATTNRT_ERROR_NO_DEVICE,
                std::string("no current CUDA context on this thread: make one "
                            "current (e.g. torch.cuda.set_device, or "
                            "cuDevicePrimaryCtxRetain and cuCtxSetCurrent) "
                            "before ") +
                    caller);
  unsigned long long ctxId = 0;
  if (d->cuCtxGetId && d->cuCtxGetId(ctx, &ctxId) != CUDA_SUCCESS)
    ctxId = 0;
  std::lock_guard<std::mutex> lock(artifact.mutex);
  for (const attnrt_artifact::Loaded &l : artifact.loaded)
    if (l.context == ctx && l.contextId == ctxId) {
      kernels = l;
      return ATTNRT_OK;
    }
  if (attnrt_status s = loadModule(*d, artifact, ctx, ctxId))
    return s;
  kernels = artifact.loaded.back();
  return ATTNRT_OK;
}

/// The split count of a validated launch: 1 without split_kv, the caller's
/// num_splits, or the runtime's choice for the current device (from the
/// context's loaded kernels, `known` when the caller has them already).
static attnrt_status resolveSplits(attnrt_artifact &artifact,
                                   const attnrt_attention_args &a,
                                   int64_t &splits, const char *caller,
                                   const attnrt_artifact::Loaded *known =
                                       nullptr) {
  const KernelManifest &m = artifact.manifest;
  splits = 1;
  if (a.plan)
    return ATTNRT_OK;
  if (!(m.splitKv || m.tailSplits) || a.num_splits >= 1) {
    splits = std::max<int64_t>(1, a.num_splits);
    return ATTNRT_OK;
  }
  attnrt_artifact::Loaded kernels{};
  if (!known) {
    const Driver *d = nullptr;
    if (attnrt_status s = currentKernels(artifact, d, kernels, caller))
      return s;
    known = &kernels;
  }
  if (m.tailSplits) {
    // The persistent kernel's last wave (KernelAbi.h tail splits), as
    // rt::chooseTailSplits says for the device's resident blocks (whole
    // items when it cannot say: one block an item, no wave).
    splits =
        rt::chooseTailSplits(workItems(m, a), keyTiles(m, a), known->slots);
    return ATTNRT_OK;
  }
  if (known->slots <= 0)
    return fail(ATTNRT_ERROR_CUDA,
                "cannot read the current device's SM count to choose "
                "num_splits: pass num_splits > 0");
  int64_t blocks = workItems(m, a);
  const int64_t tiles = keyTiles(m, a);
  int64_t slots = rt::splitSlots(known->slots, known->sms, m.splitBlocksPerSm);
  splits = rt::chooseNumSplits(blocks, tiles, slots, known->sms);
  return ATTNRT_OK;
}

/// The persistent tail-splitting launch of `a` with num_splits `splits`
/// on `slots` resident blocks (KernelAbi.h tail splits).
static rt::TailLaunch tailLaunchOf(const KernelManifest &m,
                                   const attnrt_attention_args &a,
                                   int64_t splits, int64_t slots) {
  return rt::tailLaunch(workItems(m, a), splits, slots);
}

/// Scratch bytes of a launch with `splits` splits (0 for one split); a
/// tail-splitting kernel's on `slots` resident blocks.
static attnrt_status scratchBytes(const KernelManifest &m,
                                  const attnrt_attention_args &a,
                                  int64_t splits, size_t &bytes,
                                  int64_t slots = 0) {
  bytes = 0;
  if (m.tailSplits) {
    if (splits <= 1 || slots <= 0)
      return ATTNRT_OK;
    // validate() bounded the work items by 2^31; the blocks are the
    // device's resident ones, a record at most 2^42 bytes.
    rt::TailLaunch t = tailLaunchOf(m, a, splits, slots);
    bytes = static_cast<size_t>(abi::tailScratchFloats(
                t.tailItems, t.blocks, m.threads, m.blockQ, a.value_head_dim)) *
            4;
    return ATTNRT_OK;
  }
  if (a.plan) {
    // validate() bounded plan_partials by 2^31; a record is at most 2^42
    // bytes for any head dim the manifest allows.
    bytes =
        static_cast<size_t>(a.plan_partials) *
        static_cast<size_t>(abi::planRecordFloats(m.blockQ, a.value_head_dim)) *
        4;
    return ATTNRT_OK;
  }
  if (splits <= 1)
    return ATTNRT_OK;
  int64_t n = splits;
  for (int64_t f : {a.batch, a.num_q_heads, a.seq_q, a.value_head_dim + 1,
                    int64_t{4}})
    if (__builtin_mul_overflow(n, f, &n))
      return fail(ATTNRT_ERROR_INVALID_ARGUMENT,
                  "the split-KV scratch of " + std::to_string(splits) +
                      " splits overflows 2^63 bytes");
  bytes = static_cast<size_t>(n);
  return ATTNRT_OK;
}

extern "C" attnrt_status attnrt_num_splits(const attnrt_artifact *artifact,
                                           const attnrt_attention_args *args,
                                           int64_t *splits) {
  if (!splits)
    return fail(ATTNRT_ERROR_INVALID_ARGUMENT, "expected a non-null splits");
  *splits = 1;
  if (attnrt_status s = validate(artifact, args))
    return s;
  // Loading the kernels on first use changes the artifact's cache only.
  return resolveSplits(*launchedKernel(artifact, *args), *args, *splits,
                       "attnrt_num_splits");
}

extern "C" attnrt_status
attnrt_plan_request_init(const attnrt_artifact *artifact,
                         const attnrt_attention_args *args,
                         attnrt_plan_request *request) {
  if (!artifact || !args || !request)
    return fail(ATTNRT_ERROR_INVALID_ARGUMENT,
                "attnrt_plan_request_init: expected an artifact, args and a "
                "request");
  const KernelManifest &m = artifact->manifest;
  if (!m.splitKv)
    return fail(ATTNRT_ERROR_INVALID_ARGUMENT,
                "attnrt_plan_request_init: the artifact has no split_kv "
                "kernel to run a work list");
  if (args->batch < 1 || args->batch > INT32_MAX || args->num_q_heads < 1 ||
      args->num_q_heads % m.gqaPack != 0)
    return fail(ATTNRT_ERROR_INVALID_ARGUMENT,
                "attnrt_plan_request_init: expected batch >= 1 and "
                "num_q_heads a multiple of gqa_pack " +
                    std::to_string(m.gqaPack) + ", got " +
                    std::to_string(args->batch) + " and " +
                    std::to_string(args->num_q_heads));
  attnrt_artifact::Loaded kernels{};
  const Driver *d = nullptr;
  if (attnrt_status s = currentKernels(*const_cast<attnrt_artifact *>(artifact),
                                       d, kernels, "attnrt_plan_request_init"))
    return s;
  if (kernels.slots <= 0 || kernels.slots > INT32_MAX)
    return fail(ATTNRT_ERROR_CUDA,
                "attnrt_plan_request_init: cannot read the current device's "
                "SM count: set num_ctas yourself");
  *request = attnrt_plan_request{};
  request->batch = static_cast<int32_t>(args->batch);
  request->num_kv_heads = static_cast<int32_t>(args->num_q_heads / m.gqaPack);
  request->group_size = static_cast<int32_t>(m.gqaPack);
  request->block_q = static_cast<int32_t>(m.blockQ);
  request->block_k = static_cast<int32_t>(m.blockK);
  request->causal = 0;
  request->num_ctas = static_cast<int32_t>(kernels.slots);
  request->max_splits = static_cast<int32_t>(rt::kMaxAutoSplits);
  request->min_split_tiles = 1;
  return ATTNRT_OK;
}

extern "C" attnrt_status attnrt_scratch_size(const attnrt_artifact *artifact,
                                             const attnrt_attention_args *args,
                                             size_t *bytes) {
  if (!bytes)
    return fail(ATTNRT_ERROR_INVALID_ARGUMENT, "expected a non-null bytes");
  *bytes = 0;
  int64_t splits = 1;
  if (attnrt_status s = attnrt_num_splits(artifact, args, &splits))
    return s;
  // The kernel the launch runs (attnrt_num_splits resolved its splits): a
  // tail-splitting kernel's scratch depends on its resident blocks.
  attnrt_artifact *run = launchedKernel(artifact, *args);
  int64_t slots = 0;
  if (run->manifest.tailSplits && splits > 1) {
    attnrt_artifact::Loaded kernels{};
    const Driver *d = nullptr;
    if (attnrt_status s =
            currentKernels(*run, d, kernels, "attnrt_scratch_size"))
      return s;
    slots = kernels.slots;
  }
  return scratchBytes(run->manifest, *args, splits, *bytes, slots);
}

/// Checks the caller's scratch for `splits` splits (a tail-splitting
/// kernel's on `slots` resident blocks).
static attnrt_status checkScratch(const KernelManifest &m,
                                  const attnrt_attention_args &a,
                                  int64_t splits, int64_t slots = 0) {
  size_t needed = 0;
  if (attnrt_status s = scratchBytes(m, a, splits, needed, slots))
    return s;
  if (needed && (!a.scratch || reinterpret_cast<uintptr_t>(a.scratch) % 16 != 0 ||
                 a.scratch_bytes < needed))
    return fail(ATTNRT_ERROR_INVALID_ARGUMENT,
                "expected 16-byte aligned scratch of at least " +
                    std::to_string(needed) + " bytes for " +
                    (a.plan ? std::to_string(a.plan_partials) +
                                  " partial records of a plan"
                     : m.tailSplits
                         ? std::string("the persistent kernel's last wave "
                                       "dealt to every block by keys")
                         : std::to_string(splits) + " key splits") +
                    " (attnrt_scratch_size), got " + pointerText(a.scratch) +
                    " with " + std::to_string(a.scratch_bytes) + " bytes");
  return ATTNRT_OK;
}

attnrt_status attnc::rt::tensorMapShapes(const KernelManifest &m,
                                         const attnrt_attention_args &a,
                                         std::vector<TensorMapShape> &out) {
  out.clear();
  // CUtensorMapDataType UINT8 = 0, FLOAT16 = 6, BFLOAT16 = 9. An fp8
  // cache's k and v are bytes, boxes of 128 of them a row.
  const int dataType = m.dtype == "bf16" ? 9 : 6;
  struct Tensor {
    unsigned param;
    const char *name;
    const void *data;
    const int64_t *strides;
    int64_t batch, heads, length, width, rows;
    /// fp8 codes (one byte an element) instead of 16-bit elements.
    bool bytes = false;
  };
  // A ragged batch's packed rows are batch entry 0 of their tensors. A
  // paged cache is num_pages entries of page_size rows, read a page (or a
  // key tile of a larger page) a box.
  const bool paged = m.pageSize > 0;
  const int64_t qBatch = m.readsCuSeqlensQ ? 1 : a.batch,
                kvBatch = paged               ? a.num_pages
                          : m.readsCuSeqlensK ? 1
                                              : a.batch,
                kvLength = paged ? m.pageSize : a.seq_k,
                kvRows = paged ? std::min(m.pageSize, m.blockK) : m.blockK;
  const Tensor tensors[] = {
      {abi::QMap, "q", a.q, a.q_strides, qBatch, a.num_q_heads, a.seq_q,
       a.head_dim, m.blockQ},
      {abi::KMap, "k", a.k, a.k_strides, kvBatch, a.num_kv_heads, kvLength,
       a.head_dim, kvRows, m.readsKvScales},
      {abi::VMap, "v", a.v, a.v_strides, kvBatch, a.num_kv_heads, kvLength,
       a.value_head_dim, kvRows, m.readsKvScales}};
  for (const Tensor &t : tensors) {
    // An empty tensor is never read; any map will do.
    if (t.length == 0 || t.batch == 0)
      continue;
    TensorMapShape shape;
    shape.param = t.param;
    shape.name = t.name;
    shape.data = t.data;
    shape.dataType = t.bytes ? 0 : dataType;
    uint64_t dims[4] = {static_cast<uint64_t>(t.width),
                        static_cast<uint64_t>(t.length),
                        static_cast<uint64_t>(t.heads),
                        static_cast<uint64_t>(t.batch)};
    std::copy(dims, dims + 4, shape.dims);
    // Byte strides of dims S, H, B, except where the dimension has size 1,
    // whose stride is never applied (any multiple of 16 bytes will do).
    const uint64_t elementBytes = t.bytes ? 1 : 2;
    for (int i = 0; i < 3; ++i)
      shape.strides[i] =
          dims[i + 1] == 1
              ? 16
              : static_cast<uint64_t>(t.strides[2 - i]) * elementBytes;
    bool aligned = reinterpret_cast<uintptr_t>(t.data) % 16 == 0;
    for (uint64_t stride : shape.strides)
      aligned = aligned && stride % 16 == 0 && stride < (uint64_t(1) << 40);
    if (!aligned)
      return fail(ATTNRT_ERROR_INVALID_ARGUMENT,
                  std::string("expected ") + t.name +
                      " at a 16-byte aligned address with strides that are "
                      "multiples of 16 bytes for this artifact's TMA "
                      "kernel, got " +
                      pointerText(t.data) + " with strides [" +
                      std::to_string(t.strides[0]) + ", " +
                      std::to_string(t.strides[1]) + ", " +
                      std::to_string(t.strides[2]) + "]");
    shape.box[0] = abi::kTensorMapBoxWidth * (t.bytes ? 2u : 1u);
    shape.box[1] = static_cast<unsigned>(t.rows);
    shape.box[2] = shape.box[3] = 1;
    out.push_back(shape);
  }
  return ATTNRT_OK;
}

/// The TMA tensor maps of a `tensor_maps` kernel (KernelAbi.h) into
/// maps[QMap], maps[KMap], maps[VMap]. Fails where TMA cannot address a
/// tensor: a base address or a stride that is not a multiple of 16 bytes.
static attnrt_status encodeTensorMaps(const Driver &d, const KernelManifest &m,
                                      const attnrt_attention_args &a,
                                      unsigned char (*maps)[128]) {
  if (!d.cuTensorMapEncodeTiled)
    return fail(ATTNRT_ERROR_CUDA,
                "the driver has no cuTensorMapEncodeTiled (CUDA 12 or later), "
                "which this artifact's TMA kernel needs");
  std::vector<rt::TensorMapShape> shapes;
  if (attnrt_status s = rt::tensorMapShapes(m, a, shapes))
    return s;
  for (rt::TensorMapShape &t : shapes) {
    unsigned elementStrides[4] = {1, 1, 1, 1};
    // SWIZZLE_128B = 3; L2_PROMOTION_L2_128B = 2; interleave and OOB fill
    // NONE (zeros) = 0.
    CUresult r = d.cuTensorMapEncodeTiled(
        maps[t.param], t.dataType, 4, const_cast<void *>(t.data), t.dims,
        t.strides, t.box, elementStrides, /*interleave=*/0, /*swizzle=*/3,
        /*l2Promotion=*/2, /*oobFill=*/0);
    if (r != CUDA_SUCCESS)
      return fail(ATTNRT_ERROR_CUDA,
                  std::string("building the tensor map of ") + t.name + ": " +
                      d.describe("cuTensorMapEncodeTiled", r));
  }
  return ATTNRT_OK;
}

/// Launches the kernel of `artifact` for the validated launch `a`.
static attnrt_status launchKernel(attnrt_artifact *artifact,
                                  const attnrt_attention_args &a,
                                  void *stream) {
  const KernelManifest &m = artifact->manifest;
  // A caller-chosen split count or a plan is checked before the driver is
  // touched.
  if ((a.num_splits > 0 || a.plan) && !m.tailSplits)
    if (attnrt_status s = checkScratch(m, a, a.num_splits))
      return s;
  const Driver *d = nullptr;
  attnrt_artifact::Loaded kernels{};
  if (attnrt_status s = currentKernels(*artifact, d, kernels, "attnrt_launch"))
    return s;
  CUfunction function = kernels.function;
  CUresult r;
  int64_t splits = 1;
  if (attnrt_status s =
          resolveSplits(*artifact, a, splits, "attnrt_launch", &kernels))
    return s;
  if ((a.num_splits <= 0 && !a.plan) || m.tailSplits) // checked above
    if (attnrt_status s = checkScratch(m, a, splits, kernels.slots))
      return s;
  // With more than one split the scratch check above bounded B * Hq * Sq.
  // A plan: a block per item, and a combine block per item when the plan
  // may have split an item. A tail-splitting kernel merges its splits
  // itself.
  int64_t combineBlocks = a.plan ? (a.plan_partials > 0 ? a.plan_items : 0)
                          : splits > 1 && m.splitKv
                              ? a.batch * a.num_q_heads * a.seq_q
                              : 0;
  int64_t gridX = a.plan      ? a.plan_items
                  : m.splitKv ? queryTiles(m, a) * splits
                              : queryTiles(m, a);
  unsigned gridY =
      a.plan ? 1 : static_cast<unsigned>(a.num_q_heads / m.gqaPack);
  unsigned gridZ = a.plan ? 1 : static_cast<unsigned>(a.batch);
  // A persistent kernel (KernelAbi.h kPersistentGrid): as many blocks as
  // are resident at once, each walking the work items from its index; the
  // grid above when the device cannot say (one item a block).
  // A tail-splitting one with the balanced tail: every resident block
  // (KernelAbi.h), the tail's counters zeroed first.
  rt::TailLaunch tail;
  if (m.persistent && kernels.slots > 0) {
    tail = tailLaunchOf(m, a, splits, kernels.slots);
    gridX = m.tailSplits
                ? tail.blocks
                : std::min<int64_t>(gridX * gridY * gridZ, kernels.slots);
    gridY = gridZ = 1;
    if (m.tailSplits && tail.tailItems > 0 &&
        !rt::balancedTailFits(tail.tailItems, keyTiles(m, a), tail.blocks))
      return fail(ATTNRT_ERROR_INVALID_ARGUMENT,
                  "expected the last wave's key tiles (" +
                      std::to_string(tail.tailItems) + " items of " +
                      std::to_string(keyTiles(m, a)) + ") times the " +
                      std::to_string(tail.blocks) +
                      " blocks below 2^31 for num_splits 2 (pass 1)");
  }
  if (gridX > INT32_MAX || combineBlocks > INT32_MAX)
    return fail(ATTNRT_ERROR_INVALID_ARGUMENT,
                "expected at most 2^31 - 1 thread blocks along the grid's x, "
                "got " +
                    std::to_string(std::max(gridX, combineBlocks)) +
                    " (fewer splits or a shorter seq_q)");
  auto ptr = [](const void *p) {
    return static_cast<CUdeviceptr>(reinterpret_cast<uintptr_t>(p));
  };
  // The kernel ABI (KernelAbi.h): one slot per parameter, in table order.
  CUdeviceptr pointers[abi::NumParams] = {};
  int64_t scalars[abi::NumParams] = {};
  pointers[abi::Q] = ptr(a.q);
  pointers[abi::K] = ptr(a.k);
  pointers[abi::V] = ptr(a.v);
  pointers[abi::O] = ptr(a.o);
  pointers[abi::Lse] = ptr(a.lse);
  pointers[abi::SeqIds] = ptr(a.seq_ids);
  pointers[abi::CuSeqlens] = ptr(a.cu_seqlens);
  pointers[abi::BlockMask] = ptr(a.block_mask);
  pointers[abi::AlibiSlopes] = ptr(a.alibi_slopes);
  scalars[abi::Batch] = a.batch;
  scalars[abi::SeqQ] = a.seq_q;
  scalars[abi::SeqK] = a.seq_k;
  scalars[abi::NumCuSeqlens] = m.readsCuSeqlens ? a.num_cu_seqlens : 0;
  scalars[abi::BlockMaskB] = m.readsBlockMask ? a.block_mask_b : 0;
  scalars[abi::BlockMaskH] = m.readsBlockMask ? a.block_mask_h : 0;
  const int64_t *strides[4] = {a.q_strides, a.k_strides, a.v_strides,
                               a.o_strides};
  for (unsigned t = 0; t < 4; ++t)
    for (unsigned dim = 0; dim < 3; ++dim)
      scalars[abi::QStrideB + 3 * t + dim] = strides[t][dim];
  scalars[abi::NumSplits] = splits;
  pointers[abi::Scratch] =
      splits > 1 || (a.plan && a.plan_partials > 0) ? ptr(a.scratch) : 0;
  pointers[abi::Plan] = ptr(a.plan);
  pointers[abi::KvLens] = ptr(a.kv_lens);
  pointers[abi::PageTable] = ptr(a.page_table);
  scalars[abi::MaxPages] = m.pageSize > 0 ? a.max_pages : 0;
  scalars[abi::NumPages] = m.pageSize > 0 ? a.num_pages : 0;
  pointers[abi::KvScales] = ptr(a.kv_scales);
  pointers[abi::CuSeqlensQ] = ptr(a.cu_seqlens_q);
  pointers[abi::CuSeqlensK] = ptr(a.cu_seqlens_k);
  // Tensor maps (CUtensorMap, 128 bytes, 64-byte aligned), zero unless the
  // kernel reads its tiles by TMA.
  alignas(64) unsigned char maps[abi::NumParams][128] = {};
  if (m.tensorMaps)
    if (attnrt_status s = encodeTensorMaps(*d, m, a, maps))
      return s;
  void *params[abi::NumParams];
  for (unsigned i = 0; i < abi::NumParams; ++i)
    params[i] = abi::kParams[i].kind == abi::ParamKind::Pointer
                    ? static_cast<void *>(&pointers[i])
                : abi::kParams[i].kind == abi::ParamKind::TensorMap
                    ? static_cast<void *>(maps[i])
                    : static_cast<void *>(&scalars[i]);

  if (m.tailSplits && tail.tailItems > 0) {
    if (!d->cuMemsetD32Async)
      return fail(ATTNRT_ERROR_CUDA,
                  "the driver has no cuMemsetD32Async, which clears the "
                  "persistent kernel's tail counters");
    r = d->cuMemsetD32Async(
        ptr(a.scratch), 0,
        static_cast<size_t>(tail.tailItems * (m.threads / 32)),
        static_cast<CUstream>(stream));
    if (r != CUDA_SUCCESS)
      return fail(ATTNRT_ERROR_CUDA, "clearing the tail counters: " +
                                         d->describe("cuMemsetD32Async", r));
  }
  r = d->cuLaunchKernel(function, static_cast<unsigned>(gridX), gridY, gridZ,
                        static_cast<unsigned>(m.threads), 1, 1,
                        static_cast<unsigned>(m.dynamicSharedMemory),
                        static_cast<CUstream>(stream), params, nullptr);
  if (r != CUDA_SUCCESS)
    return fail(ATTNRT_ERROR_CUDA, "launching kernel '" + m.kernel + "': " +
                                       d->describe("cuLaunchKernel", r));
  if (combineBlocks > 0) {
    // The combine kernel, stream-ordered after the splits: with
    // programmatic stream serialization when it waits for them itself
    // (combine_waits), so that its launch overlaps their last blocks.
    const unsigned threads = 32 * abi::kCombineRowsPerBlock;
    if (m.combineWaits && d->cuLaunchKernelEx) {
      cuda::CUlaunchAttribute overlap{};
      overlap.id = cuda::CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION;
      overlap.value.programmaticStreamSerializationAllowed = 1;
      cuda::CUlaunchConfig config{};
      config.gridDimX = static_cast<unsigned>(combineBlocks);
      config.gridDimY = config.gridDimZ = 1;
      config.blockDimX = threads;
      config.blockDimY = config.blockDimZ = 1;
      config.hStream = static_cast<CUstream>(stream);
      config.attrs = &overlap;
      config.numAttrs = 1;
      r = d->cuLaunchKernelEx(&config, kernels.combine, params, nullptr);
    } else {
      r = d->cuLaunchKernel(
          kernels.combine, static_cast<unsigned>(combineBlocks), 1, 1, threads,
          1, 1, 0, static_cast<CUstream>(stream), params, nullptr);
    }
    if (r != CUDA_SUCCESS)
      return fail(ATTNRT_ERROR_CUDA,
                  std::string("launching kernel '") + abi::kCombineKernel +
                      "': " + d->describe("cuLaunchKernel", r));
  }
  return ATTNRT_OK;
}

extern "C" attnrt_status attnrt_launch(attnrt_artifact *artifact,
                                       const attnrt_attention_args *args,
                                       void *stream) {
  if (attnrt_status s = validate(artifact, args))
    return s;
  // Short sequences run the artifact's short-sequence kernel, where it has
  // one: validated above, as checkShortKernel gives it the main kernel's
  // launch contract.
  return launchKernel(launchedKernel(artifact, *args), *args, stream);
}
