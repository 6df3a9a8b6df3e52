// RUN: attune-opt %s --canonicalize --split-input-file | FileCheck %s

// CHECK-LABEL: func @transpose_identity
// CHECK-SAME: (%[[X:.*]]: tensor<2x3xf32>)
// CHECK-NEXT: return %[[X]]
func.func @transpose_identity(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = attune.transpose %x {permutation = array<i64: 0, 1>} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

// Two transposes compose; inverse permutations cancel.
// CHECK-LABEL: func @transpose_compose
// CHECK: %[[T:.*]] = attune.transpose %{{.*}} {permutation = array<i64: 2, 0, 1>} : (tensor<2x3x4xf32>) -> tensor<4x2x3xf32>
// CHECK-NOT: attune.transpose
// CHECK: return %[[T]], %arg0
func.func @transpose_compose(%x: tensor<2x3x4xf32>) -> (tensor<4x2x3xf32>, tensor<2x3x4xf32>) {
  %0 = attune.transpose %x {permutation = array<i64: 1, 0, 2>} : (tensor<2x3x4xf32>) -> tensor<3x2x4xf32>
  %1 = attune.transpose %0 {permutation = array<i64: 2, 1, 0>} : (tensor<3x2x4xf32>) -> tensor<4x2x3xf32>
  %2 = attune.transpose %0 {permutation = array<i64: 1, 0, 2>} : (tensor<3x2x4xf32>) -> tensor<2x3x4xf32>
  return %1, %2 : tensor<4x2x3xf32>, tensor<2x3x4xf32>
}

// -----

// CHECK-LABEL: func @merge_of_split
// CHECK-SAME: (%[[X:.*]]: tensor<?x?x64xf32>)
// CHECK-NEXT: return %[[X]]
func.func @merge_of_split(%x: tensor<?x?x64xf32>) -> tensor<?x?x64xf32> {
  %0 = attune.split_heads %x {num_heads = 4 : i64} : (tensor<?x?x64xf32>) -> tensor<?x4x?x16xf32>
  %1 = attune.merge_heads %0 : (tensor<?x4x?x16xf32>) -> tensor<?x?x64xf32>
  return %1 : tensor<?x?x64xf32>
}

// -----

// A split into other heads is not undone by a merge.
// CHECK-LABEL: func @split_merge_kept
// CHECK: attune.merge_heads
func.func @split_merge_kept(%x: tensor<?x4x?x16xf32>) -> tensor<?x?x64xf32> {
  %0 = attune.merge_heads %x : (tensor<?x4x?x16xf32>) -> tensor<?x?x64xf32>
  return %0 : tensor<?x?x64xf32>
}

// -----

// CHECK-LABEL: func @slices
// CHECK-SAME: (%[[X:.*]]: tensor<2x192xf32>)
// CHECK: %[[S:.*]] = attune.slice %[[X]] {axis = 1 : i64, offset = 64 : i64, size = 64 : i64}
// CHECK: return %[[X]], %[[S]]
func.func @slices(%x: tensor<2x192xf32>) -> (tensor<2x192xf32>, tensor<2x64xf32>) {
  %0 = attune.slice %x {axis = 1 : i64, offset = 0 : i64, size = 192 : i64} : (tensor<2x192xf32>) -> tensor<2x192xf32>
  %1 = attune.slice %x {axis = 1 : i64, offset = 64 : i64, size = 64 : i64} : (tensor<2x192xf32>) -> tensor<2x64xf32>
  return %0, %1 : tensor<2x192xf32>, tensor<2x64xf32>
}

// -----

// A concatenation of one input is that input; of two, it stays.
// CHECK-LABEL: func @concat_one
// CHECK-SAME: (%[[X:.*]]: tensor<?x32xf32>)
// CHECK: %[[C:.*]] = attune.concat %[[X]], %[[X]] {axis = 1 : i64}
// CHECK: return %[[X]], %[[C]]
func.func @concat_one(%x: tensor<?x32xf32>) -> (tensor<?x32xf32>, tensor<?x64xf32>) {
  %0 = attune.concat %x {axis = 0 : i64} : (tensor<?x32xf32>) -> tensor<?x32xf32>
  %1 = attune.concat %x, %x {axis = 1 : i64} : (tensor<?x32xf32>, tensor<?x32xf32>) -> tensor<?x64xf32>
  return %0, %1 : tensor<?x32xf32>, tensor<?x64xf32>
}

// -----

// CHECK-LABEL: func @squeeze_of_expand
// CHECK-SAME: (%[[X:.*]]: tensor<?x32xf32>)
// CHECK: %[[E0:.*]] = attune.expand_dims %[[X]] {axis = 0 : i64}
// CHECK: %[[E1:.*]] = attune.expand_dims %[[E0]] {axis = 1 : i64}
// CHECK: %[[S0:.*]] = attune.squeeze %[[E1]] {axis = 0 : i64}
// CHECK: %[[S1:.*]] = attune.squeeze %[[S0]] {axis = 0 : i64}
// CHECK: return %[[X]], %[[S1]]
func.func @squeeze_of_expand(%x: tensor<?x32xf32>) -> (tensor<?x32xf32>, tensor<?x32xf32>) {
  %0 = attune.expand_dims %x {axis = -2 : i64} : (tensor<?x32xf32>) -> tensor<?x1x32xf32>
  %1 = attune.squeeze %0 {axis = 1 : i64} : (tensor<?x1x32xf32>) -> tensor<?x32xf32>
  // Different axes: not an inverse pair.
  %2 = attune.expand_dims %x {axis = 0 : i64} : (tensor<?x32xf32>) -> tensor<1x?x32xf32>
  %3 = attune.expand_dims %2 {axis = 1 : i64} : (tensor<1x?x32xf32>) -> tensor<1x1x?x32xf32>
  %4 = attune.squeeze %3 {axis = 0 : i64} : (tensor<1x1x?x32xf32>) -> tensor<1x?x32xf32>
  %5 = attune.squeeze %4 {axis = 0 : i64} : (tensor<1x?x32xf32>) -> tensor<?x32xf32>
  return %1, %5 : tensor<?x32xf32>, tensor<?x32xf32>
}

// -----

// CHECK-LABEL: func @scales
// CHECK-SAME: (%[[X:.*]]: tensor<4xf32>)
// CHECK-NOT: factor = 1.0
// CHECK: %[[T:.*]] = attune.scale %[[X]] {factor = 6.000000e+00 : f64}
// CHECK-NOT: attune.scale
// CHECK: return %[[X]], %[[T]]
func.func @scales(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %0 = attune.scale %x {factor = 1.0 : f64} : tensor<4xf32>
  %1 = attune.scale %x {factor = 2.0 : f64} : tensor<4xf32>
  %2 = attune.scale %1 {factor = 3.0 : f64} : tensor<4xf32>
  return %0, %2 : tensor<4xf32>, tensor<4xf32>
}

// -----

// CHECK-LABEL: func @masks
// CHECK-SAME: (%[[S:.*]]: tensor<2x4x4xf32>)
// CHECK: %[[M:.*]] = attune.mask %[[S]] {causal}
// CHECK: return %[[S]], %[[M]]
func.func @masks(%s: tensor<2x4x4xf32>) -> (tensor<2x4x4xf32>, tensor<2x4x4xf32>) {
  %0 = attune.mask %s : (tensor<2x4x4xf32>) -> tensor<2x4x4xf32>
  %1 = attune.mask %s {causal} : (tensor<2x4x4xf32>) -> tensor<2x4x4xf32>
  return %0, %1 : tensor<2x4x4xf32>, tensor<2x4x4xf32>
}

// -----

// A cast to the same type folds away; narrowing an exact widening is one
// cast (none when it returns to the original type); a cast of a small
// constant folds (round to nearest even: 1 + 2^-11 is a tie in f16, and
// 70000 overflows f16 to +inf). A narrowing followed by a widening stays:
// it rounds.
// CHECK-LABEL: func @cast_folds
// CHECK-SAME: (%[[X:.*]]: tensor<4xf16>, %[[Y:.*]]: tensor<4xf32>)
// CHECK-DAG: %[[C:.*]] = arith.constant dense<[1.000000e+00, 0x7C00, -2.000000e+00, 5.000000e-01]> : tensor<4xf16>
// CHECK-DAG: %[[B:.*]] = attune.cast %[[X]] : tensor<4xf16> to tensor<4xbf16>
// CHECK-DAG: %[[N:.*]] = attune.cast %[[Y]] : tensor<4xf32> to tensor<4xf16>
// CHECK-DAG: %[[W:.*]] = attune.cast %[[N]] : tensor<4xf16> to tensor<4xf32>
// CHECK: return %[[X]], %[[Y]], %[[B]], %[[C]], %[[W]]
func.func @cast_folds(%x: tensor<4xf16>, %y: tensor<4xf32>)
    -> (tensor<4xf16>, tensor<4xf32>, tensor<4xbf16>, tensor<4xf16>, tensor<4xf32>) {
  %0 = attune.cast %y : tensor<4xf32> to tensor<4xf32>
  %w = attune.cast %x : tensor<4xf16> to tensor<4xf32>
  %1 = attune.cast %w : tensor<4xf32> to tensor<4xf16>
  %2 = attune.cast %w : tensor<4xf32> to tensor<4xbf16>
  %c = arith.constant dense<[1.00048828125, 70000.0, -2.0, 0.5]> : tensor<4xf32>
  %3 = attune.cast %c : tensor<4xf32> to tensor<4xf16>
  %n = attune.cast %y : tensor<4xf32> to tensor<4xf16>
  %4 = attune.cast %n : tensor<4xf16> to tensor<4xf32>
  return %1, %0, %2, %3, %4 : tensor<4xf16>, tensor<4xf32>, tensor<4xbf16>, tensor<4xf16>, tensor<4xf32>
}
