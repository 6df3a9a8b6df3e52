// RUN: attune-opt %s --split-input-file --convert-attune-to-linalg --attune-select-cpu-tiling=cpu=icelake-server | FileCheck %s
// RUN: attune-opt %s --split-input-file --convert-attune-to-linalg --attune-select-cpu-tiling=cpu=sapphirerapids | FileCheck %s
// RUN: attune-opt %s --split-input-file --convert-attune-to-linalg --attune-select-cpu-tiling=cpu=znver4 | FileCheck %s --check-prefix=ZEN4
// RUN: attune-opt %s --split-input-file --convert-attune-to-linalg --attune-select-cpu-tiling=cpu=haswell | FileCheck %s --check-prefix=AVX2
// RUN: attune-opt %s --split-input-file --convert-attune-to-linalg "--attune-select-cpu-tiling=cpu=x86-64-v4 features=-avx512f" | FileCheck %s --check-prefix=AVX2
// RUN: attune-opt %s --split-input-file --convert-attune-to-linalg --attune-select-cpu-tiling=cpu=x86-64-v2 | FileCheck %s --check-prefix=SSE
// RUN: attune-opt %s --split-input-file --convert-attune-to-linalg "--attune-select-cpu-tiling=cpu=znver4 explain" -o /dev/null 2>&1 | FileCheck %s --check-prefix=EXPLAIN
// RUN: attune-opt %s --split-input-file --convert-attune-to-linalg "--attune-select-cpu-tiling=cpu=haswell explain" -o /dev/null 2>&1 | FileCheck %s --check-prefix=HEADS
// RUN: not attune-opt %s --split-input-file --convert-attune-to-linalg --attune-select-cpu-tiling=cpu=pentium-9 2>&1 | FileCheck %s --check-prefix=UNKNOWN

