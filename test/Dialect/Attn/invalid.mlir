// Every diagnostic of the attn.attention verifier and of the attn attribute
// parsers and verifiers, one case each.
// RUN: attnc-opt %s -split-input-file -verify-diagnostics

// query must have rank 4
func.func @query_rank(%q: tensor<2x8x64xf16>, %k: tensor<2x2x16x64xf16>, %v: tensor<2x2x16x64xf16>) -> tensor<2x8x16x64xf16> {
  // expected-error @+1 {{'attn.attention' op expected query to have rank 4 ([B, Hq, Sq, D]), got rank 3}}
  %o = attn.attention %q, %k, %v : tensor<2x8x64xf16>, tensor<2x2x16x64xf16>, tensor<2x2x16x64xf16> -> tensor<2x8x16x64xf16>
  return %o : tensor<2x8x16x64xf16>
}

// -----

// query element type fp8 e4m3 is rejected with its own message
func.func @query_fp8(%q: tensor<2x8x16x64xf8E4M3FN>, %k: tensor<2x2x16x64xf16>, %v: tensor<2x2x16x64xf16>) -> tensor<2x8x16x64xf16> {
  // expected-error @+1 {{'attn.attention' op expected query element type bf16, f16 or f32: fp8 e4m3 ('f8E4M3FN') is not yet supported}}
  %o = attn.attention %q, %k, %v : tensor<2x8x16x64xf8E4M3FN>, tensor<2x2x16x64xf16>, tensor<2x2x16x64xf16> -> tensor<2x8x16x64xf16>
  return %o : tensor<2x8x16x64xf16>
}

// -----

// query element type must be bf16, f16 or f32
func.func @query_elt(%q: tensor<2x8x16x64xi32>, %k: tensor<2x2x16x64xf16>, %v: tensor<2x2x16x64xf16>) -> tensor<2x8x16x64xf16> {
  // expected-error @+1 {{'attn.attention' op expected query element type bf16, f16 or f32, got 'i32'}}
  %o = attn.attention %q, %k, %v : tensor<2x8x16x64xi32>, tensor<2x2x16x64xf16>, tensor<2x2x16x64xf16> -> tensor<2x8x16x64xf16>
  return %o : tensor<2x8x16x64xf16>
}

// -----

// key must have rank 4
func.func @key_rank(%q: tensor<2x8x16x64xf16>, %k: tensor<2x2x64xf16>, %v: tensor<2x2x16x64xf16>) -> tensor<2x8x16x64xf16> {
  // expected-error @+1 {{'attn.attention' op expected key to have rank 4 ([B, Hkv, Sk, D]), got rank 3}}
  %o = attn.attention %q, %k, %v : tensor<2x8x16x64xf16>, tensor<2x2x64xf16>, tensor<2x2x16x64xf16> -> tensor<2x8x16x64xf16>
  return %o : tensor<2x8x16x64xf16>
}

// -----

// key element type fp8 e4m3 without kv_scales is rejected with its own message
func.func @key_fp8(%q: tensor<2x8x16x64xf16>, %k: tensor<2x2x16x64xf8E4M3FN>, %v: tensor<2x2x16x64xf16>) -> tensor<2x8x16x64xf16> {
  // expected-error @+1 {{'attn.attention' op expected key element type bf16, f16 or f32, or fp8 e4m3 ('f8E4M3FN') with a kv_scales operand}}
  %o = attn.attention %q, %k, %v : tensor<2x8x16x64xf16>, tensor<2x2x16x64xf8E4M3FN>, tensor<2x2x16x64xf16> -> tensor<2x8x16x64xf16>
  return %o : tensor<2x8x16x64xf16>
}

// -----

// key element type must be bf16, f16 or f32
func.func @key_elt(%q: tensor<2x8x16x64xf16>, %k: tensor<2x2x16x64xi32>, %v: tensor<2x2x16x64xf16>) -> tensor<2x8x16x64xf16> {
  // expected-error @+1 {{'attn.attention' op expected key element type bf16, f16 or f32, got 'i32'}}
  %o = attn.attention %q, %k, %v : tensor<2x8x16x64xf16>, tensor<2x2x16x64xi32>, tensor<2x2x16x64xf16> -> tensor<2x8x16x64xf16>
  return %o : tensor<2x8x16x64xf16>
}

// -----

// value must have rank 4
func.func @value_rank(%q: tensor<2x8x16x64xf16>, %k: tensor<2x2x16x64xf16>, %v: tensor<2x2x64xf16>) -> tensor<2x8x16x64xf16> {
  // expected-error @+1 {{'attn.attention' op expected value to have rank 4 ([B, Hkv, Sk, Dv]), got rank 3}}
  %o = attn.attention %q, %k, %v : tensor<2x8x16x64xf16>, tensor<2x2x16x64xf16>, tensor<2x2x64xf16> -> tensor<2x8x16x64xf16>
  return %o : tensor<2x8x16x64xf16>
}

// -----

// value element type fp8 e4m3 without kv_scales is rejected with its own message
func.func @value_fp8(%q: tensor<2x8x16x64xf16>, %k: tensor<2x2x16x64xf16>, %v: tensor<2x2x16x64xf8E4M3FN>) -> tensor<2x8x16x64xf16> {
  // expected-error @+1 {{'attn.attention' op expected value element type bf16, f16 or f32, or fp8 e4m3 ('f8E4M3FN') with a kv_scales operand}}
  %o = attn.attention %q, %k, %v : tensor<2x8x16x64xf16>, tensor<2x2x16x64xf16>, tensor<2x2x16x64xf8E4M3FN> -> tensor<2x8x16x64xf16>
  return %o : tensor<2x8x16x64xf16>
}

// -----

// value element type must be bf16, f16 or f32
func.func @value_elt(%q: tensor<2x8x16x64xf16>, %k: tensor<2x2x16x64xf16>, %v: tensor<2x2x16x64xi32>) -> tensor<2x8x16x64xf16> {
  // expected-error @+1 {{'attn.attention' op expected value element type bf16, f16 or f32, got 'i32'}}
  %o = attn.attention %q, %k, %v : tensor<2x8x16x64xf16>, tensor<2x2x16x64xf16>, tensor<2x2x16x64xi32> -> tensor<2x8x16x64xf16>
  return %o : tensor<2x8x16x64xf16>
}

// -----

// key element type must match the query's
func.func @key_elt_mismatch(%q: tensor<2x8x16x64xf16>, %k: tensor<2x2x16x64xbf16>, %v: tensor<2x2x16x64xf16>) -> tensor<2x8x16x64xf16> {
  // expected-error @+1 {{'attn.attention' op expected key element type 'bf16' to match query element type 'f16'}}
  %o = attn.attention %q, %k, %v : tensor<2x8x16x64xf16>, tensor<2x2x16x64xbf16>, tensor<2x2x16x64xf16> -> tensor<2x8x16x64xf16>
  return %o : tensor<2x8x16x64xf16>
}

// -----

// value element type must match the query's
func.func @value_elt_mismatch(%q: tensor<2x8x16x64xf16>, %k: tensor<2x2x16x64xf16>, %v: tensor<2x2x16x64xf32>) -> tensor<2x8x16x64xf16> {
  // expected-error @+1 {{'attn.attention' op expected value element type 'f32' to match query element type 'f16'}}
  %o = attn.attention %q, %k, %v : tensor<2x8x16x64xf16>, tensor<2x2x16x64xf16>, tensor<2x2x16x64xf32> -> tensor<2x8x16x64xf16>
  return %o : tensor<2x8x16x64xf16>
}

// -----

// query head count must be static
func.func @query_heads_dynamic(%q: tensor<2x?x16x64xf16>, %k: tensor<2x2x16x64xf16>, %v: tensor<2x2x16x64xf16>) -> tensor<2x?x16x64xf16> {
  // expected-error @+1 {{'attn.attention' op expected query head count (dim 1) to be static}}
  %o = attn.attention %q, %k, %v : tensor<2x?x16x64xf16>, tensor<2x2x16x64xf16>, tensor<2x2x16x64xf16> -> tensor<2x?x16x64xf16>
  return %o : tensor<2x?x16x64xf16>
}

// -----

// key head count must be static
func.func @key_heads_dynamic(%q: tensor<2x8x16x64xf16>, %k: tensor<2x?x16x64xf16>, %v: tensor<2x2x16x64xf16>) -> tensor<2x8x16x64xf16> {
  // expected-error @+1 {{'attn.attention' op expected key head count (dim 1) to be static}}
  %o = attn.attention %q, %k, %v : tensor<2x8x16x64xf16>, tensor<2x?x16x64xf16>, tensor<2x2x16x64xf16> -> tensor<2x8x16x64xf16>
  return %o : tensor<2x8x16x64xf16>
}

// -----

// query head dim must be static
func.func @query_head_dim_dynamic(%q: tensor<2x8x16x?xf16>, %k: tensor<2x2x16x64xf16>, %v: tensor<2x2x16x64xf16>) -> tensor<2x8x16x?xf16> {
  // expected-error @+1 {{'attn.attention' op expected query head dim (dim 3) to be static}}
  %o = attn.attention %q, %k, %v : tensor<2x8x16x?xf16>, tensor<2x2x16x64xf16>, tensor<2x2x16x64xf16> -> tensor<2x8x16x?xf16>
  return %o : tensor<2x8x16x?xf16>
}

// -----

// value head dim must be static
func.func @value_head_dim_dynamic(%q: tensor<2x8x16x64xf16>, %k: tensor<2x2x16x64xf16>, %v: tensor<2x2x16x?xf16>) -> tensor<2x8x16x?xf16> {
  // expected-error @+1 {{'attn.attention' op expected value head dim (dim 3) to be static}}
  %o = attn.attention %q, %k, %v : tensor<2x8x16x64xf16>, tensor<2x2x16x64xf16>, tensor<2x2x16x?xf16> -> tensor<2x8x16x?xf16>
  return %o : tensor<2x8x16x?xf16>
}

// -----

// key head dim must match query head dim
func.func @key_head_dim(%q: tensor<2x8x16x64xf16>, %k: tensor<2x2x16x32xf16>, %v: tensor<2x2x16x64xf16>) -> tensor<2x8x16x64xf16> {
  // expected-error @+1 {{'attn.attention' op expected key head dim 32 to match query head dim 64}}
  %o = attn.attention %q, %k, %v : tensor<2x8x16x64xf16>, tensor<2x2x16x32xf16>, tensor<2x2x16x64xf16> -> tensor<2x8x16x64xf16>
  return %o : tensor<2x8x16x64xf16>
}

// -----

// key batch must match query batch
func.func @key_batch(%q: tensor<2x8x16x64xf16>, %k: tensor<3x2x16x64xf16>, %v: tensor<2x2x16x64xf16>) -> tensor<2x8x16x64xf16> {
  // expected-error @+1 {{'attn.attention' op expected key batch 3 to match query batch 2}}
  %o = attn.attention %q, %k, %v : tensor<2x8x16x64xf16>, tensor<3x2x16x64xf16>, tensor<2x2x16x64xf16> -> tensor<2x8x16x64xf16>
  return %o : tensor<2x8x16x64xf16>
}

// -----

// value batch must match query batch
func.func @value_batch(%q: tensor<2x8x16x64xf16>, %k: tensor<2x2x16x64xf16>, %v: tensor<3x2x16x64xf16>) -> tensor<2x8x16x64xf16> {
  // expected-error @+1 {{'attn.attention' op expected value batch 3 to match query batch 2}}
  %o = attn.attention %q, %k, %v : tensor<2x8x16x64xf16>, tensor<2x2x16x64xf16>, tensor<3x2x16x64xf16> -> tensor<2x8x16x64xf16>
  return %o : tensor<2x8x16x64xf16>
}

// -----

// value head count must match key head count
func.func @value_heads(%q: tensor<2x8x16x64xf16>, %k: tensor<2x2x16x64xf16>, %v: tensor<2x4x16x64xf16>) -> tensor<2x8x16x64xf16> {
  // expected-error @+1 {{'attn.attention' op expected value head count 4 to match key head count 2}}
  %o = attn.attention %q, %k, %v : tensor<2x8x16x64xf16>, tensor<2x2x16x64xf16>, tensor<2x4x16x64xf16> -> tensor<2x8x16x64xf16>
  return %o : tensor<2x8x16x64xf16>
}

// -----

// value sequence length must match key sequence length
func.func @value_seq(%q: tensor<2x8x16x64xf16>, %k: tensor<2x2x16x64xf16>, %v: tensor<2x2x8x64xf16>) -> tensor<2x8x16x64xf16> {
  // expected-error @+1 {{'attn.attention' op expected value sequence length 8 to match key sequence length 16}}
  %o = attn.attention %q, %k, %v : tensor<2x8x16x64xf16>, tensor<2x2x16x64xf16>, tensor<2x2x8x64xf16> -> tensor<2x8x16x64xf16>
  return %o : tensor<2x8x16x64xf16>
}

// -----

// query head count must be a multiple of key head count (GQA)
func.func @gqa_multiple(%q: tensor<2x8x16x64xf16>, %k: tensor<2x3x16x64xf16>, %v: tensor<2x3x16x64xf16>) -> tensor<2x8x16x64xf16> {
  // expected-error @+1 {{'attn.attention' op expected query head count 8 to be a multiple of key head count 3}}
  %o = attn.attention %q, %k, %v : tensor<2x8x16x64xf16>, tensor<2x3x16x64xf16>, tensor<2x3x16x64xf16> -> tensor<2x8x16x64xf16>
  return %o : tensor<2x8x16x64xf16>
}

// -----

// output must have rank 4
func.func @output_rank(%q: tensor<2x8x16x64xf16>, %k: tensor<2x2x16x64xf16>, %v: tensor<2x2x16x64xf16>) -> tensor<2x8x16xf16> {
  // expected-error @+1 {{'attn.attention' op expected output to have rank 4 ([B, Hq, Sq, Dv]), got rank 3}}
  %o = attn.attention %q, %k, %v : tensor<2x8x16x64xf16>, tensor<2x2x16x64xf16>, tensor<2x2x16x64xf16> -> tensor<2x8x16xf16>
  return %o : tensor<2x8x16xf16>
}

