// RUN: attune-opt %s --split-input-file --attune-widen-half | FileCheck %s

// A reduction in f16 runs in f32 between casts; data movement (transpose)
// and the cast itself stay as they are.
// CHECK-LABEL: func.func @softmax
// CHECK-SAME: (%[[X:.*]]: tensor<4x30011xf16>)
// CHECK:      %[[T:.*]] = attune.transpose %[[X]]
// CHECK-SAME:   -> tensor<30011x4xf16>
// CHECK:      %[[W:.*]] = attune.cast %[[T]] : tensor<30011x4xf16> to tensor<30011x4xf32>
// CHECK:      %[[S:.*]] = attune.softmax %[[W]] {axis = 0 : i64} : tensor<30011x4xf32>
// CHECK:      %[[N:.*]] = attune.cast %[[S]] : tensor<30011x4xf32> to tensor<30011x4xf16>
// CHECK:      return %[[N]]
func.func @softmax(%x: tensor<4x30011xf16>) -> tensor<30011x4xf16> {
  %t = attune.transpose %x {permutation = array<i64: 1, 0>} : (tensor<4x30011xf16>) -> tensor<30011x4xf16>
  %s = attune.softmax %t {axis = 0 : i64} : tensor<30011x4xf16>
  return %s : tensor<30011x4xf16>
}

// -----

// Every float operand is widened (bf16 weights included); integer operands
// (key lengths) are not; each result is narrowed back.
// CHECK-LABEL: func.func @attention
// CHECK-COUNT-3: attune.cast %{{.*}} : tensor<1x2x{{[0-9]+}}x8xbf16> to tensor<1x2x{{[0-9]+}}x8xf32>
// CHECK:      %[[O:.*]], %[[OW:.*]] = attune.attention %{{.*}}, %{{.*}}, %{{.*}} key_lengths(%{{.*}}) {return_weights}
// CHECK-SAME:   (tensor<1x2x3x8xf32>, tensor<1x2x9x8xf32>, tensor<1x2x9x8xf32>, tensor<1xi64>) -> (tensor<1x2x3x8xf32>, tensor<1x2x3x9xf32>)
// CHECK-DAG:  %[[A:.*]] = attune.cast %[[O]] : tensor<1x2x3x8xf32> to tensor<1x2x3x8xbf16>
// CHECK-DAG:  %[[B:.*]] = attune.cast %[[OW]] : tensor<1x2x3x9xf32> to tensor<1x2x3x9xbf16>
// CHECK:      return %[[A]], %[[B]]
func.func @attention(%q: tensor<1x2x3x8xbf16>, %k: tensor<1x2x9x8xbf16>, %v: tensor<1x2x9x8xbf16>, %n: tensor<1xi64>)
    -> (tensor<1x2x3x8xbf16>, tensor<1x2x3x9xbf16>) {
  %o, %w = attune.attention %q, %k, %v key_lengths(%n) {return_weights}
      : (tensor<1x2x3x8xbf16>, tensor<1x2x9x8xbf16>, tensor<1x2x9x8xbf16>, tensor<1xi64>)
      -> (tensor<1x2x3x8xbf16>, tensor<1x2x3x9xbf16>)
  return %o, %w : tensor<1x2x3x8xbf16>, tensor<1x2x3x9xbf16>
}

// -----

// f32 ops are left alone, and so is a gather from an f16 table.
// CHECK-LABEL: func.func @untouched
// CHECK-NOT:  attune.cast
// CHECK:      attune.embedding
// CHECK-NOT:  attune.cast
// CHECK:      attune.layer_norm
// CHECK-NOT:  attune.cast
func.func @untouched(%ids: tensor<2x5xi64>, %t: tensor<50x16xf16>, %x: tensor<2x16xf32>)
    -> (tensor<2x5x16xf16>, tensor<2x16xf32>) {
  %e = attune.embedding %ids, %t : (tensor<2x5xi64>, tensor<50x16xf16>) -> tensor<2x5x16xf16>
  %n = attune.layer_norm %x : (tensor<2x16xf32>) -> tensor<2x16xf32>
  return %e, %n : tensor<2x5x16xf16>, tensor<2x16xf32>
}
