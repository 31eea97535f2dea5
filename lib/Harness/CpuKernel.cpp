//===- CpuKernel.cpp - JIT the CPU lowering and call it -------------------===//
//
// Lowers an entry module (Compiler.cpp) to the LLVM dialect, JIT-compiles it
// with MLIR's ExecutionEngine, and calls `attnc_entry` on host buffers
// described by strided memref descriptors.
//
//===----------------------------------------------------------------------===//

#include "harness/CpuKernel.h"
#include "passes/Transforms/Passes.h"

#include "dialects/Attn/AttnDialect.h"

#include "mlir/ExecutionEngine/CRunnerUtils.h"
#include "mlir/ExecutionEngine/ExecutionEngine.h"
#include "mlir/ExecutionEngine/OptUtils.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Target/LLVMIR/Dialect/Builtin/BuiltinToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/LLVMIR/LLVMToLLVMIRTranslation.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/TargetSelect.h"

#include <cstring>
#include <tuple>

using namespace mlir;
using namespace attnc;

struct CpuKernel::Impl {
  std::unique_ptr<ExecutionEngine> engine;
  uint8_t (*maskFn)(int64_t, int64_t, int64_t, int64_t) = nullptr;
  float (*scoreFn)(float, int64_t, int64_t, int64_t, int64_t) = nullptr;
  bool hasSeqIds = false, hasCuSeqlens = false, hasBlockMask = false,
       hasAlibiSlopes = false, hasKvLens = false, paged = false,
       kvFp8 = false, cuSeqlensQ = false, cuSeqlensK = false;
  /// The counters of attn-count-tile-steps, when compiled in.
  int64_t *tileSteps = nullptr;
};

CpuKernel::CpuKernel(std::unique_ptr<Impl> impl, bool lse)
    : impl(std::move(impl)), lse(lse) {}
CpuKernel::~CpuKernel() = default;

std::unique_ptr<CpuKernel> CpuKernel::compile(ModuleOp entryModule,
                                              const CompileOptions &options,
                                              std::string &error) {
  static bool targetsReady = [] {
    llvm::InitializeNativeTarget();
    llvm::InitializeNativeTargetAsmPrinter();
    return true;
  }();
  (void)targetsReady;

  auto impl = std::make_unique<Impl>();
  bool hasLse = false;
  entryModule.walk([&](attn::AttentionOp op) {
    hasLse = static_cast<bool>(op.getLse());
    impl->hasSeqIds = static_cast<bool>(op.getSeqIds());
    impl->hasCuSeqlens = static_cast<bool>(op.getCuSeqlens());
    impl->hasBlockMask = static_cast<bool>(op.getBlockMask());
    impl->hasAlibiSlopes = static_cast<bool>(op.getAlibiSlopes());
    impl->hasKvLens = static_cast<bool>(op.getKvLens());
    impl->paged = op.isPaged();
    impl->kvFp8 = static_cast<bool>(op.getKvScales());
    impl->cuSeqlensQ = static_cast<bool>(op.getCuSeqlensQ());
    impl->cuSeqlensK = static_cast<bool>(op.getCuSeqlensK());
  });
  bool hasMaskFn = entryModule.lookupSymbol("attnc_mask_fn") != nullptr;
  bool hasScoreFn = entryModule.lookupSymbol("attnc_score_fn") != nullptr;

  OwningOpRef<ModuleOp> module(cast<ModuleOp>(entryModule->clone()));
  if (failed(lowerTo(*module, EmitLevel::LLVM, options))) {
    error = "lowering to the LLVM dialect failed";
    return nullptr;
  }
  registerBuiltinDialectTranslation(*module->getContext());
  registerLLVMDialectTranslation(*module->getContext());

  ExecutionEngineOptions engineOptions;
  engineOptions.transformer = makeOptimizingTransformer(
      /*optLevel=*/2, /*sizeLevel=*/0, /*targetMachine=*/nullptr);
  auto engine = ExecutionEngine::create(*module, engineOptions);
  if (!engine) {
    error = "JIT compilation failed: " + llvm::toString(engine.takeError());
    return nullptr;
  }
  impl->engine = std::move(*engine);
  if (hasMaskFn) {
    auto fn = impl->engine->lookup("attnc_mask_fn");
    if (!fn) {
      error = llvm::toString(fn.takeError());
      return nullptr;
    }
    impl->maskFn = reinterpret_cast<decltype(impl->maskFn)>(*fn);
  }
  if (hasScoreFn) {
    auto fn = impl->engine->lookup("attnc_score_fn");
    if (!fn) {
      error = llvm::toString(fn.takeError());
      return nullptr;
    }
    impl->scoreFn = reinterpret_cast<decltype(impl->scoreFn)>(*fn);
  }
  if (options.countTileSteps) {
    auto counts = impl->engine->lookup(kTileStepCounterName);
    if (!counts) {
      error = llvm::toString(counts.takeError());
      return nullptr;
    }
    impl->tileSteps = reinterpret_cast<int64_t *>(*counts);
  }
  return std::unique_ptr<CpuKernel>(new CpuKernel(std::move(impl), hasLse));
}

