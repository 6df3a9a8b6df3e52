// RUN: attune-opt %s --attune-tile-attention --convert-attune-to-linalg --attune-cpu-kernels=cpu=icelake-server | FileCheck %s
// RUN: attune-opt %s --attune-tile-attention --convert-attune-to-linalg "--attune-cpu-kernels=parallel=true cpu=icelake-server" | FileCheck %s --check-prefix=PAR

// With parallel=true the GEMM runs as an scf.forall over 128-row x 128-column (2-panel)
// tiles (768 columns: 6 per row block, an even share for 2 threads, where 256-column tiles
// made 3) around the same cache tiles (128 rows of one panel) and register tiles. Row
// blocks are the outer dimension: a thread's share of a tall GEMM is whole row blocks,
// each reused over all of N while it is in L2, as in the serial nest. A forall tile is
// already one row block, so only its panels loop inside it.
// PAR-LABEL: func @wide
// PAR:       scf.forall (%{{.*}}, %{{.*}}) = (0, 0) to (%{{.*}}, 8) step (128, 2)
// PAR-NOT:     step %c128
// PAR:           scf.for %{{.*}} = %c0 to %c2 step %c1
// PAR-NOT:           vector.transfer_write
// PAR:               vector.fma {{.*}} : vector<64xf32>
// PAR:         scf.forall.in_parallel

// A linear over a dynamic number of rows, N a multiple of 64. The weight is
// packed as 64-column panels [N/64, K, 64] (here from the run-time W: one
// transpose of W viewed as [N/64, 64, K]) and the output viewed as
// [1, M, N/64, 64]; cache tiles, then full 4 x 64 register tiles as
// broadcast + FMA on vector<64xf32> (4 per k step, reading one contiguous
// panel row; the accumulator carried through the k loop; panels outside row
// tiles), and a remainder loop over the last rows, one row of 64 columns per
// FMA, its accumulator carried through a k loop inside the row loop. The
// output's zero fill is fused into each cache tile, right before its k loop
// (not one fill of the whole output ahead of the GEMM), and then into the
// register tiles: with one k tile (K = 128 here) each register tile's
// accumulators start as the init's value (zeros) instead of a fill of the
// cache tile read back, so nothing writes the tile before its register
// tiles' results. N = 64 is one parallel tile of columns: cache tiles of
// 32 rows (the parallel tiles split the rows).
// CHECK-LABEL: func @linear
// CHECK-NOT:   linalg.fill
// CHECK-DAG:   %[[Z1:.*]] = arith.constant dense<0.000000e+00> : vector<1x1x1x64xf32>
// CHECK-DAG:   %[[Z4:.*]] = arith.constant dense<0.000000e+00> : vector<1x4x1x64xf32>
// CHECK:       tensor.expand_shape %{{.*}} {{\[\[}}0, 1], [2]] output_shape [1, 64, 128] : tensor<64x128xf32> into tensor<1x64x128xf32>
// CHECK:       %[[P:.*]] = linalg.transpose ins(%{{.*}} : tensor<1x64x128xf32>) outs(%{{.*}} : tensor<1x128x64xf32>) permutation = [0, 2, 1]
// CHECK:       scf.for %{{.*}} step %c32
// CHECK-NOT:     vector.transfer_write
// CHECK:         scf.for
// CHECK-NOT:       vector.transfer_read {{.*}} : tensor<1x4x1x64xf32>, vector<1x4x1x64xf32>
// CHECK:           scf.for {{.*}} iter_args(%{{.*}} = %[[Z4]]) -> (vector<1x4x1x64xf32>)
// CHECK:             vector.transfer_read %[[P]]{{.*}} : tensor<1x128x64xf32>, vector<1x1x64xf32>
// CHECK-COUNT-4:     vector.fma {{.*}} : vector<64xf32>
// CHECK:           vector.transfer_write
// CHECK:         scf.for
// CHECK:           scf.for
// CHECK-NOT:         vector.transfer_read {{.*}} : tensor<1x?x1x64xf32>, vector<1x1x1x64xf32>
// CHECK:             scf.for {{.*}} iter_args(%{{.*}} = %[[Z1]]) -> (vector<1x1x1x64xf32>)
// CHECK:               vector.broadcast {{.*}} : f32 to vector<64xf32>
// CHECK:               vector.fma {{.*}} : vector<64xf32>
// CHECK:             vector.transfer_write
// CHECK-NOT:   attune.gemm
// CHECK-NOT:   attune.init_tile
// CHECK-LABEL: func @linear_narrow
func.func @linear(%x: tensor<?x128xf32>, %w: tensor<64x128xf32>) -> tensor<?x64xf32> {
  %y = attune.linear %x, %w : (tensor<?x128xf32>, tensor<64x128xf32>) -> tensor<?x64xf32>
  return %y : tensor<?x64xf32>
}

