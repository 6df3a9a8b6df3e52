//===- LowerStridedCopies.cpp - strided memref.copy -> linalg.copy --------===//

#include "lowering/Passes.h"

#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::attune {
#define GEN_PASS_DEF_ATTUNELOWERSTRIDEDCOPIES
#include "lowering/Passes.h.inc"
} // namespace mlir::attune

using namespace mlir;

namespace {
struct StridedCopyToLinalg : OpRewritePattern<memref::CopyOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(memref::CopyOp op,
                                PatternRewriter &rewriter) const override {
    auto src = dyn_cast<MemRefType>(op.getSource().getType());
    auto dst = dyn_cast<MemRefType>(op.getTarget().getType());
    if (!src || !dst)
      return failure();
    // Exactly what finalize-memref-to-llvm can copy with a memcpy.
    if (src.getLayout().isIdentity() && dst.getLayout().isIdentity())
      return failure();
    rewriter.replaceOpWithNewOp<linalg::CopyOp>(op, op.getSource(),
                                                op.getTarget());
    return success();
  }
};

struct AttuneLowerStridedCopiesPass
    : mlir::attune::impl::AttuneLowerStridedCopiesBase<
          AttuneLowerStridedCopiesPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns.add<StridedCopyToLinalg>(&getContext());
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};
} // namespace
