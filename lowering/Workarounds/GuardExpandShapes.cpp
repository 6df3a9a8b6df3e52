//===- GuardExpandShapes.cpp - refuse what MLIR 22 crashes on -------------===//
//
// attune-guard-expand-shapes: a memref.expand_shape with two or more dynamic
// dims in one reassociation group crashes MLIR 22's expand-strided-metadata
// (docs/upstream/expand-strided-metadata.mlir). The pipelines never build
// one; this guard makes a regression a located error, not a segfault.
//
//===----------------------------------------------------------------------===//

#include "lowering/Passes.h"

#include "mlir/Dialect/MemRef/IR/MemRef.h"

namespace mlir::attune {
#define GEN_PASS_DEF_ATTUNEGUARDEXPANDSHAPES
#include "lowering/Passes.h.inc"
} // namespace mlir::attune

using namespace mlir;

namespace {

struct AttuneGuardExpandShapesPass
    : mlir::attune::impl::AttuneGuardExpandShapesBase<
          AttuneGuardExpandShapesPass> {
  void runOnOperation() override {
    WalkResult result = getOperation()->walk([](memref::ExpandShapeOp op) {
      ArrayRef<int64_t> shape = op.getResultType().getShape();
      for (auto [g, group] : llvm::enumerate(op.getReassociationIndices())) {
        int64_t dynamic = llvm::count_if(group, [&](int64_t d) {
          return ShapedType::isDynamic(shape[d]);
        });
        if (dynamic < 2)
          continue;
        InFlightDiagnostic diag = op.emitError()
                                  << "memref.expand_shape with " << dynamic
                                  << " dynamic dims in reassociation group #"
                                  << g << " ([";
        llvm::interleaveComma(group, diag);
        diag << "]): MLIR 22's expand-strided-metadata would crash on it "
                "(an internal error of Attune's lowering; please report it "
                "with the model)";
        return WalkResult::interrupt();
      }
      return WalkResult::advance();
    });
    if (result.wasInterrupted())
      signalPassFailure();
  }
};

} // namespace