// N a multiple of 32 but not of 64: 32-column panels and 8 x 32 register
// tiles (8 FMAs on vector<32xf32> per k step), the same remainder rows.
// CHECK:       tensor.expand_shape %{{.*}} {{\[\[}}0, 1], [2]] output_shape [3, 32, 128] : tensor<96x128xf32> into tensor<3x32x128xf32>
// CHECK:       %[[P:.*]] = linalg.transpose ins(%{{.*}} : tensor<3x32x128xf32>) outs(%{{.*}} : tensor<3x128x32xf32>) permutation = [0, 2, 1]
// CHECK:       scf.for
// CHECK:         scf.for {{.*}} iter_args({{.*}}) -> (vector<1x8x1x32xf32>)
// CHECK:           vector.transfer_read %[[P]]{{.*}} : tensor<3x128x32xf32>, vector<1x1x32xf32>
// CHECK-COUNT-8:   vector.fma {{.*}} : vector<32xf32>
// CHECK:         vector.transfer_write
// CHECK:       scf.for
// CHECK:         scf.for
// CHECK:           scf.for {{.*}} iter_args({{.*}}) -> (vector<1x1x1x32xf32>)
// CHECK:             vector.fma {{.*}} : vector<32xf32>
// CHECK-NOT:   attune.gemm
func.func @linear_narrow(%x: tensor<?x128xf32>, %w: tensor<96x128xf32>) -> tensor<?x96xf32> {
  %y = attune.linear %x, %w : (tensor<?x128xf32>, tensor<96x128xf32>) -> tensor<?x96xf32>
  return %y : tensor<?x96xf32>
}

// A bias: the broadcast that initializes the output is fused into each
// cache tile as well, and from there into its register tiles: their
// accumulators start as the panel's bias row (no write of the tile before
// the FMAs). A cache tile is 128 rows of one 64-column panel (the panel loop
// outside the k tiles, so that the next weight slice follows the current one
// in memory: attune-prefetch-panels); the panel's bias row is read once per
// tile.
// CHECK-LABEL: func @linear_bias
// CHECK-NOT:   linalg.generic
// CHECK:       %[[B2:.*]] = tensor.expand_shape %arg2 {{\[\[}}0, 1]] output_shape [8, 64] : tensor<512xf32> into tensor<8x64xf32>
// CHECK:       scf.for %{{.*}} step %c128
// CHECK:         scf.for %{{.*}} = %c0 to %c8 step %c1
// CHECK:           %[[ROW:.*]] = vector.transfer_read %[[B2]]{{.*}} : tensor<8x64xf32>, vector<1x64xf32>
// CHECK:           %[[ROW4:.*]] = vector.broadcast %[[ROW]] : vector<1x64xf32> to vector<1x1x1x64xf32>
// CHECK-NOT:       vector.transfer_write
// CHECK:           scf.for %{{.*}} step %c4
// CHECK:             %[[ACC:.*]] = vector.broadcast %[[ROW4]] : vector<1x1x1x64xf32> to vector<1x4x1x64xf32>
// CHECK:             scf.for {{.*}} iter_args(%{{.*}} = %[[ACC]])
// CHECK-COUNT-4:       vector.fma {{.*}} : vector<64xf32>
// CHECK:             } {attune.panel_k_loop}
// CHECK:           scf.for
// CHECK:             scf.for
// CHECK:               scf.for {{.*}} iter_args(%{{.*}} = %[[ROW4]])
// CHECK-NOT:   linalg.generic
// CHECK:       return
func.func @linear_bias(%x: tensor<?x128xf32>, %w: tensor<512x128xf32>, %b: tensor<512xf32>) -> tensor<?x512xf32> {
  %y = attune.linear %x, %w, %b : (tensor<?x128xf32>, tensor<512x128xf32>, tensor<512xf32>) -> tensor<?x512xf32>
  return %y : tensor<?x512xf32>
}

