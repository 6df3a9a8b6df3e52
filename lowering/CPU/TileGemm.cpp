//===- TileGemm.cpp - tile and vectorize the linear layers' GEMMs ---------===//

#include "lowering/AttuneToLinalg/KernelBuilder.h"
#include "lowering/Passes.h"
#include "passes/Passes.h"

#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/MemRef/Transforms/Transforms.h"
#include "mlir/Dialect/SCF/Transforms/TileUsingInterface.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Transform/IR/TransformOps.h"
#include "mlir/Dialect/Transform/Transforms/TransformInterpreterUtils.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "mlir/Parser/Parser.h"

#include <cstring>
#include "mlir/Dialect/Math/Transforms/Passes.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::attune {
#define GEN_PASS_DEF_ATTUNETILEGEMM
#include "lowering/Passes.h.inc"
} // namespace mlir::attune

using namespace mlir;

using namespace mlir::attune;

// The GEMMs run on packed weights (see packGemms below): loops (b, m, nb, r,
// k) over C[b, m, nb*W + r] += A[b, m, k] * P[nb, k, r] (C stored as
// [B, M, N/W, W], or panel-major [B, N/W, M, W] where only attention heads
// or an activation epilogue read it: packHeadsGemms, packGemms), panels of W = 64
// columns where N allows (marks attune.gemm_wide / attune.epilogue_wide),
// else W = 32.
// Register tiles of ROWS x W: 4 x 64 (four zmm registers per row, 8 loads
// per 16 FMAs) or 8 x 32 (two per row, 10 loads per 16 FMAs; ~15 % slower
// on an Ice Lake core); with AVX2 each zmm is two ymm. Cache tiles of
// 128 rows x one panel (W columns) x KTILE: 128 for W = 64 and 256 for
// W = 32, so that one panel's k tile (a slice, 32 KiB) stays in L1. The
// loops run rows of 128, panels, k tiles: the slice after the current one
// is the next in memory, which attune-prefetch-panels fetches while the
// current one runs.
// The cache tiles: serial, or inside an scf.forall over tiles of 128 rows x
// 128 columns (rows outer: OpenMP's guided schedule, like a static one,
// gives each thread a first share of whole row blocks where there are enough
// of them, so that a block of A stays in
// L2 over all of N as in the serial nest; with one row block, a share of
// the columns; a forall tile is one row block, so only its panels loop
// inside it). Measured at 2 threads, best of 3-6 interleaved rounds,
// against the forall over 128-column tiles alone: linear 768 -> 3072 at
// L = 200 4.0 vs 5.1 ms, L = 300 6.1 vs 7.8 (5.0 in one round), L = 2048
// 33.9 vs 38.0, L = 128 and 512 equal; encoder layer 8 x 128 56.3 vs 59.4
// (the column tiles re-read all of A for every 128 columns). Both
// define %t1 (the tile) and %l1#0 (the outermost scf.for of the tile
// loops).
static constexpr const char *kSerialCacheTiles = R"mlir(
      %t1, %l1:4 = transform.structured.tile_using_for %gemm tile_sizes [1, 128, 1, 0, KTILE]
          : (!transform.any_op) -> (!transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op)
)mlir";
static constexpr const char *kParallelCacheTiles = R"mlir(
      %t0, %forall = transform.structured.tile_using_forall %gemm tile_sizes [1, 128, FORALL_PANELS, 0, 0]
          : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
      transform.apply_patterns to %forall {
        transform.apply_patterns.scf.for_loop_canonicalization
        transform.apply_patterns.canonicalization
      } : !transform.any_op
      %t1, %l1:2 = transform.structured.tile_using_for %t0 tile_sizes [0, 0, 1, 0, KTILE]
          : (!transform.any_op) -> (!transform.any_op, !transform.any_op, !transform.any_op)
)mlir";

// Register tiles of the cache tile %t1 inside the loop nest OUTER, and its
// vectorization (expanded as REGISTER_TILES(OUTER)).
static constexpr const char *kRegisterTiles = R"mlir(
      // Panels outside rows: one panel of B (KTILE x W, contiguous, 32 KiB)
      // stays in L1 while every ROWS-row tile of A streams past it.
      %t2, %l2:3 = transform.structured.tile_using_for %t1 tile_sizes [1, ROWS, 1, 0, 0] interchange = [0, 2, 1, 3, 4]
          : (!transform.any_op) -> (!transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op)
      // Full ROWS-row tiles, and a remainder loop for the last rows.
      %m = transform.cast %l2#2 : !transform.any_op to !transform.op<"scf.for">
      %main, %rest = transform.loop.peel %m : (!transform.op<"scf.for">) -> (!transform.any_op, !transform.any_op)
      // N is a multiple of W (the lowering marks only such GEMMs): with the
      // loop bounds known, every tile in the main loop is static.
      transform.apply_patterns to OUTER {
        transform.apply_patterns.scf.for_loop_canonicalization
        transform.apply_patterns.canonicalization
      } : !transform.any_op
      // A ROWS x W register tile per k step.
      %full = transform.structured.match ops{["linalg.generic"]} in %main
          : (!transform.any_op) -> !transform.any_op
      %fk, %fkl = transform.structured.tile_using_for %full tile_sizes [0, 0, 0, 0, 1]
          : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
      // For attune-prefetch-panels.
      transform.annotate %fkl "attune.panel_k_loop" : !transform.any_op
      transform.structured.vectorize %fk : !transform.any_op
      // The last rows (fewer than ROWS; all of them for a decoding step's
      // single row): one row at a time, the k loop inside the row loop, so
      // that the row's W accumulators stay in registers across k (with
      // the rows inside, each k step loaded and stored them).
      %tail = transform.structured.match ops{["linalg.generic"]} in %rest
          : (!transform.any_op) -> !transform.any_op
      %row, %rowl:2 = transform.structured.tile_using_for %tail tile_sizes [0, 1, 0, 0, 1]
          : (!transform.any_op) -> (!transform.any_op, !transform.any_op, !transform.any_op)
      transform.structured.vectorize %row : !transform.any_op
)mlir";

// A GEMM with an element-wise epilogue: the epilogue is tiled by the cache
// tiles' rows and columns and the GEMM fused into that loop nest, so each
// 128 x W output tile gets its epilogue while it is still in cache.
// EPILOGUE_TILES defines %te (the epilogue tile) and %t1full (the fused GEMM
// tile, all of K); EPILOGUE_OUTER names the outermost loop.
// The GEMM's init (%init, marked attune.init_tile by fuseGemmInits) follows
// it into the same loops: each output tile is initialized right before its
// k loops. Resolving result dims first folds the extents the GEMM's tiling
// asked of the init (tensor.dim) to its init's, so that the only use left
// in the loop is the slice to fuse (fuse_into_containing_op would clone the
// whole init into the loop for a tensor.dim).
static constexpr const char *kSerialEpilogueTiles = R"mlir(
      %te, %le:3 = transform.structured.tile_using_for %epi tile_sizes [1, 128, 1, 0]
          : (!transform.any_op) -> (!transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op)
      %t1full, %loop = transform.structured.fuse_into_containing_op %gemm into %le#2
          : (!transform.any_op, !transform.any_op) -> (!transform.any_op, !transform.any_op)
      transform.apply_patterns to %le#0 {
        transform.apply_patterns.memref.resolve_ranked_shaped_type_result_dims
      } : !transform.any_op
      %i1, %iloop = transform.structured.fuse_into_containing_op %init into %le#2
          : (!transform.any_op, !transform.any_op) -> (!transform.any_op, !transform.any_op)
)mlir";
static constexpr const char *kParallelEpilogueTiles = R"mlir(
      %te0, %forall = transform.structured.tile_using_forall %epi tile_sizes [1, 128, FORALL_PANELS, 0]
          : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
      %g0, %fa = transform.structured.fuse_into_containing_op %gemm into %forall
          : (!transform.any_op, !transform.any_op) -> (!transform.any_op, !transform.any_op)
      transform.apply_patterns to %forall {
        transform.apply_patterns.memref.resolve_ranked_shaped_type_result_dims
      } : !transform.any_op
      %i0, %fi = transform.structured.fuse_into_containing_op %init into %forall
          : (!transform.any_op, !transform.any_op) -> (!transform.any_op, !transform.any_op)
      %te, %le = transform.structured.tile_using_for %te0 tile_sizes [0, 0, 1, 0]
          : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
      %t1full, %loop = transform.structured.fuse_into_containing_op %g0 into %le
          : (!transform.any_op, !transform.any_op) -> (!transform.any_op, !transform.any_op)
      transform.apply_patterns to %le {
        transform.apply_patterns.memref.resolve_ranked_shaped_type_result_dims
      } : !transform.any_op
      %i1, %iloop = transform.structured.fuse_into_containing_op %i0 into %le
          : (!transform.any_op, !transform.any_op) -> (!transform.any_op, !transform.any_op)
)mlir";

// The GEMMs of one panel width: with an epilogue, then alone. Expanded once
// per width (SUFFIX names the handles apart).
static constexpr const char *kGemmSchedule = R"mlir(
    %epis_SUFFIX = transform.structured.match ops{["linalg.generic"]} attributes{EPILOGUE_ATTR} in %root
        : (!transform.any_op) -> !transform.any_op
    transform.foreach %epis_SUFFIX : !transform.any_op {
    ^bb0(%epi: !transform.any_op):
      %gemm = transform.get_producer_of_operand %epi[0]
          : (!transform.any_op) -> !transform.any_op
      %init = transform.get_producer_of_operand %gemm[2]
          : (!transform.any_op) -> !transform.any_op
      EPILOGUE_TILES
      %t1, %lk = transform.structured.tile_using_for %t1full tile_sizes [0, 0, 0, 0, KTILE]
          : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
      REGISTER_TILES(EPILOGUE_OUTER)
      // The epilogue: W columns of one row at a time.
      %er, %erl:3 = transform.structured.tile_using_for %te tile_sizes [1, 1, 1, 0]
          : (!transform.any_op) -> (!transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op)
      transform.structured.vectorize %er : !transform.any_op
    }
    %mm_SUFFIX = transform.structured.match ops{["linalg.generic"]} attributes{GEMM_ATTR} in %root
        : (!transform.any_op) -> !transform.any_op
    transform.foreach %mm_SUFFIX : !transform.any_op {
    ^bb0(%gemm: !transform.any_op):
      CACHE_TILES
      REGISTER_TILES(%l1#0)
    }
    // GEMMs already in cache tiles with their init fused (fuseGemmInits):
    // k tiles and register tiles.
    %cg_SUFFIX = transform.structured.match ops{["linalg.generic"]} attributes{CACHE_TILE_ATTR} in %root
        : (!transform.any_op) -> !transform.any_op
    transform.foreach %cg_SUFFIX : !transform.any_op {
    ^bb0(%t1full: !transform.any_op):
      %t1, %lk = transform.structured.tile_using_for %t1full tile_sizes [0, 0, 0, 0, KTILE]
          : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
      REGISTER_TILES(%lk)
    }
)mlir";

