// RUN: attnc-opt %s --attn-choose-gpu-kernel=chip=sm_90a --attn-tile --attn-skip-masked-tiles --convert-attn-to-gpu --split-input-file 2>/dev/null | FileCheck %s
// RUN: attnc-opt %s --attn-choose-gpu-kernel=chip=sm_90a --attn-tile --attn-skip-masked-tiles --convert-attn-to-gpu --split-input-file 2>&1 >/dev/null | FileCheck %s --check-prefix=REMARK
// RUN: attnc-opt %s --attn-choose-gpu-kernel=chip=sm_90a --attn-tile --attn-skip-masked-tiles --convert-attn-to-gpu --split-input-file 2>/dev/null | FileCheck %s --check-prefix=NOCP

// A decode attention (attn.decode): the grid's x is (query tile, split) with
// the split count a kernel parameter, y the KV head whose 4 query heads share
// the tile's rows, and a combine kernel merges the splits. With a work list
// (the `plan` parameter not null), block i runs item i of the list instead
// (blocks past its items do nothing), and its partial rows go to the item's
// record.
// CHECK-LABEL: gpu.module @attnc_kernels
// CHECK: gpu.func @attnc_attention(
// CHECK-SAME: %[[NSPLITS:[a-z0-9_]+]]: i64, %[[SCRATCH:[a-z0-9_]+]]: !llvm.ptr,
// CHECK-SAME: %[[PLAN:[a-z0-9_]+]]: !llvm.ptr, %{{[a-z0-9_]+}}: !llvm.ptr, %{{[a-z0-9_]+}}: !llvm.ptr, %{{[a-z0-9_]+}}: !llvm.ptr)
// CHECK-SAME: known_block_size = array<i32: 128, 1, 1>
// CHECK-NOT: griddepcontrol
// CHECK: %[[BX:.*]] = gpu.block_id x
// CHECK: %[[KVH:.*]] = gpu.block_id y
// CHECK: %[[BATCH:.*]] = gpu.block_id z
// CHECK: %[[NS:.*]] = arith.index_cast %[[NSPLITS]] : i64 to index
// CHECK: %[[SPLIT:.*]] = arith.remui %[[BX]], %[[NS]]
// CHECK: %[[TILE:.*]] = arith.divui %[[BX]], %[[NS]]
// CHECK: %[[BLOCK:.*]] = gpu.block_id x
// CHECK: %[[ADDR:.*]] = llvm.ptrtoint %[[PLAN]]
// CHECK: %[[PLANNED:.*]] = arith.cmpi ne, %[[ADDR]], %c0_i64
// CHECK: %[[HAS:.*]] = scf.if %[[PLANNED]] -> (i1) {
// CHECK: %[[COUNT:.*]] = llvm.load
// CHECK: %[[N:.*]] = arith.index_cast %[[COUNT]]
// CHECK: arith.cmpi ult, %[[BLOCK]], %[[N]]
// CHECK: scf.if %[[HAS]] {
// CHECK: %[[F:.*]]:6 = scf.if %[[PLANNED]] -> (index, index, index, index, index, index) {
// CHECK: arith.muli %[[BLOCK]], %c8
// CHECK-COUNT-6: llvm.load
// CHECK: } else {
// CHECK: scf.yield %[[BATCH]], %[[KVH]], %[[TILE]], %[[SPLIT]], %[[NS]], %{{.*}}
// CHECK: %[[HEAD:.*]] = arith.muli %[[F]]#1, %c4
// Packed rows: position row / 4, head offset row mod 4.
// CHECK: arith.remui %{{.*}}, %c4
// CHECK: arith.divui %{{.*}}, %c4
// Split s of n: key tiles [lo + c s / n, lo + c (s + 1) / n).
// CHECK: %[[CUT:.*]] = arith.muli %{{.*}}, %[[F]]#3
// CHECK: arith.divui %[[CUT]],
// On sm_90a the split kernel lets its combine kernel be scheduled once its
// key loop is done (griddepcontrol), and the combine waits for it before it
// reads the partials.
// CHECK-NOT: griddepcontrol
// CHECK: = scf.for %{{.*}} iter_args(
// CHECK-NOT: griddepcontrol
// CHECK: gpu.barrier
// CHECK-NEXT: scf.yield
// CHECK-NEXT: }
// CHECK-NEXT: nvvm.griddepcontrol launch_dependents
// One split writes O itself; more write partial rows to the scratch, at the
// item's record with a plan.
// CHECK: arith.cmpi eq, %[[F]]#4, %c1
// CHECK: arith.muli %[[F]]#5, %c2064
// CHECK: arith.select %[[PLANNED]]
// CHECK: llvm.getelementptr %[[SCRATCH]]
// The combine: with a plan, block i merges item i's splits over the tile's
// 16 rows (4 warps in turn, a warp a row); without, a block per output row.
// The largest LSE is read 32 splits at a time and reduced over the warp.
// A warp's weighted sum takes 8 splits an iteration; a block's threads take
// 4 columns each (32 column groups at Dv = 128) of every 4th split (thread
// t starts at split t / 32), 8 of them an iteration (step 32), put their 5
// sums (weight, 4 columns) in shared memory, and after a barrier the first
// 32 threads add the 4 split groups' sums and store.
// CHECK: llvm.mlir.global internal @attnc_combine_sums() {addr_space = 3 : i32, alignment = 16 : i64} : !llvm.array<640 x f32>
// CHECK: gpu.func @attnc_combine(
// CHECK-SAME: known_block_size = array<i32: 128, 1, 1>
// CHECK-NEXT: nvvm.griddepcontrol wait
// CHECK: scf.if %{{.*}} {
// CHECK: scf.for %{{.*}} = %{{.*}} to %c16 step %c4 {
// CHECK: scf.for %{{.*}} step %c32
// CHECK: arith.maximumf
// CHECK: gpu.shuffle  xor %{{.*}}, %c16_i32
// CHECK: scf.for %{{.*}} step %c8
// CHECK-COUNT-8: math.exp2
// CHECK: } else {
// CHECK: %[[SUMS:.*]] = llvm.mlir.addressof @attnc_combine_sums : !llvm.ptr<3>
// CHECK: %[[ROW:.*]] = gpu.block_id  x
// CHECK: arith.cmpi ult, %[[ROW]],
// CHECK: scf.for %{{.*}} step %c32
// CHECK: gpu.shuffle  xor
// CHECK: %[[FIRST:.*]] = arith.divui %thread_id_x, %c32{{(_[0-9]+)?}} : index
// CHECK: scf.for %{{.*}} = %[[FIRST]] to %{{.*}} step %c32{{(_[0-9]+)?}} iter_args({{.*}}) -> (f32, f32, f32, f32, f32)
// CHECK-COUNT-8: math.exp2
// CHECK-COUNT-5: llvm.store %{{.*}} : f32, !llvm.ptr<3>
// CHECK-NEXT: gpu.barrier
// CHECK: arith.cmpi ult, %thread_id_x, %c32{{(_[0-9]+)?}} : index
// CHECK-COUNT-20: llvm.load %{{.*}} : !llvm.ptr<3> -> f32
// REMARK: remark: convert-attn-to-gpu: sm_90a kernel (mma.sync m16n8k16 decode kernel on a TMA ring (one mbarrier a stage)), block_q = 16, block_k = 128, 4 warps x 1 m-tiles; {{.*}}; the 4 query heads of a KV head share each tile's rows (gqa_pack), so K and V are read once per group; 4 warps share the rows and each takes 32 of the 128 keys of a tile (key_warps), merged in shared memory; key range split over thread blocks at run time (split_kv), partial results merged by the combine kernel
func.func @decode(%q: tensor<?x8x?x128xbf16>, %k: tensor<?x2x?x128xbf16>, %v: tensor<?x2x?x128xbf16>) -> tensor<?x8x?x128xbf16> {
  %o = attn.attention %q, %k, %v mask(#attn.causal) {attn.decode} : tensor<?x8x?x128xbf16>, tensor<?x2x?x128xbf16>, tensor<?x2x?x128xbf16> -> tensor<?x8x?x128xbf16>
  return %o : tensor<?x8x?x128xbf16>
}

// -----

// Without attn.decode: no split, no combine kernel, no griddepcontrol.
// CHECK-LABEL: gpu.module @attnc_kernels
// CHECK: gpu.func @attnc_attention(
// CHECK-NOT: {{attnc_combine|griddepcontrol}}
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

// -----

// A 16-bit decode kernel pinned to a three-stage cp.async ring (the target
// chooses two): the prologue commits tile lo (with nothing else: Q sits in
// registers), then tile lo + 1; the loop prefetches tile kt + 2 into the
// stage tile kt - 1 used and waits until at most 2 groups are pending, so
// two tiles stay in flight while one is consumed.
// CHECK-LABEL: func.func @decode_three_stages(
// CHECK: gpu.func @attnc_attention(
// CHECK: nvvm.cp.async.commit.group
// CHECK: %[[C1:.*]] = arith.constant 1 : index
// CHECK-NEXT: %{{.*}} = arith.addi %{{.*}}, %[[C1]] : index
// CHECK: nvvm.cp.async.commit.group
// CHECK: scf.for
// CHECK: %[[C2:.*]] = arith.constant 2 : index
// CHECK-NEXT: %{{.*}} = arith.addi %{{.*}}, %[[C2]] : index
// CHECK: nvvm.cp.async.commit.group
// CHECK-NEXT: nvvm.cp.async.wait.group 2
// CHECK-NEXT: gpu.barrier
// REMARK: remark: convert-attn-to-gpu: sm_90a kernel (mma.sync m16n8k16 decode kernel on a cp.async ring), block_q = 16, block_k = 128,
func.func @decode_three_stages(%q: tensor<?x8x1x128xbf16>, %k: tensor<?x2x?x128xbf16>) -> tensor<?x8x1x128xbf16> {
  %o = attn.attention %q, %k, %k {attn.decode, attn.gpu_kernel = #attn.gpu_kernel<chip = "sm_90a", block_q = 16, block_k = 128, warps = 4, m_tiles = 1, stages = 3, q_in_smem = false, gqa_pack = 4, key_warps = 4, split_kv = true>} : tensor<?x8x1x128xbf16>, tensor<?x2x?x128xbf16>, tensor<?x2x?x128xbf16> -> tensor<?x8x1x128xbf16>
  return %o : tensor<?x8x1x128xbf16>
}

// -----

// tma_loads (sm_90a): thread 0 initialises one full barrier a stage (after
// the stages, 3 x 64 KiB), publishes them with a block barrier, and loads
// each tile's K and V (two 64-column boxes each at D = 128) by TMA on the
// stage's barrier, expecting their 64 KiB: stages - 1 tiles before the
// loop, then tile kt + 2 at the top of iteration kt (a tile proven empty
// only arrives). Every thread waits for use (kt - lo) / 3 of its stage
// (parity mod 2) before reading it with ldmatrix; a block barrier ends each
// iteration, before the stage is loaded again. No cp.async. With kv_lens,
// the V rows of a tile past the sequence's keys are zeroed before P V and
// fenced for the async proxy (the next TMA load of the stage).
// No cp.async copy, commit or wait anywhere in the kernel:
// NOCP-LABEL: func.func @decode_tma(
// NOCP: gpu.func @attnc_attention(
// NOCP-NOT: nvvm.cp.async.{{(shared|commit|wait)}}
// NOCP: gpu.func @attnc_combine(
// CHECK-LABEL: func.func @decode_tma(
// CHECK: gpu.func @attnc_attention(
// CHECK: %[[LEADER:.*]] = arith.cmpi eq, %thread_id_x, %{{.*}} : index
// CHECK-NEXT: scf.if %[[LEADER]] {
// CHECK: %c196608 = arith.constant 196608 : index
// CHECK-COUNT-3: nvvm.mbarrier.init %{{.*}}, %c1_i32{{.*}} : !llvm.ptr<3>, i32
// CHECK-NEXT: nvvm.fence.mbarrier.init
// CHECK-NEXT: }
// CHECK-NEXT: gpu.barrier
// CHECK: arith.andi %[[LEADER]]
// CHECK: nvvm.mbarrier.arrive.expect_tx %[[P0:.*]], %c65536_i32
// CHECK-COUNT-4: nvvm.cp.async.bulk.tensor.shared.cluster.global %{{.*}}, %{{.*}}, %[[P0]], box
// CHECK: } else {
// CHECK-NEXT: scf.if %[[LEADER]] {
// CHECK-NEXT: nvvm.mbarrier.arrive %[[P0]]
// CHECK: arith.andi %[[LEADER]]
// CHECK: nvvm.mbarrier.arrive.expect_tx %[[P1:.*]], %c65536_i32
// CHECK-COUNT-4: nvvm.cp.async.bulk.tensor.shared.cluster.global %{{.*}}, %{{.*}}, %[[P1]], box
// The lane's swizzled chunks: 4 for K, 4 for V.
// CHECK-COUNT-8: arith.xori
// CHECK: scf.for %[[KT:.*]] = %[[LO:.*]] to
// CHECK: %[[I:.*]] = arith.subi %[[KT]], %[[LO]]
// CHECK: %[[NEXTI:.*]] = arith.addi %[[I]], %c2{{(_[0-9]+)?}} : index
// CHECK: %[[AHEAD:.*]] = arith.addi %[[KT]], %c2{{(_[0-9]+)?}} : index
// CHECK-NEXT: %[[MORE:.*]] = arith.cmpi slt, %[[AHEAD]],
// CHECK-NEXT: %[[LOADS:.*]] = arith.andi %[[LEADER]], %[[MORE]]
// CHECK-NEXT: scf.if %[[LOADS]] {
// CHECK-NEXT: %{{.*}} = arith.constant 3 : index
// CHECK-NEXT: arith.remui %[[NEXTI]],
// CHECK: nvvm.mbarrier.arrive.expect_tx %[[NEXT:.*]], %c65536_i32
// CHECK-NEXT: %{{.*}} = arith.constant 128 : index
// CHECK-NEXT: arith.muli %[[AHEAD]],
// CHECK-COUNT-4: nvvm.cp.async.bulk.tensor.shared.cluster.global %{{.*}}, %{{.*}}, %[[NEXT]], box
// CHECK: } else {
// CHECK-NEXT: scf.if %[[LEADER]] {
// CHECK-NEXT: nvvm.mbarrier.arrive %[[NEXT]]
// CHECK: %[[STAGE:.*]] = arith.remui %[[I]], %c3
// CHECK: %[[USE:.*]] = arith.divui %[[I]], %c3
// CHECK-NEXT: %[[PAR:.*]] = arith.remui %[[USE]], %c2
// CHECK-NEXT: %[[PAR32:.*]] = arith.index_cast %[[PAR]] : index to i32
// CHECK: nvvm.mbarrier.try_wait.parity %{{.*}}, %[[PAR32]]
// CHECK: nvvm.ldmatrix
// CHECK: scf.for %{{.*}} = %thread_id_x to %{{.*}} step %c128
// CHECK: llvm.store %{{.*}} : vector<4xi32>, !llvm.ptr<3>
// CHECK: nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.shared>, space = #nvvm.shared_space<cta>}
// CHECK: nvvm.barrier id = %c8_i32 number_of_threads = %c128_i32
// CHECK: nvvm.ldmatrix {{.*}}layout = #nvvm.mma_layout<col>
// CHECK: gpu.barrier
// CHECK-NEXT: scf.yield
// CHECK: gpu.func @attnc_combine(
// REMARK: remark: convert-attn-to-gpu: sm_90a kernel (mma.sync m16n8k16 decode kernel on a TMA ring (one mbarrier a stage)), block_q = 16, block_k = 128,
func.func @decode_tma(%q: tensor<?x8x1x128xbf16>, %k: tensor<?x2x?x128xbf16>, %l: tensor<?xi32>) -> tensor<?x8x1x128xbf16> {
  %o = attn.attention %q, %k, %k kv_lens(%l : tensor<?xi32>) {attn.decode, attn.gpu_kernel = #attn.gpu_kernel<chip = "sm_90a", block_q = 16, block_k = 128, warps = 4, m_tiles = 1, stages = 3, q_in_smem = false, gqa_pack = 4, key_warps = 4, split_kv = true, tma_loads = true>} : tensor<?x8x1x128xbf16>, tensor<?x2x?x128xbf16>, tensor<?x2x?x128xbf16> -> tensor<?x8x1x128xbf16>
  return %o : tensor<?x8x1x128xbf16>
}
