//===- AttnDialect.td - attn dialect definition ------------*- tablegen -*-===//
//
// The attn dialect: masked attention as one op, before any tiling.
//
//===----------------------------------------------------------------------===//

#ifndef ATTN_DIALECT
#define ATTN_DIALECT

include "mlir/IR/OpBase.td"

def Attn_Dialect : Dialect {
  let name = "attn";
  let summary = "Masked scaled-dot-product attention, described once.";
  let description = [{
    The `attn` dialect describes attention together with its mask, its score
    modifications and its head layout, so that a compiler can tile it, skip
    the key/value tiles the mask hides and pick a kernel for the target.

    `attn.attention` computes, for every batch b, query head h and query row
    i, with g = Hq / Hkv and h' = h / g:

    ```
    s_j  = mod(scale * dot(Q[b, h, i, :], K[b, h', j, :]))   for visible j
    O[b, h, i, :] = sum_j softmax(s)_j * V[b, h', j, :]
    LSE[b, h, i]  = log(sum_j exp(s_j))
    ```

    A row with no visible key gives O = 0 and LSE = -inf. docs/attn-dialect.md
    states every mask and score modification exactly.
  }];
  let cppNamespace = "::attnc::attn";
  let useDefaultAttributePrinterParser = 1;
  let extraClassDeclaration = [{
    /// Registers the mask attributes (AttnAttrs.cpp).
    void registerAttributes();
  }];
}

class Attn_Op<string mnemonic, list<Trait> traits = []>
    : Op<Attn_Dialect, mnemonic, traits>;

#endif // ATTN_DIALECT
