//===- AttuneToLinalg.cpp - attune -> linalg on tensors -------------------===//
//
// Every primitive op becomes linalg on tensors. Masks are computed from loop
// indices inside the kernels (`linalg.index`); no [Lq, Lk] mask tensor exists.
// This is the plain (untiled) form of attention; the fusion and tiling passes
// produce the flash-attention form.
//
//===----------------------------------------------------------------------===//

#include "lowering/AttuneToLinalg/AttuneToLinalg.h"
#include "lowering/AttuneToLinalg/KernelBuilder.h"
#include "lowering/Passes.h"

#include "dialect/AttuneOps.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlowOps.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "attune/artifact.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Transforms/DialectConversion.h"

#include <cmath>
#include <limits>
#include <numeric>

namespace mlir::attune {
#define GEN_PASS_DEF_CONVERTATTUNETOLINALG
#include "lowering/Passes.h.inc"
} // namespace mlir::attune

using namespace mlir;
using namespace mlir::attune;

using Iter = utils::IteratorType;
static constexpr double kNegInf = -std::numeric_limits<double>::infinity();

static RankedTensorType tensorType(Value v) {
  return cast<RankedTensorType>(v.getType());
}

static SmallVector<Iter> parallelIters(int64_t n) {
  return SmallVector<Iter>(n, Iter::parallel);
}

/// An integer tensor element as `index`.
static Value toIndex(OpBuilder &b, Location loc, Value v) {
  return arith::IndexCastOp::create(b, loc, b.getIndexType(), v);
}

static std::optional<int64_t> windowOf(IntegerAttr attr) {
  if (!attr)
    return std::nullopt;
  return attr.getInt();
}

namespace {

//===----------------------------------------------------------------------===//
// Linear algebra
//===----------------------------------------------------------------------===//

struct LinearLowering : OpConversionPattern<LinearOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(LinearOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    KernelBuilder kb(rewriter, op.getLoc());
    replaceWithCast(rewriter, op,
                    kb.linear(adaptor.getInput(), adaptor.getWeight(),
                              adaptor.getBias(), op.getActivation()));
    return success();
  }
};

struct MatmulLowering : OpConversionPattern<MatmulOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(MatmulOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    KernelBuilder kb(rewriter, op.getLoc());
    MLIRContext *ctx = rewriter.getContext();
    Value lhs = adaptor.getLhs(), rhs = adaptor.getRhs();
    RankedTensorType type = op.getType();
    int64_t rank = type.getRank(), batch = rank - 2;
    ArrayRef<int64_t> out = type.getShape();
    // Loop order (batch, m, k, n) when B is [k, n]: the innermost loop then
    // runs along rows of B and C (contiguous, vectorizable without
    // reordering the sum). With B transposed, (batch, m, n, k): the
    // innermost loop runs along rows of A and B^T.
    bool kInner = op.getTransposeRhs();
    AffineExpr m = getAffineDimExpr(batch, ctx),
               n = getAffineDimExpr(kInner ? batch + 1 : batch + 2, ctx),
               k = getAffineDimExpr(kInner ? batch + 2 : batch + 1, ctx);

    // Operand map: broadcast-aligned batch dims, then the matrix dims.
    auto operandMap = [&](Value v, AffineExpr row, AffineExpr col,
                          bool transpose) {
      ArrayRef<int64_t> s = tensorType(v).getShape();
      int64_t vb = s.size() - 2;
      SmallVector<AffineExpr> exprs;
      for (int64_t i = 0; i < vb; ++i) {
        int64_t od = batch - vb + i;
        exprs.push_back(s[i] == 1 && out[od] != 1
                            ? getAffineConstantExpr(0, ctx)
                            : getAffineDimExpr(od, ctx));
      }
      exprs.push_back(transpose ? col : row);
      exprs.push_back(transpose ? row : col);
      return AffineMap::get(rank + 1, 0, exprs, ctx);
    };

    // Result sizes: batch dims from whichever operand has them dynamic.
    SmallVector<OpFoldResult> sizes;
    for (int64_t i = 0; i < rank; ++i) {
      if (!type.isDynamicDim(i)) {
        sizes.push_back(rewriter.getIndexAttr(out[i]));
        continue;
      }
      auto pick = [&](Value v, int64_t d) -> OpFoldResult {
        if (d >= 0 && tensorType(v).isDynamicDim(d))
          return kb.dim(v, d);
        return {};
      };
      int64_t lr = tensorType(lhs).getRank(), rr = tensorType(rhs).getRank();
      OpFoldResult found;
      if (i < batch) {
        found = pick(lhs, i - (batch - (lr - 2)));
        if (!found)
          found = pick(rhs, i - (batch - (rr - 2)));
      } else if (i == batch) {
        found = pick(lhs, op.getTransposeLhs() ? lr - 1 : lr - 2);
      } else {
        found = pick(rhs, op.getTransposeRhs() ? rr - 2 : rr - 1);
      }
      sizes.push_back(found);
    }
    SmallVector<AffineExpr> outExprs;
    for (int64_t i = 0; i < batch; ++i)
      outExprs.push_back(getAffineDimExpr(i, ctx));
    outExprs.push_back(m);
    outExprs.push_back(n);
    SmallVector<Iter> iters = parallelIters(rank + 1);
    iters[kInner ? batch + 2 : batch + 1] = Iter::reduction;
    Value result = kb.generic(
        ValueRange{lhs, rhs}, kb.filled(sizes, type.getElementType(), 0.0),
        {operandMap(lhs, m, k, op.getTransposeLhs()),
         operandMap(rhs, k, n, op.getTransposeRhs()),
         AffineMap::get(rank + 1, 0, outExprs, ctx)},
        iters, KernelBuilder::multiplyAccumulate);
    replaceWithCast(rewriter, op, result);
    return success();
  }
};

//===----------------------------------------------------------------------===//
// Shape manipulation
//===----------------------------------------------------------------------===//

static Value transpose(KernelBuilder &kb, Value input,
                       ArrayRef<int64_t> perm) {
  SmallVector<OpFoldResult> in = kb.sizes(input), sizes;
  for (int64_t p : perm)
    sizes.push_back(in[p]);
  Value init = kb.empty(sizes, tensorType(input).getElementType());
  return linalg::TransposeOp::create(kb.builder(), kb.location(), input, init,
                                     perm)
      ->getResult(0);
}

struct TransposeLowering : OpConversionPattern<TransposeOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(TransposeOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    KernelBuilder kb(rewriter, op.getLoc());
    replaceWithCast(rewriter, op, transpose(kb, adaptor.getInput(),
                                     op.getPermutation()));
    return success();
  }
};

struct SplitHeadsLowering : OpConversionPattern<SplitHeadsOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(SplitHeadsOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    KernelBuilder kb(rewriter, op.getLoc());
    Value x = adaptor.getInput();
    RankedTensorType out = op.getType(); // [B, H, L, D]
    int64_t heads = out.getDimSize(1), headDim = out.getDimSize(3);
    SmallVector<OpFoldResult> in = kb.sizes(x);
    SmallVector<OpFoldResult> expanded = {in[0], in[1],
                                          rewriter.getIndexAttr(heads),
                                          rewriter.getIndexAttr(headDim)};
    auto expandedType = RankedTensorType::get(
        {out.getDimSize(0), out.getDimSize(2), heads, headDim},
        out.getElementType());
    Value e = tensor::ExpandShapeOp::create(
        rewriter, op.getLoc(), expandedType, x,
        ArrayRef<ReassociationIndices>{{0}, {1}, {2, 3}}, expanded);
    replaceWithCast(rewriter, op, transpose(kb, e, {0, 2, 1, 3}));
    return success();
  }
};

struct MergeHeadsLowering : OpConversionPattern<MergeHeadsOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(MergeHeadsOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    KernelBuilder kb(rewriter, op.getLoc());
    Value t = transpose(kb, adaptor.getInput(), {0, 2, 1, 3}); // [B, L, H, D]
    rewriter.replaceOpWithNewOp<tensor::CollapseShapeOp>(
        op, op.getType(), t, ArrayRef<ReassociationIndices>{{0}, {1}, {2, 3}});
    return success();
  }
};

struct SliceLowering : OpConversionPattern<SliceOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(SliceOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    KernelBuilder kb(rewriter, op.getLoc());
    Value x = adaptor.getInput();
    int64_t rank = tensorType(x).getRank();
    int64_t axis = static_cast<int64_t>(op.getAxis());
    if (axis < 0)
      axis += rank;
    SmallVector<OpFoldResult> offsets(rank, rewriter.getIndexAttr(0));
    SmallVector<OpFoldResult> strides(rank, rewriter.getIndexAttr(1));
    SmallVector<OpFoldResult> sizes = kb.sizes(x);
    offsets[axis] = rewriter.getIndexAttr(static_cast<int64_t>(op.getOffset()));
    sizes[axis] = rewriter.getIndexAttr(static_cast<int64_t>(op.getSize()));
    rewriter.replaceOpWithNewOp<tensor::ExtractSliceOp>(op, op.getType(), x,
                                                        offsets, sizes, strides);
    return success();
  }
};

/// torch.cat: each input inserted at its offset along the axis of a new
/// tensor; a dynamic extent of another dim is checked against the first
/// input's at run time.
struct ConcatLowering : OpConversionPattern<ConcatOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(ConcatOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    KernelBuilder kb(rewriter, loc);
    ValueRange inputs = adaptor.getInputs();
    int64_t rank = tensorType(inputs[0]).getRank();
    int64_t axis = static_cast<int64_t>(op.getAxis());
    if (axis < 0)
      axis += rank;
    SmallVector<OpFoldResult> sizes = kb.sizes(inputs[0]);
    SmallVector<OpFoldResult> offsets(rank, rewriter.getIndexAttr(0));
    SmallVector<OpFoldResult> strides(rank, rewriter.getIndexAttr(1));
    // Each input's extent along the axis, and where it starts.
    SmallVector<OpFoldResult> starts;
    OpFoldResult total = rewriter.getIndexAttr(0);
    for (auto [i, input] : llvm::enumerate(inputs)) {
      starts.push_back(total);
      SmallVector<OpFoldResult> own = kb.sizes(input);
      std::optional<int64_t> a = getConstantIntValue(total),
                             b = getConstantIntValue(own[axis]);
      total = a && b ? OpFoldResult(rewriter.getIndexAttr(*a + *b))
                     : OpFoldResult(arith::AddIOp::create(
                           rewriter, loc,
                           getValueOrCreateConstantIndexOp(rewriter, loc, total),
                           getValueOrCreateConstantIndexOp(rewriter, loc,
                                                           own[axis])));
      for (int64_t d = 0; d < rank; ++d)
        if (d != axis && i > 0)
          assertEqualExtents(
              rewriter, loc,
              getValueOrCreateConstantIndexOp(rewriter, loc, sizes[d]),
              getValueOrCreateConstantIndexOp(rewriter, loc, own[d]),
              ("dim " + Twine(d) + " of concat input #" + Twine(i) +
               " differs from input #0's")
                  .str());
    }
    sizes[axis] = total;
    Value result = kb.empty(sizes, tensorType(inputs[0]).getElementType());
    for (auto [i, input] : llvm::enumerate(inputs)) {
      SmallVector<OpFoldResult> at = offsets;
      at[axis] = starts[i];
      result = tensor::InsertSliceOp::create(rewriter, loc, input, result, at,
                                             kb.sizes(input), strides);
    }
    replaceWithCast(rewriter, op, result);
    return success();
  }
};

