//===- FuseElementwise.cpp - element-wise producer/consumer fusion --------===//
//
// Upstream linalg element-wise fusion, restricted to what pays on every
// target: element-wise generics into element-wise generics, never into a
// contraction or reduction (whose loops would recompute the producer) and
// never across the ops other Attune passes have marked for their schedules.
//
//===----------------------------------------------------------------------===//

#include "lowering/Passes.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/MemRef/Transforms/Transforms.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::attune {
#define GEN_PASS_DEF_ATTUNEFUSEELEMENTWISE
#include "lowering/Passes.h.inc"
} // namespace mlir::attune

using namespace mlir;

namespace {

/// An all-parallel generic that no Attune schedule has claimed.
bool isPlainElementwise(Operation *op) {
  auto generic = dyn_cast_or_null<linalg::GenericOp>(op);
  if (!generic || generic.getNumLoops() != generic.getNumParallelLoops())
    return false;
  return llvm::none_of(generic->getAttrs(), [](NamedAttribute a) {
    return a.getName().strref().starts_with("attune.");
  });
}

struct AttuneFuseElementwisePass
    : mlir::attune::impl::AttuneFuseElementwiseBase<AttuneFuseElementwisePass> {
  using Base::Base;
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    // The extents of a result come from the op's operands, so that a
    // consumer's tensor.dim is no second use of its producer.
    memref::populateResolveRankedShapedTypeResultDimsPatterns(patterns);
    linalg::populateElementwiseOpsFusionPatterns(
        patterns, [](OpOperand *operand) {
          Operation *producer = operand->get().getDefiningOp();
          return isPlainElementwise(producer) &&
                 isPlainElementwise(operand->getOwner()) &&
                 producer->hasOneUse();
        });
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      return signalPassFailure();
  }
};

} // namespace