static constexpr const char *kSchedule = R"mlir(
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
GEMMS_64
GEMMS_32
    // Tile contractions of attention (static [M, K] x [K, N]): register
    // tiles directly, 4 x 64 where they divide M and N (8 loads per 16
    // FMAs), else 8 x 32 (10 per 16; ~15 % slower on an Ice Lake core).
    %tw = transform.structured.match ops{["linalg.generic"]} attributes{attune.tile_gemm_wide} in %root
        : (!transform.any_op) -> !transform.any_op
    transform.foreach %tw : !transform.any_op {
    ^bb0(%g: !transform.any_op):
      %rt, %rl:3 = transform.structured.tile_using_for %g tile_sizes [4, 64, 1]
          : (!transform.any_op) -> (!transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op)
      transform.structured.vectorize %rt : !transform.any_op
    }
    %tg = transform.structured.match ops{["linalg.generic"]} attributes{attune.tile_gemm} in %root
        : (!transform.any_op) -> !transform.any_op
    transform.foreach %tg : !transform.any_op {
    ^bb0(%g: !transform.any_op):
      %rt, %rl:3 = transform.structured.tile_using_for %g tile_sizes [8, 32, 1]
          : (!transform.any_op) -> (!transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op)
      transform.structured.vectorize %rt : !transform.any_op
    }
    // Static element-wise and row-reduction tile ops: one row at a time.
    %rows = transform.structured.match ops{["linalg.generic"]} attributes{attune.vectorize} in %root
        : (!transform.any_op) -> !transform.any_op
    transform.foreach %rows : !transform.any_op {
    ^bb0(%g: !transform.any_op):
      %row, %rowl = transform.structured.tile_using_for %g tile_sizes [1, 0]
          : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
      transform.structured.vectorize %row : !transform.any_op
    }
    // The fused inits of GEMM cache tiles: one panel row at a time.
    %inits = transform.structured.match attributes{attune.init_tile} in %root
        : (!transform.any_op) -> !transform.any_op
    transform.foreach %inits : !transform.any_op {
    ^bb0(%g: !transform.any_op):
      %ir, %irl:3 = transform.structured.tile_using_for %g tile_sizes [1, 1, 1, 0]
          : (!transform.any_op) -> (!transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op)
      transform.structured.vectorize %ir : !transform.any_op
    }
    %flat = transform.structured.match attributes{attune.vectorize_1d} in %root
        : (!transform.any_op) -> !transform.any_op
    transform.foreach %flat : !transform.any_op {
    ^bb0(%g: !transform.any_op):
      transform.structured.vectorize %g : !transform.any_op
    }
    %funcs = transform.structured.match ops{["func.func"]} in %root
        : (!transform.any_op) -> !transform.any_op
    transform.foreach %funcs : !transform.any_op {
    ^bb0(%func: !transform.any_op):
      transform.apply_patterns to %func {
        transform.apply_patterns.vector.reduction_to_contract
        transform.apply_patterns.vector.transfer_permutation_patterns
        transform.apply_patterns.tensor.fold_tensor_subset_ops_into_vector_transfers
        transform.apply_patterns.canonicalization
      } : !transform.any_op
      transform.apply_cse to %func : !transform.any_op
      %loops = transform.structured.match ops{["scf.for"]} in %func
          : (!transform.any_op) -> !transform.any_op
      transform.apply_licm to %loops : !transform.any_op
      // The accumulator tile stays in registers across the k loop.
      transform.loop.hoist_loop_invariant_subsets %loops : !transform.any_op
      // Accumulators that start from a fused zero fill or rescaling: the
      // first read folds to the written vector, the write to the final one.
      transform.apply_patterns to %func {
        transform.apply_patterns.canonicalization
      } : !transform.any_op
      // No canonicalization here: it would fold the FMA chain back into
      // element-wise code (shared/TOOLCHAIN.md §2).
      transform.apply_patterns to %func {
        transform.apply_patterns.vector.lower_contraction lowering_strategy = "outerproduct"
        transform.apply_patterns.vector.lower_outerproduct
      } : !transform.any_op
      transform.apply_patterns to %func {
        transform.apply_patterns.vector.lower_multi_reduction lowering_strategy = "innerreduction"
      } : !transform.any_op
      // The 16 x 16 key-tile transposes as shuffles.
      transform.apply_patterns to %func {
        transform.apply_patterns.vector.lower_transpose lowering_strategy = "shuffle_16x16"
      } : !transform.any_op
    }
    transform.yield
  }
}
)mlir";

//===----------------------------------------------------------------------===//
// Packed weights
//===----------------------------------------------------------------------===//

/// `v` [d0, ..., N] as [d0, ..., N/W, W] (a reshape, no copy).
static Value splitColumns(OpBuilder &b, Location loc, Value v, int64_t width) {
  auto type = cast<RankedTensorType>(v.getType());
  int64_t rank = type.getRank();
  SmallVector<int64_t> shape(type.getShape());
  shape.back() /= width;
  shape.push_back(width);
  SmallVector<ReassociationIndices> groups;
  for (int64_t d = 0; d + 1 < rank; ++d)
    groups.push_back({d});
  groups.push_back({rank - 1, rank});
  SmallVector<OpFoldResult> sizes;
  for (int64_t d = 0; d < rank + 1; ++d)
    sizes.push_back(ShapedType::isDynamic(shape[d])
                        ? OpFoldResult(tensor::DimOp::create(b, loc, v, d).getResult())
                        : OpFoldResult(b.getIndexAttr(shape[d])));
  return tensor::ExpandShapeOp::create(
      b, loc, RankedTensorType::get(shape, type.getElementType()), v, groups,
      sizes);
}

/// [..., N/W, W] back to [..., N].
static Value joinColumns(OpBuilder &b, Location loc, Value v) {
  int64_t rank = cast<RankedTensorType>(v.getType()).getRank();
  SmallVector<ReassociationIndices> groups;
  for (int64_t d = 0; d + 2 < rank; ++d)
    groups.push_back({d});
  groups.push_back({rank - 2, rank - 1});
  return tensor::CollapseShapeOp::create(b, loc, v, groups);
}

/// B [K, N] as W-column panels P [N/W, K, W], P[nb, k, r] = B[k, W nb + r]:
/// a new constant for constant weights, else a transpose of the reshaped B.
static Value packPanels(OpBuilder &b, Location loc, Value w, int64_t width) {
  auto type = cast<RankedTensorType>(w.getType());
  int64_t k = type.getDimSize(0), n = type.getDimSize(1);
  auto packedType =
      RankedTensorType::get({n / width, k, width}, type.getElementType());
  if (std::optional<std::vector<char>> bytes = attune::constantBytes(w);
      bytes && type.getElementType().isF32()) {
    const float *src = reinterpret_cast<const float *>(bytes->data());
    std::vector<float> dst(k * n);
    for (int64_t nb = 0; nb < n / width; ++nb)
      for (int64_t kk = 0; kk < k; ++kk)
        for (int64_t r = 0; r < width; ++r)
          dst[(nb * k + kk) * width + r] = src[kk * n + nb * width + r];
    auto attr = DenseResourceElementsAttr::get(
        packedType,
        attune::constantKey(w, "weight") + "_p" + std::to_string(width),
        HeapAsmResourceBlob::allocateAndCopyInferAlign(ArrayRef<float>(dst)));
    return arith::ConstantOp::create(b, loc, packedType, attr);
  }
  Value init = tensor::EmptyOp::create(b, loc, packedType.getShape(),
                                       packedType.getElementType());
  // B = W^T computed at run time: one transpose of W [N, K] as [N/W, W, K].
  if (auto t = w.getDefiningOp<linalg::TransposeOp>();
      t && t.getPermutation() == ArrayRef<int64_t>{1, 0}) {
    Value wn = t.getInput();
    Value split = tensor::ExpandShapeOp::create(
        b, loc,
        RankedTensorType::get({n / width, width, k}, type.getElementType()),
        wn, ArrayRef<ReassociationIndices>{{0, 1}, {2}});
    return linalg::TransposeOp::create(b, loc, split, init,
                                       ArrayRef<int64_t>{0, 2, 1})
        ->getResult(0);
  }
  Value split = splitColumns(b, loc, w, width); // [K, N/W, W]
  return linalg::TransposeOp::create(b, loc, split, init,
                                     ArrayRef<int64_t>{1, 0, 2})
      ->getResult(0);
}

/// The bias of `op` if it is the bias broadcast of a linear layer,
/// out[b, m, n] = bias[n] over [B, M, N] with a static [N] bias; else null.
static Value broadcastBias(Operation *op) {
  auto bcast = dyn_cast_or_null<linalg::GenericOp>(op);
  if (!bcast || bcast.getNumDpsInputs() != 1 || bcast.getNumDpsInits() != 1 ||
      bcast.getNumLoops() != 3)
    return nullptr;
  MLIRContext *ctx = op->getContext();
  Value bias = bcast.getDpsInputs()[0];
  auto biasType = dyn_cast<RankedTensorType>(bias.getType());
  auto yield = cast<linalg::YieldOp>(bcast.getBody()->getTerminator());
  if (!biasType || biasType.getRank() != 1 || biasType.isDynamicDim(0) ||
      bcast.getIndexingMapsArray()[0] !=
          AffineMap::get(3, 0, getAffineDimExpr(2, ctx)) ||
      !bcast.getIndexingMapsArray()[1].isIdentity() ||
      yield.getValues().size() != 1 ||
      yield.getValues()[0] != bcast.getBody()->getArgument(0))
    return nullptr;
  return bias;
}

/// Columns [offset, offset + size) of `bias` [N] broadcast into `empty`, a
/// rank-4 tensor with panels of `width` columns at dim `panelDim` and the
/// columns of a panel at dim 3.
static linalg::GenericOp panelBias(OpBuilder &b, Location loc, Value bias,
                                   int64_t offset, int64_t size, int64_t width,
                                   Value empty, unsigned panelDim) {
  MLIRContext *ctx = b.getContext();
  auto biasType = cast<RankedTensorType>(bias.getType());
  Value part = bias;
  if (offset != 0 || size != biasType.getDimSize(0))
    part = tensor::ExtractSliceOp::create(
        b, loc, bias, ArrayRef<OpFoldResult>{b.getIndexAttr(offset)},
        ArrayRef<OpFoldResult>{b.getIndexAttr(size)},
        ArrayRef<OpFoldResult>{b.getIndexAttr(1)});
  Value bias2 = tensor::ExpandShapeOp::create(
      b, loc,
      RankedTensorType::get({size / width, width}, biasType.getElementType()),
      part, ArrayRef<ReassociationIndices>{{0, 1}});
  AffineExpr panel = getAffineDimExpr(panelDim, ctx),
             column = getAffineDimExpr(3, ctx);
  return linalg::GenericOp::create(
      b, loc, TypeRange{empty.getType()}, ValueRange{bias2}, ValueRange{empty},
      ArrayRef<AffineMap>{AffineMap::get(4, 0, {panel, column}, ctx),
                          b.getMultiDimIdentityMap(4)},
      SmallVector<utils::IteratorType>(4, utils::IteratorType::parallel),
      [](OpBuilder &nb, Location l, ValueRange args) {
        linalg::YieldOp::create(nb, l, args[0]);
      });
}