/// Reassociation that merges a unit dim at `axis` of the `rank`-dim side into
/// a neighbour, for expand/collapse between rank and rank - 1.
static SmallVector<ReassociationIndices> unitDimReassociation(int64_t axis,
                                                              int64_t rank) {
  SmallVector<ReassociationIndices> groups;
  if (rank <= 1)
    return groups;
  int64_t target = axis < rank - 1 ? axis : rank - 2; // small-side dim
  for (int64_t d = 0, big = 0; d < rank - 1; ++d) {
    ReassociationIndices g = {big++};
    if (d == target)
      g.push_back(big++);
    groups.push_back(g);
  }
  return groups;
}

struct ExpandDimsLowering : OpConversionPattern<ExpandDimsOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(ExpandDimsOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    KernelBuilder kb(rewriter, op.getLoc());
    Value x = adaptor.getInput();
    int64_t rank = op.getType().getRank();
    int64_t axis = static_cast<int64_t>(op.getAxis());
    if (axis < 0)
      axis += rank;
    SmallVector<OpFoldResult> sizes = kb.sizes(x);
    sizes.insert(sizes.begin() + axis, rewriter.getIndexAttr(1));
    rewriter.replaceOpWithNewOp<tensor::ExpandShapeOp>(
        op, op.getType(), x, unitDimReassociation(axis, rank), sizes);
    return success();
  }
};

/// How `shape`'s dims collapse into the canonical form of a reshape (see
/// ReshapeLowering): per segment `i` of static dims, one dim when `keep[i]`;
/// each dynamic dim alone. Dims of dropped segments (all 1) join the group
/// before them, or the first group.
static SmallVector<ReassociationIndices>
canonicalGroups(ArrayRef<int64_t> shape, ArrayRef<bool> keep) {
  SmallVector<ReassociationIndices> groups;
  ReassociationIndices orphans, run;
  size_t segment = 0;
  auto closeRun = [&] {
    if (keep[segment] && !run.empty())
      groups.push_back(run);
    else
      llvm::append_range(orphans, run);
    run.clear();
  };
  for (int64_t d = 0; d < int64_t(shape.size()); ++d) {
    if (!ShapedType::isDynamic(shape[d])) {
      run.push_back(d);
      continue;
    }
    closeRun();
    ++segment;
    groups.push_back({d});
  }
  closeRun();
  if (groups.empty())
    return groups; // every dim is a 1: rank 0
  for (int64_t d : orphans) {
    // Attach to the last group that starts before d, or the first one.
    ReassociationIndices *target = &groups.front();
    for (ReassociationIndices &g : groups)
      if (g.front() < d)
        target = &g;
    target->push_back(d);
    llvm::sort(*target);
  }
  return groups;
}

/// The static dims of each segment of `shape` (between dynamic dims).
static SmallVector<SmallVector<int64_t>> segments(ArrayRef<int64_t> shape) {
  SmallVector<SmallVector<int64_t>> runs(1);
  for (int64_t d : shape) {
    if (ShapedType::isDynamic(d))
      runs.emplace_back();
    else
      runs.back().push_back(d);
  }
  return runs;
}

/// The extents of `shape`: its static ones, and `dynamic` (one per dynamic
/// dim, in order: the `sizes` of attune.reshape and attune.broadcast).
static SmallVector<OpFoldResult>
givenSizes(OpBuilder &b, ArrayRef<int64_t> shape, ValueRange dynamic) {
  SmallVector<OpFoldResult> sizes;
  auto next = dynamic.begin();
  for (int64_t e : shape)
    sizes.push_back(ShapedType::isDynamic(e) ? OpFoldResult(*next++)
                                             : OpFoldResult(b.getIndexAttr(e)));
  return sizes;
}

/// attune.reshape as tensor.collapse_shape into a canonical form (one dim
/// per pair of non-empty static segments, each dynamic dim alone), then
/// tensor.expand_shape out of it.
struct ReshapeLowering : OpConversionPattern<ReshapeOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(ReshapeOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    KernelBuilder kb(rewriter, loc);
    Value x = adaptor.getInput();
    auto inType = tensorType(x);
    RankedTensorType outType = op.getType();
    if (!adaptor.getSizes().empty()) {
      // Given extents: through one dim of every element, after a run-time
      // check that the counts agree.
      SmallVector<OpFoldResult> outSizes =
          givenSizes(rewriter, outType.getShape(), adaptor.getSizes());
      auto product = [&](ArrayRef<OpFoldResult> extents) {
        Value n = arith::ConstantIndexOp::create(rewriter, loc, 1);
        for (OpFoldResult e : extents)
          n = arith::MulIOp::create(
              rewriter, loc, n,
              getValueOrCreateConstantIndexOp(rewriter, loc, e));
        return n;
      };
      Value count = product(kb.sizes(x));
      assertEqualExtents(rewriter, loc, count, product(outSizes),
                         "attune.reshape: the result's extents hold another "
                         "number of elements than the input");
      // tensor.reshape with the extents as a shape tensor: a collapse and
      // an expand would need an expand_shape with two dynamic dims in one
      // group, which MLIR 22's expand-strided-metadata crashes on (see
      // attune-guard-expand-shapes).
      SmallVector<Value> extents;
      for (OpFoldResult e : outSizes)
        extents.push_back(getValueOrCreateConstantIndexOp(rewriter, loc, e));
      Value shape = tensor::FromElementsOp::create(
          rewriter, loc,
          RankedTensorType::get({outType.getRank()}, rewriter.getIndexType()),
          extents);
      Value y = tensor::ReshapeOp::create(rewriter, loc, outType, x, shape);
      replaceWithCast(rewriter, op, y);
      return success();
    }
    auto inRuns = segments(inType.getShape()),
         outRuns = segments(outType.getShape());
    SmallVector<bool> keep;
    for (size_t i = 0; i < inRuns.size(); ++i)
      keep.push_back(!inRuns[i].empty() && !outRuns[i].empty());
    // The canonical shape and its sizes (dynamic ones from the input).
    SmallVector<int64_t> mid;
    SmallVector<OpFoldResult> midSizes;
    SmallVector<OpFoldResult> inSizes = kb.sizes(x);
    for (size_t i = 0, d = 0; i < inRuns.size(); ++i) {
      if (keep[i]) {
        int64_t p = 1;
        for (int64_t e : inRuns[i])
          p *= e;
        mid.push_back(p);
        midSizes.push_back(rewriter.getIndexAttr(p));
      }
      d += inRuns[i].size();
      if (i + 1 < inRuns.size()) {
        mid.push_back(ShapedType::kDynamic);
        midSizes.push_back(inSizes[d]);
        ++d;
      }
    }
    auto midType = RankedTensorType::get(mid, inType.getElementType());
    Value y = x;
    if (midType != inType)
      y = tensor::CollapseShapeOp::create(
          rewriter, loc, midType, x, canonicalGroups(inType.getShape(), keep));
    if (midType != outType) {
      // The result's sizes: static ones, dynamic ones from the canonical
      // form's dynamic dims in order.
      SmallVector<OpFoldResult> outSizes;
      size_t k = 0;
      SmallVector<OpFoldResult> dyn;
      for (auto [i, e] : llvm::enumerate(mid))
        if (ShapedType::isDynamic(e))
          dyn.push_back(midSizes[i]);
      for (int64_t e : outType.getShape())
        outSizes.push_back(ShapedType::isDynamic(e) ? dyn[k++]
                                                    : rewriter.getIndexAttr(e));
      y = tensor::ExpandShapeOp::create(
          rewriter, loc, outType, y, canonicalGroups(outType.getShape(), keep),
          outSizes);
    }
    replaceWithCast(rewriter, op, y);
    return success();
  }
};

/// attune.broadcast: one generic reading the input through a broadcast
/// map, its dynamic extents from `sizes` (an input dim other than 1 checked
/// against its dynamic result extent at run time).
struct BroadcastLowering : OpConversionPattern<BroadcastOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(BroadcastOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    KernelBuilder kb(rewriter, loc);
    Value x = adaptor.getInput();
    ArrayRef<int64_t> in = tensorType(x).getShape();
    RankedTensorType type = op.getType();
    SmallVector<OpFoldResult> sizes =
        givenSizes(rewriter, type.getShape(), adaptor.getSizes());
    size_t lead = type.getRank() - in.size();
    for (size_t i = 0; i < in.size(); ++i)
      if (in[i] != 1 && ShapedType::isDynamic(type.getDimSize(lead + i)))
        assertEqualExtents(
            rewriter, loc, kb.dim(x, i),
            getValueOrCreateConstantIndexOp(rewriter, loc, sizes[lead + i]),
            "attune.broadcast: an input dim other than 1 differs from the "
            "result's extent");
    Value result = kb.generic(x, kb.empty(sizes, type.getElementType()),
                              {kb.broadcastMap(in, type.getShape()),
                               rewriter.getMultiDimIdentityMap(type.getRank())},
                              parallelIters(type.getRank()),
                              [](OpBuilder &b, Location l, ValueRange a) {
                                linalg::YieldOp::create(b, l, a[0]);
                              });
    replaceWithCast(rewriter, op, result);
    return success();
  }
};