std::optional<std::pair<int64_t, int64_t>> CpuKernel::tileStepCounts() const {
  if (!impl->tileSteps)
    return std::nullopt;
  return std::make_pair(impl->tileSteps[0], impl->tileSteps[1]);
}

std::function<bool(int64_t, int64_t, int64_t, int64_t)>
CpuKernel::maskFn() const {
  auto fn = impl->maskFn;
  if (!fn)
    return {};
  return [fn](int64_t b, int64_t h, int64_t q, int64_t k) {
    return (fn(b, h, q, k) & 1) != 0;
  };
}

std::function<double(double, int64_t, int64_t, int64_t, int64_t)>
CpuKernel::scoreFn() const {
  auto fn = impl->scoreFn;
  if (!fn)
    return {};
  return [fn](double s, int64_t b, int64_t h, int64_t q, int64_t k) {
    return static_cast<double>(fn(static_cast<float>(s), b, h, q, k));
  };
}

namespace {
/// A host buffer with the memref descriptor that points into it.
template <int Rank> struct HostMemRef {
  std::vector<uint8_t> bytes;
  StridedMemRefType<char, Rank> desc;

  HostMemRef(std::vector<int64_t> shape, size_t elementSize) {
    int64_t count = 1;
    for (int64_t s : shape)
      count *= s;
    bytes.resize(std::max<int64_t>(count, 1) * elementSize);
    desc.basePtr = reinterpret_cast<char *>(bytes.data());
    desc.data = desc.basePtr;
    desc.offset = 0;
    int64_t stride = 1;
    for (int i = Rank - 1; i >= 0; --i) {
      desc.sizes[i] = shape[i];
      desc.strides[i] = stride;
      stride *= shape[i];
    }
  }
  void *descriptor() { return &desc; }
};

size_t elementSize(ElementType t) { return t == ElementType::F32 ? 4 : 2; }

/// Stores doubles into a buffer of element type `t`.
void storeAs(std::vector<uint8_t> &bytes, const std::vector<double> &values,
             ElementType t) {
  for (size_t i = 0; i < values.size(); ++i) {
    if (t == ElementType::F32) {
      float f = static_cast<float>(values[i]);
      std::memcpy(&bytes[i * 4], &f, 4);
    } else {
      uint16_t h = t == ElementType::BF16
                       ? floatToBF16Bits(static_cast<float>(values[i]))
                       : floatToF16Bits(static_cast<float>(values[i]));
      std::memcpy(&bytes[i * 2], &h, 2);
    }
  }
}

/// Reads a buffer of element type `t` into doubles.
void loadAs(const std::vector<uint8_t> &bytes, std::vector<double> &values,
            size_t count, ElementType t) {
  values.resize(count);
  for (size_t i = 0; i < count; ++i) {
    if (t == ElementType::F32) {
      float f;
      std::memcpy(&f, &bytes[i * 4], 4);
      values[i] = f;
    } else {
      uint16_t h;
      std::memcpy(&h, &bytes[i * 2], 2);
      values[i] =
          t == ElementType::BF16 ? bf16BitsToFloat(h) : f16BitsToFloat(h);
    }
  }
}
} // namespace

