// RUN: attune-opt %s --split-input-file --attune-absorb-kv-projections="explain=true" --verify-diagnostics | FileCheck %s
// RUN: attune-opt %s --split-input-file --attune-absorb-kv-projections --canonicalize | FileCheck %s --check-prefix=FOLD

!x = tensor<?x?x64xf32>
!h = tensor<?x4x?x16xf32>

// Cross-attention over one memory with K and V from one packed GEMM (the
// form attune-decompose gives): the run-time cost rule picks between the
// absorbed form (then) and the original ops, moved (else).
// CHECK-LABEL: func @packed
// CHECK-SAME: (%[[X:.*]]: tensor<?x?x64xf32>, %[[MEM:.*]]: tensor<?x?x64xf32>, %[[WQ:.*]]: tensor<64x64xf32>, %[[WKV:.*]]: tensor<128x64xf32>, %[[BKV:.*]]: tensor<128xf32>)
// CHECK:      %[[QH:.*]] = attune.split_heads
// CHECK:      %[[LQ:.*]] = tensor.dim %[[QH]], %c2
// CHECK:      %[[LK:.*]] = tensor.dim %[[MEM]], %c1
// 4 Lq Ek (D + Lk) < Lk D (Ek + Lq) with Ek = 64, D = 16.
// CHECK:      %[[LK_D:.*]] = arith.addi %[[LK]], %c16
// CHECK:      %[[LQ4E:.*]] = arith.muli %[[LQ]], %c256
// CHECK:      %[[ABS:.*]] = arith.muli %[[LQ4E]], %[[LK_D]]
// CHECK:      %[[LQ_E:.*]] = arith.addi %[[LQ]], %c64
// CHECK:      %[[LKD:.*]] = arith.muli %[[LK]], %c16
// CHECK:      %[[PROJ:.*]] = arith.muli %[[LKD]], %[[LQ_E]]
// CHECK:      %[[COND:.*]] = arith.cmpi ult, %[[ABS]], %[[PROJ]]
// CHECK:      %[[R:.*]] = scf.if %[[COND]] -> (tensor<?x4x?x16xf32>) {
// K's rows of the packed weight, per head: [4, 16, 64].
// CHECK:        %[[WK2:.*]] = attune.slice %[[WKV]] {axis = 0 : i64, offset = 0 : i64, size = 64 : i64}
// CHECK:        %[[WK:.*]] = tensor.expand_shape %[[WK2]] {{\[}}[0, 1], [2]] output_shape [4, 16, 64]
// CHECK:        %[[WV2:.*]] = attune.slice %[[WKV]] {axis = 0 : i64, offset = 64 : i64, size = 64 : i64}
// CHECK:        %[[WV:.*]] = tensor.expand_shape %[[WV2]] {{\[}}[0, 1], [2]] output_shape [4, 16, 64]
// q_h Wk_h, then the 4 Lq rows as one head over the raw memory, scaled by
// the original 1/sqrt(16), with query tiles of at most 16 for the few rows.
// CHECK:        %[[QK:.*]] = attune.matmul %[[QH]], %[[WK]] : (tensor<?x4x?x16xf32>, tensor<4x16x64xf32>) -> tensor<?x4x?x64xf32>
// CHECK:        %[[ROWS:.*]] = tensor.collapse_shape %[[QK]] {{\[}}[0], [1, 2], [3]]
// CHECK:        %[[Q1:.*]] = attune.expand_dims %[[ROWS]] {axis = 1 : i64}
// CHECK:        %[[M1:.*]] = attune.expand_dims %[[MEM]] {axis = 1 : i64}
// CHECK:        %[[A:.*]] = attune.attention %[[Q1]], %[[M1]], %[[M1]] {attune.tile_q_cap = 16 : i64, scale = 2.500000e-01 : f64} : (tensor<?x1x?x64xf32>, tensor<?x1x?x64xf32>, tensor<?x1x?x64xf32>) -> tensor<?x1x?x64xf32>
// CHECK:        %[[A3:.*]] = attune.squeeze %[[A]] {axis = 1 : i64}
// CHECK:        %[[AH:.*]] = tensor.expand_shape %[[A3]] {{\[}}[0], [1, 2], [3]] output_shape [%{{.*}}, 4, %{{.*}}, 64] : tensor<?x?x64xf32> into tensor<?x4x?x64xf32>
// CHECK:        %[[O:.*]] = attune.matmul %[[AH]], %[[WV]] {transpose_rhs} : (tensor<?x4x?x64xf32>, tensor<4x16x64xf32>) -> tensor<?x4x?x16xf32>
// V's bias, once per head (the weights of a row sum to 1).
// CHECK:        %[[BV:.*]] = attune.slice %[[BKV]] {axis = 0 : i64, offset = 64 : i64, size = 64 : i64}
// CHECK:        %[[BVH:.*]] = tensor.expand_shape %[[BV]] {{\[}}[0, 1, 2]] output_shape [4, 1, 16]
// CHECK:        %[[OB:.*]] = attune.add %[[O]], %[[BVH]]
// CHECK:        scf.yield %[[OB]]
// CHECK:      } else {
// CHECK:        %[[KV:.*]] = attune.linear %[[MEM]], %[[WKV]], %[[BKV]]
// CHECK:        attune.slice %[[KV]]
// CHECK:        attune.slice %[[KV]]
// CHECK:        attune.split_heads
// CHECK:        attune.split_heads
// CHECK:        %[[P:.*]] = attune.attention %[[QH]]
// CHECK:        scf.yield %[[P]]
// CHECK:      }
// CHECK:      return %[[R]]
func.func @packed(%x: !x, %mem: !x, %wq: tensor<64x64xf32>, %wkv: tensor<128x64xf32>, %bkv: tensor<128xf32>) -> !h {
  %q = attune.linear %x, %wq : (!x, tensor<64x64xf32>) -> !x
  %kv = attune.linear %mem, %wkv, %bkv : (!x, tensor<128x64xf32>, tensor<128xf32>) -> tensor<?x?x128xf32>
  %k = attune.slice %kv {axis = -1 : i64, offset = 0 : i64, size = 64 : i64} : (tensor<?x?x128xf32>) -> !x
  %v = attune.slice %kv {axis = -1 : i64, offset = 64 : i64, size = 64 : i64} : (tensor<?x?x128xf32>) -> !x
  %qh = attune.split_heads %q {num_heads = 4 : i64} : (!x) -> !h
  %kh = attune.split_heads %k {num_heads = 4 : i64} : (!x) -> !h
  %vh = attune.split_heads %v {num_heads = 4 : i64} : (!x) -> !h
  // expected-remark @+1 {{absorbed the K and V projections into the queries}}
  %o = attune.attention %qh, %kh, %vh : (!h, !h, !h) -> !h
  return %o : !h
}