// K = 384: three k tiles per cache tile. Only the first k tile starts from
// the bias; the others read back the accumulators the one before stored
// (an scf.if on the k tile loop's first iteration, around the read).
// CHECK-LABEL: func @linear_k_tiles
// CHECK:       scf.for %{{.*}} step %c128
// CHECK:         scf.for %{{.*}} = %c0 to %c8 step %c1
// CHECK-NOT:       vector.transfer_write
// CHECK:           scf.for %[[KT:.*]] = %c0 to %c384 step %c128
// CHECK:             scf.for %{{.*}} step %c4
// CHECK:               %[[FIRST:.*]] = arith.cmpi eq, %[[KT]], %c0 : index
// CHECK:               %[[ACC:.*]] = scf.if %[[FIRST]] -> (vector<1x4x1x64xf32>) {
// CHECK:                 vector.broadcast %{{.*}} : vector<1x1x1x64xf32> to vector<1x4x1x64xf32>
// CHECK:               } else {
// CHECK:                 vector.transfer_read %{{.*}} : tensor<1x4x1x64xf32>, vector<1x4x1x64xf32>
// CHECK:               }
// CHECK:               scf.for {{.*}} iter_args(%{{.*}} = %[[ACC]]) -> (vector<1x4x1x64xf32>)
// The last rows: full tiles of 2 rows, then one row at a time.
// CHECK:             scf.for
// CHECK:               scf.for {{.*}} step %c2
// CHECK:                 %[[FIRST2:.*]] = arith.cmpi eq, %[[KT]], %c0 : index
// CHECK:                 %[[ACC2:.*]] = scf.if %[[FIRST2]] -> (vector<1x2x1x64xf32>) {
// CHECK:                 } else {
// CHECK:                   vector.transfer_read %{{.*}} : tensor<1x2x1x64xf32>, vector<1x2x1x64xf32>
// CHECK:                 }
// CHECK:                 scf.for {{.*}} iter_args(%{{.*}} = %[[ACC2]]) -> (vector<1x2x1x64xf32>)
// CHECK:               scf.for
// CHECK:                 scf.for
// CHECK:                   %[[FIRST1:.*]] = arith.cmpi eq, %[[KT]], %c0 : index
// CHECK:                   scf.if %[[FIRST1]] -> (vector<1x1x1x64xf32>) {
// CHECK:                   } else {
// CHECK:                     vector.transfer_read %{{.*}} : tensor<1x?x1x64xf32>, vector<1x1x1x64xf32>
func.func @linear_k_tiles(%x: tensor<?x384xf32>, %w: tensor<512x384xf32>, %b: tensor<512xf32>) -> tensor<?x512xf32> {
  %y = attune.linear %x, %w, %b : (tensor<?x384xf32>, tensor<512x384xf32>, tensor<512xf32>) -> tensor<?x512xf32>
  return %y : tensor<?x512xf32>
}

// One decoding step (a single static row) gets the row kernel: its k loop
// carries the row's 64 accumulators as one vector. It used to keep the
// plain contraction, which LLVM vectorized with gathers (70x slower).
// CHECK-LABEL: func @one_row
// CHECK-NOT: linalg.generic
// CHECK: scf.for {{.*}} -> (vector<1x1x1x64xf32>)
// CHECK: vector.fma {{.*}} : vector<64xf32>
// CHECK: attune.row_k_loop
func.func @one_row(%x: tensor<1x128xf32>, %w: tensor<64x128xf32>) -> tensor<1x64xf32> {
  %y = attune.linear %x, %w : (tensor<1x128xf32>, tensor<64x128xf32>) -> tensor<1x64xf32>
  return %y : tensor<1x64xf32>
}

