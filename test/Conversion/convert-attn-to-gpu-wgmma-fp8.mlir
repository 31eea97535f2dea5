// RUN: attnc-opt %s --attn-choose-gpu-kernel=chip=sm_90a --attn-tile --attn-skip-masked-tiles --convert-attn-to-gpu --split-input-file 2>/dev/null | FileCheck %s
// RUN: attnc-opt %s --attn-choose-gpu-kernel=chip=sm_90a --attn-tile --attn-skip-masked-tiles --convert-attn-to-gpu --split-input-file 2>&1 >/dev/null | FileCheck %s --check-prefix=REMARK

// The wgmma kernel over an fp8 e4m3 cache (head dims 128, no run-time tile
// test): the producer warpgroup's first lane loads each tile's K and V
// codes by TMA into stages of their own, two tiles ahead, and all 128
// producer threads convert them into the 16-bit swizzled stages the
// consumers' f16 wgmmas read, in the consumers' order (the keys of tile
// kt, then the values of kt - 1). Under bf16 queries each consumer warpgroup
// first scales its rows of Q into f16 in shared memory.
// REMARK: remark: convert-attn-to-gpu: sm_90a kernel (wgmma m64nNk16 {{.*}}block_q = 128, block_k = 128, 8 warps x 1 m-tiles; {{.*}}; KV cache: per-sequence lengths (kv_lens), fp8 e4m3 codes converted in shared memory into f16 tiles by the producer warpgroup, their scales folded into the scores and the output, by the wgmma kernel's TMA boxes, scores past a sequence's length masked and V rows there zeroed in its last key tile{{$}}
// REMARK: remark: convert-attn-to-gpu: sm_90a kernel (wgmma m64nNk16 {{.*}}; KV cache: per-sequence lengths (kv_lens), pages of 16 rows read through the page table, fp8 e4m3 codes converted in shared memory into f16 tiles by the producer warpgroup, {{.*}} (a box a page, or a key tile of a larger page){{.*}}{{$}}

