//===- SplitAccumulators.cpp - enough FMA chains in a GEMM's k loop -----===//
//
// attune-split-accumulators: a GEMM's k loop carries its register tile's
// vectors as accumulators, one FMA chain each. A single row of a 16-column
// panel (a GEMM's last row, all of a decoding step's) is one chain: one
// dependent FMA per k step, at the FMA latency. The loop is unrolled by U,
// each copy of the body accumulating into its own copy of the accumulators
// (the first from the loop's init, the others from zero), and the copies
// are added after the loop: U times the chains, the same products, added in
// another order. Only where the accumulators are carried lane for lane
// (every lane of an iter_arg reaches the same lane of the yield, with
// additions on the way and nothing else), so that the sum of the copies is
// the loop's result.
//
//===----------------------------------------------------------------------===//

#include "dialect/Markers.h"
#include "lowering/CPU/CpuTarget.h"
#include "lowering/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Dialect/X86Vector/X86VectorDialect.h"
#include "mlir/IR/IRMapping.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/Support/MathExtras.h"

namespace mlir::attune {
#define GEN_PASS_DEF_ATTUNESPLITACCUMULATORS
#include "lowering/Passes.h.inc"
} // namespace mlir::attune

using namespace mlir;

namespace {
/// Where a value of the body comes from, lane by lane: (iter_arg, lane)
/// pairs of the loop's accumulators.
using Lanes = SmallVector<std::pair<unsigned, int64_t>>;

int64_t elementCount(Type type) {
  if (auto vector = dyn_cast<VectorType>(type))
    return vector.getNumElements();
  return 1;
}
} // namespace

/// Whether each of `loop`'s iter_args is a float vector carried lane for
/// lane to the same position of the yield, through extracts, shape casts,
/// broadcasts that add unit dims, element splits and joins, and as the
/// accumulator of FMAs, bf16 dots and additions (each adding to the lanes
/// something that does not depend on any accumulator); every other use of
/// an accumulator lane disqualifies the loop.
static bool carriesLaneForLane(scf::ForOp loop) {
  if (loop.getNumRegionIterArgs() == 0)
    return false;
  llvm::DenseMap<Value, Lanes> lanes;
  for (auto [i, arg] : llvm::enumerate(loop.getRegionIterArgs())) {
    auto type = dyn_cast<VectorType>(arg.getType());
    if (!type || !isa<FloatType>(type.getElementType()) ||
        !type.hasStaticShape())
      return false;
    Lanes &l = lanes[arg];
    for (int64_t e = 0, n = type.getNumElements(); e < n; ++e)
      l.push_back({static_cast<unsigned>(i), e});
  }
  auto tracked = [&](Value v) { return lanes.contains(v); };
  // Whether `operand` is the only one of its op that an accumulator feeds
  // (an FMA of the accumulator by itself is not an accumulation).
  auto onlyTracked = [&](OpOperand &operand) {
    return llvm::all_of(operand.getOwner()->getOpOperands(), [&](OpOperand &o) {
      return &o == &operand || !tracked(o.get());
    });
  };
  Block *body = loop.getBody();
  for (Operation &op : body->without_terminator()) {
    if (llvm::none_of(op.getOperands(), tracked))
      continue;
    if (auto extract = dyn_cast<vector::ExtractOp>(op)) {
      // vector.extract %acc[i, j]: a contiguous run of the source's lanes.
      if (!extract.getDynamicPosition().empty() ||
          !onlyTracked(extract.getSourceMutable()))
        return false;
      auto type = cast<VectorType>(extract.getSource().getType());
      ArrayRef<int64_t> position = extract.getStaticPosition();
      int64_t offset = 0, stride = type.getNumElements();
      for (auto [d, p] : llvm::enumerate(position)) {
        stride /= type.getDimSize(d);
        offset += p * stride;
      }
      // (A copy: inserting into the map may move the source's lanes.)
      Lanes source = lanes[extract.getSource()];
      lanes[extract.getResult()] =
          Lanes(source.begin() + offset, source.begin() + offset + stride);
      continue;
    }
    if (isa<vector::ShapeCastOp>(op) ||
        (isa<vector::BroadcastOp>(op) &&
         elementCount(op.getOperand(0).getType()) ==
             elementCount(op.getResult(0).getType()))) {
      Lanes source = lanes[op.getOperand(0)];
      lanes[op.getResult(0)] = std::move(source);
      continue;
    }
    if (auto split = dyn_cast<vector::ToElementsOp>(op)) {
      Lanes source = lanes[split.getSource()];
      for (auto [e, result] : llvm::enumerate(split.getResults()))
        lanes[result] = Lanes{source[e]};
      continue;
    }
    if (auto join = dyn_cast<vector::FromElementsOp>(op)) {
      if (!llvm::all_of(join.getElements(), tracked))
        return false;
      Lanes all;
      for (Value element : join.getElements())
        llvm::append_range(all, lanes[element]);
      lanes[join.getResult()] = std::move(all);
      continue;
    }
    // The accumulating ops: the lanes go on with something added.
    OpOperand *acc = nullptr;
    if (auto fma = dyn_cast<vector::FMAOp>(op))
      acc = &fma.getAccMutable();
    else if (auto dot = dyn_cast<x86vector::DotBF16Op>(op))
      acc = &dot.getSrcMutable();
    else if (auto add = dyn_cast<arith::AddFOp>(op))
      acc = tracked(add.getLhs()) ? &add.getLhsMutable() : &add.getRhsMutable();
    if (!acc || !onlyTracked(*acc))
      return false;
    Lanes source = lanes[acc->get()];
    lanes[op.getResult(0)] = std::move(source);
  }
  // Every use of a tracked value is one of the ops above or the yield (not
  // an op nested in a region of the body, which the walk did not see).
  for (auto &[value, l] : lanes)
    for (Operation *user : value.getUsers())
      if (user->getBlock() != body)
        return false;
  auto yield = cast<scf::YieldOp>(body->getTerminator());
  for (auto [i, value] : llvm::enumerate(yield.getOperands())) {
    auto it = lanes.find(value);
    if (it == lanes.end() || static_cast<int64_t>(it->second.size()) !=
                                 elementCount(value.getType()))
      return false;
    for (auto [e, lane] : llvm::enumerate(it->second))
      if (lane.first != i || lane.second != static_cast<int64_t>(e))
        return false;
  }
  return true;
}

