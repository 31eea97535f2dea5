// attnc compile --report on cases small enough to count by hand.
//
// Causal, Sq = Sk = 128, D = Dv = 64, bf16, tiles 64 x 64, one head:
//   unmasked pairs = 128 * 129 / 2 = 8256; FLOPs = 2 * 8256 * (64 + 64)
//   tiles: (q0, k0) partial (diagonal), (q0, k1) empty, (q1, k0) full,
//          (q1, k1) partial
//   naive HBM = Q + K + V + O (4 * 128 * 64 * 2) + 4 * S (128 * 128 * 2)
//               + LSE (128 * 4) = 65536 + 131072 + 512 = 197120
//   tiled HBM = Q + O (32768) + K/V of the 3 visited tiles
//               (3 * 64 * 128 * 2 = 49152) + LSE (512) = 82432
//   tiled working set = Q tile 8192 + K/V tile 16384 + scores 16384
//                       + accumulator 16384 + m, l 512 = 57856
//   intensity = 2113536 / 82432 = 25.64; H200 bound = 25.64 * 4.8 TB/s
// RUN: attnc compile --spec "b=1 hq=1 sq=128 sk=128 d=64 dtype=bf16 mask=causal" --report | FileCheck %s --check-prefix=CAUSAL
// CAUSAL: unmasked pairs:        8256
// CAUSAL: FLOPs:                 2113536
// CAUSAL: tiles:                 4 total, 1 skipped, 1 full, 2 partial
// CAUSAL: HBM bytes, naive:      197120
// CAUSAL: HBM bytes, tiled:      82432 (naive / tiled = 2.391; 2*block_q/d = 2.000)
// CAUSAL: held memory, naive:    32768 bytes of scores
// CAUSAL: held memory, tiled:    57856 bytes per query tile
// CAUSAL: arithmetic intensity:  25.64 FLOP/byte
// CAUSAL: roofline on H200:      123.1 TFLOP/s

// No mask, Sq = Sk = 4096, D = 128, 2 x 16 heads: every tile full, and the
// HBM ratio approaches 2 * block_q / D = 1 (4 * S^2 * 2 bytes naive versus
// 2 * S * D * 2 * S / block_q bytes of K/V re-reads).
//   pairs = 32 * 4096^2 = 536870912; tiles = 32 * 64 * 64 = 131072
// RUN: attnc compile --spec "b=2 hq=16 sq=4096 d=128 dtype=bf16" --report | FileCheck %s --check-prefix=FULL
// FULL: unmasked pairs:        536870912
// FULL: tiles:                 131072 total, 0 skipped, 131072 full, 0 partial
// FULL: naive / tiled = 1.0{{[0-9]+}}; 2*block_q/d = 1.000

// A document mask from the spec, with the tiles the kernel skips at run time:
// documents of 64 and 64 keys, tiles 64 x 64: the two diagonal tiles are full,
// the two off-diagonal tiles empty.
// RUN: attnc compile --spec "mask=document:64,64 d=32 dtype=f16" --report | FileCheck %s --check-prefix=DOC
// DOC: unmasked pairs:        8192
// DOC: tiles:                 4 total, 2 skipped, 2 full, 0 partial

// IR with dynamic sizes takes them from --sizes.
// RUN: attnc compile %S/../../examples/causal_gqa_softcap.mlir --report --sizes="b=2 sq=300 sk=300" | FileCheck %s --check-prefix=SIZES
// SIZES: attention b=2 hq=8 hkv=2 sq=300 sk=300 d=64
// SIZES: tiles:                 400 total, 160 skipped, 160 full, 80 partial

// The report uses the tile sizes the passes use: the module's attn.tile_sizes
// (32 x 16: 4 x 8 tiles, of which the 12 above the diagonal are empty).
// RUN: attnc compile %S/Inputs/module-tiles.mlir --report | FileCheck %s --check-prefix=MODTILES
// MODTILES: tiles 32 x 16 (block_q x block_k)
// MODTILES: tiles:                 32 total, 12 skipped, 12 full, 8 partial
// RUN: not attnc compile %S/Inputs/bad-tiles.mlir --report 2>&1 | FileCheck %s --check-prefix=BADTILES
// BADTILES: error: expected attn.tile_sizes to be array<i64: block_q, block_k> with sizes in [1, 4096]