struct SqueezeLowering : OpConversionPattern<SqueezeOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(SqueezeOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Value x = adaptor.getInput();
    int64_t rank = tensorType(x).getRank();
    int64_t axis = static_cast<int64_t>(op.getAxis());
    if (axis < 0)
      axis += rank;
    rewriter.replaceOpWithNewOp<tensor::CollapseShapeOp>(
        op, op.getType(), x, unitDimReassociation(axis, rank));
    return success();
  }
};

//===----------------------------------------------------------------------===//
// Elementwise and normalization
//===----------------------------------------------------------------------===//

struct CastLowering : OpConversionPattern<CastOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(CastOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    KernelBuilder kb(rewriter, op.getLoc());
    Type to = op.getType().getElementType();
    replaceWithCast(
        rewriter, op,
        kb.elementwise(op.getType(), adaptor.getInput(),
                       [&](OpBuilder &b, Location l, ValueRange a) {
                         linalg::YieldOp::create(
                             b, l, KernelBuilder::convert(b, l, a[0], to));
                       }));
    return success();
  }
};

struct MaskBiasLowering : OpConversionPattern<MaskBiasOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(MaskBiasOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    KernelBuilder kb(rewriter, op.getLoc());
    Type element = op.getType().getElementType();
    Value hidden = kb.floatConst(
        element, -std::numeric_limits<double>::infinity());
    Value visible = kb.floatConst(element, 0.0);
    replaceWithCast(
        rewriter, op,
        kb.elementwise(op.getType(), adaptor.getMask(),
                       [&](OpBuilder &b, Location l, ValueRange a) {
                         linalg::YieldOp::create(
                             b, l,
                             ValueRange{arith::SelectOp::create(
                                 b, l, a[0], hidden, visible)});
                       }));
    return success();
  }
};

struct ActivationLowering : OpConversionPattern<ActivationOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(ActivationOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    KernelBuilder kb(rewriter, op.getLoc());
    Activation kind = op.getKind();
    replaceWithCast(rewriter, 
        op, kb.elementwise(op.getType(), adaptor.getInput(),
                           [&](OpBuilder &b, Location l, ValueRange a) {
                             linalg::YieldOp::create(
                                 b, l, KernelBuilder::activation(b, l, kind, a[0]));
                           }));
    return success();
  }
};

/// `fn` applied to scalars of a half type through f32 (one rounding of the
/// f32 result, as PyTorch's CPU kernels compute half-precision math).
static Value inF32(OpBuilder &b, Location l, ValueRange xs,
                   function_ref<Value(ValueRange)> fn) {
  Type t = xs.front().getType();
  if (t.isF32())
    return fn(xs);
  SmallVector<Value> wide;
  for (Value x : xs)
    wide.push_back(KernelBuilder::convert(b, l, x, b.getF32Type()));
  return KernelBuilder::convert(b, l, fn(wide), t);
}

struct UnaryLowering : OpConversionPattern<UnaryOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(UnaryOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    KernelBuilder kb(rewriter, op.getLoc());
    UnaryFn fn = op.getFn();
    replaceWithCast(
        rewriter, op,
        kb.elementwise(
            op.getType(), adaptor.getInput(),
            [&](OpBuilder &b, Location l, ValueRange a) {
              Value y = inF32(b, l, a[0], [&](ValueRange x) -> Value {
                switch (fn) {
                case UnaryFn::erf:
                  return math::ErfOp::create(b, l, x[0]);
                case UnaryFn::sqrt:
                  return math::SqrtOp::create(b, l, x[0]);
                case UnaryFn::exp:
                  return math::ExpOp::create(b, l, x[0]);
                case UnaryFn::log:
                  return math::LogOp::create(b, l, x[0]);
                case UnaryFn::neg:
                  return arith::NegFOp::create(b, l, x[0]);
                case UnaryFn::abs:
                  return math::AbsFOp::create(b, l, x[0]);
                case UnaryFn::reciprocal:
                  return arith::DivFOp::create(
                      b, l,
                      arith::ConstantOp::create(b, l, b.getF32FloatAttr(1.0f)),
                      x[0]);
                }
                llvm_unreachable("unknown unary function");
              });
              linalg::YieldOp::create(b, l, y);
            }));
    return success();
  }
};

struct BinaryFnLowering : OpConversionPattern<BinaryOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(BinaryOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    KernelBuilder kb(rewriter, op.getLoc());
    BinaryFn fn = op.getFn();
    replaceWithCast(
        rewriter, op,
        kb.elementwise(
            op.getType(), ValueRange{adaptor.getLhs(), adaptor.getRhs()},
            [&](OpBuilder &b, Location l, ValueRange a) {
              Value y =
                  inF32(b, l, a.take_front(2), [&](ValueRange x) -> Value {
                    switch (fn) {
                    case BinaryFn::sub:
                      return arith::SubFOp::create(b, l, x[0], x[1]);
                    case BinaryFn::div:
                      return arith::DivFOp::create(b, l, x[0], x[1]);
                    case BinaryFn::pow:
                      return math::PowFOp::create(b, l, x[0], x[1]);
                    case BinaryFn::max:
                      return arith::MaximumFOp::create(b, l, x[0], x[1]);
                    case BinaryFn::min:
                      return arith::MinimumFOp::create(b, l, x[0], x[1]);
                    }
                    llvm_unreachable("unknown binary function");
                  });
              linalg::YieldOp::create(b, l, y);
            }));
    return success();
  }
};

struct CompareLowering : OpConversionPattern<CompareOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(CompareOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    KernelBuilder kb(rewriter, op.getLoc());
    ComparePredicate p = op.getPredicate();
    replaceWithCast(
        rewriter, op,
        kb.elementwise(
            op.getType(), ValueRange{adaptor.getLhs(), adaptor.getRhs()},
            [&](OpBuilder &b, Location l, ValueRange a) {
              Value r;
              if (isa<FloatType>(a[0].getType())) {
                // Ordered, but for ne: NaN makes only ne true.
                arith::CmpFPredicate fp =
                    p == ComparePredicate::eq   ? arith::CmpFPredicate::OEQ
                    : p == ComparePredicate::lt ? arith::CmpFPredicate::OLT
                    : p == ComparePredicate::le ? arith::CmpFPredicate::OLE
                    : p == ComparePredicate::gt ? arith::CmpFPredicate::OGT
                    : p == ComparePredicate::ge ? arith::CmpFPredicate::OGE
                                                : arith::CmpFPredicate::UNE;
                r = arith::CmpFOp::create(b, l, fp, a[0], a[1]);
              } else {
                arith::CmpIPredicate ip =
                    p == ComparePredicate::eq   ? arith::CmpIPredicate::eq
                    : p == ComparePredicate::lt ? arith::CmpIPredicate::slt
                    : p == ComparePredicate::le ? arith::CmpIPredicate::sle
                    : p == ComparePredicate::gt ? arith::CmpIPredicate::sgt
                    : p == ComparePredicate::ge ? arith::CmpIPredicate::sge
                                                : arith::CmpIPredicate::ne;
                r = arith::CmpIOp::create(b, l, ip, a[0], a[1]);
              }
              linalg::YieldOp::create(b, l, r);
            }));
    return success();
  }
};

struct SelectLowering : OpConversionPattern<SelectOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(SelectOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    KernelBuilder kb(rewriter, op.getLoc());
    replaceWithCast(
        rewriter, op,
        kb.elementwise(
            op.getType(),
            ValueRange{adaptor.getCondition(), adaptor.getLhs(),
                       adaptor.getRhs()},
            [&](OpBuilder &b, Location l, ValueRange a) {
              linalg::YieldOp::create(
                  b, l,
                  ValueRange{arith::SelectOp::create(b, l, a[0], a[1], a[2])});
            }));
    return success();
  }
};

struct ReduceLowering : OpConversionPattern<ReduceOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(ReduceOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    KernelBuilder kb(rewriter, loc);
    MLIRContext *ctx = rewriter.getContext();
    Value x = adaptor.getInput();
    RankedTensorType type = op.getType();
    int64_t rank = tensorType(x).getRank();
    SmallVector<bool> reduced(rank, false);
    for (int64_t axis : op.getAxes())
      reduced[axis < 0 ? axis + rank : axis] = true;
    ReduceKind kind = op.getKind();
    Type f32 = rewriter.getF32Type();
    // The accumulator [kept dims] in f32, starting at the kind's identity.
    SmallVector<OpFoldResult> inSizes = kb.sizes(x), accSizes;
    SmallVector<AffineExpr> accExprs;
    SmallVector<Iter> iters;
    SmallVector<ReassociationIndices> keep;
    for (int64_t d = 0; d < rank; ++d) {
      iters.push_back(reduced[d] ? Iter::reduction : Iter::parallel);
      if (reduced[d])
        continue;
      accSizes.push_back(inSizes[d]);
      accExprs.push_back(getAffineDimExpr(d, ctx));
    }
    double identity = 0.0;
    if (kind == ReduceKind::prod)
      identity = 1.0;
    else if (kind == ReduceKind::max)
      identity = -std::numeric_limits<double>::infinity();
    else if (kind == ReduceKind::min)
      identity = std::numeric_limits<double>::infinity();
    Value acc = kb.generic(x, kb.filled(accSizes, f32, identity),
                           {rewriter.getMultiDimIdentityMap(rank),
                            AffineMap::get(rank, 0, accExprs, ctx)},
                           iters, [&](OpBuilder &b, Location l, ValueRange a) {
                             Value v = KernelBuilder::convert(b, l, a[0],
                                                              b.getF32Type());
                             Value r;
                             switch (kind) {
                             case ReduceKind::sum:
                             case ReduceKind::mean:
                               r = arith::AddFOp::create(b, l, a[1], v);
                               break;
                             case ReduceKind::prod:
                               r = arith::MulFOp::create(b, l, a[1], v);
                               break;
                             case ReduceKind::max:
                               r = arith::MaximumFOp::create(b, l, a[1], v);
                               break;
                             case ReduceKind::min:
                               r = arith::MinimumFOp::create(b, l, a[1], v);
                               break;
                             }
                             linalg::YieldOp::create(b, l, r);
                           });
    // mean: divided by the reduced element count (known at run time).
    Value count;
    if (kind == ReduceKind::mean) {
      count = arith::ConstantIndexOp::create(rewriter, loc, 1);
      for (int64_t d = 0; d < rank; ++d)
        if (reduced[d])
          count = arith::MulIOp::create(
              rewriter, loc, count,
              getValueOrCreateConstantIndexOp(rewriter, loc, inSizes[d]));
      count = arith::UIToFPOp::create(
          rewriter, loc, f32,
          arith::IndexCastUIOp::create(rewriter, loc, rewriter.getI64Type(),
                                       count));
    }
    Type elem = type.getElementType();
    auto accType = cast<RankedTensorType>(acc.getType());
    Value result = kb.elementwise(
        RankedTensorType::get(accType.getShape(), elem), acc,
        [&](OpBuilder &b, Location l, ValueRange a) {
          Value v = a[0];
          if (count)
            v = arith::DivFOp::create(b, l, v, count);
          linalg::YieldOp::create(b, l, KernelBuilder::convert(b, l, v, elem));
        });
    if (op.getKeepDims() && accType.getRank() != rank) {
      // The reduced dims back as extents of 1: each kept dim's group takes
      // the unit dims before it (the trailing ones join the last group).
      SmallVector<ReassociationIndices> groups;
      ReassociationIndices pending;
      for (int64_t d = 0; d < rank; ++d) {
        pending.push_back(d);
        if (!reduced[d]) {
          groups.push_back(pending);
          pending.clear();
        }
      }
      if (groups.empty()) {
        // Every dim reduced: a rank-0 value expands to all-ones.
        result = tensor::ExpandShapeOp::create(
            rewriter, loc, type, result, ArrayRef<ReassociationIndices>{});
      } else {
        llvm::append_range(groups.back(), pending);
        result =
            tensor::ExpandShapeOp::create(rewriter, loc, type, result, groups);
      }
    }
    replaceWithCast(rewriter, op, result);
    return success();
  }
};

