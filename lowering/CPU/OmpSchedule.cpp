//===- OmpSchedule.cpp - schedules of the OpenMP worksharing loops --------===//

#include "lowering/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/OpenMP/OpenMPDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/Dominance.h"
#include "mlir/IR/IRMapping.h"

namespace mlir::attune {
#define GEN_PASS_DEF_ATTUNEOMPSCHEDULE
#include "lowering/Passes.h.inc"
} // namespace mlir::attune

using namespace mlir;

namespace {

/// Whether some worksharing loop of `region` has more than one iteration,
/// where that depends on values known before the region (a dynamic M: a
/// GEMM's row blocks, a layer norm's rows); null where it does not (no
/// loop, bounds computed inside, a loop whose constant bounds give it
/// several iterations).
static Value severalIterations(omp::ParallelOp region) {
  SmallVector<omp::LoopNestOp> nests;
  region.walk([&](omp::LoopNestOp nest) { nests.push_back(nest); });
  if (nests.empty())
    return {};
  DominanceInfo dominance;
  SmallVector<std::tuple<Value, Value, Value>> dims;
  for (omp::LoopNestOp nest : nests) {
    if (nest.getLoopInclusive())
      return {};
    for (auto [lb, ub, step] :
         llvm::zip_equal(nest.getLoopLowerBounds(), nest.getLoopUpperBounds(),
                         nest.getLoopSteps())) {
      for (Value v : {lb, ub, step})
        if (!dominance.properlyDominates(v, region))
          return {};
      std::optional<int64_t> l = getConstantIntValue(lb),
                             u = getConstantIntValue(ub),
                             s = getConstantIntValue(step);
      if (l && u && s) {
        if (*u - *l > *s)
          return {};
        continue;
      }
      dims.push_back({lb, ub, step});
    }
  }
  if (dims.empty())
    return {};
  OpBuilder b(region);
  Location loc = region.getLoc();
  Value any;
  for (auto [lb, ub, step] : dims) {
    Value extent = arith::SubIOp::create(b, loc, ub, lb);
    Value several =
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sgt, extent, step);
    any =
        any ? arith::OrIOp::create(b, loc, any, several).getResult() : several;
  }
  return any;
}

/// Whether `region` can also run as plain loops: its worksharing loops
/// (directly in it, without clauses that share or reduce data) and
/// barriers are its only OpenMP ops, each loop body one block.
static bool serializable(omp::ParallelOp region) {
  if (region.getRegion().getNumArguments() ||
      !region.getRegion().hasOneBlock() || !region.getPrivateVars().empty() ||
      !region.getReductionVars().empty() || !region.getAllocateVars().empty())
    return false;
  Dialect *openmp = region->getDialect();
  WalkResult walk = region.getRegion().walk([&](Operation *op) {
    if (op->getDialect() != openmp ||
        isa<omp::YieldOp, omp::TerminatorOp, omp::BarrierOp>(op))
      return WalkResult::advance();
    if (auto loop = dyn_cast<omp::WsloopOp>(op))
      return loop->getParentOp() == region && loop.getReductionVars().empty() &&
                     loop.getPrivateVars().empty() &&
                     loop.getLinearVars().empty() &&
                     loop.getAllocateVars().empty() && !loop.getOrdered()
                 ? WalkResult::advance()
                 : WalkResult::interrupt();
    if (auto nest = dyn_cast<omp::LoopNestOp>(op))
      return isa<omp::WsloopOp>(nest->getParentOp()) &&
                     nest.getRegion().hasOneBlock()
                 ? WalkResult::advance()
                 : WalkResult::interrupt();
    return WalkResult::interrupt();
  });
  return !walk.wasInterrupted();
}

