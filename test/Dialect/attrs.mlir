// RUN: attune-opt %s --split-input-file | attune-opt --split-input-file | FileCheck %s

// #attune.gemm_tiling round-trips.
// CHECK-LABEL: func.func @tiling
// CHECK-SAME:  attune.tiling = #attune.gemm_tiling<panel = 64, rows = 4, k_tile = 128, cache_rows = 128, forall_panels = 2>
func.func @tiling() attributes {attune.tiling = #attune.gemm_tiling<panel = 64, rows = 4, k_tile = 128, cache_rows = 128, forall_panels = 2>} {
  return
}

// -----

// CHECK-LABEL: func.func @tile_gemm_tiling
// CHECK-SAME:  #attune.gemm_tiling<panel = 32, rows = 8, k_tile = 0, cache_rows = 0, forall_panels = 0>
func.func @tile_gemm_tiling() attributes {attune.tiling = #attune.gemm_tiling<panel = 32, rows = 8, k_tile = 0, cache_rows = 0, forall_panels = 0>} {
  return
}