// -----

// output element type must match the query's
func.func @output_elt(%q: tensor<2x8x16x64xf16>, %k: tensor<2x2x16x64xf16>, %v: tensor<2x2x16x64xf16>) -> tensor<2x8x16x64xf32> {
  // expected-error @+1 {{'attn.attention' op expected output element type 'f32' to match query element type 'f16'}}
  %o = attn.attention %q, %k, %v : tensor<2x8x16x64xf16>, tensor<2x2x16x64xf16>, tensor<2x2x16x64xf16> -> tensor<2x8x16x64xf32>
  return %o : tensor<2x8x16x64xf32>
}

// -----

// output batch must match query batch
func.func @output_batch(%q: tensor<2x8x16x64xf16>, %k: tensor<2x2x16x64xf16>, %v: tensor<2x2x16x64xf16>) -> tensor<1x8x16x64xf16> {
  // expected-error @+1 {{'attn.attention' op expected output batch 1 to match query batch 2}}
  %o = attn.attention %q, %k, %v : tensor<2x8x16x64xf16>, tensor<2x2x16x64xf16>, tensor<2x2x16x64xf16> -> tensor<1x8x16x64xf16>
  return %o : tensor<1x8x16x64xf16>
}

// -----

// output head count must match query head count
func.func @output_heads(%q: tensor<2x8x16x64xf16>, %k: tensor<2x2x16x64xf16>, %v: tensor<2x2x16x64xf16>) -> tensor<2x2x16x64xf16> {
  // expected-error @+1 {{'attn.attention' op expected output head count 2 to match query head count 8}}
  %o = attn.attention %q, %k, %v : tensor<2x8x16x64xf16>, tensor<2x2x16x64xf16>, tensor<2x2x16x64xf16> -> tensor<2x2x16x64xf16>
  return %o : tensor<2x2x16x64xf16>
}

// -----

// output sequence length must match query sequence length
func.func @output_seq(%q: tensor<2x8x16x64xf16>, %k: tensor<2x2x16x64xf16>, %v: tensor<2x2x16x64xf16>) -> tensor<2x8x32x64xf16> {
  // expected-error @+1 {{'attn.attention' op expected output sequence length 32 to match query sequence length 16}}
  %o = attn.attention %q, %k, %v : tensor<2x8x16x64xf16>, tensor<2x2x16x64xf16>, tensor<2x2x16x64xf16> -> tensor<2x8x32x64xf16>
  return %o : tensor<2x8x32x64xf16>
}

// -----

// output head dim must match value head dim
func.func @output_head_dim(%q: tensor<2x8x16x64xf16>, %k: tensor<2x2x16x64xf16>, %v: tensor<2x2x16x96xf16>) -> tensor<2x8x16x64xf16> {
  // expected-error @+1 {{'attn.attention' op expected output head dim 64 to match value head dim 96}}
  %o = attn.attention %q, %k, %v : tensor<2x8x16x64xf16>, tensor<2x2x16x64xf16>, tensor<2x2x16x96xf16> -> tensor<2x8x16x64xf16>
  return %o : tensor<2x8x16x64xf16>
}

// -----

// lse must have rank 3
func.func @lse_rank(%q: tensor<2x8x16x64xf16>, %k: tensor<2x2x16x64xf16>, %v: tensor<2x2x16x64xf16>) -> (tensor<2x8x16x64xf16>, tensor<2x8x16x1xf32>) {
  // expected-error @+1 {{'attn.attention' op expected lse to have rank 3 ([B, Hq, Sq]), got rank 4}}
  %o, %l = attn.attention %q, %k, %v : tensor<2x8x16x64xf16>, tensor<2x2x16x64xf16>, tensor<2x2x16x64xf16> -> tensor<2x8x16x64xf16>, tensor<2x8x16x1xf32>
  return %o, %l : tensor<2x8x16x64xf16>, tensor<2x8x16x1xf32>
}

// -----

// lse element type must be f32
func.func @lse_elt(%q: tensor<2x8x16x64xf16>, %k: tensor<2x2x16x64xf16>, %v: tensor<2x2x16x64xf16>) -> (tensor<2x8x16x64xf16>, tensor<2x8x16xf16>) {
  // expected-error @+1 {{'attn.attention' op expected lse element type f32, got 'f16'}}
  %o, %l = attn.attention %q, %k, %v : tensor<2x8x16x64xf16>, tensor<2x2x16x64xf16>, tensor<2x2x16x64xf16> -> tensor<2x8x16x64xf16>, tensor<2x8x16xf16>
  return %o, %l : tensor<2x8x16x64xf16>, tensor<2x8x16xf16>
}

// -----

// lse batch must match query batch
func.func @lse_batch(%q: tensor<2x8x16x64xf16>, %k: tensor<2x2x16x64xf16>, %v: tensor<2x2x16x64xf16>) -> (tensor<2x8x16x64xf16>, tensor<4x8x16xf32>) {
  // expected-error @+1 {{'attn.attention' op expected lse batch 4 to match query batch 2}}
  %o, %l = attn.attention %q, %k, %v : tensor<2x8x16x64xf16>, tensor<2x2x16x64xf16>, tensor<2x2x16x64xf16> -> tensor<2x8x16x64xf16>, tensor<4x8x16xf32>
  return %o, %l : tensor<2x8x16x64xf16>, tensor<4x8x16xf32>
}

// -----

// lse head count must match query head count
func.func @lse_heads(%q: tensor<2x8x16x64xf16>, %k: tensor<2x2x16x64xf16>, %v: tensor<2x2x16x64xf16>) -> (tensor<2x8x16x64xf16>, tensor<2x2x16xf32>) {
  // expected-error @+1 {{'attn.attention' op expected lse head count 2 to match query head count 8}}
  %o, %l = attn.attention %q, %k, %v : tensor<2x8x16x64xf16>, tensor<2x2x16x64xf16>, tensor<2x2x16x64xf16> -> tensor<2x8x16x64xf16>, tensor<2x2x16xf32>
  return %o, %l : tensor<2x8x16x64xf16>, tensor<2x2x16xf32>
}

// -----

// lse sequence length must match query sequence length
func.func @lse_seq(%q: tensor<2x8x16x64xf16>, %k: tensor<2x2x16x64xf16>, %v: tensor<2x2x16x64xf16>) -> (tensor<2x8x16x64xf16>, tensor<2x8x17xf32>) {
  // expected-error @+1 {{'attn.attention' op expected lse sequence length 17 to match query sequence length 16}}
  %o, %l = attn.attention %q, %k, %v : tensor<2x8x16x64xf16>, tensor<2x2x16x64xf16>, tensor<2x2x16x64xf16> -> tensor<2x8x16x64xf16>, tensor<2x8x17xf32>
  return %o, %l : tensor<2x8x16x64xf16>, tensor<2x8x17xf32>
}

// -----

// scale must be finite and positive
func.func @scale_nonpositive(%q: tensor<2x8x16x64xf16>, %k: tensor<2x2x16x64xf16>, %v: tensor<2x2x16x64xf16>) -> tensor<2x8x16x64xf16> {
  // expected-error @+1 {{'attn.attention' op expected scale to be finite and positive, got 0}}
  %o = attn.attention %q, %k, %v scale = 0.0 : tensor<2x8x16x64xf16>, tensor<2x2x16x64xf16>, tensor<2x2x16x64xf16> -> tensor<2x8x16x64xf16>
  return %o : tensor<2x8x16x64xf16>
}

// -----

// softcap must be finite and positive
func.func @softcap_negative(%q: tensor<2x8x16x64xf16>, %k: tensor<2x2x16x64xf16>, %v: tensor<2x2x16x64xf16>) -> tensor<2x8x16x64xf16> {
  // expected-error @+1 {{'attn.attention' op expected softcap to be finite and positive, got -1}}
  %o = attn.attention %q, %k, %v softcap = -1.0 : tensor<2x8x16x64xf16>, tensor<2x2x16x64xf16>, tensor<2x2x16x64xf16> -> tensor<2x8x16x64xf16>
  return %o : tensor<2x8x16x64xf16>
}

// -----

// alibi attribute and alibi_slopes operand are exclusive
func.func @alibi_both(%q: tensor<2x8x16x64xf16>, %k: tensor<2x2x16x64xf16>, %v: tensor<2x2x16x64xf16>, %s: tensor<8xf32>) -> tensor<2x8x16x64xf16> {
  // expected-error @+1 {{'attn.attention' op expected at most one of the alibi attribute and the alibi_slopes operand}}
  %o = attn.attention %q, %k, %v alibi_slopes(%s : tensor<8xf32>) alibi = [1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0] : tensor<2x8x16x64xf16>, tensor<2x2x16x64xf16>, tensor<2x2x16x64xf16> -> tensor<2x8x16x64xf16>
  return %o : tensor<2x8x16x64xf16>
}

// -----

// alibi attribute needs one slope per query head
func.func @alibi_size(%q: tensor<2x8x16x64xf16>, %k: tensor<2x2x16x64xf16>, %v: tensor<2x2x16x64xf16>) -> tensor<2x8x16x64xf16> {
  // expected-error @+1 {{'attn.attention' op expected alibi to hold one slope per query head (8), got 2}}
  %o = attn.attention %q, %k, %v alibi = [0.5, 0.25] : tensor<2x8x16x64xf16>, tensor<2x2x16x64xf16>, tensor<2x2x16x64xf16> -> tensor<2x8x16x64xf16>
  return %o : tensor<2x8x16x64xf16>
}

// -----

// alibi_slopes must have rank 1
func.func @alibi_slopes_rank(%q: tensor<2x8x16x64xf16>, %k: tensor<2x2x16x64xf16>, %v: tensor<2x2x16x64xf16>, %s: tensor<8x1xf32>) -> tensor<2x8x16x64xf16> {
  // expected-error @+1 {{'attn.attention' op expected alibi_slopes to have rank 1 ([Hq]), got rank 2}}
  %o = attn.attention %q, %k, %v alibi_slopes(%s : tensor<8x1xf32>) : tensor<2x8x16x64xf16>, tensor<2x2x16x64xf16>, tensor<2x2x16x64xf16> -> tensor<2x8x16x64xf16>
  return %o : tensor<2x8x16x64xf16>
}

// -----

// alibi_slopes element type must be f32
func.func @alibi_slopes_elt(%q: tensor<2x8x16x64xf16>, %k: tensor<2x2x16x64xf16>, %v: tensor<2x2x16x64xf16>, %s: tensor<8xf16>) -> tensor<2x8x16x64xf16> {
  // expected-error @+1 {{'attn.attention' op expected alibi_slopes element type 'f32', got 'f16'}}
  %o = attn.attention %q, %k, %v alibi_slopes(%s : tensor<8xf16>) : tensor<2x8x16x64xf16>, tensor<2x2x16x64xf16>, tensor<2x2x16x64xf16> -> tensor<2x8x16x64xf16>
  return %o : tensor<2x8x16x64xf16>
}

// -----

// alibi_slopes length must match query head count
func.func @alibi_slopes_length(%q: tensor<2x8x16x64xf16>, %k: tensor<2x2x16x64xf16>, %v: tensor<2x2x16x64xf16>, %s: tensor<4xf32>) -> tensor<2x8x16x64xf16> {
  // expected-error @+1 {{'attn.attention' op expected alibi_slopes length 4 to match query head count 8}}
  %o = attn.attention %q, %k, %v alibi_slopes(%s : tensor<4xf32>) : tensor<2x8x16x64xf16>, tensor<2x2x16x64xf16>, tensor<2x2x16x64xf16> -> tensor<2x8x16x64xf16>
  return %o : tensor<2x8x16x64xf16>
}

// -----

// a mask attribute and a mask_fn region are exclusive
func.func @mask_and_mask_fn(%q: tensor<2x8x16x64xf16>, %k: tensor<2x2x16x64xf16>, %v: tensor<2x2x16x64xf16>) -> tensor<2x8x16x64xf16> {
  // expected-error @+1 {{'attn.attention' op expected either a mask attribute or a mask_fn region, not both}}
  %o = attn.attention %q, %k, %v mask(#attn.causal) mask_fn {
  ^bb0(%b: index, %h: index, %i: index, %j: index):
    %c = arith.cmpi uge, %i, %j : index
    attn.yield %c : i1
  } : tensor<2x8x16x64xf16>, tensor<2x2x16x64xf16>, tensor<2x2x16x64xf16> -> tensor<2x8x16x64xf16>
  return %o : tensor<2x8x16x64xf16>
}

// -----