/// C += A P on packed weights, body to be filled in: loops (b, m, nb, r, k)
/// over A [B, M, K], panels P [N/W, K, W] and `init`, C [B, M, N/W, W], or
/// [B, N/W, M, W] with `panelMajor`.
static linalg::GenericOp createPackedGemm(OpBuilder &b, Location loc, Value a,
                                          Value panels, Value init,
                                          bool panelMajor) {
  MLIRContext *ctx = b.getContext();
  AffineExpr d0, d1, d2, d3, d4;
  bindDims(ctx, d0, d1, d2, d3, d4);
  AffineMap out = panelMajor ? AffineMap::get(5, 0, {d0, d2, d1, d3}, ctx)
                             : AffineMap::get(5, 0, {d0, d1, d2, d3}, ctx);
  using Iter = utils::IteratorType;
  return linalg::GenericOp::create(
      b, loc, TypeRange{init.getType()}, ValueRange{a, panels},
      ValueRange{init},
      ArrayRef<AffineMap>{AffineMap::get(5, 0, {d0, d1, d4}, ctx),
                          AffineMap::get(5, 0, {d2, d4, d3}, ctx), out},
      ArrayRef<Iter>{Iter::parallel, Iter::parallel, Iter::parallel,
                     Iter::parallel, Iter::reduction});
}

static Value headsInit(OpBuilder &b, Location loc, Value init, Value empty,
                       ArrayRef<OpFoldResult> offsets,
                       ArrayRef<OpFoldResult> extents, int64_t offset,
                       int64_t size, int64_t width);

/// Rewrites each marked [B, M, K] x [K, N] GEMM (and its activation
/// epilogue) to run on packed weights: C[b, m, nb, r] += A[b, m, k] *
/// P[nb, k, r] over the output viewed as [B, M, N/W, W]. Each register
/// tile then reads one contiguous W-float row of a panel per k step,
/// instead of one row of B 4N bytes from the previous one (a new page
/// every step for N >= 1024).
static void packGemms(ModuleOp module) {
  SmallVector<linalg::GenericOp> gemms;
  module.walk([&](linalg::GenericOp op) {
    if (op->hasAttr(attune::kGemmAttr))
      gemms.push_back(op);
    else if (op->hasAttr(attune::kEpilogueAttr))
      if (auto g = op.getDpsInputs()[0].getDefiningOp<linalg::GenericOp>())
        gemms.push_back(g);
  });
  MLIRContext *ctx = module.getContext();
  for (linalg::GenericOp gemm : gemms) {
    OpBuilder b(gemm);
    Location loc = gemm.getLoc();
    Value a = gemm.getDpsInputs()[0], w = gemm.getDpsInputs()[1];
    Value init = gemm.getDpsInits()[0];
    int64_t n = cast<RankedTensorType>(w.getType()).getDimSize(1);
    int64_t width = n % 64 == 0 ? 64 : 32;
    StringRef gemmMark = width == 64 ? kGemmWideAttr : attune::kGemmAttr;
    StringRef epilogueMark =
        width == 64 ? kEpilogueWideAttr : attune::kEpilogueAttr;
    Value panels = packPanels(b, loc, w, width);
    linalg::GenericOp epi;
    for (Operation *user : gemm->getUsers())
      if (user->hasAttr(attune::kEpilogueAttr))
        epi = cast<linalg::GenericOp>(user);
    // A GEMM whose only reader is its epilogue writes its (intermediate)
    // output panel by panel, [B, N/W, M, W] (W = 64): a register tile's
    // 4 x 64 accumulators are then 1 KiB in a row, where 4 rows 4N bytes
    // apart (N = 3072: 12 KiB, the same L1 sets) conflicted with each
    // other and with the weight slice between k tiles.
    bool panelMajor =
        epi && width == 64 && llvm::all_of(gemm->getUsers(), [&](Operation *u) {
          return u == epi || isa<tensor::DimOp>(u);
        });
    Value init4;
    if (panelMajor) {
      SmallVector<OpFoldResult> sizes = tensor::getMixedSizes(b, loc, init);
      Value empty = tensor::EmptyOp::create(
          b, loc,
          {sizes[0], b.getIndexAttr(n / width), sizes[1],
           b.getIndexAttr(width)},
          cast<RankedTensorType>(init.getType()).getElementType());
      SmallVector<OpFoldResult> zeros(2, b.getIndexAttr(0));
      init4 = headsInit(b, loc, init, empty, zeros, {sizes[0], sizes[1]}, 0, n,
                        width);
    } else {
      init4 = splitColumns(b, loc, init, width);
    }
    linalg::GenericOp packed =
        createPackedGemm(b, loc, a, panels, init4, panelMajor);
    packed.getRegion().takeBody(gemm.getRegion());
    if (gemm->hasAttr(attune::kGemmAttr))
      packed->setAttr(gemmMark, UnitAttr::get(ctx));
    // The epilogue follows the GEMM into the [B, M, N/W, W] view.
    if (epi) {
      b.setInsertionPoint(epi);
      Value out4 = splitColumns(b, loc, epi.getDpsInits()[0], width);
      AffineMap id = b.getMultiDimIdentityMap(4);
      AffineMap in = panelMajor ? AffineMap::getPermutationMap(
                                      ArrayRef<unsigned>{0, 2, 1, 3}, ctx)
                                : id;
      auto e4 = linalg::GenericOp::create(
          b, epi.getLoc(), TypeRange{out4.getType()},
          ValueRange{packed.getResult(0)}, ValueRange{out4},
          ArrayRef<AffineMap>{in, id},
          SmallVector<utils::IteratorType>(4, utils::IteratorType::parallel));
      e4.getRegion().takeBody(epi.getRegion());
      e4->setAttr(epilogueMark, UnitAttr::get(ctx));
      b.setInsertionPointAfter(epi);
      epi.getResult(0).replaceAllUsesWith(joinColumns(b, loc, e4.getResult(0)));
      epi->erase();
    }
    // What else reads the GEMM (extents of its consumers' outputs).
    b.setInsertionPointAfter(gemm);
    if (panelMajor) {
      for (Operation *user : llvm::make_early_inc_range(gemm->getUsers()))
        cast<tensor::DimOp>(user).getSourceMutable().assign(init);
    } else {
      gemm.getResult(0).replaceAllUsesWith(
          joinColumns(b, loc, packed.getResult(0)));
    }
    gemm->erase();
    if (Operation *old = init.getDefiningOp(); old && isOpTriviallyDead(old))
      old->erase();
  }
}

/// The one user of `op`'s result other than tensor.dim ops, if there is
/// exactly one.
static Operation *onlyUser(Operation *op) {
  Operation *only = nullptr;
  for (Operation *user : op->getResult(0).getUsers()) {
    if (isa<tensor::DimOp>(user))
      continue;
    if (only)
      return nullptr;
    only = user;
  }
  return only;
}

/// Replaces each tensor.dim of `v` by the dim of `by` that `dims` maps its
/// index to (an extent, or a constant where `dims` gives -1 - extent).
static void replaceDims(RewriterBase &b, Value v, Value by,
                        ArrayRef<int64_t> dims) {
  for (Operation *user : llvm::make_early_inc_range(v.getUsers())) {
    auto dim = dyn_cast<tensor::DimOp>(user);
    if (!dim)
      continue;
    std::optional<int64_t> index = dim.getConstantIndex();
    if (!index || *index < 0 || *index >= (int64_t)dims.size())
      continue;
    b.setInsertionPoint(dim);
    int64_t d = dims[*index];
    if (d < 0)
      b.replaceOpWithNewOp<arith::ConstantIndexOp>(dim, -1 - d);
    else
      b.replaceOpWithNewOp<tensor::DimOp>(dim, by, d);
  }
}

/// The transposes through which the attention heads read `gemm`'s output
/// C [B, M, N], if that is all that reads it: each use an extract_slice of
/// `width`-aligned columns, reshaped to [B, M, S/W, W] and transposed to
/// [B, S/W, M, W] (split_heads with head size W); else none.
static SmallVector<linalg::TransposeOp> headUses(linalg::GenericOp gemm,
                                                 int64_t width) {
  SmallVector<linalg::TransposeOp> heads;
  for (Operation *user : gemm.getResult(0).getUsers()) {
    if (isa<tensor::DimOp>(user))
      continue;
    auto slice = dyn_cast<tensor::ExtractSliceOp>(user);
    if (!slice || slice.getSourceType().getRank() != 3 ||
        slice.getResultType().getRank() != 3 || !slice.hasUnitStride())
      return {};
    std::optional<int64_t> offset =
        getConstantIntValue(slice.getMixedOffsets()[2]);
    std::optional<int64_t> size = getConstantIntValue(slice.getMixedSizes()[2]);
    if (!offset || !size || *offset % width || *size % width || *size == 0)
      return {};
    auto expand = dyn_cast_or_null<tensor::ExpandShapeOp>(onlyUser(slice));
    if (!expand || expand.getReassociationIndices() !=
                       SmallVector<ReassociationIndices>{{0}, {1}, {2, 3}} ||
        expand.getResultType().getDimSize(3) != width)
      return {};
    auto transpose = dyn_cast_or_null<linalg::TransposeOp>(onlyUser(expand));
    if (!transpose || transpose.getInput() != expand.getResult() ||
        transpose.getPermutation() != ArrayRef<int64_t>{0, 2, 1, 3})
      return {};
    heads.push_back(transpose);
  }
  return heads;
}