struct TriluLowering : OpConversionPattern<TriluOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(TriluOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    KernelBuilder kb(rewriter, op.getLoc());
    int64_t rank = op.getType().getRank();
    bool upper = op.getUpper();
    int64_t diagonal = static_cast<int64_t>(op.getDiagonal());
    Type elem = op.getType().getElementType();
    replaceWithCast(
        rewriter, op,
        kb.elementwise(
            op.getType(), adaptor.getInput(),
            [&](OpBuilder &b, Location l, ValueRange a) {
              // Kept: j - i >= diagonal (upper) or <= diagonal (lower).
              Value i = arith::IndexCastOp::create(
                  b, l, b.getI64Type(),
                  linalg::IndexOp::create(b, l, rank - 2));
              Value j = arith::IndexCastOp::create(
                  b, l, b.getI64Type(),
                  linalg::IndexOp::create(b, l, rank - 1));
              Value offset = arith::SubIOp::create(b, l, j, i);
              Value kept = arith::CmpIOp::create(
                  b, l,
                  upper ? arith::CmpIPredicate::sge : arith::CmpIPredicate::sle,
                  offset,
                  arith::ConstantOp::create(b, l,
                                            b.getI64IntegerAttr(diagonal)));
              Value zero = arith::ConstantOp::create(
                  b, l, cast<TypedAttr>(b.getZeroAttr(elem)));
              linalg::YieldOp::create(
                  b, l,
                  ValueRange{arith::SelectOp::create(b, l, kept, a[0], zero)});
            }));
    return success();
  }
};

struct ScaleLowering : OpConversionPattern<ScaleOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(ScaleOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    KernelBuilder kb(rewriter, op.getLoc());
    Value factor = kb.floatConst(op.getType().getElementType(),
                                 op.getFactor().convertToDouble());
    replaceWithCast(rewriter, 
        op, kb.elementwise(op.getType(), adaptor.getInput(),
                           [&](OpBuilder &b, Location l, ValueRange a) {
                             linalg::YieldOp::create(
                                 b, l, ValueRange{arith::MulFOp::create(b, l, a[0], factor)});
                           }));
    return success();
  }
};

template <typename AttuneOp, typename ArithOp>
struct BinaryLowering : OpConversionPattern<AttuneOp> {
  using OpConversionPattern<AttuneOp>::OpConversionPattern;
  LogicalResult
  matchAndRewrite(AttuneOp op, typename AttuneOp::Adaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    KernelBuilder kb(rewriter, op.getLoc());
    replaceWithCast(rewriter, 
        op, kb.elementwise(op.getType(),
                           ValueRange{adaptor.getLhs(), adaptor.getRhs()},
                           [](OpBuilder &b, Location l, ValueRange a) {
                             linalg::YieldOp::create(
                                 b, l, ValueRange{ArithOp::create(b, l, a[0], a[1])});
                           }));
    return success();
  }
};

struct SoftmaxLowering : OpConversionPattern<SoftmaxOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(SoftmaxOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    KernelBuilder kb(rewriter, op.getLoc());
    int64_t rank = op.getType().getRank();
    int64_t axis = static_cast<int64_t>(op.getAxis());
    if (axis < 0)
      axis += rank;
    replaceWithCast(rewriter, op, kb.softmax(adaptor.getInput(), axis));
    return success();
  }
};

struct LayerNormLowering : OpConversionPattern<LayerNormOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(LayerNormOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    KernelBuilder kb(rewriter, op.getLoc());
    MLIRContext *ctx = rewriter.getContext();
    Value x = adaptor.getInput(), residual = adaptor.getResidual();
    RankedTensorType type = op.getType();
    Type elem = type.getElementType();
    int64_t rank = type.getRank();
    int64_t nrank = static_cast<int64_t>(op.getNormalizedRank());
    int64_t lead = rank - nrank;
    int64_t count = 1;
    for (int64_t d : type.getShape().take_back(nrank))
      count *= d;

    SmallVector<OpFoldResult> sizes = kb.sizes(x);
    SmallVector<OpFoldResult> reducedSizes(sizes.begin(), sizes.begin() + lead);
    SmallVector<AffineExpr> leadExprs, trailExprs;
    for (int64_t d = 0; d < rank; ++d)
      (d < lead ? leadExprs : trailExprs).push_back(getAffineDimExpr(d, ctx));
    AffineMap full = rewriter.getMultiDimIdentityMap(rank);
    AffineMap reduced = AffineMap::get(rank, 0, leadExprs, ctx);
    AffineMap trailing = AffineMap::get(rank, 0, trailExprs, ctx);
    SmallVector<Iter> reduce = parallelIters(rank);
    for (int64_t d = lead; d < rank; ++d)
      reduce[d] = Iter::reduction;
    Value invCount = kb.floatConst(elem, 1.0 / static_cast<double>(count));

    // Two passes (mean, then the biased variance of x - mean): stable for
    // inputs with a large mean, as PyTorch's kernel is.
    // With a residual, every pass reads both summands and adds them: the
    // sum is never stored. `first` is the index of the first block argument
    // after them.
    SmallVector<Value> xs = {x};
    SmallVector<AffineMap> xMaps = {full};
    if (residual) {
      xs.push_back(residual);
      xMaps.push_back(full);
    }
    unsigned first = xs.size();
    auto input = [&](OpBuilder &b, Location l, ValueRange a) -> Value {
      return residual ? arith::AddFOp::create(b, l, a[0], a[1]).getResult()
                      : a[0];
    };
    auto with = [](ArrayRef<Value> head, ArrayRef<Value> tail) {
      SmallVector<Value> all(head);
      all.append(tail.begin(), tail.end());
      return all;
    };
    auto withMaps = [](ArrayRef<AffineMap> head, ArrayRef<AffineMap> tail) {
      SmallVector<AffineMap> all(head);
      all.append(tail.begin(), tail.end());
      return all;
    };
    Value mean = kb.generic(
        xs, kb.filled(reducedSizes, elem, 0.0), withMaps(xMaps, {reduced}),
        reduce, [&](OpBuilder &b, Location l, ValueRange a) {
          linalg::YieldOp::create(
              b, l, ValueRange{arith::AddFOp::create(b, l, input(b, l, a), a[first])});
        });
    Value var = kb.generic(
        with(xs, {mean}), kb.filled(reducedSizes, elem, 0.0),
        withMaps(xMaps, {reduced, reduced}), reduce,
        [&](OpBuilder &b, Location l, ValueRange a) {
          Value m = arith::MulFOp::create(b, l, a[first], invCount);
          Value d = arith::SubFOp::create(b, l, input(b, l, a), m);
          Value sq = arith::MulFOp::create(b, l, d, d);
          linalg::YieldOp::create(b, l, ValueRange{arith::AddFOp::create(b, l, a[first + 1], sq)});
        });
    SmallVector<Value> inputs = with(xs, {mean, var});
    SmallVector<AffineMap> maps = withMaps(xMaps, {reduced, reduced});
    Value weight = adaptor.getWeight(), bias = adaptor.getBias();
    if (weight) {
      inputs.push_back(weight);
      maps.push_back(trailing);
    }
    if (bias) {
      inputs.push_back(bias);
      maps.push_back(trailing);
    }
    maps.push_back(full);
    Value eps = kb.floatConst(elem, op.getEpsilon().convertToDouble());
    Value result = kb.generic(
        inputs, kb.empty(sizes, elem), maps, parallelIters(rank),
        [&](OpBuilder &b, Location l, ValueRange a) {
          Value m = arith::MulFOp::create(b, l, a[first], invCount);
          Value v = arith::MulFOp::create(b, l, a[first + 1], invCount);
          Value r = math::RsqrtOp::create(b, l, arith::AddFOp::create(b, l, v, eps));
          Value y = arith::MulFOp::create(
              b, l, arith::SubFOp::create(b, l, input(b, l, a), m), r);
          unsigned next = first + 2;
          if (weight)
            y = arith::MulFOp::create(b, l, y, a[next++]);
          if (bias)
            y = arith::AddFOp::create(b, l, y, a[next++]);
          linalg::YieldOp::create(b, l, y);
        });
    replaceWithCast(rewriter, op, result);
    return success();
  }
};

//===----------------------------------------------------------------------===//
// Embeddings
//===----------------------------------------------------------------------===//

