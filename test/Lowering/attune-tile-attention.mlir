// RUN: attune-opt %s --split-input-file --attune-tile-attention="tile-q=32 tile-k=16 min-length=64" | FileCheck %s
// RUN: attune-opt %s --split-input-file --attune-tile-attention="tile-q=32 tile-k=16 min-length=64 parallel=true" | FileCheck %s --check-prefix=PAR

// With parallel=true, batch and heads are one scf.forall; each iteration
// builds its head's [Lq, Dv] and inserts it in parallel.
// PAR-LABEL: func @causal
// PAR:       scf.forall (%[[B:.*]], %[[H:.*]]) in (%{{.*}}, 12) shared_outs(%[[O:.*]] = %{{.*}}) -> (tensor<?x12x?x64xf32>)
// PAR:         %[[HEAD:.*]] = scf.for {{.*}} -> (tensor<?x64xf32>)
// PAR:         scf.forall.in_parallel
// PAR-NEXT:      tensor.parallel_insert_slice %[[HEAD]] into %[[O]][%[[B]], %[[H]], 0, 0] [1, 1, %{{.*}}, 64]

// Queries, keys and values are zero-padded to whole tiles once (copied only
// where the length is not a multiple of the tile: an scf.if on the extent);
// then batch, heads and query tiles, each query tile transposed and scaled
// ([64, 32]: one contiguous block) before a key loop that starts on a tile boundary and whose upper bound is cut
// by causality (the last query of the tile + 1) and the padding length. The
// running max / sum / accumulator are its iter_args. Scores are computed
// transposed, sT = k_tile qT_tile [16, 32], so that the max and the sum over
// keys are element-wise across rows. Only key tiles that some query of the
// tile cannot fully see are masked (scf.if on the range every query sees:
// keys below min(Lk, len, first query + 1)). Every tile op has static
// shapes, the two products marked for attune-tile-gemm's register tiles.
// No [Lq, Lk] tensor. The query count is not static: this static form runs
// for 16 queries or more, the dynamic form (reading the keys in place, no
// padding) for fewer, a run-time choice.
// CHECK-LABEL: func @causal
// CHECK:       %[[MANY:.*]] = arith.cmpi sge, %{{.*}}, %c16
// CHECK:       scf.if %[[MANY]] -> (tensor<?x12x?x64xf32>) {
// CHECK:       %[[QP:.*]] = scf.if %{{.*}} -> (tensor<?x12x?x64xf32>) {
// CHECK-NEXT:    scf.yield %arg0
// CHECK-NEXT:  } else {
// CHECK:         tensor.insert_slice %arg0 into
// CHECK:       %[[VP:.*]] = scf.if
// CHECK-NEXT:    scf.yield %arg2
// CHECK:         tensor.insert_slice %arg2 into
// CHECK:       %[[KP:.*]] = scf.if
// CHECK-NEXT:    scf.yield %arg1
// CHECK:         tensor.insert_slice %arg1 into
// CHECK:       %[[SCALE:.*]] = arith.constant 1.250000e-01 : f32
// CHECK:       scf.for %[[B:.*]] = %{{.*}} to %{{.*}} step
// CHECK:         scf.for %[[H:.*]] = %{{.*}} to %{{.*}} step
// CHECK:           %[[LEN:.*]] = arith.index_cast
// CHECK:           scf.for %[[I0:.*]] = %{{.*}} to %{{.*}} step %c32
// CHECK:             %[[TQ:.*]] = arith.minsi %c32
// CHECK:             %[[QTILE:.*]] = tensor.extract_slice %[[QP]][%[[B]], %[[H]], %[[I0]], 0] [1, 1, 32, 64]
// CHECK:             linalg.generic {{.*}} ins(%[[QTILE]] : tensor<32x64xf32>) outs(%{{.*}} : tensor<64x32xf32>) attrs = {attune.transpose_tiles}
// CHECK:               arith.mulf %{{.*}}, %[[SCALE]]
// CHECK:             %[[HI0:.*]] = arith.minsi %{{.*}}, %[[LEN]]
// CHECK:             %[[HI:.*]] = arith.minsi %[[HI0]]
// CHECK:             %[[FULL0:.*]] = arith.minsi %{{.*}}, %[[LEN]]
// CHECK:             %[[FIRST1:.*]] = arith.addi %{{.*}}, %c1
// CHECK:             %[[FULLHI:.*]] = arith.minsi %[[FULL0]], %[[FIRST1]]
// CHECK:             scf.for %[[J0:.*]] = %{{.*}} to %[[HI]] step %c16{{.*}} iter_args(%[[M:[a-z0-9_]+]] = %{{.*}}, %{{.*}} = %{{.*}}, %{{.*}} = %{{.*}}, %[[T:[a-z0-9_]+]] = %{{.*}}) -> (tensor<32xf32>, tensor<32xf32>, tensor<32x64xf32>, tensor<32xf32>)
// CHECK:               tensor.extract_slice %[[KP]][%[[B]], %{{.*}}, %[[J0]], 0] [1, 1, 16, 64]
// CHECK:               tensor.extract_slice %[[VP]][%[[B]], %{{.*}}, %[[J0]], 0] [1, 1, 16, 64]
// CHECK:               %[[S:.*]] = linalg.generic {{.*}}["parallel", "parallel", "reduction"]} ins(%{{.*}}, %{{.*}} : tensor<16x64xf32>, tensor<64x32xf32>) outs(%{{.*}} : tensor<16x32xf32>) attrs = {attune.tile_gemm}
// CHECK:               %[[END:.*]] = arith.addi %[[J0]], %c16
// CHECK:               %[[BELOW:.*]] = arith.cmpi sge, %[[FULLHI]], %[[END]]
// CHECK:               %[[INTERIOR:.*]] = arith.andi %{{.*}}, %[[BELOW]]
// CHECK:               %[[ST:.*]] = scf.if %[[INTERIOR]] -> (tensor<16x32xf32>) {
// CHECK-NEXT:            scf.yield %[[S]]
// CHECK-NEXT:          } else {
// CHECK-NEXT:            linalg.generic {{.*}} outs(%[[S]] : tensor<16x32xf32>) attrs = {attune.vectorize}
// CHECK:                 arith.cmpi sle
// CHECK:                 arith.select
// The online softmax in place on the carried rows (m, l, acc, and a
// scratch row t): t = rowmax(s); t = max(m, t) = m'; m = exp(m - m') = c;
// p = exp(s - m') over the scores; l = l c + rowsum(p); acc = acc c + p v;
// m = t (copied back: the rows keep their buffers, nothing is allocated per
// key tile).
// CHECK:               %[[FILL:.*]] = linalg.fill {{.*}} outs(%[[T]] : tensor<32xf32>)
// CHECK:               %[[TMAX:.*]] = linalg.generic {{.*}}["reduction", "parallel"]} ins(%[[ST]] : tensor<16x32xf32>) outs(%[[FILL]] : tensor<32xf32>) attrs = {attune.vectorize}
// CHECK:                 arith.maxnumf
// CHECK:               %[[MNEW:.*]] = linalg.generic {{.*}} ins(%[[M]] : tensor<32xf32>) outs(%[[TMAX]] : tensor<32xf32>)
// CHECK:                 arith.maxnumf
// c = 2^(M - M'), M' = m' log2(e), from two rounded products; then
// p = 2^(s log2(e) - M') with the exponent in one FMA.
// CHECK:               %[[C:.*]] = linalg.generic {{.*}} ins(%[[MNEW]] : tensor<32xf32>) outs(%[[M]] : tensor<32xf32>)
// CHECK:                 %[[MOLD:.*]] = arith.mulf %{{.*}}, %[[LOG2E2:.*]] : f32
// CHECK:                 %[[MNEWS:.*]] = arith.mulf %{{.*}}, %[[LOG2E2]] : f32
// CHECK:                 arith.subf %[[MOLD]], %[[MNEWS]] : f32
// CHECK:                 arith.shli
// CHECK:               %[[P:.*]] = linalg.generic {{.*}} ins(%[[MNEW]] : tensor<32xf32>) outs(%[[ST]] : tensor<16x32xf32>)
// CHECK:                 %[[MS:.*]] = arith.mulf %{{.*}}, %[[LOG2E:.*]] : f32
// CHECK:                 %[[NEGM:.*]] = arith.negf %[[MS]]
// CHECK:                 math.fma %{{.*}}, %[[LOG2E]], %[[NEGM]] : f32
// CHECK:                 arith.shli
// CHECK:               linalg.generic {{.*}}["reduction", "parallel"]} ins(%[[P]] : tensor<16x32xf32>) outs(%{{.*}} : tensor<32xf32>) attrs = {attune.vectorize}
// CHECK:                 arith.addf
// CHECK:               linalg.generic {{.*}}["parallel", "parallel", "reduction"]} ins(%[[P]], %{{.*}} : tensor<16x32xf32>, tensor<16x64xf32>) outs(%{{.*}} : tensor<32x64xf32>) attrs = {attune.tile_gemm}
// CHECK:               linalg.copy ins(%[[MNEW]] : tensor<32xf32>) outs(%[[C]] : tensor<32xf32>)
// CHECK:               scf.yield
// CHECK:             arith.divf
// CHECK:             tensor.extract_slice %{{.*}}[0, 0] [%[[TQ]], 64]
// CHECK:             tensor.insert_slice
// CHECK-NOT: tensor<?x12x?x?xf32>
func.func @causal(%q: tensor<?x12x?x64xf32>, %k: tensor<?x12x?x64xf32>, %v: tensor<?x12x?x64xf32>,
                  %len: tensor<?xi32>) -> tensor<?x12x?x64xf32> {
  %o = attune.attention %q, %k, %v key_lengths(%len) {causal}
      : (tensor<?x12x?x64xf32>, tensor<?x12x?x64xf32>, tensor<?x12x?x64xf32>, tensor<?xi32>) -> tensor<?x12x?x64xf32>
  return %o : tensor<?x12x?x64xf32>
}

