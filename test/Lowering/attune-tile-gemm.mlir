// RUN: attune-opt %s --split-input-file --convert-attune-to-linalg --attune-select-cpu-tiling=cpu=icelake-server --attune-pack-gemms --attune-fuse-gemm-inits --attune-tile-gemm | FileCheck %s
// RUN: attune-opt %s --split-input-file --convert-attune-to-linalg --attune-select-cpu-tiling=cpu=znver3 --attune-pack-gemms --attune-fuse-gemm-inits --attune-tile-gemm | FileCheck %s --check-prefix=AVX2
// RUN: attune-opt %s --split-input-file --convert-attune-to-linalg --attune-select-cpu-tiling=cpu=icelake-server --attune-pack-gemms --attune-fuse-gemm-inits "--attune-tile-gemm=parallel=true" | FileCheck %s --check-prefix=PAR

// The schedule follows the GEMM's tiling (#attune.gemm_tiling<panel = 32,
// rows = 8, ..., cache_rows = 32, ...>: N = 96 is one parallel tile of
// columns, so the cache tiles are 32 rows): cache tiles of 32 rows x one
// panel (the fused init writes the tile one row at a time), register tiles
// of 8 x 32, one per k
// step, the accumulators carried through the k loop (marked for
// attune-prefetch-panels), 8 FMAs on vector<32xf32> per step; the last rows
// in full tiles of 4 rows, then of 2, then one at a time (a row alone has
// only two accumulators).
// CHECK-LABEL: func.func @narrow
// CHECK:       scf.for {{.*}} step %c32
// CHECK:         scf.for {{.*}} to %c3 step %c1
// CHECK:           scf.for
// CHECK:             vector.transfer_write {{.*}} : vector<1x1x1x32xf32>
// CHECK:           scf.for {{.*}} step %c8
// CHECK:             scf.for {{.*}} iter_args({{.*}}) -> (vector<1x8x1x32xf32>)
// CHECK-COUNT-8:       vector.fma {{.*}} : vector<32xf32>
// CHECK:             } {attune.panel_k_loop}
// CHECK:           scf.for
// CHECK:             scf.for {{.*}} step %c4
// CHECK:               scf.for {{.*}} -> (vector<1x4x1x32xf32>)
// CHECK-COUNT-4:         vector.fma {{.*}} : vector<32xf32>
// CHECK:               } {attune.panel_k_loop}
// CHECK:             scf.for
// CHECK:               scf.for {{.*}} step %c2
// CHECK:                 scf.for {{.*}} -> (vector<1x2x1x32xf32>)
// CHECK-COUNT-2:           vector.fma {{.*}} : vector<32xf32>
// CHECK:                 } {attune.panel_k_loop}
// CHECK:               scf.for
// CHECK:                 scf.for
// CHECK:                   scf.for {{.*}} -> (vector<1x1x1x32xf32>)
// CHECK:                     vector.fma {{.*}} : vector<32xf32>
// CHECK:                   } {attune.row_k_loop}
// CHECK-NOT:   linalg.generic
//
// A panel of 3 vectors (4 x 24 on Zen 3's 16 ymm registers) is vectorized
// in chunks of 8 columns: a vector<24xf32> carried through the k loop is
// scalarized by LLVM. Each chunk's accumulators are an iter_arg of their
// own, and the FMAs go row by row (a row's broadcast, then its three FMAs)
// so that only one broadcast is live. The last rows: full tiles of 2 rows
// (chunked alike), then one row at a time, its k loop carrying the row's
// three chunks.
// AVX2-LABEL: func.func @narrow
// AVX2:       scf.for {{.*}} step %c4
// AVX2:         scf.for {{.*}} iter_args({{.*}}) -> (vector<1x4x1x8xf32>, vector<1x4x1x8xf32>, vector<1x4x1x8xf32>)
// AVX2-COUNT-4:   vector.broadcast {{.*}} : f32 to vector<8xf32>
// AVX2-NEXT:      vector.extract
// AVX2-NEXT:      vector.fma {{.*}} : vector<8xf32>
// AVX2-NEXT:      vector.extract
// AVX2-NEXT:      vector.fma {{.*}} : vector<8xf32>
// AVX2-NEXT:      vector.extract
// AVX2-NEXT:      vector.fma {{.*}} : vector<8xf32>
// AVX2:         } {attune.panel_k_loop}
// AVX2:         vector.transfer_write {{.*}}[%c0, %c0, %c0, %c16] {{.*}} : vector<1x4x1x8xf32>
// AVX2:         vector.transfer_write {{.*}}[%c0, %c0, %c0, %c8] {{.*}} : vector<1x4x1x8xf32>
// AVX2:         vector.transfer_write {{.*}}[%c0, %c0, %c0, %c0] {{.*}} : vector<1x4x1x8xf32>
// AVX2:       scf.for
// AVX2:         scf.for {{.*}} step %c2
// AVX2:           scf.for {{.*}} -> (vector<1x2x1x8xf32>, vector<1x2x1x8xf32>, vector<1x2x1x8xf32>)
// AVX2-COUNT-6:     vector.fma {{.*}} : vector<8xf32>
// AVX2:           } {attune.panel_k_loop}
// AVX2:         scf.for
// AVX2:           scf.for
// AVX2:             scf.for {{.*}} -> (vector<1x1x1x8xf32>, vector<1x1x1x8xf32>, vector<1x1x1x8xf32>)
// AVX2-COUNT-3:       vector.fma {{.*}} : vector<8xf32>
// AVX2:             } {attune.row_k_loop}
// AVX2-NOT:   vector<{{[0-9x]*}}24xf32>
func.func @narrow(%x: tensor<?x128xf32>, %w: tensor<96x128xf32>) -> tensor<?x96xf32> {
  %y = attune.linear %x, %w : (tensor<?x128xf32>, tensor<96x128xf32>) -> tensor<?x96xf32>
  return %y : tensor<?x96xf32>
}

