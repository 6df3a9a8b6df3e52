// RUN: attune-opt %s --convert-attune-to-linalg --attune-select-cpu-tiling=cpu=icelake-server --attune-pack-gemms --attune-fuse-gemm-inits --attune-tile-gemm | FileCheck %s --check-prefix=BEFORE
// RUN: attune-opt %s --convert-attune-to-linalg --attune-select-cpu-tiling=cpu=icelake-server --attune-pack-gemms --attune-fuse-gemm-inits --attune-tile-gemm --attune-accumulators-in-registers | FileCheck %s

// Before: the cache tile's fused zero fill writes the tile one row at a
// time, and the register tiles read it back as their accumulators.
// BEFORE-LABEL: func.func @narrow
// BEFORE:       vector.transfer_write %[[ZERO:.*]], %{{.*}} : vector<1x1x1x32xf32>, tensor<1x?x1x32xf32>
// After: the fill goes and each register tile's accumulators start as the
// init row broadcast (one k tile: no first-iteration branch needed).
// CHECK-LABEL: func.func @narrow
// CHECK-DAG:   %[[Z:.*]] = arith.constant dense<0.000000e+00> : vector<1x1x1x32xf32>
// CHECK-NOT:   vector.transfer_write %[[Z]]
// CHECK:       %[[ACC:.*]] = vector.broadcast %[[Z]] : vector<1x1x1x32xf32> to vector<1x8x1x32xf32>
// CHECK:       scf.for {{.*}} iter_args(%{{.*}} = %[[ACC]]) -> (vector<1x8x1x32xf32>)
// CHECK-NOT:   vector.transfer_write %[[Z]]
func.func @narrow(%x: tensor<?x128xf32>, %w: tensor<96x128xf32>) -> tensor<?x96xf32> {
  %y = attune.linear %x, %w : (tensor<?x128xf32>, tensor<96x128xf32>) -> tensor<?x96xf32>
  return %y : tensor<?x96xf32>
}
