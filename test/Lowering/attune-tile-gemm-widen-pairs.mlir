// RUN: attune-opt %s --split-input-file --convert-attune-to-linalg "--attune-select-cpu-tiling=cpu=znver4 weights=bf16" | FileCheck %s --check-prefix=TILING
// RUN: attune-opt %s --split-input-file --convert-attune-to-linalg "--attune-select-cpu-tiling=cpu=znver4 weights=bf16 explain" -o /dev/null 2>&1 | FileCheck %s --check-prefix=EXPLAIN
// RUN: attune-opt %s --split-input-file --convert-attune-to-linalg "--attune-select-cpu-tiling=cpu=haswell weights=bf16" | FileCheck %s --check-prefix=AVX2
// RUN: attune-opt %s --split-input-file --convert-attune-to-linalg "--attune-select-cpu-tiling=cpu=znver4 weights=bf16 compute=bf16" | FileCheck %s --check-prefix=COMPUTE
// RUN: attune-opt %s --split-input-file --convert-attune-to-linalg "--attune-select-cpu-tiling=cpu=znver4 weights=f16" | FileCheck %s --check-prefix=F16
// RUN: attune-opt %s --split-input-file --convert-attune-to-linalg "--attune-select-cpu-tiling=cpu=znver4 weights=bf16" --attune-pack-gemms=weight-type=bf16 | FileCheck %s --check-prefix=PACK
// RUN: attune-opt %s --split-input-file --convert-attune-to-linalg "--attune-select-cpu-tiling=cpu=znver4 weights=bf16" --attune-pack-gemms=weight-type=bf16 --attune-fuse-gemm-inits "--attune-tile-gemm=cpu=znver4" | FileCheck %s --check-prefix=TILE
// RUN: not attune-opt %s --split-input-file --convert-attune-to-linalg "--attune-select-cpu-tiling=cpu=znver4 weights=f8" -o /dev/null 2>&1 | FileCheck %s --check-prefix=BAD

// bf16 weights with f32 arithmetic (--gemm-weights=bf16) on 512-bit
// vectors: attune-select-cpu-tiling gives the GEMM widen_pairs, the bf16
// compute mode's k-pair panels (its k tile sized for 2-byte weights) with
// A in f32. Not on AVX2 (the widening stays a vpmovzxwd and a shift, as
// measured there), not with the bf16 compute mode (bf16_dot instead), not
// for f16 weights, and not for an odd K.
// TILING-LABEL: func.func @gelu
// TILING:       attune.tiling = #attune.gemm_tiling<panel = 64, rows = 4, k_tile = 128, cache_rows = 128, forall_panels = 2, widen_pairs = true>
// TILING-LABEL: func.func @odd_k
// TILING-NOT:   widen_pairs
// EXPLAIN:      remark: GEMM ? x 256 -> 512 {{.*}}; bf16 weight k-pairs, widened in registers (A in f32)
// EXPLAIN:      remark: GEMM ? x 255 -> 64 {{.*}}; bf16 weights, not k-pairs: K is odd
// AVX2-NOT:     widen_pairs
// COMPUTE:      attune.tiling = #attune.gemm_tiling<panel = 64, rows = 4, k_tile = 128, cache_rows = 128, forall_panels = 2, bf16_dot = true>
// COMPUTE-NOT:  widen_pairs
// F16-NOT:      widen_pairs
// BAD:          error: attune-select-cpu-tiling: weights=f8: expected f32, bf16 or f16
//
// attune-pack-gemms: bf16 k-pair panels [N/64, K/2, 64, 2] as for the bf16
// compute mode, A's f32 values only viewed as pairs [B, M, K/2, 2] (no
// rounding), the GEMM of 6 loops on f32 A and bf16 panels.
// PACK-LABEL: func.func @gelu
// PACK:       %[[P:.*]] = linalg.generic {{.*}} outs(%{{.*}} : tensor<8x128x64x2xbf16>) attrs = {attune.panel_rounding}
// PACK-NOT:   attune.pair_rounding
// PACK:       %[[A:.*]] = tensor.expand_shape %{{.*}} {{\[}}[0], [1], [2, 3]] output_shape [1, %{{.*}}, 128, 2] : tensor<1x?x256xf32> into tensor<1x?x128x2xf32>
// PACK-NOT:   arith.truncf
// PACK:       linalg.generic {{.*}} iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction"]} ins(%[[A]], %[[P]] : tensor<1x?x128x2xf32>, tensor<8x128x64x2xbf16>) outs(%{{.*}} : tensor<1x8x?x64xf32>)
//
// attune-tile-gemm: the bf16 compute mode's tiles (k tiles of 64 pairs, 4 x
// 64 register tiles per pair step), on Zen 4 too without vdpbf16ps: the
// panel row as 32-bit words, each cut into its pairs' two elements (a
// shift, a mask), each row's two f32 values of A broadcast, two FMAs per
// vector (32 a step); the last rows one at a time (8 FMAs a step).
// TILE-LABEL: func.func @gelu
// TILE:       scf.for {{.*}} step %c64
// TILE:         scf.for {{.*}} iter_args({{.*}}) -> (vector<1x1x4x64xf32>)
// TILE:           vector.bitcast {{.*}} : vector<128xbf16> to vector<64xi32>
// TILE-COUNT-4:   arith.shli {{.*}} : vector<16xi32>
// TILE:           tensor.extract {{.*}} : tensor<1x?x128x2xf32>
// TILE:           vector.broadcast {{.*}} : f32 to vector<16xf32>
// TILE-NOT:       x86vector.avx512.dot
// TILE-COUNT-32:  vector.fma {{.*}} : vector<16xf32>
// TILE:         } {attune.panel_k_loop}
// TILE:         scf.for {{.*}} -> (vector<1x1x1x64xf32>)
// TILE-NOT:       x86vector.avx512.dot
// TILE-COUNT-8:   vector.fma {{.*}} : vector<16xf32>
// TILE:         } {attune.row_k_loop}
func.func @gelu(%x: tensor<?x256xf32>, %w: tensor<512x256xf32>, %b: tensor<512xf32>) -> tensor<?x512xf32> {
  %y = attune.linear %x, %w, %b {activation = #attune.activation<gelu>} : (tensor<?x256xf32>, tensor<512x256xf32>, tensor<512xf32>) -> tensor<?x512xf32>
  return %y : tensor<?x512xf32>
}

// -----

func.func @odd_k(%x: tensor<?x255xf32>, %w: tensor<64x255xf32>) -> tensor<?x64xf32> {
  %y = attune.linear %x, %w : (tensor<?x255xf32>, tensor<64x255xf32>) -> tensor<?x64xf32>
  return %y : tensor<?x64xf32>
}