// Each linear layer's GEMM gets its tiling, from the model of the target
// CPU, as a typed attribute; a GEMM with an epilogue has it on the epilogue.
// The module is marked as having CPU kernels. The choices are pinned to
// named CPUs (no test depends on the machine it runs on):
// - AVX-512 Xeons (Ice Lake, Sapphire Rapids: 32 zmm, 2 FMAs and 2 loads
//   per cycle, 48 KiB L1d): 4 x 64 register tiles (8 loads per 16 FMAs),
//   8 x 32 where padding N to 64 columns would cost more (N = 96), k tiles
//   of 128 (a 32 KiB panel slice); N = 2047 is padded to 2048.
// - Zen 4 (the same registers, 32 KiB L1d): the same register tiles, k
//   tiles of 64 (16 KiB; 128 would fill L1d).
// - AVX2 (haswell, or x86-64-v4 with -avx512f: 16 ymm registers, FMA
//   latency 5): 4 x 24 tiles (12 accumulators, 3 weight vectors and a
//   broadcast fill the 16 registers; 7 loads per 12 FMAs, where 2 x 32 has
//   6 per 8 and leaves 3 registers idle), k tiles of 128.
// - SSE (x86-64-v2): 4 x 12.
// CHECK:       module attributes {attune.cpu_kernels}
// CHECK-LABEL: func.func @wide_with_epilogue
// CHECK:       linalg.generic {{.*}} iterator_types = ["parallel", "parallel", "parallel", "reduction"]
// CHECK-NOT:   attune.tiling
// CHECK:       attrs = {attune.epilogue, attune.tiling = #attune.gemm_tiling<panel = 64, rows = 4, k_tile = 128, cache_rows = 128, forall_panels = 2>}
// ZEN4-LABEL:  func.func @wide_with_epilogue
// ZEN4:        attrs = {attune.epilogue, attune.tiling = #attune.gemm_tiling<panel = 64, rows = 4, k_tile = 64, cache_rows = 128, forall_panels = 2>}
// AVX2-LABEL:  func.func @wide_with_epilogue
// AVX2:        attrs = {attune.epilogue, attune.tiling = #attune.gemm_tiling<panel = 24, rows = 4, k_tile = 128, cache_rows = 128, forall_panels = 5>}
// SSE-LABEL:   func.func @wide_with_epilogue
// SSE:         attrs = {attune.epilogue, attune.tiling = #attune.gemm_tiling<panel = 12, rows = 4, k_tile = 448, cache_rows = 128, forall_panels = 10>}
// EXPLAIN:     remark: GEMM ? x 128 -> 512 on znver4 (table): 512-bit vectors x 32, 1 FMA + 1 loads per cycle, FMA latency 4, L1d 32 KiB, L2 1 MiB, avx512bf16: register tile 4 x 64 (16 accumulators, 8 loads per 16 FMAs, FMA-bound, cost 2.5); k_tile 64 (a panel slice of 16 KiB in L1d); cache_rows 128; forall_panels 2
// UNKNOWN:     error: attune-select-cpu-tiling: --cpu=pentium-9: no machine model for this CPU
func.func @wide_with_epilogue(%x: tensor<?x128xf32>, %w: tensor<512x128xf32>, %b: tensor<512xf32>) -> tensor<?x512xf32> {
  %y = attune.linear %x, %w, %b {activation = #attune.activation<gelu>} : (tensor<?x128xf32>, tensor<512x128xf32>, tensor<512xf32>) -> tensor<?x512xf32>
  return %y : tensor<?x512xf32>
}
// N = 96 is one parallel tile of columns (128): cache tiles of 32 rows,
// so that the parallel tiles split M = 64..128 between threads (a tile
// of 32 x 128 x 96 products is more than the 2^18 the rule asks).
// CHECK-LABEL: func.func @narrow
// CHECK:       attrs = {attune.gemm, attune.tiling = #attune.gemm_tiling<panel = 32, rows = 8, k_tile = 128, cache_rows = 32, forall_panels = 4>}
// ZEN4-LABEL:  func.func @narrow
// ZEN4:        attrs = {attune.gemm, attune.tiling = #attune.gemm_tiling<panel = 32, rows = 8, k_tile = 128, cache_rows = 32, forall_panels = 4>}
// EXPLAIN:     remark: GEMM ? x 128 -> 96 on znver4
// EXPLAIN-SAME: register tile 8 x 32 (16 accumulators, 10 loads per 16 FMAs, FMA-bound, cost 2.88)
// EXPLAIN-SAME: cache_rows 32 (N is one parallel tile: the rows split)
func.func @narrow(%x: tensor<?x128xf32>, %w: tensor<96x128xf32>) -> tensor<?x96xf32> {
  %y = attune.linear %x, %w : (tensor<?x128xf32>, tensor<96x128xf32>) -> tensor<?x96xf32>
  return %y : tensor<?x96xf32>
}
// CHECK-LABEL: func.func @vocab
// CHECK:       attrs = {attune.gemm, attune.tiling = #attune.gemm_tiling<panel = 64, rows = 4, k_tile = 128, cache_rows = 128, forall_panels = 2>}
// AVX2-LABEL:  func.func @vocab
// AVX2:        attrs = {attune.gemm, attune.tiling = #attune.gemm_tiling<panel = 24, rows = 4, k_tile = 192, cache_rows = 128, forall_panels = 5>}
// EXPLAIN:     remark: GEMM ? x 768 -> 2047 on znver4
// EXPLAIN-SAME: N padded to 2048; k_tile 64
func.func @vocab(%x: tensor<?x768xf32>, %w: tensor<2047x768xf32>) -> tensor<?x2047xf32> {
  %y = attune.linear %x, %w : (tensor<?x768xf32>, tensor<2047x768xf32>) -> tensor<?x2047xf32>
  return %y : tensor<?x2047xf32>
}
// N at most half a vector (a score head of 1 column, classifiers of 4, 5
// or 8): dot products along K in vectors of the target's lanes, as many
// rows per register tile as the registers hold (on AVX-512 8 x 1, 2 x 8,
// 4 x 4 and 4 x 5; on AVX2's 16 registers 4 x 1 and 2 x 4); 9 columns (more
// than half of 16) keep the panels, and so do 8 and 5 on AVX2 (8 lanes),
// where 9 is 8 columns on panels and 1 as dot products (@split).
// Tiles of rows (cache_rows): 4 register tiles, but at least 16384
// products (K = 100: 168 rows of 1 column, 22 of 8).
// CHECK-LABEL: func.func @score
// CHECK:       attune.tiling = #attune.gemm_tiling<panel = 16, rows = 8, k_tile = 0, cache_rows = 168, forall_panels = 0, dot = true>
// CHECK:       attune.tiling = #attune.gemm_tiling<panel = 16, rows = 2, k_tile = 0, cache_rows = 22, forall_panels = 0, dot = true>
// CHECK:       attune.tiling = #attune.gemm_tiling<panel = 16, rows = 8, k_tile = {{[0-9]+}}, cache_rows = 128, forall_panels = 8>
// CHECK:       attune.tiling = #attune.gemm_tiling<panel = 16, rows = 4, k_tile = 0, cache_rows = 44, forall_panels = 0, dot = true>
// CHECK:       attune.tiling = #attune.gemm_tiling<panel = 16, rows = 4, k_tile = 0, cache_rows = 36, forall_panels = 0, dot = true>
// AVX2-LABEL:  func.func @score
// AVX2:        attune.tiling = #attune.gemm_tiling<panel = 8, rows = 4, k_tile = 0, cache_rows = 164, forall_panels = 0, dot = true>
// AVX2:        attune.tiling = #attune.gemm_tiling<panel = 8, rows = 8, k_tile = {{[0-9]+}}, cache_rows = 128, forall_panels = 16>
// AVX2:        attune.tiling = #attune.gemm_tiling<panel = 8, rows = 8, k_tile = {{[0-9]+}}, cache_rows = 128, forall_panels = 16>
// AVX2:        attune.tiling = #attune.gemm_tiling<panel = 8, rows = 4, k_tile = 0, cache_rows = 164, forall_panels = 0, dot = true>
// AVX2:        attune.tiling = #attune.gemm_tiling<panel = 8, rows = 2, k_tile = 0, cache_rows = 42, forall_panels = 0, dot = true>
// AVX2:        attune.tiling = #attune.gemm_tiling<panel = 8, rows = 8, k_tile = {{[0-9]+}}, cache_rows = 128, forall_panels = 16>
// EXPLAIN:     remark: GEMM ? x 100 -> 1 on znver4
// EXPLAIN-SAME: dot products along K (N = 1 is at most half a vector of 16 lanes): register tile 8 rows x 1 columns x 16 lanes (8 accumulators, 9 loads per 8 FMAs), the last 4 of K after them; cache_rows 168
func.func @score(%x: tensor<?x100xf32>, %w1: tensor<1x100xf32>, %w8: tensor<8x100xf32>, %w9: tensor<9x100xf32>, %w4: tensor<4x100xf32>, %w5: tensor<5x100xf32>) -> (tensor<?x1xf32>, tensor<?x8xf32>, tensor<?x9xf32>, tensor<?x4xf32>, tensor<?x5xf32>) {
  %y1 = attune.linear %x, %w1 : (tensor<?x100xf32>, tensor<1x100xf32>) -> tensor<?x1xf32>
  %y8 = attune.linear %x, %w8 : (tensor<?x100xf32>, tensor<8x100xf32>) -> tensor<?x8xf32>
  %y9 = attune.linear %x, %w9 : (tensor<?x100xf32>, tensor<9x100xf32>) -> tensor<?x9xf32>
  %y4 = attune.linear %x, %w4 : (tensor<?x100xf32>, tensor<4x100xf32>) -> tensor<?x4xf32>
  %y5 = attune.linear %x, %w5 : (tensor<?x100xf32>, tensor<5x100xf32>) -> tensor<?x5xf32>
  return %y1, %y8, %y9, %y4, %y5 : tensor<?x1xf32>, tensor<?x8xf32>, tensor<?x9xf32>, tensor<?x4xf32>, tensor<?x5xf32>
}
// A projection that only attention heads of 32 columns read: the cheapest
// register tile whose panel is the heads' width, so that
// attune-pack-head-gemms makes it write the heads (8 x 32 on AVX-512; on
// AVX2 2 x 32, not the 4 x 24 the cost alone picks).
// CHECK-LABEL: func.func @heads
// CHECK:       attrs = {attune.gemm, attune.tiling = #attune.gemm_tiling<panel = 32, rows = 8,
// AVX2-LABEL:  func.func @heads
// AVX2:        attrs = {attune.gemm, attune.tiling = #attune.gemm_tiling<panel = 32, rows = 2,
// HEADS:       remark: GEMM ? x 64 -> 128 on haswell (table)
// HEADS-SAME:  register tile 2 x 32 ({{.*}}), a panel of the heads' width (the heads written directly)
func.func @heads(%x: tensor<?x?x64xf32>, %w: tensor<128x64xf32>) -> (tensor<?x2x?x32xf32>, tensor<?x2x?x32xf32>) {
  %y = attune.linear %x, %w : (tensor<?x?x64xf32>, tensor<128x64xf32>) -> tensor<?x?x128xf32>
  %q = attune.slice %y {axis = -1 : i64, offset = 0 : i64, size = 64 : i64} : (tensor<?x?x128xf32>) -> tensor<?x?x64xf32>
  %k = attune.slice %y {axis = -1 : i64, offset = 64 : i64, size = 64 : i64} : (tensor<?x?x128xf32>) -> tensor<?x?x64xf32>
  %qh = attune.split_heads %q {num_heads = 2 : i64} : (tensor<?x?x64xf32>) -> tensor<?x2x?x32xf32>
  %kh = attune.split_heads %k {num_heads = 2 : i64} : (tensor<?x?x64xf32>) -> tensor<?x2x?x32xf32>
  return %qh, %kh : tensor<?x2x?x32xf32>, tensor<?x2x?x32xf32>
}

// -----

// Attention's tile contractions: the cheapest register tile that divides M
// and N (4 x 64, else 8 x 32 on AVX-512; 2 x 32 with AVX2, as panels of
// 3 vectors are for linear layers only, whose vectorization cuts them in
// chunks); no cache tiles.
// CHECK:       module attributes {attune.cpu_kernels}
// CHECK-LABEL: func.func @tiles
// CHECK:       attrs = {attune.tile_gemm, attune.tiling = #attune.gemm_tiling<panel = 64, rows = 4, k_tile = 0, cache_rows = 0, forall_panels = 0>}
// CHECK:       attrs = {attune.tile_gemm, attune.tiling = #attune.gemm_tiling<panel = 32, rows = 8, k_tile = 0, cache_rows = 0, forall_panels = 0>}
// AVX2-LABEL:  func.func @tiles
// AVX2-COUNT-2: attrs = {attune.tile_gemm, attune.tiling = #attune.gemm_tiling<panel = 32, rows = 2, k_tile = 0, cache_rows = 0, forall_panels = 0>}
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

// N mod 16 at most half a vector after whole vectors (17 = 16 + 1, 33 =
// 32 + 1): the last columns a GEMM of their own (dot products along K),
// the first N0 on panels, each part's weights a slice of the layer's and
// its init the broadcast of its columns of the bias (its GEMM's own init,
// for attune-fuse-gemm-inits), the results joined into the layer's empty
// tensor (the layer's whole broadcast is gone); 33's ReLU (its epilogue
// mark dropped) then a row kernel over the joined columns. On AVX2 (8
// lanes) 17 is 16 + 1 and 33 32 + 1 as well. 2047 (15 over whole vectors,
// @vocab) and columns fewer than a vector (@score) are not split.
// CHECK-LABEL: func.func @split
// CHECK-SAME:    %[[B17:[^:]*]]: tensor<17xf32>
// CHECK:       %[[E17:.*]] = tensor.empty(%{{.*}}) : tensor<1x?x17xf32>
// CHECK-NOT:   ins(%[[B17]] : tensor<17xf32>)
// CHECK:       %[[E16:.*]] = tensor.empty(%{{.*}}) : tensor<1x?x16xf32>
// CHECK:       %[[B16:.*]] = tensor.extract_slice %[[B17]][0] [16] [1] : tensor<17xf32> to tensor<16xf32>
// CHECK:       %[[I16:.*]] = linalg.generic {{.*}} ins(%[[B16]] : tensor<16xf32>) outs(%[[E16]] : tensor<1x?x16xf32>)
// CHECK:       %[[W16:.*]] = tensor.extract_slice %[[W17:.*]][0, 0] [100, 16] [1, 1] : tensor<100x17xf32> to tensor<100x16xf32>
// CHECK:       %[[G16:.*]] = linalg.generic {{.*}} ins(%{{.*}}, %[[W16]] : tensor<1x?x100xf32>, tensor<100x16xf32>) outs(%[[I16]] : tensor<1x?x16xf32>) attrs = {attune.gemm, attune.tiling = #attune.gemm_tiling<panel = 16,
// CHECK:       %[[C16:.*]] = tensor.insert_slice %[[G16]] into %[[E17]][0, 0, 0] [1, %{{.*}}, 16] [1, 1, 1]
// CHECK:       %[[E1:.*]] = tensor.empty(%{{.*}}) : tensor<1x?x1xf32>
// CHECK:       %[[B1:.*]] = tensor.extract_slice %[[B17]][16] [1] [1] : tensor<17xf32> to tensor<1xf32>
// CHECK:       %[[I1:.*]] = linalg.generic {{.*}} ins(%[[B1]] : tensor<1xf32>) outs(%[[E1]] : tensor<1x?x1xf32>)
// CHECK:       %[[W1:.*]] = tensor.extract_slice %[[W17]][0, 16] [100, 1] [1, 1] : tensor<100x17xf32> to tensor<100x1xf32>
// CHECK:       %[[G1:.*]] = linalg.generic {{.*}} ins(%{{.*}}, %[[W1]] : tensor<1x?x100xf32>, tensor<100x1xf32>) outs(%[[I1]] : tensor<1x?x1xf32>) attrs = {attune.gemm, attune.tiling = #attune.gemm_tiling<panel = 16, rows = 8, k_tile = 0, cache_rows = 168, forall_panels = 0, dot = true>}
// CHECK:       tensor.insert_slice %[[G1]] into %[[C16]][0, 0, 16] [1, %{{.*}}, 1] [1, 1, 1]
// CHECK:       linalg.generic {{.*}} ins(%{{.*}}, %{{.*}} : tensor<1x?x100xf32>, tensor<100x32xf32>) {{.*}} attrs = {attune.gemm, attune.tiling = #attune.gemm_tiling<panel = 32,
// CHECK:       linalg.generic {{.*}} ins(%{{.*}}, %{{.*}} : tensor<1x?x100xf32>, tensor<100x1xf32>) {{.*}} dot = true>}
// CHECK:       %[[C33:.*]] = tensor.insert_slice
// CHECK:       linalg.generic {{.*}} ins(%[[C33]] : tensor<1x?x33xf32>)
// CHECK-NOT:     attune.epilogue
// CHECK:         arith.maximumf
// AVX2-LABEL:  func.func @split
// AVX2:        tensor<100x16xf32>) {{.*}} attrs = {attune.gemm, attune.tiling = #attune.gemm_tiling<panel = 16,
// AVX2:        tensor<100x1xf32>) {{.*}} dot = true>}
// EXPLAIN:     remark: GEMM ? x 100 -> 16 on znver4
// EXPLAIN:     remark: GEMM ? x 100 -> 1 on znver4 {{.*}} dot products along K
func.func @split(%x: tensor<?x100xf32>, %w17: tensor<17x100xf32>, %b17: tensor<17xf32>, %w33: tensor<33x100xf32>, %b33: tensor<33xf32>) -> (tensor<?x17xf32>, tensor<?x33xf32>) {
  %y17 = attune.linear %x, %w17, %b17 : (tensor<?x100xf32>, tensor<17x100xf32>, tensor<17xf32>) -> tensor<?x17xf32>
  %y33 = attune.linear %x, %w33, %b33 {activation = #attune.activation<relu>} : (tensor<?x100xf32>, tensor<33x100xf32>, tensor<33xf32>) -> tensor<?x33xf32>
  return %y17, %y33 : tensor<?x17xf32>, tensor<?x33xf32>
}

// Without a bias the init is a zero fill: one per part, into the part's
// own empty tensor, the parts joined into the layer's.
// CHECK-LABEL: func.func @split_no_bias
// CHECK:       %[[E17:.*]] = tensor.empty(%{{.*}}) : tensor<1x?x17xf32>
// CHECK-NOT:   linalg.fill {{.*}} -> tensor<1x?x17xf32>
// CHECK:       %[[F16:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%{{.*}} : tensor<1x?x16xf32>)
// CHECK:       %[[G16:.*]] = linalg.generic {{.*}} outs(%[[F16]] : tensor<1x?x16xf32>) attrs = {attune.gemm
// CHECK:       %[[C16:.*]] = tensor.insert_slice %[[G16]] into %[[E17]]
// CHECK:       %[[F1:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%{{.*}} : tensor<1x?x1xf32>)
// CHECK:       %[[G1:.*]] = linalg.generic {{.*}} outs(%[[F1]] : tensor<1x?x1xf32>) attrs = {attune.gemm
// CHECK:       tensor.insert_slice %[[G1]] into %[[C16]]
func.func @split_no_bias(%x: tensor<?x100xf32>, %w17: tensor<17x100xf32>) -> tensor<?x17xf32> {
  %y17 = attune.linear %x, %w17 : (tensor<?x100xf32>, tensor<17x100xf32>) -> tensor<?x17xf32>
  return %y17 : tensor<?x17xf32>
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
