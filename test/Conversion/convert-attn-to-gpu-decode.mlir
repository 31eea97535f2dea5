// RUN: attnc-opt %s --attn-choose-gpu-kernel=chip=sm_90a --attn-tile --attn-skip-masked-tiles --convert-attn-to-gpu --split-input-file 2>/dev/null | FileCheck %s
// RUN: attnc-opt %s --attn-choose-gpu-kernel=chip=sm_90a --attn-tile --attn-skip-masked-tiles --convert-attn-to-gpu --split-input-file 2>&1 >/dev/null | FileCheck %s --check-prefix=REMARK

// A decode attention (attn.decode): the grid's x is (query tile, split) with
// the split count a kernel parameter, y the KV head whose 4 query heads share
// the tile's rows, and a combine kernel merges the splits.
// CHECK-LABEL: gpu.module @attnc_kernels
// CHECK: gpu.func @attnc_attention(
// CHECK-SAME: %[[NSPLITS:[a-z0-9_]+]]: i64, %[[SCRATCH:[a-z0-9_]+]]: !llvm.ptr,
// CHECK-SAME: known_block_size = array<i32: 128, 1, 1>
// CHECK: %[[BX:.*]] = gpu.block_id x
// CHECK: %[[NS:.*]] = arith.index_cast %[[NSPLITS]] : i64 to index
// CHECK: %[[SPLIT:.*]] = arith.remui %[[BX]], %[[NS]]
// CHECK: %[[TILE:.*]] = arith.divui %[[BX]], %[[NS]]
// CHECK: %[[KVH:.*]] = gpu.block_id y
// CHECK: %[[HEAD:.*]] = arith.muli %[[KVH]], %c4
// Packed rows: position row / 4, head offset row mod 4.
// CHECK: arith.remui %{{.*}}, %c4
// CHECK: arith.divui %{{.*}}, %c4
// The split's share of the key tiles.
// CHECK: arith.ceildivui %{{.*}}, %[[NS]]
// CHECK: arith.muli %[[SPLIT]], %{{.*}}
// One split writes O itself; more write partial rows to the scratch.
// CHECK: arith.cmpi eq, %[[NS]], %c1
// CHECK: llvm.getelementptr %[[SCRATCH]]
// CHECK: gpu.func @attnc_combine(
// CHECK-SAME: known_block_size = array<i32: 128, 1, 1>
// CHECK: scf.for
// CHECK: arith.maximumf
// CHECK: scf.for
// CHECK: math.exp2
// REMARK: remark: convert-attn-to-gpu: sm_90a kernel {{.*}} block_q = 16, block_k = 64, 4 warps x 1 m-tiles; {{.*}}; the 4 query heads of a KV head share each tile's rows (gqa_pack), so K and V are read once per group; 4 warps share the rows and each takes 16 of the 64 keys of a tile (key_warps), merged in shared memory; key range split over thread blocks at run time (split_kv), partial results merged by the combine kernel
func.func @decode(%q: tensor<?x8x?x128xbf16>, %k: tensor<?x2x?x128xbf16>, %v: tensor<?x2x?x128xbf16>) -> tensor<?x8x?x128xbf16> {
  %o = attn.attention %q, %k, %v mask(#attn.causal) {attn.decode} : tensor<?x8x?x128xbf16>, tensor<?x2x?x128xbf16>, tensor<?x2x?x128xbf16> -> tensor<?x8x?x128xbf16>
  return %o : tensor<?x8x?x128xbf16>
}

// -----

// Without attn.decode: no split, no combine kernel.
// CHECK-LABEL: gpu.module @attnc_kernels
// CHECK: gpu.func @attnc_attention(
// CHECK-NOT: attnc_combine
// CHECK: {{// [-]+$}}
// REMARK: remark: convert-attn-to-gpu: sm_90a kernel {{.*}} block_q = 128
// REMARK-NOT: split_kv
func.func @prefill(%q: tensor<?x8x?x128xbf16>, %k: tensor<?x2x?x128xbf16>, %v: tensor<?x2x?x128xbf16>) -> tensor<?x8x?x128xbf16> {
  %o = attn.attention %q, %k, %v mask(#attn.causal) : tensor<?x8x?x128xbf16>, tensor<?x2x?x128xbf16>, tensor<?x2x?x128xbf16> -> tensor<?x8x?x128xbf16>
  return %o : tensor<?x8x?x128xbf16>
}

// -----

// ALiBi: each query head keeps its own tile (the remark says why), still split.
// REMARK: remark: convert-attn-to-gpu: {{.*}}; query heads not packed (ALiBi slopes differ per query head): each query head reads its group's K and V; 4 warps share the rows {{.*}}; key range split over thread blocks at run time (split_kv)
func.func @decode_alibi(%q: tensor<?x4x?x64xbf16>, %k: tensor<?x2x?x64xbf16>, %v: tensor<?x2x?x64xbf16>) -> tensor<?x4x?x64xbf16> {
  %o = attn.attention %q, %k, %v mask(#attn.causal) alibi = [0.5, 0.25, 0.125, 0.0625] {attn.decode} : tensor<?x4x?x64xbf16>, tensor<?x2x?x64xbf16>, tensor<?x2x?x64xbf16> -> tensor<?x4x?x64xbf16>
  return %o : tensor<?x4x?x64xbf16>
}
