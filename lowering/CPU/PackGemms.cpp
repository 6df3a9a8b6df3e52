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
    // The bf16 compute mode: weights as bf16 k-pairs, A rounded to bf16
    // k-pairs by a row kernel in front of the GEMM.
    bool pairs = tiling.getBf16Dot();
    Value panels = packPanels(b, loc, w, width, storage, pairs);
    if (pairs)
      a = roundToPairs(b, loc, a);
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
