// RUN: attune-opt %s --split-input-file --attune-fuse-attention="explain=true" --verify-diagnostics | FileCheck %s

!t = tensor<2x4x16x64xf32>
!s = tensor<2x4x16x16xf32>

// The plain chain with {transpose_rhs} and attune.scale.
// CHECK-LABEL: func @scaled
// CHECK-SAME: (%[[Q:.*]]: tensor<2x4x16x64xf32>, %[[K:.*]]: tensor<2x4x16x64xf32>, %[[V:.*]]: tensor<2x4x16x64xf32>)
// CHECK-NEXT: %[[O:.*]] = attune.attention %[[Q]], %[[K]], %[[V]] {scale = 1.250000e-01 : f64}
// CHECK-NEXT: return %[[O]]
func.func @scaled(%q: !t, %k: !t, %v: !t) -> !t {
  %s = attune.matmul %q, %k {transpose_rhs} : (!t, !t) -> !s
  %t = attune.scale %s {factor = 0.125 : f64} : !s
  // expected-remark @+1 {{fused matmul -> scale -> softmax -> matmul into attune.attention}}
  %p = attune.softmax %t : !s
  %o = attune.matmul %p, %v : (!s, !t) -> !t
  return %o : !t
}

// -----

!t = tensor<2x4x16x64xf32>
!s = tensor<2x4x16x16xf32>

// Imported spellings: an explicit transpose, division by sqrt(D) as a splat,
// an additive bias and an attune.mask (causal + key lengths).
// CHECK-LABEL: func @imported
// CHECK-SAME: (%[[Q:[^:]*]]: {{.*}}, %[[K:[^:]*]]: {{.*}}, %[[V:[^:]*]]: {{.*}}, %[[B:[^:]*]]: tensor<16x16xf32>, %[[L:[^:]*]]: tensor<2xi64>)
// CHECK-NOT:  attune.matmul
// CHECK:      %[[O:.*]] = attune.attention %[[Q]], %[[K]], %[[V]] key_lengths(%[[L]]) bias(%[[B]]) {causal, scale = 1.250000e-01 : f64}
// CHECK-NEXT: return %[[O]]
func.func @imported(%q: !t, %k: !t, %v: !t, %bias: tensor<16x16xf32>, %len: tensor<2xi64>) -> !t {
  %kt = attune.transpose %k {permutation = array<i64: 0, 1, 3, 2>} : (!t) -> tensor<2x4x64x16xf32>
  %s = attune.matmul %q, %kt : (!t, tensor<2x4x64x16xf32>) -> !s
  %c = arith.constant dense<8.0> : !s
  %d = arith.divf %s, %c : !s
  %b = attune.add %d, %bias : (!s, tensor<16x16xf32>) -> !s
  %m = attune.mask %b key_lengths(%len) {causal} : (!s, tensor<2xi64>) -> !s
  // expected-remark @+1 {{fused matmul -> scale -> bias -> mask -> softmax -> matmul into attune.attention}}
  %p = attune.softmax %m : !s
  %o = attune.matmul %p, %v : (!s, !t) -> !t
  return %o : !t
}

// -----

!t = tensor<2x4x16x64xf32>
!s = tensor<2x4x16x16xf32>

// The bias is itself computed by a matmul (a position bias from two
// tables) and comes first in the add: the scores are the operand that
// leads back to the query-key matmul, not the operand a matmul produces.
// CHECK-LABEL: func @bias_from_matmul
// CHECK-SAME: (%[[Q:[^:]*]]: {{.*}}, %[[K:[^:]*]]: {{.*}}, %[[V:[^:]*]]: {{.*}}, %[[P:[^:]*]]: {{.*}}, %[[R:[^:]*]]: {{.*}})
// CHECK:      %[[B:.*]] = attune.matmul %[[P]], %[[R]] : (tensor<2x4x16x8xf32>, tensor<2x4x8x16xf32>) -> tensor<2x4x16x16xf32>
// CHECK-NEXT: %[[O:.*]] = attune.attention %[[Q]], %[[K]], %[[V]] bias(%[[B]]) {scale = 1.250000e-01 : f64}
// CHECK-NEXT: return %[[O]]
func.func @bias_from_matmul(%q: !t, %k: !t, %v: !t, %p: tensor<2x4x16x8xf32>, %r: tensor<2x4x8x16xf32>) -> !t {
  %bias = attune.matmul %p, %r : (tensor<2x4x16x8xf32>, tensor<2x4x8x16xf32>) -> !s
  %s = attune.matmul %q, %k {transpose_rhs} : (!t, !t) -> !s
  %t = attune.scale %s {factor = 0.125 : f64} : !s
  %b = attune.add %bias, %t : (!s, !s) -> !s
  // expected-remark @+1 {{fused matmul -> scale -> bias -> softmax -> matmul into attune.attention}}
  %sm = attune.softmax %b : !s
  %o = attune.matmul %sm, %v : (!s, !t) -> !t
  return %o : !t
}

// -----

!t = tensor<2x4x16x64xf32>
!s = tensor<2x4x16x16xf32>

