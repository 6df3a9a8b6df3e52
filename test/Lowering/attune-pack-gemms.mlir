// RUN: attune-opt %s --convert-attune-to-linalg --attune-select-cpu-tiling=cpu=icelake-server --attune-pack-gemms | FileCheck %s

// A GEMM with an activation epilogue on 64-column panels: the run-time
// weight is packed as [N/64, K, 64] (a transpose of W viewed as
// [N/64, 64, K]); the GEMM has 5 loops (b, m, nb, r, k) and, since only its
// epilogue reads it, writes panel-major [B, N/64, M, 64] from the bias
// broadcast on that layout; the epilogue reads it into [B, M, N/64, 64].
// CHECK-LABEL: func.func @wide
// CHECK:       tensor.expand_shape %{{.*}} output_shape [8, 64, 128] : tensor<512x128xf32> into tensor<8x64x128xf32>
// CHECK:       %[[P:.*]] = linalg.transpose ins(%{{.*}} : tensor<8x64x128xf32>) outs(%{{.*}} : tensor<8x128x64xf32>) permutation = [0, 2, 1]
// CHECK:       %[[B:.*]] = linalg.generic {{.*}} ins(%{{.*}} : tensor<8x64xf32>) outs(%{{.*}} : tensor<1x8x?x64xf32>) attrs = {attune.heads_init}
// CHECK:       %[[G:.*]] = linalg.generic {{.*}} iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]} ins(%{{.*}}, %[[P]] : tensor<1x?x128xf32>, tensor<8x128x64xf32>) outs(%[[B]] : tensor<1x8x?x64xf32>)
// CHECK:       linalg.generic {{.*}} ins(%[[G]] : tensor<1x8x?x64xf32>) outs(%{{.*}} : tensor<1x?x8x64xf32>) attrs = {attune.epilogue, attune.tiling = #attune.gemm_tiling<panel = 64
func.func @wide(%x: tensor<?x128xf32>, %w: tensor<512x128xf32>, %b: tensor<512xf32>) -> tensor<?x512xf32> {
  %y = attune.linear %x, %w, %b {activation = #attune.activation<gelu>} : (tensor<?x128xf32>, tensor<512x128xf32>, tensor<512xf32>) -> tensor<?x512xf32>
  return %y : tensor<?x512xf32>
}

// 32-column panels ([3, 128, 32]); the output [B, M, N/32, 32] a view of
// the zero fill; the GEMM keeps its mark and tiling.
// CHECK-LABEL: func.func @narrow
// CHECK:       %[[P:.*]] = linalg.transpose ins(%{{.*}} : tensor<3x32x128xf32>) outs(%{{.*}} : tensor<3x128x32xf32>) permutation = [0, 2, 1]
// CHECK:       %[[I:.*]] = tensor.expand_shape %{{.*}} {{\[\[}}0], [1], [2, 3]] output_shape [1, %{{.*}}, 3, 32] : tensor<1x?x96xf32> into tensor<1x?x3x32xf32>
// CHECK:       linalg.generic {{.*}} ins(%{{.*}}, %[[P]] : tensor<1x?x128xf32>, tensor<3x128x32xf32>) outs(%[[I]] : tensor<1x?x3x32xf32>) attrs = {attune.gemm, attune.tiling = #attune.gemm_tiling<panel = 32
// CHECK:       tensor.collapse_shape
func.func @narrow(%x: tensor<?x128xf32>, %w: tensor<96x128xf32>) -> tensor<?x96xf32> {
  %y = attune.linear %x, %w : (tensor<?x128xf32>, tensor<96x128xf32>) -> tensor<?x96xf32>
  return %y : tensor<?x96xf32>
}

// A constant weight is packed at compile time: no transpose.
// CHECK-LABEL: func.func @constant_weight
// CHECK-NOT:   linalg.transpose
// CHECK:       arith.constant dense_resource<weight_t_p32> : tensor<1x4x32xf32>
func.func @constant_weight(%x: tensor<?x4xf32>) -> tensor<?x32xf32> {
  %w = arith.constant dense<1.0> : tensor<32x4xf32>
  %y = attune.linear %x, %w : (tensor<?x4xf32>, tensor<32x4xf32>) -> tensor<?x32xf32>
  return %y : tensor<?x32xf32>
}

// N = 1 (at most half a vector: a `dot` tiling): dot products along K in
// vectors of 16 lanes. The weight row [1, 100] is cut into [1, 6, 16] and
// its last 4 columns; the lanes' partial sums [1, M, 1, 16] start from zero
// (marked attune.dot_gemm); a row kernel adds the last 4 products onto the
// bias, and the lane sum, which ends the GEMM (attune.dot_rows = 2: its
// init is those products), adds the lanes' sum onto that.
// CHECK-LABEL: func.func @score
// CHECK-DAG:   %[[W:.*]] = tensor.extract_slice %arg1[0, 0] [1, 96] [1, 1] : tensor<1x100xf32> to tensor<1x96xf32>
// CHECK-DAG:   %[[W3:.*]] = tensor.expand_shape %[[W]] {{\[\[}}0], [1, 2]] output_shape [1, 6, 16]
// CHECK-DAG:   %[[WR:.*]] = tensor.extract_slice %arg1[0, 96] [1, 4] [1, 1] : tensor<1x100xf32> to tensor<1x4xf32>
// CHECK:       %[[A4:.*]] = tensor.expand_shape {{.*}} output_shape [1, %{{.*}}, 6, 16] : tensor<1x?x96xf32> into tensor<1x?x6x16xf32>
// CHECK:       %[[T0:.*]] = linalg.fill {{.*}} -> tensor<1x?x1x16xf32>
// CHECK:       %[[T:.*]] = linalg.generic {{.*}} iterator_types = ["parallel", "parallel", "parallel", "reduction", "parallel"]} ins(%[[A4]], %[[W3]] : {{.*}}) outs(%[[T0]] : {{.*}}) attrs = {attune.dot_gemm, attune.tiling = #attune.gemm_tiling<panel = 16, rows = 8, k_tile = 0, cache_rows = [[ROWS:[0-9]+]], forall_panels = 0, dot = true>}
// CHECK:       %[[AR:.*]] = tensor.extract_slice {{.*}}[0, 0, 96] [1, %{{.*}}, 4] [1, 1, 1] : tensor<1x?x100xf32> to tensor<1x?x4xf32>
// CHECK:       %[[R:.*]] = linalg.generic {{.*}} ins(%[[AR]], %[[WR]] : tensor<1x?x4xf32>, tensor<1x4xf32>) outs(%{{.*}} : tensor<1x?x1xf32>) {
// CHECK:         arith.mulf
// CHECK:         arith.addf
// CHECK:       linalg.generic {{.*}} ins(%[[T]] : tensor<1x?x1x16xf32>) outs(%[[R]] : tensor<1x?x1xf32>) attrs = {attune.dot_rows = 2 : i64, attune.tiling = #attune.gemm_tiling<panel = 16, rows = 8, k_tile = 0, cache_rows = [[ROWS]], forall_panels = 0, dot = true>}
// CHECK:         arith.addf
func.func @score(%x: tensor<?x100xf32>, %w: tensor<1x100xf32>, %b: tensor<1xf32>) -> tensor<?x1xf32> {
  %y = attune.linear %x, %w, %b : (tensor<?x100xf32>, tensor<1x100xf32>, tensor<1xf32>) -> tensor<?x1xf32>
  return %y : tensor<?x1xf32>
}
