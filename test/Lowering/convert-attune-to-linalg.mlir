// RUN: attune-opt %s --convert-attune-to-linalg --split-input-file --verify-diagnostics | FileCheck %s

// A linear: [M, K] x W^T as a [1, M, K] x [K, N] contraction (the weight
// transposed: at compile time when it is a constant, here with
// linalg.transpose), the bias initializing the accumulator. Rows of a
// sequence (a dynamic length, or at least 16) mark it for the CPU's GEMM
// kernels, whatever N (a last partial panel is zero-padded there); the 4
// static rows of @linear_rows do not.
// CHECK-LABEL: func @linear
// CHECK-SAME: (%[[X:.*]]: tensor<?x16xf32>, %[[W:.*]]: tensor<8x16xf32>, %[[B:.*]]: tensor<8xf32>)
// CHECK:      %[[X3:.*]] = tensor.expand_shape %[[X]] {{\[}}[0, 1], [2]] output_shape [1, %{{.*}}, 16]
// CHECK:      %[[WT:.*]] = linalg.transpose ins(%[[W]] : tensor<8x16xf32>) outs(%{{.*}} : tensor<16x8xf32>) permutation = [1, 0]
// CHECK:      %[[INIT:.*]] = linalg.generic {{.*}} ins(%[[B]] : tensor<8xf32>)
// CHECK:      %[[Y:.*]] = linalg.generic {{.*}}iterator_types = ["parallel", "parallel", "parallel", "reduction"]
// CHECK-SAME:   ins(%[[X3]], %[[WT]] : tensor<1x?x16xf32>, tensor<16x8xf32>) outs(%[[INIT]] : tensor<1x?x8xf32>) attrs = {attune.gemm}
// CHECK:        arith.mulf
// CHECK:        arith.addf
// CHECK:      tensor.collapse_shape %[[Y]] {{\[}}[0, 1], [2]]
// CHECK-NOT: attune.
func.func @linear(%x: tensor<?x16xf32>, %w: tensor<8x16xf32>, %b: tensor<8xf32>) -> tensor<?x8xf32> {
  %0 = attune.linear %x, %w, %b : (tensor<?x16xf32>, tensor<8x16xf32>, tensor<8xf32>) -> tensor<?x8xf32>
  return %0 : tensor<?x8xf32>
}

// A static M of a few rows is marked as well (a decoding step compiled for
// its shape).
// CHECK-LABEL: func @linear_rows
// CHECK:       linalg.generic {{.*}}iterator_types = ["parallel", "parallel", "parallel", "reduction"]
// CHECK-SAME:    attrs = {attune.gemm}
// CHECK:         arith.mulf
func.func @linear_rows(%x: tensor<4x16xf32>, %w: tensor<32x16xf32>) -> tensor<4x32xf32> {
  %0 = attune.linear %x, %w : (tensor<4x16xf32>, tensor<32x16xf32>) -> tensor<4x32xf32>
  return %0 : tensor<4x32xf32>
}

// An empty one (a static dim of 0) is not: nothing to tile.
// CHECK-LABEL: func @linear_empty
// CHECK:       linalg.generic {{.*}}iterator_types = ["parallel", "parallel", "parallel", "reduction"]
// CHECK-NOT:     attune.gemm
// CHECK:       return
func.func @linear_empty(%x: tensor<1x0x16xf32>, %w: tensor<32x16xf32>) -> tensor<1x0x32xf32> {
  %0 = attune.linear %x, %w : (tensor<1x0x16xf32>, tensor<32x16xf32>) -> tensor<1x0x32xf32>
  return %0 : tensor<1x0x32xf32>
}

// -----