// A scaled bias first, unscaled scores second: the same rule.
// CHECK-LABEL: func @scaled_bias_first
// CHECK-SAME: (%[[Q:[^:]*]]: {{.*}}, %[[K:[^:]*]]: {{.*}}, %[[V:[^:]*]]: {{.*}}, %[[X:[^:]*]]: {{.*}})
// CHECK:      %[[B:.*]] = attune.scale %[[X]] {factor = 5.000000e-01 : f64}
// CHECK-NEXT: %[[O:.*]] = attune.attention %[[Q]], %[[K]], %[[V]] bias(%[[B]]) {score = #attune.score<dot>}
// CHECK-NEXT: return %[[O]]
func.func @scaled_bias_first(%q: !t, %k: !t, %v: !t, %x: !s) -> !t {
  %bias = attune.scale %x {factor = 0.5 : f64} : !s
  %s = attune.matmul %q, %k {transpose_rhs} : (!t, !t) -> !s
  %b = attune.add %bias, %s : (!s, !s) -> !s
  // expected-remark @+1 {{fused matmul -> bias -> softmax -> matmul into attune.attention}}
  %sm = attune.softmax %b : !s
  %o = attune.matmul %sm, %v : (!s, !t) -> !t
  return %o : !t
}

// -----

// Rank 3 ([B*H, L, D]): one head, no scale (plain dot scores).
// CHECK-LABEL: func @three_d
// CHECK: %[[Q:.*]] = attune.expand_dims %arg0 {axis = 1 : i64}
// CHECK: %[[A:.*]] = attune.attention %[[Q]], %{{.*}}, %{{.*}} {score = #attune.score<dot>}
// CHECK: attune.squeeze %[[A]] {axis = 1 : i64}
func.func @three_d(%q: tensor<8x16x32xf32>, %k: tensor<8x20x32xf32>, %v: tensor<8x20x24xf32>) -> tensor<8x16x24xf32> {
  %s = attune.matmul %q, %k {transpose_rhs} : (tensor<8x16x32xf32>, tensor<8x20x32xf32>) -> tensor<8x16x20xf32>
  // expected-remark @+1 {{fused matmul -> softmax -> matmul into attune.attention}}
  %p = attune.softmax %s : tensor<8x16x20xf32>
  %o = attune.matmul %p, %v : (tensor<8x16x20xf32>, tensor<8x20x24xf32>) -> tensor<8x16x24xf32>
  return %o : tensor<8x16x24xf32>
}

// -----

!t = tensor<2x4x16x64xf32>
!s = tensor<2x4x16x16xf32>

// Negative: the weights are also returned.
// CHECK-LABEL: func @weights_used
// CHECK: attune.softmax
// CHECK-NOT: attune.attention
func.func @weights_used(%q: !t, %k: !t, %v: !t) -> (!t, !s) {
  %s = attune.matmul %q, %k {transpose_rhs} : (!t, !t) -> !s
  // expected-remark @+1 {{not fused into attune.attention: the attention weights have another use}}
  %p = attune.softmax %s : !s
  %o = attune.matmul %p, %v : (!s, !t) -> !t
  return %o, %p : !t, !s
}

// -----

!t = tensor<2x4x16x64xf32>
!s = tensor<2x4x16x16xf32>

// Negative: the scores feed something else too.
// CHECK-LABEL: func @scores_used
// CHECK-NOT: attune.attention
func.func @scores_used(%q: !t, %k: !t, %v: !t) -> (!t, !s) {
  %s = attune.matmul %q, %k {transpose_rhs} : (!t, !t) -> !s
  // expected-remark @+1 {{not fused into attune.attention: the scores have another use}}
  %p = attune.softmax %s : !s
  %o = attune.matmul %p, %v : (!s, !t) -> !t
  return %o, %s : !t, !s
}

// -----

!t = tensor<2x4x16x64xf32>
!s = tensor<2x4x16x16xf32>

// Negative: softmax over the queries, not the keys.
// CHECK-LABEL: func @wrong_axis
// CHECK-NOT: attune.attention
func.func @wrong_axis(%q: !t, %k: !t, %v: !t) -> !t {
  %s = attune.matmul %q, %k {transpose_rhs} : (!t, !t) -> !s
  // expected-remark @+1 {{not fused into attune.attention: the softmax is not over the last (key) dim}}
  %p = attune.softmax %s {axis = 2 : i64} : !s
  %o = attune.matmul %p, %v : (!s, !t) -> !t
  return %o : !t
}

// -----

!t = tensor<2x4x16x64xf32>
!s = tensor<2x4x16x16xf32>

// Negative: the bias is added before the scale (it would be scaled too).
// CHECK-LABEL: func @bias_before_scale
// CHECK-NOT: attune.attention
func.func @bias_before_scale(%q: !t, %k: !t, %v: !t, %bias: !s) -> !t {
  %s = attune.matmul %q, %k {transpose_rhs} : (!t, !t) -> !s
  %b = attune.add %s, %bias : (!s, !s) -> !s
  %t = attune.scale %b {factor = 0.125 : f64} : !s
  // expected-remark @+1 {{not fused into attune.attention: a bias or mask comes before the scale}}
  %p = attune.softmax %t : !s
  %o = attune.matmul %p, %v : (!s, !t) -> !t
  return %o : !t
}

// -----

// Negative: a softmax that is not attention gets no remark and stays.
// CHECK-LABEL: func @classifier
// CHECK: attune.softmax
func.func @classifier(%x: tensor<4x10xf32>) -> tensor<4x10xf32> {
  %p = attune.softmax %x : tensor<4x10xf32>
  return %p : tensor<4x10xf32>
}
