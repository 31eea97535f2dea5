// RUN: attnc-opt %s --pass-pipeline='builtin.module(gpu.module(attn-mark-tensor-map-params))' --split-input-file --verify-diagnostics | FileCheck %s

// The kernels of the attnc ABI (KernelAbi.h: 37 pointers and integers, then
// the tensor maps q_map, k_map, v_map) get their tensor-map parameters as
// 128-byte, 64-byte aligned by-value grid constants; other parameters and
// other functions (a helper, a kernel of another name with the same
// parameters) are left alone.
// CHECK-LABEL: gpu.module @kernels
// CHECK: llvm.func @attnc_attention(%{{[a-z0-9]+}}: !llvm.ptr, %{{.*}}: i64, %{{[a-z0-9]+}}: !llvm.ptr, %{{[a-z0-9]+}}: !llvm.ptr, %{{[a-z0-9]+}}: !llvm.ptr, %{{[a-z0-9]+}}: !llvm.ptr, %{{[a-z0-9]+}}: !llvm.ptr {llvm.align = 64 : i64, llvm.byval = !llvm.array<128 x i8>, nvvm.grid_constant}, %{{[a-z0-9]+}}: !llvm.ptr {llvm.align = 64 : i64, llvm.byval = !llvm.array<128 x i8>, nvvm.grid_constant}, %{{[a-z0-9]+}}: !llvm.ptr {llvm.align = 64 : i64, llvm.byval = !llvm.array<128 x i8>, nvvm.grid_constant})
// CHECK: llvm.func @attnc_combine(%{{[a-z0-9]+}}: !llvm.ptr, %{{.*}}: !llvm.ptr {llvm.align = 64 : i64, llvm.byval = !llvm.array<128 x i8>, nvvm.grid_constant})
// CHECK: llvm.func @helper(%{{[a-z0-9]+}}: !llvm.ptr, %{{[a-z0-9]+}}: !llvm.ptr)
// CHECK-NOT: grid_constant
gpu.module @kernels {
  llvm.func @attnc_attention(%q: !llvm.ptr, %k: !llvm.ptr, %v: !llvm.ptr, %o: !llvm.ptr, %lse: !llvm.ptr, %ids: !llvm.ptr, %cu: !llvm.ptr, %bm: !llvm.ptr, %al: !llvm.ptr, %i9: i64, %i10: i64, %i11: i64, %i12: i64, %i13: i64, %i14: i64, %i15: i64, %i16: i64, %i17: i64, %i18: i64, %i19: i64, %i20: i64, %i21: i64, %i22: i64, %i23: i64, %i24: i64, %i25: i64, %i26: i64, %i27: i64, %scratch: !llvm.ptr, %kvl: !llvm.ptr, %pt: !llvm.ptr, %mp: i64, %np: i64, %ks: !llvm.ptr, %cq: !llvm.ptr, %ck: !llvm.ptr, %pl: !llvm.ptr, %qm: !llvm.ptr, %km: !llvm.ptr, %vm: !llvm.ptr) attributes {nvvm.kernel} {
    llvm.return
  }
  llvm.func @attnc_combine(%q: !llvm.ptr, %k: !llvm.ptr, %v: !llvm.ptr, %o: !llvm.ptr, %lse: !llvm.ptr, %ids: !llvm.ptr, %cu: !llvm.ptr, %bm: !llvm.ptr, %al: !llvm.ptr, %i9: i64, %i10: i64, %i11: i64, %i12: i64, %i13: i64, %i14: i64, %i15: i64, %i16: i64, %i17: i64, %i18: i64, %i19: i64, %i20: i64, %i21: i64, %i22: i64, %i23: i64, %i24: i64, %i25: i64, %i26: i64, %i27: i64, %scratch: !llvm.ptr, %kvl: !llvm.ptr, %pt: !llvm.ptr, %mp: i64, %np: i64, %ks: !llvm.ptr, %cq: !llvm.ptr, %ck: !llvm.ptr, %pl: !llvm.ptr, %qm: !llvm.ptr, %km: !llvm.ptr, %vm: !llvm.ptr) attributes {nvvm.kernel} {
    llvm.return
  }
  llvm.func @helper(%a: !llvm.ptr, %b: !llvm.ptr) {
    llvm.return
  }
  llvm.func @other_kernel(%q: !llvm.ptr, %k: !llvm.ptr, %v: !llvm.ptr, %o: !llvm.ptr, %lse: !llvm.ptr, %ids: !llvm.ptr, %cu: !llvm.ptr, %bm: !llvm.ptr, %al: !llvm.ptr, %i9: i64, %i10: i64, %i11: i64, %i12: i64, %i13: i64, %i14: i64, %i15: i64, %i16: i64, %i17: i64, %i18: i64, %i19: i64, %i20: i64, %i21: i64, %i22: i64, %i23: i64, %i24: i64, %i25: i64, %i26: i64, %i27: i64, %scratch: !llvm.ptr, %kvl: !llvm.ptr, %pt: !llvm.ptr, %mp: i64, %np: i64, %ks: !llvm.ptr, %cq: !llvm.ptr, %ck: !llvm.ptr, %pl: !llvm.ptr, %qm: !llvm.ptr, %km: !llvm.ptr, %vm: !llvm.ptr) attributes {nvvm.kernel} {
    llvm.return
  }
}

// -----

// A kernel of the ABI's name with other parameters is an error.
gpu.module @wrong {
  // expected-error @+1 {{expected the 40 parameters of the kernel ABI, got 2}}
  llvm.func @attnc_attention(%a: !llvm.ptr, %b: !llvm.ptr) attributes {nvvm.kernel} {
    llvm.return
  }
}