// Attention: the causal, windowed, length mask is computed from linalg.index
// inside the score kernel (no [Lq, Lk] tensor is an operand), and GQA heads
// are read through `d1 floordiv 4`.
// CHECK-DAG: #[[KV:.*]] = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1 floordiv 4, d3, d4)>
// CHECK-LABEL: func @attention_masks
// CHECK:      linalg.generic {indexing_maps = [#{{.*}}, #[[KV]], #{{.*}}]
// CHECK:      linalg.generic
// CHECK-SAME:   ins(%{{.*}}, %{{.*}} : tensor<?x8x?x?xf32>, tensor<?xi64>)
// CHECK:        linalg.index 2
// CHECK:        linalg.index 3
// CHECK:        arith.cmpi sle
// CHECK:        arith.cmpi slt
// CHECK:        arith.select %{{.*}}, %{{.*}}, %cst{{.*}} : f32
// CHECK:      arith.maximumf
// CHECK:      math.exp
// CHECK-NOT: attune.attention
func.func @attention_masks(%q: tensor<?x8x?x16xf32>, %k: tensor<?x2x?x16xf32>, %v: tensor<?x2x?x16xf32>,
                           %len: tensor<?xi64>) -> tensor<?x8x?x16xf32> {
  %0 = attune.attention %q, %k, %v key_lengths(%len) {causal, window = 4 : i64}
      : (tensor<?x8x?x16xf32>, tensor<?x2x?x16xf32>, tensor<?x2x?x16xf32>, tensor<?xi64>) -> tensor<?x8x?x16xf32>
  return %0 : tensor<?x8x?x16xf32>
}

// -----

// Recurrent ops stay rolled: one scf.for over time carrying the state.
// CHECK-LABEL: func @lstm_rolled
// CHECK:      linalg.generic
// CHECK:      scf.for %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} iter_args(
// CHECK:        tensor.extract_slice
// CHECK:        math.tanh
// CHECK:        tensor.insert_slice
// CHECK:        scf.yield
// CHECK-NOT:  scf.for
func.func @lstm_rolled(%x: tensor<?x?x4xf32>, %ih: tensor<32x4xf32>, %hh: tensor<32x8xf32>)
    -> tensor<?x?x8xf32> {
  %o:3 = attune.lstm %x weights(%ih, %hh) {hidden_size = 8 : i64, has_biases = false}
      : (tensor<?x?x4xf32>, tensor<32x4xf32>, tensor<32x8xf32>) -> (tensor<?x?x8xf32>, tensor<1x?x8xf32>, tensor<1x?x8xf32>)
  return %o#0 : tensor<?x?x8xf32>
}

// -----

// Shape ops map to tensor reshapes and linalg.transpose.
// CHECK-LABEL: func @heads
// CHECK: tensor.expand_shape %{{.*}} {{\[}}[0], [1], [2, 3]] output_shape [%{{.*}}, %{{.*}}, 4, 16]
// CHECK: linalg.transpose {{.*}} permutation = [0, 2, 1, 3]
// CHECK: linalg.transpose {{.*}} permutation = [0, 2, 1, 3]
// CHECK: tensor.collapse_shape %{{.*}} {{\[}}[0], [1], [2, 3]]
func.func @heads(%x: tensor<?x?x64xf32>) -> tensor<?x?x64xf32> {
  %0 = attune.split_heads %x {num_heads = 4 : i64} : (tensor<?x?x64xf32>) -> tensor<?x4x?x16xf32>
  %1 = attune.scale %0 {factor = 2.0 : f64} : tensor<?x4x?x16xf32>
  %2 = attune.merge_heads %1 : (tensor<?x4x?x16xf32>) -> tensor<?x?x64xf32>
  return %2 : tensor<?x?x64xf32>
}

// -----

// Weights are left for the driver to bind.
// CHECK-LABEL: func @weights_stay
// CHECK: attune.weight "w"
func.func @weights_stay(%x: tensor<2x4xf32>) -> tensor<2x4xf32> {
  %w = attune.weight "w" : tensor<4xf32>
  %0 = attune.add %x, %w : (tensor<2x4xf32>, tensor<4xf32>) -> tensor<2x4xf32>
  return %0 : tensor<2x4xf32>
}

// -----

