// RUN: attune-opt %s --split-input-file --attune-tile-attention=compute=bf16 | FileCheck %s
// RUN: attune-opt %s --split-input-file --attune-tile-attention=compute=bf16 --convert-attune-to-linalg "--attune-select-cpu-tiling=cpu=znver4 explain" -o /dev/null 2>&1 | FileCheck %s --check-prefix=EXPLAIN
// RUN: attune-opt %s --split-input-file --attune-tile-attention=compute=bf16 --convert-attune-to-linalg "--attune-select-cpu-tiling=cpu=icelake-server explain" -o /dev/null 2>&1 | FileCheck %s --check-prefix=EXPLAIN-FMA
// RUN: attune-opt %s --split-input-file --attune-tile-attention=compute=bf16 --convert-attune-to-linalg --attune-select-cpu-tiling=cpu=znver4 --attune-tile-gemm=cpu=znver4 | FileCheck %s --check-prefix=DOT
// RUN: attune-opt %s --split-input-file --attune-tile-attention=compute=bf16 --convert-attune-to-linalg --attune-select-cpu-tiling=cpu=icelake-server --attune-tile-gemm=cpu=icelake-server | FileCheck %s --check-prefix=FMA
// RUN: attune-opt %s --split-input-file --attune-tile-attention=compute=bf16 --convert-attune-to-linalg --attune-select-cpu-tiling=cpu=x86-64-v3 -o /dev/null 2>&1 | FileCheck %s --check-prefix=WARN
// RUN: not attune-opt %s --split-input-file --attune-tile-attention=compute=f16 -o /dev/null 2>&1 | FileCheck %s --check-prefix=BAD

// compute=bf16: the static form's query tiles scaled, transposed and
// interleaved into [D/2, TQ, 2] before their key loops, keys [Lk, D/2, 2] and values [Lk/2, Dv, 2] rounded once; per
// key tile, the score contraction over (e/2, e % 2), the probabilities
// interleaved into k-pairs, the value contraction over (j/2, j % 2).

// CHECK-LABEL: func.func @pairs
// CHECK: %[[KR:.*]] = linalg.generic {{.*}} ins(%{{.*}} : tensor<1x2x128x64xf32>) outs(%{{.*}} : tensor<1x2x128x64xbf16>)
// CHECK: %[[KP:.*]] = tensor.expand_shape %[[KR]] {{.*}} into tensor<1x2x128x32x2xbf16>
// CHECK: %[[VP:.*]] = linalg.generic {{.*}} ins(%{{.*}} : tensor<1x2x64x2x64xf32>) outs(%{{.*}} : tensor<1x2x64x64x2xbf16>) attrs = {attune.pair_interleave}
// CHECK: %[[QT:.*]] = linalg.generic {{.*}} outs(%{{.*}} : tensor<64x64xf32>) attrs = {attune.transpose_tiles}
// CHECK:   arith.mulf
// CHECK: %[[QROWS:.*]] = tensor.expand_shape %[[QT]] {{\[\[}}0, 1], [2]] output_shape [32, 2, 64] : tensor<64x64xf32> into tensor<32x2x64xf32>
// CHECK: %[[QP:.*]] = linalg.generic {{.*}} ins(%[[QROWS]] : tensor<32x2x64xf32>) outs(%{{.*}} : tensor<32x64x2xbf16>) attrs = {attune.pair_interleave}
// CHECK:   arith.truncf %{{.*}} : f32 to bf16
// CHECK: scf.for
// CHECK:   %[[K:.*]] = tensor.extract_slice %[[KP]]{{.*}} to tensor<64x32x2xbf16>
// CHECK:   %[[V:.*]] = tensor.extract_slice %[[VP]]{{.*}} to tensor<32x64x2xbf16>
// CHECK:   linalg.generic {{.*}}iterator_types = ["parallel", "parallel", "reduction", "reduction"]} ins(%[[K]], %{{.*}} : tensor<64x32x2xbf16>, tensor<32x64x2xbf16>) outs(%{{.*}} : tensor<64x64xf32>) attrs = {attune.tile_gemm}
// CHECK:     arith.extf
// CHECK:     arith.extf
// CHECK:   %[[P:.*]] = linalg.generic {{.*}} ins(%{{.*}} : tensor<32x2x64xf32>) outs(%{{.*}} : tensor<32x64x2xbf16>) attrs = {attune.pair_interleave}
// CHECK:   linalg.generic {{.*}}iterator_types = ["parallel", "parallel", "reduction", "reduction"]} ins(%[[P]], %[[V]] : tensor<32x64x2xbf16>, tensor<32x64x2xbf16>) outs(%{{.*}} : tensor<64x64xf32>) attrs = {attune.tile_gemm}

// EXPLAIN: remark: tile contraction 64 x 64: register tile 4 x 64 (cost 2.5); bf16 k-pairs, vdpbf16ps
// EXPLAIN: remark: tile contraction 64 x 64: register tile 4 x 64 (cost 2.5); bf16 k-pairs, vdpbf16ps
// EXPLAIN-FMA: remark: tile contraction 64 x 64: register tile {{.*}}; bf16 k-pairs, emulated with FMAs (no AVX512-BF16)

