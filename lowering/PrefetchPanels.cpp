//===- PrefetchPanels.cpp - prefetch the GEMMs' next weight slice ---------===//

#include "lowering/Passes.h"

#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/SCF/Utils/Utils.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::attune {
#define GEN_PASS_DEF_ATTUNEPREFETCHPANELS
#include "lowering/Passes.h.inc"
} // namespace mlir::attune

using namespace mlir;

/// The read of one W-float row of a packed panel `[N/W, K, W]` (contiguous,
/// f32) in `kLoop`'s body whose k index moves with the loop; null if there
/// is none.
static vector::TransferReadOp panelRead(scf::ForOp kLoop) {
  for (auto read : kLoop.getBody()->getOps<vector::TransferReadOp>()) {
    auto type = dyn_cast<MemRefType>(read.getBase().getType());
    if (!type || type.getRank() != 3 || !type.hasStaticShape() ||
        !type.getLayout().isIdentity() || !type.getElementType().isF32() ||
        read.getVectorType().getShape().back() != type.getDimSize(2))
      continue;
    Value k = read.getIndices()[1];
    if (k == kLoop.getInductionVar())
      return read;
    if (auto apply = k.getDefiningOp<affine::AffineApplyOp>();
        apply && llvm::is_contained(apply.getOperands(),
                                    kLoop.getInductionVar()))
      return read;
  }
  return nullptr;
}

/// In the k loop of a register tile (`rows` rows of `rowLoop`'s cache tile),
/// next to the weight prefetch already at the builder's insertion point,
/// one of the next register tile's accumulator lines: line k/8 of its
/// rows x W floats, into L1.
static void prefetchNextAccumulators(scf::ForOp kLoop, scf::ForOp rowLoop,
                                     int64_t rows, OpBuilder &b,
                                     Location loc) {
  if (kLoop.getNumResults() != 1)
    return;
  vector::TransferWriteOp write;
  for (Operation *user : kLoop.getResult(0).getUsers())
    if (auto w = dyn_cast<vector::TransferWriteOp>(user);
        w && w->getBlock() == rowLoop.getBody())
      write = w;
  if (!write)
    return;
  auto view = write.getBase().getDefiningOp<memref::SubViewOp>();
  if (!view || view.getSourceType().getRank() != 4)
    return;
  SmallVector<OpFoldResult> offsets = view.getMixedOffsets();
  int64_t rowDim = -1;
  for (int64_t d : {1, 2})
    if (offsets[d] == OpFoldResult(rowLoop.getInductionVar()))
      rowDim = d;
  int64_t width = view.getSourceType().getDimSize(3);
  if (rowDim < 0 || ShapedType::isDynamic(width) || width % 16 ||
      !isZeroInteger(offsets[0]) || !isZeroInteger(offsets[3 - rowDim]) ||
      !isZeroInteger(offsets[3]))
    return;
  ArithBuilder ab(b, loc);
  auto cst = [&](int64_t v) {
    return arith::ConstantIndexOp::create(b, loc, v).getResult();
  };
  int64_t linesPerRow = width / 16;
  Value slot = arith::DivUIOp::create(b, loc, kLoop.getInductionVar(), cst(8));
  Value row = ab.add(ab.add(rowLoop.getInductionVar(), cst(rows)),
                     arith::DivUIOp::create(b, loc, slot, cst(linesPerRow)));
  Value last = ab.sub(
      memref::DimOp::create(b, loc, view.getSource(), rowDim).getResult(),
      cst(1));
  row = arith::MinUIOp::create(b, loc, row, last);
  Value col = ab.mul(arith::RemUIOp::create(b, loc, slot, cst(linesPerRow)),
                     cst(16));
  SmallVector<Value> at(4, cst(0));
  at[rowDim] = row;
  at[3] = col;
  memref::PrefetchOp::create(b, loc, view.getSource(), at, /*isWrite=*/false,
                             /*localityHint=*/3, /*isDataCache=*/true);
}

