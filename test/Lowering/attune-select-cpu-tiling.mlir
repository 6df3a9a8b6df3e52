// RUN: attune-opt %s --split-input-file --convert-attune-to-linalg --attune-select-cpu-tiling | FileCheck %s

// Each linear layer's GEMM gets its tiling as a typed attribute: 64-column
// panels and 4 x 64 register tiles where 64 divides N, else 32 and 8 x 32; a
// GEMM with an epilogue has it on the epilogue. The module is marked as
// having CPU kernels.
// CHECK:       module attributes {attune.cpu_kernels}
// CHECK-LABEL: func.func @wide_with_epilogue
// CHECK:       linalg.generic {{.*}} iterator_types = ["parallel", "parallel", "parallel", "reduction"]
// CHECK-NOT:   attune.tiling
// CHECK:       attrs = {attune.epilogue, attune.tiling = #attune.gemm_tiling<panel = 64, rows = 4, k_tile = 128, cache_rows = 128, forall_panels = 2>}
func.func @wide_with_epilogue(%x: tensor<?x128xf32>, %w: tensor<512x128xf32>, %b: tensor<512xf32>) -> tensor<?x512xf32> {
  %y = attune.linear %x, %w, %b {activation = #attune.activation<gelu>} : (tensor<?x128xf32>, tensor<512x128xf32>, tensor<512xf32>) -> tensor<?x512xf32>
  return %y : tensor<?x512xf32>
}
// CHECK-LABEL: func.func @narrow
// CHECK:       attrs = {attune.gemm, attune.tiling = #attune.gemm_tiling<panel = 32, rows = 8, k_tile = 256, cache_rows = 128, forall_panels = 4>}
func.func @narrow(%x: tensor<?x128xf32>, %w: tensor<96x128xf32>) -> tensor<?x96xf32> {
  %y = attune.linear %x, %w : (tensor<?x128xf32>, tensor<96x128xf32>) -> tensor<?x96xf32>
  return %y : tensor<?x96xf32>
}

// -----

// Attention's tile contractions: 4 x 64 register tiles where they divide M
// and N, else 8 x 32; no cache tiles.
// CHECK:       module attributes {attune.cpu_kernels}
// CHECK-LABEL: func.func @tiles
// CHECK:       attrs = {attune.tile_gemm, attune.tiling = #attune.gemm_tiling<panel = 64, rows = 4, k_tile = 0, cache_rows = 0, forall_panels = 0>}
// CHECK:       attrs = {attune.tile_gemm, attune.tiling = #attune.gemm_tiling<panel = 32, rows = 8, k_tile = 0, cache_rows = 0, forall_panels = 0>}
#mk = affine_map<(m, n, k) -> (m, k)>
#kn = affine_map<(m, n, k) -> (k, n)>
#mn = affine_map<(m, n, k) -> (m, n)>
func.func @tiles(%a: tensor<64x64xf32>, %b: tensor<64x64xf32>, %c: tensor<64x32xf32>, %i: tensor<64x64xf32>, %j: tensor<64x32xf32>) -> (tensor<64x64xf32>, tensor<64x32xf32>) {
  %0 = linalg.generic {indexing_maps = [#mk, #kn, #mn], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%a, %b : tensor<64x64xf32>, tensor<64x64xf32>) outs(%i : tensor<64x64xf32>) attrs = {attune.tile_gemm} {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %m = arith.mulf %x, %y : f32
    %s = arith.addf %acc, %m : f32
    linalg.yield %s : f32
  } -> tensor<64x64xf32>
  %1 = linalg.generic {indexing_maps = [#mk, #kn, #mn], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%a, %c : tensor<64x64xf32>, tensor<64x32xf32>) outs(%j : tensor<64x32xf32>) attrs = {attune.tile_gemm} {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %m = arith.mulf %x, %y : f32
    %s = arith.addf %acc, %m : f32
    linalg.yield %s : f32
  } -> tensor<64x32xf32>
  return %0, %1 : tensor<64x64xf32>, tensor<64x32xf32>
}

// -----

// Nothing marked: no tiling, and the module is not marked.
// CHECK-NOT:   attune.cpu_kernels
// CHECK-LABEL: func.func @add
// CHECK-NOT:   attune.tiling
func.func @add(%x: tensor<4xf32>, %y: tensor<4xf32>) -> tensor<4xf32> {
  %z = attune.add %x, %y : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %z : tensor<4xf32>
}