// -----

// A sliding window also raises the loop's lower bound (rounded down to a
// tile boundary).
// CHECK-LABEL: func @window
// CHECK: arith.maxsi
// CHECK: %[[T:.*]] = arith.divui
// CHECK: %[[LO:.*]] = arith.muli %[[T]]
// CHECK: scf.for %{{.*}} = %[[LO]] to
func.func @window(%q: tensor<1x2x128x16xf32>) -> tensor<1x2x128x16xf32> {
  %o = attune.attention %q, %q, %q {window = 8 : i64}
      : (tensor<1x2x128x16xf32>, tensor<1x2x128x16xf32>, tensor<1x2x128x16xf32>) -> tensor<1x2x128x16xf32>
  return %o : tensor<1x2x128x16xf32>
}

// -----

// Fewer than 4 heads with parallel=true: the keys of each head are split into
// ranges of whole key tiles (one per 4 tiles, at most 16), an scf.forall over
// (batch, head, range) gives each range's unnormalized state (accumulator,
// row maximum, row sum), and the ranges are combined after it: the largest
// maximum, the ranges' weights exp(m - M), their sum, the weights over it,
// and the weighted sum of the accumulators. The serial form has no ranges.
// PAR-LABEL: func @few_heads
// PAR:         %[[TILES:.*]] = arith.divui %{{.*}}, %c16
// PAR:         %[[N:.*]] = arith.ceildivui %[[TILES]], %c4{{.*}}
// PAR:         %[[CAP:.*]] = arith.minsi %[[N]], %c16{{.*}}
// PAR:         %[[S:.*]] = arith.maxui %[[CAP]], %c1{{.*}}
// PAR:         %[[ST:.*]]:3 = scf.forall (%[[B:.*]], %[[H:.*]], %[[R:.*]]) in (%{{.*}}, 2, %[[S]]) shared_outs(%[[A:.*]] = %{{.*}}, %[[M:.*]] = %{{.*}}, %[[L:.*]] = %{{.*}}) -> (tensor<?x2x?x?x64xf32>, tensor<?x2x?x?xf32>, tensor<?x2x?x?xf32>)
// PAR:           %[[Q:.*]]:3 = scf.for {{.*}} -> (tensor<?x64xf32>, tensor<?xf32>, tensor<?xf32>)
// PAR:             arith.ceildivui %{{.*}}, %[[S]]
// PAR:             scf.for
// PAR:           scf.forall.in_parallel
// PAR-NEXT:        tensor.parallel_insert_slice %[[Q]]#0 into %[[A]][%[[B]], %[[H]], %[[R]], 0, 0]
// PAR-NEXT:        tensor.parallel_insert_slice %[[Q]]#1 into %[[M]][%[[B]], %[[H]], %[[R]], 0]
// PAR-NEXT:        tensor.parallel_insert_slice %[[Q]]#2 into %[[L]][%[[B]], %[[H]], %[[R]], 0]
// PAR:         %[[MAX:.*]] = linalg.generic {{.*}} iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%[[ST]]#1 : tensor<?x2x?x?xf32>)
// PAR:           arith.maxnumf
// PAR:         %[[W:.*]] = linalg.generic {{.*}} ins(%[[ST]]#1, %[[MAX]] :
// PAR:         %[[SUM:.*]] = linalg.generic {{.*}} ins(%[[W]], %[[ST]]#2 :
// PAR:         %[[WN:.*]] = linalg.generic {{.*}} ins(%[[SUM]] : tensor<?x2x?xf32>) outs(%[[W]] :
// PAR:           arith.divf
// PAR:         linalg.generic {{.*}} iterator_types = ["parallel", "parallel", "parallel", "reduction", "parallel"]} ins(%[[WN]], %[[ST]]#0 : tensor<?x2x?x?xf32>, tensor<?x2x?x?x64xf32>) outs(%{{.*}} : tensor<?x2x?x64xf32>)
// CHECK-LABEL: func @few_heads
// CHECK-NOT:   scf.forall
// CHECK:       return
func.func @few_heads(%q: tensor<?x2x?x64xf32>, %k: tensor<?x1x?x64xf32>) -> tensor<?x2x?x64xf32> {
  %0 = attune.attention %q, %k, %k : (tensor<?x2x?x64xf32>, tensor<?x1x?x64xf32>, tensor<?x1x?x64xf32>) -> tensor<?x2x?x64xf32>
  return %0 : tensor<?x2x?x64xf32>
}