/// Adds the prefetches to one register tile's k loop (see the pass
/// description); false where the loop nest is not the schedule's.
static bool prefetchNextSlice(scf::ForOp kLoop) {
  auto rowLoop = dyn_cast<scf::ForOp>(kLoop->getParentOp());
  std::optional<int64_t> kLower = getConstantIntValue(kLoop.getLowerBound());
  std::optional<int64_t> kStep = getConstantIntValue(kLoop.getStep());
  if (!rowLoop || kLower != 0 || kStep != 1)
    return false;
  std::optional<int64_t> rows = getConstantIntValue(rowLoop.getStep());
  vector::TransferReadOp read = panelRead(kLoop);
  if (!rows || *rows <= 0 || !read)
    return false;
  auto type = cast<MemRefType>(read.getBase().getType());
  int64_t depth = type.getDimSize(1), width = type.getDimSize(2);
  int64_t size = type.getNumElements();
  // Prefetch whole 64-byte lines, within the buffer.
  if (width % 16 != 0 || size < 16)
    return false;

  // One prefetch per 8 k steps: unrolled by 8 where the steps divide (the
  // loop's own increment and compare then go once per 8 steps, too).
  if (std::optional<int64_t> kUpper = getConstantIntValue(kLoop.getUpperBound());
      kUpper && *kUpper % 8 == 0 && *kUpper > 8)
    if (failed(loopUnrollByFactor(kLoop, 8)))
      return false;

  // The panel as one flat buffer, next to its definition.
  OpBuilder b(kLoop.getContext());
  Value panel = read.getBase();
  b.setInsertionPointAfterValue(panel);
  Location loc = read.getLoc();
  Value flat = memref::CollapseShapeOp::create(
      b, loc, panel, ArrayRef<ReassociationIndices>{{0, 1, 2}});

  b.setInsertionPoint(read);
  ArithBuilder ab(b, loc);
  auto cst = [&](int64_t v) {
    return arith::ConstantIndexOp::create(b, loc, v).getResult();
  };
  Value k = kLoop.getInductionVar(), kCount = kLoop.getUpperBound();
  Value nb = read.getIndices()[0], row = read.getIndices()[1];
  // This k tile's first panel row, and the next tile's: the row after its
  // last (the next k tile of the panel, or the next panel's first).
  Value next = ab.add(ab.sub(row, k), kCount);
  Value start = ab.mul(ab.add(ab.mul(nb, cst(depth)), next), cst(width));
  // Register tile t of the cache tile fetches lines [2 t kCount / 16, ...),
  // one line every 8 k steps.
  Value tile = arith::DivUIOp::create(
      b, loc, ab.sub(rowLoop.getInductionVar(), rowLoop.getLowerBound()),
      cst(*rows));
  Value offset =
      ab.add(ab.mul(ab.mul(tile, kCount), cst(2)),
             ab.mul(arith::DivUIOp::create(b, loc, k, cst(8)), cst(16)));
  // The last tile of the last panel has no next slice: stay in bounds.
  Value at = arith::MinUIOp::create(b, loc, ab.add(start, offset),
                                    cst(size - 16));
  memref::PrefetchOp::create(b, loc, flat, ValueRange{at}, /*isWrite=*/false,
                             /*localityHint=*/2, /*isDataCache=*/true);
  prefetchNextAccumulators(kLoop, rowLoop, *rows, b, loc);
  return true;
}

namespace {
struct AttunePrefetchPanelsPass
    : mlir::attune::impl::AttunePrefetchPanelsBase<AttunePrefetchPanelsPass> {
  void runOnOperation() override {
    SmallVector<scf::ForOp> loops;
    getOperation()->walk([&](scf::ForOp loop) {
      if (loop->removeAttr(attune::kPanelKLoopAttr))
        loops.push_back(loop);
    });
    bool changed = false;
    for (scf::ForOp loop : loops)
      changed |= prefetchNextSlice(loop);
    // Fold the index arithmetic and gather its constants (the greedy
    // driver's folding, no patterns).
    if (changed)
      (void)applyPatternsGreedily(getOperation(),
                                  RewritePatternSet(&getContext()));
  }
};
} // namespace
