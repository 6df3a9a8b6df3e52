// RUN: attune-opt %s --split-input-file --verify-diagnostics

// expected-error @+1 {{panel and rows must be positive, got panel = 0, rows = 4}}
func.func @zero_panel() attributes {attune.tiling = #attune.gemm_tiling<panel = 0, rows = 4, k_tile = 128, cache_rows = 128, forall_panels = 2>} {
  return
}

// -----

// expected-error @+1 {{k_tile, cache_rows and forall_panels must not be negative}}
func.func @negative_k_tile() attributes {attune.tiling = #attune.gemm_tiling<panel = 64, rows = 4, k_tile = -1, cache_rows = 128, forall_panels = 2>} {
  return
}

// -----

// expected-error @+1 {{cache_rows (100) must be a multiple of rows (8)}}
func.func @ragged_cache_rows() attributes {attune.tiling = #attune.gemm_tiling<panel = 32, rows = 8, k_tile = 256, cache_rows = 100, forall_panels = 4>} {
  return
}