/// The slice `offsets`/`extents` of `init` [B, M, N] (a zero fill, the bias
/// broadcast, or any tensor) at columns [offset, offset + size), as heads
/// [B, size/W, M, W] written into `empty`: a fill or a bias broadcast on
/// that layout (marked for fuseGemmInits), else a transposing copy.
static Value headsInit(OpBuilder &b, Location loc, Value init, Value empty,
                       ArrayRef<OpFoldResult> offsets,
                       ArrayRef<OpFoldResult> extents, int64_t offset,
                       int64_t size, int64_t width) {
  MLIRContext *ctx = b.getContext();
  Operation *def = init.getDefiningOp();
  if (auto fill = dyn_cast_or_null<linalg::FillOp>(def)) {
    auto f = linalg::FillOp::create(b, loc, fill.getInputs()[0], empty);
    f->setAttr(kHeadsInitAttr, UnitAttr::get(ctx));
    return f.getResult(0);
  }
  if (Value bias = broadcastBias(def)) {
    linalg::GenericOp g =
        panelBias(b, loc, bias, offset, size, width, empty, /*panelDim=*/1);
    g->setAttr(kHeadsInitAttr, UnitAttr::get(ctx));
    return g.getResult(0);
  }
  Value part = tensor::ExtractSliceOp::create(
      b, loc, init,
      ArrayRef<OpFoldResult>{offsets[0], offsets[1], b.getIndexAttr(offset)},
      ArrayRef<OpFoldResult>{extents[0], extents[1], b.getIndexAttr(size)},
      SmallVector<OpFoldResult>(3, b.getIndexAttr(1)));
  return linalg::TransposeOp::create(b, loc, splitColumns(b, loc, part, width),
                                     empty, ArrayRef<int64_t>{0, 2, 1, 3})
      ->getResult(0);
}

/// GEMMs whose output only attention heads read (the packed Q/K/V
/// projection: slices, split into heads of 64 and transposed to
/// [B, H, L, 64]) write the heads directly: one GEMM per slice on packed
/// weights as in packGemms, with the output [B, S/W, M, W] (W = 64, the head
/// size) instead of [B, M, S/W, W]. The transposing copies go, and a
/// register tile's 4 x 64 accumulators are 1 KiB in a row instead of 4 rows
/// 4N bytes apart. One GEMM per slice rather than one over all of N, of
/// which the heads would be strided slices: padding a dynamic length to
/// whole tiles (attention) yields either the tensor or a padded copy from
/// an scf.if, which bufferizes to a fully dynamic layout where the two
/// differ, and the attention kernel's reads of it then went element by
/// element (3x slower layer). Runs first: the row kernels would take the
/// transposes.
static void packHeadsGemms(ModuleOp module) {
  constexpr int64_t width = 64;
  SmallVector<std::pair<linalg::GenericOp, SmallVector<linalg::TransposeOp>>>
      work;
  module.walk([&](linalg::GenericOp op) {
    if (!op->hasAttr(attune::kGemmAttr) || op.getNumLoops() != 4)
      return;
    auto w = cast<RankedTensorType>(op.getDpsInputs()[1].getType());
    if (w.getRank() != 2 || w.isDynamicDim(1) || w.getDimSize(1) % width)
      return;
    if (SmallVector<linalg::TransposeOp> heads = headUses(op, width);
        !heads.empty())
      work.push_back({op, std::move(heads)});
  });
  MLIRContext *ctx = module.getContext();
  IRRewriter b(ctx);
  for (auto &[gemm, heads] : work) {
    b.setInsertionPoint(gemm);
    Location loc = gemm.getLoc();
    Value a = gemm.getDpsInputs()[0], w = gemm.getDpsInputs()[1];
    Value init = gemm.getDpsInits()[0];
    auto type = cast<RankedTensorType>(init.getType());
    int64_t k = cast<RankedTensorType>(w.getType()).getDimSize(0);
    // A destination-style op's extents are its init's.
    for (Operation *user : llvm::make_early_inc_range(gemm->getUsers()))
      if (auto dim = dyn_cast<tensor::DimOp>(user))
        b.modifyOpInPlace(dim, [&] { dim.getSourceMutable().assign(init); });
    Value panels = packPanels(b, loc, w, width);
    for (linalg::TransposeOp t : heads) {
      auto expand = t.getInput().getDefiningOp<tensor::ExpandShapeOp>();
      auto slice = expand.getSrc().getDefiningOp<tensor::ExtractSliceOp>();
      int64_t offset = *getConstantIntValue(slice.getMixedOffsets()[2]);
      int64_t size = *getConstantIntValue(slice.getMixedSizes()[2]);
      // Rows [m0, m0 + ms) of batch entries [b0, b0 + bs): the GEMM's
      // output is the heads tensor itself (a slice of a larger one would
      // not have its layout).
      SmallVector<OpFoldResult> offsets = slice.getMixedOffsets();
      SmallVector<OpFoldResult> extents = slice.getMixedSizes();
      b.setInsertionPoint(slice);
      Value rows = tensor::ExtractSliceOp::create(
          b, loc, a,
          ArrayRef<OpFoldResult>{offsets[0], offsets[1], b.getIndexAttr(0)},
          ArrayRef<OpFoldResult>{extents[0], extents[1], b.getIndexAttr(k)},
          SmallVector<OpFoldResult>(3, b.getIndexAttr(1)));
      Value part = tensor::ExtractSliceOp::create(
          b, loc, panels,
          ArrayRef<OpFoldResult>{b.getIndexAttr(offset / width),
                                 b.getIndexAttr(0), b.getIndexAttr(0)},
          ArrayRef<OpFoldResult>{b.getIndexAttr(size / width),
                                 b.getIndexAttr(k), b.getIndexAttr(width)},
          SmallVector<OpFoldResult>(3, b.getIndexAttr(1)));
      Value empty = tensor::EmptyOp::create(
          b, loc,
          {extents[0], b.getIndexAttr(size / width), extents[1],
           b.getIndexAttr(width)},
          type.getElementType());
      Value hinit = headsInit(b, loc, init, empty, offsets, extents, offset,
                              size, width);
      linalg::GenericOp packed =
          createPackedGemm(b, loc, rows, part, hinit, /*panelMajor=*/true);
      IRMapping map;
      gemm.getRegion().cloneInto(&packed.getRegion(), map);
      packed->setAttr(kGemmWideAttr, UnitAttr::get(ctx));
      Value h = packed.getResult(0);
      Type want = t->getResult(0).getType();
      if (h.getType() != want)
        h = tensor::CastOp::create(b, t.getLoc(), want, h);
      b.replaceOp(t, h);
      // h is [B, S/W, M, W]; the slice [B, M, S], the expand [B, M, S/W, W].
      replaceDims(b, slice.getResult(), h, {0, 2, -1 - size});
      replaceDims(b, expand.getResult(), h, {0, 2, 1, 3});
      b.eraseOp(expand);
      b.eraseOp(slice);
    }
    b.eraseOp(gemm);
    if (Operation *old = init.getDefiningOp(); old && isOpTriviallyDead(old))
      b.eraseOp(old);
  }
}

/// The init of each GEMM without an epilogue on [B, M, N/W, W] (packGemms:
/// an expand_shape of a zero fill or of the bias broadcast), rebuilt on that
/// view and fused into the GEMM's cache tiles (128 rows x one panel; with
/// `parallel`, inside the scf.forall over 128 x 128 tiles): each output
/// tile is initialized right before its k loops, so their first reads of
/// the accumulators hit L2 instead of a whole-output fill written long
/// before (L3 or memory; ~5 % of a decoding step's K/V projection).
/// `op` tiled by `sizes` (scf.for loops, or one scf.forall), with the
/// producers `fuse` admits (as scf::tileConsumerAndFuseProducersUsingSCF's
/// control function) fused into the loops; `op` itself is left for the
/// caller to replace.
static FailureOr<scf::SCFTileAndFuseResult>
tileAndFuse(RewriterBase &rewriter, Operation *op, ArrayRef<int64_t> sizes,
            bool forall, scf::SCFTileAndFuseOptions::ControlFnTy fuse) {
  scf::SCFTileAndFuseOptions options;
  options.tilingOptions.setTileSizes(
      getAsIndexOpFoldResult(rewriter.getContext(), sizes));
  if (forall)
    options.tilingOptions.setLoopType(
        scf::SCFTilingOptions::LoopType::ForallOp);
  options.setFusionControlFn(std::move(fuse));
  rewriter.setInsertionPoint(op);
  return scf::tileConsumerAndFuseProducersUsingSCF(
      rewriter, cast<TilingInterface>(op), options);
}

/// `op` tiled by `sizes` (scf.for loops, or one scf.forall) with `producer`,
/// the op that makes its init, fused into the loops as the destination;
/// `op` replaced.
static FailureOr<scf::SCFTileAndFuseResult>
tileAndFuseDestination(RewriterBase &rewriter, linalg::GenericOp op,
                       Operation *producer, ArrayRef<int64_t> sizes,
                       bool forall) {
  FailureOr<scf::SCFTileAndFuseResult> r = tileAndFuse(
      rewriter, op, sizes, forall,
      [&](tensor::ExtractSliceOp, OpResult p, bool isDestination)
          -> std::optional<scf::SCFTileAndFuseOptions::ControlFnResult> {
        if (!isDestination || p.getOwner() != producer)
          return std::nullopt;
        return scf::SCFTileAndFuseOptions::ControlFnResult{};
      });
  if (succeeded(r))
    rewriter.replaceOp(op, r->replacements.lookup(op.getResult(0)));
  return r;
}

