// attnc-run rejects bad input with a clear message and exit code 2, and
// fails with exit code 1 only when the numbers are wrong.
// RUN: sh -c 'attnc-run --spec "b=2 hq=8 hkv=3 sq=10" 2>&1; echo "exit $?"' | FileCheck %s --check-prefix=GQA
// GQA: attnc-run: error: bad --spec:
// GQA: exit 2
// RUN: sh -c 'attnc-run --spec "sq=10 mask=diagonal" 2>&1; echo "exit $?"' | FileCheck %s --check-prefix=MASK
// MASK: mask
// MASK: exit 2
// RUN: sh -c 'attnc-run %s 2>&1; echo "exit $?"' | FileCheck %s --check-prefix=SIZES
// SIZES: attnc-run: error: the IR has a dynamic b: give it with --sizes
// SIZES: exit 2
// RUN: sh -c 'ATTNRT_LIBCUDA=/nonexistent/libcuda.so.1 attnc-run %s --sizes="b=1 sq=4" --device=cuda 2>&1; echo "exit $?"' | FileCheck %s --check-prefix=CUDA
// CUDA: attnc-run: error: libcuda.so.1 not found: no NVIDIA driver on this machine
// CUDA: exit 2
// RUN: sh -c 'attnc-run %s --sizes="b=1 sq=4" --inputs=%t.missing.npy,b,c 2>&1; echo "exit $?"' | FileCheck %s --check-prefix=NPY
// NPY: attnc-run: error:
// NPY: exit 2
// RUN: sh -c 'attnc-run --spec "sq=8" %s 2>&1; echo "exit $?"' | FileCheck %s --check-prefix=BOTH
// BOTH: give either an .mlir file or --spec, not both
// BOTH: exit 2
// A non-finite tolerance would turn any error into a PASS.
// RUN: sh -c 'attnc-run --spec "b=1 hq=2 sq=8 d=16" --tolerance=inf 2>&1; echo "exit $?"' | FileCheck %s --check-prefix=TOL
// TOL: attnc-run: error: expected --tolerance to be a positive number, got inf
// TOL: exit 2
// Tiles are at most 4096 rows or keys.
// RUN: sh -c 'attnc-run --spec "b=1 hq=2 sq=8 d=16" --block-q=5000 2>&1; echo "exit $?"' | FileCheck %s --check-prefix=TILES
// TILES: error: expected tile sizes in [1, 4096], got block_q = 5000, block_k = 64
// TILES: exit 2
// A problem too big for the host is refused before anything is allocated
// (the limit is ATTNC_HOST_MEMORY_GB, 16 by default).
// RUN: sh -c 'attnc-run --spec "b=65535 hq=8 sq=100000 d=64" 2>&1; echo "exit $?"' | FileCheck %s --check-prefix=HOSTMEM
// HOSTMEM: attnc-run: error: the problem needs 151218.4 GiB of host memory for its inputs and the float64 reference, more than the limit of 16.0 GiB (ATTNC_HOST_MEMORY_GB)
// HOSTMEM: exit 2
// RUN: sh -c 'ATTNC_HOST_MEMORY_GB=1 attnc-run --spec "b=1 hq=64 sq=32768 d=64" 2>&1; echo "exit $?"' | FileCheck %s --check-prefix=HOSTMEM1
// HOSTMEM1: more than the limit of 1.0 GiB (ATTNC_HOST_MEMORY_GB)
// HOSTMEM1: exit 2
// RUN: sh -c 'attnc compile --spec "b=65535 hq=8 sq=2147483647 d=64" --report 2>&1; echo "exit $?"' | FileCheck %s --check-prefix=REPORTMEM
// REPORTMEM: attnc: error: the problem needs {{[0-9.]+}} GiB of host memory
// REPORTMEM: exit 1

func.func @attention(%q: tensor<?x1x?x16xf32>, %k: tensor<?x1x?x16xf32>, %v: tensor<?x1x?x16xf32>) -> tensor<?x1x?x16xf32> {
  %o = attn.attention %q, %k, %v : tensor<?x1x?x16xf32>, tensor<?x1x?x16xf32>, tensor<?x1x?x16xf32> -> tensor<?x1x?x16xf32>
  return %o : tensor<?x1x?x16xf32>
}