/// A check whose flag (a rank-0 i32 tensor, non-zero: failed) is computed
/// where the data is: a call of the runtime's attune_vk_check with the flag's
/// buffer and the id of `message` in the module's message table.
static void deferCheck(RewriterBase &rewriter, Operation *op,
                       Value flag, StringRef message) {
  Location loc = op->getLoc();
  MLIRContext *ctx = rewriter.getContext();
  auto module = op->getParentOfType<ModuleOp>();
  SmallVector<Attribute> messages;
  if (auto table = module->getAttrOfType<ArrayAttr>(kDeferredCheckMessagesAttr))
    messages.assign(table.begin(), table.end());
  int64_t id = messages.size();
  messages.push_back(StringAttr::get(ctx, message));
  module->setAttr(kDeferredCheckMessagesAttr, ArrayAttr::get(ctx, messages));
  auto memrefType = MemRefType::get({}, rewriter.getI32Type());
  auto fnType = rewriter.getFunctionType(
      {memrefType, rewriter.getI64Type()}, {});
  StringRef name = ::attune::artifact::kVulkanCheck;
  if (!module.lookupSymbol<func::FuncOp>(name)) {
    OpBuilder::InsertionGuard guard(rewriter);
    rewriter.setInsertionPointToStart(module.getBody());
    auto fn = func::FuncOp::create(rewriter, loc, name, fnType);
    fn.setPrivate();
    fn->setAttr(LLVM::LLVMDialect::getEmitCWrapperAttrName(),
                rewriter.getUnitAttr());
  }
  Value buffer =
      bufferization::ToBufferOp::create(rewriter, loc, memrefType, flag);
  Value idValue = arith::ConstantOp::create(rewriter, loc,
                                            rewriter.getI64IntegerAttr(id));
  func::CallOp::create(rewriter, loc, name, TypeRange{},
                       ValueRange{buffer, idValue});
}

/// A check's flag before any element is looked at: a rank-0 i32 zero.
static Value clearedFlag(OpBuilder &b, Location loc) {
  return linalg::FillOp::create(
             b, loc,
             ValueRange{
                 arith::ConstantOp::create(b, loc, b.getI32IntegerAttr(0))},
             ValueRange{tensor::EmptyOp::create(b, loc, ArrayRef<int64_t>{},
                                                b.getI32Type())})
      .getResult(0);
}

/// Fails the run with `text` (located at `op`) where the rank-0 i32 flag is
/// non-zero: a cf.assert (the CPU code reads it) or a deferred check
/// (Vulkan: the flag stays on the device).
static void reportCheck(RewriterBase &rewriter, Operation *op,
                        IndexChecks checks, Value flagTensor, StringRef text) {
  Location loc = op->getLoc();
  std::string message = runtimeCheckMessage(loc, text);
  if (checks == IndexChecks::Assert) {
    Value flag =
        tensor::ExtractOp::create(rewriter, loc, flagTensor, ValueRange{});
    Value ok = arith::CmpIOp::create(
        rewriter, loc, arith::CmpIPredicate::eq, flag,
        arith::ConstantOp::create(rewriter, loc,
                                  rewriter.getI32IntegerAttr(0)));
    cf::AssertOp::create(rewriter, loc, ok, message);
  } else {
    deferCheck(rewriter, op, flagTensor, message);
  }
}

/// A located run-time check that every element of the integer tensor
/// `values` is in [lo, hi] (`hi` an index value computed before the check):
/// one pass over the elements into a flag, then a cf.assert (the CPU code
/// reads it) or a deferred check (Vulkan: the flag stays on the device).
static void checkEveryElement(RewriterBase &rewriter, Operation *op,
                              IndexChecks checks, Value values, OpFoldResult lo,
                              Value hi, StringRef text) {
  Location loc = op->getLoc();
  MLIRContext *ctx = rewriter.getContext();
  KernelBuilder kb(rewriter, loc);
  int64_t rank = tensorType(values).getRank();
  Value init = clearedFlag(rewriter, loc);
  Value anyBad = kb.generic(
      values, init,
      {rewriter.getMultiDimIdentityMap(rank), AffineMap::get(rank, 0, {}, ctx)},
      SmallVector<Iter>(rank, Iter::reduction),
      [&](OpBuilder &b, Location l, ValueRange a) {
        Value v = toIndex(b, l, a[0]);
        Value below =
            arith::CmpIOp::create(b, l, arith::CmpIPredicate::slt, v,
                                  getValueOrCreateConstantIndexOp(b, l, lo));
        Value above =
            arith::CmpIOp::create(b, l, arith::CmpIPredicate::sgt, v, hi);
        Value bad = arith::ExtUIOp::create(
            b, l, a[1].getType(), arith::OrIOp::create(b, l, below, above));
        linalg::YieldOp::create(
            b, l, ValueRange{arith::OrIOp::create(b, l, a[1], bad)});
      });
  reportCheck(rewriter, op, checks, anyBad, text);
}

/// Global token positions (`globals [B, G]` of attune.attention): each in
/// [0, Lk) and none twice in a row, checked when the model runs.
static void checkGlobals(RewriterBase &rewriter, Operation *op,
                         IndexChecks checks, Value globals, Value lk) {
  if (checks == IndexChecks::None)
    return;
  Location loc = op->getLoc();
  MLIRContext *ctx = rewriter.getContext();
  KernelBuilder kb(rewriter, loc);
  Value init = clearedFlag(rewriter, loc);
  AffineExpr d0 = getAffineDimExpr(0, ctx), d1 = getAffineDimExpr(1, ctx),
             d2 = getAffineDimExpr(2, ctx);
  // Over (b, g, g2): position g out of range, or equal to an earlier g2.
  Value anyBad = kb.generic(
      ValueRange{globals, globals}, init,
      {AffineMap::get(3, 0, {d0, d1}, ctx), AffineMap::get(3, 0, {d0, d2}, ctx),
       AffineMap::get(3, 0, {}, ctx)},
      SmallVector<Iter>(3, Iter::reduction),
      [&](OpBuilder &b, Location l, ValueRange a) {
        Value v = toIndex(b, l, a[0]), w = toIndex(b, l, a[1]);
        Value zero = arith::ConstantIndexOp::create(b, l, 0);
        Value below =
            arith::CmpIOp::create(b, l, arith::CmpIPredicate::slt, v, zero);
        Value above =
            arith::CmpIOp::create(b, l, arith::CmpIPredicate::sge, v, lk);
        Value earlier = arith::CmpIOp::create(b, l, arith::CmpIPredicate::ult,
                                              linalg::IndexOp::create(b, l, 2),
                                              linalg::IndexOp::create(b, l, 1));
        Value twice = arith::AndIOp::create(
            b, l, earlier,
            arith::CmpIOp::create(b, l, arith::CmpIPredicate::eq, v, w));
        Value bad = arith::OrIOp::create(
            b, l, arith::OrIOp::create(b, l, below, above), twice);
        linalg::YieldOp::create(
            b, l,
            ValueRange{arith::OrIOp::create(
                b, l, a[2],
                arith::ExtUIOp::create(b, l, a[2].getType(), bad))});
      });
  reportCheck(rewriter, op, checks, anyBad,
              "global token positions must be distinct and in [0, Lk)");
}

struct EmbeddingLowering : OpConversionPattern<EmbeddingOp> {
  EmbeddingLowering(MLIRContext *ctx, IndexChecks checks)
      : OpConversionPattern(ctx), checks(checks) {}
  IndexChecks checks;

  LogicalResult
  matchAndRewrite(EmbeddingOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    KernelBuilder kb(rewriter, op.getLoc());
    MLIRContext *ctx = rewriter.getContext();
    Value ids = adaptor.getIds(), table = adaptor.getTable();
    RankedTensorType type = op.getType();
    int64_t rank = type.getRank();
    int64_t vocab = tensorType(table).getDimSize(0);
    Type elem = type.getElementType();
    if (checks != IndexChecks::None) {
      // Every id in [0, V), or the run fails with the op's location.
      checkEveryElement(
          rewriter, op, checks, ids, rewriter.getIndexAttr(0),
          arith::ConstantIndexOp::create(rewriter, op.getLoc(), vocab - 1),
          "token id out of range: every id of attune.embedding must be in "
          "[0, " +
              std::to_string(vocab) + ")");
    }
    SmallVector<OpFoldResult> sizes = kb.sizes(ids);
    sizes.push_back(rewriter.getIndexAttr(type.getShape().back()));
    SmallVector<AffineExpr> idExprs;
    for (int64_t d = 0; d < rank - 1; ++d)
      idExprs.push_back(getAffineDimExpr(d, ctx));
    Value result = kb.generic(
        ids, kb.empty(sizes, elem),
        {AffineMap::get(rank, 0, idExprs, ctx),
         rewriter.getMultiDimIdentityMap(rank)},
        parallelIters(rank), [&](OpBuilder &b, Location l, ValueRange a) {
          // Out-of-range ids (unchecked: on Vulkan) give zero rows.
          Value id = toIndex(b, l, a[0]);
          Value e = linalg::IndexOp::create(b, l, rank - 1);
          linalg::YieldOp::create(
              b, l, KernelBuilder::guardedRow(b, l, table, id, e, vocab));
        });
    replaceWithCast(rewriter, op, result);
    return success();
  }
};

struct GatherLowering : OpConversionPattern<GatherOp> {
  GatherLowering(MLIRContext *ctx, IndexChecks checks)
      : OpConversionPattern(ctx), checks(checks) {}
  IndexChecks checks;

