// RUN: attune-opt %s --split-input-file --convert-attune-to-linalg "--attune-select-cpu-tiling=cpu=znver4 compute=bf16" | FileCheck %s --check-prefix=TILING
// RUN: attune-opt %s --split-input-file --convert-attune-to-linalg "--attune-select-cpu-tiling=cpu=znver4 compute=bf16 explain" -o /dev/null 2>&1 | FileCheck %s --check-prefix=EXPLAIN
// RUN: attune-opt %s --split-input-file --convert-attune-to-linalg "--attune-select-cpu-tiling=cpu=znver4 compute=bf16" --attune-pack-gemms | FileCheck %s --check-prefix=PACK
// RUN: attune-opt %s --split-input-file --convert-attune-to-linalg "--attune-select-cpu-tiling=cpu=znver4 compute=bf16" --attune-pack-gemms --attune-fuse-gemm-inits "--attune-tile-gemm=cpu=znver4" | FileCheck %s --check-prefix=DOT
// RUN: attune-opt %s --split-input-file --convert-attune-to-linalg "--attune-select-cpu-tiling=cpu=icelake-server compute=bf16" --attune-pack-gemms --attune-fuse-gemm-inits "--attune-tile-gemm=cpu=icelake-server" | FileCheck %s --check-prefix=FMA
// RUN: not attune-opt %s --split-input-file --convert-attune-to-linalg "--attune-select-cpu-tiling=cpu=znver4 compute=f8" -o /dev/null 2>&1 | FileCheck %s --check-prefix=BAD
// RUN: attune-opt %s --split-input-file --convert-attune-to-linalg "--attune-select-cpu-tiling=cpu=icelake-server compute=bf16" -o /dev/null 2>&1 | FileCheck %s --check-prefix=WARN
// RUN: attune-opt %s --split-input-file --convert-attune-to-linalg "--attune-select-cpu-tiling=cpu=x86-64-v3 compute=bf16" -o /dev/null 2>&1 | FileCheck %s --check-prefix=WARN-AVX2
// RUN: attune-opt %s --split-input-file --convert-attune-to-linalg "--attune-select-cpu-tiling=cpu=znver4 compute=bf16" -o /dev/null 2>&1 | FileCheck %s --check-prefix=NO-WARN --allow-empty

// Without AVX512-BF16 the mode is emulated, and slower than f32 where the
// GEMMs are compute-bound: a warning, once per module, at its first GEMM
// (not at the f32 GEMM of an odd K); none where vdpbf16ps runs it.
// WARN: attune-tile-gemm-bf16-dot.mlir:[[@LINE+61]]:8: warning: bf16 compute on icelake-server, which has no AVX512-BF16: the bf16 products are emulated with FMAs (the results vdpbf16ps gives), slower than f32 where the GEMMs are compute-bound
// WARN-NOT: warning:
// WARN-AVX2: warning: bf16 compute on x86-64-v3, which has no AVX512-BF16
// NO-WARN-NOT: warning:

