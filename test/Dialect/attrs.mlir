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

// -----

// The bf16 compute mode's flag (false, its default, is left out).
// CHECK-LABEL: func.func @bf16_dot_tiling
// CHECK-SAME:  #attune.gemm_tiling<panel = 64, rows = 4, k_tile = 128, cache_rows = 128, forall_panels = 2, bf16_dot = true>
// CHECK-SAME:  other = #attune.gemm_tiling<panel = 64, rows = 4, k_tile = 128, cache_rows = 128, forall_panels = 2>}
func.func @bf16_dot_tiling() attributes {attune.tiling = #attune.gemm_tiling<panel = 64, rows = 4, k_tile = 128, cache_rows = 128, forall_panels = 2, bf16_dot = true>, other = #attune.gemm_tiling<panel = 64, rows = 4, k_tile = 128, cache_rows = 128, forall_panels = 2, bf16_dot = false>} {
  return
}

// -----

// bf16 weight k-pairs widened in registers (A in f32).
// CHECK-LABEL: func.func @widen_pairs_tiling
// CHECK-SAME:  #attune.gemm_tiling<panel = 64, rows = 4, k_tile = 128, cache_rows = 128, forall_panels = 2, widen_pairs = true>
func.func @widen_pairs_tiling() attributes {attune.tiling = #attune.gemm_tiling<panel = 64, rows = 4, k_tile = 128, cache_rows = 128, forall_panels = 2, widen_pairs = true>} {
  return
}

// -----

// Dot products along K (N narrower than half a vector).
// CHECK-LABEL: func.func @dot_tiling
// CHECK-SAME:  #attune.gemm_tiling<panel = 16, rows = 8, k_tile = 0, cache_rows = 128, forall_panels = 0, dot = true>
func.func @dot_tiling() attributes {attune.tiling = #attune.gemm_tiling<panel = 16, rows = 8, k_tile = 0, cache_rows = 128, forall_panels = 0, dot = true>} {
  return
}

// -----

// #attune.sparse round-trips; parameters at their default (0, false) are
// left out.
// CHECK-LABEL: func.func @sparse_layout
// CHECK-SAME:  layout = #attune.sparse<block = 64, local = 4, stride = 4>
// CHECK-SAME:  other = #attune.sparse<block = 1, fixed = 8, summary = 1, global = 2, split = true>
func.func @sparse_layout() attributes {layout = #attune.sparse<block = 64, local = 4, stride = 4, fixed = 0>, other = #attune.sparse<block = 1, fixed = 8, summary = 1, global = 2, split = true>} {
  return
}