  LogicalResult
  matchAndRewrite(GatherOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    KernelBuilder kb(rewriter, loc);
    MLIRContext *ctx = rewriter.getContext();
    Value x = adaptor.getInput(), indices = adaptor.getIndices();
    RankedTensorType type = op.getType();
    int64_t inRank = tensorType(x).getRank();
    int64_t idxRank = tensorType(indices).getRank();
    int64_t rank = type.getRank();
    int64_t axis = static_cast<int64_t>(op.getAxis());
    if (axis < 0)
      axis += inRank;
    Value extent = kb.dim(x, axis);
    if (checks != IndexChecks::None) {
      // Every index in [-n, n), or the run fails with the op's location.
      Value last = arith::SubIOp::create(
          rewriter, loc, extent,
          arith::ConstantIndexOp::create(rewriter, loc, 1));
      Value first = arith::SubIOp::create(
          rewriter, loc, arith::ConstantIndexOp::create(rewriter, loc, 0),
          extent);
      checkEveryElement(rewriter, op, checks, indices, first, last,
                        "index out of range: every index of attune.gather "
                        "must be in [-n, n), n the extent along its axis");
    }
    // The result's sizes: the input's before and after `axis`, the
    // indices' in between.
    SmallVector<OpFoldResult> inSizes = kb.sizes(x),
                              idxSizes = kb.sizes(indices);
    SmallVector<OpFoldResult> sizes(inSizes.begin(), inSizes.begin() + axis);
    llvm::append_range(sizes, idxSizes);
    sizes.append(inSizes.begin() + axis + 1, inSizes.end());
    SmallVector<AffineExpr> idxExprs;
    for (int64_t d = 0; d < idxRank; ++d)
      idxExprs.push_back(getAffineDimExpr(axis + d, ctx));
    Type elem = type.getElementType();
    Value result = kb.generic(
        indices, kb.empty(sizes, elem),
        {AffineMap::get(rank, 0, idxExprs, ctx),
         rewriter.getMultiDimIdentityMap(rank)},
        parallelIters(rank), [&](OpBuilder &b, Location l, ValueRange a) {
          Value zeroIdx = arith::ConstantIndexOp::create(b, l, 0);
          Value i = toIndex(b, l, a[0]);
          Value negative = arith::CmpIOp::create(
              b, l, arith::CmpIPredicate::slt, i, zeroIdx);
          i = arith::SelectOp::create(
              b, l, negative, arith::AddIOp::create(b, l, i, extent), i);
          // Unchecked out-of-range indices (on Vulkan, until the deferred
          // check fails the run) read zeros.
          Value inRange = arith::AndIOp::create(
              b, l,
              arith::CmpIOp::create(b, l, arith::CmpIPredicate::sge, i,
                                    zeroIdx),
              arith::CmpIOp::create(b, l, arith::CmpIPredicate::slt, i,
                                    extent));
          Value safe = arith::SelectOp::create(b, l, inRange, i, zeroIdx);
          SmallVector<Value> at;
          for (int64_t d = 0; d < axis; ++d)
            at.push_back(linalg::IndexOp::create(b, l, d));
          at.push_back(safe);
          for (int64_t d = axis + 1; d < inRank; ++d)
            at.push_back(linalg::IndexOp::create(b, l, d + idxRank - 1));
          Value v = tensor::ExtractOp::create(b, l, x, at);
          Value zero = arith::ConstantOp::create(
              b, l, cast<TypedAttr>(b.getZeroAttr(elem)));
          linalg::YieldOp::create(
              b, l,
              ValueRange{arith::SelectOp::create(b, l, inRange, v, zero)});
        });
    replaceWithCast(rewriter, op, result);
    return success();
  }
};

struct PositionalEncodingLowering : OpConversionPattern<PositionalEncodingOp> {
  PositionalEncodingLowering(MLIRContext *ctx, IndexChecks checks)
      : OpConversionPattern(ctx), checks(checks) {}
  IndexChecks checks;

  LogicalResult
  matchAndRewrite(PositionalEncodingOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    KernelBuilder kb(rewriter, op.getLoc());
    MLIRContext *ctx = rewriter.getContext();
    Location loc = op.getLoc();
    RankedTensorType type = op.getType();
    int64_t rank = type.getRank();
    int64_t embed = type.getShape().back();
    int64_t offset = static_cast<int64_t>(op.getOffset());
    Type elem = type.getElementType();
    Value table = adaptor.getTable(), offsets = adaptor.getOffsets();
    bool learned = op.getKind() == PositionalKind::learned;
    int64_t tableRows = learned ? tensorType(table).getDimSize(0) : 0;
    if (learned && offsets && checks != IndexChecks::None) {
      // Every sequence's positions inside the table: offsets[b] in
      // [0, rows - L].
      Value last = arith::SubIOp::create(
          rewriter, loc, arith::ConstantIndexOp::create(rewriter, loc, tableRows),
          kb.dim(adaptor.getInput(), rank - 2));
      checkEveryElement(
          rewriter, op, checks, offsets, rewriter.getIndexAttr(0), last,
          "position out of range for the learned position table: every "
          "offsets[b] + length must be at most its " +
              std::to_string(tableRows) + " rows");
    } else if (learned && type.isDynamicDim(rank - 2)) {
      // A dynamic length must not run past the table (a static one was
      // checked by the verifier): offset + L <= rows, a located run-time
      // error otherwise, on every target (it reads only the shape).
      Value length = kb.dim(adaptor.getInput(), rank - 2);
      Value end = arith::AddIOp::create(
          rewriter, loc, length,
          arith::ConstantIndexOp::create(rewriter, loc, offset));
      Value fits = arith::CmpIOp::create(
          rewriter, loc, arith::CmpIPredicate::sle, end,
          arith::ConstantIndexOp::create(rewriter, loc, tableRows));
      cf::AssertOp::create(
          rewriter, loc, fits,
          runtimeCheckMessage(
              loc, "sequence too long for the learned position table: "
                   "offset " + std::to_string(offset) + " + length must be "
                   "at most its " + std::to_string(tableRows) + " rows"));
    }
    // PE(pos, 2i) = sin(pos * exp(2i * -ln(10000) / E)), cos for 2i + 1:
    // the formulation of the PyTorch tutorial, in the element type.
    Value rate = kb.floatConst(elem, -std::log(10000.0) / static_cast<double>(embed));
    SmallVector<Value> ins = {adaptor.getInput()};
    SmallVector<AffineMap> maps = {rewriter.getMultiDimIdentityMap(rank)};
    if (offsets) {
      ins.push_back(offsets);
      maps.push_back(AffineMap::get(rank, 0, {getAffineDimExpr(0, ctx)}, ctx));
    }
    maps.push_back(rewriter.getMultiDimIdentityMap(rank));
    Value result = kb.generic(
        ins, kb.empty(kb.sizes(adaptor.getInput()), elem), maps,
        parallelIters(rank), [&](OpBuilder &b, Location l, ValueRange a) {
          Value lIdx = linalg::IndexOp::create(b, l, rank - 2);
          Value eIdx = linalg::IndexOp::create(b, l, rank - 1);
          Value first = offsets ? toIndex(b, l, a[1])
                                : arith::ConstantIndexOp::create(b, l, offset)
                                      .getResult();
          Value pos = arith::AddIOp::create(b, l, lIdx, first);
          Value pe;
          if (learned) {
            // Positions past the table (possible only unchecked) add
            // nothing, rather than reading out of bounds.
            pe = KernelBuilder::guardedRow(b, l, table, pos, eIdx, tableRows);
          } else {
            auto toFloat = [&](Value idx) {
              Value i = arith::IndexCastOp::create(b, l, b.getI64Type(), idx);
              return arith::SIToFPOp::create(b, l, elem, i).getResult();
            };
            Value two = arith::ConstantIndexOp::create(b, l, 2);
            Value parity = arith::RemUIOp::create(b, l, eIdx, two);
            Value even = arith::SubIOp::create(b, l, eIdx, parity);
            Value freq = math::ExpOp::create(
                b, l, arith::MulFOp::create(b, l, toFloat(even), rate));
            Value angle = arith::MulFOp::create(b, l, toFloat(pos), freq);
            Value isEven = arith::CmpIOp::create(
                b, l, arith::CmpIPredicate::eq, parity,
                arith::ConstantIndexOp::create(b, l, 0));
            Value sin = math::SinOp::create(b, l, angle);
            Value cos = math::CosOp::create(b, l, angle);
            pe = arith::SelectOp::create(b, l, isEven, sin, cos);
          }
          linalg::YieldOp::create(b, l, ValueRange{arith::AddFOp::create(b, l, a[0], pe)});
        });
    replaceWithCast(rewriter, op, result);
    return success();
  }
};

//===----------------------------------------------------------------------===//
// Generation state
//===----------------------------------------------------------------------===//

/// The run-time check that every row's update fits in the cache:
/// 0 <= positions[b] <= capacity - T.
static void checkCacheCapacity(RewriterBase &rewriter, CacheWriteOp op,
                               IndexChecks checks, Value cache, Value update,
                               Value positions) {
  if (checks == IndexChecks::None)
    return;
  Location loc = op.getLoc();
  KernelBuilder kb(rewriter, loc);
  Value capacity = kb.dim(cache, 2), count = kb.dim(update, 2);
  Value lastFirst = arith::SubIOp::create(rewriter, loc, capacity, count);
  checkEveryElement(rewriter, op, checks, positions, rewriter.getIndexAttr(0),
                    lastFirst,
                    "cache capacity exceeded: attune.cache_write needs 0 <= "
                    "positions[b] and positions[b] + new tokens <= the cache's "
                    "capacity (dim 2 of " +
                        std::to_string(tensorType(cache).getDimSize(2)) +
                        ", ? = given at run time)");
}

/// scf.for over the batch inserting each sequence's update at its position:
/// bufferized in place into the cache (a generation state's buffer), so a
/// step writes T x H x D elements per sequence and copies nothing else.
/// (With deferred checks, for Vulkan, the op stays until bufferization:
/// the host code cannot read the positions to place slices, and the op's
/// bufferization, CacheWriteBufferization.cpp, scatters on the device.)
struct CacheWriteLowering : OpConversionPattern<CacheWriteOp> {
  CacheWriteLowering(MLIRContext *ctx, IndexChecks checks)
      : OpConversionPattern(ctx), checks(checks) {}
  IndexChecks checks;

  LogicalResult
  matchAndRewrite(CacheWriteOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    KernelBuilder kb(rewriter, loc);
    Value cache = adaptor.getCache(), update = adaptor.getUpdate(),
          positions = adaptor.getPositions();
    RankedTensorType cacheType = tensorType(cache);
    Value count = kb.dim(update, 2);
    checkCacheCapacity(rewriter, op, checks, cache, update, positions);
    int64_t heads = cacheType.getDimSize(1), dim = cacheType.getDimSize(3);
    Value c0 = arith::ConstantIndexOp::create(rewriter, loc, 0);
    Value c1 = arith::ConstantIndexOp::create(rewriter, loc, 1);
    Value batch = kb.dim(update, 0);
    auto loop = scf::ForOp::create(
        rewriter, loc, c0, batch, c1, ValueRange{cache},
        [&](OpBuilder &b, Location l, Value bIdx, ValueRange acc) {
          Value first = toIndex(
              b, l, tensor::ExtractOp::create(b, l, positions, bIdx));
          OpFoldResult one = b.getIndexAttr(1), zero = b.getIndexAttr(0);
          SmallVector<OpFoldResult> sizes = {one, b.getIndexAttr(heads), count,
                                             b.getIndexAttr(dim)};
          SmallVector<OpFoldResult> strides(4, one);
          auto rowsType = RankedTensorType::get(
              {1, heads, tensorType(update).getDimSize(2), dim},
              cacheType.getElementType());
          Value rows = tensor::ExtractSliceOp::create(
              b, l, rowsType, update,
              ArrayRef<OpFoldResult>{bIdx, zero, zero, zero}, sizes, strides);
          Value written = tensor::InsertSliceOp::create(
              b, l, rows, acc[0],
              ArrayRef<OpFoldResult>{bIdx, zero, first, zero}, sizes, strides);
          scf::YieldOp::create(b, l, written);
        });
    replaceWithCast(rewriter, op, loop.getResult(0));
    return success();
  }
};

