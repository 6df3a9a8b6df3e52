//===- PackGemms.cpp - GEMMs on packed weight panels ------------------------===//
//
// attune-pack-gemms: each linear layer's GEMM (and its epilogue) runs on
// weights packed in panels of the tiling's width (see packGemms).
//
//===----------------------------------------------------------------------===//

#include "lowering/CPU/CpuKernels.h"
#include "lowering/Passes.h"

#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Transforms/RegionUtils.h"

namespace mlir::attune {
#define GEN_PASS_DEF_ATTUNEPACKGEMMS
#include "lowering/Passes.h.inc"
} // namespace mlir::attune

using namespace mlir;
using namespace mlir::attune;
using namespace mlir::attune::cpu;

/// A GEMM with a `dot` tiling (N at most half a vector) as dot products
/// along K: the lanes' partial sums T[b, m, n, l] = sum over ko of
/// A[b, m, ko L + l] * W[n, ko, l] (marked kDotGemmAttr), then C = (init +
/// the last K mod L products) + the sum of T over l (row kernels, the lane
/// sum marked kDotRowsAttr), all tiled by attune-tile-gemm with the GEMM's
/// tiling; an epilogue stays an element-wise kernel on C. Weights as
/// packDotWeights packs them.
static void dotGemm(linalg::GenericOp gemm, GemmTilingAttr tiling,
                    Type storage) {
  MLIRContext *ctx = gemm.getContext();
  OpBuilder b(gemm);
  Location loc = gemm.getLoc();
  Value a = gemm.getDpsInputs()[0], w = gemm.getDpsInputs()[1];
  Value init = gemm.getDpsInits()[0];
  auto aType = cast<RankedTensorType>(a.getType());
  Type f32 = aType.getElementType();
  int64_t lanes = tiling.getPanel(), k = aType.getDimSize(2);
  int64_t n = cast<RankedTensorType>(w.getType()).getDimSize(1);
  int64_t kMain = k / lanes * lanes, kRest = k - kMain;
  auto [wMain, wRest] = packDotWeights(b, loc, w, lanes, storage);
  SmallVector<OpFoldResult> sizes = tensor::getMixedSizes(b, loc, a);
  auto sliceK = [&](int64_t from, int64_t size) {
    SmallVector<OpFoldResult> offsets = {b.getIndexAttr(0), b.getIndexAttr(0),
                                         b.getIndexAttr(from)};
    SmallVector<OpFoldResult> extents = {sizes[0], sizes[1],
                                         b.getIndexAttr(size)};
    SmallVector<OpFoldResult> strides(3, b.getIndexAttr(1));
    return tensor::ExtractSliceOp::create(b, loc, a, offsets, extents, strides)
        .getResult();
  };
  Value aMain = kRest ? sliceK(0, kMain) : a;
  Value a4 = tensor::ExpandShapeOp::create(
      b, loc,
      RankedTensorType::get(
          {aType.getDimSize(0), aType.getDimSize(1), kMain / lanes, lanes},
          f32),
      aMain, ArrayRef<ReassociationIndices>{{0}, {1}, {2, 3}},
      ArrayRef<OpFoldResult>{sizes[0], sizes[1], b.getIndexAttr(kMain / lanes),
                             b.getIndexAttr(lanes)});
  Value empty = tensor::EmptyOp::create(
      b, loc,
      ArrayRef<OpFoldResult>{sizes[0], sizes[1], b.getIndexAttr(n),
                             b.getIndexAttr(lanes)},
      f32);
  Value zero = arith::ConstantOp::create(b, loc, b.getZeroAttr(f32));
  Value partial = linalg::FillOp::create(b, loc, zero, empty).getResult(0);
  using Iter = utils::IteratorType;
  AffineExpr d0, d1, d2, d3, d4;
  bindDims(ctx, d0, d1, d2, d3, d4);
  // The GEMM's body (a multiply-add, in f32) for each new contraction.
  auto contraction = [&](ValueRange ins, Value out, ArrayRef<AffineMap> maps,
                         ArrayRef<Iter> iters) {
    auto g = linalg::GenericOp::create(b, loc, TypeRange{out.getType()}, ins,
                                       ValueRange{out}, maps, iters);
    IRMapping map;
    gemm.getRegion().cloneInto(&g.getRegion(), map);
    widenNarrowOperands(g);
    return g;
  };
  linalg::GenericOp dot =
      contraction(ValueRange{a4, wMain}, partial,
                  {AffineMap::get(5, 0, {d0, d1, d3, d4}, ctx),
                   AffineMap::get(5, 0, {d2, d3, d4}, ctx),
                   AffineMap::get(5, 0, {d0, d1, d2, d4}, ctx)},
                  {Iter::parallel, Iter::parallel, Iter::parallel,
                   Iter::reduction, Iter::parallel});
  dot->setAttr(kDotGemmAttr, UnitAttr::get(ctx));
  dot->setAttr(kTilingAttr, tiling);
  // The last K mod L products onto the init, then C = that + the lanes'
  // sum: the lane sum ends the GEMM, and attune-tile-gemm fuses the GEMM
  // (and, in parallel tiles, the last products) into its tiles.
  Value sumInit = init;
  if (kRest)
    sumInit = contraction(ValueRange{sliceK(kMain, kRest), wRest}, init,
                          {AffineMap::get(4, 0, {d0, d1, d3}, ctx),
                           AffineMap::get(4, 0, {d2, d3}, ctx),
                           AffineMap::get(4, 0, {d0, d1, d2}, ctx)},
                          {Iter::parallel, Iter::parallel, Iter::parallel,
                           Iter::reduction})
                  .getResult(0);
  auto sum = linalg::GenericOp::create(
      b, loc, TypeRange{init.getType()}, ValueRange{dot.getResult(0)},
      ValueRange{sumInit},
      ArrayRef<AffineMap>{AffineMap::get(4, 0, {d0, d1, d2, d3}, ctx),
                          AffineMap::get(4, 0, {d0, d1, d2}, ctx)},
      ArrayRef<Iter>{Iter::parallel, Iter::parallel, Iter::parallel,
                     Iter::reduction},
      [](OpBuilder &nb, Location l, ValueRange args) {
        linalg::YieldOp::create(
            nb, l, arith::AddFOp::create(nb, l, args[1], args[0]).getResult());
      });
  sum->setAttr(kDotRowsAttr, b.getI64IntegerAttr(kRest ? 2 : 1));
  sum->setAttr(kTilingAttr, tiling);
  Value c = sum.getResult(0);
  // The epilogue (element-wise on C) is a row kernel like any other.
  for (Operation *user : gemm->getUsers())
    if (user->removeAttr(kEpilogueAttr))
      user->removeAttr(kTilingAttr);
  gemm.getResult(0).replaceAllUsesWith(c);
  gemm->erase();
}

