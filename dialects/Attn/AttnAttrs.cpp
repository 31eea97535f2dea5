//===- AttnAttrs.cpp - attn mask attributes -------------------------------===//
//
// Parsing, printing and verification of the mask attributes, and their
// MaskAttrInterface implementations (a MaskSpec each).
//
//===----------------------------------------------------------------------===//

#include "dialects/Attn/AttnDialect.h"

#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace attnc::attn;
using attnc::mask::Alignment;
using attnc::mask::DocumentSource;
using attnc::mask::MaskSpec;

#define GET_ATTRDEF_CLASSES
#include "dialects/Attn/AttnAttrs.cpp.inc"

void AttnDialect::registerAttributes() {
  addAttributes<
#define GET_ATTRDEF_LIST
#include "dialects/Attn/AttnAttrs.cpp.inc"
      >();
}

/// Parses `top_left` or `bottom_right`.
static ParseResult parseAlignment(AsmParser &p, Alignment &alignment) {
  llvm::SMLoc loc = p.getCurrentLocation();
  StringRef word;
  if (p.parseKeyword(&word))
    return failure();
  if (word == "top_left")
    alignment = Alignment::TopLeft;
  else if (word == "bottom_right")
    alignment = Alignment::BottomRight;
  else
    return p.emitError(loc, "expected alignment top_left or bottom_right, got ")
           << word;
  return success();
}

/// Parses `name = <integer>`.
static ParseResult parseNamedInt(AsmParser &p, StringRef name, int64_t &value) {
  return failure(p.parseKeyword(name) || p.parseEqual() ||
                 p.parseInteger(value));
}

/// Parses `[, alignment] >` after the last mandatory entry.
static ParseResult parseOptionalAlignmentAndClose(AsmParser &p,
                                                  Alignment &alignment) {
  alignment = Alignment::BottomRight;
  if (succeeded(p.parseOptionalComma()) && parseAlignment(p, alignment))
    return failure();
  return p.parseGreater();
}

static void printOptionalAlignment(AsmPrinter &p, Alignment alignment) {
  if (alignment == Alignment::TopLeft)
    p << ", top_left";
}

//===----------------------------------------------------------------------===//
// CausalMaskAttr
//===----------------------------------------------------------------------===//

Attribute CausalMaskAttr::parse(AsmParser &p, Type) {
  Alignment alignment = Alignment::BottomRight;
  if (succeeded(p.parseOptionalLess()) &&
      (parseAlignment(p, alignment) || p.parseGreater()))
    return {};
  return get(p.getContext(), alignment);
}

void CausalMaskAttr::print(AsmPrinter &p) const {
  if (getAlignment() == Alignment::TopLeft)
    p << "<top_left>";
}

MaskSpec CausalMaskAttr::getMaskSpec() const {
  return MaskSpec::causal(getAlignment());
}

//===----------------------------------------------------------------------===//
// SlidingWindowMaskAttr
//===----------------------------------------------------------------------===//

Attribute SlidingWindowMaskAttr::parse(AsmParser &p, Type) {
  int64_t left, right;
  Alignment alignment;
  if (p.parseLess() || parseNamedInt(p, "left", left) || p.parseComma() ||
      parseNamedInt(p, "right", right) ||
      parseOptionalAlignmentAndClose(p, alignment))
    return {};
  return getChecked([&] { return p.emitError(p.getNameLoc()); }, p.getContext(),
                    left, right, alignment);
}

void SlidingWindowMaskAttr::print(AsmPrinter &p) const {
  p << "<left = " << getLeft() << ", right = " << getRight();
  printOptionalAlignment(p, getAlignment());
  p << ">";
}

LogicalResult
SlidingWindowMaskAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                              int64_t left, int64_t right, Alignment) {
  // Sequences are shorter than 2^31 (the runtime's bound), so a wider window
  // means nothing more, and the bound keeps i' - left and i' + right from
  // overflowing.
  if (left < 0 || right < 0 || left > INT32_MAX || right > INT32_MAX)
    return emitError() << "expected sliding window extents in [0, 2^31 - 1], "
                          "got left = "
                       << left << ", right = " << right;
  return success();
}

MaskSpec SlidingWindowMaskAttr::getMaskSpec() const {
  return MaskSpec::slidingWindow(getLeft(), getRight(), getAlignment());
}

//===----------------------------------------------------------------------===//
// PrefixLMMaskAttr
//===----------------------------------------------------------------------===//

