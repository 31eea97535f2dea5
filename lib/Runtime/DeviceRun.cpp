//===- DeviceRun.cpp - run an artifact on CUDA device 0 -------------------===//
//
// Device buffers through the driver entry points of CudaDriver.h, the launch
// through the attnrt C API. Shared by attnrt-run and attnc-run.
//
//===----------------------------------------------------------------------===//

#include "harness/DeviceRun.h"
#include "attnc/Runtime/CudaDriver.h"
#include "attnc/Runtime/attnrt_plan.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>

using namespace attnc;
using namespace attnc::cuda;
using attnc::mask::DocumentSource;
using attnc::mask::MaskKind;

//===----------------------------------------------------------------------===//
// The device
//===----------------------------------------------------------------------===//

bool attnc::openDevice(DeviceInfo &info, std::string &error) {
  const Driver *d = getDriver(error);
  if (!d)
    return false;
  CUresult r = d->cuInit(0);
  if (r != CUDA_SUCCESS) {
    error = r == CUDA_ERROR_NO_DEVICE
                ? "no CUDA device: " + d->describe("cuInit", r)
                : d->describe("cuInit", r);
    return false;
  }
  CUdevice device = 0;
  if ((r = d->cuDeviceGet(&device, 0)) != CUDA_SUCCESS) {
    error = d->describe("cuDeviceGet", r);
    return false;
  }
  char name[256] = {0};
  if ((r = d->cuDeviceGetName(name, sizeof(name) - 1, device)) !=
      CUDA_SUCCESS) {
    error = d->describe("cuDeviceGetName", r);
    return false;
  }
  int major = 0, minor = 0;
  if ((r = d->cuDeviceGetAttribute(&major,
                                   CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR,
                                   device)) != CUDA_SUCCESS ||
      (r = d->cuDeviceGetAttribute(&minor,
                                   CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR,
                                   device)) != CUDA_SUCCESS) {
    error = d->describe("cuDeviceGetAttribute", r);
    return false;
  }
  CUcontext ctx = nullptr;
  if ((r = d->cuDevicePrimaryCtxRetain(&ctx, device)) != CUDA_SUCCESS) {
    error = d->describe("cuDevicePrimaryCtxRetain", r);
    return false;
  }
  if ((r = d->cuCtxSetCurrent(ctx)) != CUDA_SUCCESS) {
    error = d->describe("cuCtxSetCurrent", r);
    return false;
  }
  info.name = name;
  info.ccMajor = major;
  info.ccMinor = minor;
  return true;
}

bool attnc::defaultGpuTarget(const DeviceInfo &device, std::string &target,
                             std::string &error) {
  int major = device.ccMajor, minor = device.ccMinor;
  if (major < 8) {
    error = "CUDA device 0 (" + device.name + ") has compute capability " +
            std::to_string(major) + "." + std::to_string(minor) +
            "; attnc's kernels need 8.0 or newer";
    return false;
  }
  target = major == 9 && minor == 0 ? "sm_90a" : "sm_80";
  return true;
}

//===----------------------------------------------------------------------===//
// Device memory
//===----------------------------------------------------------------------===//

namespace {
/// A device allocation freed on destruction.
struct DeviceBuffer {
  const Driver *d = nullptr;
  CUdeviceptr ptr = 0;
  size_t bytes = 0;

  DeviceBuffer() = default;
  DeviceBuffer(const DeviceBuffer &) = delete;
  DeviceBuffer &operator=(const DeviceBuffer &) = delete;
  ~DeviceBuffer() {
    if (ptr)
      d->cuMemFree(ptr);
  }
  void *get() const { return reinterpret_cast<void *>(ptr); }

  /// Allocates `n` bytes (at least 1) and copies `host` in when non-null.
  bool allocate(const Driver &driver, size_t n, const void *host,
                std::string &error) {
    d = &driver;
    bytes = n;
    CUresult r = d->cuMemAlloc(&ptr, std::max<size_t>(n, 1));
    if (r != CUDA_SUCCESS) {
      ptr = 0;
      error =
          d->describe("cuMemAlloc", r) + " (" + std::to_string(n) + " bytes)";
      return false;
    }
    if (host && n) {
      r = d->cuMemcpyHtoD(ptr, host, n);
      if (r != CUDA_SUCCESS) {
        error = d->describe("cuMemcpyHtoD", r);
        return false;
      }
    }
    return true;
  }