// document<seq_ids> needs a seq_ids operand
func.func @missing_seq_ids(%q: tensor<2x8x16x64xf16>, %k: tensor<2x2x16x64xf16>, %v: tensor<2x2x16x64xf16>) -> tensor<2x8x16x64xf16> {
  // expected-error @+1 {{'attn.attention' op expected a seq_ids operand for mask #attn.document<seq_ids>}}
  %o = attn.attention %q, %k, %v mask(#attn.document<seq_ids>) : tensor<2x8x16x64xf16>, tensor<2x2x16x64xf16>, tensor<2x2x16x64xf16> -> tensor<2x8x16x64xf16>
  return %o : tensor<2x8x16x64xf16>
}

// -----

// document<cu_seqlens> needs a cu_seqlens operand
func.func @missing_cu_seqlens(%q: tensor<2x8x16x64xf16>, %k: tensor<2x2x16x64xf16>, %v: tensor<2x2x16x64xf16>) -> tensor<2x8x16x64xf16> {
  // expected-error @+1 {{'attn.attention' op expected a cu_seqlens operand for mask #attn.document<cu_seqlens, causal>}}
  %o = attn.attention %q, %k, %v mask(#attn.document<cu_seqlens, causal>) : tensor<2x8x16x64xf16>, tensor<2x2x16x64xf16>, tensor<2x2x16x64xf16> -> tensor<2x8x16x64xf16>
  return %o : tensor<2x8x16x64xf16>
}

// -----

// block_sparse needs a block_mask operand
func.func @missing_block_mask(%q: tensor<2x8x16x64xf16>, %k: tensor<2x2x16x64xf16>, %v: tensor<2x2x16x64xf16>) -> tensor<2x8x16x64xf16> {
  // expected-error @+1 {{'attn.attention' op expected a block_mask operand for mask #attn.block_sparse<block_q = 16, block_k = 16>}}
  %o = attn.attention %q, %k, %v mask(#attn.block_sparse<block_q = 16, block_k = 16>) : tensor<2x8x16x64xf16>, tensor<2x2x16x64xf16>, tensor<2x2x16x64xf16> -> tensor<2x8x16x64xf16>
  return %o : tensor<2x8x16x64xf16>
}

// -----

// a seq_ids operand without a mask that reads it
func.func @stray_seq_ids(%q: tensor<2x8x16x64xf16>, %k: tensor<2x2x16x64xf16>, %v: tensor<2x2x16x64xf16>, %ids: tensor<2x16xi32>) -> tensor<2x8x16x64xf16> {
  // expected-error @+1 {{'attn.attention' op expected no seq_ids operand: mask none does not read it}}
  %o = attn.attention %q, %k, %v seq_ids(%ids : tensor<2x16xi32>) : tensor<2x8x16x64xf16>, tensor<2x2x16x64xf16>, tensor<2x2x16x64xf16> -> tensor<2x8x16x64xf16>
  return %o : tensor<2x8x16x64xf16>
}

// -----

// a cu_seqlens operand with a mask that does not read it
func.func @stray_cu_seqlens(%q: tensor<2x8x16x64xf16>, %k: tensor<2x2x16x64xf16>, %v: tensor<2x2x16x64xf16>, %cu: tensor<3xi32>) -> tensor<2x8x16x64xf16> {
  // expected-error @+1 {{'attn.attention' op expected no cu_seqlens operand: mask #attn.causal does not read it}}
  %o = attn.attention %q, %k, %v cu_seqlens(%cu : tensor<3xi32>) mask(#attn.causal) : tensor<2x8x16x64xf16>, tensor<2x2x16x64xf16>, tensor<2x2x16x64xf16> -> tensor<2x8x16x64xf16>
  return %o : tensor<2x8x16x64xf16>
}

// -----

// a block_mask operand with a mask_fn region
func.func @stray_block_mask(%q: tensor<2x8x16x64xf16>, %k: tensor<2x2x16x64xf16>, %v: tensor<2x2x16x64xf16>, %bm: tensor<1x1x1x1xi8>) -> tensor<2x8x16x64xf16> {
  // expected-error @+1 {{'attn.attention' op expected no block_mask operand: mask mask_fn does not read it}}
  %o = attn.attention %q, %k, %v block_mask(%bm : tensor<1x1x1x1xi8>) mask_fn {
  ^bb0(%b: index, %h: index, %i: index, %j: index):
    %c = arith.cmpi uge, %i, %j : index
    attn.yield %c : i1
  } : tensor<2x8x16x64xf16>, tensor<2x2x16x64xf16>, tensor<2x2x16x64xf16> -> tensor<2x8x16x64xf16>
  return %o : tensor<2x8x16x64xf16>
}

// -----

// seq_ids must have rank 2
func.func @seq_ids_rank(%q: tensor<2x8x16x64xf16>, %k: tensor<2x2x16x64xf16>, %v: tensor<2x2x16x64xf16>, %ids: tensor<16xi32>) -> tensor<2x8x16x64xf16> {
  // expected-error @+1 {{'attn.attention' op expected seq_ids to have rank 2 ([B, Sk]), got rank 1}}
  %o = attn.attention %q, %k, %v seq_ids(%ids : tensor<16xi32>) mask(#attn.document<seq_ids>) : tensor<2x8x16x64xf16>, tensor<2x2x16x64xf16>, tensor<2x2x16x64xf16> -> tensor<2x8x16x64xf16>
  return %o : tensor<2x8x16x64xf16>
}

// -----

// seq_ids element type must be i32
func.func @seq_ids_elt(%q: tensor<2x8x16x64xf16>, %k: tensor<2x2x16x64xf16>, %v: tensor<2x2x16x64xf16>, %ids: tensor<2x16xi64>) -> tensor<2x8x16x64xf16> {
  // expected-error @+1 {{'attn.attention' op expected seq_ids element type 'i32', got 'i64'}}
  %o = attn.attention %q, %k, %v seq_ids(%ids : tensor<2x16xi64>) mask(#attn.document<seq_ids>) : tensor<2x8x16x64xf16>, tensor<2x2x16x64xf16>, tensor<2x2x16x64xf16> -> tensor<2x8x16x64xf16>
  return %o : tensor<2x8x16x64xf16>
}

// -----

// seq_ids batch must match query batch
func.func @seq_ids_batch(%q: tensor<2x8x16x64xf16>, %k: tensor<2x2x16x64xf16>, %v: tensor<2x2x16x64xf16>, %ids: tensor<1x16xi32>) -> tensor<2x8x16x64xf16> {
  // expected-error @+1 {{'attn.attention' op expected seq_ids batch 1 to match query batch 2}}
  %o = attn.attention %q, %k, %v seq_ids(%ids : tensor<1x16xi32>) mask(#attn.document<seq_ids>) : tensor<2x8x16x64xf16>, tensor<2x2x16x64xf16>, tensor<2x2x16x64xf16> -> tensor<2x8x16x64xf16>
  return %o : tensor<2x8x16x64xf16>
}

// -----

// seq_ids length must match key sequence length
func.func @seq_ids_length(%q: tensor<2x8x16x64xf16>, %k: tensor<2x2x16x64xf16>, %v: tensor<2x2x16x64xf16>, %ids: tensor<2x15xi32>) -> tensor<2x8x16x64xf16> {
  // expected-error @+1 {{'attn.attention' op expected seq_ids length 15 to match key sequence length 16}}
  %o = attn.attention %q, %k, %v seq_ids(%ids : tensor<2x15xi32>) mask(#attn.document<seq_ids>) : tensor<2x8x16x64xf16>, tensor<2x2x16x64xf16>, tensor<2x2x16x64xf16> -> tensor<2x8x16x64xf16>
  return %o : tensor<2x8x16x64xf16>
}

// -----

// cu_seqlens must have rank 1
func.func @cu_seqlens_rank(%q: tensor<2x8x16x64xf16>, %k: tensor<2x2x16x64xf16>, %v: tensor<2x2x16x64xf16>, %cu: tensor<1x3xi32>) -> tensor<2x8x16x64xf16> {
  // expected-error @+1 {{'attn.attention' op expected cu_seqlens to have rank 1 ([N + 1]), got rank 2}}
  %o = attn.attention %q, %k, %v cu_seqlens(%cu : tensor<1x3xi32>) mask(#attn.document<cu_seqlens>) : tensor<2x8x16x64xf16>, tensor<2x2x16x64xf16>, tensor<2x2x16x64xf16> -> tensor<2x8x16x64xf16>
  return %o : tensor<2x8x16x64xf16>
}

// -----

// cu_seqlens element type must be i32
func.func @cu_seqlens_elt(%q: tensor<2x8x16x64xf16>, %k: tensor<2x2x16x64xf16>, %v: tensor<2x2x16x64xf16>, %cu: tensor<3xindex>) -> tensor<2x8x16x64xf16> {
  // expected-error @+1 {{'attn.attention' op expected cu_seqlens element type 'i32', got 'index'}}
  %o = attn.attention %q, %k, %v cu_seqlens(%cu : tensor<3xindex>) mask(#attn.document<cu_seqlens>) : tensor<2x8x16x64xf16>, tensor<2x2x16x64xf16>, tensor<2x2x16x64xf16> -> tensor<2x8x16x64xf16>
  return %o : tensor<2x8x16x64xf16>
}

// -----

// cu_seqlens must hold at least two offsets
func.func @cu_seqlens_short(%q: tensor<2x8x16x64xf16>, %k: tensor<2x2x16x64xf16>, %v: tensor<2x2x16x64xf16>, %cu: tensor<1xi32>) -> tensor<2x8x16x64xf16> {
  // expected-error @+1 {{'attn.attention' op expected cu_seqlens to hold at least 2 offsets (one document), got 1}}
  %o = attn.attention %q, %k, %v cu_seqlens(%cu : tensor<1xi32>) mask(#attn.document<cu_seqlens>) : tensor<2x8x16x64xf16>, tensor<2x2x16x64xf16>, tensor<2x2x16x64xf16> -> tensor<2x8x16x64xf16>
  return %o : tensor<2x8x16x64xf16>
}

// -----

// block_mask must have rank 4
func.func @block_mask_rank(%q: tensor<2x8x16x64xf16>, %k: tensor<2x2x16x64xf16>, %v: tensor<2x2x16x64xf16>, %bm: tensor<2x4xi8>) -> tensor<2x8x16x64xf16> {
  // expected-error @+1 {{'attn.attention' op expected block_mask to have rank 4 ([B or 1, Hq or 1, Sq blocks, Sk blocks]), got rank 2}}
  %o = attn.attention %q, %k, %v block_mask(%bm : tensor<2x4xi8>) mask(#attn.block_sparse<block_q = 8, block_k = 4>) : tensor<2x8x16x64xf16>, tensor<2x2x16x64xf16>, tensor<2x2x16x64xf16> -> tensor<2x8x16x64xf16>
  return %o : tensor<2x8x16x64xf16>
}

// -----

// block_mask element type must be i8
func.func @block_mask_elt(%q: tensor<2x8x16x64xf16>, %k: tensor<2x2x16x64xf16>, %v: tensor<2x2x16x64xf16>, %bm: tensor<1x1x2x4xi1>) -> tensor<2x8x16x64xf16> {
  // expected-error @+1 {{'attn.attention' op expected block_mask element type 'i8', got 'i1'}}
  %o = attn.attention %q, %k, %v block_mask(%bm : tensor<1x1x2x4xi1>) mask(#attn.block_sparse<block_q = 8, block_k = 4>) : tensor<2x8x16x64xf16>, tensor<2x2x16x64xf16>, tensor<2x2x16x64xf16> -> tensor<2x8x16x64xf16>
  return %o : tensor<2x8x16x64xf16>
}

// -----

// block_mask batch must be 1 or the query batch
func.func @block_mask_batch(%q: tensor<2x8x16x64xf16>, %k: tensor<2x2x16x64xf16>, %v: tensor<2x2x16x64xf16>, %bm: tensor<3x1x2x4xi8>) -> tensor<2x8x16x64xf16> {
  // expected-error @+1 {{'attn.attention' op expected block_mask batch 3 to be 1 or match query batch 2}}
  %o = attn.attention %q, %k, %v block_mask(%bm : tensor<3x1x2x4xi8>) mask(#attn.block_sparse<block_q = 8, block_k = 4>) : tensor<2x8x16x64xf16>, tensor<2x2x16x64xf16>, tensor<2x2x16x64xf16> -> tensor<2x8x16x64xf16>
  return %o : tensor<2x8x16x64xf16>
}

// -----

// block_mask head count must be 1 or Hq (block_mask batch = B)
func.func @block_mask_heads_full_batch(%q: tensor<2x8x16x64xf16>, %k: tensor<2x2x16x64xf16>, %v: tensor<2x2x16x64xf16>, %bm: tensor<2x2x2x4xi8>) -> tensor<2x8x16x64xf16> {
  // expected-error @+1 {{'attn.attention' op expected block_mask head count 2 to be 1 or match query head count 8}}
  %o = attn.attention %q, %k, %v block_mask(%bm : tensor<2x2x2x4xi8>) mask(#attn.block_sparse<block_q = 8, block_k = 4>) : tensor<2x8x16x64xf16>, tensor<2x2x16x64xf16>, tensor<2x2x16x64xf16> -> tensor<2x8x16x64xf16>
  return %o : tensor<2x8x16x64xf16>
}

// -----

// block_mask head count must be 1 or Hq (block_mask batch = 1)
func.func @block_mask_heads_unit_batch(%q: tensor<2x8x16x64xf16>, %k: tensor<2x2x16x64xf16>, %v: tensor<2x2x16x64xf16>, %bm: tensor<1x4x2x4xi8>) -> tensor<2x8x16x64xf16> {
  // expected-error @+1 {{'attn.attention' op expected block_mask head count 4 to be 1 or match query head count 8}}
  %o = attn.attention %q, %k, %v block_mask(%bm : tensor<1x4x2x4xi8>) mask(#attn.block_sparse<block_q = 8, block_k = 4>) : tensor<2x8x16x64xf16>, tensor<2x2x16x64xf16>, tensor<2x2x16x64xf16> -> tensor<2x8x16x64xf16>
  return %o : tensor<2x8x16x64xf16>
}

// -----

// block_mask query blocks must be ceil(Sq / block_q)
func.func @block_mask_q_blocks(%q: tensor<2x8x16x64xf16>, %k: tensor<2x2x16x64xf16>, %v: tensor<2x2x16x64xf16>, %bm: tensor<1x8x3x4xi8>) -> tensor<2x8x16x64xf16> {
  // expected-error @+1 {{'attn.attention' op expected block_mask query blocks 3 to match ceil(Sq / block_q) = 2}}
  %o = attn.attention %q, %k, %v block_mask(%bm : tensor<1x8x3x4xi8>) mask(#attn.block_sparse<block_q = 8, block_k = 4>) : tensor<2x8x16x64xf16>, tensor<2x2x16x64xf16>, tensor<2x2x16x64xf16> -> tensor<2x8x16x64xf16>
  return %o : tensor<2x8x16x64xf16>
}

// -----

// block_mask key blocks must be ceil(Sk / block_k)
func.func @block_mask_k_blocks(%q: tensor<2x8x16x64xf16>, %k: tensor<2x2x16x64xf16>, %v: tensor<2x2x16x64xf16>, %bm: tensor<2x1x2x5xi8>) -> tensor<2x8x16x64xf16> {
  // expected-error @+1 {{'attn.attention' op expected block_mask key blocks 5 to match ceil(Sk / block_k) = 4}}
  %o = attn.attention %q, %k, %v block_mask(%bm : tensor<2x1x2x5xi8>) mask(#attn.block_sparse<block_q = 8, block_k = 4>) : tensor<2x8x16x64xf16>, tensor<2x2x16x64xf16>, tensor<2x2x16x64xf16> -> tensor<2x8x16x64xf16>
  return %o : tensor<2x8x16x64xf16>
}

// -----

// mask_fn must have one block
func.func @mask_fn_blocks(%q: tensor<2x8x16x64xf16>, %k: tensor<2x2x16x64xf16>, %v: tensor<2x2x16x64xf16>) -> tensor<2x8x16x64xf16> {
  // expected-error @+1 {{'attn.attention' op expected mask_fn to have one block}}
  %o = attn.attention %q, %k, %v mask_fn {
  ^bb0(%b: index, %h: index, %i: index, %j: index):
    cf.br ^bb1
  ^bb1:
    %t = arith.constant true
    attn.yield %t : i1
  } : tensor<2x8x16x64xf16>, tensor<2x2x16x64xf16>, tensor<2x2x16x64xf16> -> tensor<2x8x16x64xf16>
  return %o : tensor<2x8x16x64xf16>
}

// -----

// mask_fn block arguments must be four indices
func.func @mask_fn_args(%q: tensor<2x8x16x64xf16>, %k: tensor<2x2x16x64xf16>, %v: tensor<2x2x16x64xf16>) -> tensor<2x8x16x64xf16> {
  // expected-error @+1 {{'attn.attention' op expected mask_fn arguments (b: index, h: index, q: index, k: index), got (index, index, i32, i32)}}
  %o = attn.attention %q, %k, %v mask_fn {
  ^bb0(%b: index, %h: index, %i: i32, %j: i32):
    %c = arith.cmpi uge, %i, %j : i32
    attn.yield %c : i1
  } : tensor<2x8x16x64xf16>, tensor<2x2x16x64xf16>, tensor<2x2x16x64xf16> -> tensor<2x8x16x64xf16>
  return %o : tensor<2x8x16x64xf16>
}

// -----

// mask_fn must end with attn.yield
func.func @mask_fn_terminator(%q: tensor<2x8x16x64xf16>, %k: tensor<2x2x16x64xf16>, %v: tensor<2x2x16x64xf16>) -> tensor<2x8x16x64xf16> {
  // expected-error @+1 {{'attn.attention' op expected mask_fn to end with attn.yield}}
  %o = attn.attention %q, %k, %v mask_fn {
  ^bb0(%b: index, %h: index, %i: index, %j: index):
    llvm.unreachable
  } : tensor<2x8x16x64xf16>, tensor<2x2x16x64xf16>, tensor<2x2x16x64xf16> -> tensor<2x8x16x64xf16>
  return %o : tensor<2x8x16x64xf16>
}

// -----

// mask_fn must yield one i1 (here: nothing)
func.func @mask_fn_yield(%q: tensor<2x8x16x64xf16>, %k: tensor<2x2x16x64xf16>, %v: tensor<2x2x16x64xf16>) -> tensor<2x8x16x64xf16> {
  // expected-error @+1 {{'attn.attention' op expected mask_fn to yield one 'i1', got 0 value(s)}}
  %o = attn.attention %q, %k, %v mask_fn {
  ^bb0(%b: index, %h: index, %i: index, %j: index):
    "attn.yield"() : () -> ()
  } : tensor<2x8x16x64xf16>, tensor<2x2x16x64xf16>, tensor<2x2x16x64xf16> -> tensor<2x8x16x64xf16>
  return %o : tensor<2x8x16x64xf16>
}

// -----

// score_fn must have one block
func.func @score_fn_blocks(%q: tensor<2x8x16x64xf16>, %k: tensor<2x2x16x64xf16>, %v: tensor<2x2x16x64xf16>) -> tensor<2x8x16x64xf16> {
  // expected-error @+1 {{'attn.attention' op expected score_fn to have one block}}
  %o = attn.attention %q, %k, %v score_fn {
  ^bb0(%s: f32, %b: index, %h: index, %i: index, %j: index):
    cf.br ^bb1
  ^bb1:
    attn.yield %s : f32
  } : tensor<2x8x16x64xf16>, tensor<2x2x16x64xf16>, tensor<2x2x16x64xf16> -> tensor<2x8x16x64xf16>
  return %o : tensor<2x8x16x64xf16>
}

// -----

// score_fn block arguments must be (f32, index x4)
func.func @score_fn_args(%q: tensor<2x8x16x64xf16>, %k: tensor<2x2x16x64xf16>, %v: tensor<2x2x16x64xf16>) -> tensor<2x8x16x64xf16> {
  // expected-error @+1 {{'attn.attention' op expected score_fn arguments (s: f32, b: index, h: index, q: index, k: index), got (f16, index, index, index, index)}}
  %o = attn.attention %q, %k, %v score_fn {
  ^bb0(%s: f16, %b: index, %h: index, %i: index, %j: index):
    %e = arith.extf %s : f16 to f32
    attn.yield %e : f32
  } : tensor<2x8x16x64xf16>, tensor<2x2x16x64xf16>, tensor<2x2x16x64xf16> -> tensor<2x8x16x64xf16>
  return %o : tensor<2x8x16x64xf16>
}

// -----

// score_fn must end with attn.yield
func.func @score_fn_terminator(%q: tensor<2x8x16x64xf16>, %k: tensor<2x2x16x64xf16>, %v: tensor<2x2x16x64xf16>) -> tensor<2x8x16x64xf16> {
  // expected-error @+1 {{'attn.attention' op expected score_fn to end with attn.yield}}
  %o = attn.attention %q, %k, %v score_fn {
  ^bb0(%s: f32, %b: index, %h: index, %i: index, %j: index):
    llvm.unreachable
  } : tensor<2x8x16x64xf16>, tensor<2x2x16x64xf16>, tensor<2x2x16x64xf16> -> tensor<2x8x16x64xf16>
  return %o : tensor<2x8x16x64xf16>
}

// -----

// score_fn must yield one f32 (here: an f16)
func.func @score_fn_yield(%q: tensor<2x8x16x64xf16>, %k: tensor<2x2x16x64xf16>, %v: tensor<2x2x16x64xf16>) -> tensor<2x8x16x64xf16> {
  // expected-error @+1 {{'attn.attention' op expected score_fn to yield one 'f32', got 1 value(s) of type f16}}
  %o = attn.attention %q, %k, %v score_fn {
  ^bb0(%s: f32, %b: index, %h: index, %i: index, %j: index):
    %t = arith.truncf %s : f32 to f16
    attn.yield %t : f16
  } : tensor<2x8x16x64xf16>, tensor<2x2x16x64xf16>, tensor<2x2x16x64xf16> -> tensor<2x8x16x64xf16>
  return %o : tensor<2x8x16x64xf16>
}

// -----

// unknown alignment keyword
func.func @bad_alignment(%q: tensor<2x8x16x64xf16>, %k: tensor<2x2x16x64xf16>, %v: tensor<2x2x16x64xf16>) -> tensor<2x8x16x64xf16> {
  // expected-error @+1 {{expected alignment top_left or bottom_right, got top_right}}
  %o = attn.attention %q, %k, %v mask(#attn.causal<top_right>) : tensor<2x8x16x64xf16>, tensor<2x2x16x64xf16>, tensor<2x2x16x64xf16> -> tensor<2x8x16x64xf16>
  return %o : tensor<2x8x16x64xf16>
}

// -----

// sliding window extents must be non-negative
func.func @sliding_window_negative(%q: tensor<2x8x16x64xf16>, %k: tensor<2x2x16x64xf16>, %v: tensor<2x2x16x64xf16>) -> tensor<2x8x16x64xf16> {
  // expected-error @+1 {{expected sliding window extents in [0, 2^31 - 1], got left = -1, right = 0}}
  %o = attn.attention %q, %k, %v mask(#attn.sliding_window<left = -1, right = 0>) : tensor<2x8x16x64xf16>, tensor<2x2x16x64xf16>, tensor<2x2x16x64xf16> -> tensor<2x8x16x64xf16>
  return %o : tensor<2x8x16x64xf16>
}

// -----

// prefix length must be non-negative
func.func @prefix_negative(%q: tensor<2x8x16x64xf16>, %k: tensor<2x2x16x64xf16>, %v: tensor<2x2x16x64xf16>) -> tensor<2x8x16x64xf16> {
  // expected-error @+1 {{expected prefix length in [0, 2^31 - 1], got -4}}
  %o = attn.attention %q, %k, %v mask(#attn.prefix_lm<prefix = -4>) : tensor<2x8x16x64xf16>, tensor<2x2x16x64xf16>, tensor<2x2x16x64xf16> -> tensor<2x8x16x64xf16>
  return %o : tensor<2x8x16x64xf16>
}

// -----

// unknown document source keyword
func.func @bad_document_source(%q: tensor<2x8x16x64xf16>, %k: tensor<2x2x16x64xf16>, %v: tensor<2x2x16x64xf16>) -> tensor<2x8x16x64xf16> {
  // expected-error @+1 {{expected document source seq_ids or cu_seqlens, got offsets}}
  %o = attn.attention %q, %k, %v mask(#attn.document<offsets>) : tensor<2x8x16x64xf16>, tensor<2x2x16x64xf16>, tensor<2x2x16x64xf16> -> tensor<2x8x16x64xf16>
  return %o : tensor<2x8x16x64xf16>
}

// -----

// block sizes must be positive
func.func @block_sizes_nonpositive(%q: tensor<2x8x16x64xf16>, %k: tensor<2x2x16x64xf16>, %v: tensor<2x2x16x64xf16>) -> tensor<2x8x16x64xf16> {
  // expected-error @+1 {{expected block sizes in [1, 2^31 - 1], got block_q = 0, block_k = 64}}
  %o = attn.attention %q, %k, %v mask(#attn.block_sparse<block_q = 0, block_k = 64>) : tensor<2x8x16x64xf16>, tensor<2x2x16x64xf16>, tensor<2x2x16x64xf16> -> tensor<2x8x16x64xf16>
  return %o : tensor<2x8x16x64xf16>
}

// -----

// unknown attn attribute
func.func @unknown_attr(%q: tensor<2x8x16x64xf16>, %k: tensor<2x2x16x64xf16>, %v: tensor<2x2x16x64xf16>) -> tensor<2x8x16x64xf16> {
  // expected-error @+1 {{unknown attribute `foo` in dialect `attn`}}
  %o = attn.attention %q, %k, %v mask(#attn.foo) : tensor<2x8x16x64xf16>, tensor<2x2x16x64xf16>, tensor<2x2x16x64xf16> -> tensor<2x8x16x64xf16>
  return %o : tensor<2x8x16x64xf16>
}

// -----

// Key head dim must be static (it picks the kernel).
func.func @key_head_dim_dynamic(%q: tensor<2x8x16x64xf16>, %k: tensor<2x2x16x?xf16>, %v: tensor<2x2x16x64xf16>) -> tensor<2x8x16x64xf16> {
  // expected-error @+1 {{'attn.attention' op expected key head dim (dim 3) to be static}}
  %o = attn.attention %q, %k, %v : tensor<2x8x16x64xf16>, tensor<2x2x16x?xf16>, tensor<2x2x16x64xf16> -> tensor<2x8x16x64xf16>
  return %o : tensor<2x8x16x64xf16>
}

// -----

// Value head count must be static.
func.func @value_heads_dynamic(%q: tensor<2x8x16x64xf16>, %k: tensor<2x2x16x64xf16>, %v: tensor<2x?x16x64xf16>) -> tensor<2x8x16x64xf16> {
  // expected-error @+1 {{'attn.attention' op expected value head count (dim 1) to be static}}
  %o = attn.attention %q, %k, %v : tensor<2x8x16x64xf16>, tensor<2x2x16x64xf16>, tensor<2x?x16x64xf16> -> tensor<2x8x16x64xf16>
  return %o : tensor<2x8x16x64xf16>
}

// -----

// Output head count must be static.
func.func @output_heads_dynamic(%q: tensor<2x8x16x64xf16>, %k: tensor<2x2x16x64xf16>, %v: tensor<2x2x16x64xf16>) -> tensor<2x?x16x64xf16> {
  // expected-error @+1 {{'attn.attention' op expected output head count (dim 1) to be static}}
  %o = attn.attention %q, %k, %v : tensor<2x8x16x64xf16>, tensor<2x2x16x64xf16>, tensor<2x2x16x64xf16> -> tensor<2x?x16x64xf16>
  return %o : tensor<2x?x16x64xf16>
}

// -----

// Output head dim must be static.
func.func @output_head_dim_dynamic(%q: tensor<2x8x16x64xf16>, %k: tensor<2x2x16x64xf16>, %v: tensor<2x2x16x64xf16>) -> tensor<2x8x16x?xf16> {
  // expected-error @+1 {{'attn.attention' op expected output head dim (dim 3) to be static}}
  %o = attn.attention %q, %k, %v : tensor<2x8x16x64xf16>, tensor<2x2x16x64xf16>, tensor<2x2x16x64xf16> -> tensor<2x8x16x?xf16>
  return %o : tensor<2x8x16x?xf16>
}

// -----

// LSE head count must be static.
func.func @lse_heads_dynamic(%q: tensor<2x8x16x64xf16>, %k: tensor<2x2x16x64xf16>, %v: tensor<2x2x16x64xf16>) -> (tensor<2x8x16x64xf16>, tensor<2x?x16xf32>) {
  // expected-error @+1 {{'attn.attention' op expected lse head count (dim 1) to be static}}
  %o, %l = attn.attention %q, %k, %v : tensor<2x8x16x64xf16>, tensor<2x2x16x64xf16>, tensor<2x2x16x64xf16> -> tensor<2x8x16x64xf16>, tensor<2x?x16xf32>
  return %o, %l : tensor<2x8x16x64xf16>, tensor<2x?x16xf32>
}

// -----

// Zero query heads.
func.func @zero_heads(%q: tensor<2x0x16x64xf16>, %k: tensor<2x2x16x64xf16>, %v: tensor<2x2x16x64xf16>) -> tensor<2x0x16x64xf16> {
  // expected-error @+1 {{'attn.attention' op expected query head count (dim 1) to be positive, got 0}}
  %o = attn.attention %q, %k, %v : tensor<2x0x16x64xf16>, tensor<2x2x16x64xf16>, tensor<2x2x16x64xf16> -> tensor<2x0x16x64xf16>
  return %o : tensor<2x0x16x64xf16>
}

// -----

// Zero head dim (the default scale would be 1/sqrt(0)).
func.func @zero_head_dim(%q: tensor<2x2x16x0xf16>) -> tensor<2x2x16x0xf16> {
  // expected-error @+1 {{'attn.attention' op expected query head dim (dim 3) to be positive, got 0}}
  %o = attn.attention %q, %q, %q : tensor<2x2x16x0xf16>, tensor<2x2x16x0xf16>, tensor<2x2x16x0xf16> -> tensor<2x2x16x0xf16>
  return %o : tensor<2x2x16x0xf16>
}

// -----

// #attn.gpu_kernel: empty chip.
func.func @gpu_kernel_0(%q: tensor<2x8x16x64xf16>) -> tensor<2x8x16x64xf16> {
  // expected-error @+1 {{expected a non-empty chip}}
  %o = attn.attention %q, %q, %q {attn.gpu_kernel = #attn.gpu_kernel<chip = "", block_q = 128, block_k = 64, warps = 4, m_tiles = 2, stages = 2, q_in_smem = false>} : tensor<2x8x16x64xf16>, tensor<2x8x16x64xf16>, tensor<2x8x16x64xf16> -> tensor<2x8x16x64xf16>
  return %o : tensor<2x8x16x64xf16>
}

// -----

// #attn.gpu_kernel: warps out of range.
func.func @gpu_kernel_1(%q: tensor<2x8x16x64xf16>) -> tensor<2x8x16x64xf16> {
  // expected-error @+1 {{expected warps in [1, 32], got 0}}
  %o = attn.attention %q, %q, %q {attn.gpu_kernel = #attn.gpu_kernel<chip = "sm_80", block_q = 0, block_k = 64, warps = 0, m_tiles = 2, stages = 2, q_in_smem = false>} : tensor<2x8x16x64xf16>, tensor<2x8x16x64xf16>, tensor<2x8x16x64xf16> -> tensor<2x8x16x64xf16>
  return %o : tensor<2x8x16x64xf16>
}

// -----

// #attn.gpu_kernel: m-tiles out of range.
func.func @gpu_kernel_2(%q: tensor<2x8x16x64xf16>) -> tensor<2x8x16x64xf16> {
  // expected-error @+1 {{expected m_tiles in [1, 4], got 5}}
  %o = attn.attention %q, %q, %q {attn.gpu_kernel = #attn.gpu_kernel<chip = "sm_80", block_q = 80, block_k = 64, warps = 1, m_tiles = 5, stages = 2, q_in_smem = false>} : tensor<2x8x16x64xf16>, tensor<2x8x16x64xf16>, tensor<2x8x16x64xf16> -> tensor<2x8x16x64xf16>
  return %o : tensor<2x8x16x64xf16>
}

// -----

// #attn.gpu_kernel: block_q must be 16 * m_tiles * warps.
func.func @gpu_kernel_3(%q: tensor<2x8x16x64xf16>) -> tensor<2x8x16x64xf16> {
  // expected-error @+1 {{expected block_q 64 to equal 16 * m_tiles * warps = 128}}
  %o = attn.attention %q, %q, %q {attn.gpu_kernel = #attn.gpu_kernel<chip = "sm_80", block_q = 64, block_k = 64, warps = 4, m_tiles = 2, stages = 2, q_in_smem = false>} : tensor<2x8x16x64xf16>, tensor<2x8x16x64xf16>, tensor<2x8x16x64xf16> -> tensor<2x8x16x64xf16>
  return %o : tensor<2x8x16x64xf16>
}

// -----

// #attn.gpu_kernel: block_k a multiple of 16.
func.func @gpu_kernel_4(%q: tensor<2x8x16x64xf16>) -> tensor<2x8x16x64xf16> {
  // expected-error @+1 {{expected block_k to be a multiple of 16 in [16, 256], got 40}}
  %o = attn.attention %q, %q, %q {attn.gpu_kernel = #attn.gpu_kernel<chip = "sm_80", block_q = 128, block_k = 40, warps = 4, m_tiles = 2, stages = 2, q_in_smem = false>} : tensor<2x8x16x64xf16>, tensor<2x8x16x64xf16>, tensor<2x8x16x64xf16> -> tensor<2x8x16x64xf16>
  return %o : tensor<2x8x16x64xf16>
}

// -----

// #attn.gpu_kernel: stages out of range.
func.func @gpu_kernel_5(%q: tensor<2x8x16x64xf16>) -> tensor<2x8x16x64xf16> {
  // expected-error @+1 {{expected stages in [1, 8], got 0}}
  %o = attn.attention %q, %q, %q {attn.gpu_kernel = #attn.gpu_kernel<chip = "sm_80", block_q = 128, block_k = 64, warps = 4, m_tiles = 2, stages = 0, q_in_smem = false>} : tensor<2x8x16x64xf16>, tensor<2x8x16x64xf16>, tensor<2x8x16x64xf16> -> tensor<2x8x16x64xf16>
  return %o : tensor<2x8x16x64xf16>
}

// -----

// #attn.gpu_kernel: q_in_smem is a boolean.
func.func @gpu_kernel_smem_word(%q: tensor<2x8x16x64xf16>) -> tensor<2x8x16x64xf16> {
  // expected-error @+1 {{expected q_in_smem = true or false, got yes}}
  %o = attn.attention %q, %q, %q {attn.gpu_kernel = #attn.gpu_kernel<chip = "sm_80", block_q = 128, block_k = 64, warps = 4, m_tiles = 2, stages = 2, q_in_smem = yes>} : tensor<2x8x16x64xf16>, tensor<2x8x16x64xf16>, tensor<2x8x16x64xf16> -> tensor<2x8x16x64xf16>
  return %o : tensor<2x8x16x64xf16>
}

// -----

// A window wider than any sequence (2^31 - 1) is refused: its interval
// arithmetic would overflow and mask every row.
func.func @window_huge(%q: tensor<2x8x16x64xf16>, %k: tensor<2x2x16x64xf16>, %v: tensor<2x2x16x64xf16>) -> tensor<2x8x16x64xf16> {
  // expected-error @+1 {{expected sliding window extents in [0, 2^31 - 1], got left = 9223372036854775807, right = 9223372036854775807}}
  %o = attn.attention %q, %k, %v mask(#attn.sliding_window<left = 9223372036854775807, right = 9223372036854775807>) : tensor<2x8x16x64xf16>, tensor<2x2x16x64xf16>, tensor<2x2x16x64xf16> -> tensor<2x8x16x64xf16>
  return %o : tensor<2x8x16x64xf16>
}

// -----

// #attn.gpu_kernel: gqa_pack out of range.
func.func @gpu_kernel_gqa_pack_0(%q: tensor<2x8x16x64xf16>) -> tensor<2x8x16x64xf16> {
  // expected-error @+1 {{expected gqa_pack in [1, 16] dividing block_q 16, got 0}}
  %o = attn.attention %q, %q, %q {attn.gpu_kernel = #attn.gpu_kernel<chip = "sm_80", block_q = 16, block_k = 64, warps = 1, m_tiles = 1, stages = 2, q_in_smem = false, gqa_pack = 0>} : tensor<2x8x16x64xf16>, tensor<2x8x16x64xf16>, tensor<2x8x16x64xf16> -> tensor<2x8x16x64xf16>
  return %o : tensor<2x8x16x64xf16>
}

// -----

// #attn.gpu_kernel: gqa_pack not dividing block_q.
func.func @gpu_kernel_gqa_pack_3(%q: tensor<2x8x16x64xf16>) -> tensor<2x8x16x64xf16> {
  // expected-error @+1 {{expected gqa_pack in [1, 16] dividing block_q 16, got 3}}
  %o = attn.attention %q, %q, %q {attn.gpu_kernel = #attn.gpu_kernel<chip = "sm_80", block_q = 16, block_k = 64, warps = 1, m_tiles = 1, stages = 2, q_in_smem = false, gqa_pack = 3>} : tensor<2x8x16x64xf16>, tensor<2x8x16x64xf16>, tensor<2x8x16x64xf16> -> tensor<2x8x16x64xf16>
  return %o : tensor<2x8x16x64xf16>
}

// -----

// #attn.gpu_kernel: split_kv takes true or false.
func.func @gpu_kernel_split_kv(%q: tensor<2x8x16x64xf16>) -> tensor<2x8x16x64xf16> {
  // expected-error @+1 {{expected split_kv = true or false, got yes}}
  %o = attn.attention %q, %q, %q {attn.gpu_kernel = #attn.gpu_kernel<chip = "sm_80", block_q = 16, block_k = 64, warps = 1, m_tiles = 1, stages = 2, q_in_smem = false, split_kv = yes>} : tensor<2x8x16x64xf16>, tensor<2x8x16x64xf16>, tensor<2x8x16x64xf16> -> tensor<2x8x16x64xf16>
  return %o : tensor<2x8x16x64xf16>
}

// -----

// #attn.gpu_kernel: key_warps must divide warps.
func.func @gpu_kernel_key_warps_divide(%q: tensor<2x8x16x64xf16>) -> tensor<2x8x16x64xf16> {
  // expected-error @+1 {{expected key_warps to divide warps 4, got 3}}
  %o = attn.attention %q, %q, %q {attn.gpu_kernel = #attn.gpu_kernel<chip = "sm_80", block_q = 16, block_k = 64, warps = 4, m_tiles = 1, stages = 2, q_in_smem = false, key_warps = 3>} : tensor<2x8x16x64xf16>, tensor<2x8x16x64xf16>, tensor<2x8x16x64xf16> -> tensor<2x8x16x64xf16>
  return %o : tensor<2x8x16x64xf16>
}

// -----

// #attn.gpu_kernel: with key_warps, block_q counts the row groups only.
func.func @gpu_kernel_key_warps_block_q(%q: tensor<2x8x16x64xf16>) -> tensor<2x8x16x64xf16> {
  // expected-error @+1 {{expected block_q 64 to equal 16 * m_tiles * warps / key_warps = 16}}
  %o = attn.attention %q, %q, %q {attn.gpu_kernel = #attn.gpu_kernel<chip = "sm_80", block_q = 64, block_k = 64, warps = 4, m_tiles = 1, stages = 2, q_in_smem = false, key_warps = 4>} : tensor<2x8x16x64xf16>, tensor<2x8x16x64xf16>, tensor<2x8x16x64xf16> -> tensor<2x8x16x64xf16>
  return %o : tensor<2x8x16x64xf16>
}

// -----

// #attn.gpu_kernel: each key warp takes a multiple of 16 keys.
func.func @gpu_kernel_key_warps_block_k(%q: tensor<2x8x16x64xf16>) -> tensor<2x8x16x64xf16> {
  // expected-error @+1 {{expected block_k 32 to give each of the 4 key_warps a multiple of 16 keys}}
  %o = attn.attention %q, %q, %q {attn.gpu_kernel = #attn.gpu_kernel<chip = "sm_80", block_q = 16, block_k = 32, warps = 4, m_tiles = 1, stages = 2, q_in_smem = false, key_warps = 4>} : tensor<2x8x16x64xf16>, tensor<2x8x16x64xf16>, tensor<2x8x16x64xf16> -> tensor<2x8x16x64xf16>
  return %o : tensor<2x8x16x64xf16>
}

// -----

func.func @kv_lens_rank(%q: tensor<2x8x16x64xf16>, %k: tensor<2x2x16x64xf16>, %l: tensor<2x1xi32>) -> tensor<2x8x16x64xf16> {
  // expected-error @+1 {{expected kv_lens to have rank 1 ([B]), got rank 2}}
  %o = attn.attention %q, %k, %k kv_lens(%l : tensor<2x1xi32>) : tensor<2x8x16x64xf16>, tensor<2x2x16x64xf16>, tensor<2x2x16x64xf16> -> tensor<2x8x16x64xf16>
  return %o : tensor<2x8x16x64xf16>
}

// -----

func.func @kv_lens_type(%q: tensor<2x8x16x64xf16>, %k: tensor<2x2x16x64xf16>, %l: tensor<2xi64>) -> tensor<2x8x16x64xf16> {
  // expected-error @+1 {{expected kv_lens element type 'i32', got 'i64'}}
  %o = attn.attention %q, %k, %k kv_lens(%l : tensor<2xi64>) : tensor<2x8x16x64xf16>, tensor<2x2x16x64xf16>, tensor<2x2x16x64xf16> -> tensor<2x8x16x64xf16>
  return %o : tensor<2x8x16x64xf16>
}

// -----

func.func @kv_lens_batch(%q: tensor<2x8x16x64xf16>, %k: tensor<2x2x16x64xf16>, %l: tensor<3xi32>) -> tensor<2x8x16x64xf16> {
  // expected-error @+1 {{expected kv_lens length 3 to match query batch 2}}
  %o = attn.attention %q, %k, %k kv_lens(%l : tensor<3xi32>) : tensor<2x8x16x64xf16>, tensor<2x2x16x64xf16>, tensor<2x2x16x64xf16> -> tensor<2x8x16x64xf16>
  return %o : tensor<2x8x16x64xf16>
}

// -----

func.func @kv_lens_document(%q: tensor<2x8x16x64xf16>, %k: tensor<2x2x16x64xf16>, %cu: tensor<3xi32>, %l: tensor<2xi32>) -> tensor<2x8x16x64xf16> {
  // expected-error @+1 {{expected no kv_lens with a document mask (its sequences come from seq_ids or cu_seqlens)}}
  %o = attn.attention %q, %k, %k cu_seqlens(%cu : tensor<3xi32>) kv_lens(%l : tensor<2xi32>) mask(#attn.document<cu_seqlens>) : tensor<2x8x16x64xf16>, tensor<2x2x16x64xf16>, tensor<2x2x16x64xf16> -> tensor<2x8x16x64xf16>
  return %o : tensor<2x8x16x64xf16>
}

// -----

func.func @paged_without_lens(%q: tensor<2x8x1x64xf16>, %k: tensor<?x16x2x64xf16>, %t: tensor<2x4xi32>) -> tensor<2x8x1x64xf16> {
  // expected-error @+1 {{expected a kv_lens operand with page_table (the key count of every sequence)}}
  %o = attn.attention %q, %k, %k page_table(%t : tensor<2x4xi32>) : tensor<2x8x1x64xf16>, tensor<?x16x2x64xf16>, tensor<?x16x2x64xf16> -> tensor<2x8x1x64xf16>
  return %o : tensor<2x8x1x64xf16>
}

// -----

func.func @paged_page_sizes(%q: tensor<2x8x1x64xf16>, %k: tensor<?x16x2x64xf16>, %v: tensor<?x8x2x64xf16>, %l: tensor<2xi32>, %t: tensor<2x4xi32>) -> tensor<2x8x1x64xf16> {
  // expected-error @+1 {{expected value page size 8 to match key page size 16}}
  %o = attn.attention %q, %k, %v kv_lens(%l : tensor<2xi32>) page_table(%t : tensor<2x4xi32>) : tensor<2x8x1x64xf16>, tensor<?x16x2x64xf16>, tensor<?x8x2x64xf16> -> tensor<2x8x1x64xf16>
  return %o : tensor<2x8x1x64xf16>
}

// -----

func.func @paged_dynamic_page_size(%q: tensor<2x8x1x64xf16>, %k: tensor<?x?x2x64xf16>, %l: tensor<2xi32>, %t: tensor<2x4xi32>) -> tensor<2x8x1x64xf16> {
  // expected-error @+1 {{expected key page size (dim 1) to be static}}
  %o = attn.attention %q, %k, %k kv_lens(%l : tensor<2xi32>) page_table(%t : tensor<2x4xi32>) : tensor<2x8x1x64xf16>, tensor<?x?x2x64xf16>, tensor<?x?x2x64xf16> -> tensor<2x8x1x64xf16>
  return %o : tensor<2x8x1x64xf16>
}

// -----

func.func @paged_table_type(%q: tensor<2x8x1x64xf16>, %k: tensor<?x16x2x64xf16>, %l: tensor<2xi32>, %t: tensor<2x4xi64>) -> tensor<2x8x1x64xf16> {
  // expected-error @+1 {{expected page_table element type 'i32', got 'i64'}}
  %o = attn.attention %q, %k, %k kv_lens(%l : tensor<2xi32>) page_table(%t : tensor<2x4xi64>) : tensor<2x8x1x64xf16>, tensor<?x16x2x64xf16>, tensor<?x16x2x64xf16> -> tensor<2x8x1x64xf16>
  return %o : tensor<2x8x1x64xf16>
}

// -----

func.func @paged_table_batch(%q: tensor<2x8x1x64xf16>, %k: tensor<?x16x2x64xf16>, %l: tensor<2xi32>, %t: tensor<3x4xi32>) -> tensor<2x8x1x64xf16> {
  // expected-error @+1 {{expected page_table batch 3 to match query batch 2}}
  %o = attn.attention %q, %k, %k kv_lens(%l : tensor<2xi32>) page_table(%t : tensor<3x4xi32>) : tensor<2x8x1x64xf16>, tensor<?x16x2x64xf16>, tensor<?x16x2x64xf16> -> tensor<2x8x1x64xf16>
  return %o : tensor<2x8x1x64xf16>
}

// -----

func.func @paged_heads(%q: tensor<2x8x1x64xf16>, %k: tensor<?x16x2x64xf16>, %v: tensor<?x16x4x64xf16>, %l: tensor<2xi32>, %t: tensor<2x4xi32>) -> tensor<2x8x1x64xf16> {
  // expected-error @+1 {{expected value head count 4 to match key head count 2}}
  %o = attn.attention %q, %k, %v kv_lens(%l : tensor<2xi32>) page_table(%t : tensor<2x4xi32>) : tensor<2x8x1x64xf16>, tensor<?x16x2x64xf16>, tensor<?x16x4x64xf16> -> tensor<2x8x1x64xf16>
  return %o : tensor<2x8x1x64xf16>
}

// -----

func.func @kv_scales_bf16_cache(%q: tensor<2x8x16x64xf16>, %k: tensor<2x2x16x64xf16>, %s: tensor<2x2xf32>) -> tensor<2x8x16x64xf16> {
  // expected-error @+1 {{expected key element type 'f16' to be 'f8E4M3FN' (kv_scales makes the cache fp8 e4m3)}}
  %o = attn.attention %q, %k, %k kv_scales(%s : tensor<2x2xf32>) : tensor<2x8x16x64xf16>, tensor<2x2x16x64xf16>, tensor<2x2x16x64xf16> -> tensor<2x8x16x64xf16>
  return %o : tensor<2x8x16x64xf16>
}

// -----

func.func @kv_scales_mixed(%q: tensor<2x8x16x64xf16>, %k: tensor<2x2x16x64xf8E4M3FN>, %v: tensor<2x2x16x64xf16>, %s: tensor<2x2xf32>) -> tensor<2x8x16x64xf16> {
  // expected-error @+1 {{expected value element type 'f16' to be 'f8E4M3FN' (kv_scales makes the cache fp8 e4m3)}}
  %o = attn.attention %q, %k, %v kv_scales(%s : tensor<2x2xf32>) : tensor<2x8x16x64xf16>, tensor<2x2x16x64xf8E4M3FN>, tensor<2x2x16x64xf16> -> tensor<2x8x16x64xf16>
  return %o : tensor<2x8x16x64xf16>
}

// -----

func.func @kv_scales_type(%q: tensor<2x8x16x64xf16>, %k: tensor<2x2x16x64xf8E4M3FN>, %s: tensor<2x2xf16>) -> tensor<2x8x16x64xf16> {
  // expected-error @+1 {{expected kv_scales element type 'f32', got 'f16'}}
  %o = attn.attention %q, %k, %k kv_scales(%s : tensor<2x2xf16>) : tensor<2x8x16x64xf16>, tensor<2x2x16x64xf8E4M3FN>, tensor<2x2x16x64xf8E4M3FN> -> tensor<2x8x16x64xf16>
  return %o : tensor<2x8x16x64xf16>
}

// -----

func.func @kv_scales_rows(%q: tensor<2x8x16x64xf16>, %k: tensor<2x2x16x64xf8E4M3FN>, %s: tensor<3x2xf32>) -> tensor<2x8x16x64xf16> {
  // expected-error @+1 {{expected kv_scales rows 3 to match the key and value rows 2}}
  %o = attn.attention %q, %k, %k kv_scales(%s : tensor<3x2xf32>) : tensor<2x8x16x64xf16>, tensor<2x2x16x64xf8E4M3FN>, tensor<2x2x16x64xf8E4M3FN> -> tensor<2x8x16x64xf16>
  return %o : tensor<2x8x16x64xf16>
}

// -----

func.func @kv_scales_heads(%q: tensor<2x8x16x64xf16>, %k: tensor<2x2x16x64xf8E4M3FN>, %s: tensor<2x4xf32>) -> tensor<2x8x16x64xf16> {
  // expected-error @+1 {{expected kv_scales head count 4 to match key head count 2}}
  %o = attn.attention %q, %k, %k kv_scales(%s : tensor<2x4xf32>) : tensor<2x8x16x64xf16>, tensor<2x2x16x64xf8E4M3FN>, tensor<2x2x16x64xf8E4M3FN> -> tensor<2x8x16x64xf16>
  return %o : tensor<2x8x16x64xf16>
}

// -----

func.func @kv_scales_rank(%q: tensor<2x8x16x64xf16>, %k: tensor<2x2x16x64xf8E4M3FN>, %s: tensor<4xf32>) -> tensor<2x8x16x64xf16> {
  // expected-error @+1 {{expected kv_scales to have rank 2 ([2, Hkv]), got rank 1}}
  %o = attn.attention %q, %k, %k kv_scales(%s : tensor<4xf32>) : tensor<2x8x16x64xf16>, tensor<2x2x16x64xf8E4M3FN>, tensor<2x2x16x64xf8E4M3FN> -> tensor<2x8x16x64xf16>
  return %o : tensor<2x8x16x64xf16>
}

// -----

// #attn.gpu_kernel with wgmma: a warpgroup (4 warps) owns 64 rows.
func.func @gpu_kernel_wgmma_warpgroups(%q: tensor<2x8x16x64xf16>) -> tensor<2x8x16x64xf16> {
  // expected-error @+1 {{expected warps a multiple of 4 and m_tiles = 1 with wgmma (a warpgroup owns 64 rows), got warps = 2, m_tiles = 2}}
  %o = attn.attention %q, %q, %q {attn.gpu_kernel = #attn.gpu_kernel<chip = "sm_90a", block_q = 64, block_k = 64, warps = 2, m_tiles = 2, stages = 2, q_in_smem = true, wgmma = true>} : tensor<2x8x16x64xf16>, tensor<2x8x16x64xf16>, tensor<2x8x16x64xf16> -> tensor<2x8x16x64xf16>
  return %o : tensor<2x8x16x64xf16>
}

// -----

// #attn.gpu_kernel with wgmma reads Q from shared memory.
func.func @gpu_kernel_wgmma_q_in_smem(%q: tensor<2x8x16x64xf16>) -> tensor<2x8x16x64xf16> {
  // expected-error @+1 {{expected q_in_smem = true with wgmma (Q is read from shared memory)}}
  %o = attn.attention %q, %q, %q {attn.gpu_kernel = #attn.gpu_kernel<chip = "sm_90a", block_q = 64, block_k = 64, warps = 4, m_tiles = 1, stages = 2, q_in_smem = false, wgmma = true>} : tensor<2x8x16x64xf16>, tensor<2x8x16x64xf16>, tensor<2x8x16x64xf16> -> tensor<2x8x16x64xf16>
  return %o : tensor<2x8x16x64xf16>
}

// -----

// #attn.gpu_kernel with wgmma has no decode parameters.
func.func @gpu_kernel_wgmma_decode(%q: tensor<2x8x16x64xf16>) -> tensor<2x8x16x64xf16> {
  // expected-error @+1 {{expected no gqa_pack, key_warps or split_kv with wgmma}}
  %o = attn.attention %q, %q, %q {attn.gpu_kernel = #attn.gpu_kernel<chip = "sm_90a", block_q = 64, block_k = 64, warps = 4, m_tiles = 1, stages = 2, q_in_smem = true, split_kv = true, wgmma = true>} : tensor<2x8x16x64xf16>, tensor<2x8x16x64xf16>, tensor<2x8x16x64xf16> -> tensor<2x8x16x64xf16>
  return %o : tensor<2x8x16x64xf16>
}

// -----

// #attn.gpu_kernel: exp2_fma counts weights of every 8.
func.func @gpu_kernel_exp2_fma_range(%q: tensor<2x8x16x64xf16>) -> tensor<2x8x16x64xf16> {
  // expected-error @+1 {{expected exp2_fma in [0, 8] (weights of every 8 computed on the FMA pipe), got 9}}
  %o = attn.attention %q, %q, %q {attn.gpu_kernel = #attn.gpu_kernel<chip = "sm_90a", block_q = 64, block_k = 64, warps = 4, m_tiles = 1, stages = 2, q_in_smem = true, wgmma = true, exp2_fma = 9>} : tensor<2x8x16x64xf16>, tensor<2x8x16x64xf16>, tensor<2x8x16x64xf16> -> tensor<2x8x16x64xf16>
  return %o : tensor<2x8x16x64xf16>
}

// -----

// #attn.gpu_kernel: the ping-pong turns are the wgmma kernel's.
func.func @gpu_kernel_ping_pong_mma_sync(%q: tensor<2x8x16x64xf16>) -> tensor<2x8x16x64xf16> {
  // expected-error @+1 {{expected wgmma = true with ping_pong = false (the turns are the wgmma kernel's consumer warpgroups')}}
  %o = attn.attention %q, %q, %q {attn.gpu_kernel = #attn.gpu_kernel<chip = "sm_90a", block_q = 64, block_k = 64, warps = 4, m_tiles = 1, stages = 2, q_in_smem = true, ping_pong = false>} : tensor<2x8x16x64xf16>, tensor<2x8x16x64xf16>, tensor<2x8x16x64xf16> -> tensor<2x8x16x64xf16>
  return %o : tensor<2x8x16x64xf16>
}

// -----

// #attn.gpu_kernel: the staged rows are the wgmma kernel's.
func.func @gpu_kernel_staged_stores_mma_sync(%q: tensor<2x8x16x64xf16>) -> tensor<2x8x16x64xf16> {
  // expected-error @+1 {{expected wgmma = true with staged_stores = true (the staged rows are the wgmma kernel's)}}
  %o = attn.attention %q, %q, %q {attn.gpu_kernel = #attn.gpu_kernel<chip = "sm_90a", block_q = 64, block_k = 64, warps = 4, m_tiles = 1, stages = 2, q_in_smem = true, staged_stores = true>} : tensor<2x8x16x64xf16>, tensor<2x8x16x64xf16>, tensor<2x8x16x64xf16> -> tensor<2x8x16x64xf16>
  return %o : tensor<2x8x16x64xf16>
}

// -----

// #attn.gpu_kernel: O is stored one way.
func.func @gpu_kernel_staged_and_wide_stores(%q: tensor<2x8x16x64xf16>) -> tensor<2x8x16x64xf16> {
  // expected-error @+1 {{expected at most one of wide_stores and staged_stores (two ways of storing O)}}
  %o = attn.attention %q, %q, %q {attn.gpu_kernel = #attn.gpu_kernel<chip = "sm_90a", block_q = 64, block_k = 64, warps = 4, m_tiles = 1, stages = 2, q_in_smem = true, wgmma = true, wide_stores = true, staged_stores = true>} : tensor<2x8x16x64xf16>, tensor<2x8x16x64xf16>, tensor<2x8x16x64xf16> -> tensor<2x8x16x64xf16>
  return %o : tensor<2x8x16x64xf16>
}

// -----

// #attn.gpu_kernel: one or two Q tiles.
func.func @gpu_kernel_q_buffers_three(%q: tensor<2x8x16x64xf16>) -> tensor<2x8x16x64xf16> {
  // expected-error @+1 {{expected q_buffers 1 or 2, got 3}}
  %o = attn.attention %q, %q, %q {attn.gpu_kernel = #attn.gpu_kernel<chip = "sm_90a", block_q = 128, block_k = 64, warps = 8, m_tiles = 1, stages = 2, q_in_smem = true, wgmma = true, persistent = true, q_buffers = 3>} : tensor<2x8x16x64xf16>, tensor<2x8x16x64xf16>, tensor<2x8x16x64xf16> -> tensor<2x8x16x64xf16>
  return %o : tensor<2x8x16x64xf16>
}

// -----

// #attn.gpu_kernel: at most 8 blocks a multiprocessor (0 derives it).
func.func @gpu_kernel_blocks_per_sm_range(%q: tensor<2x8x16x64xf16>) -> tensor<2x8x16x64xf16> {
  // expected-error @+1 {{expected blocks_per_sm in [0, 8] (0 derives it), got 9}}
  %o = attn.attention %q, %q, %q {attn.gpu_kernel = #attn.gpu_kernel<chip = "sm_90a", block_q = 64, block_k = 64, warps = 4, m_tiles = 1, stages = 2, q_in_smem = true, wgmma = true, blocks_per_sm = 9>} : tensor<2x8x16x64xf16>, tensor<2x8x16x64xf16>, tensor<2x8x16x64xf16> -> tensor<2x8x16x64xf16>
  return %o : tensor<2x8x16x64xf16>
}

// -----

// #attn.gpu_kernel: blocks_per_sm sets the wgmma kernel's launch bounds.
func.func @gpu_kernel_blocks_per_sm_mma_sync(%q: tensor<2x8x16x64xf16>) -> tensor<2x8x16x64xf16> {
  // expected-error @+1 {{expected wgmma = true with blocks_per_sm (the launch bounds and register split are the wgmma kernel's)}}
  %o = attn.attention %q, %q, %q {attn.gpu_kernel = #attn.gpu_kernel<chip = "sm_90a", block_q = 64, block_k = 64, warps = 4, m_tiles = 1, stages = 2, q_in_smem = true, blocks_per_sm = 2>} : tensor<2x8x16x64xf16>, tensor<2x8x16x64xf16>, tensor<2x8x16x64xf16> -> tensor<2x8x16x64xf16>
  return %o : tensor<2x8x16x64xf16>
}

// -----

// #attn.gpu_kernel: two Q tiles take turns over a persistent grid's items.
func.func @gpu_kernel_q_buffers_block_grid(%q: tensor<2x8x16x64xf16>) -> tensor<2x8x16x64xf16> {
  // expected-error @+1 {{expected persistent = true with q_buffers = 2 (the Q tiles are the persistent kernel's work items')}}
  %o = attn.attention %q, %q, %q {attn.gpu_kernel = #attn.gpu_kernel<chip = "sm_90a", block_q = 128, block_k = 64, warps = 8, m_tiles = 1, stages = 2, q_in_smem = true, wgmma = true, q_buffers = 2>} : tensor<2x8x16x64xf16>, tensor<2x8x16x64xf16>, tensor<2x8x16x64xf16> -> tensor<2x8x16x64xf16>
  return %o : tensor<2x8x16x64xf16>
}

// -----

// #attn.gpu_kernel: a chained item's first S reads the other Q tile.
func.func @gpu_kernel_chain_items_one_q(%q: tensor<2x8x16x128xf16>) -> tensor<2x8x16x128xf16> {
  // expected-error @+1 {{expected persistent = true and q_buffers = 2 with chain_items = true (the next work item's first S reads its own Q tile)}}
  %o = attn.attention %q, %q, %q {attn.gpu_kernel = #attn.gpu_kernel<chip = "sm_90a", block_q = 128, block_k = 128, warps = 8, m_tiles = 1, stages = 2, q_in_smem = true, wgmma = true, persistent = true, chain_items = true>} : tensor<2x8x16x128xf16>, tensor<2x8x16x128xf16>, tensor<2x8x16x128xf16> -> tensor<2x8x16x128xf16>
  return %o : tensor<2x8x16x128xf16>
}

// -----

// #attn.gpu_kernel: the chained GEMMs take a turn of the consumer
// warpgroups.
func.func @gpu_kernel_chain_items_no_turns(%q: tensor<2x8x16x128xf16>) -> tensor<2x8x16x128xf16> {
  // expected-error @+1 {{expected two or more consumer warpgroups taking turns (warps >= 8, ping_pong) with chain_items = true (the chained GEMMs take a turn)}}
  %o = attn.attention %q, %q, %q {attn.gpu_kernel = #attn.gpu_kernel<chip = "sm_90a", block_q = 128, block_k = 128, warps = 8, m_tiles = 1, stages = 2, q_in_smem = true, wgmma = true, persistent = true, ping_pong = false, q_buffers = 2, chain_items = true>} : tensor<2x8x16x128xf16>, tensor<2x8x16x128xf16>, tensor<2x8x16x128xf16> -> tensor<2x8x16x128xf16>
  return %o : tensor<2x8x16x128xf16>
}

// -----

// #attn.gpu_kernel: the narrowed GEMMs are the wgmma kernel's.
func.func @gpu_kernel_trim_keys_mma_sync(%q: tensor<2x8x16x64xf16>) -> tensor<2x8x16x64xf16> {
  // expected-error @+1 {{expected wgmma = true with trim_keys = true (the narrowed GEMMs are the wgmma kernel's)}}
  %o = attn.attention %q, %q, %q {attn.gpu_kernel = #attn.gpu_kernel<chip = "sm_90a", block_q = 64, block_k = 64, warps = 4, m_tiles = 1, stages = 2, q_in_smem = true, trim_keys = true>} : tensor<2x8x16x64xf16>, tensor<2x8x16x64xf16>, tensor<2x8x16x64xf16> -> tensor<2x8x16x64xf16>
  return %o : tensor<2x8x16x64xf16>
}

// -----

// #attn.gpu_kernel: the kept row maximum is the wgmma kernel's.
func.func @gpu_kernel_lazy_rescale_mma_sync(%q: tensor<2x8x16x64xf16>) -> tensor<2x8x16x64xf16> {
  // expected-error @+1 {{expected wgmma = true with lazy_rescale = true (the kept row maximum is the wgmma kernel's)}}
  %o = attn.attention %q, %q, %q {attn.gpu_kernel = #attn.gpu_kernel<chip = "sm_90a", block_q = 64, block_k = 64, warps = 4, m_tiles = 1, stages = 2, q_in_smem = true, lazy_rescale = true>} : tensor<2x8x16x64xf16>, tensor<2x8x16x64xf16>, tensor<2x8x16x64xf16> -> tensor<2x8x16x64xf16>
  return %o : tensor<2x8x16x64xf16>
}

// -----

// #attn.gpu_kernel: the persistent grid is the wgmma kernel's.
func.func @gpu_kernel_persistent_mma_sync(%q: tensor<2x8x16x64xf16>) -> tensor<2x8x16x64xf16> {
  // expected-error @+1 {{expected wgmma = true with persistent = true (the persistent grid is the wgmma kernel's)}}
  %o = attn.attention %q, %q, %q {attn.gpu_kernel = #attn.gpu_kernel<chip = "sm_90a", block_q = 64, block_k = 64, warps = 4, m_tiles = 1, stages = 2, q_in_smem = true, persistent = true>} : tensor<2x8x16x64xf16>, tensor<2x8x16x64xf16>, tensor<2x8x16x64xf16> -> tensor<2x8x16x64xf16>
  return %o : tensor<2x8x16x64xf16>
}

// -----

// #attn.gpu_kernel: wgmma takes true or false.
func.func @gpu_kernel_wgmma_bool(%q: tensor<2x8x16x64xf16>) -> tensor<2x8x16x64xf16> {
  // expected-error @+1 {{expected wgmma = true or false, got yes}}
  %o = attn.attention %q, %q, %q {attn.gpu_kernel = #attn.gpu_kernel<chip = "sm_90a", block_q = 64, block_k = 64, warps = 4, m_tiles = 1, stages = 2, q_in_smem = true, wgmma = yes>} : tensor<2x8x16x64xf16>, tensor<2x8x16x64xf16>, tensor<2x8x16x64xf16> -> tensor<2x8x16x64xf16>
  return %o : tensor<2x8x16x64xf16>
}

// -----

// A ragged batch (cu_seqlens_q, cu_seqlens_k): ragged k without q.
!rq = tensor<1x8x?x64xbf16>
!rq2 = tensor<2x8x?x64xbf16>
!rk = tensor<1x2x?x64xbf16>
!rk2 = tensor<2x2x?x64xbf16>
!rkc = tensor<3x2x?x64xbf16>
func.func @ragged_k_without_q(%q: !rq, %q2: !rq2, %k: !rk, %k2: !rk2, %kc: !rkc, %c: tensor<4xi32>, %c1: tensor<1xi32>, %c5: tensor<5xi32>, %c2: tensor<2x2xi32>, %c64: tensor<4xi64>, %l: tensor<3xi32>, %l2: tensor<2xi32>, %bm: tensor<1x1x1x1xi8>) -> !rq {
  // expected-error @+1 {{expected cu_seqlens_q with cu_seqlens_k (a ragged batch packs its queries too)}}
  %o = attn.attention %q, %k, %k cu_seqlens_k(%c : tensor<4xi32>) : !rq, !rk, !rk -> !rq
  return %o : !rq
}

// -----

// A ragged batch (cu_seqlens_q, cu_seqlens_k): ragged rank.
!rq = tensor<1x8x?x64xbf16>
!rq2 = tensor<2x8x?x64xbf16>
!rk = tensor<1x2x?x64xbf16>
!rk2 = tensor<2x2x?x64xbf16>
!rkc = tensor<3x2x?x64xbf16>
func.func @ragged_rank(%q: !rq, %q2: !rq2, %k: !rk, %k2: !rk2, %kc: !rkc, %c: tensor<4xi32>, %c1: tensor<1xi32>, %c5: tensor<5xi32>, %c2: tensor<2x2xi32>, %c64: tensor<4xi64>, %l: tensor<3xi32>, %l2: tensor<2xi32>, %bm: tensor<1x1x1x1xi8>) -> !rq {
  // expected-error @+1 {{expected cu_seqlens_q to have rank 1 ([N + 1]), got rank 2}}
  %o = attn.attention %q, %k, %k cu_seqlens_q(%c2 : tensor<2x2xi32>) cu_seqlens_k(%c : tensor<4xi32>) : !rq, !rk, !rk -> !rq
  return %o : !rq
}

// -----

// A ragged batch (cu_seqlens_q, cu_seqlens_k): ragged type.
!rq = tensor<1x8x?x64xbf16>
!rq2 = tensor<2x8x?x64xbf16>
!rk = tensor<1x2x?x64xbf16>
!rk2 = tensor<2x2x?x64xbf16>
!rkc = tensor<3x2x?x64xbf16>
func.func @ragged_type(%q: !rq, %q2: !rq2, %k: !rk, %k2: !rk2, %kc: !rkc, %c: tensor<4xi32>, %c1: tensor<1xi32>, %c5: tensor<5xi32>, %c2: tensor<2x2xi32>, %c64: tensor<4xi64>, %l: tensor<3xi32>, %l2: tensor<2xi32>, %bm: tensor<1x1x1x1xi8>) -> !rq {
  // expected-error @+1 {{expected cu_seqlens_q element type 'i32', got 'i64'}}
  %o = attn.attention %q, %k, %k cu_seqlens_q(%c64 : tensor<4xi64>) cu_seqlens_k(%c : tensor<4xi32>) : !rq, !rk, !rk -> !rq
  return %o : !rq
}

// -----

// A ragged batch (cu_seqlens_q, cu_seqlens_k): ragged one offset.
!rq = tensor<1x8x?x64xbf16>
!rq2 = tensor<2x8x?x64xbf16>
!rk = tensor<1x2x?x64xbf16>
!rk2 = tensor<2x2x?x64xbf16>
!rkc = tensor<3x2x?x64xbf16>
func.func @ragged_one_offset(%q: !rq, %q2: !rq2, %k: !rk, %k2: !rk2, %kc: !rkc, %c: tensor<4xi32>, %c1: tensor<1xi32>, %c5: tensor<5xi32>, %c2: tensor<2x2xi32>, %c64: tensor<4xi64>, %l: tensor<3xi32>, %l2: tensor<2xi32>, %bm: tensor<1x1x1x1xi8>) -> !rq {
  // expected-error @+1 {{expected cu_seqlens_q to hold at least 2 offsets (one sequence), got 1}}
  %o = attn.attention %q, %k, %k cu_seqlens_q(%c1 : tensor<1xi32>) cu_seqlens_k(%c1 : tensor<1xi32>) : !rq, !rk, !rk -> !rq
  return %o : !rq
}

// -----

// A ragged batch (cu_seqlens_q, cu_seqlens_k): ragged batch.
!rq = tensor<1x8x?x64xbf16>
!rq2 = tensor<2x8x?x64xbf16>
!rk = tensor<1x2x?x64xbf16>
!rk2 = tensor<2x2x?x64xbf16>
!rkc = tensor<3x2x?x64xbf16>
func.func @ragged_batch(%q: !rq, %q2: !rq2, %k: !rk, %k2: !rk2, %kc: !rkc, %c: tensor<4xi32>, %c1: tensor<1xi32>, %c5: tensor<5xi32>, %c2: tensor<2x2xi32>, %c64: tensor<4xi64>, %l: tensor<3xi32>, %l2: tensor<2xi32>, %bm: tensor<1x1x1x1xi8>) -> !rq2 {
  // expected-error @+1 {{expected query batch 1 with cu_seqlens_q (the sequences are packed along Sq), got 2}}
  %o = attn.attention %q2, %k2, %k2 cu_seqlens_q(%c : tensor<4xi32>) cu_seqlens_k(%c : tensor<4xi32>) : !rq2, !rk2, !rk2 -> !rq2
  return %o : !rq2
}

// -----

// A ragged batch (cu_seqlens_q, cu_seqlens_k): ragged both keys.
!rq = tensor<1x8x?x64xbf16>
!rq2 = tensor<2x8x?x64xbf16>
!rk = tensor<1x2x?x64xbf16>
!rk2 = tensor<2x2x?x64xbf16>
!rkc = tensor<3x2x?x64xbf16>
func.func @ragged_both_keys(%q: !rq, %q2: !rq2, %k: !rk, %k2: !rk2, %kc: !rkc, %c: tensor<4xi32>, %c1: tensor<1xi32>, %c5: tensor<5xi32>, %c2: tensor<2x2xi32>, %c64: tensor<4xi64>, %l: tensor<3xi32>, %l2: tensor<2xi32>, %bm: tensor<1x1x1x1xi8>) -> !rq {
  // expected-error @+1 {{expected either cu_seqlens_k (packed keys) or kv_lens (a cache), not both}}
  %o = attn.attention %q, %kc, %kc kv_lens(%l : tensor<3xi32>) cu_seqlens_q(%c : tensor<4xi32>) cu_seqlens_k(%c : tensor<4xi32>) : !rq, !rkc, !rkc -> !rq
  return %o : !rq
}

// -----

// A ragged batch (cu_seqlens_q, cu_seqlens_k): ragged no keys.
!rq = tensor<1x8x?x64xbf16>
!rq2 = tensor<2x8x?x64xbf16>
!rk = tensor<1x2x?x64xbf16>
!rk2 = tensor<2x2x?x64xbf16>
!rkc = tensor<3x2x?x64xbf16>
func.func @ragged_no_keys(%q: !rq, %q2: !rq2, %k: !rk, %k2: !rk2, %kc: !rkc, %c: tensor<4xi32>, %c1: tensor<1xi32>, %c5: tensor<5xi32>, %c2: tensor<2x2xi32>, %c64: tensor<4xi64>, %l: tensor<3xi32>, %l2: tensor<2xi32>, %bm: tensor<1x1x1x1xi8>) -> !rq {
  // expected-error @+1 {{expected cu_seqlens_k (packed keys) or kv_lens (a cache) with cu_seqlens_q: where each sequence's keys are}}
  %o = attn.attention %q, %k, %k cu_seqlens_q(%c : tensor<4xi32>) : !rq, !rk, !rk -> !rq
  return %o : !rq
}

// -----

// A ragged batch (cu_seqlens_q, cu_seqlens_k): ragged k length.
!rq = tensor<1x8x?x64xbf16>
!rq2 = tensor<2x8x?x64xbf16>
!rk = tensor<1x2x?x64xbf16>
!rk2 = tensor<2x2x?x64xbf16>
!rkc = tensor<3x2x?x64xbf16>
func.func @ragged_k_length(%q: !rq, %q2: !rq2, %k: !rk, %k2: !rk2, %kc: !rkc, %c: tensor<4xi32>, %c1: tensor<1xi32>, %c5: tensor<5xi32>, %c2: tensor<2x2xi32>, %c64: tensor<4xi64>, %l: tensor<3xi32>, %l2: tensor<2xi32>, %bm: tensor<1x1x1x1xi8>) -> !rq {
  // expected-error @+1 {{expected cu_seqlens_k length 5 to match cu_seqlens_q length 4}}
  %o = attn.attention %q, %k, %k cu_seqlens_q(%c : tensor<4xi32>) cu_seqlens_k(%c5 : tensor<5xi32>) : !rq, !rk, !rk -> !rq
  return %o : !rq
}

// -----

// A ragged batch (cu_seqlens_q, cu_seqlens_k): ragged k type.
!rq = tensor<1x8x?x64xbf16>
!rq2 = tensor<2x8x?x64xbf16>
!rk = tensor<1x2x?x64xbf16>
!rk2 = tensor<2x2x?x64xbf16>
!rkc = tensor<3x2x?x64xbf16>
func.func @ragged_k_type(%q: !rq, %q2: !rq2, %k: !rk, %k2: !rk2, %kc: !rkc, %c: tensor<4xi32>, %c1: tensor<1xi32>, %c5: tensor<5xi32>, %c2: tensor<2x2xi32>, %c64: tensor<4xi64>, %l: tensor<3xi32>, %l2: tensor<2xi32>, %bm: tensor<1x1x1x1xi8>) -> !rq {
  // expected-error @+1 {{expected cu_seqlens_k element type 'i32', got 'i64'}}
  %o = attn.attention %q, %k, %k cu_seqlens_q(%c : tensor<4xi32>) cu_seqlens_k(%c64 : tensor<4xi64>) : !rq, !rk, !rk -> !rq
  return %o : !rq
}

// -----

// A ragged batch (cu_seqlens_q, cu_seqlens_k): ragged document.
!rq = tensor<1x8x?x64xbf16>
!rq2 = tensor<2x8x?x64xbf16>
!rk = tensor<1x2x?x64xbf16>
!rk2 = tensor<2x2x?x64xbf16>
!rkc = tensor<3x2x?x64xbf16>
func.func @ragged_document(%q: !rq, %q2: !rq2, %k: !rk, %k2: !rk2, %kc: !rkc, %c: tensor<4xi32>, %c1: tensor<1xi32>, %c5: tensor<5xi32>, %c2: tensor<2x2xi32>, %c64: tensor<4xi64>, %l: tensor<3xi32>, %l2: tensor<2xi32>, %bm: tensor<1x1x1x1xi8>) -> !rq {
  // expected-error @+1 {{expected no document mask with cu_seqlens_q (the sequences of a ragged batch are already apart)}}
  %o = attn.attention %q, %k, %k cu_seqlens(%c : tensor<4xi32>) cu_seqlens_q(%c : tensor<4xi32>) cu_seqlens_k(%c : tensor<4xi32>) mask(#attn.document<cu_seqlens>) : !rq, !rk, !rk -> !rq
  return %o : !rq
}

// -----

// A ragged batch (cu_seqlens_q, cu_seqlens_k): ragged block sparse.
!rq = tensor<1x8x?x64xbf16>
!rq2 = tensor<2x8x?x64xbf16>
!rk = tensor<1x2x?x64xbf16>
!rk2 = tensor<2x2x?x64xbf16>
!rkc = tensor<3x2x?x64xbf16>
func.func @ragged_block_sparse(%q: !rq, %q2: !rq2, %k: !rk, %k2: !rk2, %kc: !rkc, %c: tensor<4xi32>, %c1: tensor<1xi32>, %c5: tensor<5xi32>, %c2: tensor<2x2xi32>, %c64: tensor<4xi64>, %l: tensor<3xi32>, %l2: tensor<2xi32>, %bm: tensor<2x1x?x?xi8>) -> !rq {
  // expected-error @+1 {{expected block_mask batch 2 to be 1 or match the sequence count 3}}
  %o = attn.attention %q, %k, %k block_mask(%bm : tensor<2x1x?x?xi8>) cu_seqlens_q(%c : tensor<4xi32>) cu_seqlens_k(%c : tensor<4xi32>) mask(#attn.block_sparse<block_q = 64, block_k = 64>) : !rq, !rk, !rk -> !rq
  return %o : !rq
}

// -----

// A ragged batch (cu_seqlens_q, cu_seqlens_k): ragged cache batch.
!rq = tensor<1x8x?x64xbf16>
!rq2 = tensor<2x8x?x64xbf16>
!rk = tensor<1x2x?x64xbf16>
!rk2 = tensor<2x2x?x64xbf16>
!rkc = tensor<3x2x?x64xbf16>
func.func @ragged_cache_batch(%q: !rq, %q2: !rq2, %k: !rk, %k2: !rk2, %kc: !rkc, %c: tensor<4xi32>, %c1: tensor<1xi32>, %c5: tensor<5xi32>, %c2: tensor<2x2xi32>, %c64: tensor<4xi64>, %l: tensor<3xi32>, %l2: tensor<2xi32>, %bm: tensor<1x1x1x1xi8>) -> !rq {
  // expected-error @+1 {{expected key batch 2 to match sequence count 3}}
  %o = attn.attention %q, %k2, %k2 kv_lens(%l : tensor<3xi32>) cu_seqlens_q(%c : tensor<4xi32>) : !rq, !rk2, !rk2 -> !rq
  return %o : !rq
}

// -----

// A ragged batch (cu_seqlens_q, cu_seqlens_k): ragged kv lens length.
!rq = tensor<1x8x?x64xbf16>
!rq2 = tensor<2x8x?x64xbf16>
!rk = tensor<1x2x?x64xbf16>
!rk2 = tensor<2x2x?x64xbf16>
!rkc = tensor<3x2x?x64xbf16>
func.func @ragged_kv_lens_length(%q: !rq, %q2: !rq2, %k: !rk, %k2: !rk2, %kc: !rkc, %c: tensor<4xi32>, %c1: tensor<1xi32>, %c5: tensor<5xi32>, %c2: tensor<2x2xi32>, %c64: tensor<4xi64>, %l: tensor<3xi32>, %l2: tensor<2xi32>, %bm: tensor<1x1x1x1xi8>) -> !rq {
  // expected-error @+1 {{expected kv_lens length 2 to match sequence count 3}}
  %o = attn.attention %q, %kc, %kc kv_lens(%l2 : tensor<2xi32>) cu_seqlens_q(%c : tensor<4xi32>) : !rq, !rkc, !rkc -> !rq
  return %o : !rq
}

// -----

// A ragged batch (cu_seqlens_q, cu_seqlens_k): ragged packed key batch.
!rq = tensor<1x8x?x64xbf16>
!rq2 = tensor<2x8x?x64xbf16>
!rk = tensor<1x2x?x64xbf16>
!rk2 = tensor<2x2x?x64xbf16>
!rkc = tensor<3x2x?x64xbf16>
func.func @ragged_packed_key_batch(%q: !rq, %q2: !rq2, %k: !rk, %k2: !rk2, %kc: !rkc, %c: tensor<4xi32>, %c1: tensor<1xi32>, %c5: tensor<5xi32>, %c2: tensor<2x2xi32>, %c64: tensor<4xi64>, %l: tensor<3xi32>, %l2: tensor<2xi32>, %bm: tensor<1x1x1x1xi8>) -> !rq {
  // expected-error @+1 {{expected key batch 2 to match the packed keys' batch 1}}
  %o = attn.attention %q, %k2, %k2 cu_seqlens_q(%c : tensor<4xi32>) cu_seqlens_k(%c : tensor<4xi32>) : !rq, !rk2, !rk2 -> !rq
  return %o : !rq
}

// -----

// #attn.gpu_kernel: the wgmma kernel always loads by TMA; tma_loads is the
// mma.sync kernel's.
func.func @gpu_kernel_tma_loads_wgmma(%q: tensor<2x8x16x64xf16>) -> tensor<2x8x16x64xf16> {
  // expected-error @+1 {{expected tma_loads only without wgmma (the wgmma kernel loads every tile by TMA)}}
  %o = attn.attention %q, %q, %q {attn.gpu_kernel = #attn.gpu_kernel<chip = "sm_90a", block_q = 64, block_k = 64, warps = 4, m_tiles = 1, stages = 2, q_in_smem = true, wgmma = true, tma_loads = true>} : tensor<2x8x16x64xf16>, tensor<2x8x16x64xf16>, tensor<2x8x16x64xf16> -> tensor<2x8x16x64xf16>
  return %o : tensor<2x8x16x64xf16>
}

// -----

// #attn.gpu_kernel: with tma_loads Q stays in registers.
func.func @gpu_kernel_tma_loads_q_in_smem(%q: tensor<2x8x16x64xf16>) -> tensor<2x8x16x64xf16> {
  // expected-error @+1 {{expected q_in_smem = false with tma_loads (the swizzled ring holds K and V only)}}
  %o = attn.attention %q, %q, %q {attn.gpu_kernel = #attn.gpu_kernel<chip = "sm_90a", block_q = 64, block_k = 64, warps = 4, m_tiles = 1, stages = 2, q_in_smem = true, tma_loads = true>} : tensor<2x8x16x64xf16>, tensor<2x8x16x64xf16>, tensor<2x8x16x64xf16> -> tensor<2x8x16x64xf16>
  return %o : tensor<2x8x16x64xf16>
}