// Zen 4: every register tile's k-pair step is vdpbf16ps; the values' and
// the probabilities' rows are rounded and interleaved a row pair at a time
// (the values' in a loop per leading dim).
// DOT-LABEL: func.func @pairs
// DOT: vector.transfer_write %{{.*}} : vector<128xbf16>, tensor<1x2x64x128xbf16>
// The query tile's row pairs, before its key loop:
// DOT: scf.for
// DOT:   arith.truncf %{{.*}} : vector<64xf32> to vector<64xbf16>
// DOT:   vector.transfer_write %{{.*}} : vector<128xbf16>, tensor<32x128xbf16>
// DOT: x86vector.avx512.dot
// The probabilities' row pairs, in the key loop:
// DOT: scf.for
// DOT:   arith.truncf %{{.*}} : vector<64xf32> to vector<64xbf16>
// DOT:   arith.extui %{{.*}} : vector<64xi16> to vector<64xi32>
// DOT:   arith.shli
// DOT:   arith.ori
// DOT:   vector.transfer_write %{{.*}} : vector<128xbf16>, tensor<32x128xbf16>
// DOT: x86vector.avx512.dot
// DOT-NOT: vector.fma
// DOT-LABEL: func.func @f32_values

// Ice Lake (no AVX512-BF16): the same tiles as two FMAs per pair.
// FMA-LABEL: func.func @pairs
// FMA-NOT: x86vector.avx512.dot
// FMA: vector.fma
// FMA-LABEL: func.func @f32_values
// Emulated (AVX2 here), slower than f32: a warning at the attention.
// WARN: attune-tile-attention-bf16.mlir:[[@LINE+2]]:8: warning: bf16 compute on x86-64-v3, which has no AVX512-BF16: the bf16 products are emulated with FMAs
func.func @pairs(%q: tensor<1x2x128x64xf32>, %k: tensor<1x2x128x64xf32>, %v: tensor<1x2x128x64xf32>) -> tensor<1x2x128x64xf32> {
  %o = attune.attention %q, %k, %v : (tensor<1x2x128x64xf32>, tensor<1x2x128x64xf32>, tensor<1x2x128x64xf32>) -> tensor<1x2x128x64xf32>
  return %o : tensor<1x2x128x64xf32>
}

// -----

// Values 16 wide: no register-tiled value contraction, so no k-pairs
// either: the op stays f32.
// CHECK-LABEL: func.func @f32_values
// CHECK-NOT: bf16
// CHECK: return
// EXPLAIN: remark: tile contraction 64 x 64: register tile 4 x 64 (cost 2.5)
// EXPLAIN-NOT: k-pairs
func.func @f32_values(%q: tensor<1x2x128x64xf32>, %k: tensor<1x2x128x64xf32>, %v: tensor<1x2x128x16xf32>) -> tensor<1x2x128x16xf32> {
  %o = attune.attention %q, %k, %v : (tensor<1x2x128x64xf32>, tensor<1x2x128x64xf32>, tensor<1x2x128x16xf32>) -> tensor<1x2x128x16xf32>
  return %o : tensor<1x2x128x16xf32>
}

// BAD: attune-tile-attention: compute=f16: expected f32 or bf16

// -----

// Few queries (attune.tile_q_cap, the absorbed cross-attention of a
// decoding step) stay f32: rounding the keys and values per call costs
// more than a few rows' contractions save. Beside a bf16 one of the same
// register tile (4 x 64), both are vectorized (the schedule once grouped
// tilings that differ only in bf16_dot, and left the f32 one scalar).
// CHECK-LABEL: func.func @mixed
// CHECK: tensor<32x64x2xbf16>
// CHECK: scf.for
// CHECK: tensor<16x64xf32>
// EXPLAIN: remark: tile contraction 64 x 64: register tile 4 x 64 (cost 2.5); bf16 k-pairs, vdpbf16ps
// EXPLAIN: remark: tile contraction 64 x 64: register tile 4 x 64 (cost 2.5); bf16 k-pairs, vdpbf16ps
// EXPLAIN: remark: tile contraction 16 x 64: register tile 4 x 64 (cost 2.5)
// EXPLAIN-NOT: k-pairs
// DOT-LABEL: func.func @mixed
// DOT-NOT: iterator_types = ["parallel", "parallel", "reduction"
// DOT: x86vector.avx512.dot
// DOT-NOT: iterator_types = ["parallel", "parallel", "reduction"
// DOT: return
func.func @mixed(%q: tensor<1x2x128x64xf32>, %k: tensor<1x2x128x64xf32>, %v: tensor<1x2x128x64xf32>) -> (tensor<1x2x128x64xf32>, tensor<1x2x128x64xf32>) {
  %o = attune.attention %q, %k, %v : (tensor<1x2x128x64xf32>, tensor<1x2x128x64xf32>, tensor<1x2x128x64xf32>) -> tensor<1x2x128x64xf32>
  %p = attune.attention %q, %k, %v {attune.tile_q_cap = 16 : i64} : (tensor<1x2x128x64xf32>, tensor<1x2x128x64xf32>, tensor<1x2x128x64xf32>) -> tensor<1x2x128x64xf32>
  return %o, %p : tensor<1x2x128x64xf32>, tensor<1x2x128x64xf32>
}