// CHECK-LABEL: func.func @fp8_kv_lens(
// The 16-bit stages' full barriers expect every producer thread (128),
// their empty ones the two consumer warpgroups; a stage's K codes and its
// V codes are each full once their TMA bytes land (one arrival) and empty
// once every producer thread has converted them; then Q's.
// CHECK: nvvm.mbarrier.init %{{.*}}, %c128_i32{{(_[0-9]+)?}} :
// CHECK-NEXT: arith.constant
// CHECK: nvvm.mbarrier.init %{{.*}}, %c2_i32{{(_[0-9]+)?}} :
// CHECK: nvvm.mbarrier.init %{{.*}}, %c128_i32{{(_[0-9]+)?}} :
// CHECK: nvvm.mbarrier.init %{{.*}}, %c2_i32{{(_[0-9]+)?}} :
// CHECK: nvvm.mbarrier.init %{{.*}}, %c128_i32{{(_[0-9]+)?}} :
// CHECK: nvvm.mbarrier.init %{{.*}}, %c2_i32{{(_[0-9]+)?}} :
// CHECK: nvvm.mbarrier.init %{{.*}}, %c128_i32{{(_[0-9]+)?}} :
// CHECK: nvvm.mbarrier.init %{{.*}}, %c2_i32{{(_[0-9]+)?}} :
// CHECK-COUNT-2: nvvm.mbarrier.init %{{.*}}, %c1_i32{{(_[0-9]+)?}} :
// CHECK-COUNT-2: nvvm.mbarrier.init %{{.*}}, %c128_i32{{(_[0-9]+)?}} :
// CHECK-COUNT-2: nvvm.mbarrier.init %{{.*}}, %c1_i32{{(_[0-9]+)?}} :
// CHECK-COUNT-2: nvvm.mbarrier.init %{{.*}}, %c128_i32{{(_[0-9]+)?}} :
// CHECK: nvvm.mbarrier.init %{{.*}}, %c1_i32{{(_[0-9]+)?}} :
// CHECK-NEXT: nvvm.fence.mbarrier.init
// Consumers: Q waited for, then the warpgroup's two rows a lane scaled
// into f16 in place (16 words a row) by 2^e with the keys' scale's sign,
// fenced for the async proxy, and the warpgroup meets at its named barrier
// before its first S, an f16 wgmma. The scores stay raw: each weight is
// exp2 of one FMA by the row's factor, scale log2(e) |key scale| 2^-e, at
// least the smallest normal f32.
// CHECK: nvvm.setmaxregister  increase 216
// CHECK-NOT: nvvm.wgmma.mma_async
// CHECK: nvvm.mbarrier.try_wait.parity
// CHECK-NOT: nvvm.wgmma.mma_async
// CHECK: math.copysign %{{.*}}, %[[KS:[0-9]+]] : f32
// CHECK-COUNT-32: cvt.rn.f16x2.f32 $0, y, x;
// CHECK-NOT: nvvm.wgmma.mma_async
// CHECK: nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.shared>, space = #nvvm.shared_space<cta>}
// CHECK-NOT: nvvm.wgmma.mma_async
// CHECK: nvvm.barrier id = %{{.*}} number_of_threads = %c128_i32
// CHECK: nvvm.wgmma.mma_async {{.*}} A[<f16>, <one>, <row>], B[<f16>, <one>, <col>]
// CHECK: %[[ABS:.*]] = math.absf %[[KS]] : f32
// CHECK-NEXT: %[[KLOG:.*]] = arith.mulf %{{.*}}, %[[ABS]] : f32
// CHECK-NEXT: %[[FLOOR:.*]] = arith.constant 1.17549435E-38 : f32
// CHECK-NEXT: %[[ROW:.*]] = arith.mulf %[[KLOG]], %{{.*}} : f32
// CHECK-NEXT: %[[FACTOR:.*]] = arith.maximumf %[[ROW]], %[[FLOOR]] : f32
// CHECK-NOT: arith.mulf %{{.*}}, %[[FACTOR]]
// CHECK: gpu.shuffle  xor %{{.*}}, %c2_i32{{.*}} : f32
// CHECK-NEXT: %[[TILEMAX:.*]] = arith.maximumf
// CHECK-NEXT: arith.mulf %[[TILEMAX]], %[[FACTOR]] : f32
// CHECK-NOT: arith.mulf %{{.*}}, %[[FACTOR]]
// CHECK: math.fma %{{.*}}, %[[FACTOR]], %{{.*}} : f32
// CHECK: wgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16
// A sequence's last key tile: its 16-bit V rows past kv_lens zeroed, both
// 64-column boxes of each row (16 chunks of 16 bytes), not the one box of
// 128 codes a row the stage of codes has.
// CHECK: %[[ROWS:.*]] = arith.subi %c128{{(_[0-9]+)?}}, %{{.*}} : index
// CHECK-NEXT: %[[CHUNKS:.*]] = arith.muli %[[ROWS]], %c16{{(_[0-9]+)?}} : index
// CHECK: scf.for %{{.*}} = %thread_id_x to %[[CHUNKS]] step %c256
// The producer: every thread of its warpgroup; the first lane loads Q,
// then the codes of the ring's first two tiles, keys first (K and V boxes
// of 128 codes a row, 16 KiB each), each once its stage of codes is free.
// CHECK: nvvm.setmaxregister  decrease 72
// CHECK-NEXT: %[[ALL:.*]] = arith.constant true
// CHECK-NEXT: scf.if %[[ALL]] {
// CHECK: nvvm.mbarrier.arrive.expect_tx %{{.*}}, %c32768_i32
// CHECK: nvvm.mbarrier.try_wait.parity
// CHECK: nvvm.mbarrier.arrive.expect_tx %{{.*}}, %c16384_i32
// CHECK: nvvm.cp.async.bulk.tensor.shared.cluster.global %{{.*}}, %[[KMAP:arg[0-9]+]],
// CHECK: nvvm.mbarrier.arrive.expect_tx %{{.*}}, %c16384_i32
// CHECK: nvvm.cp.async.bulk.tensor.shared.cluster.global %{{.*}}, %[[KMAP]],
// CHECK: nvvm.mbarrier.arrive.expect_tx %{{.*}}, %c16384_i32
// CHECK: nvvm.cp.async.bulk.tensor.shared.cluster.global %{{.*}}, %[[VMAP:arg[0-9]+]],
// CHECK: nvvm.mbarrier.arrive.expect_tx %{{.*}}, %c16384_i32
// CHECK: nvvm.cp.async.bulk.tensor.shared.cluster.global %{{.*}}, %[[VMAP]],
// In the loop, the consumers' order: tile kt's keys (the 16-bit stage
// released by the consumers, the codes landed, 8 chunks of 16 codes a
// thread read, converted and stored, fenced, the full barrier arrived on,
// the stage of codes released), then the values of kt - 1 likewise; only
// then the first lane refills the stages of codes, with tile kt + 2's K
// codes and tile kt + 1's V codes (the first tile's keys refill at once:
// no values before them).
// Producer thread p's chunks: lane l = p mod 16 of group p / 16 takes
// chunk c = l mod 8 of row 2 (p / 16) + (c / 4 xor l / 8), so that a
// quarter-warp's stores meet 8 distinct bank groups; its code loads are
// all issued (8 a thread) before the first store.
// CHECK: scf.for %[[KT:arg[0-9]+]] = %[[LO:[0-9]+]] to
// CHECK-NOT: nvvm.cp.async.bulk.tensor
// CHECK: nvvm.mbarrier.try_wait.parity
// CHECK: nvvm.mbarrier.try_wait.parity
// CHECK-NOT: nvvm.mbarrier.arrive
// CHECK: %[[P:[0-9]+]] = arith.subi %thread_id_x, %c256
// CHECK: %[[L16:[0-9]+]] = arith.remui %[[P]], %c16
// CHECK: %[[C:[0-9]+]] = arith.remui %[[L16]], %c8
// CHECK: %[[H:[0-9]+]] = arith.divui %[[L16]], %c8
// CHECK: %[[C4:[0-9]+]] = arith.divui %[[C]], %c4
// CHECK: %[[ODD:[0-9]+]] = arith.xori %[[C4]], %[[H]]
// CHECK: %[[G:[0-9]+]] = arith.divui %[[P]], %c16
// CHECK: %[[G2:[0-9]+]] = arith.muli %[[G]], %c2
// CHECK: %[[ROW:[0-9]+]] = arith.addi %[[G2]], %[[ODD]]
// CHECK: %[[PHASE:[0-9]+]] = arith.remui %[[ROW]], %c8
// CHECK: arith.xori %[[C]], %[[PHASE]]
// CHECK-NOT: nvvm.mbarrier.arrive
// CHECK: llvm.load %{{.*}} {alignment = 16 : i64} : !llvm.ptr<3> -> vector<4xi32>
// CHECK-NOT: llvm.store
// CHECK: llvm.load %{{.*}} {alignment = 16 : i64} : !llvm.ptr<3> -> vector<4xi32>
// CHECK-NOT: llvm.store
// CHECK: llvm.load %{{.*}} {alignment = 16 : i64} : !llvm.ptr<3> -> vector<4xi32>
// CHECK-NOT: llvm.store
// CHECK: llvm.load %{{.*}} {alignment = 16 : i64} : !llvm.ptr<3> -> vector<4xi32>
// CHECK-NOT: llvm.store
// CHECK: llvm.load %{{.*}} {alignment = 16 : i64} : !llvm.ptr<3> -> vector<4xi32>
// CHECK-NOT: llvm.store
// CHECK: llvm.load %{{.*}} {alignment = 16 : i64} : !llvm.ptr<3> -> vector<4xi32>
// CHECK-NOT: llvm.store
// CHECK: llvm.load %{{.*}} {alignment = 16 : i64} : !llvm.ptr<3> -> vector<4xi32>
// CHECK-NOT: llvm.store
// CHECK: llvm.load %{{.*}} {alignment = 16 : i64} : !llvm.ptr<3> -> vector<4xi32>
// CHECK-NOT: llvm.load
// CHECK: cvt.rn.f16x2.e4m3x2
// CHECK-NOT: llvm.load
// CHECK: llvm.store
// CHECK-NOT: llvm.load %{{.*}} : !llvm.ptr<3> -> vector<4xi32>
// CHECK-NOT: nvvm.mbarrier.arrive
// CHECK: nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.shared>, space = #nvvm.shared_space<cta>}
// CHECK-NEXT: nvvm.mbarrier.arrive %{{[0-9]+}} : !llvm.ptr<3>
// CHECK-NOT: nvvm.cp.async.bulk.tensor
// CHECK: nvvm.mbarrier.arrive %{{[0-9]+}} : !llvm.ptr<3>
// CHECK-NEXT: %[[FIRST:.*]] = arith.cmpi eq, %[[KT]], %[[LO]] : index
// CHECK: arith.addi %[[KT]], %c2
// CHECK: arith.andi %[[FIRST]],
// CHECK: nvvm.mbarrier.try_wait.parity
// CHECK: nvvm.mbarrier.arrive.expect_tx %{{.*}}, %c16384_i32
// CHECK: nvvm.cp.async.bulk.tensor.shared.cluster.global %{{.*}}, %[[KMAP]],
// CHECK: %[[AFTER:.*]] = arith.cmpi ugt, %[[KT]], %[[LO]] : index
// CHECK-NEXT: scf.if %[[AFTER]] {
// CHECK-NEXT: arith.constant 1 : index
// CHECK-NEXT: arith.subi %[[KT]], %c1
// CHECK: nvvm.mbarrier.try_wait.parity
// CHECK: nvvm.mbarrier.try_wait.parity
// CHECK-COUNT-8: llvm.load %{{.*}} {alignment = 16 : i64} : !llvm.ptr<3> -> vector<4xi32>
// CHECK: nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.shared>, space = #nvvm.shared_space<cta>}
// CHECK-NEXT: nvvm.mbarrier.arrive %{{[0-9]+}} : !llvm.ptr<3>
// CHECK-NOT: nvvm.cp.async.bulk.tensor
// CHECK: nvvm.mbarrier.arrive %{{[0-9]+}} : !llvm.ptr<3>
// CHECK-NOT: nvvm.cp.async.bulk.tensor
// CHECK: arith.addi %[[KT]], %c2
// CHECK: nvvm.mbarrier.try_wait.parity
// CHECK: nvvm.cp.async.bulk.tensor.shared.cluster.global %{{.*}}, %[[KMAP]],
// CHECK-NOT: nvvm.cp.async.bulk.tensor
// CHECK: nvvm.cp.async.bulk.tensor.shared.cluster.global %{{.*}}, %[[VMAP]],
// After the loop, the last tile's values.
// CHECK: %[[ANY:.*]] = arith.cmpi slt, %[[LO]], %{{.*}} : index
// CHECK-NEXT: scf.if %[[ANY]] {
// CHECK: nvvm.mbarrier.try_wait.parity
// CHECK: nvvm.mbarrier.try_wait.parity
// CHECK-COUNT-32: cvt.rn.f16x2.e4m3x2
// CHECK: nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.shared>, space = #nvvm.shared_space<cta>}
// CHECK-NEXT: nvvm.mbarrier.arrive %{{[0-9]+}} : !llvm.ptr<3>
// CHECK: nvvm.mbarrier.arrive %{{[0-9]+}} : !llvm.ptr<3>
// CHECK: nvvm.cp.async.bulk.tensor.shared.cluster.global %{{.*}}, %[[VMAP]],
func.func @fp8_kv_lens(%q: tensor<?x8x?x128xbf16>, %k: tensor<?x2x?x128xf8E4M3FN>, %v: tensor<?x2x?x128xf8E4M3FN>, %l: tensor<?xi32>, %s: tensor<2x2xf32>) -> tensor<?x8x?x128xbf16> {
  %o = attn.attention %q, %k, %v kv_lens(%l : tensor<?xi32>) kv_scales(%s : tensor<2x2xf32>) mask(#attn.causal) : tensor<?x8x?x128xbf16>, tensor<?x2x?x128xf8E4M3FN>, tensor<?x2x?x128xf8E4M3FN> -> tensor<?x8x?x128xbf16>
  return %o : tensor<?x8x?x128xbf16>
}

// -----

// f16 queries need no scaling: the consumers go from Q's wait to their
// first S. Pages of 16 rows: the first lane loads a tile's K codes as 8
// boxes of a page each once the keys are converted, from page-table entries
// read at the top of the iteration, and keeps those entries in shared
// memory for the tile's V codes, loaded likewise an iteration later
// without reading the page table again. Its code loads go out 4 at a time
// (the entries take registers too).
// CHECK-LABEL: func.func @fp8_f16_paged(
// CHECK: nvvm.setmaxregister  increase 216
// CHECK-NOT: cvt.rn.f16x2.f32 $0, y, x;
// CHECK-NOT: nvvm.barrier id = %{{.*}} number_of_threads = %c128_i32
// CHECK: nvvm.wgmma.mma_async {{.*}} A[<f16>, <one>, <row>], B[<f16>, <one>, <col>]
// CHECK: nvvm.setmaxregister  decrease 72
// CHECK: scf.for
// CHECK: llvm.load %{{.*}} {alignment = 16 : i64} : !llvm.ptr<3> -> vector<4xi32>
// CHECK-NOT: llvm.store
// CHECK: llvm.load %{{.*}} {alignment = 16 : i64} : !llvm.ptr<3> -> vector<4xi32>
// CHECK-NOT: llvm.store
// CHECK: llvm.load %{{.*}} {alignment = 16 : i64} : !llvm.ptr<3> -> vector<4xi32>
// CHECK-NOT: llvm.store
// CHECK: llvm.load %{{.*}} {alignment = 16 : i64} : !llvm.ptr<3> -> vector<4xi32>
// CHECK-NOT: llvm.load %{{.*}} : !llvm.ptr<3> -> vector<4xi32>
// CHECK: cvt.rn.f16x2.e4m3x2
// CHECK-NOT: llvm.load %{{.*}} : !llvm.ptr<3> -> vector<4xi32>
// CHECK: llvm.store
// CHECK-COUNT-4: llvm.load %{{.*}} {alignment = 16 : i64} : !llvm.ptr<3> -> vector<4xi32>
// CHECK-NOT: nvvm.cp.async.bulk.tensor.shared.cluster.global
// CHECK: llvm.store %{{.*}}, %{{.*}} {alignment = 4 : i64} : i32, !llvm.ptr<3>
// CHECK-COUNT-8: nvvm.cp.async.bulk.tensor.shared.cluster.global
// CHECK-NOT: nvvm.cp.async.bulk.tensor.shared.cluster.global
// CHECK: cvt.rn.f16x2.e4m3x2
// CHECK-NOT: !llvm.ptr -> i32
// CHECK: llvm.load %{{.*}} {alignment = 4 : i64} : !llvm.ptr<3> -> i32
// CHECK-COUNT-8: nvvm.cp.async.bulk.tensor.shared.cluster.global
// CHECK-NOT: nvvm.cp.async.bulk.tensor.shared.cluster.global
// CHECK: cvt.rn.f16x2.e4m3x2
func.func @fp8_f16_paged(%q: tensor<?x8x?x128xf16>, %k: tensor<?x16x2x128xf8E4M3FN>, %v: tensor<?x16x2x128xf8E4M3FN>, %l: tensor<?xi32>, %t: tensor<?x?xi32>, %s: tensor<2x2xf32>) -> tensor<?x8x?x128xf16> {
  %o = attn.attention %q, %k, %v kv_lens(%l : tensor<?xi32>) page_table(%t : tensor<?x?xi32>) kv_scales(%s : tensor<2x2xf32>) mask(#attn.causal) : tensor<?x8x?x128xf16>, tensor<?x16x2x128xf8E4M3FN>, tensor<?x16x2x128xf8E4M3FN> -> tensor<?x8x?x128xf16>
  return %o : tensor<?x8x?x128xf16>
}
