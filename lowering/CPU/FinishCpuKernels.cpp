//===- FinishCpuKernels.cpp - the last rewrites of the CPU kernels ----------===//
//
// attune-finish-cpu-kernels: after the kernel schedule, the marks go, row
// sums keep `reassoc` on their vector reductions, vector exp becomes a
// polynomial, min/max reductions trees, and the dims and empty tensors the
// tiling left behind fold away.
//
//===----------------------------------------------------------------------===//

#include "lowering/CPU/CpuKernels.h"
#include "lowering/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/Transforms/Passes.h"
#include "mlir/Dialect/MemRef/Transforms/Transforms.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::attune {
#define GEN_PASS_DEF_ATTUNEFINISHCPUKERNELS
#include "lowering/Passes.h.inc"
} // namespace mlir::attune

using namespace mlir;
using namespace mlir::attune;
using namespace mlir::attune::cpu;



namespace {
/// A float min/max `vector.reduction` over a power-of-two length as a tree of
/// halvings: log2(n) element-wise min/max steps on vectors, each over the two
/// halves of the last. LLVM expands the reduction intrinsic of a maxnum
/// without `nnan` as one lane after another, three dependent instructions
/// (max, NaN compare, blend) per lane: ~190 for a 64-wide row. Min and max are
/// associative and commutative, so the tree computes the same value
/// (including which NaNs are ignored or propagated).
struct TreeMinMaxReduction : OpRewritePattern<vector::ReductionOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(vector::ReductionOp op,
                                PatternRewriter &rewriter) const override {
    using Kind = vector::CombiningKind;
    Kind kind = op.getKind();
    if (kind != Kind::MAXNUMF && kind != Kind::MINNUMF &&
        kind != Kind::MAXIMUMF && kind != Kind::MINIMUMF)
      return failure();
    VectorType type = op.getSourceVectorType();
    int64_t n = type.getNumElements();
    if (type.getRank() != 1 || type.isScalable() || n < 2 ||
        !llvm::isPowerOf2_64(n) || isa<vector::MaskOp>(op->getParentOp()))
      return failure();
    Location loc = op.getLoc();
    Value v = op.getVector();
    for (; n > 1; n /= 2) {
      SmallVector<int64_t> low(n / 2), high(n / 2);
      for (int64_t i = 0; i < n / 2; ++i) {
        low[i] = i;
        high[i] = n / 2 + i;
      }
      Value a = vector::ShuffleOp::create(rewriter, loc, v, v, low);
      Value b = vector::ShuffleOp::create(rewriter, loc, v, v, high);
      v = vector::makeArithReduction(rewriter, loc, kind, a, b);
    }
    Value result = vector::ExtractOp::create(rewriter, loc, v, 0);
    if (Value acc = op.getAcc())
      result = vector::makeArithReduction(rewriter, loc, kind, result, acc);
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// tensor.dim of a shape-preserving loop's result as the dim of its init.
/// The epilogue GEMMs' tiled loops take their bounds from the dims of the
/// whole-output init they were fused from; folded, that init (a fill of the
/// whole output, written again tile by tile) is dead.
struct DimOfShapePreservingLoop : OpRewritePattern<tensor::DimOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(tensor::DimOp op,
                                PatternRewriter &rewriter) const override {
    auto result = dyn_cast<OpResult>(op.getSource());
    auto loop = result ? dyn_cast<scf::ForOp>(result.getOwner()) : nullptr;
    if (!loop || !isShapePreserving(loop, result.getResultNumber()))
      return failure();
    rewriter.modifyOpInPlace(op, [&] {
      op.getSourceMutable().assign(
          loop.getInitArgs()[result.getResultNumber()]);
    });
    return success();
  }
};

/// A slice, inside an scf.forall, of an empty tensor made outside it, as an
/// empty tensor of the slice's shape made in the forall. With --parallel a
/// GEMM fused into its epilogue's forall tiles writes its intermediate tile
/// into a slice of the whole intermediate's tensor.empty; not a shared
/// output of the forall, so bufferization gave each tile a private buffer
/// and copied it into another before the epilogue read it. An empty
/// tensor's slice holds nothing to keep: one buffer per tile, written by
/// the GEMM and read by the epilogue (which attune-epilogue-in-registers
/// then folds into the register tiles, as in the serial nest).
struct EmptySliceInForall : OpRewritePattern<tensor::ExtractSliceOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(tensor::ExtractSliceOp op,
                                PatternRewriter &rewriter) const override {
    auto empty = op.getSource().getDefiningOp<tensor::EmptyOp>();
    auto forall = op->getParentOfType<scf::ForallOp>();
    if (!empty || !forall || forall->isAncestor(empty))
      return failure();
    // A rank-reducing slice drops static unit dims only: its dynamic sizes
    // are its result's, in order.
    rewriter.replaceOpWithNewOp<tensor::EmptyOp>(op, op.getType(),
                                                 op.getSizes());
    return success();
  }
};

struct AttuneFinishCpuKernelsPass
    : mlir::attune::impl::AttuneFinishCpuKernelsBase<
          AttuneFinishCpuKernelsPass> {
  using Base::Base;
  void runOnOperation() override {
    ModuleOp module = getOperation();
    if (!hasCpuKernels(module))
      return;
    module->removeAttr(kCpuKernelsAttr);
    module.walk([&](Operation *op) { removeKernelMarks(op); });
    // The row sums of the vectorized tile ops were written with `reassoc`:
    // keep it on their vector reductions, so that LLVM adds in a tree rather
    // than one lane after another.
    module.walk([](vector::ReductionOp r) {
      if (r.getKind() == vector::CombiningKind::ADD &&
          isa<FloatType>(r.getType()))
        r.setFastmath(r.getFastmath() | arith::FastMathFlags::reassoc);
    });
    // Vector exp (attention's softmax) as a polynomial instead of one libm
    // call per lane; row maxima as trees.
    RewritePatternSet patterns(&getContext());
    populateMathPolynomialApproximationPatterns(patterns);
    // Dims of the GEMMs' whole-output inits (see DimOfShapePreservingLoop)
    // and of what is left of a GEMM fused into its epilogue's tiles, as the
    // dims they equal, so that those ops go.
    patterns.add<TreeMinMaxReduction, DimOfShapePreservingLoop>(&getContext());
    if (parallel)
      patterns.add<EmptySliceInForall>(&getContext());
    memref::populateResolveRankedShapedTypeResultDimsPatterns(patterns);
    if (failed(applyPatternsGreedily(module, std::move(patterns))))
      return signalPassFailure();
  }
};
} // namespace
