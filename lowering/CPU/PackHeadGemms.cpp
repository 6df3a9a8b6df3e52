//===- PackHeadGemms.cpp - GEMMs that write attention heads -----------------===//
//
// attune-pack-head-gemms: a GEMM whose output only attention heads read
// writes the heads directly, on packed weights (see packHeadsGemms).
//
//===----------------------------------------------------------------------===//

#include "lowering/CPU/CpuKernels.h"
#include "lowering/Passes.h"

#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Transforms/RegionUtils.h"

namespace mlir::attune {
#define GEN_PASS_DEF_ATTUNEPACKHEADGEMMS
#include "lowering/Passes.h.inc"
} // namespace mlir::attune

using namespace mlir;
using namespace mlir::attune;
using namespace mlir::attune::cpu;

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
static void packHeadsGemms(ModuleOp module, Type storage) {
  SmallVector<std::pair<linalg::GenericOp, SmallVector<linalg::TransposeOp>>>
      work;
  module.walk([&](linalg::GenericOp op) {
    GemmTilingAttr tiling = tilingOf(op);
    // (A dot tiling has no panels: N is narrower than any head.)
    if (!op->hasAttr(kGemmAttr) || !tiling || tiling.getDot() ||
        op.getNumLoops() != 4)
      return;
    // The heads are panels: the tiling's panel is the head size.
    int64_t width = tiling.getPanel();
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
    GemmTilingAttr tiling = tilingOf(gemm);
    int64_t width = tiling.getPanel();
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
    // bf16 k-pair panels (bf16_dot, widen_pairs): A as pairs (rounded once,
    // before the slices, for bf16_dot).
    bool pairs = onKPairs(tiling);
    Value panels = packPanels(b, loc, w, width, storage, pairs);
    Value aPairs = pairs ? pairsFor(b, loc, a, tiling) : Value();
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
      // (k-pairs: the same slices with K as [K/2, 2].)
      auto kDims = [&](int64_t at) {
        return pairs ? SmallVector<OpFoldResult>{b.getIndexAttr(at / 2),
                                                 b.getIndexAttr(at ? 2 : 0)}
                     : SmallVector<OpFoldResult>{b.getIndexAttr(at)};
      };
      SmallVector<OpFoldResult> rowOffsets{offsets[0], offsets[1]},
          rowSizes{extents[0], extents[1]};
      llvm::append_range(rowOffsets, kDims(0));
      llvm::append_range(rowSizes, kDims(k));
      Value rows = tensor::ExtractSliceOp::create(
          b, loc, pairs ? aPairs : a, rowOffsets, rowSizes,
          SmallVector<OpFoldResult>(rowSizes.size(), b.getIndexAttr(1)));
      SmallVector<OpFoldResult> partOffsets{b.getIndexAttr(offset / width)},
          partSizes{b.getIndexAttr(size / width)};
      llvm::append_range(partOffsets, kDims(0));
      llvm::append_range(partSizes, kDims(k));
      partOffsets.insert(partOffsets.begin() + 2, b.getIndexAttr(0));
      partSizes.insert(partSizes.begin() + 2, b.getIndexAttr(width));
      Value part = tensor::ExtractSliceOp::create(
          b, loc, panels, partOffsets, partSizes,
          SmallVector<OpFoldResult>(partSizes.size(), b.getIndexAttr(1)));
      Value empty = tensor::EmptyOp::create(
          b, loc,
          {extents[0], b.getIndexAttr(size / width), extents[1],
           b.getIndexAttr(width)},
          type.getElementType());
      Value hinit = headsInit(b, loc, init, empty, offsets, extents, offset,
                              size, width);
      linalg::GenericOp packed = createPackedGemm(b, loc, rows, part, hinit,
                                                  /*panelMajor=*/true, pairs);
      IRMapping map;
      gemm.getRegion().cloneInto(&packed.getRegion(), map);
      widenNarrowOperands(packed);
      packed->setAttr(kGemmAttr, UnitAttr::get(ctx));
      packed->setAttr(kTilingAttr, tiling);
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

namespace {
struct AttunePackHeadGemmsPass
    : mlir::attune::impl::AttunePackHeadGemmsBase<AttunePackHeadGemmsPass> {
  using Base::Base;
  void runOnOperation() override {
    Type storage = panelStorage(getOperation(), getArgument(), weightType);
    if (!storage)
      return signalPassFailure();
    packHeadsGemms(getOperation(), storage);
  }
};
} // namespace
