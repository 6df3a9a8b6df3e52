//===- PrefetchPanels.cpp - prefetch the GEMMs' next weight slice ---------===//

#include "lowering/CPU/CpuTarget.h"
#include "lowering/Passes.h"

#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/SCF/Utils/Utils.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::attune {
#define GEN_PASS_DEF_ATTUNEPREFETCHPANELS
#include "lowering/Passes.h.inc"
} // namespace mlir::attune

using namespace mlir;

/// The read of one W-element row of a packed panel `[N/W, K, W]`
/// (contiguous, f32, bf16 or f16) in `kLoop`'s body whose k index moves with
/// the loop, or of its first chunk (a panel vectorized in chunks); null if
/// there is none.
static vector::TransferReadOp panelRead(scf::ForOp kLoop) {
  for (auto read : kLoop.getBody()->getOps<vector::TransferReadOp>()) {
    auto type = dyn_cast<MemRefType>(read.getBase().getType());
    if (!type || type.getRank() != 3 || !type.hasStaticShape() ||
        !type.getLayout().isIdentity() ||
        !(type.getElementType().isF32() || type.getElementType().isBF16() ||
          type.getElementType().isF16()) ||
        type.getDimSize(2) % read.getVectorType().getShape().back() ||
        !isZeroInteger(read.getIndices()[2]))
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

/// panelRead of a k loop that runs from 0 in steps of 1, else null.
static vector::TransferReadOp unitStepPanelRead(scf::ForOp kLoop) {
  if (getConstantIntValue(kLoop.getLowerBound()) != 0 ||
      getConstantIntValue(kLoop.getStep()) != 1)
    return nullptr;
  return panelRead(kLoop);
}

/// Elements of `type` per 64-byte line (16 f32, 32 bf16 or f16).
static int64_t lineElements(MemRefType type) {
  return 64 / (type.getElementTypeBitWidth() / 8);
}

/// The panels `read` reads as one flat buffer, made next to their
/// definition.
static Value flatPanels(OpBuilder &b, vector::TransferReadOp read) {
  OpBuilder::InsertionGuard guard(b);
  Value panel = read.getBase();
  b.setInsertionPointAfterValue(panel);
  return memref::CollapseShapeOp::create(
      b, read.getLoc(), panel, ArrayRef<ReassociationIndices>{{0, 1, 2}});
}

/// In the k loop of a register tile (`rows` rows of `rowLoop`'s cache tile),
/// next to the weight prefetch already at the builder's insertion point,
/// one of the next register tile's accumulator lines: line k/8 of its
/// rows x W floats, into L1.
static void prefetchNextAccumulators(scf::ForOp kLoop, scf::ForOp rowLoop,
                                     int64_t rows, Value slot, OpBuilder &b,
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
  MemRefType sourceType = view.getSourceType();
  int64_t width = sourceType.getDimSize(3);
  if (rowDim < 0 || ShapedType::isDynamic(width) || width % 16 ||
      !isZeroInteger(offsets[0]) || !isZeroInteger(offsets[3 - rowDim]) ||
      !isZeroInteger(offsets[3]))
    return;
  int64_t linesPerRow = width / 16;
  Value source = view.getSource();

  OpBuilder::InsertionGuard guard(b);
  OpBuilder::InsertPoint inLoop = b.saveInsertionPoint();
  ArithBuilder ab(b, loc);
  auto cst = [&](int64_t v) {
    return arith::ConstantIndexOp::create(b, loc, v).getResult();
  };
  // The rows the slots reach. Where there are no more of them than the view
  // has (a constant k tile of at most 8 x ROWS x W / 16 steps: 128 for a
  // 4 x 64 tile), the cache tile has them all (the view is in it), so the
  // next tile's first row is clamped once, before the loop, to the last
  // that leaves them all in the tile, and each slot only adds its line.
  std::optional<int64_t> kCount = getConstantIntValue(kLoop.getUpperBound());
  int64_t viewRows = view.getStaticSizes()[rowDim];
  int64_t reach =
      kCount ? llvm::divideCeilSigned(
                   llvm::divideCeilSigned(*kCount, int64_t(8)), linesPerRow)
             : 0;
  if (!kCount || ShapedType::isDynamic(viewRows) || reach > viewRows) {
    // Elsewhere, each slot's row is clamped to the last.
    Value row = ab.add(ab.add(rowLoop.getInductionVar(), cst(rows)),
                       arith::DivUIOp::create(b, loc, slot, cst(linesPerRow)));
    Value last = ab.sub(
        memref::DimOp::create(b, loc, source, rowDim).getResult(), cst(1));
    SmallVector<Value> at(4, cst(0));
    at[rowDim] = arith::MinUIOp::create(b, loc, row, last);
    at[3] =
        ab.mul(arith::RemUIOp::create(b, loc, slot, cst(linesPerRow)), cst(16));
    memref::PrefetchOp::create(b, loc, source, at, /*isWrite=*/false,
                               /*localityHint=*/3, /*isDataCache=*/true);
    return;
  }
  b.setInsertionPoint(kLoop);
  Value first = arith::MinUIOp::create(
      b, loc, ab.add(rowLoop.getInductionVar(), cst(rows)),
      ab.sub(memref::DimOp::create(b, loc, source, rowDim).getResult(),
             cst(reach)));
  auto [strides, unusedOffset] = sourceType.getStridesAndOffset();
  if (rowDim == 2 && strides[3] == 1 && strides[2] == width) {
    // Rows one after another in memory: the lines are a contiguous run,
    // line `slot` of the run from row `first`, through a view of the tile
    // with its rows flattened, next to the tile. LLVM strength-reduces the
    // index to a pointer that moves one line per slot.
    b.setInsertionPointAfterValue(source);
    Value flat = memref::CollapseShapeOp::create(
        b, loc, source, ArrayRef<ReassociationIndices>{{0}, {1}, {2, 3}});
    b.setInsertionPoint(kLoop);
    Value start = ab.mul(first, cst(width));
    b.restoreInsertionPoint(inLoop);
    memref::PrefetchOp::create(
        b, loc, flat,
        ValueRange{cst(0), cst(0), ab.add(start, ab.mul(slot, cst(16)))},
        /*isWrite=*/false, /*localityHint=*/3, /*isDataCache=*/true);
    return;
  }
  // Row `slot floordiv (W / 16)` after `first`, line `slot mod (W / 16)` of
  // it.
  b.restoreInsertionPoint(inLoop);
  SmallVector<Value> at(4, cst(0));
  at[rowDim] =
      ab.add(first, arith::DivUIOp::create(b, loc, slot, cst(linesPerRow)));
  at[3] =
      ab.mul(arith::RemUIOp::create(b, loc, slot, cst(linesPerRow)), cst(16));
  memref::PrefetchOp::create(b, loc, source, at, /*isWrite=*/false,
                             /*localityHint=*/3, /*isDataCache=*/true);
}

/// In the k loop of a register tile, next to the weight prefetch at the
/// builder's insertion point, the next register tile's rows of the GEMM's
/// other operand A [B, M, K] (read as `rows` x 1 vectors at the panel
/// read's k index `kIndex`), into L1: the rows x kc floats of the k tile,
/// rows / 2 lines per 8-step slot, slot s line s floordiv 2 of half s mod 2
/// of the rows. Where A is larger than L2 (K = 3072: 1.5 MiB per 128-row
/// cache tile, read once per panel) its lines come from L3, and the first
/// k step of each slot waited for them.
static void prefetchNextRows(scf::ForOp kLoop, Value kIndex, int64_t rows,
                             Value slot, OpBuilder &b, Location loc) {
  std::optional<int64_t> kCount = getConstantIntValue(kLoop.getUpperBound());
  if (!kCount || *kCount % 16 || rows % 2)
    return;
  vector::TransferReadOp aRead;
  for (auto read : kLoop.getBody()->getOps<vector::TransferReadOp>()) {
    auto type = dyn_cast<MemRefType>(read.getBase().getType());
    if (!type || type.getRank() != 3 || !type.getElementType().isF32() ||
        read.getVectorType().getShape() != ArrayRef<int64_t>{1, rows, 1} ||
        !read.getPermutationMap().isIdentity() ||
        read.getIndices()[2] != kIndex ||
        !kLoop.isDefinedOutsideOfLoop(read.getIndices()[1]) ||
        !kLoop.isDefinedOutsideOfLoop(read.getIndices()[0]) ||
        !llvm::all_of(read.getInBoundsValues(), [](bool b) { return b; }))
      continue;
    aRead = read;
    break;
  }
  if (!aRead)
    return;
  Value a = aRead.getBase();
  OpBuilder::InsertionGuard guard(b);
  OpBuilder::InsertPoint inLoop = b.saveInsertionPoint();
  ArithBuilder ab(b, loc);
  auto cst = [&](int64_t v) {
    return arith::ConstantIndexOp::create(b, loc, v).getResult();
  };
  // The next tile's first row, clamped before the loop so that all of its
  // rows are in A (the read is in bounds, so A has `rows` rows).
  b.setInsertionPoint(kLoop);
  Value first = arith::MinUIOp::create(
      b, loc, ab.add(aRead.getIndices()[1], cst(rows)),
      ab.sub(memref::DimOp::create(b, loc, a, 1).getResult(), cst(rows)));
  b.restoreInsertionPoint(inLoop);
  // Column: the k tile's first, plus 16 per two slots.
  Value k =
      ab.add(ab.sub(kIndex, kLoop.getInductionVar()),
             ab.mul(arith::DivUIOp::create(b, loc, slot, cst(2)), cst(16)));
  Value half =
      ab.add(first, ab.mul(arith::RemUIOp::create(b, loc, slot, cst(2)),
                           cst(rows / 2)));
  for (int64_t r = 0; r < rows / 2; ++r)
    memref::PrefetchOp::create(
        b, loc, a, ValueRange{aRead.getIndices()[0], ab.add(half, cst(r)), k},
        /*isWrite=*/false, /*localityHint=*/3, /*isDataCache=*/true);
}

/// Adds the prefetches to one register tile's k loop (see the pass
/// description); false where the loop nest is not the schedule's.
static bool prefetchNextSlice(scf::ForOp kLoop) {
  auto rowLoop = dyn_cast<scf::ForOp>(kLoop->getParentOp());
  vector::TransferReadOp read = unitStepPanelRead(kLoop);
  if (!rowLoop || !read)
    return false;
  std::optional<int64_t> rows = getConstantIntValue(rowLoop.getStep());
  if (!rows || *rows <= 0)
    return false;
  auto type = cast<MemRefType>(read.getBase().getType());
  int64_t depth = type.getDimSize(1), width = type.getDimSize(2);
  int64_t size = type.getNumElements();
  // Prefetch whole 64-byte lines, within the buffer: a run of them from the
  // next slice's first element, which need not start a line (panels of 24
  // f32 columns are 1.5 lines a row).
  int64_t line = lineElements(type);
  if (size < line)
    return false;

  // One prefetch per 8 k steps: unrolled by 8 where the steps divide (the
  // loop's own increment and compare then go once per 8 steps, too).
  if (std::optional<int64_t> kUpper = getConstantIntValue(kLoop.getUpperBound());
      kUpper && *kUpper % 8 == 0 && *kUpper > 8)
    if (failed(loopUnrollByFactor(kLoop, 8)))
      return false;

  OpBuilder b(kLoop.getContext());
  Location loc = read.getLoc();
  Value flat = flatPanels(b, read);

  auto cst = [&](int64_t v) {
    return arith::ConstantIndexOp::create(b, loc, v).getResult();
  };
  // The k loop's 8-step slots.
  Value kCount = kLoop.getUpperBound();
  b.setInsertionPoint(kLoop);
  Value slots = arith::CeilDivUIOp::create(b, loc, kCount, cst(8));

  b.setInsertionPoint(read);
  ArithBuilder ab(b, loc);
  Value k = kLoop.getInductionVar();
  Value nb = read.getIndices()[0], row = read.getIndices()[1];
  // This k tile's first panel row, and the next tile's: the row after its
  // last (the next k tile of the panel, or the next panel's first).
  Value next = ab.add(ab.sub(row, k), kCount);
  Value start = ab.mul(ab.add(ab.mul(nb, cst(depth)), next), cst(width));
  // Register tile t of the cache tile fetches lines [t kCount / 8, ...),
  // one line every 8 k steps. The last tile of the last panel has no next
  // slice: its first line is clamped so that all of its lines are in the
  // buffer (kCount x W floats are, so ceil(kCount / 8) lines are). That
  // part does not depend on k, so LLVM hoists it; each slot adds its line.
  Value tile = arith::DivUIOp::create(
      b, loc, ab.sub(rowLoop.getInductionVar(), rowLoop.getLowerBound()),
      cst(*rows));
  Value first = arith::MinUIOp::create(
      b, loc, ab.add(start, ab.mul(ab.mul(tile, kCount), cst(line / 8))),
      ab.sub(cst(size), ab.mul(slots, cst(line))));
  Value slot = arith::DivUIOp::create(b, loc, k, cst(8));
  Value at = ab.add(first, ab.mul(slot, cst(line)));
  memref::PrefetchOp::create(b, loc, flat, ValueRange{at}, /*isWrite=*/false,
                             /*localityHint=*/2, /*isDataCache=*/true);
  prefetchNextAccumulators(kLoop, rowLoop, *rows, slot, b, loc);
  prefetchNextRows(kLoop, row, *rows, slot, b, loc);
  return true;
}

/// The k loop of a single row (the last rows of a cache tile, all of a
/// decoding step's) on 16-bit (bf16, f16) panels: nothing else shares the next
/// slice's lines, so each k step fetches its own row of the next k tile (kCount
/// rows ahead in the panel buffer, W elements: one prefetch per 64-byte
/// line), into L2. Only on targets whose model asks for it
/// (CpuTarget::prefetchHalfRows).
static bool prefetchRowSlice(scf::ForOp kLoop) {
  vector::TransferReadOp read = unitStepPanelRead(kLoop);
  if (!read)
    return false;
  auto type = cast<MemRefType>(read.getBase().getType());
  int64_t depth = type.getDimSize(1), width = type.getDimSize(2);
  int64_t size = type.getNumElements();
  int64_t line = lineElements(type);
  // Measured (Emerald Rapids, 1 thread, M = 1): bf16 panels 2-3.2x faster
  // with it (768 x 768: 52 -> 22 us against f32's; 768 -> 50257: 9.4 ->
  // 2.9 ms), f32 panels 5-25 % slower (the hardware prefetcher keeps up
  // with them): f32 goes without.
  if (type.getElementTypeBitWidth() != 16 || size < width)
    return false;
  OpBuilder b(kLoop.getContext());
  Location loc = read.getLoc();
  Value flat = flatPanels(b, read);
  b.setInsertionPoint(read);
  ArithBuilder ab(b, loc);
  auto cst = [&](int64_t v) {
    return arith::ConstantIndexOp::create(b, loc, v).getResult();
  };
  Value nb = read.getIndices()[0], row = read.getIndices()[1];
  // The same row of the next k tile (or of the next panel), clamped to the
  // buffer's last row; a row narrower than a line (24 columns: 48 bytes)
  // gets one prefetch, which with the next steps' covers every line.
  Value ahead = ab.add(ab.add(ab.mul(nb, cst(depth)), row),
                       kLoop.getUpperBound());
  Value start = arith::MinUIOp::create(b, loc, ab.mul(ahead, cst(width)),
                                       cst(size - width));
  for (int64_t l = 0; l < width; l += line)
    memref::PrefetchOp::create(b, loc, flat, ValueRange{ab.add(start, cst(l))},
                               /*isWrite=*/false, /*localityHint=*/2,
                               /*isDataCache=*/true);
  return true;
}

namespace {
struct AttunePrefetchPanelsPass
    : mlir::attune::impl::AttunePrefetchPanelsBase<AttunePrefetchPanelsPass> {
  using Base::Base;
  void runOnOperation() override {
    SmallVector<scf::ForOp> loops, rowLoops;
    getOperation()->walk([&](scf::ForOp loop) {
      // attune-split-accumulators drops the marks.
      if (loop->hasAttr(attune::kPanelKLoopAttr))
        loops.push_back(loop);
      if (loop->hasAttr(attune::kRowKLoopAttr))
        rowLoops.push_back(loop);
    });
    bool changed = false;
    for (scf::ForOp loop : loops)
      changed |= prefetchNextSlice(loop);
    if (!rowLoops.empty()) {
      std::string error;
      std::optional<attune::cpu::CpuTarget> target =
          attune::cpu::lookupCpuTarget(cpu, features, error);
      if (!target) {
        getOperation()->emitError("attune-prefetch-panels: ") << error;
        return signalPassFailure();
      }
      if (target->prefetchHalfRows)
        for (scf::ForOp loop : rowLoops)
          changed |= prefetchRowSlice(loop);
    }
    // Fold the index arithmetic and gather its constants (the greedy
    // driver's folding, no patterns).
    if (changed)
      (void)applyPatternsGreedily(getOperation(),
                                  RewritePatternSet(&getContext()));
  }
};
} // namespace
