//===- FuseGemmInits.cpp - GEMM inits into their tiles ----------------------===//
//
// attune-fuse-gemm-inits: each GEMM's init (zero fill or bias) is rebuilt on
// the packed output's view and fused into the GEMM's cache tiles, and each
// attention tile GEMM's accumulator init into its register tiles (see
// fuseGemmInits and fuseTileGemmInits).
//
//===----------------------------------------------------------------------===//

#include "lowering/CPU/CpuKernels.h"
#include "lowering/Passes.h"

#include "mlir/Dialect/Tensor/IR/Tensor.h"

namespace mlir::attune {
#define GEN_PASS_DEF_ATTUNEFUSEGEMMINITS
#include "lowering/Passes.h.inc"
} // namespace mlir::attune

using namespace mlir;
using namespace mlir::attune;
using namespace mlir::attune::cpu;

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
    if (op->hasAttr(kGemmAttr) && tilingOf(op))
      gemms.push_back(op);
    else if (op->hasAttr(kEpilogueAttr))
      if (auto g = op.getDpsInputs()[0].getDefiningOp<linalg::GenericOp>())
        epilogueGemms.push_back(g);
  });
  MLIRContext *ctx = module.getContext();
  IRRewriter rewriter(ctx);
  for (linalg::GenericOp gemm : epilogueGemms)
    rebuildInit(rewriter, gemm, /*copy=*/true)
        ->setAttr(kInitTileAttr, UnitAttr::get(ctx));
  for (linalg::GenericOp gemm : gemms) {
    GemmTilingAttr tiling = tilingOf(gemm);
    int64_t rows = tiling.getCacheRows();
    Operation *init = rebuildInit(rewriter, gemm, /*copy=*/false);
    if (!init)
      continue;
    // Cache tiles [1, 128, 1, -, -] (one panel) with the init fused as the
    // destination: scf.for loops, or an scf.forall over 128 x 128 tiles
    // (which already are one batch and up to 128 rows) around an scf.for
    // over their panels.
    SmallVector<std::pair<SmallVector<int64_t>, bool>> levels;
    if (parallel)
      levels.push_back(
          {{1, rows, tiling.getForallPanels(), 0, 0}, /*forall=*/true});
    levels.push_back({{parallel ? 0 : 1, parallel ? 0 : rows, 1, 0, 0},
                      /*forall=*/false});
    // The first level replaces `gemm`: report at its location.
    Location loc = gemm.getLoc();
    linalg::GenericOp tile = gemm;
    Operation *producer = init;
    for (auto &[sizes, forall] : levels) {
      // (The bf16 compute mode's k-pair loop: never tiled.)
      sizes.resize(tile.getNumLoops(), 0);
      FailureOr<scf::SCFTileAndFuseResult> r =
          tileAndFuseDestination(rewriter, tile, producer, sizes, forall);
      if (failed(r))
        return emitError(loc, "attune-fuse-gemm-inits: cannot fuse the GEMM's init");
      // The tiled GEMM (the op with a reduction) and the init's tile.
      tile = nullptr;
      producer = nullptr;
      for (Operation *op : r->tiledAndFusedOps) {
        if (auto g = dyn_cast<linalg::GenericOp>(op);
            g && g.getNumReductionLoops() >= 1)
          tile = g;
        else
          producer = op;
      }
      if (!tile || !producer)
        return emitError(loc, "attune-fuse-gemm-inits: cannot fuse the GEMM's init");
    }
    tile->removeAttr(kGemmAttr);
    tile->setAttr(kGemmCacheTileAttr, UnitAttr::get(ctx));
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
    if (op->hasAttr(kTileGemmAttr) && tilingOf(op))
      gemms.push_back(op);
  });
  MLIRContext *ctx = module.getContext();
  IRRewriter rewriter(ctx);
  for (linalg::GenericOp gemm : gemms) {
    GemmTilingAttr tiling = tilingOf(gemm);
    Operation *init = gemm.getDpsInits()[0].getDefiningOp();
    auto elementwise = [](Operation *op) {
      auto g = dyn_cast_or_null<linalg::GenericOp>(op);
      return g && g.getNumReductionLoops() == 0 && g->hasOneUse();
    };
    if (!isa_and_nonnull<linalg::FillOp>(init) && !elementwise(init))
      continue;
    FailureOr<scf::SCFTileAndFuseResult> tiled = tileAndFuseDestination(
        rewriter, gemm, init,
        ArrayRef<int64_t>{tiling.getRows(), tiling.getPanel(), 0},
        /*forall=*/false);
    if (failed(tiled))
      return gemm.emitError("attune-fuse-gemm-inits: cannot tile the tile GEMM");
    // The fused tile is vectorized whole (not row by row), so that the
    // GEMM's first read of it folds to the vector it wrote.
    for (auto [i, op] : llvm::enumerate(tiled->tiledAndFusedOps)) {
      op->removeAttr(kVectorizeAttr);
      op->setAttr(i == 0 ? StringRef(kTileGemmAttr)
                         : StringRef(kVectorize1DAttr),
                  UnitAttr::get(ctx));
    }
    if (init->use_empty())
      rewriter.eraseOp(init);
  }
  return success();
}

namespace {
struct AttuneFuseGemmInitsPass
    : mlir::attune::impl::AttuneFuseGemmInitsBase<AttuneFuseGemmInitsPass> {
  using Base::Base;
  void runOnOperation() override {
    ModuleOp module = getOperation();
    if (failed(fuseGemmInits(module, parallel)) ||
        failed(fuseTileGemmInits(module)))
      signalPassFailure();
  }
};
} // namespace
