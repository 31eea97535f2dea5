// RUN: attnc-opt %s --attn-choose-gpu-kernel=chip=sm_80 --attn-tile --attn-skip-masked-tiles --convert-attn-to-gpu --split-input-file --verify-diagnostics

// Every error of attn-choose-gpu-kernel and convert-attn-to-gpu names the
// target chip and what it cannot do.

// The tensor cores take bf16 or f16 only.
func.func @f32_inputs(%q: tensor<?x4x?x64xf32>, %k: tensor<?x2x?x64xf32>, %v: tensor<?x2x?x64xf32>) -> tensor<?x4x?x64xf32> {
  // expected-error @+1 {{expected bf16 or f16 inputs for target sm_80, got 'f32'}}
  %o = attn.attention %q, %k, %v : tensor<?x4x?x64xf32>, tensor<?x2x?x64xf32>, tensor<?x2x?x64xf32> -> tensor<?x4x?x64xf32>
  return %o : tensor<?x4x?x64xf32>
}

// -----

// Head dims must be multiples of 16 (the mma k step).
func.func @head_dim_72(%q: tensor<?x4x?x72xbf16>, %k: tensor<?x2x?x72xbf16>, %v: tensor<?x2x?x72xbf16>) -> tensor<?x4x?x72xbf16> {
  // expected-error @+1 {{expected head dim to be a multiple of 16 up to 256 for target sm_80, got 72}}
  %o = attn.attention %q, %k, %v : tensor<?x4x?x72xbf16>, tensor<?x2x?x72xbf16>, tensor<?x2x?x72xbf16> -> tensor<?x4x?x72xbf16>
  return %o : tensor<?x4x?x72xbf16>
}

// -----

// The value head dim too.
func.func @value_head_dim_40(%q: tensor<?x4x?x64xbf16>, %k: tensor<?x2x?x64xbf16>, %v: tensor<?x2x?x40xbf16>) -> tensor<?x4x?x40xbf16> {
  // expected-error @+1 {{expected value head dim to be a multiple of 16 up to 256 for target sm_80, got 40}}
  %o = attn.attention %q, %k, %v : tensor<?x4x?x64xbf16>, tensor<?x2x?x64xbf16>, tensor<?x2x?x40xbf16> -> tensor<?x4x?x40xbf16>
  return %o : tensor<?x4x?x40xbf16>
}

// -----

