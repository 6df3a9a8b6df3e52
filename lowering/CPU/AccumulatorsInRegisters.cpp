//===- AccumulatorsInRegisters.cpp - GEMM output tiles start in registers ---===//
//
// attune-accumulators-in-registers: after attune-tile-gemm, the register
// tiles' first reads of a fused init become the init row itself, and the
// fill goes (see initAccumulatorsInRegisters).
//
//===----------------------------------------------------------------------===//

#include "lowering/CPU/CpuKernels.h"
#include "lowering/Passes.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

namespace mlir::attune {
#define GEN_PASS_DEF_ATTUNEACCUMULATORSINREGISTERS
#include "lowering/Passes.h.inc"
} // namespace mlir::attune

using namespace mlir;
using namespace mlir::attune;
using namespace mlir::attune::cpu;


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
/// after ~1000 cycles of FMAs. Measured: bench/log/2026-11-kernels.md (GEMMs).
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
struct AttuneAccumulatorsInRegistersPass
    : mlir::attune::impl::AttuneAccumulatorsInRegistersBase<
          AttuneAccumulatorsInRegistersPass> {
  void runOnOperation() override {
    if (hasCpuKernels(getOperation()))
      initAccumulatorsInRegisters(getOperation());
  }
};
} // namespace
