// attnc compile stops after each level and prints it.
// RUN: attnc compile %s --emit=attn | FileCheck %s --check-prefix=ATTN
// RUN: attnc compile %s --emit=tiled --block-q=32 --block-k=32 2>&1 | FileCheck %s --check-prefix=TILED
// RUN: attnc compile %s --emit=loops | FileCheck %s --check-prefix=LOOPS
// RUN: attnc compile %s --emit=llvm | FileCheck %s --check-prefix=LLVM
// RUN: attnc compile --spec "b=1 hq=2 sq=8 d=16 mask=window:3,0" --emit=attn | FileCheck %s --check-prefix=SPEC
// RUN: not attnc compile %s --emit=ptx 2>&1 | FileCheck %s --check-prefix=BADEMIT
// RUN: not attnc compile %s --target=sm_70 2>&1 | FileCheck %s --check-prefix=BADTARGET
// RUN: not attnc compile %s --target=sm_90a 2>&1 | FileCheck %s --check-prefix=NOOUT

// ATTN: attn.attention %{{.*}} mask(#attn.causal)
// TILED: remark: attn-skip-masked-tiles: mask #attn.causal: closed-form bounds
// TILED: scf.parallel
// TILED: attn.tile_step {{.*}} unmasked
// TILED: attn.tile_finalize
// Proves no attn op survives --emit=loops anywhere (tile steps live inside
// scf.parallel): a LOOPS-NOT guards every gap, up to the end of the output.
// LOOPS-NOT: attn.
// LOOPS: scf.parallel
// LOOPS-NOT: attn.
// LOOPS: math.exp2
// LOOPS-NOT: attn.
// LOOPS: return
// LOOPS-NOT: attn.
// LLVM: llvm.func @attention
// LLVM-NOT: scf.
// LLVM: llvm.intr.exp2
// SPEC: attn.attention {{.*}} mask(#attn.sliding_window<left = 3, right = 0>) : tensor<?x2x?x16xbf16>
// BADEMIT: attnc: error: expected --emit=attn|tiled|loops|llvm for cpu, got ptx
// BADTARGET: attnc: error: expected --target=cpu, sm_80 or sm_90a, got sm_70
// NOOUT: attnc: error: an artifact is binary: give -o out.attnc

func.func @attention(%q: tensor<?x4x?x32xf16>, %k: tensor<?x4x?x32xf16>, %v: tensor<?x4x?x32xf16>) -> tensor<?x4x?x32xf16> {
  %o = attn.attention %q, %k, %v mask(#attn.causal) : tensor<?x4x?x32xf16>, tensor<?x4x?x32xf16>, tensor<?x4x?x32xf16> -> tensor<?x4x?x32xf16>
  return %o : tensor<?x4x?x32xf16>
}