/// How many copies of the accumulators `loop` needs to keep the target's
/// FMA pipes busy: the FMA latency times the FMAs per cycle, in chains of
/// one vector register, over the vectors the loop carries; a power of two,
/// at most 8, with the copies in at most half the vector registers.
static int64_t copiesFor(scf::ForOp loop,
                         const attune::cpu::CpuTarget &target) {
  int64_t vectors = 0;
  for (Value arg : loop.getRegionIterArgs()) {
    auto type = cast<VectorType>(arg.getType());
    vectors +=
        llvm::divideCeil(type.getNumElements() * type.getElementTypeBitWidth(),
                         target.vectorBits);
  }
  int64_t chains = target.fmaPerCycle * target.fmaLatency;
  int64_t copies = std::min<int64_t>(
      llvm::PowerOf2Ceil(llvm::divideCeil(chains, vectors)), 8);
  while (copies > 1 && copies * vectors > target.vectorRegisters / 2)
    copies /= 2;
  return copies;
}

/// Unrolls `loop` by `copies`, each copy of the body on its own copy of the
/// accumulators; the copies' sum goes on in a loop over the remaining steps
/// (none where the trip count is a known multiple of `copies`).
static void splitAccumulators(scf::ForOp loop, int64_t copies) {
  OpBuilder b(loop);
  Location loc = loop.getLoc();
  ArithBuilder ab(b, loc);
  Value lb = loop.getLowerBound(), ub = loop.getUpperBound(),
        step = loop.getStep();
  Value copiesValue = arith::ConstantIndexOp::create(b, loc, copies);
  Value wideStep = b.createOrFold<arith::MulIOp>(loc, step, copiesValue);
  // The main loop's end: lb + (ub - lb) floordiv (U step) * U step.
  std::optional<APInt> trip = loop.getStaticTripCount();
  Value mainUb = ub;
  bool remainder = !trip || trip->getZExtValue() % copies != 0;
  if (remainder) {
    Value span = arith::SubIOp::create(b, loc, ub, lb);
    // (Signed: a loop that runs no step, ub < lb, gives ub <= mainUb <=
    // lb, and neither loop runs.)
    Value wide = arith::DivSIOp::create(b, loc, span, wideStep);
    mainUb = ab.add(lb, ab.mul(wide, wideStep));
  }
  SmallVector<Value> inits(loop.getInitArgs());
  unsigned n = inits.size();
  SmallVector<Value> zeros;
  for (Value init : loop.getInitArgs())
    zeros.push_back(arith::ConstantOp::create(
        b, loc, cast<TypedAttr>(b.getZeroAttr(init.getType()))));
  for (int64_t c = 1; c < copies; ++c)
    llvm::append_range(inits, zeros);
  Block *body = loop.getBody();
  auto main = scf::ForOp::create(
      b, loc, lb, mainUb, wideStep, inits,
      [&](OpBuilder &nb, Location nloc, Value iv, ValueRange args) {
        SmallVector<Value> yields;
        for (int64_t c = 0; c < copies; ++c) {
          IRMapping map;
          Value k = iv;
          if (c > 0)
            k = arith::AddIOp::create(
                nb, nloc, iv,
                nb.createOrFold<arith::MulIOp>(
                    nloc, step, arith::ConstantIndexOp::create(nb, nloc, c)));
          map.map(loop.getInductionVar(), k);
          map.map(loop.getRegionIterArgs(), args.slice(c * n, n));
          for (Operation &op : body->without_terminator())
            nb.clone(op, map);
          for (Value v : body->getTerminator()->getOperands())
            yields.push_back(map.lookupOrDefault(v));
        }
        scf::YieldOp::create(nb, nloc, yields);
      });
  // The copies added in a tree: (c0 + c1) + (c2 + c3), ...
  SmallVector<Value> sums;
  for (unsigned i = 0; i < n; ++i) {
    SmallVector<Value> level;
    for (int64_t c = 0; c < copies; ++c)
      level.push_back(main.getResult(c * n + i));
    while (level.size() > 1) {
      SmallVector<Value> next;
      for (size_t j = 0; j < level.size(); j += 2)
        next.push_back(arith::AddFOp::create(b, loc, level[j], level[j + 1]));
      level = std::move(next);
    }
    sums.push_back(level.front());
  }
  if (!remainder) {
    loop.replaceAllUsesWith(sums);
    loop.erase();
    return;
  }
  // The remaining steps: the original loop (after the sums), from the main
  // loop's end and the copies' sum.
  loop.getLowerBoundMutable().assign(mainUb);
  loop.getInitArgsMutable().assign(sums);
}