// CHECK-LABEL: func @wide
// CHECK:         vector.fma {{.*}} : vector<64xf32>
func.func @wide(%x: tensor<?x128xf32>, %w: tensor<512x128xf32>) -> tensor<?x512xf32> {
  %y = attune.linear %x, %w : (tensor<?x128xf32>, tensor<512x128xf32>) -> tensor<?x512xf32>
  return %y : tensor<?x512xf32>
}

// An activation epilogue (attune-fuse-epilogues' linear {activation}): the
// GEMM is fused into the epilogue's 128-row x 64-column tiles, so that each
// output tile is activated right after its k loop, one 64-column panel row per
// vector op (erf as a polynomial, no libm call).
// The bias that initializes the GEMM starts its register tiles'
// accumulators, as without an epilogue; nothing fills the whole output
// first (the tile loops' bounds no longer ask its dims). The GEMM's own
// output, which only the epilogue reads, is laid out panel by panel
// ([B, N/64, M, 64]): a register tile's accumulators are 4 consecutive rows
// of 64 (vector<1x1x4x64>); the epilogue reads a panel row of it and writes
// the row-major output (vector<1x1x1x64> at [0, %r, 0, 0]).
// CHECK-LABEL: func @gelu_epilogue
// CHECK-NOT:   linalg.generic
// CHECK:       tensor.empty(%{{.*}}) : tensor<1x8x?x64xf32>
// CHECK:       scf.for %{{.*}} step %c128
// CHECK:         scf.for %{{.*}} = %c0 to %c8 step %c1
// CHECK:           vector.transfer_read %{{.*}} : tensor<8x64xf32>, vector<1x64xf32>
// CHECK-NOT:       vector.transfer_write
// CHECK:           scf.for %{{.*}} step %c4
// CHECK:             scf.for {{.*}} -> (vector<1x1x4x64xf32>)
// CHECK-COUNT-4:       vector.fma {{.*}} : vector<64xf32>
// CHECK:             vector.transfer_write %{{.*}} : vector<1x1x4x64xf32>, tensor<1x1x4x64xf32>
// CHECK:           scf.for
// CHECK:             scf.for
// CHECK:               vector.transfer_read {{.*}}[%c0, %c0, %{{.*}}, %c0]{{.*}} vector<1x1x1x64xf32>
// CHECK-NOT:           math.erf
// CHECK:               math.fma {{.*}} : vector<1x1x1x64xf32>
// CHECK:               vector.transfer_write %{{.*}}[%c0, %{{.*}}, %c0, %c0]
// CHECK-NOT:   attune.epilogue
// CHECK-NOT:   math.erf
// With parallel=true the GEMM's intermediate tile is an empty tensor of
// the forall tile's own (two panels of up to 128 rows), not a slice of the
// whole intermediate, which bufferization would copy per tile.
// PAR-LABEL: func @gelu_epilogue
// PAR-NOT:   tensor.empty({{.*}}) : tensor<1x8x?x64xf32>
// PAR:       scf.forall (%{{.*}}, %{{.*}}) in (%{{.*}}, 4)
// PAR-NOT:     step %c128
// PAR:         %[[TILE:.*]] = tensor.empty(%{{.*}}) : tensor<1x2x?x64xf32>
// PAR:           scf.for %{{.*}} = %c0 to %c2 step %c1
// PAR:             tensor.extract_slice %[[TILE]]
// PAR-NOT:           vector.transfer_write
// PAR:               vector.fma {{.*}} : vector<64xf32>
// PAR:             math.fma {{.*}} : vector<1x1x1x64xf32>
// PAR:         scf.forall.in_parallel
func.func @gelu_epilogue(%x: tensor<?x128xf32>, %w: tensor<512x128xf32>, %b: tensor<512xf32>) -> tensor<?x512xf32> {
  %y = attune.linear %x, %w, %b {activation = #attune.activation<gelu>}
      : (tensor<?x128xf32>, tensor<512x128xf32>, tensor<512xf32>) -> tensor<?x512xf32>
  return %y : tensor<?x512xf32>
}

// A row maximum of a vectorized tile op (attention's running max): a tree of
// halvings (64 -> 32 -> ... -> 1 lanes, element-wise maxnumf on vectors), not
// one vector.reduction, which LLVM expands lane after lane with a NaN check
// per lane. Row sums keep vector.reduction <add> with reassoc.
// CHECK-LABEL: func @row_max_tree
// CHECK-NOT:     vector.reduction <maxnumf>
// CHECK:         vector.shuffle {{.*}} : vector<64xf32>, vector<64xf32>
// CHECK:         arith.maxnumf {{.*}} : vector<32xf32>
// CHECK:         arith.maxnumf {{.*}} : vector<16xf32>
// CHECK:         arith.maxnumf {{.*}} : vector<1xf32>
// CHECK:         vector.extract {{.*}}[0] : f32 from vector<1xf32>
// CHECK:         vector.reduction <add>, {{.*}} fastmath<reassoc> : vector<64xf32> into f32
// CHECK-NOT:     vector.reduction <maxnumf>
func.func @row_max_tree(%s: tensor<8x64xf32>, %m0: tensor<8xf32>, %l0: tensor<8xf32>) -> (tensor<8xf32>, tensor<8xf32>) {
  %m = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>],
                       iterator_types = ["parallel", "reduction"]}
      ins(%s : tensor<8x64xf32>) outs(%m0 : tensor<8xf32>) attrs = {attune.vectorize} {
  ^bb0(%x: f32, %acc: f32):
    %r = arith.maxnumf %x, %acc : f32
    linalg.yield %r : f32
  } -> tensor<8xf32>
  %l = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>],
                       iterator_types = ["parallel", "reduction"]}
      ins(%s : tensor<8x64xf32>) outs(%l0 : tensor<8xf32>) attrs = {attune.vectorize} {
  ^bb0(%x: f32, %acc: f32):
    %r = arith.addf %x, %acc fastmath<reassoc> : f32
    linalg.yield %r : f32
  } -> tensor<8xf32>
  return %m, %l : tensor<8xf32>, tensor<8xf32>
}

