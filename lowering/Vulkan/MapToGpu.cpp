//===- MapToGpu.cpp - bufferized linalg -> mapped scf.parallel ------------===//
//
// Prepares a bufferized host function for convert-parallel-loops-to-gpu:
// every data movement becomes a linalg op, every linalg op a parallel loop
// nest, and every outermost nest is cut into workgroups and invocations.
//
//===----------------------------------------------------------------------===//

#include "lowering/Passes.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/GPU/Transforms/ParallelLoopMapper.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/Transforms/Transforms.h"
#include "mlir/Dialect/SCF/Utils/Utils.h"
#include "mlir/Dialect/Math/Transforms/Passes.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::attune {
#define GEN_PASS_DEF_ATTUNEMAPTOGPU
#include "lowering/Passes.h.inc"
} // namespace mlir::attune

using namespace mlir;

namespace {

/// Invocations per workgroup along the two innermost loop dims: the
/// innermost gets as many as its static extent uses (a power of two), the
/// next the rest of the workgroup.
SmallVector<int64_t> threadTile(scf::ParallelOp loop, int64_t workgroupSize) {
  unsigned n = loop.getNumLoops();
  SmallVector<int64_t> tile(n, 1);
  auto extent = [&](unsigned d) -> std::optional<int64_t> {
    std::optional<int64_t> lb = getConstantIntValue(loop.getLowerBound()[d]);
    std::optional<int64_t> ub = getConstantIntValue(loop.getUpperBound()[d]);
    std::optional<int64_t> st = getConstantIntValue(loop.getStep()[d]);
    if (!lb || !ub || !st || *st != 1)
      return std::nullopt;
    return *ub - *lb;
  };
  int64_t inner = workgroupSize;
  if (std::optional<int64_t> e = extent(n - 1))
    inner = std::min<int64_t>(inner, llvm::PowerOf2Ceil(std::max<int64_t>(*e, 1)));
  tile[n - 1] = inner;
  if (n >= 2 && inner < workgroupSize) {
    int64_t rest = workgroupSize / inner;
    if (std::optional<int64_t> e = extent(n - 2))
      rest = std::min<int64_t>(rest, llvm::PowerOf2Ceil(std::max<int64_t>(*e, 1)));
    tile[n - 2] = rest;
  }
  return tile;
}

gpu::ParallelLoopDimMappingAttr mapTo(MLIRContext *ctx, gpu::Processor p) {
  AffineMap id = AffineMap::getMultiDimIdentityMap(1, ctx);
  return gpu::ParallelLoopDimMappingAttr::get(ctx, p, id, id);
}

struct AttuneMapToGpuPass
    : mlir::attune::impl::AttuneMapToGpuBase<AttuneMapToGpuPass> {
  using Base::Base;

  void runOnOperation() override {
    func::FuncOp func = getOperation();
    MLIRContext *ctx = &getContext();
    IRRewriter rewriter(ctx);
    if (workgroupSize < 1 || workgroupSize > 1024) {
      func.emitError() << "workgroup size " << (int64_t)workgroupSize
                       << " is outside [1, 1024]";
      return signalPassFailure();
    }

    // SPIR-V's GLSL instructions have no erf.
    {
      RewritePatternSet patterns(ctx);
      populatePolynomialApproximateErfPattern(patterns);
      if (failed(applyPatternsGreedily(func, std::move(patterns))))
        return signalPassFailure();
    }

    // The barriers of kernels built before bufferization.
    func.walk([&](func::CallOp call) {
      rewriter.setInsertionPoint(call);
      if (call.getCallee() == attune::kBarrierCallee)
        rewriter.replaceOpWithNewOp<gpu::BarrierOp>(call);
      else if (call.getCallee() == attune::kSubgroupAddCallee)
        rewriter.replaceOpWithNewOp<gpu::SubgroupReduceOp>(
            // Not `uniform`: that converts to SPIR-V's OpGroupFAdd (the
            // Groups capability, which Vulkan lacks); the non-uniform op
            // reduces over the active invocations, all of the subgroup.
            call, call.getOperand(0), gpu::AllReduceOperation::ADD,
            /*uniform=*/false);
    });

    // Copies run on the device like any other kernel.
    func.walk([&](memref::CopyOp op) {
      rewriter.setInsertionPoint(op);
      rewriter.replaceOpWithNewOp<linalg::CopyOp>(op, op.getSource(),
                                                  op.getTarget());
    });

    // Linalg ops become parallel loop nests (reduction dims stay scf.for
    // inside). An op without parallel dims gets a one-iteration loop so it
    // too runs on the device.
    SmallVector<linalg::LinalgOp> linalgOps;
    func.walk([&](linalg::LinalgOp op) { linalgOps.push_back(op); });
    for (linalg::LinalgOp op : linalgOps) {
      rewriter.setInsertionPoint(op);
      // Parallel dims outermost, so that one loop nest holds them all and
      // the reductions run sequentially inside each invocation.
      if (!isa<linalg::GenericOp>(op)) {
        FailureOr<linalg::GenericOp> generic =
            linalg::generalizeNamedOp(rewriter, op);
        if (failed(generic)) {
          op.emitOpError() << "cannot be generalized for the GPU";
          return signalPassFailure();
        }
        op = *generic;
      }
      auto generic = cast<linalg::GenericOp>(op.getOperation());
      SmallVector<unsigned> order;
      for (auto [d, it] : llvm::enumerate(generic.getIteratorTypesArray()))
        if (it == utils::IteratorType::parallel)
          order.push_back(d);
      for (auto [d, it] : llvm::enumerate(generic.getIteratorTypesArray()))
        if (it != utils::IteratorType::parallel)
          order.push_back(d);
      if (!llvm::equal(order, llvm::seq<unsigned>(0, order.size()))) {
        FailureOr<linalg::GenericOp> swapped =
            linalg::interchangeGenericOp(rewriter, generic, order);
        if (failed(swapped)) {
          op.emitOpError() << "cannot have its reduction dims moved inside";
          return signalPassFailure();
        }
        op = *swapped;
      }
      // No parallel dim (a rank-0 op, or a full reduction such as the flag
      // of an index check): one invocation runs it.
      if (op.getNumParallelLoops() == 0) {
        Location loc = op.getLoc();
        Value zero = arith::ConstantIndexOp::create(rewriter, loc, 0);
        Value one = arith::ConstantIndexOp::create(rewriter, loc, 1);
        auto unit = scf::ParallelOp::create(rewriter, loc, ValueRange{zero},
                                            ValueRange{one}, ValueRange{one});
        rewriter.setInsertionPoint(unit.getBody()->getTerminator());
      }
      if (failed(linalg::linalgOpToParallelLoops(rewriter, op))) {
        op.emitOpError() << "cannot be lowered to parallel loops for the GPU";
        return signalPassFailure();
      }
      rewriter.eraseOp(op);
    }

    // Outermost nests: at most 3 dims (the leading ones collapsed), tiled
    // into workgroups and mapped innermost dim first to x.
    auto outermost = [&] {
      SmallVector<scf::ParallelOp> roots;
      func.walk([&](scf::ParallelOp loop) {
        if (!loop->getParentOfType<scf::ParallelOp>())
          roots.push_back(loop);
      });
      return roots;
    };
    for (scf::ParallelOp loop : outermost()) {
      unsigned n = loop.getNumLoops();
      if (n <= 3)
        continue;
      std::vector<unsigned> leading;
      for (unsigned d = 0; d + 2 < n; ++d)
        leading.push_back(d);
      std::vector<std::vector<unsigned>> groups = {leading, {n - 2}, {n - 1}};
      rewriter.setInsertionPoint(loop);
      collapseParallelLoops(rewriter, loop, groups);
    }
    // collapseParallelLoops replaces the loops it collapses: collect again.
    SmallVector<scf::ParallelOp> roots = outermost();
    static const gpu::Processor blocks[] = {
        gpu::Processor::BlockX, gpu::Processor::BlockY, gpu::Processor::BlockZ};
    static const gpu::Processor threads[] = {
        gpu::Processor::ThreadX, gpu::Processor::ThreadY,
        gpu::Processor::ThreadZ};
    for (scf::ParallelOp loop : roots) {
      unsigned n = loop.getNumLoops();
      if (n > 3) {
        loop.emitOpError() << "has " << n << " dims after collapsing; expected "
                           << "at most 3";
        return signalPassFailure();
      }
      // Nested parallel loops (none are expected) run sequentially.
      loop.getBody()->walk([&](scf::ParallelOp nested) {
        SmallVector<gpu::ParallelLoopDimMappingAttr> seq(
            nested.getNumLoops(), mapTo(ctx, gpu::Processor::Sequential));
        (void)gpu::setMappingAttr(nested, seq);
      });
      SmallVector<int64_t> tile = threadTile(loop, workgroupSize);
      auto [outer, inner] =
          scf::tileParallelLoop(loop, tile, /*noMinMaxBounds=*/true);
      SmallVector<gpu::ParallelLoopDimMappingAttr> outerMap, innerMap;
      for (unsigned d = 0; d < n; ++d) {
        outerMap.push_back(mapTo(ctx, blocks[n - 1 - d]));
        innerMap.push_back(mapTo(ctx, threads[n - 1 - d]));
      }
      if (failed(gpu::setMappingAttr(outer, outerMap)) ||
          failed(gpu::setMappingAttr(inner, innerMap))) {
        outer.emitOpError() << "cannot be mapped to the GPU";
        return signalPassFailure();
      }
    }
  }
};

} // namespace