// -----

// Keys of a static length that is a multiple of the key tile (a generation
// cache's capacity) are read in place: no zero-filled padded copy of them
// (a prefill copied each layer's 2,048-position caches).
// CHECK-LABEL: func @static_keys
// CHECK-SAME:    %{{.*}}: tensor<1x2x?x16xf32>, %[[K:.*]]: tensor<1x2x128x16xf32>
// CHECK-NOT:     tensor.insert_slice %[[K]]
// CHECK:         tensor.extract_slice %[[K]][{{.*}}] [1, 1, 16, 16] [1, 1, 1, 1] : tensor<1x2x128x16xf32> to tensor<16x16xf32>
func.func @static_keys(%q: tensor<1x2x?x16xf32>, %k: tensor<1x2x128x16xf32>) -> tensor<1x2x?x16xf32> {
  %0 = attune.attention %q, %k, %k : (tensor<1x2x?x16xf32>, tensor<1x2x128x16xf32>, tensor<1x2x128x16xf32>) -> tensor<1x2x?x16xf32>
  return %0 : tensor<1x2x?x16xf32>
}

// -----

// attune.tile_q_cap (set by attune-absorb-kv-projections on its few-row
// attention) caps the query tile: 16 here instead of the option's 32; a cap
// above the option leaves it.
// CHECK-LABEL: func @tile_q_cap
// CHECK:       scf.for %{{.*}} = %{{.*}} to %{{.*}} step %c16
// CHECK:         arith.minsi %c16
// CHECK:       scf.for %{{.*}} = %{{.*}} to %{{.*}} step %c32
// CHECK:         arith.minsi %c32
func.func @tile_q_cap(%q: tensor<1x1x?x64xf32>, %k: tensor<1x1x?x64xf32>) -> (tensor<1x1x?x64xf32>, tensor<1x1x?x64xf32>) {
  %0 = attune.attention %q, %k, %k {attune.tile_q_cap = 16 : i64} : (tensor<1x1x?x64xf32>, tensor<1x1x?x64xf32>, tensor<1x1x?x64xf32>) -> tensor<1x1x?x64xf32>
  %1 = attune.attention %q, %k, %k {attune.tile_q_cap = 128 : i64} : (tensor<1x1x?x64xf32>, tensor<1x1x?x64xf32>, tensor<1x1x?x64xf32>) -> tensor<1x1x?x64xf32>
  return %0, %1 : tensor<1x1x?x64xf32>, tensor<1x1x?x64xf32>
}