// Row kernels outside the GEMMs and tiled attention (here a layer norm with
// a residual: two row reductions and the normalization) run one row at a
// time, vectorized along the row: the sums are vector reductions, not a
// chain of scalar adds. The reductions feed only the normalization, so they
// are fused into its row loop: one loop over the rows, each row's mean,
// variance and normalized values computed together (from L1), instead of
// three passes over all the rows. With parallel=true, blocks of rows are
// an scf.forall (16384 elements: 256 rows of 64; a kernel of fewer rows is
// one block, which runs without waking the threads), each block's rows one
// at a time as above.
// PAR-LABEL: func @layer_norm_rows
// PAR:       scf.forall (%[[B:.*]]) = (0) to (%[[M:.*]]) step (256)
// PAR:         %[[ROWS:.*]] = affine.min {{.*}}(%[[B]])[%[[M]]]
// PAR:         scf.for %{{.*}} = %c0 to %[[ROWS]] step %c1
// PAR:         vector.reduction <add>, {{.*}} : vector<64xf32> into f32
// PAR:         vector.reduction <add>, {{.*}} : vector<64xf32> into f32
// PAR:         math.rsqrt {{.*}} : vector<1x64xf32>
// PAR:         scf.forall.in_parallel
// PAR-NOT:   scf.forall
// PAR:       return
// CHECK-LABEL: func @layer_norm_rows
// CHECK:       scf.for
// CHECK:         vector.transfer_read {{.*}} : tensor<?x64xf32>, vector<1x64xf32>
// CHECK:         vector.reduction <add>, {{.*}} : vector<64xf32> into f32
// CHECK:         vector.reduction <add>, {{.*}} : vector<64xf32> into f32
// CHECK:         math.rsqrt {{.*}} : vector<1x64xf32>
// CHECK:         vector.transfer_write {{.*}} : vector<1x64xf32>, tensor<?x64xf32>
// CHECK-NOT:   scf.for
// CHECK-NOT:   linalg.generic
// CHECK:       return
func.func @layer_norm_rows(%x: tensor<?x64xf32>, %r: tensor<?x64xf32>) -> tensor<?x64xf32> {
  %y = attune.layer_norm %x residual(%r) : (tensor<?x64xf32>, tensor<?x64xf32>) -> tensor<?x64xf32>
  return %y : tensor<?x64xf32>
}

