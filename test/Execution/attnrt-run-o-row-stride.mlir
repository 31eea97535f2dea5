// attnrt-run --o-row-stride: O written in place with its rows N elements
// apart and read back row by row, on the CUDA driver stand-in
// (Inputs/fake-libcuda.c, whose launch computes the attention on the host at
// the strides it is given). On a GPU this is how the wgmma kernels' 4-byte O
// stores run past their 16-byte test (one query row and an odd row stride;
// bench/gpu-check.sh's stores set); here it tests the plumbing and the
// errors.
// REQUIRES: ptxas
//
// RUN: attnc compile --spec "b=2 hq=4 hkv=2 sq=40 sk=130 d=64 mask=causal" --target=sm_90a -o %t.attnc
//
// One query row, O rows 67 elements apart (not a multiple of 8: the runtime
// lets it through for a dimension of size 1).
// RUN: sh -c 'ATTNRT_LIBCUDA=%fake_libcuda ATTNC_FAKE_CUDA_MASK=causal ATTNC_FAKE_CUDA_LOG=1 attnrt-run --artifact=%t.attnc --spec "b=2 hq=4 hkv=2 sq=1 sk=130 d=64 mask=causal" --o-row-stride=67 --seed=3 2>&1; echo "exit $?"' | FileCheck %s --check-prefix=ONE
// ONE: fake-libcuda: o strides (288, 72, 67)
// ONE: attnrt-run: b=2 hq=4 hkv=2 sq=1 sk=130 d=64
// ONE: PASS
// ONE: exit 0
//
// Padded rows of a multiple of 8 elements, several rows a head.
// RUN: sh -c 'ATTNRT_LIBCUDA=%fake_libcuda ATTNC_FAKE_CUDA_MASK=causal ATTNC_FAKE_CUDA_LOG=1 attnrt-run --artifact=%t.attnc --spec "b=2 hq=4 hkv=2 sq=37 sk=130 d=64 mask=causal" --o-row-stride=80 --seed=4 2>&1; echo "exit $?"' | FileCheck %s --check-prefix=PAD
// PAD: fake-libcuda: o strides (11840, 2960, 80)
// PAD: PASS
// PAD: exit 0
//
// A kernel that writes past a row's dv elements (the stand-in writes one
// more) fails: what lies between padded rows must stay poisoned.
// RUN: sh -c 'ATTNRT_LIBCUDA=%fake_libcuda ATTNC_FAKE_CUDA_MASK=causal ATTNC_FAKE_CUDA_OVERRUN=1 attnrt-run --artifact=%t.attnc --spec "b=2 hq=4 hkv=2 sq=37 sk=130 d=64 mask=causal" --o-row-stride=80 2>&1; echo "exit $?"' | FileCheck %s --check-prefix=PAST
// PAST: attnrt-run: error: the kernel wrote outside O's rows: element 64 of head 0 (rows of 64 elements, 80 apart)
// PAST: exit 2
//
// The runtime refuses an odd row stride with several rows.
// RUN: sh -c 'ATTNRT_LIBCUDA=%fake_libcuda attnrt-run --artifact=%t.attnc --spec "b=2 hq=4 hkv=2 sq=37 sk=130 d=64 mask=causal" --o-row-stride=67 2>&1; echo "exit $?"' | FileCheck %s --check-prefix=ODD
// ODD: attnrt-run: error: expected o_strides {9920, 2480, 67, 1} of [B, Hq, Sq, Dv] to be non-negative multiples of 8 elements (16 bytes)
// ODD: exit 2
//
// RUN: sh -c 'ATTNRT_LIBCUDA=%fake_libcuda attnrt-run --artifact=%t.attnc --o-row-stride=32 2>&1; echo "exit $?"' | FileCheck %s --check-prefix=NARROW
// NARROW: attnrt-run: error: expected an O row stride of at least the value head dim (64), got 32
// NARROW: exit 2
//
// RUN: sh -c 'attnrt-run --artifact=%t.attnc --o-row-stride=0 2>&1; echo "exit $?"' | FileCheck %s --check-prefix=ZERO
// ZERO: attnrt-run: error: expected --o-row-stride to be a number of elements in [1, 2^30], got '0'
// ZERO: exit 2
//
// A ragged batch's O is packed rows.
// RUN: attnc compile --spec "hq=4 hkv=2 mask=causal ragged=30:30,7:50" --target=sm_90a -o %t.ragged.attnc
// RUN: sh -c 'ATTNRT_LIBCUDA=%fake_libcuda attnrt-run --artifact=%t.ragged.attnc --o-row-stride=72 2>&1; echo "exit $?"' | FileCheck %s --check-prefix=RAGGED
// RAGGED: attnrt-run: error: an O row stride needs O as [b, hq, sq, dv] (a ragged batch packs its rows)
// RAGGED: exit 2