/// `scf.if %several { region } else { region as plain loops }`: a region of
/// one iteration (a dynamic M of at most one row block) runs on the calling
/// thread without the OpenMP runtime. Waking the other threads cost 0.8-1.2
/// us a region on the Zen 4 VM, and `omp.parallel if(false)` (libomp's
/// serialized region) still 0.7: 768 -> 1 at M = 4 on 2 threads, two
/// regions, 2.6 us, 1.7 with `if`, against 0.35 for the serial build.
static void addSerialPath(omp::ParallelOp region, Value several) {
  OpBuilder b(region);
  Location loc = region.getLoc();
  auto branch = scf::IfOp::create(b, loc, several, /*withElseRegion=*/true);
  region->moveBefore(branch.thenBlock()->getTerminator());
  b.setInsertionPoint(branch.elseBlock()->getTerminator());
  IRMapping map;
  for (Operation &op : region.getRegion().front()) {
    if (isa<omp::TerminatorOp, omp::BarrierOp>(op))
      continue;
    auto loop = dyn_cast<omp::WsloopOp>(op);
    if (!loop) {
      b.clone(op, map);
      continue;
    }
    auto nest = cast<omp::LoopNestOp>(loop.getWrappedLoop());
    OpBuilder::InsertionGuard guard(b);
    for (auto [lb, ub, step, iv] :
         llvm::zip_equal(nest.getLoopLowerBounds(), nest.getLoopUpperBounds(),
                         nest.getLoopSteps(), nest.getIVs())) {
      auto serial = scf::ForOp::create(b, loc, map.lookupOrDefault(lb),
                                       map.lookupOrDefault(ub),
                                       map.lookupOrDefault(step));
      map.map(iv, serial.getInductionVar());
      b.setInsertionPoint(serial.getBody()->getTerminator());
    }
    for (Operation &inner : nest.getRegion().front().without_terminator())
      b.clone(inner, map);
  }
}

struct AttuneOmpSchedulePass
    : mlir::attune::impl::AttuneOmpScheduleBase<AttuneOmpSchedulePass> {
  using Base::Base;

  void runOnOperation() override {
    std::optional<omp::ClauseScheduleKind> kind =
        omp::symbolizeClauseScheduleKind(schedule);
    if (!kind || *kind == omp::ClauseScheduleKind::Auto ||
        *kind == omp::ClauseScheduleKind::Distribute) {
      getOperation()->emitError()
          << "attune-omp-schedule: unknown schedule '" << schedule
          << "'; expected static, dynamic, guided or runtime";
      return signalPassFailure();
    }
    if (chunk < 0 || (chunk > 0 && *kind == omp::ClauseScheduleKind::Runtime)) {
      getOperation()->emitError()
          << "attune-omp-schedule: chunk " << chunk.getValue()
          << " with schedule '" << schedule
          << "'; expected a positive chunk, or 0 for the "
          << "runtime's default (always 0 with runtime)";
      return signalPassFailure();
    }
    getOperation()->walk([&](omp::WsloopOp loop) {
      MLIRContext *context = loop.getContext();
      loop.setScheduleKindAttr(
          omp::ClauseScheduleKindAttr::get(context, *kind));
      if (chunk > 0) {
        OpBuilder builder(loop);
        auto nest = cast<omp::LoopNestOp>(loop.getWrappedLoop());
        Type type = nest.getLoopLowerBounds().front().getType();
        loop.getScheduleChunkMutable().assign(arith::ConstantOp::create(
            builder, loop.getLoc(), builder.getIntegerAttr(type, chunk)));
      }
      // A loop that ends its parallel region needs no barrier of its own:
      // the region's end joins the threads.
      if (isa<omp::ParallelOp>(loop->getParentOp()) &&
          isa<omp::TerminatorOp>(loop->getNextNode()))
        loop.setNowait(true);
    });
    SmallVector<omp::ParallelOp> regions;
    getOperation()->walk([&](omp::ParallelOp r) { regions.push_back(r); });
    for (omp::ParallelOp region : regions) {
      if (region.getIfExpr())
        continue;
      Value several = severalIterations(region);
      if (!several)
        continue;
      if (serializable(region))
        addSerialPath(region, several);
      else
        region.getIfExprMutable().assign(several);
    }
  }
};
} // namespace
