//===- OmpSchedule.cpp - schedules of the OpenMP worksharing loops --------===//

#include "lowering/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/OpenMP/OpenMPDialect.h"
#include "mlir/IR/Builders.h"

namespace mlir::attune {
#define GEN_PASS_DEF_ATTUNEOMPSCHEDULE
#include "lowering/Passes.h.inc"
} // namespace mlir::attune

using namespace mlir;

namespace {
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
  }
};
} // namespace