Attribute PrefixLMMaskAttr::parse(AsmParser &p, Type) {
  int64_t prefix;
  Alignment alignment;
  if (p.parseLess() || parseNamedInt(p, "prefix", prefix) ||
      parseOptionalAlignmentAndClose(p, alignment))
    return {};
  return getChecked([&] { return p.emitError(p.getNameLoc()); }, p.getContext(),
                    prefix, alignment);
}

void PrefixLMMaskAttr::print(AsmPrinter &p) const {
  p << "<prefix = " << getPrefix();
  printOptionalAlignment(p, getAlignment());
  p << ">";
}

LogicalResult
PrefixLMMaskAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                         int64_t prefix, Alignment) {
  if (prefix < 0 || prefix > INT32_MAX)
    return emitError() << "expected prefix length in [0, 2^31 - 1], got "
                       << prefix;
  return success();
}

MaskSpec PrefixLMMaskAttr::getMaskSpec() const {
  return MaskSpec::prefixLM(getPrefix(), getAlignment());
}

//===----------------------------------------------------------------------===//
// DocumentMaskAttr
//===----------------------------------------------------------------------===//

Attribute DocumentMaskAttr::parse(AsmParser &p, Type) {
  llvm::SMLoc loc = p.getCurrentLocation();
  StringRef word;
  if (p.parseLess() || p.parseKeyword(&word))
    return {};
  DocumentSource source;
  if (word == "seq_ids") {
    source = DocumentSource::SegmentIds;
  } else if (word == "cu_seqlens") {
    source = DocumentSource::CuSeqlens;
  } else {
    p.emitError(loc, "expected document source seq_ids or cu_seqlens, got ")
        << word;
    return {};
  }
  bool causal = false;
  if (succeeded(p.parseOptionalComma())) {
    if (p.parseKeyword("causal"))
      return {};
    causal = true;
  }
  if (p.parseGreater())
    return {};
  return get(p.getContext(), source, causal);
}

void DocumentMaskAttr::print(AsmPrinter &p) const {
  p << "<" << getOperandName();
  if (getCausal())
    p << ", causal";
  p << ">";
}

MaskSpec DocumentMaskAttr::getMaskSpec() const {
  return MaskSpec::document(getSource(), getCausal());
}

StringRef DocumentMaskAttr::getOperandName() const {
  return getSource() == DocumentSource::SegmentIds ? "seq_ids" : "cu_seqlens";
}

//===----------------------------------------------------------------------===//
// BlockSparseMaskAttr
//===----------------------------------------------------------------------===//

Attribute BlockSparseMaskAttr::parse(AsmParser &p, Type) {
  int64_t blockQ, blockK;
  if (p.parseLess() || parseNamedInt(p, "block_q", blockQ) || p.parseComma() ||
      parseNamedInt(p, "block_k", blockK) || p.parseGreater())
    return {};
  return getChecked([&] { return p.emitError(p.getNameLoc()); }, p.getContext(),
                    blockQ, blockK);
}

void BlockSparseMaskAttr::print(AsmPrinter &p) const {
  p << "<block_q = " << getBlockQ() << ", block_k = " << getBlockK() << ">";
}

LogicalResult
BlockSparseMaskAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                            int64_t blockQ, int64_t blockK) {
  if (blockQ <= 0 || blockK <= 0 || blockQ > INT32_MAX || blockK > INT32_MAX)
    return emitError() << "expected block sizes in [1, 2^31 - 1], got block_q = "
                       << blockQ << ", block_k = " << blockK;
  return success();
}

MaskSpec BlockSparseMaskAttr::getMaskSpec() const {
  return MaskSpec::blockSparse(getBlockQ(), getBlockK());
}

StringRef BlockSparseMaskAttr::getOperandName() const { return "block_mask"; }

//===----------------------------------------------------------------------===//
// GpuKernelAttr
//===----------------------------------------------------------------------===//

/// Parses `true` or `false` after `name =` into `value`.
/// The `true` or `false` after `name =`.
static ParseResult parseBoolValue(AsmParser &p, StringRef name, bool &value) {
  StringRef word;
  llvm::SMLoc loc = p.getCurrentLocation();
  if (p.parseKeyword(&word))
    return failure();
  if (word != "true" && word != "false")
    return p.emitError(loc, "expected ") << name << " = true or false, got "
                                         << word;
  value = word == "true";
  return success();
}

static ParseResult parseNamedBool(AsmParser &p, StringRef name, bool &value) {
  if (p.parseKeyword(name) || p.parseEqual())
    return failure();
  return parseBoolValue(p, name, value);
}

