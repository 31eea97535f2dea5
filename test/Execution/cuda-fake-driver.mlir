// attnc-run --device=cuda end to end on a CUDA driver stand-in
// (Inputs/fake-libcuda.c, named by ATTNRT_LIBCUDA): the GPU kernel is
// compiled into an in-memory artifact, and the runtime copies the inputs to
// "device" buffers, poisons o and lse, launches, copies back and checks, as
// on a GPU. The stand-in's launch computes the attention on the host, so this
// tests the plumbing, not attnc's kernels (bench/gpu-check.sh does that).
// REQUIRES: ptxas
//
// A spec, on a compute capability 9.0 device (sm_90a), timed.
// RUN: sh -c 'ATTNRT_LIBCUDA=%fake_libcuda ATTNC_FAKE_CUDA_MASK=causal attnc-run --spec "b=2 hq=8 hkv=2 sq=100 sk=130 mask=causal" --device=cuda --seed=3 --time=3 --output=%t.o.npy --lse=%t.lse.npy; echo "exit $?"' | FileCheck %s --check-prefix=SPEC
// SPEC: attnc-run: b=2 hq=8 hkv=2 sq=100 sk=130 d=64 dv=64 dtype=bf16 scale=0.125 mask=causal lse=1 on cuda (Fake GPU, sm_90a), seed 3
// SPEC-NEXT: output: max abs error {{.*}}, rel Frobenius error {{.*}} (naive bf16: {{.*}}; bar 1.25 x naive + 1e-06)
// SPEC-NEXT: lse: max abs error {{.*}} (bar 1e-04), 0 non-finite mismatches
// SPEC-NEXT: time: median 0.250 ms over 3 runs, {{[0-9.]+}} TFLOP/s
// SPEC-NEXT: PASS
// SPEC-NEXT: exit 0
// RUN: %python -c "import numpy; print(numpy.load('%t.o.npy').shape, numpy.load('%t.lse.npy').shape)" | FileCheck %s --check-prefix=NPY
// NPY: (2, 8, 100, 64) (2, 8, 100)
//
// What the stand-in saw (stderr): the TMA tensor maps of the sm_90a kernel
// (bf16 = type 9; dims D, S, H, B; byte strides of S, H, B of the dense
// [B, H, S, D] tensors; boxes of 64 columns by block_q rows for q and
// block_k for k and v; 128-byte swizzle = 3; out-of-bounds zero), the
// launch, o poisoned, every buffer freed. At D = 64 under a causal mask the
// artifact holds three kernels, each nested in the one before: with seq_q
// and seq_k at most 1024 the shortest runs (one consumer warpgroup and the
// producer, 256 threads, block_q = block_k = 64, on the grid of the query
// tiles: (2, 8, 2)); up to 2048 the short-sequence one (two consumer
// warpgroups and the producer, 384 threads, block_q = block_k = 128, on
// the persistent grid: the blocks resident at once on the stand-in's 4
// multiprocessors x 2).
// RUN: sh -c 'ATTNRT_LIBCUDA=%fake_libcuda ATTNC_FAKE_CUDA_MASK=causal ATTNC_FAKE_CUDA_LOG=1 attnc-run --spec "b=2 hq=8 hkv=2 sq=100 sk=130 mask=causal" --device=cuda 2>&1 >/dev/null' | FileCheck %s --check-prefix=LAUNCH
// LAUNCH: fake-libcuda: tensor map type 9 dims (64, 100, 8, 2) byte strides (128, 12800, 102400) box (64, 64, 1, 1) swizzle 3 oob 0
// LAUNCH-NEXT: fake-libcuda: tensor map type 9 dims (64, 130, 2, 2) byte strides (128, 16640, 33280) box (64, 64, 1, 1) swizzle 3 oob 0
// LAUNCH-NEXT: fake-libcuda: tensor map type 9 dims (64, 130, 2, 2) byte strides (128, 16640, 33280) box (64, 64, 1, 1) swizzle 3 oob 0
// LAUNCH-NEXT: fake-libcuda: launch grid (2, 8, 2) block (256, 1, 1), b=2 hq=8 hkv=2 sq=100 sk=130 d=64 dv=64, lse given, o poisoned
// LAUNCH: fake-libcuda: 0 device buffers not freed
// At the bound, the shortest kernel; one query past it, the short one.
// RUN: sh -c 'ATTNRT_LIBCUDA=%fake_libcuda ATTNC_FAKE_CUDA_MASK=causal ATTNC_FAKE_CUDA_LOG=1 attnc-run --spec "b=1 hq=2 hkv=2 sq=1024 sk=1024 mask=causal" --device=cuda --seed=4 2>&1; echo "exit $?"' | FileCheck %s --check-prefix=AT1024
// AT1024: fake-libcuda: launch grid (16, 2, 1) block (256, 1, 1)
// AT1024: PASS
// AT1024: exit 0
// RUN: sh -c 'ATTNRT_LIBCUDA=%fake_libcuda ATTNC_FAKE_CUDA_MASK=causal ATTNC_FAKE_CUDA_LOG=1 attnc-run --spec "b=1 hq=2 hkv=2 sq=1025 sk=1000 mask=causal" --device=cuda --seed=4 2>&1; echo "exit $?"' | FileCheck %s --check-prefix=PAST1024
// PAST1024: fake-libcuda: tensor map type 9 dims (64, 1025, 2, 1) byte strides (128, 131200, 16) box (64, 128, 1, 1) swizzle 3 oob 0
// PAST1024: fake-libcuda: launch grid (8, 1, 1) block (384, 1, 1)
// PAST1024: PASS
// PAST1024: exit 0
// Past 2048 queries or keys the main kernel runs: three consumer
// warpgroups (512 threads, block_q = 192) on the grid of the items.
// RUN: sh -c 'ATTNRT_LIBCUDA=%fake_libcuda ATTNC_FAKE_CUDA_MASK=causal ATTNC_FAKE_CUDA_LOG=1 attnc-run --spec "b=1 hq=2 hkv=2 sq=2049 sk=130 mask=causal" --device=cuda --seed=4 2>&1; echo "exit $?"' | FileCheck %s --check-prefix=LONGQ
// LONGQ: fake-libcuda: tensor map type 9 dims (64, 2049, 2, 1) byte strides (128, 262272, 16) box (64, 192, 1, 1) swizzle 3 oob 0
// LONGQ: fake-libcuda: launch grid (11, 2, 1) block (512, 1, 1)
// LONGQ: PASS
// Without a mask at D = 128 past the short kernel's bound, the persistent
// kernel deals the key tiles of its last wave's items to all its blocks
// (KernelAbi.h tail splits, num_splits 2): 17 work items (query tiles of
// 128 rows, one head) on the stand-in's 8 resident blocks leave one in the
// last wave, whose 13 key tiles of 160 go 1 or 2 to a block
// (rt::chooseTailSplits). The scratch holds a counter for each of the
// block's 12 warps, zeroed on the stream before the launch, and two
// records of 128 x (128 + 8) floats a block: (12 + 16 x 17408) x 4 bytes.
// RUN: sh -c 'ATTNRT_LIBCUDA=%fake_libcuda ATTNC_FAKE_CUDA_LOG=1 attnc-run --spec "b=1 hq=1 hkv=1 sq=2176 sk=2000 d=128 mask=none" --device=cuda --seed=5 2>&1; echo "exit $?"' | FileCheck %s --check-prefix=TAIL
// TAIL: fake-libcuda: memset32 of 12 words to 0 in a buffer of 1114160 bytes
// TAIL-NEXT: fake-libcuda: launch grid (8, 1, 1) block (384, 1, 1), b=1 hq=1 hkv=1 sq=2176 sk=2000 d=128 dv=128, lse given, o poisoned, num_splits 2, scratch of 1114160 bytes
// TAIL: PASS
// Whole waves (16 items on 8 blocks): nothing to split, no scratch.
// RUN: sh -c 'ATTNRT_LIBCUDA=%fake_libcuda ATTNC_FAKE_CUDA_LOG=1 attnc-run --spec "b=1 hq=1 hkv=1 sq=2048 sk=2000 d=128 mask=none" --device=cuda --seed=5 2>&1; echo "exit $?"' | FileCheck %s --check-prefix=WHOLE --implicit-check-not=memset32
// WHOLE: fake-libcuda: launch grid (8, 1, 1) block (384, 1, 1), b=1 hq=1 hkv=1 sq=2048 sk=2000 d=128 dv=128, lse given, o poisoned, num_splits 1, scratch of 0 bytes
// WHOLE: PASS
// LONGQ: exit 0
// RUN: sh -c 'ATTNRT_LIBCUDA=%fake_libcuda ATTNC_FAKE_CUDA_MASK=causal ATTNC_FAKE_CUDA_LOG=1 attnc-run --spec "b=1 hq=2 hkv=2 sq=100 sk=2049 mask=causal" --device=cuda --seed=4 2>&1; echo "exit $?"' | FileCheck %s --check-prefix=LONGK
// LONGK: fake-libcuda: launch grid (1, 2, 1) block (512, 1, 1)
// LONGK: PASS
// LONGK: exit 0
// RUN: sh -c 'ATTNRT_LIBCUDA=%fake_libcuda ATTNC_FAKE_CUDA_MASK=causal ATTNC_FAKE_CUDA_LOG=1 attnc-run --spec "b=1 hq=2 hkv=2 sq=2048 sk=2048 mask=causal" --device=cuda --seed=4 2>&1; echo "exit $?"' | FileCheck %s --check-prefix=SHORTQK
// SHORTQK: fake-libcuda: launch grid (8, 1, 1) block (384, 1, 1)
// SHORTQK: PASS
// SHORTQK: exit 0
//
// A persistent kernel (D = 128 without a mask: two consumer warpgroups,
// 384 threads): the runtime launches the blocks resident at once on the
// stand-in's device (4 multiprocessors x 2) over its 2 x 8 x 2 = 32 work
// items, a one-dimensional grid; with fewer items than that, one a block.
// Under a causal mask too at D = 128 (the kernel takes query tiles in pairs
// of equal cost); at D = 64 only the short-sequence kernel (above) is.
// RUN: sh -c 'ATTNRT_LIBCUDA=%fake_libcuda ATTNC_FAKE_CUDA_LOG=1 attnc-run --spec "b=2 hq=8 hkv=2 sq=200 sk=130 d=128" --device=cuda --seed=4 2>&1; echo "exit $?"' | FileCheck %s --check-prefix=PERSIST
// PERSIST: fake-libcuda: launch grid (8, 1, 1) block (384, 1, 1), b=2 hq=8 hkv=2 sq=200 sk=130 d=128 dv=128
// PERSIST: PASS
// PERSIST: exit 0
// RUN: sh -c 'ATTNRT_LIBCUDA=%fake_libcuda ATTNC_FAKE_CUDA_LOG=1 attnc-run --spec "b=1 hq=2 hkv=2 sq=200 sk=130 d=128" --device=cuda --seed=4 2>&1; echo "exit $?"' | FileCheck %s --check-prefix=PERSIST4
// PERSIST4: fake-libcuda: launch grid (4, 1, 1) block (384, 1, 1)
// PERSIST4: exit 0
// RUN: sh -c 'ATTNRT_LIBCUDA=%fake_libcuda ATTNC_FAKE_CUDA_MASK=causal ATTNC_FAKE_CUDA_LOG=1 attnc-run --spec "b=2 hq=8 hkv=2 sq=200 sk=130 d=128 mask=causal" --device=cuda --seed=4 2>&1; echo "exit $?"' | FileCheck %s --check-prefix=PERSISTC
// PERSISTC: fake-libcuda: launch grid (8, 1, 1) block (384, 1, 1)
// PERSISTC: PASS
// PERSISTC: exit 0
//
// KV caches: the runtime passes kv_lens, the page table, its page counts and
// the pages' {page, head, row} strides, and the stand-in, which reads K and
// V through them (and only keys below each sequence's length, the rest being
// NaN), matches the reference: a paged cache (pages of 16 rows,
// shuffled, one shared) and per-sequence lengths over a contiguous cache.
// Both prefills take the wgmma kernel: the paged one's K and V maps are
// {D, page_size, Hkv, num_pages} with boxes of a page.
// RUN: sh -c 'ATTNRT_LIBCUDA=%fake_libcuda ATTNC_FAKE_CUDA_MASK=causal ATTNC_FAKE_CUDA_LOG=1 attnc-run --spec "b=5 hq=8 hkv=2 sq=3 sk=320 mask=causal paged=16" --device=cuda --seed=5 2>&1; echo "exit $?"' | FileCheck %s --check-prefix=PAGED
// PAGED: remark: convert-attn-to-gpu: sm_90a kernel (wgmma
// PAGED: fake-libcuda: tensor map type 9 dims (64, 3, 8, 5)
// PAGED-NEXT: fake-libcuda: tensor map type 9 dims (64, 16, 2, 101) byte strides (256, 128, 4096) box (64, 16, 1, 1)
// PAGED-NEXT: fake-libcuda: tensor map type 9 dims (64, 16, 2, 101) byte strides (256, 128, 4096) box (64, 16, 1, 1)
// PAGED: fake-libcuda: kv_lens given, page_table given, max_pages 20, num_pages 101, k strides (2048, 64, 128), kv_scales null
// PAGED: paged=16 on cuda (Fake GPU, sm_90a), seed 5
// PAGED: PASS
// PAGED-NEXT: exit 0
// Per-sequence lengths over a contiguous 16-bit cache take the wgmma
// kernel: tensor maps over the whole cache [b, hkv, sk] (rows past a
// sequence's length are the kernel's to mask), the block grid, kv_lens.
// RUN: sh -c 'ATTNRT_LIBCUDA=%fake_libcuda ATTNC_FAKE_CUDA_MASK=causal ATTNC_FAKE_CUDA_LOG=1 attnc-run --spec "b=5 hq=8 hkv=2 sq=40 sk=130 mask=causal kv_lens=1" --device=cuda --seed=6 2>&1; echo "exit $?"' | FileCheck %s --check-prefix=LENS
// LENS: remark: convert-attn-to-gpu: sm_90a kernel (wgmma
// LENS: fake-libcuda: tensor map type 9 dims (64, 40, 8, 5)
// LENS-NEXT: fake-libcuda: tensor map type 9 dims (64, 130, 2, 5) byte strides (128, 16640, 33280) box (64, 128, 1, 1)
// LENS-NEXT: fake-libcuda: tensor map type 9 dims (64, 130, 2, 5) byte strides (128, 16640, 33280) box (64, 128, 1, 1)
// LENS-NEXT: fake-libcuda: launch grid (1, 8, 5) block (512, 1, 1)
// LENS-NEXT: fake-libcuda: kv_lens given, page_table null
// LENS: kv_lens=1 on cuda (Fake GPU, sm_90a), seed 6
// LENS: PASS
// LENS-NEXT: exit 0
// An fp8 cache (kv_dtype=fp8): the runtime passes the codes and kv_scales,
// and the stand-in decodes e4m3 and applies the scales; paged and contiguous.
// RUN: sh -c 'ATTNRT_LIBCUDA=%fake_libcuda ATTNC_FAKE_CUDA_MASK=causal ATTNC_FAKE_CUDA_LOG=1 attnc-run --spec "b=5 hq=8 hkv=2 sq=3 sk=320 mask=causal paged=16 kv_dtype=fp8" --device=cuda --seed=7 2>&1; echo "exit $?"' | FileCheck %s --check-prefix=FP8
// FP8: fake-libcuda: kv_lens given, page_table given, max_pages 20, num_pages 101, k strides (2048, 64, 128), kv_scales given
// FP8: kv_dtype=fp8 on cuda (Fake GPU, sm_90a), seed 7
// FP8: PASS
// FP8-NEXT: exit 0
// A decode step over the paged fp8 cache on the stand-in's 4 multiprocessors
// (2 blocks each): the runtime splits the keys of each of the 10 (sequence,
// KV group) tiles 4 ways (grid x), allocates the scratch, and launches the
// split kernel, then the combine.
// RUN: sh -c 'ATTNRT_LIBCUDA=%fake_libcuda ATTNC_FAKE_CUDA_MASK=causal ATTNC_FAKE_CUDA_LOG=1 attnc-run --spec "b=5 hq=8 hkv=2 sq=1 sk=320 mask=causal decode=1 paged=16 kv_dtype=fp8" --device=cuda --seed=9 2>&1; echo "exit $?"' | FileCheck %s --check-prefix=DECODE
// DECODE: fake-libcuda: launch grid (4, 2, 5) block (128, 1, 1), b=5 hq=8 hkv=2 sq=1 sk=320
// DECODE: fake-libcuda: 2 launches
// DECODE: decode=1 on cuda (Fake GPU, sm_90a), seed 9
// DECODE: PASS
// DECODE-NEXT: exit 0
// The same decode kernel run from an attnrt_plan work list of the
// sequences' lengths (attnrt-run --plan): one block per item (grid x = the
// item count, y = z = 1), the work list passed to both kernels, partial
// records in the scratch; 14 unsplit items on 3 blocks launch no combine.
// A plan with a split count is refused.
// RUN: attnc compile --spec "b=2 hq=8 hkv=2 sq=1 sk=320 mask=causal decode=1 kv_lens=1" --target=sm_90a -o %t.plan.attnc
// RUN: sh -c 'ATTNRT_LIBCUDA=%fake_libcuda ATTNC_FAKE_CUDA_MASK=causal ATTNC_FAKE_CUDA_LOG=1 attnrt-run --artifact=%t.plan.attnc --seed=12 --plan=0 2>&1; echo "exit $?"' | FileCheck %s --check-prefix=PLAN
// PLAN: fake-libcuda: launch 0 with a work list of 8 items, grid (8, 1, 1)
// PLAN: fake-libcuda: launch 1 with a work list of 8 items, grid (8, 1, 1)
// PLAN: fake-libcuda: 2 launches
// PLAN: work list: 8 thread blocks, 8 items, 6 partial records
// PLAN-NEXT: PASS
// PLAN-NEXT: exit 0
// RUN: sh -c 'ATTNRT_LIBCUDA=%fake_libcuda ATTNC_FAKE_CUDA_MASK=causal ATTNC_FAKE_CUDA_LOG=1 attnrt-run --artifact=%t.plan.attnc --seed=12 --plan=3 --spec "b=7 hq=8 hkv=2 sq=1 sk=320 mask=causal decode=1 kv_lens=1" 2>&1; echo "exit $?"' | FileCheck %s --check-prefix=PLAN3
// PLAN3: fake-libcuda: launch 0 with a work list of 14 items, grid (14, 1, 1)
// PLAN3: fake-libcuda: 1 launches
// PLAN3: work list: 3 thread blocks, 14 items, 0 partial records
// PLAN3-NEXT: PASS
// RUN: sh -c 'ATTNRT_LIBCUDA=%fake_libcuda attnrt-run --artifact=%t.plan.attnc --plan=2 --splits=3 2>&1; echo "exit $?"' | FileCheck %s --check-prefix=PLANSPLITS
// PLANSPLITS: attnrt-run: error: expected num_splits 0 with a plan (its items carry their splits), got 3
// PLANSPLITS-NEXT: exit 2
// A ragged batch: q and o packed as [tokens, H, D] (strides {., D, H * D}),
// the sequences' offsets passed, the grid sized by the longest sequence
// (max_seqlen_q 300: two tiles of three consumer warpgroups' 192 rows, since
// the i32 boundary tiles left this kernel spill-free; before, ptxas spilled
// and it fell back to one warpgroup, five tiles of 64); keys packed likewise
// (the wgmma kernel: its tensor maps cover the packed rows as batch entry
// 0), or in a paged cache.
// RUN: sh -c 'ATTNRT_LIBCUDA=%fake_libcuda ATTNC_FAKE_CUDA_MASK=causal ATTNC_FAKE_CUDA_LOG=1 attnc-run --spec "hq=8 hkv=2 mask=causal ragged=300:300,1:517,0:40,77:200" --device=cuda --seed=10 2>&1; echo "exit $?"' | FileCheck %s --check-prefix=RAGGED
// RAGGED: fake-libcuda: tensor map type 9 dims (64, 378, 8, 1) byte strides (1024, 128, 16)
// RAGGED-NEXT: fake-libcuda: tensor map type 9 dims (64, 1060, 2, 1) byte strides (256, 128, 16)
// RAGGED-NEXT: fake-libcuda: tensor map type 9 dims (64, 1060, 2, 1) byte strides (256, 128, 16)
// RAGGED-NEXT: fake-libcuda: launch grid (2, 8, 4) block (512, 1, 1), b=4 hq=8 hkv=2 sq=378 sk=1060 d=64 dv=64, lse given, o poisoned
// RAGGED: fake-libcuda: ragged batch of 4 sequences, 378 query rows, keys packed, q strides (193536, 64, 512)
// RAGGED: ragged=300:300,1:517,0:40,77:200 on cuda (Fake GPU, sm_90a), seed 10
// RAGGED: PASS
// RAGGED-NEXT: exit 0
// RUN: sh -c 'ATTNRT_LIBCUDA=%fake_libcuda ATTNC_FAKE_CUDA_MASK=causal ATTNC_FAKE_CUDA_LOG=1 attnc-run --spec "b=5 hq=8 hkv=2 sq=20 sk=320 mask=causal paged=16 ragged=1" --device=cuda --seed=11 2>&1; echo "exit $?"' | FileCheck %s --check-prefix=RAGGEDPAGED
// RAGGEDPAGED: fake-libcuda: ragged batch of 5 sequences, {{[0-9]+}} query rows, keys in a cache
// RAGGEDPAGED: paged=16 ragged=1 on cuda (Fake GPU, sm_90a), seed 11
// RAGGEDPAGED: PASS
// RAGGEDPAGED-NEXT: exit 0
// RUN: sh -c 'ATTNRT_LIBCUDA=%fake_libcuda ATTNC_FAKE_CUDA_MASK=causal attnc-run --spec "b=2 hq=8 hkv=2 sq=40 sk=130 mask=causal kv_dtype=fp8" --device=cuda --seed=8 2>&1; echo "exit $?"' | FileCheck %s --check-prefix=FP8DENSE
// FP8DENSE: kv_dtype=fp8 on cuda (Fake GPU, sm_90a), seed 8
// FP8DENSE: PASS
// FP8DENSE-NEXT: exit 0
//
// The target follows the device: sm_80 for 8.x; older devices are refused.
// RUN: sh -c 'ATTNRT_LIBCUDA=%fake_libcuda ATTNC_FAKE_CUDA_CC=8.6 attnc-run --spec "hq=2 sq=64 lse=0" --device=cuda 2>&1; echo "exit $?"' | FileCheck %s --check-prefix=SM80
// The sm_80 kernel reads no tensor maps, so the runtime builds none (a
// FileCheck with only a CHECK-NOT searches the whole log).
// RUN: sh -c 'ATTNRT_LIBCUDA=%fake_libcuda ATTNC_FAKE_CUDA_CC=8.6 ATTNC_FAKE_CUDA_LOG=1 attnc-run --spec "hq=2 sq=64 lse=0" --device=cuda 2>&1' | FileCheck %s --check-prefix=SM80MAPS
// SM80: on cuda (Fake GPU, sm_80), seed 0
// SM80-NOT: lse:
// SM80: PASS
// SM80: exit 0
// SM80MAPS-NOT: tensor map
// RUN: sh -c 'ATTNRT_LIBCUDA=%fake_libcuda ATTNC_FAKE_CUDA_CC=7.5 attnc-run --spec "hq=2 sq=64" --device=cuda 2>&1; echo "exit $?"' | FileCheck %s --check-prefix=OLD
// OLD: attnc-run: error: CUDA device 0 (Fake GPU) has compute capability 7.5; attnc's kernels need 8.0 or newer
// OLD-NEXT: exit 2
//
// A kernel that writes nothing leaves the poison (NaN): FAIL, exit 1.
// RUN: sh -c 'ATTNRT_LIBCUDA=%fake_libcuda ATTNC_FAKE_CUDA_SKIP=1 attnc-run --spec "hq=2 sq=64" --device=cuda 2>&1; echo "exit $?"' | FileCheck %s --check-prefix=UNWRITTEN
// UNWRITTEN: lse: max abs error {{.*}}, 128 non-finite mismatches
// UNWRITTEN-NEXT: FAIL
// UNWRITTEN-NEXT: exit 1
//
// The mask_fn and score_fn regions below are JIT-compiled for the host, and
// the reference calls them: a causal mask and scores times 2, which the
// stand-in computes as a causal mask with scale 2/sqrt(64).
// RUN: sh -c 'ATTNRT_LIBCUDA=%fake_libcuda ATTNC_FAKE_CUDA_MASK=causal ATTNC_FAKE_CUDA_SCALE=0.25 attnc-run %s --sizes="b=2 sq=70" --device=cuda --seed=4 2>&1; echo "exit $?"' | FileCheck %s --check-prefix=REGIONS
// RUN: sh -c 'ATTNRT_LIBCUDA=%fake_libcuda ATTNC_FAKE_CUDA_SCALE=0.25 attnc-run %s --sizes="b=2 sq=70" --device=cuda --seed=4 2>&1; echo "exit $?"' | FileCheck %s --check-prefix=NOTREGIONS
// REGIONS: mask=custom lse=1 on cuda (Fake GPU, sm_90a), seed 4
// REGIONS: PASS
// REGIONS: exit 0
// NOTREGIONS: FAIL
// NOTREGIONS: exit 1
//
// attnrt-run checks an artifact file the same way: after the first line,
// the same lines.
// RUN: attnc compile --spec "b=2 hq=8 hkv=2 sq=100 sk=130 mask=causal" --target=sm_90a -o %t.attnc
// RUN: sh -c 'ATTNRT_LIBCUDA=%fake_libcuda ATTNC_FAKE_CUDA_MASK=causal attnrt-run --artifact=%t.attnc --seed=3' > %t.attnrt-run.txt
// RUN: sh -c 'ATTNRT_LIBCUDA=%fake_libcuda ATTNC_FAKE_CUDA_MASK=causal attnc-run --spec "b=2 hq=8 hkv=2 sq=100 sk=130 mask=causal" --device=cuda --seed=3' > %t.attnc-run.txt
// RUN: FileCheck %s --check-prefix=ATTNRT --input-file=%t.attnrt-run.txt
// RUN: tail -n +2 %t.attnrt-run.txt > %t.attnrt-run.tail
// RUN: tail -n +2 %t.attnc-run.txt > %t.attnc-run.tail
// RUN: diff %t.attnrt-run.tail %t.attnc-run.tail
// ATTNRT: attnrt-run: b=2 hq=8 hkv=2 sq=100 sk=130 d=64 dv=64 dtype=bf16 mask=causal lse=1 on cuda (Fake GPU), seed 3
// ATTNRT-NEXT: output:
// ATTNRT-NEXT: lse:
// ATTNRT-NEXT: PASS

func.func @attention(%q: tensor<?x2x?x64xbf16>, %k: tensor<?x1x?x64xbf16>, %v: tensor<?x1x?x64xbf16>) -> (tensor<?x2x?x64xbf16>, tensor<?x2x?xf32>) {
  %o, %lse = attn.attention %q, %k, %v mask_fn {
  ^bb0(%b: index, %h: index, %i: index, %j: index):
    %causal = arith.cmpi ule, %j, %i : index
    attn.yield %causal : i1
  } score_fn {
  ^bb0(%s: f32, %b: index, %h: index, %i: index, %j: index):
    %two = arith.constant 2.0 : f32
    %r = arith.mulf %s, %two : f32
    attn.yield %r : f32
  } : tensor<?x2x?x64xbf16>, tensor<?x1x?x64xbf16>, tensor<?x1x?x64xbf16> -> tensor<?x2x?x64xbf16>, tensor<?x2x?xf32>
  return %o, %lse : tensor<?x2x?x64xbf16>, tensor<?x2x?xf32>
}