/// The init of `gemm` on [B, M, N/W, W] (an expand_shape of a zero fill or
/// of the bias broadcast, from packGemms) rebuilt as one tileable op on that
/// view, now the GEMM's init; null where it is neither (unless `copy`: then
/// a copy of the reshaped init, tileable too).
static Operation *rebuildInit(RewriterBase &rewriter, linalg::GenericOp gemm,
                              bool copy) {
  auto expand = gemm.getDpsInits()[0].getDefiningOp<tensor::ExpandShapeOp>();
  auto type4 = cast<RankedTensorType>(gemm.getDpsInits()[0].getType());
  Location loc = gemm.getLoc();
  rewriter.setInsertionPoint(gemm);
  if (Operation *def = gemm.getDpsInits()[0].getDefiningOp();
      def && def->hasAttr(kHeadsInitAttr))
    return def;
  auto identityCopy = [&]() -> Operation * {
    if (!copy)
      return nullptr;
    Value src = gemm.getDpsInits()[0];
    SmallVector<OpFoldResult> sizes = tensor::getMixedSizes(rewriter, loc, src);
    Value empty =
        tensor::EmptyOp::create(rewriter, loc, sizes, type4.getElementType());
    AffineMap id = rewriter.getMultiDimIdentityMap(4);
    auto op = linalg::GenericOp::create(
        rewriter, loc, TypeRange{type4}, ValueRange{src}, ValueRange{empty},
        ArrayRef<AffineMap>{id, id},
        SmallVector<utils::IteratorType>(4, utils::IteratorType::parallel),
        [](OpBuilder &b, Location l, ValueRange a) {
          linalg::YieldOp::create(b, l, a[0]);
        });
    rewriter.modifyOpInPlace(gemm, [&] {
      gemm.getDpsInitsMutable()[0].assign(op.getResult(0));
    });
    return op;
  };
  if (!expand || !expand->hasOneUse())
    return identityCopy();
  // The init's other users may only ask for its extents (packGemms'
  // reshapes do).
  Operation *old = expand.getSrc().getDefiningOp();
  if (!old || !isa<DestinationStyleOpInterface>(old) ||
      llvm::any_of(old->getUsers(), [&](Operation *u) {
        return u != expand && !isa<tensor::DimOp>(u);
      }))
    return identityCopy();
  int64_t width = type4.getDimSize(3);
  SmallVector<OpFoldResult> sizes4 = expand.getMixedOutputShape();
  Operation *init = nullptr;
  if (auto fill = dyn_cast<linalg::FillOp>(old)) {
    Value empty = tensor::EmptyOp::create(rewriter, loc, sizes4,
                                          type4.getElementType());
    init = linalg::FillOp::create(rewriter, loc, fill.getInputs()[0], empty);
  } else if (Value bias = broadcastBias(old)) {
    Value empty = tensor::EmptyOp::create(rewriter, loc, sizes4,
                                          type4.getElementType());
    int64_t n = cast<RankedTensorType>(bias.getType()).getDimSize(0);
    init = panelBias(rewriter, loc, bias, 0, n, width, empty, /*panelDim=*/2);
  } else {
    return identityCopy();
  }
  rewriter.modifyOpInPlace(gemm, [&] {
    gemm.getDpsInitsMutable()[0].assign(init->getResult(0));
  });
  rewriter.eraseOp(expand);
  // A DPS op's result has its init's extents.
  Value oldInit = cast<DestinationStyleOpInterface>(old).getDpsInits()[0];
  for (Operation *u : llvm::make_early_inc_range(old->getUsers()))
    rewriter.modifyOpInPlace(u, [&] { u->getOpOperand(0).set(oldInit); });
  rewriter.eraseOp(old);
  return init;
}

/// The init of each GEMM on [B, M, N/W, W] rebuilt on that view
/// (rebuildInit) and fused into the GEMM's cache tiles (128 rows x one
/// panel; with `parallel`, inside the scf.forall over 128 x 128 tiles):
/// each output tile is initialized right before its k loops, so their first
/// reads of the accumulators hit L2 instead of a whole-output fill written
/// long before (L3 or memory; ~5 % of a decoding step's K/V projection).
/// GEMMs without an epilogue are tiled and fused here; a GEMM with an
/// epilogue gets its init marked (`attune.init_tile`) for the schedule to
/// fuse into the epilogue's tiles after the GEMM. After the schedule the
/// init moves on into the register tiles (initAccumulatorsInRegisters).
static LogicalResult fuseGemmInits(ModuleOp module, bool parallel) {
  SmallVector<linalg::GenericOp> gemms, epilogueGemms;
  module.walk([&](linalg::GenericOp op) {
    if (op->hasAttr(attune::kGemmAttr) || op->hasAttr(kGemmWideAttr))
      gemms.push_back(op);
    else if (op->hasAttr(attune::kEpilogueAttr) ||
             op->hasAttr(kEpilogueWideAttr))
      if (auto g = op.getDpsInputs()[0].getDefiningOp<linalg::GenericOp>())
        epilogueGemms.push_back(g);
  });
  MLIRContext *ctx = module.getContext();
  IRRewriter rewriter(ctx);
  for (linalg::GenericOp gemm : epilogueGemms)
    rebuildInit(rewriter, gemm, /*copy=*/true)
        ->setAttr(kInitTileAttr, UnitAttr::get(ctx));
  for (linalg::GenericOp gemm : gemms) {
    bool wide = gemm->hasAttr(kGemmWideAttr);
    int64_t width =
        cast<RankedTensorType>(gemm.getDpsInits()[0].getType()).getDimSize(3);
    Operation *init = rebuildInit(rewriter, gemm, /*copy=*/false);
    if (!init)
      continue;
    // Cache tiles [1, 128, 1, -, -] (one panel) with the init fused as the
    // destination: scf.for loops, or an scf.forall over 128 x 128 tiles
    // (which already are one batch and up to 128 rows) around an scf.for
    // over their panels.
    SmallVector<std::pair<SmallVector<int64_t>, bool>> levels;
    if (parallel)
      levels.push_back({{1, 128, 128 / width, 0, 0}, /*forall=*/true});
    levels.push_back({{parallel ? 0 : 1, parallel ? 0 : 128, 1, 0, 0},
                      /*forall=*/false});
    // The first level replaces `gemm`: report at its location.
    Location loc = gemm.getLoc();
    linalg::GenericOp tile = gemm;
    Operation *producer = init;
    for (auto &[sizes, forall] : levels) {
      FailureOr<scf::SCFTileAndFuseResult> r =
          tileAndFuseDestination(rewriter, tile, producer, sizes, forall);
      if (failed(r))
        return emitError(loc, "attune-tile-gemm: cannot fuse the GEMM's init");
      // The tiled GEMM (the op with a reduction) and the init's tile.
      tile = nullptr;
      producer = nullptr;
      for (Operation *op : r->tiledAndFusedOps) {
        if (auto g = dyn_cast<linalg::GenericOp>(op);
            g && g.getNumReductionLoops() == 1)
          tile = g;
        else
          producer = op;
      }
      if (!tile || !producer)
        return emitError(loc, "attune-tile-gemm: cannot fuse the GEMM's init");
    }
    tile->removeAttr(attune::kGemmAttr);
    tile->removeAttr(kGemmWideAttr);
    tile->setAttr(wide ? kGemmCacheTileWideAttr : kGemmCacheTileAttr,
                  UnitAttr::get(ctx));
    producer->setAttr(kInitTileAttr, UnitAttr::get(ctx));
  }
  return success();
}


/// Tiles each attention tile GEMM (`attune.tile_gemm`, static [M, K] x
/// [K, N]) by 8 x 32 output tiles and fuses the op that makes its
/// accumulator into each tile: the zero fill of the score tile, the
/// rescaling of the running output by exp(m - m'). After vectorization each
/// tile's accumulator then starts in registers (a zero vector, or the
/// rescaled rows), where it was a copy of a zero-filled 16 KiB tile per key
/// step and one more pass over the output tile.
static LogicalResult fuseTileGemmInits(ModuleOp module) {
  SmallVector<linalg::GenericOp> gemms;
  module.walk([&](linalg::GenericOp op) {
    if (op->hasAttr(attune::kTileGemmAttr) || op->hasAttr(kTileGemmWideAttr))
      gemms.push_back(op);
  });
  MLIRContext *ctx = module.getContext();
  IRRewriter rewriter(ctx);
  for (linalg::GenericOp gemm : gemms) {
    bool wide = gemm->hasAttr(kTileGemmWideAttr);
    StringRef mark = wide ? StringRef(kTileGemmWideAttr)
                          : StringRef(attune::kTileGemmAttr);
    Operation *init = gemm.getDpsInits()[0].getDefiningOp();
    auto elementwise = [](Operation *op) {
      auto g = dyn_cast_or_null<linalg::GenericOp>(op);
      return g && g.getNumReductionLoops() == 0 && g->hasOneUse();
    };
    if (!isa_and_nonnull<linalg::FillOp>(init) && !elementwise(init))
      continue;
    FailureOr<scf::SCFTileAndFuseResult> tiled = tileAndFuseDestination(
        rewriter, gemm, init,
        wide ? ArrayRef<int64_t>{4, 64, 0} : ArrayRef<int64_t>{8, 32, 0},
        /*forall=*/false);
    if (failed(tiled))
      return gemm.emitError("attune-tile-gemm: cannot tile the tile GEMM");
    // The fused tile is vectorized whole (not row by row), so that the
    // GEMM's first read of it folds to the vector it wrote.
    for (auto [i, op] : llvm::enumerate(tiled->tiledAndFusedOps)) {
      op->removeAttr(attune::kVectorizeAttr);
      op->setAttr(i == 0 ? mark : StringRef(attune::kVectorize1DAttr),
                  UnitAttr::get(ctx));
    }
    if (init->use_empty())
      rewriter.eraseOp(init);
  }
  return success();
}

/// The marks the lowering and attune-tile-attention put on ops for this
/// pass's schedules; unmarked ops are the row kernels'.
static constexpr StringLiteral kMarks[] = {
    attune::kGemmAttr,        attune::kEpilogueAttr,
    kGemmWideAttr,            kEpilogueWideAttr,
    kGemmCacheTileAttr,       kGemmCacheTileWideAttr,
    kInitTileAttr,            kHeadsInitAttr,
    attune::kTileGemmAttr,    kTileGemmWideAttr,
    attune::kVectorizeAttr,   attune::kVectorize1DAttr,
    attune::kTransposeTilesAttr};

/// Tile contractions (dims (m, n, k)) whose M and N take 4 x 64 register
/// tiles: marked for those instead of 8 x 32.
static void markWideTileGemms(ModuleOp module) {
  module.walk([](linalg::GenericOp op) {
    if (!op->hasAttr(attune::kTileGemmAttr))
      return;
    SmallVector<int64_t> ranges = op.getStaticLoopRanges();
    if (ranges.size() == 3 && !ShapedType::isDynamic(ranges[0]) &&
        !ShapedType::isDynamic(ranges[1]) && ranges[0] % 4 == 0 &&
        ranges[1] % 64 == 0) {
      op->removeAttr(attune::kTileGemmAttr);
      op->setAttr(kTileGemmWideAttr, UnitAttr::get(op->getContext()));
    }
  });
}

static bool hasMark(Operation *op) {
  return llvm::any_of(kMarks, [&](StringRef m) { return op->hasAttr(m); });
}

/// `op` tiled by `sizes` (scf.for loops, or an scf.forall with `forall`) and
/// replaced; the tiled ops, none if tiling failed (`op` then stays).
static SmallVector<Operation *> tileAndReplace(RewriterBase &rewriter,
                                               Operation *op,
                                               ArrayRef<int64_t> sizes,
                                               bool forall) {
  scf::SCFTilingOptions options;
  options.setTileSizes(getAsIndexOpFoldResult(op->getContext(), sizes));
  if (forall)
    options.setLoopType(scf::SCFTilingOptions::LoopType::ForallOp);
  rewriter.setInsertionPoint(op);
  FailureOr<scf::SCFTilingResult> tiled =
      scf::tileUsingSCF(rewriter, cast<TilingInterface>(op), options);
  if (failed(tiled))
    return {};
  rewriter.replaceOp(op, tiled->replacements);
  return SmallVector<Operation *>(tiled->tiledOps);
}