  /// Allocates `n` bytes (at least 1) filled with 0xFF bytes.
  bool allocatePoisoned(const Driver &driver, size_t n, std::string &error) {
    if (!allocate(driver, n, nullptr, error))
      return false;
    CUresult r = d->cuMemsetD8(ptr, 0xFF, n);
    if (r != CUDA_SUCCESS) {
      error = d->describe("cuMemsetD8", r);
      return false;
    }
    return true;
  }
};
} // namespace

/// The bytes of `values` in element type `t` (bf16/f16 bits or f32).
static std::vector<unsigned char>
toDeviceElements(const std::vector<double> &values, ElementType t) {
  std::vector<unsigned char> out;
  if (t == ElementType::F32) {
    out.resize(values.size() * 4);
    for (size_t i = 0; i < values.size(); ++i) {
      float f = static_cast<float>(values[i]);
      std::memcpy(&out[i * 4], &f, 4);
    }
    return out;
  }
  out.resize(values.size() * 2);
  for (size_t i = 0; i < values.size(); ++i) {
    float f = static_cast<float>(values[i]);
    uint16_t bits =
        t == ElementType::BF16 ? floatToBF16Bits(f) : floatToF16Bits(f);
    std::memcpy(&out[i * 2], &bits, 2);
  }
  return out;
}

static std::vector<double>
fromDeviceElements(const std::vector<unsigned char> &bytes, ElementType t) {
  std::vector<double> out;
  if (t == ElementType::F32) {
    out.resize(bytes.size() / 4);
    for (size_t i = 0; i < out.size(); ++i) {
      float f;
      std::memcpy(&f, &bytes[i * 4], 4);
      out[i] = f;
    }
    return out;
  }
  out.resize(bytes.size() / 2);
  for (size_t i = 0; i < out.size(); ++i) {
    uint16_t bits;
    std::memcpy(&bits, &bytes[i * 2], 2);
    out[i] =
        t == ElementType::BF16 ? bf16BitsToFloat(bits) : f16BitsToFloat(bits);
  }
  return out;
}

/// Whether the manifest of `artifact` sets `key` to 1 (attnrt checked the
/// flags when it loaded the artifact).
static bool manifestFlag(const attnrt_artifact *artifact, const char *key) {
  const char *value = attnrt_artifact_get(artifact, key);
  return value && std::strcmp(value, "1") == 0;
}

/// Checks that the host problem holds every operand the kernel will read,
/// with the sizes the launch describes.
static bool checkProblem(const AttentionProblem &p, bool readsSeqIds,
                         bool readsCuSeqlens, bool readsBlockMask,
                         bool readsAlibiSlopes, std::string &error) {
  auto expect = [&](const char *what, size_t got, int64_t want) {
    if (got == static_cast<size_t>(want))
      return true;
    error = std::string("expected ") + what + " data of " +
            std::to_string(want) + " values, got " + std::to_string(got);
    return false;
  };
  if (!expect("q", p.q.size(), p.b * p.hq * p.sq * p.d) ||
      !expect("k", p.k.size(), p.b * p.hkv * p.sk * p.d) ||
      !expect("v", p.v.size(), p.b * p.hkv * p.sk * p.dv))
    return false;
  if (readsSeqIds && !expect("seq_ids", p.seqIds.size(), p.b * p.sk))
    return false;
  if (readsCuSeqlens && p.cuSeqlens.size() < 2) {
    error = "expected cu_seqlens data of 2 values or more";
    return false;
  }
  if (readsBlockMask) {
    if (p.mask.blockQ <= 0 || p.mask.blockK <= 0) {
      error = "expected a block-sparse mask with positive block sizes";
      return false;
    }
    auto [nq, nk] = p.blockGrid();
    if (!expect("block mask", p.blockMask.size(),
                p.blockMaskB * p.blockMaskH * nq * nk))
      return false;
  }
  if (readsAlibiSlopes && !expect("alibi_slopes", p.alibiSlopes.size(), p.hq))
    return false;
  return true;
}