// -----

// Negative cases: short static sequences keep the plain form (the cost rule),
// and hard selection or the weights result need the full scores.
// CHECK-LABEL: func @untouched
// CHECK-NOT: scf.for
// CHECK: attune.attention
// CHECK: attune.attention {{.*}}selection = #attune.selection<hard>
// CHECK: attune.attention {{.*}}return_weights
func.func @untouched(%s: tensor<1x2x32x16xf32>, %l: tensor<1x2x128x16xf32>)
    -> (tensor<1x2x32x16xf32>, tensor<1x2x128x16xf32>, tensor<1x2x128x16xf32>) {
  %0 = attune.attention %s, %s, %s : (tensor<1x2x32x16xf32>, tensor<1x2x32x16xf32>, tensor<1x2x32x16xf32>) -> tensor<1x2x32x16xf32>
  %1 = attune.attention %l, %l, %l {selection = #attune.selection<hard>}
      : (tensor<1x2x128x16xf32>, tensor<1x2x128x16xf32>, tensor<1x2x128x16xf32>) -> tensor<1x2x128x16xf32>
  %2:2 = attune.attention %l, %l, %l {return_weights}
      : (tensor<1x2x128x16xf32>, tensor<1x2x128x16xf32>, tensor<1x2x128x16xf32>) -> (tensor<1x2x128x16xf32>, tensor<1x2x128x128xf32>)
  return %0, %1, %2#0 : tensor<1x2x32x16xf32>, tensor<1x2x128x16xf32>, tensor<1x2x128x16xf32>
}

// -----

// Causal linear attention (linear-chunk, default 32): per (batch, head) one
// loop over chunks carrying the result, S [D, Dv] and z [D]; phi(q) of the
// chunk transposed to [D, C], phi(k) of the chunk [C, D]; the chunk
// products as register-tiled micro-kernels; S and z updated last. No
// [L, L] tensor and no copy of the whole inputs.
// CHECK-LABEL: func @linear_causal
// CHECK:       scf.for
// CHECK:         scf.for
// CHECK:           scf.for %{{.*}} = %{{.*}} to %{{.*}} step %c32{{.*}} iter_args(%{{.*}} = %{{.*}}, %[[S:.*]] = %{{.*}}, %[[Z:.*]] = %{{.*}}) -> (tensor<1x4x?x64xf32>, tensor<64x64xf32>, tensor<64xf32>)
// CHECK:             %[[QT:.*]] = linalg.generic {{.*}} outs(%{{.*}} : tensor<64x32xf32>) attrs = {attune.transpose_tiles}
// CHECK:             %[[FK:.*]] = linalg.generic {{.*}} outs(%{{.*}} : tensor<32x64xf32>) attrs = {attune.vectorize}
// CHECK:             linalg.generic {{.*}} ins(%[[FK]], %[[QT]] : tensor<32x64xf32>, tensor<64x32xf32>) outs(%{{.*}} : tensor<32x32xf32>) attrs = {attune.tile_gemm}
// CHECK:             linalg.generic {{.*}} ins(%[[QT]], %[[S]] : tensor<64x32xf32>, tensor<64x64xf32>) {{.*}} attrs = {attune.tile_gemm}
// CHECK:             %[[S2:.*]] = linalg.generic {{.*}} ins(%[[FK]], %{{.*}} : tensor<32x64xf32>, tensor<32x64xf32>) outs(%[[S]] : tensor<64x64xf32>) attrs = {attune.tile_gemm}
// CHECK:             %[[Z2:.*]] = linalg.generic {{.*}} ins(%[[FK]] : tensor<32x64xf32>) outs(%[[Z]] : tensor<64xf32>)
// CHECK:             scf.yield %{{.*}}, %[[S2]], %[[Z2]]
// CHECK-NOT: tensor<1x4x?x?xf32>
// PAR-LABEL: func @linear_causal
// PAR:       scf.forall
func.func @linear_causal(%q: tensor<1x4x?x64xf32>, %k: tensor<1x2x?x64xf32>) -> tensor<1x4x?x64xf32> {
  %0 = attune.linear_attention %q, %k, %k {causal}
      : (tensor<1x4x?x64xf32>, tensor<1x2x?x64xf32>, tensor<1x2x?x64xf32>) -> tensor<1x4x?x64xf32>
  return %0 : tensor<1x4x?x64xf32>
}

// -----

// Local + global attention (window 8, 3 global tokens): the positions
// checked; per query tile the window's key tiles, then one more step over
// the global keys gathered into [8, D] tiles (G rounded up to 8); after the
// query loop, the global queries gathered into one [D, 32] tile, run over
// every key tile and written over their rows one by one.
// CHECK-LABEL: func @local_global
// CHECK:       cf.assert %{{.*}}, "{{.*}}global token positions must be distinct and in [0, Lk)"
// CHECK:       scf.for
// CHECK:         scf.for
// CHECK:           scf.for {{.*}} step %c32
// CHECK:             scf.for {{.*}} step %c16
// CHECK:             tensor.extract_slice %{{.*}} [1, 1, 8, 64] [1, 1, 1, 1] : tensor<1x2x8x64xf32> to tensor<8x64xf32>
// CHECK:             linalg.generic {{.*}} ins(%{{.*}}, %{{.*}} : tensor<8x64xf32>, tensor<64x32xf32>)
// CHECK:           linalg.generic {{.*}} outs(%{{.*}} : tensor<64x32xf32>)
// CHECK:           scf.for {{.*}} step %c16{{.*}} -> (tensor<32xf32>, tensor<32xf32>, tensor<32x64xf32>, tensor<32xf32>)
// CHECK:           scf.for {{.*}} to %c3
// CHECK:             tensor.insert_slice %{{.*}} : tensor<1x64xf32> into tensor<1x4x?x64xf32>
func.func @local_global(%q: tensor<1x4x?x64xf32>, %k: tensor<1x2x?x64xf32>, %g: tensor<1x3xi64>) -> tensor<1x4x?x64xf32> {
  %0 = attune.attention %q, %k, %k globals(%g) {window = 8 : i64}
      : (tensor<1x4x?x64xf32>, tensor<1x2x?x64xf32>, tensor<1x2x?x64xf32>, tensor<1x3xi64>) -> tensor<1x4x?x64xf32>
  return %0 : tensor<1x4x?x64xf32>
}

// -----

// Sparse attention in the static tiled form: each key tile of the query
// tile's range is tested against the layout over the block pairs the two
// tiles cover (a loop nest that ORs the block test) and skipped when no
// query of the tile may see it; a visited tile is masked unless it lies in
// one block pair and inside every other mask.
// CHECK-LABEL: func @sparse
// CHECK:       scf.for {{.*}} step %c32
// CHECK:         scf.for {{.*}} step %c16{{.*}} -> (tensor<32xf32>, tensor<32xf32>, tensor<32x64xf32>, tensor<32xf32>)
// CHECK:           %[[ANY:.*]] = scf.for {{.*}} -> (i1)
// CHECK:             scf.for {{.*}} -> (i1)
// CHECK:               arith.remui %{{.*}}, %c2
// CHECK:           scf.if %[[ANY]] -> (tensor<32xf32>, tensor<32xf32>, tensor<32x64xf32>, tensor<32xf32>)
// CHECK:             linalg.generic {{.*}} ins(%{{.*}}, %{{.*}} : tensor<16x64xf32>, tensor<64x32xf32>)
// The skipped tile's branch hands the state on unchanged:
// CHECK:             scf.yield %arg{{[0-9]+}}, %arg{{[0-9]+}}, %arg{{[0-9]+}}, %arg{{[0-9]+}} : tensor<32xf32>, tensor<32xf32>, tensor<32x64xf32>, tensor<32xf32>
func.func @sparse(%q: tensor<1x4x?x64xf32>, %k: tensor<1x2x?x64xf32>) -> tensor<1x4x?x64xf32> {
  %0 = attune.attention %q, %k, %k {causal, sparse = #attune.sparse<block = 32, local = 2, stride = 2>}
      : (tensor<1x4x?x64xf32>, tensor<1x2x?x64xf32>, tensor<1x2x?x64xf32>) -> tensor<1x4x?x64xf32>
  return %0 : tensor<1x4x?x64xf32>
}

// -----

// A dilated window (8 keys, 3 apart): the key range spans (8 - 1) * 3 + 1
// = 22 positions back; every visited tile is masked (the window's gaps run
// through all of them), the mask testing (p - j) mod 3.
// CHECK-LABEL: func @dilated
// CHECK:       arith.subi %{{.*}}, %c22
// CHECK:       scf.for {{.*}} step %c16
// CHECK:         %[[NONE:.*]] = arith.constant false
// CHECK:         scf.if %[[NONE]] -> (tensor<16x32xf32>)
// CHECK:           arith.remsi %{{.*}}, %c3
func.func @dilated(%q: tensor<1x4x?x64xf32>, %k: tensor<1x2x?x64xf32>) -> tensor<1x4x?x64xf32> {
  %0 = attune.attention %q, %k, %k {causal, window = 8 : i64, dilation = 3 : i64}
      : (tensor<1x4x?x64xf32>, tensor<1x2x?x64xf32>, tensor<1x2x?x64xf32>) -> tensor<1x4x?x64xf32>
  return %0 : tensor<1x4x?x64xf32>
}

// -----

// Queries at offsets over a cache: a run-time choice between the static form
// (many queries) and the dynamic one (a decoding step's few). A value product
// that is no register-tiled tile GEMM (here the dynamic form's, and the
// static form's with values 16 wide) has dims (i, j, e): its plain loops run
// along rows of v, vectorized, rather than gathering a column of v per
// output.
// CHECK-LABEL: func @cache
// CHECK:       scf.if
// CHECK:         linalg.generic {{.*}}["parallel", "reduction", "parallel"]} ins(%{{.*}}, %{{.*}} : tensor<16x32xf32>, tensor<16x16xf32>) outs(%{{.*}} : tensor<32x16xf32>) {
// CHECK:       } else {
// CHECK:         linalg.generic {{.*}}["parallel", "reduction", "parallel"]} ins(%{{.*}}, %{{.*}} : tensor<?x16xf32>, tensor<16x16xf32>) outs(%{{.*}} : tensor<?x16xf32>) {
func.func @cache(%q: tensor<?x2x?x16xf32>, %k: tensor<?x2x128x16xf32>, %pos: tensor<?xi64>) -> tensor<?x2x?x16xf32> {
  %o = attune.attention %q, %k, %k query_offsets(%pos) {causal} : (tensor<?x2x?x16xf32>, tensor<?x2x128x16xf32>, tensor<?x2x128x16xf32>, tensor<?xi64>) -> tensor<?x2x?x16xf32>
  return %o : tensor<?x2x?x16xf32>
}