/// Vectorizes a static-shaped linalg op in place; false if it is not one or
/// the vectorizer declines.
static bool vectorizeInPlace(RewriterBase &rewriter, Operation *op) {
  auto linalgOp = dyn_cast<linalg::LinalgOp>(op);
  if (!linalgOp || linalgOp.hasDynamicShape() ||
      failed(linalg::vectorizeOpPrecondition(op)))
    return false;
  rewriter.setInsertionPoint(op);
  FailureOr<linalg::VectorizationResult> vec = linalg::vectorize(rewriter, op);
  if (failed(vec))
    return false;
  rewriter.replaceOp(op, vec->replacements);
  return true;
}

/// Whether the rows of `op` run as an scf.forall: with `parallel`, unless
/// `op` runs inside a loop (in a forall, or once per step of a recurrence,
/// where a parallel region per step would cost more than its rows).
static bool parallelRows(Operation *op, bool parallel) {
  return parallel && !op->getParentOfType<LoopLikeOpInterface>();
}

/// Whether `op` is a row-wise kernel worth vectorizing row by row: at least
/// two loops, all parallel but possibly the last (a row reduction), the last
/// static with 16 to 4096 iterations, and every operand either contiguous
/// along it (its last index) or not indexed by it (broadcast).
static bool isRowKernel(linalg::LinalgOp op) {
  unsigned loops = op.getNumLoops();
  if (!isa<linalg::GenericOp, linalg::TransposeOp>(op.getOperation()) ||
      loops < 2 || op.getNumDpsInits() == 0 || !op.hasPureTensorSemantics())
    return false;
  SmallVector<utils::IteratorType> iters = op.getIteratorTypesArray();
  for (unsigned d = 0; d + 1 < loops; ++d)
    if (iters[d] != utils::IteratorType::parallel)
      return false;
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  int64_t last = ranges.back();
  if (ShapedType::isDynamic(last) || last < 16 || last > 4096 ||
      (last % 16 != 0 && last > 256))
    return false;
  for (AffineMap map : op.getIndexingMapsArray()) {
    if (!map.isProjectedPermutation())
      return false;
    for (unsigned r = 0; r < map.getNumResults(); ++r)
      if (map.getDimPosition(r) == loops - 1 && r + 1 != map.getNumResults())
        return false;
  }
  // The vectorizer's gathers (tensor.extract in the body) are not worth it.
  bool extracts = false;
  op.getBlock()->walk([&](tensor::ExtractOp) { extracts = true; });
  return !extracts;
}

/// The chunk a row of `n` elements is vectorized in: 64, 32 or 16 if one
/// divides it, else the whole row (at most 4096; isRowKernel bounds it)
/// when it is at most 256.
static int64_t rowChunk(int64_t n) {
  for (int64_t c : {64, 32, 16})
    if (n % c == 0)
      return c;
  return n;
}

/// The init of a linear layer's GEMM (its bias broadcast, the GEMM's only
/// user): fuseGemmInits fuses it into the GEMM's cache tiles, so the row
/// kernels leave it alone.
static bool isGemmInit(linalg::LinalgOp op) {
  if (op->getNumResults() != 1)
    return false;
  bool init = false;
  for (OpOperand &use : op->getResult(0).getUses()) {
    if (isa<tensor::DimOp>(use.getOwner()))
      continue;
    auto user = dyn_cast<linalg::GenericOp>(use.getOwner());
    auto feedsEpilogue = [](linalg::GenericOp g) {
      return llvm::any_of(g->getUsers(), [](Operation *u) {
        return u->hasAttr(attune::kEpilogueAttr);
      });
    };
    if (init || !user ||
        !(user->hasAttr(attune::kGemmAttr) || feedsEpilogue(user)) ||
        !user.isDpsInit(&use))
      return false;
    init = true;
  }
  return init;
}

/// Chunks each row kernel in `rows` (tiles of one row) along the row and
/// vectorizes it; whether it vectorized any.
static bool vectorizeRowTiles(RewriterBase &rewriter,
                              ArrayRef<Operation *> rows, int64_t length) {
  // Long rows in chunks of 64 (four zmm per operand), an scf.for along the
  // row (a reduction's partial sums carried through it): a whole 768-wide
  // row as one vector spilled most of it and sent LLVM's register
  // allocator quadratic (minutes for a 12-layer encoder).
  SmallVector<Operation *> chunks(rows);
  if (int64_t chunk = rowChunk(length); chunk < length) {
    chunks.clear();
    for (Operation *row : rows) {
      SmallVector<int64_t> along(cast<linalg::LinalgOp>(row).getNumLoops(), 0);
      along.back() = chunk;
      llvm::append_range(chunks, tileAndReplace(rewriter, row, along, false));
    }
  }
  bool any = false;
  for (Operation *row : chunks)
    any |= vectorizeInPlace(rewriter, row);
  return any;
}

/// Row kernels of `kernels` that only row kernels read, with the rows of
/// `consumer` (an element-wise row kernel), fused into its row loop: a
/// layer norm's row sum and variance, computed per row right before the row
/// is normalized, instead of three passes over the whole [M, N] input (each
/// re-adding the residual; for M = 512, 3 MiB of inputs, past L2, streamed
/// three times). A producer that several fused kernels read is fused once
/// per distinct slice of it (the mean, which the variance and the
/// normalization both read for the same row, is computed once). Returns the
/// row tiles of the consumer and the fused producers (none where there is
/// nothing to fuse or tiling fails). The consumer and the producers nothing
/// else reads any more are erased, moved from `kernels` to `erased`.
static SmallVector<Operation *>
fuseRowProducers(RewriterBase &rewriter, linalg::LinalgOp consumer,
                 llvm::SmallPtrSetImpl<Operation *> &kernels,
                 llvm::SmallPtrSetImpl<Operation *> &erased, bool forall) {
  unsigned loops = consumer.getNumLoops();
  int64_t length = consumer.getStaticLoopRanges().back();
  // The producers that fuse, from the consumer's inputs back, before tiling
  // adds slices of them: row kernels of as many loops, the last over rows
  // of the same length, that only row kernels read.
  llvm::SmallPtrSet<Operation *, 4> fusable;
  SmallVector<Value> worklist(consumer.getDpsInputs());
  while (!worklist.empty()) {
    Operation *op = worklist.pop_back_val().getDefiningOp();
    auto producer = dyn_cast_or_null<linalg::LinalgOp>(op);
    if (!producer || !kernels.contains(op) || op == consumer ||
        fusable.contains(op) || producer.getNumLoops() != loops ||
        producer.getStaticLoopRanges().back() != length ||
        !llvm::all_of(op->getUsers(), [&](Operation *user) {
          return isa<tensor::DimOp>(user) || kernels.contains(user);
        }))
      continue;
    fusable.insert(op);
    llvm::append_range(worklist, producer.getDpsInputs());
  }
  if (fusable.empty())
    return {};
  SmallVector<int64_t> rowSizes(loops, 1);
  rowSizes.back() = 0;
  FailureOr<scf::SCFTileAndFuseResult> result = tileAndFuse(
      rewriter, consumer, rowSizes, forall,
      [&](tensor::ExtractSliceOp slice, OpResult producer, bool isInit)
          -> std::optional<scf::SCFTileAndFuseOptions::ControlFnResult> {
        // One row's worth of the producer, not all of it broadcast.
        RankedTensorType type = slice.getResultType();
        if (isInit || !fusable.contains(producer.getOwner()) ||
            !type.hasStaticShape() || type.getNumElements() > length)
          return std::nullopt;
        return scf::SCFTileAndFuseOptions::ControlFnResult{};
      });
  if (failed(result) || result->fusedProducers.empty())
    return {};
  for (OpResult r : consumer->getResults())
    rewriter.replaceAllUsesWith(r, result->replacements.lookup(r));
  // The consumer, then each fused producer nothing else reads (the variance
  // before the mean it reads; a tensor.dim of a producer reads its init).
  kernels.erase(consumer);
  erased.insert(consumer);
  rewriter.eraseOp(consumer);
  for (bool again = true; again;) {
    again = false;
    for (Operation *producer : result->fusedProducers) {
      if (erased.contains(producer))
        continue;
      auto dps = cast<DestinationStyleOpInterface>(producer);
      for (OpResult r : producer->getResults())
        for (Operation *user : llvm::make_early_inc_range(r.getUsers()))
          if (auto dim = dyn_cast<tensor::DimOp>(user))
            rewriter.modifyOpInPlace(dim, [&] {
              dim.getSourceMutable().assign(dps.getTiedOpOperand(r)->get());
            });
      if (!producer->use_empty())
        continue;
      kernels.erase(producer);
      erased.insert(producer);
      rewriter.eraseOp(producer);
      again = true;
    }
  }
  return SmallVector<Operation *>(result->tiledAndFusedOps.begin(),
                                  result->tiledAndFusedOps.end());
}

/// The element-wise and row-reduction kernels outside the GEMMs and tiled
/// attention (layer norm, residual adds, softmax of short attention, ...):
/// every loop but the last tiled by 1, and the row vectorized (768 floats
/// as 48 zmm). Scalar, a layer norm's row sums were a chain of dependent
/// adds, stored every step. Row kernels that only feed others of the same
/// rows are fused into the row loop of the element-wise one they feed
/// (fuseRowProducers). Returns whether it vectorized any.
static bool vectorizeRows(ModuleOp module, bool parallel) {
  SmallVector<linalg::LinalgOp> ops;
  module.walk([&](linalg::LinalgOp op) {
    if (!hasMark(op) && isRowKernel(op) && !isGemmInit(op))
      ops.push_back(op);
  });
  llvm::SmallPtrSet<Operation *, 16> kernels, erased;
  for (linalg::LinalgOp op : ops)
    kernels.insert(op);
  IRRewriter rewriter(module.getContext());
  bool any = false;
  // Element-wise consumers first, last to first, each with what it fuses.
  for (linalg::LinalgOp op : llvm::reverse(ops)) {
    if (erased.contains(op) || op.getNumReductionLoops() != 0)
      continue;
    int64_t length = op.getStaticLoopRanges().back();
    SmallVector<Operation *> tiles = fuseRowProducers(
        rewriter, op, kernels, erased, parallelRows(op, parallel));
    any |= vectorizeRowTiles(rewriter, tiles, length);
  }
  for (linalg::LinalgOp op : ops) {
    if (erased.contains(op))
      continue;
    SmallVector<int64_t> rowSizes(op.getNumLoops(), 1);
    rowSizes.back() = 0;
    int64_t length = op.getStaticLoopRanges().back();
    SmallVector<Operation *> rows =
        tileAndReplace(rewriter, op, rowSizes, parallelRows(op, parallel));
    any |= vectorizeRowTiles(rewriter, rows, length);
  }
  return any;
}