// -----

// Attention's value GEMM o += p v reads its probabilities transposed (pT
// [k, m]): a register tile's two rows are side by side in memory. Each is
// read as a scalar and broadcast (one broadcast load), not as one
// vector<1x2xf32> split with shuffles that took FMA ports.
// AVX2-LABEL: func.func @value_gemm
// AVX2:       scf.for {{.*}} step %c2
// AVX2:         scf.for {{.*}} iter_args({{.*}}) -> (vector<2x32xf32>)
// AVX2-NOT:       vector<1x2xf32>
// AVX2:           tensor.extract %{{.*}}[%{{.*}}, %{{.*}}] : tensor<64x64xf32>
// AVX2-NEXT:      vector.broadcast {{.*}} : f32 to vector<32xf32>
// AVX2:           tensor.extract %{{.*}}[%{{.*}}, %{{.*}}] : tensor<64x64xf32>
// AVX2-NEXT:      vector.broadcast {{.*}} : f32 to vector<32xf32>
// AVX2-NOT:       vector<1x2xf32>
// AVX2:         scf.yield
#km = affine_map<(m, n, k) -> (k, m)>
#kn = affine_map<(m, n, k) -> (k, n)>
#mn = affine_map<(m, n, k) -> (m, n)>
func.func @value_gemm(%pT: tensor<64x64xf32>, %v: tensor<64x64xf32>, %acc: tensor<64x64xf32>) -> tensor<64x64xf32> {
  %o = linalg.generic {indexing_maps = [#km, #kn, #mn], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%pT, %v : tensor<64x64xf32>, tensor<64x64xf32>) outs(%acc : tensor<64x64xf32>) attrs = {attune.tile_gemm} {
  ^bb0(%x: f32, %y: f32, %a: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %a, %p : f32
    linalg.yield %s : f32
  } -> tensor<64x64xf32>
  return %o : tensor<64x64xf32>
}

// -----

// N = 1 (a `dot` tiling): the last 4 products of K = 100 onto the bias, a
// row at a time; then tiles of 168 rows (at least 16384 products), each:
// T's zero fill a row at a time, register tiles of 8 rows x 1 column x 16
// lanes, one multiply-add on whole vectors per ko step (the unit reduction
// folded, its add contractible into an FMA), the partial sums carried
// through the ko loop, the last rows in tiles of 4, 2, then 1; then the
// lanes' sum (a vector.reduction) a row at a time. With `parallel` the
// tiles are one scf.forall, the last products fused into it.
// CHECK-LABEL: func.func @score
// CHECK:       scf.for
// CHECK-COUNT-4: vector.fma {{.*}} : vector<1xf32>
// CHECK:       scf.for {{.*}} step %c168
// CHECK:         scf.for {{.*}} step %c1
// CHECK:           vector.transfer_write {{.*}} : vector<1x1x1x16xf32>
// CHECK:         scf.for {{.*}} step %c8
// CHECK:           scf.for {{.*}} to %c6 step %c1 iter_args({{.*}}) -> (vector<1x8x1x16xf32>)
// CHECK:             arith.mulf {{.*}} fastmath<reassoc,contract> : vector<1x8x1x1x16xf32>
// CHECK:             arith.addf {{.*}} fastmath<reassoc,contract> : vector<1x8x1x16xf32>
// CHECK:         scf.for
// CHECK:           scf.for {{.*}} step %c4
// CHECK:             scf.for {{.*}} -> (vector<1x4x1x16xf32>)
// CHECK:           scf.for
// CHECK:             scf.for {{.*}} step %c2
// CHECK:               scf.for {{.*}} -> (vector<1x2x1x16xf32>)
// CHECK:             scf.for
// CHECK:               scf.for
// CHECK:                 scf.for {{.*}} -> (vector<1x1x1x16xf32>)
// CHECK:         scf.for
// CHECK:           vector.reduction <add>, {{.*}} : vector<16xf32> into f32
// CHECK-NOT:   linalg.generic
// PAR-LABEL:   func.func @score
// PAR:         scf.forall {{.*}} shared_outs
// PAR:           vector.transfer_write {{.*}} : vector<1x1x1x16xf32>
// PAR:           scf.for {{.*}} step %c8
// PAR:             -> (vector<1x8x1x16xf32>)
// PAR:           scf.for
// PAR-COUNT-4:     vector.fma {{.*}} : vector<1xf32>
// PAR:           scf.for
// PAR:             vector.reduction <add>, {{.*}} : vector<16xf32> into f32
// PAR:           scf.forall.in_parallel
// PAR-NOT:     linalg.generic
func.func @score(%x: tensor<?x100xf32>, %w: tensor<1x100xf32>, %b: tensor<1xf32>) -> tensor<?x1xf32> {
  %y = attune.linear %x, %w, %b : (tensor<?x100xf32>, tensor<1x100xf32>, tensor<1xf32>) -> tensor<?x1xf32>
  return %y : tensor<?x1xf32>
}

// -----

// A module the CPU kernel passes did not mark is left alone.
// CHECK-LABEL: func.func @add
// PAR-LABEL:   func.func @add
// CHECK:       linalg.generic
// CHECK-NOT:   vector.
func.func @add(%x: tensor<4xf32>, %y: tensor<4xf32>) -> tensor<4xf32> {
  %z = attune.add %x, %y : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %z : tensor<4xf32>
}
