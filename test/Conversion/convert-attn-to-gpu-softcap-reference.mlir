// RUN: attnc-opt %s --attn-choose-gpu-kernel=chip=sm_90a --attn-tile --attn-skip-masked-tiles --convert-attn-to-gpu --split-input-file 2>/dev/null | FileCheck %s

// A bf16 attention soft-capped at 30 (2 cap log2(e) = 86.6 <= 100): the
// wgmma kernel's softmax takes cap log2(e) = 43.28 as every row's reference,
// each weight exp2(s - 43.28), and takes no row maximum anywhere.
// CHECK-LABEL: gpu.func @attnc_attention(
// CHECK-NOT: arith.maximumf
// CHECK: %[[X:.*]] = arith.subf %{{.*}}, %cst{{[_0-9]*}} : f32
// CHECK-NEXT: llvm.call_intrinsic "llvm.nvvm.ex2.approx.ftz.f32"(%[[X]])
// CHECK-NOT: arith.maximumf
// CHECK: //{{ -----}}
func.func @capped(%q: tensor<?x16x?x128xbf16>, %k: tensor<?x16x?x128xbf16>) -> tensor<?x16x?x128xbf16> {
  %o = attn.attention %q, %k, %k mask(#attn.causal) softcap = 30.0 : tensor<?x16x?x128xbf16>, tensor<?x16x?x128xbf16>, tensor<?x16x?x128xbf16> -> tensor<?x16x?x128xbf16>
  return %o : tensor<?x16x?x128xbf16>
}

// -----

// At cap 50 the weights would reach 2^-144, past bf16's normal range: the
// row maximum stays.
// CHECK-LABEL: gpu.func @attnc_attention(
// CHECK: arith.maximumf
// CHECK: //{{ -----}}
func.func @wide_cap(%q: tensor<?x16x?x128xbf16>, %k: tensor<?x16x?x128xbf16>) -> tensor<?x16x?x128xbf16> {
  %o = attn.attention %q, %k, %k mask(#attn.causal) softcap = 50.0 : tensor<?x16x?x128xbf16>, tensor<?x16x?x128xbf16>, tensor<?x16x?x128xbf16> -> tensor<?x16x?x128xbf16>
  return %o : tensor<?x16x?x128xbf16>
}

// -----

// f16 weights (normal down to 2^-14 only) keep the row maximum at any cap.
// CHECK-LABEL: gpu.func @attnc_attention(
// CHECK: arith.maximumf
// CHECK: //{{ -----}}
func.func @f16(%q: tensor<?x16x?x128xf16>, %k: tensor<?x16x?x128xf16>) -> tensor<?x16x?x128xf16> {
  %o = attn.attention %q, %k, %k mask(#attn.causal) softcap = 30.0 : tensor<?x16x?x128xf16>, tensor<?x16x?x128xf16>, tensor<?x16x?x128xf16> -> tensor<?x16x?x128xf16>
  return %o : tensor<?x16x?x128xf16>
}

// -----

// A bias after the cap (ALiBi) unbounds the scores: the row maximum stays.
// CHECK-LABEL: gpu.func @attnc_attention(
// CHECK: arith.maximumf
func.func @alibi(%q: tensor<?x16x?x128xbf16>, %k: tensor<?x16x?x128xbf16>) -> tensor<?x16x?x128xbf16> {
  %o = attn.attention %q, %k, %k mask(#attn.causal) softcap = 30.0 alibi = [0.5, 0.25, 0.125, 0.0625, 0.03125, 0.015625, 0.0078125, 0.00390625, 0.001953125, 0.0009765625, 0.00048828125, 0.000244140625, 0.0001220703125, 6.103515625e-05, 3.0517578125e-05, 1.52587890625e-05] : tensor<?x16x?x128xbf16>, tensor<?x16x?x128xbf16>, tensor<?x16x?x128xbf16> -> tensor<?x16x?x128xbf16>
  return %o : tensor<?x16x?x128xbf16>
}