/// Copies that transpose their two innermost dims (`attune.transpose_tiles`,
/// both multiples of 16): 16 x 16 blocks, each one vector read, an
/// in-register transpose (shuffles, lowered by the schedule) and one vector
/// write. Left to LLVM, the element-wise copy became scatter stores
/// (vscatterqps), ~5 % of a decoding step. With `parallel` the leading dims
/// are an scf.forall.
static void transposeTiles(ModuleOp module, bool parallel) {
  SmallVector<linalg::GenericOp> ops;
  module.walk([&](linalg::GenericOp op) {
    if (op->hasAttr(attune::kTransposeTilesAttr))
      ops.push_back(op);
  });
  IRRewriter rewriter(module.getContext());
  for (linalg::GenericOp op : ops) {
    op->removeAttr(attune::kTransposeTilesAttr);
    unsigned loops = op.getNumLoops();
    SmallVector<int64_t> outer(loops, 1), inner(loops, 0);
    outer[loops - 1] = outer[loops - 2] = 0;
    inner[loops - 1] = inner[loops - 2] = 16;
    for (Operation *rows :
         tileAndReplace(rewriter, op, outer, parallelRows(op, parallel)))
      for (Operation *block : tileAndReplace(rewriter, rows, inner, false))
        vectorizeInPlace(rewriter, block);
  }
}

/// Whether result `index` of `loop` has its init's shape: every iteration
/// yields its iter_arg rewritten in place (vector.transfer_write,
/// tensor.insert_slice, a destination-style op, or a nested loop that is
/// itself shape preserving).
static bool isShapePreserving(scf::ForOp loop, unsigned index) {
  Value arg = loop.getRegionIterArgs()[index];
  Value v = loop.getYieldedValues()[index];
  while (v != arg) {
    Operation *def = v.getDefiningOp();
    if (!def)
      return false;
    if (auto write = dyn_cast<vector::TransferWriteOp>(def))
      v = write.getBase();
    else if (auto insert = dyn_cast<tensor::InsertSliceOp>(def))
      v = insert.getDest();
    else if (auto inner = dyn_cast<scf::ForOp>(def)) {
      unsigned i = cast<OpResult>(v).getResultNumber();
      if (!isShapePreserving(inner, i))
        return false;
      v = inner.getInitArgs()[i];
    } else if (auto dps = dyn_cast<DestinationStyleOpInterface>(def))
      v = dps.getTiedOpOperand(cast<OpResult>(v))->get();
    else
      return false;
  }
  return true;
}

/// Whether index `v` is `iv` or computed from it (affine.apply or arith).
static bool dependsOn(Value v, Value iv) {
  if (v == iv)
    return true;
  Operation *def = v.getDefiningOp();
  if (!def || !isa<affine::AffineApplyOp, arith::AddIOp, arith::MulIOp>(def))
    return false;
  return llvm::any_of(def->getOperands(),
                      [&](Value o) { return dependsOn(o, iv); });
}

/// Where a register tile's accumulator read finds its values.
enum class Source { Fill, Other, Unknown };

/// Follows the tensor that `read` (a register tile's accumulator read) reads
/// back to `fill`'s result: through extract_slices; the iter_args of loops
/// over disjoint rows (each iteration reads a slice at its induction
/// variable, which only it writes); the result of the full row tiles' loop
/// into the peeled loop of the last rows (which starts where the other
/// stops, so reads what it did not write); and the iter_args of loops that
/// accumulate into the same slice every iteration (the k tiles), appended to
/// `firstOf`: only their first iteration reads what `fill` wrote. An
/// insert_slice of the GEMM's rows over the whole tile (what its epilogue
/// reads) and other definitions are not the fill; a partial insert, or a
/// loop result reached any other way, is Unknown.
static Source traceToFill(vector::TransferReadOp read, scf::ForOp fill,
                          SmallVectorImpl<scf::ForOp> &firstOf) {
  Value v = read.getBase();
  Operation *user = read;
  while (true) {
    if (auto result = dyn_cast<OpResult>(v)) {
      Operation *def = result.getOwner();
      if (def == fill.getOperation())
        return Source::Fill;
      if (auto slice = dyn_cast<tensor::ExtractSliceOp>(def)) {
        user = slice;
        v = slice.getSource();
        continue;
      }
      // The tile with the GEMM's rows inserted (what the epilogue reads):
      // computed values where the insert covers the whole tile.
      if (auto insert = dyn_cast<tensor::InsertSliceOp>(def)) {
        // The tile's extent: the slice it was cut as (through the fill and
        // other loops that rewrite it in place).
        Value tile = insert.getDest();
        while (auto r = dyn_cast<OpResult>(tile)) {
          auto loop = dyn_cast<scf::ForOp>(r.getOwner());
          if (!loop || !isShapePreserving(loop, r.getResultNumber()))
            break;
          tile = loop.getInitArgs()[r.getResultNumber()];
        }
        auto dest = tile.getDefiningOp<tensor::ExtractSliceOp>();
        bool whole =
            insert.getSourceType() == insert.getDestType() &&
            llvm::all_of(insert.getMixedOffsets(),
                         [](OpFoldResult o) { return isZeroInteger(o); }) &&
            ((dest && dest.getMixedSizes() == insert.getMixedSizes()) ||
             insert.getDestType().hasStaticShape());
        return whole ? Source::Other : Source::Unknown;
      }
      auto loop = dyn_cast<scf::ForOp>(def);
      if (!loop)
        return Source::Other;
      auto rest = dyn_cast<scf::ForOp>(user);
      if (!rest || rest.getLowerBound() != loop.getUpperBound() ||
          !isShapePreserving(loop, result.getResultNumber()))
        return Source::Unknown;
      user = loop;
      v = loop.getInitArgs()[result.getResultNumber()];
      continue;
    }
    auto arg = cast<BlockArgument>(v);
    auto loop = dyn_cast<scf::ForOp>(arg.getOwner()->getParentOp());
    if (!loop || arg.getArgNumber() == 0)
      return Source::Other;
    Value iv = loop.getInductionVar();
    ValueRange at;
    if (auto slice = dyn_cast<tensor::ExtractSliceOp>(user))
      at = slice.getOffsets();
    else if (auto r = dyn_cast<vector::TransferReadOp>(user))
      at = r.getIndices();
    if (!llvm::any_of(at, [&](Value i) { return dependsOn(i, iv); }))
      firstOf.push_back(loop);
    user = loop;
    v = loop.getInitArgs()[arg.getArgNumber() - 1];
  }
}

/// The GEMMs' output tiles start in registers. The schedule fuses each
/// GEMM's init (the bias row, or zeros) into its cache tile as a loop that
/// writes one W-column row of the tile at a time; the register tiles then
/// read those rows back as their accumulators in the first k tile. That
/// fill is the first touch of the output: a store per line that misses, 128
/// of them in a row, then loads of the same lines. Here the accumulator
/// reads of the first k tile become the init row broadcast (an scf.if on the
/// k tile loop's first iteration; no branch without a k tile loop), and the
/// fill goes: the register tiles' stores are the first touch, each 16 lines
/// after ~1000 cycles of FMAs. Measured: see docs/design.md (GEMMs).
static void initAccumulatorsInRegisters(ModuleOp module) {
  SmallVector<std::pair<scf::ForOp, int64_t>> fills;
  module.walk([&](scf::ForOp loop) {
    // for %r = 0 to %rows step 1 iter_args(%t) {
    //   transfer_write %row, %t[0, %r, 0, 0]; yield }  (%row defined above;
    // [0, 0, %r, 0] on a panel-major output)
    Block *body = loop.getBody();
    if (loop.getNumRegionIterArgs() != 1 ||
        !isConstantIntValue(loop.getStep(), 1) ||
        !isConstantIntValue(loop.getLowerBound(), 0) ||
        body->getOperations().size() != 2)
      return;
    auto write = dyn_cast<vector::TransferWriteOp>(body->front());
    auto type = dyn_cast<RankedTensorType>(loop.getResult(0).getType());
    if (!write || !type || type.getRank() != 4 ||
        write.getBase() != loop.getRegionIterArgs()[0] ||
        loop.getYieldedValues()[0] != write.getResult() ||
        !write.getPermutationMap().isMinorIdentity() || write.getMask() ||
        !loop.isDefinedOutsideOfLoop(write.getVector()))
      return;
    VectorType vt = write.getVectorType();
    ValueRange at = write.getIndices();
    // The rows are dim 1 ([B, M, N/W, W]) or 2 (packHeadsGemms' [B, N/W,
    // M, W]); the tile has one panel.
    int64_t rowDim = at[1] == loop.getInductionVar() ? 1 : 2;
    int64_t panelDim = 3 - rowDim;
    if (vt.getShape() != ArrayRef<int64_t>{1, 1, 1, type.getDimSize(3)} ||
        ShapedType::isDynamic(type.getDimSize(3)) ||
        !isConstantIntValue(at[0], 0) ||
        at[rowDim] != loop.getInductionVar() ||
        !isConstantIntValue(at[panelDim], 0) ||
        !isConstantIntValue(at[3], 0) || type.getDimSize(0) != 1 ||
        type.getDimSize(panelDim) != 1 ||
        llvm::any_of(write.getInBoundsValues(), [](bool b) { return !b; }))
      return;
    fills.push_back({loop, panelDim});
  });

  for (auto [fill, panelDim] : fills) {
    // Every read of the tile after the fill (in its block: the GEMM's loop
    // nest, the epilogue), and the loops whose first iteration it must be.
    bool ok = true;
    SmallVector<std::pair<vector::TransferReadOp, SmallVector<scf::ForOp>>>
        reads;
    // The init row the fill writes (vector<1x1x1xW>, defined above it).
    Value init =
        cast<vector::TransferWriteOp>(fill.getBody()->front()).getVector();
    auto row = cast<VectorType>(init.getType());
    // The tensors that carry what the fill wrote, or are written over it.
    llvm::SetVector<Value> derived;
    derived.insert(fill.getResult(0));
    for (size_t i = 0; i < derived.size(); ++i)
      for (OpOperand &use : derived[i].getUses()) {
        Operation *user = use.getOwner();
        if (auto loop = dyn_cast<scf::ForOp>(user)) {
          if (OpResult result = loop.getTiedLoopResult(&use)) {
            derived.insert(loop.getTiedLoopRegionIterArg(&use));
            derived.insert(result);
          }
        } else if (auto yield = dyn_cast<scf::YieldOp>(user)) {
          derived.insert(
              yield->getParentOp()->getResult(use.getOperandNumber()));
        } else {
          for (Value r : user->getResults())
            derived.insert(r);
        }
      }
    for (Operation *op = fill->getNextNode(); op && ok; op = op->getNextNode())
      op->walk([&](vector::TransferReadOp read) {
        if (!derived.contains(read.getBase()))
          return;
        SmallVector<scf::ForOp> firstOf;
        Source source = traceToFill(read, fill, firstOf);
        if (source == Source::Other)
          return;
        VectorType vt = read.getVectorType();
        if (source == Source::Unknown || vt.getRank() != 4 ||
            vt.getDimSize(0) != 1 || vt.getDimSize(panelDim) != 1 ||
            vt.getDimSize(3) != row.getDimSize(3) || read.getMask() ||
            !read.getPermutationMap().isMinorIdentity() ||
            llvm::any_of(read.getInBoundsValues(), [](bool b) { return !b; }))
          ok = false;
        reads.push_back({read, firstOf});
      });
    if (!ok || reads.empty())
      continue;
    IRRewriter b(module.getContext());
    for (auto &[read, firstOf] : reads) {
      b.setInsertionPoint(read);
      Location loc = read.getLoc();
      auto broadcast = [&](OpBuilder &builder) -> Value {
        return vector::BroadcastOp::create(builder, loc, read.getVectorType(),
                                           init);
      };
      if (firstOf.empty()) {
        b.replaceOp(read, broadcast(b));
        continue;
      }
      Value first;
      for (scf::ForOp loop : firstOf) {
        Value c =
            arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                                  loop.getInductionVar(), loop.getLowerBound());
        first = first ? arith::AndIOp::create(b, loc, first, c) : c;
      }
      auto branch = scf::IfOp::create(b, loc, TypeRange{read.getVectorType()},
                                      first, /*withElseRegion=*/true);
      b.setInsertionPointToStart(branch.thenBlock());
      scf::YieldOp::create(b, loc, broadcast(b));
      b.setInsertionPointToStart(branch.elseBlock());
      auto reread = cast<vector::TransferReadOp>(b.clone(*read));
      scf::YieldOp::create(b, loc, reread.getResult());
      b.replaceOp(read, branch.getResults());
    }
    // Nothing reads what the fill wrote any more: the tile it filled is
    // written whole by the register tiles.
    b.replaceOp(fill, fill.getInitArgs());
  }
}

