// RUN: attune-opt %s --split-input-file --attune-hoist-weight-preparation | FileCheck %s

// The layer function transposes its weight and reshapes its bias; both move
// to the two callers, where they fold on the constants into new constants
// (the transposed bytes: rows [1 2 3] [4 5 8] become [1 4] [2 5] [3 8]; the
// blobs are 64-byte aligned), and the function reads the prepared values
// from its arguments. The bias, the same constant in both calls, is prepared
// once; its broadcast, which would not fold, stays in the function. The
// marks are gone afterwards.
// CHECK-LABEL: func.func @model
// CHECK-DAG:   %[[T0:.*]] = arith.constant dense_resource<[[K0:.*]]> : tensor<3x2xf32>
// CHECK-DAG:   %[[T1:.*]] = arith.constant dense_resource<[[K1:.*]]> : tensor<3x2xf32>
// CHECK-DAG:   %[[B:.*]] = arith.constant dense_resource<[[KB:.*]]> : tensor<2xf32>
// CHECK-NOT:   tensor.empty
// CHECK:       %[[Y0:.*]] = call @layer(%{{.*}}, %[[T0]], %[[B]]) : (tensor<4x3xf32>, tensor<3x2xf32>, tensor<2xf32>) -> tensor<4x2xf32>
// CHECK:       %[[Y1:.*]] = call @layer(%{{.*}}, %[[T1]], %[[B]]) : (tensor<4x3xf32>, tensor<3x2xf32>, tensor<2xf32>) -> tensor<4x2xf32>
// CHECK-NOT:   linalg.transpose
// CHECK-LABEL: func.func private @layer
// CHECK-SAME:  (%[[X:.*]]: tensor<4x3xf32>, %[[W:.*]]: tensor<3x2xf32>, %[[BB:.*]]: tensor<2xf32>) -> tensor<4x2xf32>
// CHECK-NOT:   linalg.transpose
// CHECK:       linalg.matmul ins(%[[X]], %[[W]] : tensor<4x3xf32>, tensor<3x2xf32>)
// CHECK:       linalg.broadcast ins(%[[BB]] : tensor<2xf32>)
// CHECK-DAG:   [[K0]]: "0x40000000{{0000803F00008040000000400000A0400000404000000041}}"
// CHECK-DAG:   [[K1]]: "0x40000000{{00000041000000400000A0400000803F0000404000008040}}"
// CHECK-DAG:   [[KB]]: "0x40000000{{0000003F0000803E}}"
func.func @model(%x: tensor<4x3xf32>) -> tensor<4x2xf32> {
  %w0 = arith.constant dense<[[1.0, 2.0, 3.0], [4.0, 5.0, 8.0]]> : tensor<2x3xf32>
  %w1 = arith.constant dense<[[8.0, 5.0, 3.0], [2.0, 1.0, 4.0]]> : tensor<2x3xf32>
  %b = arith.constant dense<[0.5, 0.25]> : tensor<2xf32>
  %y0 = call @layer(%x, %w0, %b) : (tensor<4x3xf32>, tensor<2x3xf32>, tensor<2xf32>) -> tensor<4x2xf32>
  %y1 = call @layer(%x, %w1, %b) : (tensor<4x3xf32>, tensor<2x3xf32>, tensor<2xf32>) -> tensor<4x2xf32>
  %s = arith.addf %y0, %y1 : tensor<4x2xf32>
  return %s : tensor<4x2xf32>
}
func.func private @layer(%x: tensor<4x3xf32>, %w: tensor<2x3xf32> {attune.weight},
                         %b: tensor<2xf32> {attune.weight}) -> tensor<4x2xf32> {
  %e = tensor.empty() : tensor<3x2xf32>
  %wt = linalg.transpose ins(%w : tensor<2x3xf32>) outs(%e : tensor<3x2xf32>) permutation = [1, 0]
  %br = tensor.expand_shape %b [[0, 1]] output_shape [1, 2] : tensor<2xf32> into tensor<1x2xf32>
  %zero = arith.constant 0.0 : f32
  %o = tensor.empty() : tensor<4x2xf32>
  %f = linalg.fill ins(%zero : f32) outs(%o : tensor<4x2xf32>) -> tensor<4x2xf32>
  %m = linalg.matmul ins(%x, %wt : tensor<4x3xf32>, tensor<3x2xf32>) outs(%f : tensor<4x2xf32>) -> tensor<4x2xf32>
  %bc = tensor.collapse_shape %br [[0, 1]] : tensor<1x2xf32> into tensor<2xf32>
  %bb = linalg.broadcast ins(%bc : tensor<2xf32>) outs(%o : tensor<4x2xf32>) dimensions = [0]
  %r = arith.addf %m, %bb : tensor<4x2xf32>
  return %r : tensor<4x2xf32>
}

// -----

// Unmarked arguments (an activation), public functions and a weight that
// the function reads unprepared stay as they are.
// CHECK-LABEL: func.func private @unmarked
// CHECK-SAME:  (%{{.*}}: tensor<2x3xf32>) -> tensor<3x2xf32>
// CHECK:       linalg.transpose
// CHECK-LABEL: func.func @public
// CHECK-SAME:  (%{{.*}}: tensor<2x3xf32>) -> tensor<3x2xf32>
// CHECK:       linalg.transpose
// CHECK-LABEL: func.func private @raw
// CHECK-SAME:  (%{{.*}}: tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK-NOT:   attune.weight
func.func private @unmarked(%a: tensor<2x3xf32>) -> tensor<3x2xf32> {
  %e = tensor.empty() : tensor<3x2xf32>
  %t = linalg.transpose ins(%a : tensor<2x3xf32>) outs(%e : tensor<3x2xf32>) permutation = [1, 0]
  return %t : tensor<3x2xf32>
}
func.func @public(%w: tensor<2x3xf32> {attune.weight}) -> tensor<3x2xf32> {
  %e = tensor.empty() : tensor<3x2xf32>
  %t = linalg.transpose ins(%w : tensor<2x3xf32>) outs(%e : tensor<3x2xf32>) permutation = [1, 0]
  return %t : tensor<3x2xf32>
}
func.func private @raw(%w: tensor<2x3xf32> {attune.weight}) -> tensor<2x3xf32> {
  return %w : tensor<2x3xf32>
}
func.func @caller(%a: tensor<2x3xf32>) -> (tensor<3x2xf32>, tensor<2x3xf32>) {
  %t = call @unmarked(%a) : (tensor<2x3xf32>) -> tensor<3x2xf32>
  %c = arith.constant dense<1.0> : tensor<2x3xf32>
  %r = call @raw(%c) : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return %t, %r : tensor<3x2xf32>, tensor<2x3xf32>
}
