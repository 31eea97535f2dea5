// The GPU pipeline: the kernel reaches PTX with its landmarks, and the PTX
// assembles with ptxas for sm_80 and sm_90a without spills; on sm_90a
// without ptxas serialising the warpgroup MMAs (warnings C7513-C7519) or
// ignoring a register request (C7508).
// REQUIRES: ptxas
// RUN: attnc compile %s --target=sm_90a --emit=ptx -o %t.sm90.ptx
// RUN: FileCheck %s --input-file=%t.sm90.ptx
// RUN: %ptxas -arch=sm_90a -v %t.sm90.ptx -o %t.sm90.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS
// RUN: %ptxas -arch=sm_90a -v %t.sm90.ptx -o %t.sm90.cubin 2>&1 | FileCheck %s --check-prefix=WGMMA-PTXAS
// RUN: attnc compile %s --target=sm_80 --emit=ptx -o %t.sm80.ptx
// RUN: FileCheck %s --input-file=%t.sm80.ptx --check-prefix=SM80
// RUN: FileCheck %s --input-file=%t.sm80.ptx --check-prefix=SM80-NOWGMMA
// RUN: %ptxas -arch=sm_80 -v %t.sm80.ptx -o %t.sm80.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS
// RUN: attnc compile %s --target=sm_90a --emit=ptx -o %t.fallback.ptx 2>&1 | FileCheck %s --check-prefix=NOFALLBACK
// RUN: attnc compile %s --target=sm_90a -o %t.attnc
// RUN: head -c 2000 %t.attnc | FileCheck %s --check-prefix=ARTIFACT

// sm_90a: the tensor maps arrive by value in the parameter space; the
// producer warpgroup gives its registers to the consumers (setmaxnreg); Q, K
// and V tiles come by TMA onto mbarriers; S = Q K^T and O += P V are warpgroup
// MMAs (m64nNk16: N keys for S, N = 64 value columns for O), fenced,
// committed and waited for (wait_group 1 while P V is in flight, then 0).
// CHECK: .target sm_90a
// CHECK: .entry attnc_attention(
// CHECK: .param .align 64 .b8 attnc_attention_param_37[128]
// CHECK-DAG: setmaxnreg.dec.sync.aligned.u32 24
// CHECK-DAG: setmaxnreg.inc.sync.aligned.u32
// CHECK-DAG: mbarrier.init.shared.b64
// CHECK-DAG: mbarrier.arrive.expect_tx.shared.b64
// CHECK-DAG: cp.async.bulk.tensor.4d.shared::cluster.global.tile.mbarrier::complete_tx::bytes
// CHECK-DAG: mbarrier.try_wait.parity.shared.b64
// CHECK-DAG: wgmma.fence.sync.aligned
// CHECK-DAG: wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16
// CHECK-DAG: wgmma.commit_group.sync.aligned
// CHECK-DAG: wgmma.wait_group.sync.aligned 0
// CHECK-DAG: wgmma.wait_group.sync.aligned 1
// CHECK-DAG: shfl.sync.bfly.b32
// CHECK-DAG: ex2.approx
// CHECK-NOT: __nv_
// SM80: .target sm_80
// SM80-DAG: mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32
// SM80-DAG: cp.async.cg.shared.global
// No warpgroup MMA anywhere in the sm_80 PTX (a FileCheck with only a
// CHECK-NOT searches the whole file).
// SM80-NOWGMMA-NOT: wgmma
// PTXAS: Compiling entry function 'attnc_attention'
// PTXAS: 0 bytes spill stores, 0 bytes spill loads
// WGMMA-PTXAS-NOT: C75{{0[0-9]|1[0-9]}}
// WGMMA-PTXAS: Compiling entry function 'attnc_attention'
// WGMMA-PTXAS-NOT: C75{{0[0-9]|1[0-9]}}
// Soft-capped at D = 64, the chosen configuration (three consumer
// warpgroups, 160 registers each) fits without spilling: no fallback (it
// spilled while s / cap was an IEEE division; test/Pipelines/
// ptx-fallback-registers.test covers the fallback itself).
// NOFALLBACK: remark: convert-attn-to-gpu: sm_90a kernel {{.*}} block_q = 192, block_k = 128, 12 warps
// NOFALLBACK-NOT: spills registers
// ARTIFACT: attnc-artifact 1
// ARTIFACT: kernel = attnc_attention
// ARTIFACT: target = sm_90a
// ARTIFACT: spec = b=1 hq=8 hkv=2 sq=128 sk=128 d=64 dv=64 dtype=bf16 scale=0.125 mask=causal softcap=30 lse=1
// ARTIFACT: reads_lse = 1
// ARTIFACT: params = q,k,v,o,lse,seq_ids,cu_seqlens,block_mask,alibi_slopes,batch,seq_q,seq_k,num_cu_seqlens,block_mask_b,block_mask_h
// ARTIFACT: section {{ptx|cubin}}

func.func @attention(%q: tensor<?x8x?x64xbf16>, %k: tensor<?x2x?x64xbf16>, %v: tensor<?x2x?x64xbf16>) -> (tensor<?x8x?x64xbf16>, tensor<?x8x?xf32>) {
  %o, %lse = attn.attention %q, %k, %v mask(#attn.causal) softcap = 30.0 : tensor<?x8x?x64xbf16>, tensor<?x2x?x64xbf16>, tensor<?x2x?x64xbf16> -> tensor<?x8x?x64xbf16>, tensor<?x8x?xf32>
  return %o, %lse : tensor<?x8x?x64xbf16>, tensor<?x8x?xf32>
}