bool CpuKernel::run(const AttentionProblem &p, ElementType dtype,
                    std::vector<double> &out, std::vector<double> &lseOut,
                    std::string &error) const {
  size_t es = elementSize(dtype);
  // A paged cache's buffers are pages [num_pages, page_size, hkv, d].
  std::vector<int64_t> kShape = {p.b, p.hkv, p.sk, p.d},
                         vShape = {p.b, p.hkv, p.sk, p.dv};
  std::vector<int64_t> sources;
  if (impl->paged) {
    if (!pageRowSources(p, sources, error))
      return false;
    kShape = {p.numPages, p.pageSize, p.hkv, p.d};
    vShape = {p.numPages, p.pageSize, p.hkv, p.dv};
  }
  if (impl->kvFp8 && (p.kCodes.size() != p.k.size() ||
                      p.vCodes.size() != p.v.size() ||
                      p.kvScales.size() != static_cast<size_t>(2 * p.hkv))) {
    error = "expected fp8 codes of k and v and 2 * hkv scales";
    return false;
  }
  if (impl->cuSeqlensQ != p.ragged() ||
      impl->cuSeqlensK != (p.ragged() && p.raggedKeys)) {
    error = "expected a ragged problem (packed keys) exactly when the op "
            "has cu_seqlens_q (cu_seqlens_k)";
    return false;
  }
  // A ragged batch: queries and outputs packed into [1, h, Tq, d] (and the
  // keys into [1, hkv, Tk, d]); a tail of NaN keys catches reads past the
  // last sequence.
  std::vector<int32_t> cuQ, cuK;
  int64_t qBatch = p.b, qRows = p.sq;
  if (p.ragged()) {
    cuQ = packedOffsets(p.b, [&](int64_t bi) { return p.queriesOf(bi); });
    qBatch = 1;
    qRows = cuQ.back();
  }
  if (p.ragged() && p.raggedKeys) {
    cuK = packedOffsets(p.b, [&](int64_t bi) { return p.keysOf(bi); });
    kShape = {1, p.hkv, cuK.back() + kPackedKeyTail, p.d};
    vShape = {1, p.hkv, cuK.back() + kPackedKeyTail, p.dv};
  }
  auto keyRows = [&](const auto &padded, int64_t width, auto unread) {
    using T = typename std::decay_t<decltype(padded)>::value_type;
    if (!cuK.empty())
      return packRows<T>(padded, p.b, p.hkv, p.sk, width, cuK, false,
                         kPackedKeyTail, unread);
    return kernelKvRows<T>(p, sources, padded, width, unread);
  };
  size_t kvEs = impl->kvFp8 ? 1 : es;
  HostMemRef<4> q({qBatch, p.hq, qRows, p.d}, es), k(kShape, kvEs),
      v(vShape, kvEs), o({qBatch, p.hq, qRows, p.dv}, es);
  storeAs(q.bytes,
          cuQ.empty() ? p.q
                      : packRows(p.q, p.b, p.hq, p.sq, p.d, cuQ, false, 0, 0.0),
          dtype);
  // K and V as the kernel reads them (kernelKvRows: pages, unread rows NaN).
  if (impl->kvFp8) {
    std::vector<uint8_t> kRows = keyRows(p.kCodes, p.d, uint8_t{0x7F}),
                         vRows = keyRows(p.vCodes, p.dv, uint8_t{0x7F});
    std::memcpy(k.bytes.data(), kRows.data(), kRows.size());
    std::memcpy(v.bytes.data(), vRows.data(), vRows.size());
  } else {
    storeAs(k.bytes, keyRows(p.k, p.d, std::nan("")), dtype);
    storeAs(v.bytes, keyRows(p.v, p.dv, std::nan("")), dtype);
  }
  // Poison the output so that an unwritten element cannot pass.
  std::memset(o.bytes.data(), 0xff, o.bytes.size());
  HostMemRef<3> lseBuf({qBatch, p.hq, qRows}, 4);
  std::memset(lseBuf.bytes.data(), 0xff, lseBuf.bytes.size());

  HostMemRef<2> seqIds({p.b, p.sk}, 4);
  HostMemRef<1> cuSeqlens({static_cast<int64_t>(p.cuSeqlens.size())}, 4);
  int64_t nq = 1, nk = 1;
  if (p.mask.kind == mask::MaskKind::BlockSparse)
    std::tie(nq, nk) = p.blockGrid();
  HostMemRef<4> blockMask({p.blockMaskB, p.blockMaskH, nq, nk}, 1);
  HostMemRef<1> slopes({p.hq}, 4);
  HostMemRef<1> kvLens({p.b}, 4);

  std::vector<void *> descriptors = {q.descriptor(), k.descriptor(),
                                     v.descriptor()};
  if (impl->hasSeqIds) {
    if (p.seqIds.size() != static_cast<size_t>(p.b * p.sk)) {
      error = "expected seq_ids data of b * sk values";
      return false;
    }
    std::memcpy(seqIds.bytes.data(), p.seqIds.data(), p.seqIds.size() * 4);
    descriptors.push_back(seqIds.descriptor());
  }
  if (impl->hasCuSeqlens) {
    std::memcpy(cuSeqlens.bytes.data(), p.cuSeqlens.data(),
                p.cuSeqlens.size() * 4);
    descriptors.push_back(cuSeqlens.descriptor());
  }
  if (impl->hasBlockMask) {
    if (p.blockMask.size() !=
        static_cast<size_t>(p.blockMaskB * p.blockMaskH * nq * nk)) {
      error = "expected block mask data of the block grid's size";
      return false;
    }
    std::memcpy(blockMask.bytes.data(), p.blockMask.data(), p.blockMask.size());
    descriptors.push_back(blockMask.descriptor());
  }
  if (impl->hasAlibiSlopes) {
    for (int64_t h = 0; h < p.hq; ++h) {
      float f = static_cast<float>(p.alibiSlopes.at(h));
      std::memcpy(&slopes.bytes[h * 4], &f, 4);
    }
    descriptors.push_back(slopes.descriptor());
  }
  if (impl->hasKvLens) {
    if (p.kvLens.size() != static_cast<size_t>(p.b)) {
      error = "expected kv_lens data of b values";
      return false;
    }
    std::memcpy(kvLens.bytes.data(), p.kvLens.data(), p.kvLens.size() * 4);
    descriptors.push_back(kvLens.descriptor());
  }
  HostMemRef<2> pageTable({p.b, impl->paged ? p.sk / p.pageSize : 1}, 4);
  if (impl->paged) {
    std::memcpy(pageTable.bytes.data(), p.pageTable.data(),
                p.pageTable.size() * 4);
    descriptors.push_back(pageTable.descriptor());
  }
  HostMemRef<2> kvScales({2, p.hkv}, 4);
  if (impl->kvFp8) {
    std::memcpy(kvScales.bytes.data(), p.kvScales.data(), 2 * p.hkv * 4);
    descriptors.push_back(kvScales.descriptor());
  }
  HostMemRef<1> cuSeqlensQ({static_cast<int64_t>(cuQ.size())}, 4),
      cuSeqlensK({static_cast<int64_t>(cuK.size())}, 4);
  if (impl->cuSeqlensQ) {
    std::memcpy(cuSeqlensQ.bytes.data(), cuQ.data(), cuQ.size() * 4);
    descriptors.push_back(cuSeqlensQ.descriptor());
  }
  if (impl->cuSeqlensK) {
    std::memcpy(cuSeqlensK.bytes.data(), cuK.data(), cuK.size() * 4);
    descriptors.push_back(cuSeqlensK.descriptor());
  }
  descriptors.push_back(o.descriptor());
  if (lse)
    descriptors.push_back(lseBuf.descriptor());

  // The packed C interface takes a pointer to each descriptor pointer.
  std::vector<void *> args;
  for (void *&d : descriptors)
    args.push_back(&d);
  if (llvm::Error err =
          impl->engine->invokePacked("_mlir_ciface_attnc_entry", args)) {
    error = "calling the kernel failed: " + llvm::toString(std::move(err));
    return false;
  }
  loadAs(o.bytes, out, static_cast<size_t>(qBatch * p.hq * qRows * p.dv),
         dtype);
  if (lse)
    loadAs(lseBuf.bytes, lseOut, static_cast<size_t>(qBatch * p.hq * qRows),
           ElementType::F32);
  // A ragged batch's rows back in the padded layout (the rows past a
  // sequence's end as the reference has them: 0, LSE -inf).
  if (!cuQ.empty()) {
    out = unpackRows(out, p.b, p.hq, p.sq, p.dv, cuQ, qRows, false, 0.0);
    if (lse)
      lseOut = unpackRows(lseOut, p.b, p.hq, p.sq, 1, cuQ, qRows, false,
                          -std::numeric_limits<double>::infinity());
  }
  return true;
}
