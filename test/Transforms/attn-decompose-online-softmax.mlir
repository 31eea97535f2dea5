// RUN: attnc-opt %s --attn-decompose-online-softmax --split-input-file | FileCheck %s

!q = memref<1x4x?x16xbf16>
!kv = memref<1x2x?x16xbf16>

// A boundary tile of a causal mask. Per row r (query i = q0 + r):
//   [lo, hi) = keys row i sees (the mask interface's interval)
//   s_j = scale * q.k_j * log2(e), -inf where j is not in [lo, hi)
//   m' = max(m, max_j s_j); ref = (m' == -inf) ? 0 : m'; a = exp2(m - ref)
//   p_j = exp2(s_j - ref); l' = a*l + sum_j p_j; O' = a*O + round(p) V
// CHECK-LABEL: func @masked_step
// CHECK-SAME: %[[M:[a-z0-9]+]]: memref<8xf32>, %[[L:[a-z0-9]+]]: memref<8xf32>, %[[ACC:[a-z0-9]+]]: memref<8x16xf32>
// CHECK-DAG: %[[NEGINF:.*]] = arith.constant 0xFF800000 : f32
// CHECK-DAG: %[[LOG2E:.*]] = arith.constant 1.44269502 : f32
// GQA: query head h reads key/value head h / 2.
// CHECK-DAG: %[[KVH:.*]] = arith.divui %[[HEAD:arg7]], %{{.*}} : index
// The score row is on the heap for the step (freed at its end).
// CHECK: %[[S:.*]] = memref.alloc() : memref<4xf32>
// CHECK: scf.for %[[R:.*]] =
// CHECK: %[[ROWMAX:.*]] = scf.for %[[C:.*]] = {{.*}} iter_args(%[[MX:.*]] = %[[NEGINF]])
// CHECK: %[[DOT:.*]] = scf.for {{.*}} iter_args
// CHECK: memref.load %{{.*}}[%{{.*}}, %[[KVH]], %{{.*}}, %{{.*}}] : memref<1x2x?x16xbf16>
// CHECK: arith.extf
// CHECK: %[[SCALED:.*]] = arith.mulf %[[DOT]], %{{.*}} : f32
// CHECK: %[[S2:.*]] = arith.mulf %[[SCALED]], %[[LOG2E]] : f32
// CHECK-DAG: %[[GE:.*]] = arith.cmpi sge,
// CHECK-DAG: %[[LT:.*]] = arith.cmpi slt,
// CHECK: %[[VIS:.*]] = arith.andi %[[GE]], %[[LT]] : i1
// CHECK: %[[MASKED:.*]] = arith.select %[[VIS]], %[[S2]], %[[NEGINF]] : f32
// CHECK: memref.store %[[MASKED]], %[[S]]
// CHECK: arith.maximumf %[[MX]], %[[MASKED]] : f32
// CHECK: %[[MOLD:.*]] = memref.load %[[M]][%[[R]]]
// CHECK: %[[MNEW:.*]] = arith.maximumf %[[MOLD]], %[[ROWMAX]] : f32
// CHECK: %[[NEGINF2:.*]] = arith.constant 0xFF800000 : f32
// CHECK-NEXT: %[[NOKEY:.*]] = arith.cmpf oeq, %[[MNEW]], %[[NEGINF2]] : f32
// CHECK: %[[REF:.*]] = arith.select %[[NOKEY]], %{{.*}}, %[[MNEW]] : f32
// CHECK: %[[DIFF:.*]] = arith.subf %[[MOLD]], %[[REF]] : f32
// CHECK: %[[ALPHA:.*]] = math.exp2 %[[DIFF]] : f32
// CHECK: %[[SUM:.*]] = scf.for
// CHECK: math.exp2
// P is rounded to the input type before PV.
// CHECK: arith.truncf %{{.*}} : f32 to bf16
// CHECK: %[[LOLD:.*]] = memref.load %[[L]][%[[R]]]
// CHECK: %[[AL:.*]] = arith.mulf %[[ALPHA]], %[[LOLD]] : f32
// CHECK: %[[LNEW:.*]] = arith.addf %[[AL]], %[[SUM]] : f32
// CHECK: memref.store %[[LNEW]], %[[L]][%[[R]]]
// CHECK: memref.store %[[MNEW]], %[[M]][%[[R]]]
// CHECK: %[[PV:.*]] = scf.for
// CHECK: %[[O:.*]] = memref.load %[[ACC]]
// CHECK: %[[AO:.*]] = arith.mulf %[[ALPHA]], %[[O]] : f32
// CHECK: arith.addf %[[AO]], %[[PV]] : f32
func.func @masked_step(%q: !q, %k: !kv, %v: !kv, %m: memref<8xf32>, %l: memref<8xf32>, %acc: memref<8x16xf32>, %b: index, %h: index, %q0: index, %k0: index) {
  attn.tile_step %q, %k, %v state(%m, %l, %acc) at(%b, %h, %q0, %k0) mask(#attn.causal) {block_k = 4 : i64, block_q = 8 : i64, scale = 2.500000e-01 : f32} : !q, !kv, !kv, memref<8xf32>, memref<8x16xf32>
  return
}

// -----

// A full tile: the same update with no mask arithmetic at all.
// Proves full tiles carry no mask compare/and/-inf select: each scaled score
// is stored as is, and no arith.cmpi/andi appears anywhere in the step.
// CHECK-LABEL: func @unmasked_step
// CHECK-NOT: arith.cmpi
// CHECK-DAG: %[[NEGINF:.*]] = arith.constant 0xFF800000 : f32
// CHECK-DAG: %[[LOG2E:.*]] = arith.constant 1.44269502 : f32
// CHECK-NOT: arith.cmpi
// CHECK-NOT: arith.andi
// CHECK-NOT: arith.select {{.*}}, %[[NEGINF]] : f32
// CHECK: %[[S2:.*]] = arith.mulf %{{.*}}, %[[LOG2E]] : f32
// CHECK-NEXT: memref.store %[[S2]], %{{.*}} : memref<4xf32>
// CHECK-NOT: arith.cmpi
// CHECK-NOT: arith.andi
// CHECK-NOT: arith.select {{.*}}, %[[NEGINF]] : f32
// CHECK: math.exp2
// CHECK-NOT: arith.cmpi
// CHECK-NOT: arith.andi
// CHECK: return
func.func @unmasked_step(%q: memref<1x4x?x16xf32>, %k: memref<1x2x?x16xf32>, %v: memref<1x2x?x16xf32>, %m: memref<8xf32>, %l: memref<8xf32>, %acc: memref<8x16xf32>, %b: index, %h: index, %q0: index, %k0: index) {
  attn.tile_step %q, %k, %v state(%m, %l, %acc) at(%b, %h, %q0, %k0) mask(#attn.sliding_window<left = 3, right = 2>) {block_k = 4 : i64, block_q = 8 : i64, scale = 2.500000e-01 : f32, unmasked} : memref<1x4x?x16xf32>, memref<1x2x?x16xf32>, memref<1x2x?x16xf32>, memref<8xf32>, memref<8x16xf32>
  return
}

// -----

// Soft-capping, ALiBi and the score region apply in that order, before the
// mask: s = c*tanh(dot*(scale/c)) (scale 1/4, c = 30); s -= slope[h] * |i + Sk - Sq - j|; s = score_fn(s).
// CHECK-LABEL: func @score_modifications
// CHECK: %[[RCP:.*]] = arith.constant 0.00833333377 : f32
// CHECK-NEXT: %[[X:.*]] = arith.mulf %{{.*}}, %[[RCP]] : f32
// CHECK-NEXT: %[[T:.*]] = math.tanh %[[X]] : f32
// CHECK-NEXT: %[[CAP:.*]] = arith.constant 3.000000e+01 : f32
// CHECK-NEXT: %[[CAPPED:.*]] = arith.mulf %[[CAP]], %[[T]] : f32
// CHECK: %[[SLOPE:.*]] = vector.extract %{{.*}}[%{{.*}}] : f32 from vector<4xf32>
// CHECK: arith.sitofp
// CHECK: %[[BIAS:.*]] = arith.mulf %[[SLOPE]], %{{.*}} : f32
// CHECK: %[[ALIBI:.*]] = arith.subf %[[CAPPED]], %[[BIAS]] : f32
// CHECK: %[[REGION:.*]] = arith.mulf %[[ALIBI]], %{{.*}} : f32
// CHECK: arith.mulf %[[REGION]], %{{.*}} : f32
func.func @score_modifications(%q: memref<1x4x?x16xf32>, %k: memref<1x2x?x16xf32>, %v: memref<1x2x?x16xf32>, %m: memref<8xf32>, %l: memref<8xf32>, %acc: memref<8x16xf32>, %b: index, %h: index, %q0: index, %k0: index) {
  attn.tile_step %q, %k, %v state(%m, %l, %acc) at(%b, %h, %q0, %k0) score_fn {
  ^bb0(%s: f32, %bb: index, %hh: index, %i: index, %j: index):
    %two = arith.constant 2.0 : f32
    %r = arith.mulf %s, %two : f32
    attn.yield %r : f32
  } {alibi = array<f32: 0.5, 0.25, 0.125, 0.0625>, block_k = 4 : i64, block_q = 8 : i64, scale = 2.500000e-01 : f32, softcap = 3.000000e+01 : f32, unmasked} : memref<1x4x?x16xf32>, memref<1x2x?x16xf32>, memref<1x2x?x16xf32>, memref<8xf32>, memref<8x16xf32>
  return
}

// -----

// The finalize: O = acc / l (0 for l = 0), LSE = (m + log2 l) * ln 2, -inf
// for l = 0.
// CHECK-LABEL: func @finalize
// CHECK: %[[LV:.*]] = memref.load
// CHECK: %[[EMPTY:.*]] = arith.cmpf oeq, %[[LV]], %{{.*}} : f32
// CHECK: %[[RCP:.*]] = arith.divf %{{.*}}, %[[LV]] : f32
// CHECK: %[[INV:.*]] = arith.select %[[EMPTY]], %{{.*}}, %[[RCP]] : f32
// CHECK: arith.mulf %{{.*}}, %[[INV]] : f32
// CHECK: arith.truncf %{{.*}} : f32 to f16
// CHECK: %[[EMPTY2:.*]] = arith.cmpf oeq, %[[LV]], %{{.*}} : f32
// CHECK: math.log2
// CHECK: arith.mulf %{{.*}}, %cst{{.*}} : f32
// CHECK: arith.select %[[EMPTY2]], %cst{{.*}}, %{{.*}} : f32
func.func @finalize(%m: memref<8xf32>, %l: memref<8xf32>, %acc: memref<8x16xf32>, %o: memref<1x4x?x16xf16>, %lse: memref<1x4x?xf32>, %b: index, %h: index, %q0: index) {
  attn.tile_finalize state(%m, %l, %acc) into %o lse %lse : memref<1x4x?xf32> at(%b, %h, %q0) : memref<8xf32>, memref<8x16xf32>, memref<1x4x?x16xf16>
  return
}

// -----

// A ragged batch: batch operand b is the sequence. Its rows are
// min(8, len_q - q0) with len_q = cu_q[b + 1] - cu_q[b] (clamped), and query
// row q0 + r is read at packed row cu_q[b] + q0 + r of batch entry 0; key
// k0 + c at packed row cu_k[b] + k0 + c.
// CHECK-LABEL: func @ragged_step
// CHECK-SAME: %[[CQ:[a-z0-9]+]]: memref<?xi32>, %[[CK:[a-z0-9]+]]: memref<?xi32>
// CHECK-SAME: %[[B:[a-z0-9]+]]: index, %[[H:[a-z0-9]+]]: index, %[[Q0:[a-z0-9]+]]: index, %[[K0:[a-z0-9]+]]: index
// CHECK: %[[QLEN:.*]] = arith.subi %{{.*}}, %{{.*}} : index
// CHECK: %[[KLEN:.*]] = arith.subi %{{.*}}, %{{.*}} : index
// CHECK: %[[LEFT:.*]] = arith.subi %[[QLEN]], %[[Q0]]
// CHECK: %[[ROWS:.*]] = arith.minsi %c8, %[[LEFT]]
// CHECK: %[[KLEFT:.*]] = arith.subi %[[KLEN]], %[[K0]]
// CHECK: %[[COLS:.*]] = arith.minsi %c4, %[[KLEFT]]
// CHECK: memref.load %[[CQ]][%[[B]]]
// CHECK: %[[QSTART:.*]] = arith.minsi
// CHECK: memref.load %[[CK]][%[[B]]]
// CHECK: %[[KSTART:.*]] = arith.minsi
// CHECK: scf.for %[[R:.*]] = %{{.*}} to %[[ROWS]]
// CHECK: %[[ROW:.*]] = arith.addi %[[Q0]], %[[R]]
// CHECK: %[[QROW:.*]] = arith.addi %[[QSTART]], %[[ROW]]
// CHECK: scf.for %[[C:.*]] = %{{.*}} to %[[COLS]]
// CHECK: %[[COL:.*]] = arith.addi %[[K0]], %[[C]]
// CHECK: %[[KROW:.*]] = arith.addi %[[KSTART]], %[[COL]]
// CHECK: memref.load %{{.*}}[%c0{{.*}}, %[[H]], %[[QROW]], %{{.*}}] : memref<1x4x?x16xf32>
// CHECK: memref.load %{{.*}}[%c0{{.*}}, %{{.*}}, %[[KROW]], %{{.*}}] : memref<1x2x?x16xf32>
func.func @ragged_step(%q: memref<1x4x?x16xf32>, %k: memref<1x2x?x16xf32>, %v: memref<1x2x?x16xf32>, %cq: memref<?xi32>, %ck: memref<?xi32>, %m: memref<8xf32>, %l: memref<8xf32>, %acc: memref<8x16xf32>, %b: index, %h: index, %q0: index, %k0: index) {
  attn.tile_step %q, %k, %v state(%m, %l, %acc) at(%b, %h, %q0, %k0) cu_seqlens_q(%cq : memref<?xi32>) cu_seqlens_k(%ck : memref<?xi32>) {block_k = 4 : i64, block_q = 8 : i64, scale = 1.0 : f32, unmasked} : memref<1x4x?x16xf32>, memref<1x2x?x16xf32>, memref<1x2x?x16xf32>, memref<8xf32>, memref<8x16xf32>
  return
}

// -----

// The finalize of a ragged batch writes the sequence's rows (at most
// len_q - q0) at packed row cu_q[b] + q0 + r of batch entry 0.
// CHECK-LABEL: func @ragged_finalize
// CHECK-SAME: %[[CQ:[a-z0-9]+]]: memref<?xi32>, %[[B:[a-z0-9]+]]: index, %[[H:[a-z0-9]+]]: index, %[[Q0:[a-z0-9]+]]: index
// CHECK: memref.load %[[CQ]][%[[B]]]
// CHECK: %[[START:.*]] = arith.minsi
// CHECK: %[[LEN:.*]] = arith.subi %{{.*}}, %[[START]]
// CHECK: %[[LEFT:.*]] = arith.subi %[[LEN]], %[[Q0]]
// CHECK: %[[ROWS:.*]] = arith.minsi %c8, %[[LEFT]]
// CHECK: scf.for %[[R:.*]] = %{{.*}} to %[[ROWS]]
// CHECK: %[[ROW:.*]] = arith.addi %[[Q0]], %[[R]]
// CHECK: %[[PROW:.*]] = arith.addi %[[START]], %[[ROW]]
// CHECK: memref.store %{{.*}}, %{{.*}}[%c0{{.*}}, %[[H]], %[[PROW]], %{{.*}}] : memref<1x4x?x16xf16>
// CHECK: memref.store %{{.*}}, %{{.*}}[%c0{{.*}}, %[[H]], %[[PROW]]] : memref<1x4x?xf32>
func.func @ragged_finalize(%m: memref<8xf32>, %l: memref<8xf32>, %acc: memref<8x16xf32>, %o: memref<1x4x?x16xf16>, %lse: memref<1x4x?xf32>, %cq: memref<?xi32>, %b: index, %h: index, %q0: index) {
  attn.tile_finalize state(%m, %l, %acc) into %o lse %lse : memref<1x4x?xf32> cu_seqlens_q(%cq : memref<?xi32>) at(%b, %h, %q0) : memref<8xf32>, memref<8x16xf32>, memref<1x4x?x16xf16>
  return
}