// The bf16 compute mode (--gemm-compute=bf16) of a linear layer's GEMM.
// attune-select-cpu-tiling marks it in the tiling (bf16_dot), its k tile
// sized for bf16 panels (Zen 4's 32 KiB L1d: 128 k x 64 columns x 2
// bytes); K odd stays f32 (no k-pairs), and says so.
// TILING-LABEL: func.func @gelu
// TILING:       attune.tiling = #attune.gemm_tiling<panel = 64, rows = 4, k_tile = 128, cache_rows = 128, forall_panels = 2, bf16_dot = true>
// TILING-LABEL: func.func @odd_k
// TILING:       attune.tiling = #attune.gemm_tiling<panel = 64, rows = 4, k_tile = {{[0-9]+}}, cache_rows = 32, forall_panels = 2>
// EXPLAIN:      remark: GEMM ? x 256 -> 512 {{.*}} bf16 k-pairs, vdpbf16ps
// EXPLAIN:      remark: GEMM ? x 255 -> 64 {{.*}} f32, not bf16: K is odd
// BAD:          error: attune-select-cpu-tiling: compute=f8: expected f32 or bf16
//
// attune-pack-gemms: the weights as bf16 k-pairs [N/64, K/2, 64, 2] (a
// transpose of the panels viewed as [N/64, K/2, 2, 64], then the
// rounding), A rounded to bf16 k-pairs [B, M, K/2, 2] (marked with its
// vector step, 8 pairs), and a GEMM of 6 loops (b, m, nb, r, k/2, p) that
// widens both operands; panel-major, since only its epilogue reads it.
// PACK-LABEL: func.func @gelu
// PACK:       linalg.transpose ins(%{{.*}} : tensor<8x128x2x64xf32>) outs(%{{.*}} : tensor<8x128x64x2xf32>) permutation = [0, 1, 3, 2]
// PACK:       %[[P:.*]] = linalg.generic {{.*}} outs(%{{.*}} : tensor<8x128x64x2xbf16>) attrs = {attune.panel_rounding}
// PACK:       %[[A:.*]] = linalg.generic {{.*}} ins(%{{.*}} : tensor<1x?x128x2xf32>) outs(%{{.*}} : tensor<1x?x128x2xbf16>) attrs = {attune.pair_rounding = 8 : i64}
// PACK:         arith.truncf %{{.*}} : f32 to bf16
// PACK:       linalg.generic {{.*}} iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction"]} ins(%[[A]], %[[P]] : tensor<1x?x128x2xbf16>, tensor<8x128x64x2xbf16>) outs(%{{.*}} : tensor<1x8x?x64xf32>)
// PACK-COUNT-2:  arith.shli
//
// attune-tile-gemm: k tiles of 64 pairs, register tiles of 4 x 64 per
// k-pair step, the accumulators carried through the k loop; per step the
// panel row read as one vector<128xbf16>, each row's pair as one 32-bit
// word broadcast, and 16 vdpbf16ps (x86vector.avx512.dot) on Zen 4. The
// last rows one at a time (4 dots a step). A's rounding (before the GEMM)
// 8 pairs at a time.
// DOT-LABEL: func.func @gelu
// DOT:       arith.truncf {{.*}} : vector<1x1x8x2xf32> to vector<1x1x8x2xbf16>
// DOT:       scf.for {{.*}} step %c64
// DOT:         scf.for {{.*}} iter_args({{.*}}) -> (vector<1x1x4x64xf32>)
// DOT:           vector.transfer_read {{.*}} vector<128xbf16>
// DOT:           vector.broadcast {{.*}} : i32 to vector<16xi32>
// DOT-COUNT-16:  x86vector.avx512.dot {{.*}} : vector<32xbf16> -> vector<16xf32>
// DOT:         } {attune.panel_k_loop}
// DOT:         scf.for {{.*}} -> (vector<1x1x1x64xf32>)
// DOT-COUNT-4:   x86vector.avx512.dot
// DOT:         } {attune.row_k_loop}
// Ice Lake (AVX-512 without AVX512-BF16): the same tiles, each pair's two
// elements widened (a shift, a mask) and two FMAs per vector. The panel
// row is cut into chunks as 32-bit words: slices of the bf16 vector were
// moved element by element on AVX2.
// FMA-LABEL: func.func @gelu
// FMA:         scf.for {{.*}} iter_args({{.*}}) -> (vector<1x1x4x64xf32>)
// FMA-NOT:       x86vector.avx512.dot
// FMA-NOT:       vector.extract_strided_slice {{.*}} : vector<128xbf16>
// FMA:           vector.bitcast {{.*}} : vector<128xbf16> to vector<64xi32>
// FMA-COUNT-4:   vector.extract_strided_slice {{.*}} : vector<64xi32> to vector<16xi32>
// FMA-NOT:       x86vector.avx512.dot
// FMA-COUNT-32:  vector.fma {{.*}} : vector<16xf32>
// FMA:         } {attune.panel_k_loop}
func.func @gelu(%x: tensor<?x256xf32>, %w: tensor<512x256xf32>, %b: tensor<512xf32>) -> tensor<?x512xf32> {
  %y = attune.linear %x, %w, %b {activation = #attune.activation<gelu>} : (tensor<?x256xf32>, tensor<512x256xf32>, tensor<512xf32>) -> tensor<?x512xf32>
  return %y : tensor<?x512xf32>
}

// -----

func.func @odd_k(%x: tensor<?x255xf32>, %w: tensor<64x255xf32>) -> tensor<?x64xf32> {
  %y = attune.linear %x, %w : (tensor<?x255xf32>, tensor<64x255xf32>) -> tensor<?x64xf32>
  return %y : tensor<?x64xf32>
}
