// RUN: attnc-opt %s --attn-choose-gpu-kernel=chip=sm_90a --attn-tile --attn-skip-masked-tiles --convert-attn-to-gpu --split-input-file 2>/dev/null | FileCheck %s
// RUN: attnc-opt %s --attn-choose-gpu-kernel=chip=sm_90a --attn-tile --attn-skip-masked-tiles --convert-attn-to-gpu --split-input-file 2>&1 >/dev/null | FileCheck %s --check-prefix=REMARK
// RUN: attnc-opt %s --attn-choose-gpu-kernel=chip=sm_90a --attn-tile --attn-skip-masked-tiles --convert-attn-to-gpu --split-input-file 2>/dev/null | FileCheck %s --check-prefix=NOCP

// KV caches on the GPU: per-sequence lengths (kv_lens) and a paged cache
// (page_table). On sm_90a a prefill over a 16-bit cache with kv_lens,
// contiguous or in pages of a multiple of 8 rows, takes the wgmma kernel;
// fp8 codes and decode steps the mma.sync kernels, and the remark says
// which.
// REMARK: remark: convert-attn-to-gpu: sm_90a kernel (mma.sync m16n8k16, cp.async double buffering (the sm_80-class kernel)), {{.*}}; KV cache: per-sequence lengths (kv_lens), by the mma.sync kernel's row copies{{$}}
// REMARK: remark: convert-attn-to-gpu: sm_90a kernel (wgmma m64nNk16 {{.*}}; KV cache: per-sequence lengths (kv_lens), by the wgmma kernel's TMA boxes, scores past a sequence's length masked and V rows there zeroed in its last key tile{{$}}
// REMARK: remark: convert-attn-to-gpu: sm_90a kernel (mma.sync m16n8k16 decode kernel on a cp.async ring), {{.*}}; KV cache: per-sequence lengths (kv_lens), pages of 16 rows read through the page table, by the mma.sync kernel's row copies
// REMARK: remark: convert-attn-to-gpu: sm_90a kernel (mma.sync m16n8k16 decode kernel on a TMA ring (one mbarrier a stage)), block_q = 16, block_k = 128, {{.*}}; KV cache: per-sequence lengths (kv_lens), pages of 16 rows read through the page table, by the mma.sync kernel's TMA boxes (a box a page, or a key tile of a larger page), V rows past a sequence's length zeroed
// REMARK: remark: convert-attn-to-gpu: sm_90a kernel (mma.sync m16n8k16, {{.*}}; KV cache: fp8 e4m3 codes converted in shared memory, their scales folded into the scores and the output, by the mma.sync kernel's row copies
// REMARK: remark: convert-attn-to-gpu: sm_90a kernel (mma.sync m16n8k16 decode kernel on a cp.async ring), {{.*}}; KV cache: fp8 e4m3 codes
// REMARK: remark: convert-attn-to-gpu: sm_90a kernel (mma.sync m16n8k16 decode kernel on a TMA ring (one mbarrier a stage)), {{.*}}; KV cache: per-sequence lengths (kv_lens), fp8 e4m3 codes converted in shared memory, their scales folded into the scores and the output, by the mma.sync kernel's TMA boxes, V rows past a sequence's length zeroed
// REMARK: remark: convert-attn-to-gpu: sm_90a kernel (wgmma m64nNk16 {{.*}}; KV cache: per-sequence lengths (kv_lens), pages of 16 rows read through the page table, by the wgmma kernel's TMA boxes (a box a page, or a key tile of a larger page), scores past a sequence's length masked and V rows there zeroed in its last key tile{{$}}