// Rows shorter than 16 stay scalar loops (linalg).
// CHECK-LABEL: func @short_rows
// CHECK-NOT:   vector.
// CHECK:       linalg.generic
// CHECK:       return
func.func @short_rows(%x: tensor<?x8xf32>) -> tensor<?x8xf32> {
  %y = attune.layer_norm %x : (tensor<?x8xf32>) -> tensor<?x8xf32>
  return %y : tensor<?x8xf32>
}

// Rows longer than 64 go in chunks of 64 along the row, a reduction's
// partial sum carried through the chunk loop in a register; the fused row
// kernels each get their own chunk loop in the row loop.
// CHECK-LABEL: func @long_rows
// CHECK:       scf.for
// CHECK:         scf.for %{{.*}} = %c0 to %c128 step %c64 iter_args(%{{.*}} = %{{.*}}) -> (vector<1xf32>)
// CHECK:           vector.transfer_read {{.*}} : tensor<?x128xf32>, vector<1x64xf32>
// CHECK:           vector.reduction <add>, {{.*}} : vector<64xf32> into f32
// CHECK:         scf.for %{{.*}} = %c0 to %c128 step %c64 iter_args(%{{.*}} = %{{.*}}) -> (vector<1xf32>)
// CHECK:           vector.reduction <add>, {{.*}} : vector<64xf32> into f32
// CHECK:         math.rsqrt
// CHECK:         scf.for %{{.*}} = %c0 to %c128 step %c64 iter_args(%{{.*}} = %{{.*}}) -> (tensor<1x128xf32>)
// CHECK:           vector.transfer_write
// CHECK-NOT:   scf.for
// CHECK:       return
func.func @long_rows(%x: tensor<?x128xf32>) -> tensor<?x128xf32> {
  %y = attune.layer_norm %x : (tensor<?x128xf32>) -> tensor<?x128xf32>
  return %y : tensor<?x128xf32>
}

// A row sum that is also returned is not fused: the sum runs as its own row
// loop, and the element-wise kernel that reads it as another.
// CHECK-LABEL: func @row_sum_other_use
// CHECK:       scf.for
// CHECK:         vector.reduction <add>
// CHECK:       scf.for
// CHECK-NOT:     vector.reduction
// CHECK:         arith.subf
// CHECK:       return
func.func @row_sum_other_use(%x: tensor<?x64xf32>) -> (tensor<?x64xf32>, tensor<?xf32>) {
  %c0 = arith.constant 0 : index
  %zero = arith.constant 0.0 : f32
  %m = tensor.dim %x, %c0 : tensor<?x64xf32>
  %e = tensor.empty(%m) : tensor<?xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<?xf32>) -> tensor<?xf32>
  %s = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>],
                       iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<?x64xf32>) outs(%z : tensor<?xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %r = arith.addf %a, %acc : f32
    linalg.yield %r : f32
  } -> tensor<?xf32>
  %o = tensor.empty(%m) : tensor<?x64xf32>
  %y = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0, d1)>],
                       iterator_types = ["parallel", "parallel"]}
      ins(%x, %s : tensor<?x64xf32>, tensor<?xf32>) outs(%o : tensor<?x64xf32>) {
  ^bb0(%a: f32, %b: f32, %out: f32):
    %r = arith.subf %a, %b : f32
    linalg.yield %r : f32
  } -> tensor<?x64xf32>
  return %y, %s : tensor<?x64xf32>, tensor<?xf32>
}

