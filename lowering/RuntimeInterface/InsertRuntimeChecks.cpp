//===- InsertRuntimeChecks.cpp - dynamic shape checks before each kernel -===//

#include "lowering/AttuneToLinalg/KernelBuilder.h"
#include "lowering/Passes.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"

#include "mlir/Dialect/ControlFlow/IR/ControlFlowOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Interfaces/RuntimeVerifiableOpInterface.h"

namespace mlir::attune {
#define GEN_PASS_DEF_ATTUNEINSERTRUNTIMECHECKS
#include "lowering/Passes.h.inc"
} // namespace mlir::attune

using namespace mlir;

namespace {
struct AttuneInsertRuntimeChecksPass
    : mlir::attune::impl::AttuneInsertRuntimeChecksBase<
          AttuneInsertRuntimeChecksPass> {
  void runOnOperation() override {
    SmallVector<RuntimeVerifiableOpInterface> ops;
    getOperation()->walk([&](RuntimeVerifiableOpInterface op) {
      // Kernel bodies (linalg ops, the parallel loops of attune's own GPU
      // kernels) compute safe indices themselves.
      if (op->getParentOfType<linalg::LinalgOp>() ||
          op->getParentOfType<scf::ParallelOp>() ||
          op->getParentOfType<gpu::LaunchOp>())
        return;
      ops.push_back(op);
    });
    for (RuntimeVerifiableOpInterface op : ops) {
      OpBuilder builder(op);
      op.generateRuntimeVerification(
          builder, op.getLoc(), [](Operation *failing, StringRef reason) {
            return attune::shapeCheckMessage(failing->getLoc(), reason);
          });
    }
  }
};

} // namespace
