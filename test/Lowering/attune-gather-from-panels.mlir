// RUN: attune-opt %s --attune-gather-from-panels --split-input-file | FileCheck %s

// A table gathered by element whose packed panels (4 wide: rows 0-3, then
// row 4 and three rows of zeros) are also a constant: the gather reads the
// panels at [i / 4, j, i mod 4] and the table goes.
// CHECK-LABEL: func.func @tied
// CHECK-NOT:     tensor<5x3xf32>
// CHECK:         %[[P:.*]] = arith.constant {{.*}} : tensor<2x3x4xf32>
// CHECK:         linalg.generic
// CHECK:           %[[NB:.*]] = arith.divui %[[I:.*]], %c4
// CHECK:           %[[R:.*]] = arith.remui %[[I]], %c4
// CHECK:           tensor.extract %[[P]][%[[NB]], %{{.*}}, %[[R]]] : tensor<2x3x4xf32>
// CHECK-NOT:     tensor<5x3xf32>
func.func @tied(%ids: tensor<2xindex>) -> (tensor<2x3xf32>, tensor<2x3x4xf32>) {
  %t = arith.constant dense<[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0], [7.0, 8.0, 9.0], [10.0, 11.0, 12.0], [13.0, 14.0, 15.0]]> : tensor<5x3xf32>
  %p = arith.constant dense<[[[1.0, 4.0, 7.0, 10.0], [2.0, 5.0, 8.0, 11.0], [3.0, 6.0, 9.0, 12.0]], [[13.0, 0.0, 0.0, 0.0], [14.0, 0.0, 0.0, 0.0], [15.0, 0.0, 0.0, 0.0]]]> : tensor<2x3x4xf32>
  %e = tensor.empty() : tensor<2x3xf32>
  %g = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%ids : tensor<2xindex>) outs(%e : tensor<2x3xf32>) {
  ^bb0(%i: index, %out: f32):
    %j = linalg.index 1 : index
    %x = tensor.extract %t[%i, %j] : tensor<5x3xf32>
    linalg.yield %x : f32
  } -> tensor<2x3xf32>
  return %g, %p : tensor<2x3xf32>, tensor<2x3x4xf32>
}

// -----

// Panels that differ in one element (not this table's): the gather stays.
// CHECK-LABEL: func.func @other
// CHECK:         tensor.extract %{{.*}}[%{{.*}}, %{{.*}}] : tensor<5x3xf32>
func.func @other(%ids: tensor<2xindex>) -> (tensor<2x3xf32>, tensor<2x3x4xf32>) {
  %t = arith.constant dense<[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0], [7.0, 8.0, 9.0], [10.0, 11.0, 12.0], [13.0, 14.0, 15.0]]> : tensor<5x3xf32>
  %p = arith.constant dense<[[[1.0, 4.0, 7.0, 10.0], [2.0, 5.0, 8.0, 11.0], [3.0, 6.0, 9.0, 12.0]], [[13.0, 0.0, 0.0, 0.0], [14.0, 0.0, 0.0, 0.0], [99.0, 0.0, 0.0, 0.0]]]> : tensor<2x3x4xf32>
  %e = tensor.empty() : tensor<2x3xf32>
  %g = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%ids : tensor<2xindex>) outs(%e : tensor<2x3xf32>) {
  ^bb0(%i: index, %out: f32):
    %j = linalg.index 1 : index
    %x = tensor.extract %t[%i, %j] : tensor<5x3xf32>
    linalg.yield %x : f32
  } -> tensor<2x3xf32>
  return %g, %p : tensor<2x3xf32>, tensor<2x3x4xf32>
}