// Tiled attention's query transpose (each query tile to [D, TQ] before its
// key loop, read from the queries in place): 16 x 16 blocks, each read as
// one vector, transposed by shuffles and written as one vector (not an
// element-wise copy, which LLVM turned into scatter stores).
// CHECK-LABEL: func @query_transpose
// CHECK:       vector.transfer_read {{.*}} : tensor<1x2x?x64xf32>, vector<16x16xf32>
// CHECK:       vector.shuffle
// CHECK:       vector.transfer_write {{.*}} : vector<16x16xf32>, tensor<64x64xf32>
// CHECK-NOT:   attune.transpose_tiles
func.func @query_transpose(%q: tensor<1x2x?x64xf32>, %k: tensor<1x2x?x64xf32>, %v: tensor<1x2x?x64xf32>) -> tensor<1x2x?x64xf32> {
  %o = attune.attention %q, %k, %v : (tensor<1x2x?x64xf32>, tensor<1x2x?x64xf32>, tensor<1x2x?x64xf32>) -> tensor<1x2x?x64xf32>
  return %o : tensor<1x2x?x64xf32>
}

// A projection that only attention heads read (slices of whole heads, split
// and transposed to [B, H, L, 64]) writes the heads directly: one GEMM per
// slice with the output [B, H, L, 64], its register tiles 4 rows of one head
// (vector<1x1x4x64>, 1 KiB in a row), and no transposing copies.
// CHECK-LABEL: func @qkv_heads
// CHECK:       %[[P:.*]] = linalg.transpose {{.*}} permutation = [0, 2, 1]
// CHECK-NOT:   linalg.transpose
// CHECK:       scf.for {{.*}} -> (tensor<?x2x?x64xf32>)
// CHECK:         vector.broadcast %{{.*}} : vector<1x1x1x64xf32> to vector<1x1x4x64xf32>
// CHECK:         vector.transfer_read %[[P]]
// CHECK:         vector.transfer_write %{{.*}} : vector<1x1x4x64xf32>, tensor<1x1x4x64xf32>
// CHECK-COUNT-2: vector.transfer_write %{{.*}} : vector<1x1x4x64xf32>, tensor<1x1x4x64xf32>
// CHECK-NOT:   linalg.transpose
// CHECK:       return %{{.*}}, %{{.*}}, %{{.*}} : tensor<?x2x?x64xf32>
func.func @qkv_heads(%x: tensor<?x?x64xf32>, %w: tensor<384x64xf32>, %b: tensor<384xf32>) -> (tensor<?x2x?x64xf32>, tensor<?x2x?x64xf32>, tensor<?x2x?x64xf32>) {
  %y = attune.linear %x, %w, %b : (tensor<?x?x64xf32>, tensor<384x64xf32>, tensor<384xf32>) -> tensor<?x?x384xf32>
  %q = attune.slice %y {axis = -1 : i64, offset = 0 : i64, size = 128 : i64} : (tensor<?x?x384xf32>) -> tensor<?x?x128xf32>
  %k = attune.slice %y {axis = -1 : i64, offset = 128 : i64, size = 128 : i64} : (tensor<?x?x384xf32>) -> tensor<?x?x128xf32>
  %v = attune.slice %y {axis = -1 : i64, offset = 256 : i64, size = 128 : i64} : (tensor<?x?x384xf32>) -> tensor<?x?x128xf32>
  %qh = attune.split_heads %q {num_heads = 2 : i64} : (tensor<?x?x128xf32>) -> tensor<?x2x?x64xf32>
  %kh = attune.split_heads %k {num_heads = 2 : i64} : (tensor<?x?x128xf32>) -> tensor<?x2x?x64xf32>
  %vh = attune.split_heads %v {num_heads = 2 : i64} : (tensor<?x?x128xf32>) -> tensor<?x2x?x64xf32>
  return %qh, %kh, %vh : tensor<?x2x?x64xf32>, tensor<?x2x?x64xf32>, tensor<?x2x?x64xf32>
}