Attribute GpuKernelAttr::parse(AsmParser &p, Type) {
  std::string chip;
  int64_t blockQ, blockK, warps, mTiles, stages, gqaPack = 1;
  bool qInSmem = false, splitKv = false;
  if (p.parseLess() || p.parseKeyword("chip") || p.parseEqual() ||
      p.parseString(&chip) || p.parseComma() ||
      parseNamedInt(p, "block_q", blockQ) || p.parseComma() ||
      parseNamedInt(p, "block_k", blockK) || p.parseComma() ||
      parseNamedInt(p, "warps", warps) || p.parseComma() ||
      parseNamedInt(p, "m_tiles", mTiles) || p.parseComma() ||
      parseNamedInt(p, "stages", stages) || p.parseComma() ||
      parseNamedBool(p, "q_in_smem", qInSmem))
    return {};
  // The optional decode parameters, in this order.
  int64_t keyWarps = 1;
  bool sawPack = false, sawKeyWarps = false, sawSplit = false, wgmma = false,
       sawWgmma = false, sawPersistent = false, persistent = false,
       sawTma = false, tmaLoads = false, sawPingPong = false, pingPong = true,
       sawWide = false, wideStores = false, sawLazy = false,
       lazyRescale = false, sawTrim = false, trimKeys = false,
       sawStaged = false, stagedStores = false, sawQBuffers = false,
       sawBlocks = false, sawChain = false, chainItems = false;
  int64_t exp2Fma = 0, qBuffers = 1, blocksPerSm = 0;
  while (succeeded(p.parseOptionalComma())) {
    if (!sawPack && succeeded(p.parseOptionalKeyword("gqa_pack"))) {
      sawPack = true;
      if (p.parseEqual() || p.parseInteger(gqaPack))
        return {};
    } else if (!sawKeyWarps && succeeded(p.parseOptionalKeyword("key_warps"))) {
      sawPack = sawKeyWarps = true;
      if (p.parseEqual() || p.parseInteger(keyWarps))
        return {};
    } else if (!sawSplit && succeeded(p.parseOptionalKeyword("split_kv"))) {
      sawPack = sawKeyWarps = sawSplit = true;
      if (p.parseEqual() || parseBoolValue(p, "split_kv", splitKv))
        return {};
    } else if (!sawWgmma && succeeded(p.parseOptionalKeyword("wgmma"))) {
      sawPack = sawKeyWarps = sawSplit = sawWgmma = true;
      if (p.parseEqual() || parseBoolValue(p, "wgmma", wgmma))
        return {};
    } else if (!sawPersistent &&
               succeeded(p.parseOptionalKeyword("persistent"))) {
      sawPack = sawKeyWarps = sawSplit = sawWgmma = sawPersistent = true;
      if (p.parseEqual() || parseBoolValue(p, "persistent", persistent))
        return {};
    } else if (!sawTma && succeeded(p.parseOptionalKeyword("tma_loads"))) {
      sawPack = sawKeyWarps = sawSplit = sawWgmma = sawPersistent = sawTma =
          true;
      if (p.parseEqual() || parseBoolValue(p, "tma_loads", tmaLoads))
        return {};
    } else if (!sawPingPong && succeeded(p.parseOptionalKeyword("ping_pong"))) {
      sawPack = sawKeyWarps = sawSplit = sawWgmma = sawPersistent = sawTma =
          sawPingPong = true;
      if (p.parseEqual() || parseBoolValue(p, "ping_pong", pingPong))
        return {};
    } else if (!sawWide && succeeded(p.parseOptionalKeyword("wide_stores"))) {
      sawPack = sawKeyWarps = sawSplit = sawWgmma = sawPersistent = sawTma =
          sawPingPong = sawWide = true;
      if (p.parseEqual() || parseBoolValue(p, "wide_stores", wideStores))
        return {};
    } else if (!sawLazy && succeeded(p.parseOptionalKeyword("lazy_rescale"))) {
      sawPack = sawKeyWarps = sawSplit = sawWgmma = sawPersistent = sawTma =
          sawPingPong = sawWide = sawLazy = true;
      if (p.parseEqual() || parseBoolValue(p, "lazy_rescale", lazyRescale))
        return {};
    } else if (!sawTrim && succeeded(p.parseOptionalKeyword("trim_keys"))) {
      sawPack = sawKeyWarps = sawSplit = sawWgmma = sawPersistent = sawTma =
          sawPingPong = sawWide = sawLazy = sawTrim = true;
      if (p.parseEqual() || parseBoolValue(p, "trim_keys", trimKeys))
        return {};
    } else if (!sawStaged &&
               succeeded(p.parseOptionalKeyword("staged_stores"))) {
      sawPack = sawKeyWarps = sawSplit = sawWgmma = sawPersistent = sawTma =
          sawPingPong = sawWide = sawLazy = sawTrim = sawStaged = true;
      if (p.parseEqual() || parseBoolValue(p, "staged_stores", stagedStores))
        return {};
    } else if (!sawQBuffers && succeeded(p.parseOptionalKeyword("q_buffers"))) {
      sawPack = sawKeyWarps = sawSplit = sawWgmma = sawPersistent = sawTma =
          sawPingPong = sawWide = sawLazy = sawTrim = sawStaged = sawQBuffers =
              true;
      if (p.parseEqual() || p.parseInteger(qBuffers))
        return {};
    } else if (!sawBlocks &&
               succeeded(p.parseOptionalKeyword("blocks_per_sm"))) {
      sawPack = sawKeyWarps = sawSplit = sawWgmma = sawPersistent = sawTma =
          sawPingPong = sawWide = sawLazy = sawTrim = sawStaged = sawQBuffers =
              sawBlocks = true;
      if (p.parseEqual() || p.parseInteger(blocksPerSm))
        return {};
    } else if (!sawChain && succeeded(p.parseOptionalKeyword("chain_items"))) {
      sawPack = sawKeyWarps = sawSplit = sawWgmma = sawPersistent = sawTma =
          sawPingPong = sawWide = sawLazy = sawTrim = sawStaged = sawQBuffers =
              sawBlocks = sawChain = true;
      if (p.parseEqual() || parseBoolValue(p, "chain_items", chainItems))
        return {};
    } else {
      if (parseNamedInt(p, "exp2_fma", exp2Fma))
        return {};
      break;
    }
  }
  if (p.parseGreater())
    return {};
  return getChecked([&] { return p.emitError(p.getNameLoc()); }, p.getContext(),
                    chip, blockQ, blockK, warps, mTiles, stages, qInSmem,
                    gqaPack, splitKv, keyWarps, wgmma, persistent, tmaLoads,
                    exp2Fma, pingPong, wideStores, lazyRescale, trimKeys,
                    stagedStores, qBuffers, blocksPerSm, chainItems);
}