namespace {
struct AttuneSplitAccumulatorsPass
    : attune::impl::AttuneSplitAccumulatorsBase<AttuneSplitAccumulatorsPass> {
  using Base::Base;

  void runOnOperation() override {
    SmallVector<scf::ForOp> loops;
    getOperation()->walk([&](scf::ForOp loop) {
      bool panel = static_cast<bool>(loop->removeAttr(attune::kPanelKLoopAttr));
      if (loop->removeAttr(attune::kRowKLoopAttr) || panel)
        loops.push_back(loop);
    });
    if (loops.empty())
      return;
    std::string error;
    std::optional<attune::cpu::CpuTarget> target =
        attune::cpu::lookupCpuTarget(cpu, features, error);
    if (!target) {
      getOperation()->emitError("attune-split-accumulators: ") << error;
      return signalPassFailure();
    }
    for (scf::ForOp loop : loops) {
      if (!carriesLaneForLane(loop))
        continue;
      int64_t copies = copiesFor(loop, *target);
      std::optional<APInt> trip = loop.getStaticTripCount();
      // Too few steps to fill the copies.
      if (copies < 2 || (trip && trip->getZExtValue() < 2 * uint64_t(copies)))
        continue;
      splitAccumulators(loop, copies);
    }
  }
};
} // namespace