// One kernel per module: a second attention is an error on the module.
// expected-error @+1 {{expected exactly one tiled attention, found 2}}
module {
  func.func @two_attentions(%q: tensor<?x4x?x64xbf16>, %k: tensor<?x2x?x64xbf16>, %v: tensor<?x2x?x64xbf16>) -> (tensor<?x4x?x64xbf16>, tensor<?x4x?x64xbf16>) {
    // expected-remark @+1 {{attn-skip-masked-tiles: mask none: closed-form bounds}}
    %a = attn.attention %q, %k, %v : tensor<?x4x?x64xbf16>, tensor<?x2x?x64xbf16>, tensor<?x2x?x64xbf16> -> tensor<?x4x?x64xbf16>
    // expected-remark @+1 {{attn-skip-masked-tiles: mask #attn.causal: closed-form bounds}}
    %b = attn.attention %q, %k, %v mask(#attn.causal) : tensor<?x4x?x64xbf16>, tensor<?x2x?x64xbf16>, tensor<?x2x?x64xbf16> -> tensor<?x4x?x64xbf16>
    return %a, %b : tensor<?x4x?x64xbf16>, tensor<?x4x?x64xbf16>
  }
}


// -----

// convert-attn-to-gpu needs a configuration, chosen by the pass before it
// or given by hand; a pinned one is kept, and checked against the target.
func.func @stages_3(%q: tensor<?x4x?x64xbf16>, %k: tensor<?x2x?x64xbf16>, %v: tensor<?x2x?x64xbf16>) -> tensor<?x4x?x64xbf16> {
  // expected-error @+1 {{expected stages = 2 for target sm_80 (cp.async double buffering), got 3}}
  %o = attn.attention %q, %k, %v {attn.gpu_kernel = #attn.gpu_kernel<chip = "sm_80", block_q = 128, block_k = 64, warps = 4, m_tiles = 2, stages = 3, q_in_smem = false>} : tensor<?x4x?x64xbf16>, tensor<?x2x?x64xbf16>, tensor<?x2x?x64xbf16> -> tensor<?x4x?x64xbf16>
  return %o : tensor<?x4x?x64xbf16>
}

// -----

// Warpgroup MMA is a Hopper instruction.
func.func @wgmma_on_sm80(%q: tensor<?x4x?x64xbf16>, %k: tensor<?x2x?x64xbf16>, %v: tensor<?x2x?x64xbf16>) -> tensor<?x4x?x64xbf16> {
  // expected-error @+1 {{expected wgmma = false for target sm_80: warpgroup MMA needs sm_90a}}
  %o = attn.attention %q, %k, %v {attn.gpu_kernel = #attn.gpu_kernel<chip = "sm_80", block_q = 64, block_k = 64, warps = 4, m_tiles = 1, stages = 2, q_in_smem = true, wgmma = true>} : tensor<?x4x?x64xbf16>, tensor<?x2x?x64xbf16>, tensor<?x2x?x64xbf16> -> tensor<?x4x?x64xbf16>
  return %o : tensor<?x4x?x64xbf16>
}

// -----

func.func @other_chip(%q: tensor<?x4x?x64xbf16>, %k: tensor<?x2x?x64xbf16>, %v: tensor<?x2x?x64xbf16>) -> tensor<?x4x?x64xbf16> {
  // expected-error @+1 {{expected #attn.gpu_kernel chip "sm_90a" to match the target sm_80}}
  %o = attn.attention %q, %k, %v {attn.gpu_kernel = #attn.gpu_kernel<chip = "sm_90a", block_q = 128, block_k = 64, warps = 4, m_tiles = 2, stages = 2, q_in_smem = false>} : tensor<?x4x?x64xbf16>, tensor<?x2x?x64xbf16>, tensor<?x2x?x64xbf16> -> tensor<?x4x?x64xbf16>
  return %o : tensor<?x4x?x64xbf16>
}

// -----

func.func @three_m_tiles(%q: tensor<?x4x?x64xbf16>, %k: tensor<?x2x?x64xbf16>, %v: tensor<?x2x?x64xbf16>) -> tensor<?x4x?x64xbf16> {
  // expected-error @+1 {{expected m_tiles 1 or 2 for target sm_80, got 3}}
  %o = attn.attention %q, %k, %v {attn.gpu_kernel = #attn.gpu_kernel<chip = "sm_80", block_q = 96, block_k = 64, warps = 2, m_tiles = 3, stages = 2, q_in_smem = false>} : tensor<?x4x?x64xbf16>, tensor<?x2x?x64xbf16>, tensor<?x2x?x64xbf16> -> tensor<?x4x?x64xbf16>
  return %o : tensor<?x4x?x64xbf16>
}

// -----

// Shared memory: 2 stages x 256 keys x (264 + 264) x 2 bytes, plus the Q
// tile of 128 x 264 x 2 bytes: 608256 bytes.
func.func @too_much_shared_memory(%q: tensor<?x4x?x256xbf16>, %k: tensor<?x2x?x256xbf16>, %v: tensor<?x2x?x256xbf16>) -> tensor<?x4x?x256xbf16> {
  // expected-error @+1 {{expected the kernel's shared memory (608256 bytes for #attn.gpu_kernel<chip = "sm_80", block_q = 128, block_k = 256, warps = 8, m_tiles = 1, stages = 2, q_in_smem = true>) to fit the 166912 bytes of a block on sm_80}}
  %o = attn.attention %q, %k, %v {attn.gpu_kernel = #attn.gpu_kernel<chip = "sm_80", block_q = 128, block_k = 256, warps = 8, m_tiles = 1, stages = 2, q_in_smem = true>} : tensor<?x4x?x256xbf16>, tensor<?x2x?x256xbf16>, tensor<?x2x?x256xbf16> -> tensor<?x4x?x256xbf16>
  return %o : tensor<?x4x?x256xbf16>
}

// -----

func.func @not_a_kernel_attr(%q: tensor<?x4x?x64xbf16>, %k: tensor<?x2x?x64xbf16>, %v: tensor<?x2x?x64xbf16>) -> tensor<?x4x?x64xbf16> {
  // expected-error @+1 {{expected attn.gpu_kernel to be an #attn.gpu_kernel, got "fast"}}
  %o = attn.attention %q, %k, %v {attn.gpu_kernel = "fast"} : tensor<?x4x?x64xbf16>, tensor<?x2x?x64xbf16>, tensor<?x2x?x64xbf16> -> tensor<?x4x?x64xbf16>
  return %o : tensor<?x4x?x64xbf16>
}

// -----

func.func @pack_not_group(%q: tensor<?x4x?x64xbf16>, %k: tensor<?x2x?x64xbf16>, %v: tensor<?x2x?x64xbf16>) -> tensor<?x4x?x64xbf16> {
  // expected-error @+1 {{expected gqa_pack = 1 or the query heads per KV head (2), got 4}}
  %o = attn.attention %q, %k, %v {attn.gpu_kernel = #attn.gpu_kernel<chip = "sm_80", block_q = 16, block_k = 64, warps = 1, m_tiles = 1, stages = 2, q_in_smem = false, gqa_pack = 4>} : tensor<?x4x?x64xbf16>, tensor<?x2x?x64xbf16>, tensor<?x2x?x64xbf16> -> tensor<?x4x?x64xbf16>
  return %o : tensor<?x4x?x64xbf16>
}

// -----

func.func @pack_alibi(%q: tensor<?x4x?x64xbf16>, %k: tensor<?x2x?x64xbf16>, %v: tensor<?x2x?x64xbf16>) -> tensor<?x4x?x64xbf16> {
  // expected-error @+1 {{expected gqa_pack = 1 for this attention: ALiBi slopes differ per query head}}
  %o = attn.attention %q, %k, %v alibi = [0.5, 0.25, 0.125, 0.0625] {attn.gpu_kernel = #attn.gpu_kernel<chip = "sm_80", block_q = 16, block_k = 64, warps = 1, m_tiles = 1, stages = 2, q_in_smem = false, gqa_pack = 2>} : tensor<?x4x?x64xbf16>, tensor<?x2x?x64xbf16>, tensor<?x2x?x64xbf16> -> tensor<?x4x?x64xbf16>
  return %o : tensor<?x4x?x64xbf16>
}

// -----

func.func @pack_block_mask(%q: tensor<?x4x?x64xbf16>, %k: tensor<?x2x?x64xbf16>, %v: tensor<?x2x?x64xbf16>, %m: tensor<1x1x?x?xi8>) -> tensor<?x4x?x64xbf16> {
  // expected-error @+1 {{expected gqa_pack = 1 for this attention: a block mask may differ per query head}}
  %o = attn.attention %q, %k, %v block_mask(%m : tensor<1x1x?x?xi8>) mask(#attn.block_sparse<block_q = 64, block_k = 64>) {attn.gpu_kernel = #attn.gpu_kernel<chip = "sm_80", block_q = 16, block_k = 64, warps = 1, m_tiles = 1, stages = 2, q_in_smem = false, gqa_pack = 2>} : tensor<?x4x?x64xbf16>, tensor<?x2x?x64xbf16>, tensor<?x2x?x64xbf16> -> tensor<?x4x?x64xbf16>
  return %o : tensor<?x4x?x64xbf16>
}

// -----

func.func @pack_q_in_smem(%q: tensor<?x4x?x64xbf16>, %k: tensor<?x2x?x64xbf16>, %v: tensor<?x2x?x64xbf16>) -> tensor<?x4x?x64xbf16> {
  // expected-error @+1 {{expected q_in_smem = false with gqa_pack = 2 on target sm_80 (packed Q rows are loaded into registers)}}
  %o = attn.attention %q, %k, %v {attn.gpu_kernel = #attn.gpu_kernel<chip = "sm_80", block_q = 16, block_k = 64, warps = 1, m_tiles = 1, stages = 2, q_in_smem = true, gqa_pack = 2>} : tensor<?x4x?x64xbf16>, tensor<?x2x?x64xbf16>, tensor<?x2x?x64xbf16> -> tensor<?x4x?x64xbf16>
  return %o : tensor<?x4x?x64xbf16>
}

// -----

func.func @key_warps_two_row_groups(%q: tensor<?x4x?x64xbf16>, %k: tensor<?x2x?x64xbf16>, %v: tensor<?x2x?x64xbf16>) -> tensor<?x4x?x64xbf16> {
  // expected-error @+1 {{expected m_tiles = 1 and warps = key_warps with key_warps = 2 on target sm_80 (one 16-row tile shared by all warps)}}
  %o = attn.attention %q, %k, %v {attn.gpu_kernel = #attn.gpu_kernel<chip = "sm_80", block_q = 32, block_k = 64, warps = 4, m_tiles = 1, stages = 2, q_in_smem = false, key_warps = 2>} : tensor<?x4x?x64xbf16>, tensor<?x2x?x64xbf16>, tensor<?x2x?x64xbf16> -> tensor<?x4x?x64xbf16>
  return %o : tensor<?x4x?x64xbf16>
}

// -----

// An fp8 cache needs the e4m3 conversions of sm_89 and later (it runs on
// sm_90a: convert-attn-to-gpu-kv-cache.mlir).
func.func @fp8_kv(%q: tensor<2x4x?x64xbf16>, %k: tensor<2x2x?x64xf8E4M3FN>, %v: tensor<2x2x?x64xf8E4M3FN>, %s: tensor<2x2xf32>) -> tensor<2x4x?x64xbf16> {
  // expected-error @+1 {{expected bf16 or f16 keys and values for target sm_80: an fp8 e4m3 cache (kv_scales) needs the e4m3 conversions of sm_89 and later (target sm_90a)}}
  %o = attn.attention %q, %k, %v kv_scales(%s : tensor<2x2xf32>) mask(#attn.causal) : tensor<2x4x?x64xbf16>, tensor<2x2x?x64xf8E4M3FN>, tensor<2x2x?x64xf8E4M3FN> -> tensor<2x4x?x64xbf16>
  return %o : tensor<2x4x?x64xbf16>
}

// -----

// TMA loads need sm_90a.
func.func @tma_loads_sm80(%q: tensor<?x8x1x128xbf16>, %k: tensor<?x2x?x128xbf16>) -> tensor<?x8x1x128xbf16> {
  // expected-error @+1 {{expected tma_loads = false for target sm_80: TMA needs sm_90a}}
  %o = attn.attention %q, %k, %k {attn.decode, attn.gpu_kernel = #attn.gpu_kernel<chip = "sm_80", block_q = 16, block_k = 64, warps = 4, m_tiles = 1, stages = 2, q_in_smem = false, gqa_pack = 4, key_warps = 4, split_kv = true, tma_loads = true>} : tensor<?x8x1x128xbf16>, tensor<?x2x?x128xbf16>, tensor<?x2x?x128xbf16> -> tensor<?x8x1x128xbf16>
  return %o : tensor<?x8x1x128xbf16>
}