// Negative case: composite ops must be decomposed first, and the pass says so.
func.func @composite(%x: tensor<2x4xf32>, %w1: tensor<8x4xf32>, %w2: tensor<4x8xf32>) -> tensor<2x4xf32> {
  // expected-error @+1 {{'attune.feed_forward' op is a composite op: run --attune-decompose before --convert-attune-to-linalg}}
  %0 = attune.feed_forward %x linear1(%w1) linear2(%w2) : (tensor<2x4xf32>, tensor<8x4xf32>, tensor<4x8xf32>) -> tensor<2x4xf32>
  return %0 : tensor<2x4xf32>
}

// -----

// A linear with an activation epilogue: the contraction (not marked as a
// plain GEMM), then the activation as an element-wise generic over its
// result, marked for attune-tile-gemm to fuse into the GEMM's tiles.
// CHECK-LABEL: func @linear_epilogue
// CHECK:       %[[G:.*]] = linalg.generic {{.*}}"reduction"]
// CHECK-NOT:     attune.gemm
// CHECK:       linalg.generic {{.*}}ins(%[[G]] : tensor<1x?x32xf32>)
// CHECK-SAME:    attune.epilogue
// CHECK:         arith.maximumf
func.func @linear_epilogue(%x: tensor<?x16xf32>, %w: tensor<32x16xf32>) -> tensor<?x32xf32> {
  %y = attune.linear %x, %w {activation = #attune.activation<relu>} : (tensor<?x16xf32>, tensor<32x16xf32>) -> tensor<?x32xf32>
  return %y : tensor<?x32xf32>
}

// -----

// layer_norm with a residual: each of the three passes (mean, variance,
// normalization) reads both summands and adds them; the sum is not stored.
// CHECK-LABEL: func @layer_norm_residual
// CHECK-SAME:  (%[[X:[^:]*]]: tensor<?x8xf32>, %[[R:[^:]*]]: tensor<?x8xf32>)
// CHECK:       %[[MEAN:.*]] = linalg.generic {{.*}}ins(%[[X]], %[[R]] : tensor<?x8xf32>, tensor<?x8xf32>)
// CHECK:         arith.addf
// CHECK:       %[[VAR:.*]] = linalg.generic {{.*}}ins(%[[X]], %[[R]], %[[MEAN]] :
// CHECK:       linalg.generic {{.*}}ins(%[[X]], %[[R]], %[[MEAN]], %[[VAR]] :
// CHECK:         arith.addf
// CHECK:         math.rsqrt
func.func @layer_norm_residual(%x: tensor<?x8xf32>, %r: tensor<?x8xf32>) -> tensor<?x8xf32> {
  %y = attune.layer_norm %x residual(%r) : (tensor<?x8xf32>, tensor<?x8xf32>) -> tensor<?x8xf32>
  return %y : tensor<?x8xf32>
}

// -----

// Batched matmul with NumPy batch broadcasting ([2, 3] against [3]). With B
// as [k, n] the loops are (batch, m, k, n), so the innermost runs along rows
// of B and C; with {transpose_rhs} (batch, m, n, k), along rows of A and B^T.
// CHECK-DAG: #[[A:.*]] = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d3)>
// CHECK-DAG: #[[B:.*]] = affine_map<(d0, d1, d2, d3, d4) -> (d1, d3, d4)>
// CHECK-DAG: #[[C:.*]] = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d4)>
// CHECK-LABEL: func @matmul_orders
// CHECK:      linalg.generic {indexing_maps = [#[[A]], #[[B]], #[[C]]], iterator_types = ["parallel", "parallel", "parallel", "reduction", "parallel"]}
// CHECK-SAME:   ins(%{{.*}}, %{{.*}} : tensor<2x3x?x16xf32>, tensor<3x16x8xf32>) outs(%{{.*}} : tensor<2x3x?x8xf32>)
// The same maps, read the other way: A [b, h, m, k] = (d0, d1, d2, d4),
// B^T [h, n, k] = (d1, d3, d4), C [b, h, m, n] = (d0, d1, d2, d3).
// CHECK:      linalg.generic {indexing_maps = [#[[C]], #[[B]], #[[A]]], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]}
// CHECK-SAME:   ins(%{{.*}}, %{{.*}} : tensor<2x3x?x8xf32>, tensor<3x16x8xf32>) outs(%{{.*}} : tensor<2x3x?x16xf32>)
func.func @matmul_orders(%a: tensor<2x3x?x16xf32>, %b: tensor<3x16x8xf32>) -> tensor<2x3x?x16xf32> {
  %c = attune.matmul %a, %b : (tensor<2x3x?x16xf32>, tensor<3x16x8xf32>) -> tensor<2x3x?x8xf32>
  %d = attune.matmul %c, %b {transpose_rhs} : (tensor<2x3x?x8xf32>, tensor<3x16x8xf32>) -> tensor<2x3x?x16xf32>
  return %d : tensor<2x3x?x16xf32>
}

// -----

// A boolean mask as an additive bias: one select per element.
// CHECK-LABEL: func @mask_bias
// CHECK-DAG: %[[NINF:.*]] = arith.constant 0xFF800000 : f32
// CHECK-DAG: %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK: linalg.generic
// CHECK: ^bb0(%[[M:.*]]: i1, %{{.*}}: f32):
// CHECK: %[[B:.*]] = arith.select %[[M]], %[[NINF]], %[[ZERO]] : f32
// CHECK: linalg.yield %[[B]]
func.func @mask_bias(%m: tensor<?x?xi1>) -> tensor<?x?xf32> {
  %b = attune.mask_bias %m : tensor<?x?xi1> to tensor<?x?xf32>
  return %b : tensor<?x?xf32>
}

// -----

// A mean over two dims of an f16 input: an f32 accumulator over the kept
// dims, divided by the reduced count and rounded once, then the reduced
// dims back as extents of 1.
// CHECK-LABEL: func @reduce_mean
// CHECK: %[[ACC:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%{{.*}} : tensor<?xf32>)
// CHECK: linalg.generic {{.*}} iterator_types = ["parallel", "reduction", "reduction"]} ins(%{{.*}} : tensor<?x8x4xf16>) outs(%[[ACC]] : tensor<?xf32>)
// CHECK: arith.extf
// CHECK: arith.addf
// CHECK: %[[N:.*]] = arith.uitofp %{{.*}} : i64 to f32
// CHECK: linalg.generic
// CHECK: arith.divf %{{.*}}, %[[N]] : f32
// CHECK: arith.truncf
// CHECK: tensor.expand_shape %{{.*}} {{\[}}[0, 1, 2]] output_shape [%{{.*}}, 1, 1] : tensor<?xf16> into tensor<?x1x1xf16>
func.func @reduce_mean(%x: tensor<?x8x4xf16>) -> tensor<?x1x1xf16> {
  %r = attune.reduce <mean> %x {axes = array<i64: 1, -1>, keep_dims} : (tensor<?x8x4xf16>) -> tensor<?x1x1xf16>
  return %r : tensor<?x1x1xf16>
}

// -----

// A gather along dim 1: negative indices count from the end; an index
// outside [-n, n) (unchecked here) reads 0.
// CHECK-LABEL: func @gather
// CHECK: linalg.generic {{.*}} ins(%{{.*}} : tensor<3xi64>) outs(%{{.*}} : tensor<?x3xf32>)
// CHECK: %[[I:.*]] = arith.index_cast
// CHECK: %[[NEG:.*]] = arith.cmpi slt, %[[I]], %{{.*}}
// CHECK: %[[W:.*]] = arith.addi %[[I]], %c16
// CHECK: %[[J:.*]] = arith.select %[[NEG]], %[[W]], %[[I]]
// CHECK: %[[OK:.*]] = arith.andi
// CHECK: %[[SAFE:.*]] = arith.select %[[OK]], %[[J]]
// CHECK: %[[V:.*]] = tensor.extract %{{.*}}[%{{.*}}, %[[SAFE]]]
// CHECK: arith.select %[[OK]], %[[V]]
func.func @gather(%x: tensor<?x16xf32>, %i: tensor<3xi64>) -> tensor<?x3xf32> {
  %r = attune.gather %x, %i {axis = 1 : i64} : (tensor<?x16xf32>, tensor<3xi64>) -> tensor<?x3xf32>
  return %r : tensor<?x3xf32>
}

// -----

// A reshape through its canonical form: each dynamic dim alone, each pair
// of static segments one dim (a segment of 1s joins its neighbour).
// CHECK-LABEL: func @reshape
// CHECK: %[[D0:.*]] = tensor.dim %{{.*}}, %c0
// CHECK: %[[D2:.*]] = tensor.dim %{{.*}}, %c2
// CHECK: %[[C:.*]] = tensor.collapse_shape %{{.*}} {{\[}}[0, 1], [2], [3]] : tensor<?x1x?x768xf32> into tensor<?x?x768xf32>
// CHECK: tensor.expand_shape %[[C]] {{\[}}[0], [1], [2, 3, 4]] output_shape [%[[D0]], %[[D2]], 12, 64, 1] : tensor<?x?x768xf32> into tensor<?x?x12x64x1xf32>
// CHECK-LABEL: func @reshape_static
// CHECK: tensor.collapse_shape %{{.*}} {{\[}}[0, 1, 2]] : tensor<2x3x4xf32> into tensor<24xf32>
// CHECK: tensor.expand_shape %{{.*}} {{\[}}[0, 1]] output_shape [4, 6] : tensor<24xf32> into tensor<4x6xf32>
func.func @reshape(%x: tensor<?x1x?x768xf32>) -> tensor<?x?x12x64x1xf32> {
  %r = attune.reshape %x : tensor<?x1x?x768xf32> to tensor<?x?x12x64x1xf32>
  return %r : tensor<?x?x12x64x1xf32>
}
func.func @reshape_static(%x: tensor<2x3x4xf32>) -> tensor<4x6xf32> {
  %r = attune.reshape %x : tensor<2x3x4xf32> to tensor<4x6xf32>
  return %r : tensor<4x6xf32>
}

// -----

// Trilu keeps j - i >= diagonal (upper), any element type; an i1 mask's
// dropped elements become false.
// CHECK-LABEL: func @trilu
// CHECK: %[[I:.*]] = linalg.index 0
// CHECK: %[[J:.*]] = linalg.index 1
// CHECK: %[[D:.*]] = arith.subi
// CHECK: %[[K:.*]] = arith.cmpi sge, %[[D]], %c-1_i64
// CHECK: arith.select %[[K]], %{{.*}}, %c0_i64 : i64
// CHECK: %[[D2:.*]] = arith.subi
// CHECK: %[[K2:.*]] = arith.cmpi sle, %[[D2]], %c0_i64
// CHECK: arith.select %[[K2]], %{{.*}}, %false : i1
func.func @trilu(%x: tensor<?x?xi64>, %m: tensor<2x?x?xi1>) -> (tensor<?x?xi64>, tensor<2x?x?xi1>) {
  %r = attune.trilu %x {upper, diagonal = -1 : i64} : tensor<?x?xi64>
  %b = attune.trilu %m : tensor<2x?x?xi1>
  return %r, %b : tensor<?x?xi64>, tensor<2x?x?xi1>
}

// -----

// Comparisons (integer and float), choices and math, one generic each.
// CHECK-LABEL: func @compare_select
// CHECK: arith.cmpi eq, %{{.*}}, %{{.*}} : i64
// CHECK: linalg.yield %{{.*}} : i1
// CHECK: math.powf
// CHECK: arith.cmpf une
// CHECK: ^bb0(%[[C:.*]]: i1, %[[A:.*]]: f32, %[[B:.*]]: f32, %{{.*}}: f32):
// CHECK: arith.select %[[C]], %[[A]], %[[B]] : f32
// CHECK: math.erf
// CHECK: arith.divf %cst{{.*}}, %{{.*}} : f32
func.func @compare_select(%a: tensor<?x4xf32>, %ids: tensor<?x4xi64>, %p: tensor<i64>) -> tensor<?x4xf32> {
  %m = attune.compare <eq> %ids, %p : (tensor<?x4xi64>, tensor<i64>) -> tensor<?x4xi1>
  %n = attune.binary <pow> %a, %a : (tensor<?x4xf32>, tensor<?x4xf32>) -> tensor<?x4xf32>
  %z = attune.compare <ne> %a, %n : (tensor<?x4xf32>, tensor<?x4xf32>) -> tensor<?x4xi1>
  %s = attune.select %m, %n, %a : (tensor<?x4xi1>, tensor<?x4xf32>, tensor<?x4xf32>) -> tensor<?x4xf32>
  %u = attune.unary <erf> %s : tensor<?x4xf32>
  %r = attune.unary <reciprocal> %u : tensor<?x4xf32>
  return %r : tensor<?x4xf32>
}

// -----

// A reshape with given extents (dynamic dims merge): a run-time check of
// the element counts, then tensor.reshape with the extents.
// CHECK-LABEL: func @reshape_sizes
// CHECK: %[[IN:.*]] = arith.muli
// CHECK: %[[OUT:.*]] = arith.muli
// CHECK: %[[SAME:.*]] = arith.cmpi eq, %{{.*}}, %{{.*}} : index
// CHECK: cf.assert %[[SAME]], "{{.*}}attune.reshape: the result's extents hold another number of elements than the input"
// CHECK: %[[S:.*]] = tensor.from_elements %{{.*}}, %c16{{.*}} : tensor<2xindex>
// CHECK: tensor.reshape %{{.*}}(%[[S]]) : (tensor<?x?x16xf32>, tensor<2xindex>) -> tensor<?x16xf32>
func.func @reshape_sizes(%x: tensor<?x?x16xf32>, %n: index) -> tensor<?x16xf32> {
  %r = attune.reshape %x sizes(%n) : tensor<?x?x16xf32> to tensor<?x16xf32>
  return %r : tensor<?x16xf32>
}

// -----

// A broadcast: a generic reading dims of extent 1 at 0, the dynamic result
// extents given; an input dim other than 1 under a dynamic result dim is
// checked at run time.
// CHECK-LABEL: func @broadcast
// CHECK: cf.assert %{{.*}}, "{{.*}}attune.broadcast: an input dim other than 1 differs from the result's extent"
// CHECK: %[[E:.*]] = tensor.empty(%{{.*}}, %{{.*}}) : tensor<?x?x16xf32>
// CHECK: linalg.generic {indexing_maps = [#{{.*}}, #{{.*}}], iterator_types = ["parallel", "parallel", "parallel"]} ins(%{{.*}} : tensor<1x?x16xf32>) outs(%[[E]] : tensor<?x?x16xf32>)
func.func @broadcast(%x: tensor<1x?x16xf32>, %b: index, %l: index) -> tensor<?x?x16xf32> {
  %r = attune.broadcast %x sizes(%b, %l) : tensor<1x?x16xf32> to tensor<?x?x16xf32>
  return %r : tensor<?x?x16xf32>
}

// -----

// Causal linear attention: phi(q) and the padded phi(k) once, then one
// scf.for over chunks of 64 queries carrying the result, S [B, Hk, D, Dv]
// and z [B, Hk, D]: the chunk's masked block (j <= i) times v, plus phi(q)
// applied to S and z, divided; then the chunk's keys added to S and z. No
// tensor is [L, L].
// CHECK-LABEL: func @linear_attention_causal
// CHECK:      arith.shli
// CHECK:      linalg.generic
// CHECK-SAME:   ins(%{{.*}}, %{{.*}} : tensor<2x2x70x16xf32>, tensor<2xi64>)
// CHECK:      %[[STEP:.*]] = arith.constant 64 : index
// CHECK:      scf.for %{{.*}} = %{{.*}} to %{{.*}} step %[[STEP]] iter_args(%{{.*}} = %{{.*}}, %[[S:.*]] = %{{.*}}, %[[Z:.*]] = %{{.*}}) -> (tensor<2x4x70x16xf32>, tensor<2x2x16x16xf32>, tensor<2x2x16xf32>)
// CHECK:        linalg.generic {{.*}} outs(%{{.*}} : tensor<2x4x?x?xf32>)
// CHECK:        arith.cmpi ugt
// CHECK:        ins(%{{.*}}, %[[S]] : tensor<2x4x?x16xf32>, tensor<2x2x16x16xf32>)
// CHECK:        ins(%{{.*}}, %[[Z]] : tensor<2x4x?x16xf32>, tensor<2x2x16xf32>)
// CHECK:        arith.divf
// CHECK:        tensor.insert_slice
// CHECK:        outs(%[[S]] : tensor<2x2x16x16xf32>)
// CHECK:        outs(%[[Z]] : tensor<2x2x16xf32>)
// CHECK:        scf.yield
// CHECK-NOT: tensor<{{.*}}70x70
func.func @linear_attention_causal(%q: tensor<2x4x70x16xf32>, %k: tensor<2x2x70x16xf32>, %len: tensor<2xi64>) -> tensor<2x4x70x16xf32> {
  %0 = attune.linear_attention %q, %k, %k key_lengths(%len) {causal}
      : (tensor<2x4x70x16xf32>, tensor<2x2x70x16xf32>, tensor<2x2x70x16xf32>, tensor<2xi64>) -> tensor<2x4x70x16xf32>
  return %0 : tensor<2x4x70x16xf32>
}

// -----

// Non-causal: S and z over all keys (from the state when given; the sums
// are results), then phi(q) S / (phi(q) . z + eps).
// CHECK-LABEL: func @linear_attention_state
// CHECK-NOT:  scf.for
// CHECK:      %[[S:.*]] = linalg.generic {{.*}} outs(%arg3 : tensor<1x2x16x8xf32>)
// CHECK:      %[[Z:.*]] = linalg.generic {{.*}} outs(%arg4 : tensor<1x2x16xf32>)
// CHECK:      ins(%{{.*}}, %[[S]] :
// CHECK:      ins(%{{.*}}, %[[Z]] :
// CHECK:      return %{{.*}}, %[[S]], %[[Z]]
func.func @linear_attention_state(%q: tensor<1x4x5x16xf32>, %k: tensor<1x2x7x16xf32>, %v: tensor<1x2x7x8xf32>,
                                  %s: tensor<1x2x16x8xf32>, %z: tensor<1x2x16xf32>)
    -> (tensor<1x4x5x8xf32>, tensor<1x2x16x8xf32>, tensor<1x2x16xf32>) {
  %0:3 = attune.linear_attention %q, %k, %v state(%s, %z)
      : (tensor<1x4x5x16xf32>, tensor<1x2x7x16xf32>, tensor<1x2x7x8xf32>, tensor<1x2x16x8xf32>, tensor<1x2x16xf32>)
      -> (tensor<1x4x5x8xf32>, tensor<1x2x16x8xf32>, tensor<1x2x16xf32>)
  return %0#0, %0#1, %0#2 : tensor<1x4x5x8xf32>, tensor<1x2x16x8xf32>, tensor<1x2x16xf32>
}

// -----

// A sparse layout in the materialized form: the layout's block test joins
// the mask of the scores generic, from the query and key indices (blocks of
// 8: floor division of both) and the fixed pattern's segments of 4 blocks;
// the query head is read for the test (unused here: no split).
// CHECK-LABEL: func @sparse_plain
// CHECK:       linalg.generic
// CHECK:       linalg.generic
// CHECK:         %[[I:.*]] = linalg.index 2 : index
// CHECK:         %[[J:.*]] = linalg.index 3 : index
// CHECK-DAG:     arith.divsi %[[I]], %c8
// CHECK-DAG:     arith.divsi %[[J]], %c8
// CHECK:         arith.divsi %{{.*}}, %c4
// CHECK:         arith.cmpi sge
// CHECK:         arith.select %{{.*}}, %{{.*}}, %cst
func.func @sparse_plain(%q: tensor<1x4x40x64xf32>) -> tensor<1x4x40x64xf32> {
  %0 = attune.attention %q, %q, %q {sparse = #attune.sparse<block = 8, fixed = 4, summary = 1>}
      : (tensor<1x4x40x64xf32>, tensor<1x4x40x64xf32>, tensor<1x4x40x64xf32>) -> tensor<1x4x40x64xf32>
  return %0 : tensor<1x4x40x64xf32>
}