/// A copy of the value into the dest's buffer (destination passing).
struct OverwriteLowering : OpConversionPattern<OverwriteOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(OverwriteOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value value = adaptor.getValue(), dest = adaptor.getDest();
    if (value.getType() != dest.getType())
      value = tensor::CastOp::create(rewriter, loc, dest.getType(), value);
    Value copied =
        linalg::CopyOp::create(rewriter, loc, value, dest).getResult(0);
    replaceWithCast(rewriter, op, copied);
    return success();
  }
};

/// result[b, ...] = input[b, lengths[b] - 1, ...]: a gather from indices.
struct SelectLastLowering : OpConversionPattern<SelectLastOp> {
  SelectLastLowering(MLIRContext *ctx, IndexChecks checks)
      : OpConversionPattern(ctx), checks(checks) {}
  IndexChecks checks;

  LogicalResult
  matchAndRewrite(SelectLastOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    KernelBuilder kb(rewriter, loc);
    MLIRContext *ctx = rewriter.getContext();
    Value input = adaptor.getInput(), lengths = adaptor.getLengths();
    Value length = kb.dim(input, 1);
    if (checks != IndexChecks::None)
      checkEveryElement(
          rewriter, op, checks, lengths, rewriter.getIndexAttr(1), length,
          "length out of range: every length of attune.select_last must be "
          "in [1, L] for an input of L positions");
    RankedTensorType type = op.getType();
    int64_t rank = type.getRank();
    SmallVector<OpFoldResult> sizes = kb.sizes(input);
    sizes.erase(sizes.begin() + 1);
    Value result = kb.generic(
        lengths, kb.empty(sizes, type.getElementType()),
        {AffineMap::get(rank, 0, {getAffineDimExpr(0, ctx)}, ctx),
         rewriter.getMultiDimIdentityMap(rank)},
        parallelIters(rank), [&](OpBuilder &b, Location l, ValueRange a) {
          // Clamped into [0, L - 1]: unchecked lengths never read outside.
          Value c0 = arith::ConstantIndexOp::create(b, l, 0);
          Value c1 = arith::ConstantIndexOp::create(b, l, 1);
          Value row = arith::SubIOp::create(b, l, toIndex(b, l, a[0]), c1);
          row = arith::MaxSIOp::create(b, l, row, c0);
          row = arith::MinSIOp::create(
              b, l, row, arith::SubIOp::create(b, l, length, c1));
          SmallVector<Value> at = {linalg::IndexOp::create(b, l, 0), row};
          for (int64_t d = 1; d < rank; ++d)
            at.push_back(linalg::IndexOp::create(b, l, d));
          linalg::YieldOp::create(
              b, l, ValueRange{tensor::ExtractOp::create(b, l, input, at)});
        });
    replaceWithCast(rewriter, op, result);
    return success();
  }
};

//===----------------------------------------------------------------------===//
// Attention
//===----------------------------------------------------------------------===//

struct AttentionLowering : OpConversionPattern<AttentionOp> {
  AttentionLowering(MLIRContext *ctx, IndexChecks checks)
      : OpConversionPattern(ctx), checks(checks) {}
  IndexChecks checks;
  LogicalResult
  matchAndRewrite(AttentionOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    KernelBuilder kb(rewriter, op.getLoc());
    Location loc = op.getLoc();
    MLIRContext *ctx = rewriter.getContext();
    Value q = adaptor.getQuery(), k = adaptor.getKey(), v = adaptor.getValue();
    Value lengths = adaptor.getKeyLengths(), bias = adaptor.getBias();
    RankedTensorType qt = tensorType(q);
    Type elem = qt.getElementType();
    int64_t heads = qt.getDimSize(1);
    int64_t group = heads / tensorType(k).getDimSize(1);
    int64_t valueDim = tensorType(v).getDimSize(3);

    OpFoldResult batch = kb.staticOrDim({{q, 0}, {k, 0}, {v, 0}});
    OpFoldResult lq = kb.sizes(q)[2];
    OpFoldResult lk = kb.staticOrDim({{k, 2}, {v, 2}});
    OpFoldResult h = rewriter.getIndexAttr(heads);
    SmallVector<OpFoldResult> scoreSizes = {batch, h, lq, lk};
    SmallVector<int64_t> scoreShape = {getConstantIntValue(batch).value_or(ShapedType::kDynamic), heads,
                                       qt.getDimSize(2),
                                       getConstantIntValue(lk).value_or(ShapedType::kDynamic)};

    AffineExpr d0 = getAffineDimExpr(0, ctx), d1 = getAffineDimExpr(1, ctx),
               d2 = getAffineDimExpr(2, ctx), d3 = getAffineDimExpr(3, ctx),
               d4 = getAffineDimExpr(4, ctx);
    AffineExpr kvHead = d1.floorDiv(group);
    SmallVector<Iter> contract = {Iter::parallel, Iter::parallel,
                                  Iter::parallel, Iter::parallel,
                                  Iter::reduction};

    // s[b,h,i,j] = sum_d q[b,h,i,d] * k[b,h/G,j,d]
    Value dots = kb.generic(
        ValueRange{q, k}, kb.filled(scoreSizes, elem, 0.0),
        {AffineMap::get(5, 0, {d0, d1, d2, d4}, ctx),
         AffineMap::get(5, 0, {d0, kvHead, d3, d4}, ctx),
         AffineMap::get(5, 0, {d0, d1, d2, d3}, ctx)},
        contract, KernelBuilder::multiplyAccumulate);

    // Scale, bias and the masks, from indices.
    Value scale = kb.floatConst(elem, op.getEffectiveScale());
    Value lqVal = getValueOrCreateConstantIndexOp(rewriter, loc, lq);
    Value lkVal = getValueOrCreateConstantIndexOp(rewriter, loc, lk);
    SmallVector<Value> inputs = {dots};
    SmallVector<AffineMap> maps = {rewriter.getMultiDimIdentityMap(4)};
    if (bias) {
      inputs.push_back(bias);
      maps.push_back(kb.broadcastMap(tensorType(bias).getShape(), scoreShape));
    }
    if (lengths) {
      inputs.push_back(lengths);
      maps.push_back(AffineMap::get(4, 0, {d0}, ctx));
    }
    Value offsets = adaptor.getQueryOffsets();
    if (offsets) {
      inputs.push_back(offsets);
      maps.push_back(AffineMap::get(4, 0, {d0}, ctx));
    }
    // Global tokens: flags [B, Lk], read at the key (a map) and at the
    // query's position (an extract, guarded).
    Value globals = adaptor.getGlobalIndices(), flags;
    if (globals) {
      checkGlobals(rewriter, op, checks, globals, lkVal);
      flags = globalTokenFlags(kb, globals, lkVal);
      inputs.push_back(flags);
      maps.push_back(AffineMap::get(4, 0, {d0, d3}, ctx));
    }
    maps.push_back(rewriter.getMultiDimIdentityMap(4));
    bool causal = op.getCausal();
    MaskAlign align = op.getAlign();
    std::optional<int64_t> window = op.getWindowSpan();
    int64_t dilation = op.getDilationOrOne();
    // Query offsets matter only to causal and window masks.
    SparseLayoutAttr sparse = op.getSparseAttr();
    bool masked = causal || window || lengths || sparse;
    Value scores = kb.generic(
        inputs, kb.empty(scoreSizes, elem), maps, parallelIters(4),
        [&](OpBuilder &b, Location l, ValueRange a) {
          Value s = arith::MulFOp::create(b, l, a[0], scale);
          unsigned next = 1;
          if (bias)
            s = arith::AddFOp::create(b, l, s, a[next++]);
          if (masked) {
            Value len = lengths ? toIndex(b, l, a[next++]) : Value();
            Value offset = offsets ? toIndex(b, l, a[next++]) : Value();
            Value i = linalg::IndexOp::create(b, l, 2);
            Value j = linalg::IndexOp::create(b, l, 3);
            Value vis = KernelBuilder::visible(
                b, l, i, j, lqVal, lkVal, causal, align, window, len, offset,
                sparse, linalg::IndexOp::create(b, l, 1), dilation);
            if (flags) {
              Value keyGlobal = a[next++];
              Value batchIdx = linalg::IndexOp::create(b, l, 0);
              Value queryGlobal = KernelBuilder::queryGlobalFlag(
                  b, l, flags, batchIdx, i, lqVal, lkVal, align, offset);
              vis = KernelBuilder::visibleWithGlobals(
                  b, l, vis, i, j, lqVal, lkVal, causal, align, len, offset,
                  keyGlobal, queryGlobal);
            }
            Value ninf = arith::ConstantOp::create(b, l, b.getFloatAttr(elem, kNegInf));
            s = arith::SelectOp::create(b, l, vis, s, ninf);
          }
          linalg::YieldOp::create(b, l, s);
        });

    Value weights = op.getSelection() == Selection::soft
                        ? kb.softmax(scores, 3)
                        : hardSelection(kb, scores, scoreSizes);

    // out[b,h,i,e] = sum_j w[b,h,i,j] * v[b,h/G,j,e]
    SmallVector<OpFoldResult> outSizes = {batch, h, lq,
                                          rewriter.getIndexAttr(valueDim)};
    Value out = kb.generic(
        ValueRange{weights, v}, kb.filled(outSizes, elem, 0.0),
        {AffineMap::get(5, 0, {d0, d1, d2, d4}, ctx),
         AffineMap::get(5, 0, {d0, kvHead, d4, d3}, ctx),
         AffineMap::get(5, 0, {d0, d1, d2, d3}, ctx)},
        contract, KernelBuilder::multiplyAccumulate);
    SmallVector<Value> results = {out};
    if (op.getReturnWeights())
      results.push_back(weights);
    replaceWithCast(rewriter, op, results);
    return success();
  }

