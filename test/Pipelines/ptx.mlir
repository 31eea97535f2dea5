// The GPU pipeline: the kernel reaches PTX with its landmarks, and the PTX
// assembles with ptxas for sm_80 and sm_90a without spills.
// REQUIRES: ptxas
// RUN: attnc compile %s --target=sm_90a --emit=ptx -o %t.sm90.ptx
// RUN: FileCheck %s --input-file=%t.sm90.ptx
// RUN: %ptxas -arch=sm_90a -v %t.sm90.ptx -o %t.sm90.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS
// RUN: attnc compile %s --target=sm_80 --emit=ptx -o %t.sm80.ptx
// RUN: %ptxas -arch=sm_80 -v %t.sm80.ptx -o %t.sm80.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS
// RUN: attnc compile %s --target=sm_90a -o %t.attnc
// RUN: head -c 2000 %t.attnc | FileCheck %s --check-prefix=ARTIFACT

// CHECK: .target sm_90a
// CHECK: .entry attnc_attention(
// CHECK-DAG: bar.sync
// CHECK-DAG: mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32
// CHECK-DAG: shfl.sync.bfly.b32
// CHECK-DAG: ex2.approx
// CHECK-NOT: __nv_
// PTXAS: Compiling entry function 'attnc_attention'
// PTXAS: 0 bytes spill stores, 0 bytes spill loads
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