// kv_lens on the mma.sync kernel (sm_80's, pinned here): the block reads
// its sequence's length once, kv_lens[batch] clamped to [0, seq_k]; that
// length bounds the key tiles, the masks and the row copies (rows at or
// past it are zero-filled, never read).
// CHECK-LABEL: func.func @kv_lens(
// CHECK: gpu.func @attnc_attention(
// CHECK-SAME: %{{[a-z0-9_]+}}: !llvm.ptr, %{{[a-z0-9_]+}}: i64, %{{[a-z0-9_]+}}: i64, %[[SEQ_K:[a-z0-9_]+]]: i64,
// CHECK-SAME: %{{[a-z0-9_]+}}: !llvm.ptr, %[[KV_LENS:[a-z0-9_]+]]: !llvm.ptr, %[[PAGES:[a-z0-9_]+]]: !llvm.ptr, %[[MAX_PAGES:[a-z0-9_]+]]: i64, %[[NUM_PAGES:[a-z0-9_]+]]: i64,
// CHECK: %[[SK:.*]] = arith.index_cast %[[SEQ_K]] : i64 to index
// CHECK: %[[BATCH:.*]] = gpu.block_id z
// CHECK-NEXT: %[[B64:.*]] = arith.index_cast %[[BATCH]] : index to i64
// CHECK-NEXT: %[[LEN_AT:.*]] = llvm.getelementptr %[[KV_LENS]][%[[B64]]] : (!llvm.ptr, i64) -> !llvm.ptr, i32
// CHECK-NEXT: %[[LEN32:.*]] = llvm.load %[[LEN_AT]]
// CHECK-NEXT: %[[LEN:.*]] = arith.index_cast %[[LEN32]] : i32 to index
// CHECK-NEXT: arith.constant 0 : index
// CHECK-NEXT: %[[LEN0:.*]] = arith.maxsi %[[LEN]], %{{.*}} : index
// CHECK-NEXT: %[[KEYS:.*]] = arith.minsi %[[LEN0]], %[[SK]] : index
// The row copies zero-fill keys at or past the length: the cp.async source
// size is 16 bytes for a key below it, else 0.
// CHECK: %[[VALID:.*]] = arith.cmpi slt, %{{.*}}, %[[KEYS]] : index
// CHECK: %[[SIZE:.*]] = arith.select %[[VALID]], %{{.*}}, %{{.*}} : i32
// CHECK: nvvm.cp.async.shared.global %{{.*}}, %{{.*}}, 16, cache =  cg, %[[SIZE]]
func.func @kv_lens(%q: tensor<?x4x?x64xbf16>, %k: tensor<?x2x?x64xbf16>, %v: tensor<?x2x?x64xbf16>, %l: tensor<?xi32>) -> tensor<?x4x?x64xbf16> {
  %o = attn.attention %q, %k, %v kv_lens(%l : tensor<?xi32>) mask(#attn.causal) {attn.gpu_kernel = #attn.gpu_kernel<chip = "sm_90a", block_q = 128, block_k = 64, warps = 4, m_tiles = 2, stages = 2, q_in_smem = false>} : tensor<?x4x?x64xbf16>, tensor<?x2x?x64xbf16>, tensor<?x2x?x64xbf16> -> tensor<?x4x?x64xbf16>
  return %o : tensor<?x4x?x64xbf16>
}

// -----

// kv_lens on sm_90a (chosen by default): the wgmma kernel on the block grid.
// The block reads its sequence's length, kv_lens[batch] clamped to [0,
// seq_k], which bounds the key tiles (the tiled IR's bound, ceil(len /
// 128)) and the masks. K and V arrive in TMA boxes of the cache, whose rows
// at or past the length hold anything (NaN, a stale token): their scores
// are masked, and before the P V of the tile holding the length (keep =
// clamp(len - k0, 0, 128) < 128) the consumer threads zero its V rows
// [keep, 128), fence them for the async proxy and meet at named barrier 8,
// as for a ragged batch's packed keys.
// CHECK-LABEL: func.func @kv_lens_wgmma(
// CHECK: gpu.func @attnc_attention(
// CHECK-SAME: %{{[a-z0-9_]+}}: !llvm.ptr, %{{[a-z0-9_]+}}: i64, %{{[a-z0-9_]+}}: i64, %[[SEQ_K:[a-z0-9_]+]]: i64,
// CHECK-SAME: %{{[a-z0-9_]+}}: !llvm.ptr, %[[KV_LENS:[a-z0-9_]+]]: !llvm.ptr,
// CHECK: %[[SK:.*]] = arith.index_cast %[[SEQ_K]] : i64 to index
// CHECK: %[[BATCH:.*]] = arith.divui %{{.*}}, %grid_dim_y : index
// CHECK-NEXT: %[[B64:.*]] = arith.index_cast %[[BATCH]] : index to i64
// CHECK-NEXT: %[[LEN_AT:.*]] = llvm.getelementptr %[[KV_LENS]][%[[B64]]] : (!llvm.ptr, i64) -> !llvm.ptr, i32
// CHECK-NEXT: %[[LEN32:.*]] = llvm.load %[[LEN_AT]]
// CHECK-NEXT: %[[LEN:.*]] = arith.index_cast %[[LEN32]] : i32 to index
// CHECK-NEXT: arith.constant 0 : index
// CHECK-NEXT: %[[LEN0:.*]] = arith.maxsi %[[LEN]], %{{.*}} : index
// CHECK-NEXT: %[[KEYS:.*]] = arith.minsi %[[LEN0]], %[[SK]] : index
// CHECK: %[[PARTIAL:.*]] = arith.cmpi ult, %[[KEEP:.*]], %c128{{.*}} : index
// CHECK-NEXT: scf.if %[[PARTIAL]] {
// CHECK: %[[ZERO:.*]] = llvm.mlir.zero : vector<4xi32>
// CHECK: scf.for %{{.*}} = %{{.*}} to %{{.*}} step %c256{{(_[0-9]+)?}} {
// CHECK: llvm.store %[[ZERO]], %{{.*}} {alignment = 16 : i64} : vector<4xi32>, !llvm.ptr<3>
// CHECK: nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.shared>, space = #nvvm.shared_space<cta>}
// CHECK: nvvm.barrier id = %c8_i32 number_of_threads = %c256_i32{{(_[0-9]+)?}}
// CHECK: nvvm.wgmma.fence.aligned
func.func @kv_lens_wgmma(%q: tensor<?x8x?x128xbf16>, %k: tensor<?x2x?x128xbf16>, %v: tensor<?x2x?x128xbf16>, %l: tensor<?xi32>) -> tensor<?x8x?x128xbf16> {
  %o = attn.attention %q, %k, %v kv_lens(%l : tensor<?xi32>) mask(#attn.causal) : tensor<?x8x?x128xbf16>, tensor<?x2x?x128xbf16>, tensor<?x2x?x128xbf16> -> tensor<?x8x?x128xbf16>
  return %o : tensor<?x8x?x128xbf16>
}

// -----

// A paged decode step with the row copies (pinned without tma_loads, as for
// pages of fewer than 8 rows): K and V are pages [num_pages, 16, Hkv, D];
// key j of the sequence is row j mod 16 of page page_table[batch, j / 16],
// the id clamped into [0, num_pages), at page * stride_b + (j mod 16) *
// stride_s (64-bit) from the KV head's first element.
// CHECK-LABEL: func.func @paged(
// CHECK: gpu.func @attnc_attention(
// CHECK-SAME: %{{[a-z0-9_]+}}: !llvm.ptr, %[[K:[a-z0-9_]+]]: !llvm.ptr, %{{[a-z0-9_]+}}: !llvm.ptr,
// CHECK-SAME: %{{[a-z0-9_]+}}: i64, %{{[a-z0-9_]+}}: i64, %{{[a-z0-9_]+}}: i64, %{{[a-z0-9_]+}}: i64, %{{[a-z0-9_]+}}: i64, %{{[a-z0-9_]+}}: i64,
// CHECK-SAME: %{{[a-z0-9_]+}}: i64, %{{[a-z0-9_]+}}: i64, %{{[a-z0-9_]+}}: i64,
// CHECK-SAME: %[[KSB:[a-z0-9_]+]]: i64, %[[KSH:[a-z0-9_]+]]: i64, %[[KSS:[a-z0-9_]+]]: i64,
// CHECK-SAME: %{{[a-z0-9_]+}}: !llvm.ptr, %[[KV_LENS:[a-z0-9_]+]]: !llvm.ptr, %[[PAGES:[a-z0-9_]+]]: !llvm.ptr, %[[MAX_PAGES:[a-z0-9_]+]]: i64, %[[NUM_PAGES:[a-z0-9_]+]]: i64,
// CHECK: %[[SB:.*]] = arith.index_cast %[[KSB]] : i64 to index
// CHECK-NEXT: %[[SH:.*]] = arith.index_cast %[[KSH]] : i64 to index
// CHECK-NEXT: %[[SS:.*]] = arith.index_cast %[[KSS]] : i64 to index
// The head's first element: kvHead * stride_h, no batch offset.
// CHECK: %[[KOFF:.*]] = arith.muli %{{.*}}, %[[SH]] : index
// CHECK-NEXT: %[[KOFF64:.*]] = arith.index_cast %[[KOFF]] : index to i64
// CHECK-NEXT: %[[KHEAD:.*]] = llvm.getelementptr %[[K]][%[[KOFF64]]]
// This sequence's row of the page table, and the last page id.
// CHECK: %[[TROW:.*]] = llvm.getelementptr %[[PAGES]][%{{.*}}] : (!llvm.ptr, i64) -> !llvm.ptr, i32
// CHECK: %[[NP:.*]] = arith.index_cast %[[NUM_PAGES]] : i64 to index
// CHECK-NEXT: %[[LAST:.*]] = arith.subi %[[NP]], %{{.*}} : index
// A key's row copy: its page id, clamped, then the 64-bit offset.
// CHECK: %[[KEY:.*]] = arith.maxsi %{{.*}}, %{{.*}} : index
// CHECK-NEXT: %[[C16:.*]] = arith.constant 16 : index
// CHECK-NEXT: %[[PI:.*]] = arith.divui %[[KEY]], %[[C16]] : index
// CHECK-NEXT: %[[PI64:.*]] = arith.index_cast %[[PI]] : index to i64
// CHECK-NEXT: %[[IDAT:.*]] = llvm.getelementptr %[[TROW]][%[[PI64]]] : (!llvm.ptr, i64) -> !llvm.ptr, i32
// CHECK-NEXT: %[[ID32:.*]] = llvm.load %[[IDAT]] {alignment = 4 : i64} : !llvm.ptr -> i32
// CHECK-NEXT: %[[ID:.*]] = arith.index_cast %[[ID32]] : i32 to index
// CHECK-NEXT: arith.constant 0 : index
// CHECK-NEXT: %[[ID0:.*]] = arith.maxsi %[[ID]], %{{.*}} : index
// CHECK-NEXT: %[[PAGE:.*]] = arith.minsi %[[ID0]], %[[LAST]] : index
// CHECK-NEXT: arith.constant 16 : index
// CHECK-NEXT: %[[IN:.*]] = arith.remui %[[KEY]], %{{.*}} : index
// CHECK-NEXT: %[[ROWOFF:.*]] = arith.muli %[[IN]], %[[SS]] : index
// CHECK-NEXT: %[[PAGEOFF:.*]] = arith.muli %[[PAGE]], %[[SB]] : index
// CHECK-NEXT: %[[OFF:.*]] = arith.addi %[[PAGEOFF]], %[[ROWOFF]] : index
// CHECK-NEXT: %[[OFFC:.*]] = arith.addi %[[OFF]], %{{.*}} : index
// CHECK-NEXT: %[[OFF64:.*]] = arith.index_cast %[[OFFC]] : index to i64
// CHECK-NEXT: %[[SRC:.*]] = llvm.getelementptr %[[KHEAD]][%[[OFF64]]] : (!llvm.ptr, i64) -> !llvm.ptr, i16
// CHECK-NEXT: llvm.addrspacecast %[[SRC]] : !llvm.ptr to !llvm.ptr<1>
// Each of a thread's four K rows reads the page table; its four V rows (the
// same keys: D = Dv) reuse those reads.
// CHECK: nvvm.cp.async.shared.global
// CHECK: llvm.load %{{.*}} -> i32
// CHECK: nvvm.cp.async.shared.global
// CHECK: llvm.load %{{.*}} -> i32
// CHECK: nvvm.cp.async.shared.global
// CHECK: llvm.load %{{.*}} -> i32
// CHECK: nvvm.cp.async.shared.global
// CHECK-NOT: -> i32
// CHECK: nvvm.cp.async.shared.global
// CHECK-NOT: -> i32
// CHECK: nvvm.cp.async.shared.global
// CHECK-NOT: -> i32
// CHECK: nvvm.cp.async.shared.global
// CHECK-NOT: -> i32
// CHECK: nvvm.cp.async.shared.global
func.func @paged(%q: tensor<?x4x1x64xbf16>, %k: tensor<?x16x2x64xbf16>, %v: tensor<?x16x2x64xbf16>, %l: tensor<?xi32>, %t: tensor<?x?xi32>) -> tensor<?x4x1x64xbf16> {
  %o = attn.attention %q, %k, %v kv_lens(%l : tensor<?xi32>) page_table(%t : tensor<?x?xi32>) mask(#attn.causal) {attn.decode, attn.gpu_kernel = #attn.gpu_kernel<chip = "sm_90a", block_q = 16, block_k = 64, warps = 4, m_tiles = 1, stages = 2, q_in_smem = false, gqa_pack = 2, key_warps = 4, split_kv = true>} : tensor<?x4x1x64xbf16>, tensor<?x16x2x64xbf16>, tensor<?x16x2x64xbf16> -> tensor<?x4x1x64xbf16>
  return %o : tensor<?x4x1x64xbf16>
}

// -----

// A paged decode step on sm_90a (the default for pages of a multiple of 8
// rows): TMA boxes of a page, 128-key tiles. The 8 chunks of a tile are
// spread over the warps: the thread of chunk j = warp + 4 lane < 8 loads
// chunk j (rows 16 j..16 j + 15 of the stage, 2048 bytes a box) from page
// page_table[batch, (k0 + 16 j) / 16], the key index clamped to the
// sequence's last key and the id into [0, num_pages); thread 0 (chunk 0)
// expects the tile's 64 KiB. The page-table entries of the tile after next
// are read in the loop after its loads are issued and carried raw (i32) to
// the next iteration, where the issuing threads clamp them: nothing uses a
// load before the tile's wait and work, so no thread waits for it there.
// CHECK-LABEL: func.func @paged_tma(
// CHECK: gpu.func @attnc_attention(
// CHECK: %[[WARP:.*]] = arith.divui %thread_id_x, %c32 : index
// CHECK: %[[LANE:.*]] = arith.remui %thread_id_x, %c32{{(_[0-9]+)?}} : index
// CHECK: %[[LANES:.*]] = arith.muli %[[LANE]], %c4{{(_[0-9]+)?}} : index
// CHECK: %[[CHUNK:.*]] = arith.addi %[[WARP]], %[[LANES]] : index
// CHECK: %[[MINE:.*]] = arith.cmpi ult, %[[CHUNK]], %c8{{(_[0-9]+)?}} : index
// CHECK: gpu.barrier
// CHECK: %[[J:.*]] = arith.remui %[[CHUNK]], %c8{{(_[0-9]+)?}} : index
// CHECK: %[[JROWS:.*]] = arith.muli %[[J]], %c16{{(_[0-9]+)?}} : index
// CHECK: %[[K0:.*]] = arith.muli %{{.*}}, %c128{{(_[0-9]+)?}} : index
// CHECK: %[[KEY:.*]] = arith.addi %[[K0]], %[[JROWS]] : index
// CHECK: %[[LASTKEY:.*]] = arith.maxsi
// CHECK: %[[CLAMPED:.*]] = arith.minsi %[[KEY]], %[[LASTKEY]] : index
// CHECK: %[[PI:.*]] = arith.divui %[[CLAMPED]], %c16{{(_[0-9]+)?}} : index
// CHECK: %[[ENTRY0:.*]] = llvm.load %{{.*}} {alignment = 4 : i64} : !llvm.ptr -> i32
// CHECK: %[[ISSUE:.*]] = arith.andi %[[MINE]], %{{.*}} : i1
// CHECK: scf.if %[[ISSUE]] {
// CHECK: %[[ID0:.*]] = arith.index_cast %[[ENTRY0]] : i32 to index
// CHECK: %[[LOW0:.*]] = arith.maxsi %[[ID0]], %c0{{(_[0-9]+)?}} : index
// CHECK: %[[PAGE0:.*]] = arith.minsi %[[LOW0]], %{{.*}} : index
// CHECK: %[[LEAD:.*]] = arith.cmpi eq, %[[CHUNK]], %c0{{(_[0-9]+)?}} : index
// CHECK: scf.if %[[LEAD]] {
// CHECK: nvvm.mbarrier.arrive.expect_tx %[[BAR0:.*]], %c65536_i32
// CHECK: arith.muli %[[CHUNK]], %c2048 : index
// CHECK: %[[P0:.*]] = arith.index_cast %[[PAGE0]] : index to i32
// CHECK: nvvm.cp.async.bulk.tensor.shared.cluster.global %{{.*}}, %{{.*}}, %[[BAR0]], box[%c0_i32, %{{.*}}, %{{.*}}, %[[P0]]]
// CHECK: scf.for %[[KT:.*]] = {{.*}} iter_args(
// CHECK-SAME: %[[AHEAD:[a-z0-9_]+]] = %{{[a-z0-9_#]+}}) -> ({{.*}}, i32) {
// CHECK: %[[ID:.*]] = arith.index_cast %[[AHEAD]] : i32 to index
// CHECK: %[[LOW:.*]] = arith.maxsi %[[ID]], %c0{{(_[0-9]+)?}} : index
// CHECK: %[[PAGE:.*]] = arith.minsi %[[LOW]], %{{.*}} : index
// CHECK: %[[A32:.*]] = arith.index_cast %[[PAGE]] : index to i32
// CHECK: nvvm.cp.async.bulk.tensor.shared.cluster.global %{{.*}}, %{{.*}}, %{{.*}}, box[%c0_i32, %{{.*}}, %{{.*}}, %[[A32]]]
// CHECK: %[[NEXTKT:.*]] = arith.addi %[[KT]], %c2{{(_[0-9]+)?}} : index
// CHECK: %[[NEXT:.*]] = llvm.load %{{.*}} {alignment = 4 : i64} : !llvm.ptr -> i32
// CHECK-NOT: %[[NEXT]]{{[^0-9]}}
// CHECK: nvvm.mbarrier.try_wait.parity
// CHECK-NOT: %[[NEXT]]{{[^0-9]}}
// CHECK: scf.yield {{.*}}, %[[NEXT]] : {{.*}}, i32
func.func @paged_tma(%q: tensor<?x8x1x128xbf16>, %k: tensor<?x16x2x128xbf16>, %l: tensor<?xi32>, %t: tensor<?x?xi32>) -> tensor<?x8x1x128xbf16> {
  %o = attn.attention %q, %k, %k kv_lens(%l : tensor<?xi32>) page_table(%t : tensor<?x?xi32>) {attn.decode} : tensor<?x8x1x128xbf16>, tensor<?x16x2x128xbf16>, tensor<?x16x2x128xbf16> -> tensor<?x8x1x128xbf16>
  return %o : tensor<?x8x1x128xbf16>
}

// -----

// An fp8 cache: the block loads its KV head's two scales (kv_scales [2,
// Hkv]); the codes stream into staging stages, and each tile's values are
// converted (16 codes a thread: a 16-byte shared load, e4m3 pairs straight
// to f16, two 16-byte stores) into the 16-bit tile the MMAs read. With bf16
// queries O += P V is then an f16 MMA (P rounded to f16), and so is Q K^T:
// each query row is scaled by a power of two 2^e into f16 and its scores by
// 2^-e after the MMA, and the keys are converted in registers, e4m3 pairs
// straight to f16. The key scale multiplies the score scale, the value
// scale the accumulators after the key loop.
// CHECK-LABEL: func.func @fp8(
// CHECK: gpu.func @attnc_attention(
// CHECK-SAME: %{{[a-z0-9_]+}}: i64, %[[SCALES:[a-z0-9_]+]]: !llvm.ptr, %{{[a-z0-9_]+}}: !llvm.ptr, %{{[a-z0-9_]+}}: !llvm.ptr, %{{[a-z0-9_]+}}: !llvm.ptr, %{{[a-z0-9_]+}}: !llvm.ptr, %{{[a-z0-9_]+}}: !llvm.ptr, %{{[a-z0-9_]+}}: !llvm.ptr)
// No launch bounds (ptxas picks the registers; only a paged fp8 cache's
// kernel gets them, below).
// CHECK-SAME: kernel attributes {known_block_size = array<i32: 128, 1, 1>} {
// CHECK: %[[HEAD:.*]] = gpu.block_id y
// CHECK: %[[KVH:.*]] = arith.divui %[[HEAD]], %{{.*}} : index
// CHECK-NEXT: %[[KVH64:.*]] = arith.index_cast %[[KVH]] : index to i64
// CHECK-NEXT: %[[KSAT:.*]] = llvm.getelementptr %[[SCALES]][%[[KVH64]]] : (!llvm.ptr, i64) -> !llvm.ptr, f32
// CHECK-NEXT: %[[KS:.*]] = llvm.load %[[KSAT]] {alignment = 4 : i64} : !llvm.ptr -> f32
// CHECK-NEXT: %[[C2:.*]] = arith.constant 2 : index
// CHECK-NEXT: %[[VH:.*]] = arith.addi %[[KVH]], %[[C2]] : index
// CHECK-NEXT: %[[VH64:.*]] = arith.index_cast %[[VH]] : index to i64
// CHECK-NEXT: %[[VSAT:.*]] = llvm.getelementptr %[[SCALES]][%[[VH64]]] : (!llvm.ptr, i64) -> !llvm.ptr, f32
// CHECK-NEXT: %[[VS:.*]] = llvm.load %[[VSAT]] {alignment = 4 : i64} : !llvm.ptr -> f32
// A query row's largest |q| (sign bits cleared, the larger bf16 of each
// pair, then over the quad of lanes that holds the row) gives its exponent
// field E: e = min(141 - E, 126), so that the largest lands in [2^14, 2^15).
// CHECK: arith.andi %{{.*}}, %c2147450879_i32{{(_[0-9]+)?}} : i32
// CHECK: arith.maxui
// CHECK: gpu.shuffle  xor %{{.*}}, %c1_i32
// CHECK: gpu.shuffle  xor %{{.*}}, %c2_i32
// CHECK: %[[FIELD:.*]] = arith.shrui %{{.*}}, %c7_i32 : i32
// CHECK: %[[E0:.*]] = arith.subi %c141_i32, %[[FIELD]] : i32
// CHECK-NEXT: %[[E:.*]] = arith.minsi %[[E0]], %c126_i32 : i32
// CHECK: %[[NEGE:.*]] = arith.subi %c0_i32{{(_[0-9]+)?}}, %[[E]] : i32
// CHECK: %[[DOWNF:.*]] = arith.addi %[[NEGE]], %c127_i32{{(_[0-9]+)?}} : i32
// CHECK-NEXT: %[[DOWNB:.*]] = arith.shli %[[DOWNF]], %c23_i32{{(_[0-9]+)?}} : i32
// CHECK-NEXT: %[[DOWN:.*]] = arith.bitcast %[[DOWNB]] : i32 to f32
// CHECK: %[[UPF:.*]] = arith.addi %[[E]], %c127_i32{{(_[0-9]+)?}} : i32
// CHECK-NEXT: %[[UPB:.*]] = arith.shli %[[UPF]], %c23_i32{{(_[0-9]+)?}} : i32
// CHECK-NEXT: %[[UP:.*]] = arith.bitcast %[[UPB]] : i32 to f32
// CHECK-NEXT: %[[Q0:.*]] = llvm.inline_asm {{.*}}mul.f32 x, x, $2;{{.*}}cvt.rn.f16x2.f32 $0, y, x;{{.*}}"=r,r,f" %{{.*}}, %[[UP]] : (i32, f32) -> i32
// The codes are copied as bytes.
// CHECK: llvm.getelementptr %{{.*}}[%{{.*}}] : (!llvm.ptr, i32) -> !llvm.ptr, i8
// CHECK: nvvm.cp.async.shared.global
// The conversion of a tile.
// CHECK: %[[WORDS:.*]] = llvm.load %{{.*}} {alignment = 16 : i64} : !llvm.ptr<3> -> vector<4xi32>
// CHECK: %[[W0:.*]] = llvm.extractelement %[[WORDS]][%{{.*}} : i32] : vector<4xi32>
// CHECK-NEXT: llvm.inline_asm asm_dialect = att "{\0A.reg .b16 l, h;\0Amov.b32 {l, h}, $2;\0Acvt.rn.f16x2.e4m3x2 $0, l;\0Acvt.rn.f16x2.e4m3x2 $1, h;\0A}", "=r,=r,r" %[[W0]] : (i32) -> !llvm.struct<(i32, i32)>
// CHECK: llvm.store %{{.*}}, %{{.*}} {alignment = 16 : i64} : vector<4xi32>, !llvm.ptr<3>
// CHECK: gpu.barrier
// Q sits in registers here, so K's codes are converted in registers: an
// ldmatrix x4 of codes, each of its four registers (four codes) converted
// into a B fragment.
// CHECK: %[[CODES:.*]] = nvvm.ldmatrix %{{.*}} : (!llvm.ptr<3>) -> !llvm.struct<(i32, i32, i32, i32)>
// CHECK-NEXT: %[[C0:.*]] = llvm.extractvalue %[[CODES]][0]
// CHECK-NEXT: llvm.extractvalue %[[CODES]][1]
// CHECK-NEXT: llvm.extractvalue %[[CODES]][2]
// CHECK-NEXT: llvm.extractvalue %[[CODES]][3]
// CHECK-NEXT: %[[B0:.*]] = llvm.inline_asm asm_dialect = att "{\0A.reg .b16 l, h;\0Amov.b32 {l, h}, $2;\0Acvt.rn.f16x2.e4m3x2 $0, l;\0Acvt.rn.f16x2.e4m3x2 $1, h;\0A}", "=r,=r,r" %[[C0]] : (i32) -> !llvm.struct<(i32, i32)>
// CHECK: %[[LO:.*]] = llvm.extractvalue %[[B0]][0]
// CHECK-NEXT: %[[HI:.*]] = llvm.extractvalue %[[B0]][1]
// CHECK: %[[LOH:.*]] = llvm.bitcast %[[LO]] : i32 to vector<2xf16>
// CHECK-NEXT: %[[HIH:.*]] = llvm.bitcast %[[HI]] : i32 to vector<2xf16>
// CHECK-NEXT: %[[Q0H:.*]] = llvm.bitcast %[[Q0]] : i32 to vector<2xf16>
// CHECK: nvvm.mma.sync A[%[[Q0H]], {{.*}}] B[%[[LOH]], %[[HIH]]] {{.*}} : (vector<2xf16>, vector<2xf16>, f32) -> !llvm.struct<(f32, f32, f32, f32)>
// After the last k-step, the scores of the row times 2^-e.
// CHECK: arith.mulf %{{.*}}, %[[DOWN]] : f32
// CHECK: arith.mulf %{{.*}}, %[[KS]] : f32
// P V: P packed as f16 pairs, an f16 MMA.
// CHECK: llvm.fptrunc %{{.*}} : vector<2xf32> to vector<2xf16>
// CHECK: nvvm.mma.sync A[{{.*}}] B[{{.*}}] {{.*}} : (vector<2xf16>, vector<2xf16>, f32) -> !llvm.struct<(f32, f32, f32, f32)>
// CHECK: arith.mulf %{{.*}}#{{[0-9]+}}, %[[VS]] : f32
func.func @fp8(%q: tensor<?x4x?x64xbf16>, %k: tensor<?x2x?x64xf8E4M3FN>, %v: tensor<?x2x?x64xf8E4M3FN>, %s: tensor<2x2xf32>) -> tensor<?x4x?x64xbf16> {
  %o = attn.attention %q, %k, %v kv_scales(%s : tensor<2x2xf32>) mask(#attn.causal) : tensor<?x4x?x64xbf16>, tensor<?x2x?x64xf8E4M3FN>, tensor<?x2x?x64xf8E4M3FN> -> tensor<?x4x?x64xbf16>
  return %o : tensor<?x4x?x64xbf16>
}

// -----

// An fp8 decode step pinned to four staging stages of codes (the target
// chooses two): the prologue commits tile lo (with Q's copies), then tiles
// lo + 1 and lo + 2, each its own group; the loop prefetches tile kt + 3 and
// waits until at most 3 groups are pending, so three tiles stay in flight.
// CHECK-LABEL: func.func @fp8_decode(
// CHECK: gpu.func @attnc_attention(
// CHECK: nvvm.cp.async.commit.group
// CHECK: %[[C1:.*]] = arith.constant 1 : index
// CHECK-NEXT: %[[T1:.*]] = arith.addi %{{.*}}, %[[C1]] : index
// CHECK: nvvm.cp.async.commit.group
// CHECK: %[[C2:.*]] = arith.constant 2 : index
// CHECK-NEXT: %[[T2:.*]] = arith.addi %{{.*}}, %[[C2]] : index
// CHECK: nvvm.cp.async.commit.group
// CHECK: scf.for
// CHECK: %[[C3:.*]] = arith.constant 3 : index
// CHECK-NEXT: %[[NEXT:.*]] = arith.addi %{{.*}}, %[[C3]] : index
// CHECK: nvvm.cp.async.commit.group
// CHECK-NEXT: nvvm.cp.async.wait.group 3
// CHECK-NEXT: gpu.barrier
func.func @fp8_decode(%q: tensor<?x4x1x64xbf16>, %k: tensor<?x2x?x64xf8E4M3FN>, %v: tensor<?x2x?x64xf8E4M3FN>, %s: tensor<2x2xf32>) -> tensor<?x4x1x64xbf16> {
  %o = attn.attention %q, %k, %v kv_scales(%s : tensor<2x2xf32>) mask(#attn.causal) {attn.decode, attn.gpu_kernel = #attn.gpu_kernel<chip = "sm_90a", block_q = 16, block_k = 64, warps = 4, m_tiles = 1, stages = 4, q_in_smem = false, gqa_pack = 2, key_warps = 4, split_kv = true>} : tensor<?x4x1x64xbf16>, tensor<?x2x?x64xf8E4M3FN>, tensor<?x2x?x64xf8E4M3FN> -> tensor<?x4x1x64xbf16>
  return %o : tensor<?x4x1x64xbf16>
}

// -----

// A contiguous fp8 cache at D = 128 on sm_90a loads by TMA: a stage of codes
// is one box of 128 K codes a row and one of V codes (16 KiB each, from byte
// 34816, after the padded 16-bit V tile), one tile expecting 32 KiB. After
// the wait, the V codes of rows past the sequence's keys are zeroed (a
// 128-byte row a box), then every thread converts 16 codes at a time from
// swizzled addresses (chunk c of row r at (c mod 8 xor r mod 8) * 16) into
// the V tile, and a barrier publishes it before the MMAs.
// No cp.async copy, commit or wait anywhere in the kernel:
// NOCP-LABEL: func.func @fp8_tma(
// NOCP: gpu.func @attnc_attention(
// NOCP-NOT: nvvm.cp.async.{{(shared|commit|wait)}}
// NOCP: gpu.func @attnc_combine(
// CHECK-LABEL: func.func @fp8_tma(
// CHECK: gpu.func @attnc_attention(
// CHECK: nvvm.mbarrier.arrive.expect_tx %[[BAR:.*]], %c32768_i32
// CHECK: nvvm.cp.async.bulk.tensor.shared.cluster.global %{{.*}}, %[[KMAP:.*]], %[[BAR]], box[%c0_i32{{.*}}]
// CHECK: nvvm.cp.async.bulk.tensor.shared.cluster.global %{{.*}}, %[[VMAP:.*]], %[[BAR]], box[%c0_i32{{.*}}]
// CHECK: scf.for
// CHECK: nvvm.mbarrier.try_wait.parity
// CHECK: %[[STAGE:.*]] = arith.muli %{{.*}}, %c32768{{(_[0-9]+)?}} : index
// CHECK: %[[CODES:.*]] = arith.addi %c34816, %[[STAGE]] : index
// CHECK: %[[VCODES:.*]] = arith.addi %[[CODES]], %c16384 : index
// CHECK: llvm.store %{{.*}} : vector<4xi32>, !llvm.ptr<3>
// CHECK: nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.shared>
// CHECK: nvvm.barrier id = %c8_i32 number_of_threads = %c128_i32
// CHECK: %[[CHUNK:.*]] = arith.addi %thread_id_x, %{{.*}} : index
// CHECK: %[[ROW:.*]] = arith.divui %[[CHUNK]], %c8{{(_[0-9]+)?}} : index
// CHECK: %[[COL:.*]] = arith.remui %[[CHUNK]], %c8{{(_[0-9]+)?}} : index
// CHECK: %[[C8:.*]] = arith.remui %[[COL]], %c8{{(_[0-9]+)?}} : index
// CHECK: %[[R8:.*]] = arith.remui %[[ROW]], %c8{{(_[0-9]+)?}} : index
// CHECK: %[[SW:.*]] = arith.xori %[[C8]], %[[R8]] : index
// CHECK: arith.muli %[[SW]], %c16{{(_[0-9]+)?}} : index
// CHECK: llvm.load %{{.*}} {alignment = 16 : i64} : !llvm.ptr<3> -> vector<4xi32>
// CHECK: cvt.rn.f16x2.e4m3x2
// CHECK: gpu.barrier
// CHECK: nvvm.ldmatrix
func.func @fp8_tma(%q: tensor<?x8x1x128xbf16>, %k8: tensor<?x2x?x128xf8E4M3FN>, %s: tensor<2x2xf32>, %l: tensor<?xi32>) -> tensor<?x8x1x128xbf16> {
  %o = attn.attention %q, %k8, %k8 kv_lens(%l : tensor<?xi32>) kv_scales(%s : tensor<2x2xf32>) {attn.decode} : tensor<?x8x1x128xbf16>, tensor<?x2x?x128xf8E4M3FN>, tensor<?x2x?x128xf8E4M3FN> -> tensor<?x8x1x128xbf16>
  return %o : tensor<?x8x1x128xbf16>
}

// -----

// A paged fp8 cache on sm_90a: 128-key tiles, one TMA box a page of 16 rows
// of 128 codes, and launch bounds of two blocks a multiprocessor (its 100 KB
// of shared memory leave room for two; without them ptxas spilled). The
// thread of chunk j = warp + 4 lane < 8 loads page j of a tile, its K codes
// at 2048 j in the stage (stages of 32 KiB after the f16 V tile of 128
// padded rows, 34816 bytes) and its V codes 16 KiB further; thread 0
// expects the tile's 32 KiB.
// No cp.async copy anywhere in the kernel:
// NOCP-LABEL: func.func @paged_fp8_tma(
// NOCP: gpu.func @attnc_attention(
// NOCP-NOT: nvvm.cp.async.{{(shared|commit|wait)}}
// NOCP: gpu.func @attnc_combine(
// CHECK-LABEL: func.func @paged_fp8_tma(
// CHECK: gpu.func @attnc_attention(
// CHECK-SAME: kernel attributes {known_block_size = array<i32: 128, 1, 1>, nvvm.minctasm = 2 : i32}
// CHECK: %[[WARP:.*]] = arith.divui %thread_id_x, %c32 : index
// CHECK: %[[LANE:.*]] = arith.remui %thread_id_x, %c32{{(_[0-9]+)?}} : index
// CHECK: %[[LANES:.*]] = arith.muli %[[LANE]], %c4{{(_[0-9]+)?}} : index
// CHECK: %[[CHUNK:.*]] = arith.addi %[[WARP]], %[[LANES]] : index
// CHECK: %[[MINE:.*]] = arith.cmpi ult, %[[CHUNK]], %c8{{(_[0-9]+)?}} : index
// CHECK: %[[ISSUE:.*]] = arith.andi %[[MINE]], %{{.*}} : i1
// CHECK: scf.if %[[ISSUE]] {
// CHECK: %[[LEAD:.*]] = arith.cmpi eq, %[[CHUNK]], %c0{{(_[0-9]+)?}} : index
// CHECK: scf.if %[[LEAD]] {
// CHECK: nvvm.mbarrier.arrive.expect_tx %[[BAR:.*]], %c32768_i32
// CHECK: %[[PAGEOFF:.*]] = arith.muli %[[CHUNK]], %c2048 : index
// CHECK: %[[STAGE:.*]] = arith.muli %{{.*}}, %c32768{{(_[0-9]+)?}} : index
// CHECK: %[[KCODES:.*]] = arith.addi %c34816, %[[STAGE]] : index
// CHECK: arith.addi %[[KCODES]], %[[PAGEOFF]] : index
// CHECK: nvvm.cp.async.bulk.tensor.shared.cluster.global %{{.*}}, %{{.*}}, %[[BAR]], box[%c0_i32
// CHECK: %[[VCODES:.*]] = arith.addi %c51200, %{{.*}} : index
// CHECK: arith.addi %[[VCODES]], %[[PAGEOFF]] : index
// CHECK: nvvm.cp.async.bulk.tensor.shared.cluster.global %{{.*}}, %{{.*}}, %[[BAR]], box[%c0_i32
// CHECK: scf.for
// CHECK: nvvm.mbarrier.try_wait.parity
// CHECK: cvt.rn.f16x2.e4m3x2
// CHECK: nvvm.ldmatrix
func.func @paged_fp8_tma(%q: tensor<?x8x1x128xbf16>, %k8: tensor<?x16x2x128xf8E4M3FN>, %s: tensor<2x2xf32>, %l: tensor<?xi32>, %t: tensor<?x?xi32>) -> tensor<?x8x1x128xbf16> {
  %o = attn.attention %q, %k8, %k8 kv_lens(%l : tensor<?xi32>) page_table(%t : tensor<?x?xi32>) kv_scales(%s : tensor<2x2xf32>) {attn.decode} : tensor<?x8x1x128xbf16>, tensor<?x16x2x128xf8E4M3FN>, tensor<?x16x2x128xf8E4M3FN> -> tensor<?x8x1x128xbf16>
  return %o : tensor<?x8x1x128xbf16>
}

// -----

// The same paged fp8 decode pinned to 64-key tiles: 50 KB of shared memory
// leave room for four blocks a multiprocessor, so no launch bounds (ptxas
// picks the registers; GpuTarget::decodeMinBlocks gives them only at two
// blocks or fewer).
// CHECK-LABEL: func.func @paged_fp8_tma_64(
// CHECK: gpu.func @attnc_attention(
// CHECK-SAME: kernel attributes {known_block_size = array<i32: 128, 1, 1>} {
func.func @paged_fp8_tma_64(%q: tensor<?x8x1x128xbf16>, %k8: tensor<?x16x2x128xf8E4M3FN>, %s: tensor<2x2xf32>, %l: tensor<?xi32>, %t: tensor<?x?xi32>) -> tensor<?x8x1x128xbf16> {
  %o = attn.attention %q, %k8, %k8 kv_lens(%l : tensor<?xi32>) page_table(%t : tensor<?x?xi32>) kv_scales(%s : tensor<2x2xf32>) {attn.decode, attn.gpu_kernel = #attn.gpu_kernel<chip = "sm_90a", block_q = 16, block_k = 64, warps = 4, m_tiles = 1, stages = 2, q_in_smem = false, gqa_pack = 4, key_warps = 4, split_kv = true, tma_loads = true>} : tensor<?x8x1x128xbf16>, tensor<?x16x2x128xf8E4M3FN>, tensor<?x16x2x128xf8E4M3FN> -> tensor<?x8x1x128xbf16>
  return %o : tensor<?x8x1x128xbf16>
}

// -----

// A paged 16-bit cache on sm_90a (pages of 16 rows, 128-key tiles): the
// wgmma kernel. Its producer issues a key tile as 8 boxes of a page each:
// box j uses page_table[batch, key / 16] for key k0 + 16 j (clamped to the
// sequence's last key), clamps the id into [0, num_pages) and loads its two
// 64-column boxes at row key mod 16 of that page into rows 16 j of the
// stage (byte 2048 j); V the same. The first lanes of the 4 producer warps
// (tids 256, 288, 320, 352) share the boxes: warp w issues boxes w and
// w + 4 (its slots 0 and 1), warp 0 alone loads Q and expects each tile's
// bytes. A lane reads its 2 entries a tile ahead: tile lo's before the
// loop, tile kt + 1's at the top of iteration kt, before it waits for a
// stage; they are the loop's state, and K and V use the same ones (no read
// between the waits and the boxes). It gets 40 registers (setmaxnreg).
// Rows past the length are masked and zeroed in V as over a contiguous
// cache (the consumers, above the producer in the IR).
// CHECK-LABEL: func.func @paged_wgmma(
// CHECK: gpu.func @attnc_attention(
// CHECK-SAME: %[[KMAP:[a-z0-9_]+]]: !llvm.ptr, %[[VMAP:[a-z0-9_]+]]: !llvm.ptr) kernel
// CHECK: nvvm.barrier id = %c8_i32
// CHECK: nvvm.setmaxregister  decrease 40
// CHECK-NEXT: %c0{{.*}} = arith.constant 0 : index
// CHECK-NEXT: %c32{{.*}} = arith.constant 32 : index
// CHECK-NEXT: %[[LANE:.*]] = arith.remui %{{.*}}, %c32{{.*}} : index
// CHECK-NEXT: %[[FIRST:.*]] = arith.cmpi eq, %[[LANE]], %c0{{.*}} : index
// CHECK-NEXT: %c384 = arith.constant 384 : index
// CHECK-NEXT: %[[BELOW:.*]] = arith.cmpi ult, %{{.*}}, %c384 : index
// CHECK-NEXT: %[[ISSUER:.*]] = arith.andi %[[FIRST]], %[[BELOW]] : i1
// CHECK-NEXT: scf.if %[[ISSUER]] {
// CHECK: %[[QW:.*]] = arith.subi %{{.*}}, %c8{{.*}} : index
// CHECK-NEXT: %[[QW0:.*]] = arith.cmpi eq, %[[QW]], %c0{{.*}} : index
// CHECK-NEXT: scf.if %[[QW0]] {
// CHECK: nvvm.mbarrier.arrive.expect_tx
// CHECK: %[[E0:.*]] = llvm.load %{{.*}} {alignment = 4 : i64} : !llvm.ptr -> i32
// CHECK: %[[E1:.*]] = llvm.load %{{.*}} {alignment = 4 : i64} : !llvm.ptr -> i32
// CHECK-NOT: llvm.load
// CHECK: scf.for %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[A0:[a-z0-9_]+]] = %[[E0]], %[[A1:[a-z0-9_]+]] = %[[E1]]) -> (i32, i32) {
// CHECK-COUNT-2: llvm.load %{{.*}} {alignment = 4 : i64} : !llvm.ptr -> i32
// CHECK-NOT: llvm.load
// CHECK: nvvm.mbarrier.try_wait.parity
// CHECK-NOT: llvm.load
// CHECK: %[[KW:.*]] = arith.subi %{{.*}}, %c8{{.*}} : index
// CHECK-NEXT: %[[KW0:.*]] = arith.cmpi eq, %[[KW]], %c0{{.*}} : index
// CHECK-NEXT: scf.if %[[KW0]] {
// CHECK-NEXT: arith.constant 32768 : i32
// CHECK-NEXT: nvvm.mbarrier.arrive.expect_tx
// CHECK-NEXT: }
// Slot 0: box w, key kt * 128 + 16 w, page from the first entry.
// CHECK: %[[W:.*]] = arith.subi %{{.*}}, %c8{{.*}} : index
// CHECK-NEXT: %[[B0:.*]] = arith.addi %[[W]], %c0{{.*}} : index
// CHECK-NEXT: arith.constant 16 : index
// CHECK-NEXT: %[[OFF0:.*]] = arith.muli %[[B0]], %c16{{.*}} : index
// CHECK: %[[KEY0:.*]] = arith.addi %{{.*}}, %[[OFF0]] : index
// CHECK: %[[IDX:.*]] = arith.index_cast %[[A0]] : i32 to index
// CHECK-NEXT: arith.constant 0 : index
// CHECK-NEXT: %[[ID0:.*]] = arith.maxsi %[[IDX]], %{{.*}} : index
// CHECK-NEXT: %[[PAGE:.*]] = arith.minsi %[[ID0]], %{{.*}} : index
// CHECK-NEXT: arith.constant 16 : index
// CHECK-NEXT: %[[ROW:.*]] = arith.remui %[[KEY0]], %c16{{.*}} : index
// CHECK-NEXT: %[[ROW32:.*]] = arith.index_cast %[[ROW]] : index to i32
// CHECK: %[[PAGE32:.*]] = arith.index_cast %[[PAGE]] : index to i32
// CHECK: nvvm.cp.async.bulk.tensor.shared.cluster.global %{{.*}}, %[[KMAP]], %{{.*}}, box[%c0_i32{{(_[0-9]+)?}}, %[[ROW32]], %{{.*}}, %[[PAGE32]]]
// CHECK: nvvm.cp.async.bulk.tensor.shared.cluster.global %{{.*}}, %[[KMAP]], %{{.*}}, box[%c64_i32{{(_[0-9]+)?}}, %[[ROW32]], %{{.*}}, %{{.*}}]
// Slot 1: box w + 4, page from the second entry.
// CHECK: %[[W1:.*]] = arith.subi %{{.*}}, %c8{{.*}} : index
// CHECK-NEXT: %[[B1:.*]] = arith.addi %[[W1]], %c4{{.*}} : index
// CHECK-NEXT: arith.constant 16 : index
// CHECK-NEXT: arith.muli %[[B1]], %c16{{.*}} : index
// CHECK: arith.index_cast %[[A1]] : i32 to index
// CHECK: nvvm.cp.async.bulk.tensor.shared.cluster.global %{{.*}}, %[[KMAP]],
// CHECK-NOT: llvm.load
// CHECK: nvvm.mbarrier.try_wait.parity
// CHECK-NOT: llvm.load
// CHECK: arith.index_cast %[[A0]] : i32 to index
// CHECK-NOT: llvm.load
// CHECK: nvvm.cp.async.bulk.tensor.shared.cluster.global %{{.*}}, %[[VMAP]],
// CHECK-NOT: llvm.load
// CHECK: arith.index_cast %[[A1]] : i32 to index
// CHECK-NOT: llvm.load
// CHECK: nvvm.cp.async.bulk.tensor.shared.cluster.global %{{.*}}, %[[VMAP]],
// CHECK-NOT: llvm.load
// CHECK: scf.yield %{{.*}}, %{{.*}} : i32, i32
func.func @paged_wgmma(%q: tensor<?x8x?x128xbf16>, %k: tensor<?x16x2x128xbf16>, %v: tensor<?x16x2x128xbf16>, %l: tensor<?xi32>, %t: tensor<?x?xi32>) -> tensor<?x8x?x128xbf16> {
  %o = attn.attention %q, %k, %v kv_lens(%l : tensor<?xi32>) page_table(%t : tensor<?x?xi32>) mask(#attn.causal) : tensor<?x8x?x128xbf16>, tensor<?x16x2x128xbf16>, tensor<?x16x2x128xbf16> -> tensor<?x8x?x128xbf16>
  return %o : tensor<?x8x?x128xbf16>
}
