//===- MaskInterface.td - the attn mask attribute interface -*- tablegen -*-===//
//
// One interface behind every mask attribute. The semantics live in plain C++
// (include/attnc/Mask/MaskSemantics.h); the interface exposes them for the
// attribute, so no pass re-derives what a mask means.
//
//===----------------------------------------------------------------------===//

#ifndef ATTN_MASK_INTERFACE
#define ATTN_MASK_INTERFACE

include "mlir/IR/OpBase.td"

def Attn_MaskAttrInterface : AttrInterface<"MaskAttrInterface"> {
  let cppNamespace = "::attnc::attn";
  let description = [{
    A mask attribute of attn.attention. It describes itself as a
    `attnc::mask::MaskSpec`, names the operand it reads (if any), and offers
    element-wise evaluation and tile classification.
  }];
  let methods = [
    InterfaceMethod<"Returns the plain description of this mask.",
      "::attnc::mask::MaskSpec", "getMaskSpec">,
    InterfaceMethod<[{
        Returns the name of the attn.attention operand this mask reads
        (`seq_ids`, `cu_seqlens`, `block_mask`), or an empty string.
      }],
      "::llvm::StringRef", "getOperandName", (ins), [{}], [{
        return "";
      }]>,
    InterfaceMethod<[{
        True when the mask is structured: every row sees one interval of keys
        computed in closed form, with no operand data.
      }],
      "bool", "isStructured", (ins), [{}], [{
        return ::attnc::mask::hasIntervalForm($_attr.getMaskSpec().kind);
      }]>,
    InterfaceMethod<[{
        Element-wise semantics: whether query row `q` sees key `k` for
        sequence lengths `sq` and `sk`. Operand-driven masks need `data`.
      }],
      "bool", "isVisible",
      (ins "int64_t":$q, "int64_t":$k, "int64_t":$sq, "int64_t":$sk,
           "const ::attnc::mask::MaskOperandView *":$data), [{}], [{
        return ::attnc::mask::isVisible($_attr.getMaskSpec(), q, k, sq, sk,
                                        data);
      }]>,
    InterfaceMethod<[{
        Classifies the tile of query rows [qBegin, qEnd) and keys
        [kBegin, kEnd) as empty, full or partial.
      }],
      "::attnc::mask::TileClass", "classifyTile",
      (ins "int64_t":$qBegin, "int64_t":$qEnd, "int64_t":$kBegin,
           "int64_t":$kEnd, "int64_t":$sq, "int64_t":$sk,
           "const ::attnc::mask::MaskOperandView *":$data), [{}], [{
        return ::attnc::mask::classifyTile($_attr.getMaskSpec(), qBegin, qEnd,
                                           kBegin, kEnd, sq, sk, data);
      }]>,
  ];
}

#endif // ATTN_MASK_INTERFACE