namespace {
/// A float min/max `vector.reduction` over a power-of-two length as a tree of
/// halvings: log2(n) element-wise min/max steps on vectors, each over the two
/// halves of the last. LLVM expands the reduction intrinsic of a maxnum
/// without `nnan` as one lane after another, three dependent instructions
/// (max, NaN compare, blend) per lane: ~190 for a 64-wide row. Min and max are
/// associative and commutative, so the tree computes the same value
/// (including which NaNs are ignored or propagated).
struct TreeMinMaxReduction : OpRewritePattern<vector::ReductionOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(vector::ReductionOp op,
                                PatternRewriter &rewriter) const override {
    using Kind = vector::CombiningKind;
    Kind kind = op.getKind();
    if (kind != Kind::MAXNUMF && kind != Kind::MINNUMF &&
        kind != Kind::MAXIMUMF && kind != Kind::MINIMUMF)
      return failure();
    VectorType type = op.getSourceVectorType();
    int64_t n = type.getNumElements();
    if (type.getRank() != 1 || type.isScalable() || n < 2 ||
        !llvm::isPowerOf2_64(n) || isa<vector::MaskOp>(op->getParentOp()))
      return failure();
    Location loc = op.getLoc();
    Value v = op.getVector();
    for (; n > 1; n /= 2) {
      SmallVector<int64_t> low(n / 2), high(n / 2);
      for (int64_t i = 0; i < n / 2; ++i) {
        low[i] = i;
        high[i] = n / 2 + i;
      }
      Value a = vector::ShuffleOp::create(rewriter, loc, v, v, low);
      Value b = vector::ShuffleOp::create(rewriter, loc, v, v, high);
      v = vector::makeArithReduction(rewriter, loc, kind, a, b);
    }
    Value result = vector::ExtractOp::create(rewriter, loc, v, 0);
    if (Value acc = op.getAcc())
      result = vector::makeArithReduction(rewriter, loc, kind, result, acc);
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// tensor.dim of a shape-preserving loop's result as the dim of its init.
/// The epilogue GEMMs' tiled loops take their bounds from the dims of the
/// whole-output init they were fused from; folded, that init (a fill of the
/// whole output, written again tile by tile) is dead.
struct DimOfShapePreservingLoop : OpRewritePattern<tensor::DimOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(tensor::DimOp op,
                                PatternRewriter &rewriter) const override {
    auto result = dyn_cast<OpResult>(op.getSource());
    auto loop = result ? dyn_cast<scf::ForOp>(result.getOwner()) : nullptr;
    if (!loop || !isShapePreserving(loop, result.getResultNumber()))
      return failure();
    rewriter.modifyOpInPlace(op, [&] {
      op.getSourceMutable().assign(
          loop.getInitArgs()[result.getResultNumber()]);
    });
    return success();
  }
};

/// A slice, inside an scf.forall, of an empty tensor made outside it, as an
/// empty tensor of the slice's shape made in the forall. With --parallel a
/// GEMM fused into its epilogue's forall tiles writes its intermediate tile
/// into a slice of the whole intermediate's tensor.empty; not a shared
/// output of the forall, so bufferization gave each tile a private buffer
/// and copied it into another before the epilogue read it. An empty
/// tensor's slice holds nothing to keep: one buffer per tile, written by
/// the GEMM and read by the epilogue (which attune-epilogue-in-registers
/// then folds into the register tiles, as in the serial nest).
struct EmptySliceInForall : OpRewritePattern<tensor::ExtractSliceOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(tensor::ExtractSliceOp op,
                                PatternRewriter &rewriter) const override {
    auto empty = op.getSource().getDefiningOp<tensor::EmptyOp>();
    auto forall = op->getParentOfType<scf::ForallOp>();
    if (!empty || !forall || forall->isAncestor(empty))
      return failure();
    // A rank-reducing slice drops static unit dims only: its dynamic sizes
    // are its result's, in order.
    rewriter.replaceOpWithNewOp<tensor::EmptyOp>(op, op.getType(),
                                                 op.getSizes());
    return success();
  }
};

struct AttuneTileGemmPass
    : mlir::attune::impl::AttuneTileGemmBase<AttuneTileGemmPass> {
  using Base::Base;
  void runOnOperation() override {
    ModuleOp module = getOperation();
    // Transforms of a module without marked ops or row kernels are a no-op;
    // skip the parse.
    bool any = false;
    module.walk([&](Operation *op) { any |= hasMark(op); });
    // Row kernels first: the ops the GEMM and attention schedules make are
    // not theirs to vectorize.
    packHeadsGemms(module);
    any |= vectorizeRows(module, parallel);
    if (!any)
      return;
    transposeTiles(module, parallel);
    packGemms(module);
    if (failed(fuseGemmInits(module, parallel)))
      return signalPassFailure();
    markWideTileGemms(module);
    if (failed(fuseTileGemmInits(module)))
      return signalPassFailure();
    auto replaceAll = [](std::string text, StringRef name, StringRef body) {
      for (size_t at; (at = text.find(name.str())) != std::string::npos;)
        text.replace(at, name.size(), body.str());
      return text;
    };
    // One GEMM schedule per panel width W: ROWS x W register tiles, cache
    // tiles of one panel, 128 x 128 forall tiles.
    auto gemmSchedule = [&](int64_t width) {
      bool wide = width == 64;
      std::string text = kGemmSchedule;
      text = replaceAll(text, "CACHE_TILES",
                        parallel ? kParallelCacheTiles : kSerialCacheTiles);
      text = replaceAll(text, "EPILOGUE_TILES",
                        parallel ? kParallelEpilogueTiles
                                 : kSerialEpilogueTiles);
      text = replaceAll(text, "REGISTER_TILES(%l1#0)",
                        replaceAll(kRegisterTiles, "OUTER", "%l1#0"));
      text = replaceAll(text, "REGISTER_TILES(%lk)",
                        replaceAll(kRegisterTiles, "OUTER", "%lk"));
      text = replaceAll(text, "CACHE_TILE_ATTR",
                        wide ? kGemmCacheTileWideAttr : kGemmCacheTileAttr);
      text = replaceAll(text, "REGISTER_TILES(EPILOGUE_OUTER)",
                        replaceAll(kRegisterTiles, "OUTER",
                                   parallel ? "%forall" : "%le#0"));
      text = replaceAll(text, "FORALL_PANELS", wide ? "2" : "4");
      text = replaceAll(text, "ROWS", wide ? "4" : "8");
      text = replaceAll(text, "KTILE", wide ? "128" : "256");
      text = replaceAll(text, "EPILOGUE_ATTR",
                        wide ? kEpilogueWideAttr : attune::kEpilogueAttr);
      text = replaceAll(text, "GEMM_ATTR",
                        wide ? kGemmWideAttr : attune::kGemmAttr);
      return replaceAll(text, "SUFFIX", wide ? "64" : "32");
    };
    std::string text = kSchedule;
    text = replaceAll(text, "GEMMS_64", gemmSchedule(64));
    text = replaceAll(text, "GEMMS_32", gemmSchedule(32));
    OwningOpRef<ModuleOp> schedule =
        parseSourceString<ModuleOp>(text, &getContext());
    if (!schedule) {
      module.emitError("attune-tile-gemm: the built-in schedule does not parse");
      return signalPassFailure();
    }
    Operation *entry = nullptr;
    schedule->walk([&](transform::NamedSequenceOp seq) {
      if (seq.getSymName() == "__transform_main")
        entry = seq;
    });
    if (!entry ||
        failed(transform::applyTransformNamedSequence(
            module, entry, *schedule, transform::TransformOptions())))
      return signalPassFailure();
    initAccumulatorsInRegisters(module);
    module.walk([&](Operation *op) {
      for (StringRef attr : kMarks)
        op->removeAttr(attr);
    });
    // The row sums of the vectorized tile ops were written with `reassoc`:
    // keep it on their vector reductions, so that LLVM adds in a tree rather
    // than one lane after another.
    module.walk([](vector::ReductionOp r) {
      if (r.getKind() == vector::CombiningKind::ADD &&
          isa<FloatType>(r.getType()))
        r.setFastmath(r.getFastmath() | arith::FastMathFlags::reassoc);
    });
    // Vector exp (attention's softmax) as a polynomial instead of one libm
    // call per lane; row maxima as trees.
    RewritePatternSet patterns(&getContext());
    populateMathPolynomialApproximationPatterns(patterns);
    // Dims of the GEMMs' whole-output inits (see DimOfShapePreservingLoop)
    // and of what is left of a GEMM fused into its epilogue's tiles, as the
    // dims they equal, so that those ops go.
    patterns.add<TreeMinMaxReduction, DimOfShapePreservingLoop>(&getContext());
    if (parallel)
      patterns.add<EmptySliceInForall>(&getContext());
    memref::populateResolveRankedShapedTypeResultDimsPatterns(patterns);
    if (failed(applyPatternsGreedily(module, std::move(patterns))))
      return signalPassFailure();
  }
};
} // namespace