//===----------------------------------------------------------------------===//
// The run
//===----------------------------------------------------------------------===//

bool attnc::runOnDevice(attnrt_artifact *artifact, const AttentionProblem &p,
                        ElementType dtype, std::vector<double> &out,
                        std::vector<double> &lseOut,
                        const DeviceRunOptions &options,
                        DeviceRunReport &report, std::string &error) {
  out.clear();
  lseOut.clear();
  report = DeviceRunReport();
  if (!artifact) {
    error = "expected a non-null artifact";
    return false;
  }
  bool readsLse = manifestFlag(artifact, "reads_lse");
  bool readsSeqIds = manifestFlag(artifact, "reads_seq_ids");
  bool readsCuSeqlens = manifestFlag(artifact, "reads_cu_seqlens");
  bool readsBlockMask = manifestFlag(artifact, "reads_block_mask");
  bool readsAlibiSlopes = manifestFlag(artifact, "reads_alibi_slopes");
  bool readsKvLens = manifestFlag(artifact, "reads_kv_lens");
  bool readsKvScales = manifestFlag(artifact, "reads_kv_scales");
  const char *pageSizeText = attnrt_artifact_get(artifact, "page_size");
  int64_t pageSize = pageSizeText ? std::atoll(pageSizeText) : 0;
  if (!checkProblem(p, readsSeqIds, readsCuSeqlens, readsBlockMask,
                    readsAlibiSlopes, error))
    return false;
  if (readsKvLens && p.kvLens.size() != static_cast<size_t>(p.b)) {
    error = "expected kv_lens data of " + std::to_string(p.b) +
            " values, got " + std::to_string(p.kvLens.size());
    return false;
  }
  if (readsKvScales &&
      (p.kCodes.size() != p.k.size() || p.vCodes.size() != p.v.size() ||
       p.kvScales.size() != static_cast<size_t>(2 * p.hkv))) {
    error = "expected fp8 codes of k and v and 2 * hkv scales";
    return false;
  }
  if (pageSize != p.pageSize) {
    error = "expected a problem with page size " + std::to_string(pageSize) +
            " (the artifact's), got " + std::to_string(p.pageSize);
    return false;
  }
  bool readsCuSeqlensQ = manifestFlag(artifact, "reads_cu_seqlens_q");
  bool readsCuSeqlensK = manifestFlag(artifact, "reads_cu_seqlens_k");
  if (readsCuSeqlensQ != p.ragged() ||
      readsCuSeqlensK != (p.ragged() && p.raggedKeys)) {
    error = "expected a ragged problem (packed keys) exactly when the "
            "artifact reads cu_seqlens_q (cu_seqlens_k)";
    return false;
  }
  // Where each page row comes from (pageRowSources).
  std::vector<int64_t> sources;
  if (pageSize > 0 && !pageRowSources(p, sources, error))
    return false;
  // A ragged batch: q and o as packed [tokens, H, D] tensors, lse [1, H,
  // tokens], packed keys likewise with a tail of unread (NaN) rows.
  std::vector<int32_t> cuQ, cuK;
  int64_t qRows = p.sq, kRows = p.sk, maxQ = 0;
  if (readsCuSeqlensQ) {
    cuQ = packedOffsets(p.b, [&](int64_t bi) { return p.queriesOf(bi); });
    qRows = cuQ.back();
    for (int64_t bi = 0; bi < p.b; ++bi)
      maxQ = std::max(maxQ, p.queriesOf(bi));
    if (qRows == 0) {
      error = "expected a ragged batch with at least one query row";
      return false;
    }
  }
  if (readsCuSeqlensK) {
    cuK = packedOffsets(p.b, [&](int64_t bi) { return p.keysOf(bi); });
    kRows = cuK.back() + kPackedKeyTail;
  }
  // K and V as the kernel reads them (kernelKvRows: pages, unread rows NaN),
  // as element bits or fp8 codes.
  auto rowsOf = [&](const std::vector<double> &values,
                    const std::vector<uint8_t> &codes, int64_t width) {
    if (readsKvScales) {
      std::vector<uint8_t> rows =
          readsCuSeqlensK
              ? packRows<uint8_t>(codes, p.b, p.hkv, p.sk, width, cuK, true,
                                  kPackedKeyTail, 0x7F)
              : kernelKvRows<uint8_t>(p, sources, codes, width, 0x7F);
      return std::vector<unsigned char>(rows.begin(), rows.end());
    }
    return toDeviceElements(
        readsCuSeqlensK ? packRows(values, p.b, p.hkv, p.sk, width, cuK, true,
                                   kPackedKeyTail, std::nan(""))
                        : kernelKvRows(p, sources, values, width, std::nan("")),
        dtype);
  };
  const Driver *d = getDriver(error);
  if (!d)
    return false;

  // Device buffers; o and lse poisoned with 0xFF bytes (NaN) so that an
  // element the kernel never writes shows up as a mismatch.
  size_t elt = dtype == ElementType::F32 ? 4 : 2;
  int64_t qBatch = readsCuSeqlensQ ? 1 : p.b;
  if (options.oRowStride > 0 && readsCuSeqlensQ) {
    error = "an O row stride needs O as [b, hq, sq, dv] (a ragged batch "
            "packs its rows)";
    return false;
  }
  if (options.oRowStride > 0 && options.oRowStride < p.dv) {
    error = "expected an O row stride of at least the value head dim (" +
            std::to_string(p.dv) + "), got " +
            std::to_string(options.oRowStride);
    return false;
  }
  // O's rows and heads (elements): dense, or rows oRowStride apart with
  // each head's rows starting at a multiple of 8 elements.
  const int64_t oRow = options.oRowStride > 0 ? options.oRowStride : p.dv;
  const int64_t oHead =
      options.oRowStride > 0 ? (qRows * oRow + 7) / 8 * 8 : qRows * p.dv;
  size_t oElems = static_cast<size_t>(qBatch * p.hq * oHead);
  size_t lseElems = static_cast<size_t>(qBatch * p.hq * qRows);
  DeviceBuffer q, k, v, o, lse, seqIds, cuSeqlens, blockMask, slopes, kvLens,
      pageTable, kvScales, cuSeqlensQ, cuSeqlensK;
  {
    std::vector<unsigned char> bytes = toDeviceElements(
        readsCuSeqlensQ
            ? packRows(p.q, p.b, p.hq, p.sq, p.d, cuQ, true, 0, 0.0)
            : p.q,
        dtype);
    if (!q.allocate(*d, bytes.size(), bytes.data(), error))
      return false;
    bytes = rowsOf(p.k, p.kCodes, p.d);
    if (!k.allocate(*d, bytes.size(), bytes.data(), error))
      return false;
    bytes = rowsOf(p.v, p.vCodes, p.dv);
    if (!v.allocate(*d, bytes.size(), bytes.data(), error))
      return false;
  }
  if (!o.allocatePoisoned(*d, oElems * elt, error))
    return false;
  if (readsLse && !lse.allocatePoisoned(*d, lseElems * 4, error))
    return false;
  if (readsSeqIds &&
      !seqIds.allocate(*d, p.seqIds.size() * 4, p.seqIds.data(), error))
    return false;
  if (readsCuSeqlens && !cuSeqlens.allocate(*d, p.cuSeqlens.size() * 4,
                                            p.cuSeqlens.data(), error))
    return false;
  if (readsBlockMask &&
      !blockMask.allocate(*d, p.blockMask.size(), p.blockMask.data(), error))
    return false;
  if (readsAlibiSlopes) {
    std::vector<float> f(p.alibiSlopes.begin(), p.alibiSlopes.end());
    if (!slopes.allocate(*d, f.size() * 4, f.data(), error))
      return false;
  }
  if (readsKvLens &&
      !kvLens.allocate(*d, p.kvLens.size() * 4, p.kvLens.data(), error))
    return false;
  if (pageSize > 0 && !pageTable.allocate(*d, p.pageTable.size() * 4,
                                          p.pageTable.data(), error))
    return false;
  if (readsKvScales &&
      !kvScales.allocate(*d, p.kvScales.size() * 4, p.kvScales.data(), error))
    return false;
  if (readsCuSeqlensQ &&
      !cuSeqlensQ.allocate(*d, cuQ.size() * 4, cuQ.data(), error))
    return false;
  if (readsCuSeqlensK &&
      !cuSeqlensK.allocate(*d, cuK.size() * 4, cuK.data(), error))
    return false;

  // The launch.
  attnrt_attention_args args;
  std::memset(&args, 0, sizeof(args));
  args.dtype = dtype == ElementType::BF16  ? ATTNRT_BF16
               : dtype == ElementType::F16 ? ATTNRT_F16
                                           : ATTNRT_F32;
  args.batch = p.b;
  args.num_q_heads = p.hq;
  args.num_kv_heads = p.hkv;
  args.seq_q = qRows;
  args.seq_k = kRows;
  args.head_dim = p.d;
  args.value_head_dim = p.dv;
  args.q = q.get();
  args.k = k.get();
  args.v = v.get();
  args.o = o.get();
  args.lse = static_cast<float *>(lse.get());
  auto dense = [](int64_t h, int64_t s, int64_t dim, int64_t *strides) {
    strides[0] = h * s * dim;
    strides[1] = s * dim;
    strides[2] = dim;
    strides[3] = 1;
  };
  // Packed [tokens, H, D]: strides {tokens * H * D, D, H * D, 1}.
  auto packed = [](int64_t h, int64_t s, int64_t dim, int64_t *strides) {
    strides[0] = h * s * dim;
    strides[1] = dim;
    strides[2] = h * dim;
    strides[3] = 1;
  };
  auto queryLayout = readsCuSeqlensQ ? +packed : +dense;
  queryLayout(p.hq, qRows, p.d, args.q_strides);
  if (readsCuSeqlensK) {
    packed(p.hkv, kRows, p.d, args.k_strides);
    packed(p.hkv, kRows, p.dv, args.v_strides);
  } else if (pageSize > 0) {
    // Pages [num_pages, page_size, hkv, .]: strides {page, head, row, 1}.
    auto pages = [&](int64_t dim, int64_t *strides) {
      strides[0] = pageSize * p.hkv * dim;
      strides[1] = dim;
      strides[2] = p.hkv * dim;
      strides[3] = 1;
    };
    pages(p.d, args.k_strides);
    pages(p.dv, args.v_strides);
    args.page_table = static_cast<const int32_t *>(pageTable.get());
    args.max_pages = p.sk / pageSize;
    args.num_pages = p.numPages;
  } else {
    dense(p.hkv, p.sk, p.d, args.k_strides);
    dense(p.hkv, p.sk, p.dv, args.v_strides);
  }
  args.kv_lens = static_cast<const int32_t *>(kvLens.get());
  args.kv_scales = static_cast<const float *>(kvScales.get());
  queryLayout(p.hq, qRows, p.dv, args.o_strides);
  if (options.oRowStride > 0) {
    args.o_strides[0] = p.hq * oHead;
    args.o_strides[1] = oHead;
    args.o_strides[2] = oRow;
  }
  args.cu_seqlens_q = static_cast<const int32_t *>(cuSeqlensQ.get());
  args.cu_seqlens_k = static_cast<const int32_t *>(cuSeqlensK.get());
  args.max_seqlen_q = maxQ;
  args.seq_ids = static_cast<const int32_t *>(seqIds.get());
  args.cu_seqlens = static_cast<const int32_t *>(cuSeqlens.get());
  args.num_cu_seqlens = static_cast<int64_t>(p.cuSeqlens.size());
  args.block_mask = static_cast<const uint8_t *>(blockMask.get());
  args.block_mask_b = p.blockMaskB;
  args.block_mask_h = p.blockMaskH;
  args.alibi_slopes = static_cast<const float *>(slopes.get());
  // Split-KV scratch, poisoned like o: a partial row no split wrote would
  // reach the output as NaN.
  args.num_splits = options.numSplits;
  // A work list of the problem's lengths, planned here and copied to the
  // device.
  DeviceBuffer planBuffer;
  if (options.planCtas >= 0) {
    attnrt_plan_request request;
    if (attnrt_plan_request_init(artifact, &args, &request) != ATTNRT_OK) {
      error = attnrt_last_error();
      return false;
    }
    if (options.planCtas > 0)
      request.num_ctas = static_cast<int32_t>(options.planCtas);
    std::vector<int32_t> seqQ(p.b), seqK(p.b);
    for (int64_t bi = 0; bi < p.b; ++bi) {
      seqQ[bi] = static_cast<int32_t>(p.queriesOf(bi));
      seqK[bi] = static_cast<int32_t>(p.keysOf(bi));
    }
    request.seq_q = seqQ.data();
    request.seq_k = seqK.data();
    size_t bytes = 0;
    attnrt_plan_info info{};
    std::vector<uint64_t> workspace;
    if (attnrt_plan_workspace_size(&request, &bytes) != ATTNRT_OK ||
        (workspace.resize((bytes + 7) / 8),
         attnrt_plan(&request, workspace.data(), bytes, &info)) != ATTNRT_OK) {
      error = attnrt_last_error();
      return false;
    }
    if (!planBuffer.allocate(*d, bytes, workspace.data(), error))
      return false;
    args.plan = planBuffer.get();
    report.planCtas = request.num_ctas;
    args.plan_items = report.planItems = info.num_items;
    args.plan_partials = report.planPartials = info.num_partials;
  }
  DeviceBuffer scratch;
  if (attnrt_num_splits(artifact, &args, &report.numSplits) != ATTNRT_OK ||
      attnrt_scratch_size(artifact, &args, &args.scratch_bytes) != ATTNRT_OK) {
    error = attnrt_last_error();
    return false;
  }
  if (args.scratch_bytes) {
    if (!scratch.allocatePoisoned(*d, args.scratch_bytes, error))
      return false;
    args.scratch = scratch.get();
  }

  if (attnrt_launch(artifact, &args, nullptr) != ATTNRT_OK) {
    error = attnrt_last_error();
    return false;
  }
  CUresult r = d->cuCtxSynchronize();
  if (r != CUDA_SUCCESS) {
    error = "the kernel failed: " + d->describe("cuCtxSynchronize", r);
    return false;
  }

  {
    std::vector<unsigned char> bytes(o.bytes);
    if ((r = d->cuMemcpyDtoH(bytes.data(), o.ptr, bytes.size())) !=
        CUDA_SUCCESS) {
      error = d->describe("cuMemcpyDtoH", r);
      return false;
    }
    // Padded rows: what lies between them (each row's elements past dv,
    // the head's tail) must still be poison.
    for (int64_t bh = 0; options.oRowStride > 0 && bh < qBatch * p.hq; ++bh)
      for (int64_t i = 0; i <= qRows; ++i) {
        int64_t from = i * oRow + (i < qRows ? p.dv : 0);
        int64_t to = i < qRows ? (i + 1) * oRow : oHead;
        const unsigned char *head = bytes.data() + bh * oHead * elt;
        const unsigned char *bad =
            std::find_if(head + from * elt, head + to * elt,
                         [](unsigned char c) { return c != 0xFF; });
        if (bad != head + to * elt) {
          error = "the kernel wrote outside O's rows: element " +
                  std::to_string((bad - head) / elt) + " of head " +
                  std::to_string(bh) + " (rows of " + std::to_string(p.dv) +
                  " elements, " + std::to_string(oRow) + " apart)";
          return false;
        }
      }
    out = fromDeviceElements(bytes, dtype);
    if (options.oRowStride > 0) {
      // Back to dense [b, hq, sq, dv].
      std::vector<double> rows(
          static_cast<size_t>(qBatch * p.hq * qRows * p.dv));
      for (int64_t bh = 0; bh < qBatch * p.hq; ++bh)
        for (int64_t i = 0; i < qRows; ++i)
          std::copy_n(out.begin() + bh * oHead + i * oRow, p.dv,
                      rows.begin() + (bh * qRows + i) * p.dv);
      out = std::move(rows);
    }
  }
  if (readsLse) {
    std::vector<float> f(lseElems);
    if ((r = d->cuMemcpyDtoH(f.data(), lse.ptr, lse.bytes)) != CUDA_SUCCESS) {
      error = d->describe("cuMemcpyDtoH", r);
      return false;
    }
    lseOut.assign(f.begin(), f.end());
  }
  // A ragged batch's rows back in the padded layout (the rows past a
  // sequence's end as the reference has them: 0, LSE -inf).
  if (readsCuSeqlensQ) {
    out = unpackRows(out, p.b, p.hq, p.sq, p.dv, cuQ, qRows, true, 0.0);
    if (readsLse)
      lseOut = unpackRows(lseOut, p.b, p.hq, p.sq, 1, cuQ, qRows, false,
                          -std::numeric_limits<double>::infinity());
  }
  if (options.timedRuns <= 0)
    return true;

  // Timing: 3 warm-up launches, then each of N launches between two events.
  for (int i = 0; i < 3; ++i)
    if (attnrt_launch(artifact, &args, nullptr) != ATTNRT_OK) {
      error = attnrt_last_error();
      return false;
    }
  CUevent start = nullptr, stop = nullptr;
  if ((r = d->cuEventCreate(&start, CU_EVENT_DEFAULT)) != CUDA_SUCCESS ||
      (r = d->cuEventCreate(&stop, CU_EVENT_DEFAULT)) != CUDA_SUCCESS) {
    if (start)
      d->cuEventDestroy(start);
    error = d->describe("cuEventCreate", r);
    return false;
  }
  // Destroys the events on every return below.
  struct Events {
    const Driver *d;
    CUevent start, stop;
    ~Events() {
      d->cuEventDestroy(start);
      d->cuEventDestroy(stop);
    }
  } events{d, start, stop};
  std::vector<double> ms;
  for (int64_t i = 0; i < options.timedRuns; ++i) {
    if ((r = d->cuEventRecord(start, nullptr)) != CUDA_SUCCESS) {
      error = d->describe("cuEventRecord", r);
      return false;
    }
    if (attnrt_launch(artifact, &args, nullptr) != ATTNRT_OK) {
      error = attnrt_last_error();
      return false;
    }
    if ((r = d->cuEventRecord(stop, nullptr)) != CUDA_SUCCESS) {
      error = d->describe("cuEventRecord", r);
      return false;
    }
    if ((r = d->cuEventSynchronize(stop)) != CUDA_SUCCESS) {
      error = "the kernel failed: " + d->describe("cuEventSynchronize", r);
      return false;
    }
    float t = 0;
    if ((r = d->cuEventElapsedTime(&t, start, stop)) != CUDA_SUCCESS) {
      error = d->describe("cuEventElapsedTime", r);
      return false;
    }
    ms.push_back(t);
  }
  std::sort(ms.begin(), ms.end());
  size_t n = ms.size();
  report.timedRuns = static_cast<int64_t>(n);
  report.medianMs = n % 2 ? ms[n / 2] : 0.5 * (ms[n / 2 - 1] + ms[n / 2]);
  report.flops = 2.0 * visiblePairs(p) * static_cast<double>(p.d + p.dv);
  return true;
}

//===----------------------------------------------------------------------===//
// FLOPs and the time line
//===----------------------------------------------------------------------===//

std::string attnc::formatTiming(const DeviceRunReport &r) {
  if (r.timedRuns <= 0)
    return "";
  double tflops = r.medianMs > 0 ? r.flops / (r.medianMs * 1e-3) / 1e12 : 0;
  char line[128];
  std::snprintf(line, sizeof(line),
                "  time: median %.3f ms over %lld runs, %.1f TFLOP/s\n",
                r.medianMs, static_cast<long long>(r.timedRuns), tflops);
  return line;
}
