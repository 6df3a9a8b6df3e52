// RUN: attune-opt %s --split-input-file --convert-attune-to-linalg --attune-fuse-elementwise | FileCheck %s

// scale -> add (broadcast bias) -> tanh: one generic reading x and the bias
// once, writing one result.
// CHECK-LABEL: func @chain
// CHECK-SAME: (%[[X:.*]]: tensor<?x16xf32>, %[[B:.*]]: tensor<16xf32>)
// CHECK:      %[[R:.*]] = linalg.generic
// CHECK-SAME:   ins(%[[X]], %[[B]] : tensor<?x16xf32>, tensor<16xf32>)
// CHECK:        arith.mulf
// CHECK:        arith.addf
// CHECK:        math.tanh
// CHECK-NOT:  linalg.generic
// CHECK:      return %[[R]]
func.func @chain(%x: tensor<?x16xf32>, %b: tensor<16xf32>) -> tensor<?x16xf32> {
  %s = attune.scale %x {factor = 0.5 : f64} : tensor<?x16xf32>
  %a = attune.add %s, %b : (tensor<?x16xf32>, tensor<16xf32>) -> tensor<?x16xf32>
  %t = attune.activation <tanh> %a : tensor<?x16xf32>
  return %t : tensor<?x16xf32>
}

// -----

// A producer with two users stays (fusing would compute it twice).
// CHECK-LABEL: func @shared
// CHECK-COUNT-3: linalg.generic
// CHECK-NOT:     linalg.generic
func.func @shared(%x: tensor<8x16xf32>) -> (tensor<8x16xf32>, tensor<8x16xf32>) {
  %s = attune.scale %x {factor = 0.5 : f64} : tensor<8x16xf32>
  %a = attune.activation <relu> %s : tensor<8x16xf32>
  %b = attune.activation <tanh> %s : tensor<8x16xf32>
  return %a, %b : tensor<8x16xf32>, tensor<8x16xf32>
}

// -----

// An element-wise producer of a contraction's operand is not fused into it
// (it would be recomputed for every output column), nor an activation
// epilogue into its GEMM; the scale's consumer is the GEMM, so nothing fuses.
// CHECK-LABEL: func @into_gemm
// CHECK:      linalg.generic {{.*}}iterator_types = ["parallel", "parallel"]
// CHECK:      linalg.generic {{.*}}iterator_types = ["parallel", "parallel", "parallel", "reduction"]
// CHECK-SAME:   attune.gemm
func.func @into_gemm(%x: tensor<?x64xf32>, %w: tensor<32x64xf32>) -> tensor<?x32xf32> {
  %s = attune.scale %x {factor = 0.5 : f64} : tensor<?x64xf32>
  %y = attune.linear %s, %w : (tensor<?x64xf32>, tensor<32x64xf32>) -> tensor<?x32xf32>
  return %y : tensor<?x32xf32>
}

// -----

// The activation epilogue of a marked GEMM is left to attune-tile-gemm: the
// following scale does not absorb it.
// CHECK-LABEL: func @epilogue
// CHECK:      linalg.generic {{.*}}"reduction"]
// CHECK:      linalg.generic {{.*}}attune.epilogue
// CHECK:      math.tanh
// CHECK:      linalg.generic
// CHECK:      arith.mulf
func.func @epilogue(%x: tensor<?x64xf32>, %w: tensor<32x64xf32>) -> tensor<?x32xf32> {
  %y = attune.linear %x, %w {activation = #attune.activation<tanh>} : (tensor<?x64xf32>, tensor<32x64xf32>) -> tensor<?x32xf32>
  %s = attune.scale %y {factor = 0.5 : f64} : tensor<?x32xf32>
  return %s : tensor<?x32xf32>
}