  /// One-hot of the first maximal visible score per row (zeros when every key
  /// is masked).
  static Value hardSelection(KernelBuilder &kb, Value scores,
                             ArrayRef<OpFoldResult> sizes) {
    OpBuilder &rewriter = kb.builder();
    Location loc = kb.location();
    MLIRContext *ctx = rewriter.getContext();
    Type elem = tensorType(scores).getElementType();
    Type i64 = rewriter.getI64Type();
    SmallVector<OpFoldResult> rowSizes(sizes.begin(), sizes.begin() + 3);
    Value maxInit = kb.filled(rowSizes, elem, kNegInf);
    Value idxInit = linalg::FillOp::create(
                        rewriter, loc,
                        ValueRange{arith::ConstantIntOp::create(
                            rewriter, loc, i64, std::numeric_limits<int64_t>::max())},
                        ValueRange{kb.empty(rowSizes, i64)})
                        .getResult(0);
    AffineExpr d0 = getAffineDimExpr(0, ctx), d1 = getAffineDimExpr(1, ctx),
               d2 = getAffineDimExpr(2, ctx);
    AffineMap row = AffineMap::get(4, 0, {d0, d1, d2}, ctx);
    auto argmax = linalg::GenericOp::create(
        rewriter, loc, TypeRange{maxInit.getType(), idxInit.getType()},
        ValueRange{scores}, ValueRange{maxInit, idxInit},
        ArrayRef<AffineMap>{rewriter.getMultiDimIdentityMap(4), row, row},
        ArrayRef<Iter>{Iter::parallel, Iter::parallel, Iter::parallel,
                       Iter::reduction},
        [&](OpBuilder &b, Location l, ValueRange a) {
          // Order-independent: larger score wins, ties go to the lower index,
          // masked (-inf) scores never win.
          Value j = arith::IndexCastOp::create(b, l, i64,
                                               linalg::IndexOp::create(b, l, 3));
          Value ninf = arith::ConstantOp::create(b, l, b.getFloatAttr(elem, kNegInf));
          Value live = arith::CmpFOp::create(b, l, arith::CmpFPredicate::ONE, a[0], ninf);
          Value gt = arith::CmpFOp::create(b, l, arith::CmpFPredicate::OGT, a[0], a[1]);
          Value eq = arith::CmpFOp::create(b, l, arith::CmpFPredicate::OEQ, a[0], a[1]);
          Value lower = arith::CmpIOp::create(b, l, arith::CmpIPredicate::slt, j, a[2]);
          Value take = arith::AndIOp::create(
              b, l, live,
              arith::OrIOp::create(b, l, gt, arith::AndIOp::create(b, l, eq, lower)));
          linalg::YieldOp::create(
              b, l,
              ValueRange{arith::SelectOp::create(b, l, take, a[0], a[1]),
                         arith::SelectOp::create(b, l, take, j, a[2])});
        });
    return kb.generic(
        argmax.getResult(1), kb.empty(sizes, elem),
        {row, rewriter.getMultiDimIdentityMap(4)}, parallelIters(4),
        [&](OpBuilder &b, Location l, ValueRange a) {
          Value j = arith::IndexCastOp::create(b, l, i64,
                                               linalg::IndexOp::create(b, l, 3));
          Value hit = arith::CmpIOp::create(b, l, arith::CmpIPredicate::eq, j, a[0]);
          Value one = arith::ConstantOp::create(b, l, b.getFloatAttr(elem, 1.0));
          Value zero = arith::ConstantOp::create(b, l, b.getFloatAttr(elem, 0.0));
          linalg::YieldOp::create(b, l, ValueRange{arith::SelectOp::create(b, l, hit, one, zero)});
        });
  }
};

struct MaskLowering : OpConversionPattern<MaskOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(MaskOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    KernelBuilder kb(rewriter, op.getLoc());
    Location loc = op.getLoc();
    MLIRContext *ctx = rewriter.getContext();
    Value x = adaptor.getInput(), lengths = adaptor.getKeyLengths();
    RankedTensorType type = op.getType();
    int64_t rank = type.getRank();
    Type elem = type.getElementType();
    SmallVector<OpFoldResult> sizes = kb.sizes(x);
    Value lq = getValueOrCreateConstantIndexOp(rewriter, loc, sizes[rank - 2]);
    Value lk = getValueOrCreateConstantIndexOp(rewriter, loc, sizes[rank - 1]);
    SmallVector<Value> inputs = {x};
    SmallVector<AffineMap> maps = {rewriter.getMultiDimIdentityMap(rank)};
    if (lengths) {
      inputs.push_back(lengths);
      maps.push_back(AffineMap::get(rank, 0, getAffineDimExpr(0, ctx)));
    }
    maps.push_back(rewriter.getMultiDimIdentityMap(rank));
    bool causal = op.getCausal();
    MaskAlign align = op.getAlign();
    std::optional<int64_t> window = windowOf(op.getWindowAttr());
    Value result = kb.generic(
        inputs, kb.empty(sizes, elem), maps, parallelIters(rank),
        [&](OpBuilder &b, Location l, ValueRange a) {
          Value len = lengths ? toIndex(b, l, a[1]) : Value();
          Value i = linalg::IndexOp::create(b, l, rank - 2);
          Value j = linalg::IndexOp::create(b, l, rank - 1);
          Value vis =
              KernelBuilder::visible(b, l, i, j, lq, lk, causal, align, window, len);
          Value ninf = arith::ConstantOp::create(b, l, b.getFloatAttr(elem, kNegInf));
          linalg::YieldOp::create(
              b, l, ValueRange{arith::SelectOp::create(b, l, vis, a[0], ninf)});
        });
    replaceWithCast(rewriter, op, result);
    return success();
  }
};

//===----------------------------------------------------------------------===//
// Pass
//===----------------------------------------------------------------------===//

struct ConvertAttuneToLinalgPass
    : mlir::attune::impl::ConvertAttuneToLinalgBase<ConvertAttuneToLinalgPass> {
  using ConvertAttuneToLinalgBase::ConvertAttuneToLinalgBase;
  void runOnOperation() override {
    Operation *root = getOperation();
    // Composite ops need --attune-decompose first; say so rather than
    // reporting a failed legalization.
    WalkResult composite = root->walk([](Operation *op) {
      if (isa<MultiHeadAttentionOp, FeedForwardOp, EncoderLayerOp,
              DecoderLayerOp, Seq2SeqAttentionOp>(op)) {
        op->emitOpError("is a composite op: run --attune-decompose before "
                        "--convert-attune-to-linalg");
        return WalkResult::interrupt();
      }
      return WalkResult::advance();
    });
    if (composite.wasInterrupted())
      return signalPassFailure();
    if (requireBoundWeights) {
      WalkResult unbound = root->walk([](WeightOp op) {
        op.emitOpError() << "weight '" << op.getName()
                         << "' is not bound: compile with attune-compile "
                            "--weights FILE, or run --attune-bind-weights "
                            "before the pipeline";
        return WalkResult::interrupt();
      });
      if (unbound.wasInterrupted())
        return signalPassFailure();
    }

    MLIRContext *ctx = &getContext();
    ConversionTarget target(*ctx);
    target.addLegalDialect<arith::ArithDialect, linalg::LinalgDialect,
                           cf::ControlFlowDialect, math::MathDialect,
                           scf::SCFDialect,
                           tensor::TensorDialect, func::FuncDialect,
                           bufferization::BufferizationDialect,
                           memref::MemRefDialect>();
    target.addIllegalDialect<AttuneDialect>();
    // Parameters are bound to constants or arguments by the driver.
    target.addLegalOp<WeightOp>();
    // On Vulkan a cache write is bufferized as a device scatter
    // (CacheWriteBufferization.cpp), after its capacity check here.
    if (checkIndices && deferChecks) {
      target.addLegalOp<CacheWriteOp>();
      SmallVector<CacheWriteOp> writes;
      root->walk([&](CacheWriteOp op) { writes.push_back(op); });
      IRRewriter rewriter(ctx);
      for (CacheWriteOp op : writes) {
        rewriter.setInsertionPoint(op);
        checkCacheCapacity(rewriter, op, IndexChecks::Deferred, op.getCache(),
                           op.getUpdate(), op.getPositions());
      }
    }
    RewritePatternSet patterns(ctx);
    populateAttuneToLinalgConversionPatterns(
        patterns, !checkIndices ? IndexChecks::None
                  : deferChecks ? IndexChecks::Deferred
                                : IndexChecks::Assert);
    if (failed(applyPartialConversion(root, target, std::move(patterns))))
      signalPassFailure();
  }
};

} // namespace

void mlir::attune::populateAttuneToLinalgConversionPatterns(
    RewritePatternSet &patterns, IndexChecks checks) {
  MLIRContext *ctx = patterns.getContext();
  patterns
      .add<LinearLowering, MatmulLowering, TransposeLowering,
           SplitHeadsLowering, MergeHeadsLowering, SliceLowering,
           ConcatLowering, ExpandDimsLowering, SqueezeLowering, ReshapeLowering,
           BroadcastLowering, CastLowering, ActivationLowering, ScaleLowering,
           MaskBiasLowering, BinaryLowering<AddOp, arith::AddFOp>,
           UnaryLowering, BinaryFnLowering, CompareLowering, SelectLowering,
           ReduceLowering, TriluLowering, BinaryLowering<MulOp, arith::MulFOp>,
           SoftmaxLowering, LayerNormLowering, MaskLowering, OverwriteLowering>(
          ctx);
  patterns.add<EmbeddingLowering, GatherLowering, PositionalEncodingLowering,
               CacheWriteLowering, SelectLastLowering, AttentionLowering>(
      ctx, checks);
  populateRecurrentToLinalgConversionPatterns(patterns);
  populateLinearAttentionConversionPatterns(patterns);
}

void mlir::attune::checkGlobalPositions(RewriterBase &rewriter, Operation *op,
                                        IndexChecks checks, Value globals,
                                        Value lk) {
  checkGlobals(rewriter, op, checks, globals, lk);
}
