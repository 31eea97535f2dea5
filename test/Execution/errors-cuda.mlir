// attnc-run --device=cuda on a machine without the NVIDIA driver prints the
// runtime's message and exits with code 2; ATTNRT_LIBCUDA names a missing
// library so that a machine with a driver acts as one without. Bad GPU
// options are rejected before the driver is opened.
// RUN: sh -c 'ATTNRT_LIBCUDA=/nonexistent/libcuda.so.1 attnc-run %s --sizes="b=1 sq=64" --device=cuda 2>&1; echo "exit $?"' | FileCheck %s --check-prefix=NODRIVER
// RUN: sh -c 'ATTNRT_LIBCUDA=/nonexistent/libcuda.so.1 attnc-run --spec "b=2 hq=8 hkv=2 sq=100 mask=causal" --device=cuda --target=sm_80 --seed=3 2>&1; echo "exit $?"' | FileCheck %s --check-prefix=NODRIVER
// NODRIVER: attnc-run: error: libcuda.so.1 not found: no NVIDIA driver on this machine
// NODRIVER-NEXT: exit 2
// RUN: sh -c 'attnc-run %s --sizes="b=1 sq=64" --device=cuda --target=sm_70 2>&1; echo "exit $?"' | FileCheck %s --check-prefix=TARGET
// TARGET: attnc-run: error: expected --target=sm_80 or --target=sm_90a, got sm_70
// TARGET-NEXT: exit 2
// RUN: sh -c 'attnc-run %s --sizes="b=1 sq=64" --target=sm_90a 2>&1; echo "exit $?"' | FileCheck %s --check-prefix=CPUTARGET
// CPUTARGET: attnc-run: error: --target=sm_90a needs --device=cuda
// CPUTARGET-NEXT: exit 2
// RUN: sh -c 'attnc-run %s --sizes="b=1 sq=64" --time=10 2>&1; echo "exit $?"' | FileCheck %s --check-prefix=CPUTIME
// CPUTIME: attnc-run: error: --time needs --device=cuda
// CPUTIME-NEXT: exit 2
// RUN: sh -c 'attnc-run %s --sizes="b=1 sq=64" --device=cuda --time=0 2>&1; echo "exit $?"' | FileCheck %s --check-prefix=TIME
// TIME: attnc-run: error: expected --time to be a number of runs in [1, 1000000], got 0
// TIME-NEXT: exit 2
// RUN: sh -c 'attnc-run %s --sizes="b=1 sq=64" --device=cuda --block-q=32 2>&1; echo "exit $?"' | FileCheck %s --check-prefix=TILES
// TILES: attnc-run: error: --block-q applies to --device=cpu only (the GPU kernel chooses its own tiles)
// TILES-NEXT: exit 2
// RUN: sh -c 'attnc-run %s --sizes="b=1 sq=64" --device=tpu 2>&1; echo "exit $?"' | FileCheck %s --check-prefix=DEVICE
// DEVICE: attnc-run: error: expected --device=cpu or --device=cuda, got tpu
// DEVICE-NEXT: exit 2

func.func @attention(%q: tensor<?x2x?x64xbf16>, %k: tensor<?x2x?x64xbf16>, %v: tensor<?x2x?x64xbf16>) -> tensor<?x2x?x64xbf16> {
  %o = attn.attention %q, %k, %v mask(#attn.causal) : tensor<?x2x?x64xbf16>, tensor<?x2x?x64xbf16>, tensor<?x2x?x64xbf16> -> tensor<?x2x?x64xbf16>
  return %o : tensor<?x2x?x64xbf16>
}