void GpuKernelAttr::print(AsmPrinter &p) const {
  p << "<chip = \"" << getChip() << "\", block_q = " << getBlockQ()
    << ", block_k = " << getBlockK() << ", warps = " << getWarps()
    << ", m_tiles = " << getMTiles() << ", stages = " << getStages()
    << ", q_in_smem = " << (getQInSmem() ? "true" : "false");
  if (getGqaPack() != 1)
    p << ", gqa_pack = " << getGqaPack();
  if (getKeyWarps() != 1)
    p << ", key_warps = " << getKeyWarps();
  if (getSplitKv())
    p << ", split_kv = true";
  if (getWgmma())
    p << ", wgmma = true";
  if (getPersistent())
    p << ", persistent = true";
  if (getTmaLoads())
    p << ", tma_loads = true";
  if (!getPingPong())
    p << ", ping_pong = false";
  if (getWideStores())
    p << ", wide_stores = true";
  if (getLazyRescale())
    p << ", lazy_rescale = true";
  if (getTrimKeys())
    p << ", trim_keys = true";
  if (getStagedStores())
    p << ", staged_stores = true";
  if (getQBuffers() != 1)
    p << ", q_buffers = " << getQBuffers();
  if (getBlocksPerSm())
    p << ", blocks_per_sm = " << getBlocksPerSm();
  if (getChainItems())
    p << ", chain_items = true";
  if (getExp2Fma())
    p << ", exp2_fma = " << getExp2Fma();
  p << ">";
}

