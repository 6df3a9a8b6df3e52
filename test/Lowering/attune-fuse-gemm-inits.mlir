// RUN: attune-opt %s --convert-attune-to-linalg --attune-select-cpu-tiling=cpu=icelake-server --attune-pack-gemms --attune-fuse-gemm-inits | FileCheck %s
// RUN: attune-opt %s --convert-attune-to-linalg --attune-select-cpu-tiling=cpu=icelake-server --attune-pack-gemms "--attune-fuse-gemm-inits=parallel=true" | FileCheck %s --check-prefix=PAR

// A GEMM without an epilogue: its zero fill goes into each cache tile
// (cache_rows = 32 rows, N = 96 being one parallel tile of columns, x one
// 32-column panel), right before the tile's GEMM, which becomes an
// attune.gemm_cache_tile with its tiling. With parallel=true the cache
// tiles sit in an scf.forall over 32 rows x forall_panels = 4 panels.
// CHECK-LABEL: func.func @narrow
// CHECK:       scf.for {{.*}} step %c32
// CHECK:         scf.for {{.*}} to %c3 step %c1
// CHECK:           linalg.fill {attune.init_tile} {{.*}} -> tensor<1x?x1x32xf32>
// CHECK:           linalg.generic {{.*}} attrs = {attune.gemm_cache_tile, attune.tiling = #attune.gemm_tiling<panel = 32, rows = 8, k_tile = 128, cache_rows = 32, forall_panels = 4>}
// PAR-LABEL:   func.func @narrow
// PAR:         scf.forall ({{.*}}) = (0, 0, 0) to (1, %{{.*}}, 3) step (1, 32, 4)
// PAR:           scf.for
// PAR:             linalg.fill {attune.init_tile}
func.func @narrow(%x: tensor<?x128xf32>, %w: tensor<96x128xf32>) -> tensor<?x96xf32> {
  %y = attune.linear %x, %w : (tensor<?x128xf32>, tensor<96x128xf32>) -> tensor<?x96xf32>
  return %y : tensor<?x96xf32>
}

// With an epilogue the init is only marked (attune.init_tile): the schedule
// fuses it into the epilogue's tiles.
// CHECK-LABEL: func.func @wide
// CHECK:       linalg.generic {{.*}} attrs = {attune.heads_init, attune.init_tile}
// CHECK-NOT:   attune.gemm_cache_tile
// CHECK:       attrs = {attune.epilogue
func.func @wide(%x: tensor<?x128xf32>, %w: tensor<512x128xf32>, %b: tensor<512xf32>) -> tensor<?x512xf32> {
  %y = attune.linear %x, %w, %b {activation = #attune.activation<gelu>} : (tensor<?x128xf32>, tensor<512x128xf32>, tensor<512xf32>) -> tensor<?x512xf32>
  return %y : tensor<?x512xf32>
}
