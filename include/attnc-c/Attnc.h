/*===- Attnc.h - attnc's C API -------------------------------------*- C -*-===*\
|*                                                                            *|
|* For hosts that are not C++: the attn dialect in MLIR's C-API style        *|
|* (register it on an MlirContext, then parse or build attn IR with the      *|
|* MLIR C API), and spec-to-artifact compilation in one call.                *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/

#ifndef ATTNC_C_ATTNC_H
#define ATTNC_C_ATTNC_H

#include "mlir-c/IR.h"

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* mlirGetDialectHandle__attn__(): the attn dialect, for
 * mlirDialectHandleRegisterDialect / mlirDialectHandleLoadDialect. */
MLIR_DECLARE_CAPI_DIALECT_REGISTRATION(Attn, attn);

/* Compiles the attention a spec describes ("b=1 hq=8 hkv=2 sq=128 d=64
 * dtype=bf16 mask=causal", docs/attnc-run.md) for `target` ("sm_80" or
 * "sm_90a") and writes the artifact (PTX, cubin, manifest; docs/runtime.md)
 * to `output_path`. Returns 0 on success; otherwise non-zero with a message
 * (truncated to fit, NUL-terminated) in `error` when `error_size` > 0. Needs
 * the CUDA toolkit (CUDA_ROOT) for PTX and the cubin. */
MLIR_CAPI_EXPORTED int attncCompileSpecToArtifact(const char *spec,
                                                  const char *target,
                                                  const char *output_path,
                                                  char *error,
                                                  size_t error_size);

#ifdef __cplusplus
}
#endif

#endif /* ATTNC_C_ATTNC_H */