/// Rewrites each marked [B, M, K] x [K, N] GEMM (and its activation
/// epilogue) to run on packed weights: C[b, m, nb, r] += A[b, m, k] *
/// P[nb, k, r] over the output viewed as [B, M, N/W, W]. Each register
/// tile then reads one contiguous W-float row of a panel per k step,
/// instead of one row of B 4N bytes from the previous one (a new page
/// every step for N >= 1024).
static void packGemms(ModuleOp module, Type storage) {
  // GEMMs not yet on panels (4 loops: b, m, n, k), each with the op that
  // carries its tiling (itself, or its epilogue).
  SmallVector<std::pair<linalg::GenericOp, GemmTilingAttr>> gemms;
  module.walk([&](linalg::GenericOp op) {
    if (op->hasAttr(kGemmAttr) && op.getNumLoops() == 4)
      gemms.push_back({op, tilingOf(op)});
    else if (op->hasAttr(kEpilogueAttr))
      if (auto g = op.getDpsInputs()[0].getDefiningOp<linalg::GenericOp>();
          g && g.getNumLoops() == 4)
        gemms.push_back({g, tilingOf(op)});
  });
  MLIRContext *ctx = module.getContext();
  for (auto [gemm, tiling] : gemms) {
    if (!tiling)
      continue;
    if (tiling.getDot()) {
      dotGemm(gemm, tiling, storage);
      continue;
    }
    OpBuilder b(gemm);
    Location loc = gemm.getLoc();
    Value a = gemm.getDpsInputs()[0], w = gemm.getDpsInputs()[1];
    Value init = gemm.getDpsInits()[0];
    int64_t n = cast<RankedTensorType>(w.getType()).getDimSize(1);
    int64_t width = tiling.getPanel();
    // N not a multiple of W: the last panel is zero-padded, the GEMM (and
    // its epilogue) computes whole panels, and its readers see the first N
    // columns. At most W - 1 columns of extra work, where a plain
    // contraction ran 40x slower (N = 2047, docs/design.md "GEMM tiling").
    int64_t padded = llvm::alignTo(n, width);
    // bf16 k-pair panels: in the bf16 compute mode A rounded to bf16
    // k-pairs by a row kernel in front of the GEMM; with widen_pairs (bf16
    // weights, f32 arithmetic) A's f32 values viewed as pairs.
    bool pairs = onKPairs(tiling);
    Value panels = packPanels(b, loc, w, width, storage, pairs);
    if (pairs)
      a = pairsFor(b, loc, a, tiling);
    Value paddedInit = padColumns(b, loc, init, padded);
    linalg::GenericOp epi;
    for (Operation *user : gemm->getUsers())
      if (user->hasAttr(kEpilogueAttr))
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
          {sizes[0], b.getIndexAttr(padded / width), sizes[1],
           b.getIndexAttr(width)},
          cast<RankedTensorType>(init.getType()).getElementType());
      SmallVector<OpFoldResult> zeros(2, b.getIndexAttr(0));
      init4 = headsInit(b, loc, paddedInit, empty, zeros,
                        {sizes[0], sizes[1]}, 0, padded, width);
    } else {
      init4 = splitColumns(b, loc, paddedInit, width);
    }
    linalg::GenericOp packed =
        createPackedGemm(b, loc, a, panels, init4, panelMajor, pairs);
    packed.getRegion().takeBody(gemm.getRegion());
    widenNarrowOperands(packed);
    if (gemm->hasAttr(kGemmAttr)) {
      packed->setAttr(kGemmAttr, UnitAttr::get(ctx));
      packed->setAttr(kTilingAttr, tiling);
    }
    // The epilogue follows the GEMM into the [B, M, N/W, W] view.
    if (epi) {
      b.setInsertionPoint(epi);
      Value out4 = splitColumns(
          b, loc, padColumns(b, loc, epi.getDpsInits()[0], padded), width);
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
      e4->setAttr(kEpilogueAttr, UnitAttr::get(ctx));
      e4->setAttr(kTilingAttr, tiling);
      b.setInsertionPointAfter(epi);
      epi.getResult(0).replaceAllUsesWith(dropPadding(
          b, loc, joinColumns(b, loc, e4.getResult(0)), n));
      epi->erase();
    }
    // What else reads the GEMM (extents of its consumers' outputs).
    b.setInsertionPointAfter(gemm);
    if (panelMajor) {
      for (Operation *user : llvm::make_early_inc_range(gemm->getUsers()))
        cast<tensor::DimOp>(user).getSourceMutable().assign(init);
    } else {
      gemm.getResult(0).replaceAllUsesWith(
          dropPadding(b, loc, joinColumns(b, loc, packed.getResult(0)), n));
    }
    gemm->erase();
    if (paddedInit != init)
      if (Operation *old = paddedInit.getDefiningOp();
          old && isOpTriviallyDead(old))
        old->erase();
    if (Operation *old = init.getDefiningOp(); old && isOpTriviallyDead(old))
      old->erase();
  }
}

namespace {
struct AttunePackGemmsPass
    : mlir::attune::impl::AttunePackGemmsBase<AttunePackGemmsPass> {
  using Base::Base;
  void runOnOperation() override {
    Type storage = panelStorage(getOperation(), getArgument(), weightType);
    if (!storage)
      return signalPassFailure();
    packGemms(getOperation(), storage);
  }
};
} // namespace
