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

// -----

// expected-error @+1 {{bf16_dot steps k in pairs: k_tile must be even, got 65}}
func.func @odd_bf16_k_tile() attributes {attune.tiling = #attune.gemm_tiling<panel = 64, rows = 4, k_tile = 65, cache_rows = 128, forall_panels = 2, bf16_dot = true>} {
  return
}

// -----

// expected-error @+1 {{dot products along K run in f32: dot and bf16_dot exclude each other}}
func.func @dot_bf16() attributes {attune.tiling = #attune.gemm_tiling<panel = 16, rows = 8, k_tile = 0, cache_rows = 128, forall_panels = 0, bf16_dot = true, dot = true>} {
  return
}

// -----

// expected-error @+1 {{widen_pairs is the f32 arithmetic on bf16 k-pair panels: it excludes bf16_dot and dot}}
func.func @widen_bf16() attributes {attune.tiling = #attune.gemm_tiling<panel = 64, rows = 4, k_tile = 128, cache_rows = 128, forall_panels = 2, bf16_dot = true, widen_pairs = true>} {
  return
}

// -----

// expected-error @+1 {{widen_pairs steps k in pairs: k_tile must be even, got 65}}
func.func @odd_widen_k_tile() attributes {attune.tiling = #attune.gemm_tiling<panel = 64, rows = 4, k_tile = 65, cache_rows = 128, forall_panels = 2, widen_pairs = true>} {
  return
}

// -----

// expected-error @+1 {{dot tiles have no k tiles or panels: k_tile and forall_panels must be 0, got 128 and 0}}
func.func @dot_k_tile() attributes {attune.tiling = #attune.gemm_tiling<panel = 16, rows = 8, k_tile = 128, cache_rows = 128, forall_panels = 0, dot = true>} {
  return
}

// -----

// expected-error @+1 {{sparse layout: block must be >= 1, got 0}}
func.func @sparse_0() attributes {layout = #attune.sparse<block = 0, local = 1>} {
  return
}

// -----

// expected-error @+1 {{sparse layout: local must be >= 0, got -1}}
func.func @sparse_1() attributes {layout = #attune.sparse<block = 8, local = -1>} {
  return
}

// -----

// expected-error @+1 {{sparse layout: summary (3) needs fixed >= summary, got fixed = 2}}
func.func @sparse_2() attributes {layout = #attune.sparse<block = 8, fixed = 2, summary = 3>} {
  return
}

// -----

// expected-error @+1 {{sparse layout: summary (1) needs fixed >= summary, got fixed = 0}}
func.func @sparse_3() attributes {layout = #attune.sparse<block = 8, local = 2, summary = 1>} {
  return
}

// -----

// expected-error @+1 {{sparse layout: no component (expected at least one of local, stride, fixed, global > 0)}}
func.func @sparse_4() attributes {layout = #attune.sparse<block = 8>} {
  return
}

// -----

// expected-error @+1 {{sparse layout: split needs a first factor (local or fixed) and a second (stride or summary)}}
func.func @sparse_5() attributes {layout = #attune.sparse<block = 8, local = 2, split = true>} {
  return
}