LogicalResult GpuKernelAttr::verify(
    function_ref<InFlightDiagnostic()> emitError, StringRef chip,
    int64_t blockQ, int64_t blockK, int64_t warps, int64_t mTiles,
    int64_t stages, bool qInSmem, int64_t gqaPack, bool splitKv,
    int64_t keyWarps, bool wgmma, bool persistent, bool tmaLoads,
    int64_t exp2Fma, bool pingPong, bool wideStores, bool lazyRescale,
    bool trimKeys, bool stagedStores, int64_t qBuffers, int64_t blocksPerSm,
    bool chainItems) {
  if (chip.empty())
    return emitError() << "expected a non-empty chip";
  if (warps < 1 || warps > 32)
    return emitError() << "expected warps in [1, 32], got " << warps;
  if (mTiles < 1 || mTiles > 4)
    return emitError() << "expected m_tiles in [1, 4], got " << mTiles;
  if (keyWarps < 1 || warps % keyWarps != 0)
    return emitError() << "expected key_warps to divide warps " << warps
                       << ", got " << keyWarps;
  if (keyWarps == 1 && blockQ != 16 * mTiles * warps)
    return emitError() << "expected block_q " << blockQ
                       << " to equal 16 * m_tiles * warps = "
                       << 16 * mTiles * warps;
  if (keyWarps != 1 && blockQ != 16 * mTiles * warps / keyWarps)
    return emitError() << "expected block_q " << blockQ
                       << " to equal 16 * m_tiles * warps / key_warps = "
                       << 16 * mTiles * warps / keyWarps;
  if (blockK < 16 || blockK > 256 || blockK % 16 != 0)
    return emitError()
           << "expected block_k to be a multiple of 16 in [16, 256], got "
           << blockK;
  if (blockK % (16 * keyWarps) != 0)
    return emitError() << "expected block_k " << blockK
                       << " to give each of the " << keyWarps
                       << " key_warps a multiple of 16 keys";
  if (stages < 1 || stages > 8)
    return emitError() << "expected stages in [1, 8], got " << stages;
  if (gqaPack < 1 || gqaPack > 16 || blockQ % gqaPack != 0)
    return emitError() << "expected gqa_pack in [1, 16] dividing block_q "
                       << blockQ << ", got " << gqaPack;
  if (wgmma) {
    // A warpgroup (4 warps) owns 64 rows and reads Q from shared memory.
    if (warps % 4 != 0 || mTiles != 1)
      return emitError() << "expected warps a multiple of 4 and m_tiles = 1 "
                            "with wgmma (a warpgroup owns 64 rows), got warps = "
                         << warps << ", m_tiles = " << mTiles;
    if (!qInSmem)
      return emitError()
             << "expected q_in_smem = true with wgmma (Q is read from "
                "shared memory)";
    if (gqaPack != 1 || keyWarps != 1 || splitKv)
      return emitError() << "expected no gqa_pack, key_warps or split_kv "
                            "with wgmma";
  }
  if (!pingPong && !wgmma)
    return emitError() << "expected wgmma = true with ping_pong = false (the "
                          "turns are the wgmma kernel's consumer warpgroups')";
  if (lazyRescale && !wgmma)
    return emitError() << "expected wgmma = true with lazy_rescale = true (the "
                          "kept row maximum is the wgmma kernel's)";
  if (trimKeys && !wgmma)
    return emitError() << "expected wgmma = true with trim_keys = true (the "
                          "narrowed GEMMs are the wgmma kernel's)";
  if (stagedStores && !wgmma)
    return emitError() << "expected wgmma = true with staged_stores = true "
                          "(the staged rows are the wgmma kernel's)";
  if (stagedStores && wideStores)
    return emitError() << "expected at most one of wide_stores and "
                          "staged_stores (two ways of storing O)";
  if (qBuffers < 1 || qBuffers > 2)
    return emitError() << "expected q_buffers 1 or 2, got " << qBuffers;
  if (qBuffers == 2 && !persistent)
    return emitError() << "expected persistent = true with q_buffers = 2 (the "
                          "Q tiles are the persistent kernel's work items')";
  if (blocksPerSm < 0 || blocksPerSm > 8)
    return emitError()
           << "expected blocks_per_sm in [0, 8] (0 derives it), got "
           << blocksPerSm;
  if (blocksPerSm && !wgmma)
    return emitError() << "expected wgmma = true with blocks_per_sm (the "
                          "launch bounds and register split are the wgmma "
                          "kernel's)";
  if (persistent && !wgmma)
    return emitError() << "expected wgmma = true with persistent = true (the "
                          "persistent grid is the wgmma kernel's)";
  if (tmaLoads && wgmma)
    return emitError() << "expected tma_loads only without wgmma (the wgmma "
                          "kernel loads every tile by TMA)";
  if (tmaLoads && qInSmem)
    return emitError() << "expected q_in_smem = false with tma_loads (the "
                          "swizzled ring holds K and V only)";
  if (chainItems && (!persistent || qBuffers != 2))
    return emitError() << "expected persistent = true and q_buffers = 2 with "
                          "chain_items = true (the next work item's first S "
                          "reads its own Q tile)";
  if (chainItems && (warps < 8 || !pingPong))
    return emitError() << "expected two or more consumer warpgroups taking "
                          "turns (warps >= 8, ping_pong) with chain_items = "
                          "true (the chained GEMMs take a turn)";
  if (exp2Fma < 0 || exp2Fma > 8)
    return emitError() << "expected exp2_fma in [0, 8] (weights of every 8 "
                          "computed on the FMA pipe), got "
                       << exp2Fma;
  return success();
}