// -----

// Separate K and V linears, V without a bias, `dot` scores, static shapes:
// one query against 64 keys is 4 * 1 * 32 * (8 + 64) = 9216 against
// 64 * 8 * (32 + 1) = 16896, so canonicalization keeps only the absorbed form
// (scale 1 for `dot`; no bias add).
// CHECK-LABEL: func @separate
// CHECK:       scf.if
// FOLD-LABEL:  func @separate
// FOLD-NOT:    scf.if
// FOLD-NOT:    attune.linear %{{.*}}, %{{.*}} : (tensor<1x64x32xf32>
// FOLD:        attune.attention %{{.*}}, %{{.*}}, %{{.*}} {attune.tile_q_cap = 16 : i64, scale = 1.000000e+00 : f64} : (tensor<1x1x4x32xf32>, tensor<1x1x64x32xf32>, tensor<1x1x64x32xf32>) -> tensor<1x1x4x32xf32>
// FOLD-NOT:    attune.add
// FOLD:        return
func.func @separate(%qh: tensor<1x4x1x8xf32>, %mem: tensor<1x64x32xf32>, %wk: tensor<32x32xf32>, %bk: tensor<32xf32>, %wv: tensor<32x32xf32>) -> tensor<1x4x1x8xf32> {
  %k = attune.linear %mem, %wk, %bk : (tensor<1x64x32xf32>, tensor<32x32xf32>, tensor<32xf32>) -> tensor<1x64x32xf32>
  %v = attune.linear %mem, %wv : (tensor<1x64x32xf32>, tensor<32x32xf32>) -> tensor<1x64x32xf32>
  %kh = attune.split_heads %k {num_heads = 4 : i64} : (tensor<1x64x32xf32>) -> tensor<1x4x64x8xf32>
  %vh = attune.split_heads %v {num_heads = 4 : i64} : (tensor<1x64x32xf32>) -> tensor<1x4x64x8xf32>
  // expected-remark @+1 {{absorbed the K and V projections into the queries}}
  %o = attune.attention %qh, %kh, %vh {score = #attune.score<dot>} : (tensor<1x4x1x8xf32>, tensor<1x4x64x8xf32>, tensor<1x4x64x8xf32>) -> tensor<1x4x1x8xf32>
  return %o : tensor<1x4x1x8xf32>
}

// -----

// Static shapes where the projected form is cheaper (16 queries against 16
// keys): canonicalization keeps only the original ops.
// FOLD-LABEL:  func @projected_wins
// FOLD-NOT:    scf.if
// FOLD:        attune.linear
// FOLD:        attune.linear
// FOLD:        attune.attention %{{.*}}, %{{.*}}, %{{.*}} : (tensor<1x4x16x8xf32>, tensor<1x4x16x8xf32>, tensor<1x4x16x8xf32>) -> tensor<1x4x16x8xf32>
// FOLD-NOT:    attune.matmul
func.func @projected_wins(%qh: tensor<1x4x16x8xf32>, %mem: tensor<1x16x32xf32>, %wk: tensor<32x32xf32>, %wv: tensor<32x32xf32>) -> tensor<1x4x16x8xf32> {
  %k = attune.linear %mem, %wk : (tensor<1x16x32xf32>, tensor<32x32xf32>) -> tensor<1x16x32xf32>
  %v = attune.linear %mem, %wv : (tensor<1x16x32xf32>, tensor<32x32xf32>) -> tensor<1x16x32xf32>
  %kh = attune.split_heads %k {num_heads = 4 : i64} : (tensor<1x16x32xf32>) -> tensor<1x4x16x8xf32>
  %vh = attune.split_heads %v {num_heads = 4 : i64} : (tensor<1x16x32xf32>) -> tensor<1x4x16x8xf32>
  // expected-remark @+1 {{absorbed the K and V projections into the queries}}
  %o = attune.attention %qh, %kh, %vh : (tensor<1x4x16x8xf32>, tensor<1x4x16x8xf32>, tensor<1x4x16x8xf32>) -> tensor<1x4x16x8xf32>
  return %o : tensor<1x4x16x8xf32>
}

// -----

// Padding lengths are allowed where every batch has a non-empty memory (a
// row with no visible key is zero in the projected form, but would be bv
// here): a loop over the lengths joins the cost rule, and the absorbed
// attention keeps the lengths.
// CHECK-LABEL: func @key_lengths
// FOLD-LABEL:  func @key_lengths
// CHECK-SAME:  %[[LEN:[^:]*]]: tensor<?xi32>
// CHECK:       %[[COST:.*]] = arith.cmpi ult
// CHECK:       %[[ZERO:.*]] = arith.constant 0 : i32
// CHECK:       %[[N:.*]] = tensor.dim %[[LEN]], %c0
// CHECK:       %[[ALL:.*]] = scf.for %[[I:.*]] = %c0{{.*}} to %[[N]] step %c1{{.*}} iter_args(%[[OK:.*]] = %[[COST]]) -> (i1) {
// CHECK:         %[[L:.*]] = tensor.extract %[[LEN]][%[[I]]]
// CHECK:         %[[POS:.*]] = arith.cmpi sgt, %[[L]], %[[ZERO]] : i32
// CHECK:         %[[AND:.*]] = arith.andi %[[OK]], %[[POS]]
// CHECK:         scf.yield %[[AND]]
// CHECK:       scf.if %[[ALL]]
// CHECK:         attune.attention %{{.*}}, %{{.*}}, %{{.*}} key_lengths(%[[LEN]]) {attune.tile_q_cap = 16 : i64, scale = 2.500000e-01 : f64}
// CHECK:       } else {
// CHECK:         attune.attention %{{.*}}, %{{.*}}, %{{.*}} key_lengths(%[[LEN]]) :
func.func @key_lengths(%qh: tensor<?x4x?x16xf32>, %mem: tensor<?x?x64xf32>, %w: tensor<64x64xf32>, %len: tensor<?xi32>) -> tensor<?x4x?x16xf32> {
  %k = attune.linear %mem, %w : (tensor<?x?x64xf32>, tensor<64x64xf32>) -> tensor<?x?x64xf32>
  %kh = attune.split_heads %k {num_heads = 4 : i64} : (tensor<?x?x64xf32>) -> tensor<?x4x?x16xf32>
  %v = attune.linear %mem, %w : (tensor<?x?x64xf32>, tensor<64x64xf32>) -> tensor<?x?x64xf32>
  %vh = attune.split_heads %v {num_heads = 4 : i64} : (tensor<?x?x64xf32>) -> tensor<?x4x?x16xf32>
  // expected-remark @+1 {{absorbed the K and V projections into the queries}}
  %o = attune.attention %qh, %kh, %vh key_lengths(%len) : (tensor<?x4x?x16xf32>, tensor<?x4x?x16xf32>, tensor<?x4x?x16xf32>, tensor<?xi32>) -> tensor<?x4x?x16xf32>
  return %o : tensor<?x4x?x16xf32>
}

// -----

// Negative cases: each leaves the IR unchanged, with a remark saying why.
// CHECK-LABEL: func @causal
// CHECK-NOT:   scf.if
func.func @causal(%qh: tensor<?x4x?x16xf32>, %mem: tensor<?x?x64xf32>, %w: tensor<64x64xf32>) -> tensor<?x4x?x16xf32> {
  %k = attune.linear %mem, %w : (tensor<?x?x64xf32>, tensor<64x64xf32>) -> tensor<?x?x64xf32>
  %kh = attune.split_heads %k {num_heads = 4 : i64} : (tensor<?x?x64xf32>) -> tensor<?x4x?x16xf32>
  %v = attune.linear %mem, %w : (tensor<?x?x64xf32>, tensor<64x64xf32>) -> tensor<?x?x64xf32>
  %vh = attune.split_heads %v {num_heads = 4 : i64} : (tensor<?x?x64xf32>) -> tensor<?x4x?x16xf32>
  // expected-remark @+1 {{K and V projections not absorbed: a causal, window or sparse mask or a bias can hide every key of a row, where the weights no longer sum to 1}}
  %o = attune.attention %qh, %kh, %vh {causal} : (tensor<?x4x?x16xf32>, tensor<?x4x?x16xf32>, tensor<?x4x?x16xf32>) -> tensor<?x4x?x16xf32>
  return %o : tensor<?x4x?x16xf32>
}

// -----

// The keys are also returned: the projection must run anyway.
// CHECK-LABEL: func @other_use
// CHECK-NOT:   scf.if
func.func @other_use(%qh: tensor<?x4x?x16xf32>, %mem: tensor<?x?x64xf32>, %w: tensor<64x64xf32>) -> (tensor<?x4x?x16xf32>, tensor<?x4x?x16xf32>) {
  %k = attune.linear %mem, %w : (tensor<?x?x64xf32>, tensor<64x64xf32>) -> tensor<?x?x64xf32>
  %kh = attune.split_heads %k {num_heads = 4 : i64} : (tensor<?x?x64xf32>) -> tensor<?x4x?x16xf32>
  %v = attune.linear %mem, %w : (tensor<?x?x64xf32>, tensor<64x64xf32>) -> tensor<?x?x64xf32>
  %vh = attune.split_heads %v {num_heads = 4 : i64} : (tensor<?x?x64xf32>) -> tensor<?x4x?x16xf32>
  // expected-remark @+1 {{K and V projections not absorbed: the keys or values are not the heads of one projection used only here}}
  %o = attune.attention %qh, %kh, %vh : (tensor<?x4x?x16xf32>, tensor<?x4x?x16xf32>, tensor<?x4x?x16xf32>) -> tensor<?x4x?x16xf32>
  return %o, %kh : tensor<?x4x?x16xf32>, tensor<?x4x?x16xf32>
}

// -----

// CHECK-LABEL: func @activation
// CHECK-NOT:   scf.if
func.func @activation(%qh: tensor<?x4x?x16xf32>, %mem: tensor<?x?x64xf32>, %w: tensor<64x64xf32>) -> tensor<?x4x?x16xf32> {
  %k = attune.linear %mem, %w {activation = #attune.activation<relu>} : (tensor<?x?x64xf32>, tensor<64x64xf32>) -> tensor<?x?x64xf32>
  %kh = attune.split_heads %k {num_heads = 4 : i64} : (tensor<?x?x64xf32>) -> tensor<?x4x?x16xf32>
  %v = attune.linear %mem, %w : (tensor<?x?x64xf32>, tensor<64x64xf32>) -> tensor<?x?x64xf32>
  %vh = attune.split_heads %v {num_heads = 4 : i64} : (tensor<?x?x64xf32>) -> tensor<?x4x?x16xf32>
  // expected-remark @+1 {{K and V projections not absorbed: the projection has an activation}}
  %o = attune.attention %qh, %kh, %vh : (tensor<?x4x?x16xf32>, tensor<?x4x?x16xf32>, tensor<?x4x?x16xf32>) -> tensor<?x4x?x16xf32>
  return %o : tensor<?x4x?x16xf32>
}

// -----

// CHECK-LABEL: func @different_inputs
// CHECK-NOT:   scf.if
func.func @different_inputs(%qh: tensor<?x4x?x16xf32>, %m1: tensor<?x?x64xf32>, %m2: tensor<?x?x64xf32>, %w: tensor<64x64xf32>) -> tensor<?x4x?x16xf32> {
  %k = attune.linear %m1, %w : (tensor<?x?x64xf32>, tensor<64x64xf32>) -> tensor<?x?x64xf32>
  %kh = attune.split_heads %k {num_heads = 4 : i64} : (tensor<?x?x64xf32>) -> tensor<?x4x?x16xf32>
  %v = attune.linear %m2, %w : (tensor<?x?x64xf32>, tensor<64x64xf32>) -> tensor<?x?x64xf32>
  %vh = attune.split_heads %v {num_heads = 4 : i64} : (tensor<?x?x64xf32>) -> tensor<?x4x?x16xf32>
  // expected-remark @+1 {{K and V projections not absorbed: the keys and values are projections of different inputs}}
  %o = attune.attention %qh, %kh, %vh : (tensor<?x4x?x16xf32>, tensor<?x4x?x16xf32>, tensor<?x4x?x16xf32>) -> tensor<?x4x?x16xf32>
  return %o : tensor<?x4x?x16xf32>
}

// -----

// Grouped-query attention (4 query heads, 2 key/value heads).
// CHECK-LABEL: func @gqa
// CHECK-NOT:   scf.if
func.func @gqa(%qh: tensor<?x4x?x16xf32>, %mem: tensor<?x?x64xf32>, %w: tensor<32x64xf32>) -> tensor<?x4x?x16xf32> {
  %k = attune.linear %mem, %w : (tensor<?x?x64xf32>, tensor<32x64xf32>) -> tensor<?x?x32xf32>
  %kh = attune.split_heads %k {num_heads = 2 : i64} : (tensor<?x?x32xf32>) -> tensor<?x2x?x16xf32>
  %v = attune.linear %mem, %w : (tensor<?x?x64xf32>, tensor<32x64xf32>) -> tensor<?x?x32xf32>
  %vh = attune.split_heads %v {num_heads = 2 : i64} : (tensor<?x?x32xf32>) -> tensor<?x2x?x16xf32>
  // expected-remark @+1 {{K and V projections not absorbed: grouped-query attention}}
  %o = attune.attention %qh, %kh, %vh : (tensor<?x4x?x16xf32>, tensor<?x2x?x16xf32>, tensor<?x2x?x16xf32>) -> tensor<?x4x?x16xf32>
  return %o : tensor<?x4x?x16xf32>
}

// -----

// Self-attention (Lq = Lk) never profits: left alone, without a remark.
// CHECK-LABEL: func @self
// CHECK-NOT:   scf.if
func.func @self(%x: tensor<?x?x64xf32>, %w: tensor<192x64xf32>) -> tensor<?x4x?x16xf32> {
  %qkv = attune.linear %x, %w : (tensor<?x?x64xf32>, tensor<192x64xf32>) -> tensor<?x?x192xf32>
  %q = attune.slice %qkv {axis = -1 : i64, offset = 0 : i64, size = 64 : i64} : (tensor<?x?x192xf32>) -> tensor<?x?x64xf32>
  %k = attune.slice %qkv {axis = -1 : i64, offset = 64 : i64, size = 64 : i64} : (tensor<?x?x192xf32>) -> tensor<?x?x64xf32>
  %v = attune.slice %qkv {axis = -1 : i64, offset = 128 : i64, size = 64 : i64} : (tensor<?x?x192xf32>) -> tensor<?x?x64xf32>
  %qh = attune.split_heads %q {num_heads = 4 : i64} : (tensor<?x?x64xf32>) -> tensor<?x4x?x16xf32>
  %kh = attune.split_heads %k {num_heads = 4 : i64} : (tensor<?x?x64xf32>) -> tensor<?x4x?x16xf32>
  %vh = attune.split_heads %v {num_heads = 4 : i64} : (tensor<?x?x64xf32>) -> tensor<?x4x?x16xf32>
  %o = attune.attention %qh, %kh, %vh : (tensor<?x4x?x16xf32>, tensor<?x4x?x16xf32>, tensor<?x4x?x16xf32>) -> tensor<?x4x?x16xf32>
  return %o : tensor<?x4x?x16xf32>
}

// -----

// The projections are computed outside the region the attention is in:
// moving them into its scf.if would change where (and how often) they run.
// CHECK-LABEL: func @other_block
// CHECK:       attune.linear
// CHECK:       attune.linear
// CHECK:       scf.if %{{.*}} -> (tensor<?x4x?x16xf32>) {
// CHECK-NOT:     scf.if
// CHECK:         attune.attention
func.func @other_block(%qh: tensor<?x4x?x16xf32>, %mem: tensor<?x?x64xf32>, %w: tensor<64x64xf32>, %c: i1) -> tensor<?x4x?x16xf32> {
  %k = attune.linear %mem, %w : (tensor<?x?x64xf32>, tensor<64x64xf32>) -> tensor<?x?x64xf32>
  %v = attune.linear %mem, %w : (tensor<?x?x64xf32>, tensor<64x64xf32>) -> tensor<?x?x64xf32>
  %r = scf.if %c -> tensor<?x4x?x16xf32> {
    %kh = attune.split_heads %k {num_heads = 4 : i64} : (tensor<?x?x64xf32>) -> tensor<?x4x?x16xf32>
    %vh = attune.split_heads %v {num_heads = 4 : i64} : (tensor<?x?x64xf32>) -> tensor<?x4x?x16xf32>
    // expected-remark @+1 {{K and V projections not absorbed: the projection is computed in another block}}
    %o = attune.attention %qh, %kh, %vh : (tensor<?x4x?x16xf32>, tensor<?x4x?x16xf32>, tensor<?x4x?x16xf32>) -> tensor<?x4x?x16xf32>
    scf.yield %o : tensor<?x4x?x16xf32>
  } else {
    scf.yield %qh : tensor<?x4x?x16xf32>
  }
  return %r : tensor<?x4x?x16xf32>
}

