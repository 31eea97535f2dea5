//===- InitAll.h - register everything attnc provides -----------*- C++ -*-===//
//
// Registration entry points for embedders and tools: the attn dialect, the
// upstream dialects attnc lowers to, and attnc's passes and pipelines.
//
//===----------------------------------------------------------------------===//

#ifndef ATTNC_INITALL_H
#define ATTNC_INITALL_H

namespace mlir {
class DialectRegistry;
} // namespace mlir

namespace attnc {

/// Adds the attn dialect and the upstream dialects (with their extensions
/// and LLVM IR translations) that attnc's pipelines produce.
void registerAllDialects(mlir::DialectRegistry &registry);

/// Registers attnc's passes and pipelines, and the upstream passes, with the
/// global pass registry (for attnc-opt and pass-pipeline strings).
void registerAllPasses();

} // namespace attnc

#endif // ATTNC_INITALL_H