// Negative case: the projection is also read whole, so it keeps its
// [B, L, N] output and the heads are copied out of it.
// CHECK-LABEL: func @qkv_other_use
// CHECK:       scf.for {{.*}} -> (tensor<?x?x4x64xf32>)
// CHECK:         vector.transfer_write %{{.*}} : vector<1x4x1x64xf32>, tensor<1x4x1x64xf32>
// CHECK:       scf.for {{.*}} -> (tensor<?x2x?x64xf32>)
// CHECK:       return
func.func @qkv_other_use(%x: tensor<?x?x64xf32>, %w: tensor<256x64xf32>) -> (tensor<?x2x?x64xf32>, tensor<?x?x256xf32>) {
  %y = attune.linear %x, %w : (tensor<?x?x64xf32>, tensor<256x64xf32>) -> tensor<?x?x256xf32>
  %q = attune.slice %y {axis = -1 : i64, offset = 0 : i64, size = 128 : i64} : (tensor<?x?x256xf32>) -> tensor<?x?x128xf32>
  %qh = attune.split_heads %q {num_heads = 2 : i64} : (tensor<?x?x128xf32>) -> tensor<?x2x?x64xf32>
  return %qh, %y : tensor<?x2x?x64xf32>, tensor<?x?x256xf32>
}

// A weight that is a static slice of a constant (the Q or K/V rows of a packed
// in_proj weight) is transposed and packed at compile time, like a whole
// constant, not by a linalg.transpose on every run. Packed rows 32..63 of W:
// P[0, 0, r] = W[32 + r, 0] = 64, 66, 68, ...
// CHECK-LABEL: func @sliced_weight
// CHECK-NOT:   linalg.transpose
// CHECK:       arith.constant dense_resource<weight_slice_32_0_t_p32> : tensor<1x2x32xf32>
// CHECK-NOT:   linalg.transpose
// CHECK:       return
// CHECK:       weight_slice_32_0_t_p32: "0x04000000000080420000844200008842
func.func @sliced_weight(%x: tensor<?x2xf32>) -> tensor<?x32xf32> {
  %w = arith.constant dense<[[0.0,1.0],[2.0,3.0],[4.0,5.0],[6.0,7.0],[8.0,9.0],[10.0,11.0],[12.0,13.0],[14.0,15.0],[16.0,17.0],[18.0,19.0],[20.0,21.0],[22.0,23.0],[24.0,25.0],[26.0,27.0],[28.0,29.0],[30.0,31.0],[32.0,33.0],[34.0,35.0],[36.0,37.0],[38.0,39.0],[40.0,41.0],[42.0,43.0],[44.0,45.0],[46.0,47.0],[48.0,49.0],[50.0,51.0],[52.0,53.0],[54.0,55.0],[56.0,57.0],[58.0,59.0],[60.0,61.0],[62.0,63.0],[64.0,65.0],[66.0,67.0],[68.0,69.0],[70.0,71.0],[72.0,73.0],[74.0,75.0],[76.0,77.0],[78.0,79.0],[80.0,81.0],[82.0,83.0],[84.0,85.0],[86.0,87.0],[88.0,89.0],[90.0,91.0],[92.0,93.0],[94.0,95.0],[96.0,97.0],[98.0,99.0],[100.0,101.0],[102.0,103.0],[104.0,105.0],[106.0,107.0],[108.0,109.0],[110.0,111.0],[112.0,113.0],[114.0,115.0],[116.0,117.0],[118.0,119.0],[120.0,121.0],[122.0,123.0],[124.0,125.0],[126.0,127.0]]> : tensor<64x2xf32>
  %s = tensor.extract_slice %w[32, 0] [32, 2] [1, 1] : tensor<64x2xf32> to tensor<32x2xf32>
  %y = attune.linear %x, %s : (tensor<?x2xf32>, tensor<32x2xf32>) -> tensor<?x32xf32>
  return %y : tensor<?x32xf32>
}

