// Each tool's --help shows its own options, not LLVM's backend flags.
// RUN: attnc compile --help | FileCheck %s --check-prefix=ATTNC
// RUN: attnc-run --help | FileCheck %s --check-prefix=RUNNER
// RUN: attnc compile --help | count 24
// ATTNC: attnc compile options:
// ATTNC: --emit=<string>
// ATTNC: --target=<string>
// ATTNC-NOT: --amdgpu
// ATTNC-NOT: --x86
// RUNNER: attnc-run options:
// RUNNER: --count-tiles
// RUNNER: --device=<string>
// RUNNER-NOT: --amdgpu
