//===- AbsorbKvProjections.cpp - K/V projections moved to the queries -----===//
//
// attune-absorb-kv-projections moves the K and V projections of a
// cross-attention to the query side when there are few queries (see its
// description in Passes.td).
//
//===----------------------------------------------------------------------===//

#include "passes/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Matchers.h"

namespace mlir::attune {
#define GEN_PASS_DEF_ATTUNEABSORBKVPROJECTIONS
#include "passes/Passes.h.inc"
} // namespace mlir::attune

using namespace mlir;
using namespace mlir::attune;

namespace {

bool singleUse(Value v) { return v.hasOneUse(); }

/// `heads = split_heads(linear(x, W, b))`, possibly with an `attune.slice` of
/// the last dim between (one packed GEMM for K and V): the rows of `W` and
/// `b` that produce the heads are [offset, offset + size).
struct HeadProjection {
  LinearOp linear;
  int64_t offset = 0, size = 0;
  // The ops from the split_heads up to the linear's user, for moving.
  SmallVector<Operation *> ops;
};

FailureOr<HeadProjection> matchHeadProjection(Value heads,
                                              std::string &reason) {
  auto split = heads.getDefiningOp<SplitHeadsOp>();
  if (!split || !singleUse(heads))
    return (reason = "the keys or values are not the heads of one projection "
                     "used only here",
            failure());
  HeadProjection p;
  p.ops.push_back(split);
  Value in = split.getInput();
  if (auto slice = in.getDefiningOp<SliceOp>()) {
    int64_t rank = slice.getType().getRank();
    int64_t axis = static_cast<int64_t>(slice.getAxis());
    if (axis < 0)
      axis += rank;
    if (axis != rank - 1 || !singleUse(in))
      return (reason = "the keys or values are a slice of a projection that "
                       "is used elsewhere",
              failure());
    p.offset = static_cast<int64_t>(slice.getOffset());
    p.ops.push_back(slice);
    in = slice.getInput();
  }
  p.linear = in.getDefiningOp<LinearOp>();
  if (!p.linear)
    return (reason = "the keys or values are not computed by attune.linear",
            failure());
  if (p.linear.getActivation())
    return (reason = "the projection has an activation", failure());
  if (p.linear.getType().getRank() != 3)
    return (reason = "the memory is not [B, Lk, E]", failure());
  p.size = cast<RankedTensorType>(split.getInput().getType()).getShape().back();
  return p;
}

/// The rows [offset, offset + size) of a projection weight or bias.
Value projectionRows(OpBuilder &b, Location loc, Value v, int64_t offset,
                     int64_t size) {
  if (!v || (offset == 0 &&
             cast<RankedTensorType>(v.getType()).getDimSize(0) == size))
    return v;
  return SliceOp::create(b, loc, v, /*axis=*/0, offset, size);
}

/// The attention's rejection reason, or "" when it can be rewritten.
std::string absorbable(AttentionOp att) {
  if (att.getSelection() != Selection::soft || att.getReturnWeights())
    return "hard attention or returned weights";
  // key_lengths is allowed: the run-time test also requires every length
  // to be positive, so that no row is empty.
  if (att.getBias() || att.getCausal() || att.getWindow() || att.getSparse())
    return "a causal, window or sparse mask or a bias can hide every key of "
           "a row, where the weights no longer sum to 1";
  if (att.getQueryOffsets())
    return "queries at offsets (a cache's keys are not a projection)";
  if (att.getQuery().getType().getDimSize(1) !=
      att.getKey().getType().getDimSize(1))
    return "grouped-query attention";
  return "";
}

LogicalResult absorb(AttentionOp att, std::string &reason) {
  reason = absorbable(att);
  if (!reason.empty())
    return failure();
  FailureOr<HeadProjection> k = matchHeadProjection(att.getKey(), reason);
  if (failed(k))
    return failure();
  FailureOr<HeadProjection> v = matchHeadProjection(att.getValue(), reason);
  if (failed(v))
    return failure();
  Value memory = k->linear.getInput();
  if (v->linear.getInput() != memory)
    return (reason = "the keys and values are projections of different inputs",
            failure());
  // Self-attention never profits (Lq = Lk): leave it alone.
  Value q = att.getQuery();
  for (int i = 0; i < 3 && q.getDefiningOp(); ++i) {
    Operation *def = q.getDefiningOp();
    if (auto l = dyn_cast<LinearOp>(def))
      if (l.getInput() == memory)
        return (reason = "self-attention", failure());
    if (!isa<SplitHeadsOp, SliceOp>(def))
      break;
    q = def->getOperand(0);
  }

  // Every use of the projection GEMM(s) must be in these chains, and the
  // chains in the attention's block: they move into its scf.if (a GEMM
  // outside a loop the attention is in would otherwise run every iteration).
  for (LinearOp l : {k->linear, v->linear})
    for (Operation *user : l->getUsers())
      if (user != k->ops.back() && user != v->ops.back())
        return (reason = "the projection's result has another use", failure());
  for (const HeadProjection *p : {&*k, &*v})
    if (p->linear->getBlock() != att->getBlock() ||
        llvm::any_of(p->ops, [&](Operation *op) {
          return op->getBlock() != att->getBlock();
        }))
      return (reason = "the projection is computed in another block",
              failure());
  RankedTensorType qType = att.getQuery().getType();
  RankedTensorType resultType = att.getResult().getType();
  auto memType = cast<RankedTensorType>(memory.getType());
  int64_t heads = qType.getDimSize(1), headDim = qType.getDimSize(3);
  int64_t valueDim = att.getValue().getType().getDimSize(3);
  int64_t embed = memType.getDimSize(2);
  if (headDim != valueDim)
    return (reason = "keys and values of different head dims", failure());
  auto staticWeight = [](LinearOp l) {
    return cast<RankedTensorType>(l.getWeight().getType()).hasStaticShape();
  };
  if (ShapedType::isDynamic(embed) || !staticWeight(k->linear) ||
      !staticWeight(v->linear))
    return (reason = "the memory's feature dim or a projection weight is "
                     "dynamic",
            failure());

  Location loc = att.getLoc();
  OpBuilder b(att);
  // Multiply-adds per head: absorbed Lq Ek (D + Lk), projected
  // Lk D (Ek + Lq); absorb at a quarter of the work or less.
  auto idx = [&](int64_t c) -> Value {
    return arith::ConstantIndexOp::create(b, loc, c);
  };
  Value lq = tensor::DimOp::create(b, loc, att.getQuery(), 2);
  Value lk = tensor::DimOp::create(b, loc, memory, 1);
  Value absorbed = arith::MulIOp::create(
      b, loc, arith::MulIOp::create(b, loc, lq, idx(4 * embed)),
      arith::AddIOp::create(b, loc, lk, idx(headDim)));
  Value projected = arith::MulIOp::create(
      b, loc, arith::MulIOp::create(b, loc, lk, idx(headDim)),
      arith::AddIOp::create(b, loc, lq, idx(embed)));
  Value cond = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult,
                                     absorbed, projected);
  // With key_lengths, only where no batch has an empty memory (its rows
  // would be zero in the projected form, bv here).
  if (Value lengths = att.getKeyLengths()) {
    Type elem = cast<RankedTensorType>(lengths.getType()).getElementType();
    Value zero = arith::ConstantOp::create(b, loc, b.getZeroAttr(elem));
    auto loop = scf::ForOp::create(
        b, loc, idx(0), tensor::DimOp::create(b, loc, lengths, 0), idx(1),
        ValueRange{cond},
        [&](OpBuilder &lb, Location l, Value i, ValueRange acc) {
          Value len = tensor::ExtractOp::create(lb, l, lengths, ValueRange{i});
          Value positive = arith::CmpIOp::create(
              lb, l, arith::CmpIPredicate::sgt, len, zero);
          scf::YieldOp::create(
              lb, l, ValueRange{arith::AndIOp::create(lb, l, acc[0], positive)
                                    .getResult()});
        });
    cond = loop.getResult(0);
  }
  auto ifOp = scf::IfOp::create(b, loc, TypeRange{resultType}, cond,
                                /*withElseRegion=*/true);
  att.getResult().replaceAllUsesWith(ifOp.getResult(0));

  // Projected: the original ops, moved in program order.
  SmallVector<Operation *> moved = {k->linear};
  if (v->linear != k->linear)
    moved.push_back(v->linear);
  llvm::append_range(moved, k->ops);
  llvm::append_range(moved, v->ops);
  llvm::sort(moved, [](Operation *l, Operation *r) {
    return l->isBeforeInBlock(r);
  });
  Block *elseBlock = ifOp.elseBlock();
  b.setInsertionPointToEnd(elseBlock);
  auto yield = scf::YieldOp::create(b, loc, att.getResult());
  for (Operation *op : moved)
    op->moveBefore(yield);
  att->moveBefore(yield);

  // Absorbed.
  b.setInsertionPointToEnd(ifOp.thenBlock());
  auto weightRows = [&](const HeadProjection &p, Value w) {
    return projectionRows(b, loc, w, p.offset, p.size);
  };
  Type elemType = qType.getElementType();
  // [H*D, Ek] -> [H, D, Ek]: row h*D + d is head h's row d.
  auto perHead = [&](Value w) -> Value {
    return tensor::ExpandShapeOp::create(
        b, loc, RankedTensorType::get({heads, headDim, embed}, elemType), w,
        ArrayRef<ReassociationIndices>{{0, 1}, {2}});
  };
  Value wk = perHead(weightRows(*k, k->linear.getWeight()));
  Value wv = perHead(weightRows(*v, v->linear.getWeight()));
  // q_h Wk_h: [B, H, Lq, Ek], then the H * Lq rows as one head.
  Value qk = MatmulOp::create(b, loc, att.getQuery(), wk, false, false);
  auto qkType = cast<RankedTensorType>(qk.getType());
  int64_t rows = ShapedType::isDynamic(qkType.getDimSize(2))
                     ? ShapedType::kDynamic
                     : heads * qkType.getDimSize(2);
  Value qRows = tensor::CollapseShapeOp::create(
      b, loc,
      RankedTensorType::get({qkType.getDimSize(0), rows, embed}, elemType), qk,
      ArrayRef<ReassociationIndices>{{0}, {1, 2}, {3}});
  Value q1 = ExpandDimsOp::create(b, loc, qRows, 1);
  Value m1 = ExpandDimsOp::create(b, loc, memory, 1);
  FloatAttr scale = b.getF64FloatAttr(att.getEffectiveScale());
  auto absorbedAtt = AttentionOp::create(
      b, loc, q1, m1, m1, att.getKeyLengths(), Value(), Value(), Value(),
      ScoreKind::scaled_dot, scale, Selection::soft, /*return_weights=*/false,
      /*causal=*/false, MaskAlign::top_left, IntegerAttr(), SparseLayoutAttr(),
      IntegerAttr());
  // At most ~D/4 queries per head take this form (the cost rule): 16-query
  // tiles pad the H Lq rows less than the default 64 (a decoding step's 12
  // rows: 16 computed rather than 32).
  absorbedAtt->setAttr(kTileQCapAttr, b.getI64IntegerAttr(16));
  Value ctx = absorbedAtt.getResult();
  Value ctxRows = SqueezeOp::create(b, loc, ctx, 1);
  SmallVector<OpFoldResult> shape = {
      tensor::getMixedSize(b, loc, att.getQuery(), 0), b.getIndexAttr(heads),
      tensor::getMixedSize(b, loc, att.getQuery(), 2), b.getIndexAttr(embed)};
  Value ctxHeads = tensor::ExpandShapeOp::create(
      b, loc,
      RankedTensorType::get({qkType.getDimSize(0), heads,
                             qkType.getDimSize(2), embed},
                            elemType),
      ctxRows, ArrayRef<ReassociationIndices>{{0}, {1, 2}, {3}}, shape);
  // o_h Wv_h^T: each output a dot product over Ek, a row kernel that
  // attune-vectorize-rows vectorizes (and with --parallel spreads over the
  // threads).
  Value out = MatmulOp::create(b, loc, ctxHeads, wv, false, true);
  if (Value bias = v->linear.getBias()) {
    Value rowsBias = weightRows(*v, bias);
    // [H*D] -> [H, 1, D], broadcast over B and Lq.
    Value bh = tensor::ExpandShapeOp::create(
        b, loc, RankedTensorType::get({heads, 1, headDim}, elemType), rowsBias,
        ArrayRef<ReassociationIndices>{{0, 1, 2}});
    out = AddOp::create(b, loc, out, bh);
  }
  if (out.getType() != resultType)
    out = tensor::CastOp::create(b, loc, resultType, out);
  scf::YieldOp::create(b, loc, out);
  return success();
}

struct AttuneAbsorbKvProjectionsPass
    : mlir::attune::impl::AttuneAbsorbKvProjectionsBase<
          AttuneAbsorbKvProjectionsPass> {
  using AttuneAbsorbKvProjectionsBase::AttuneAbsorbKvProjectionsBase;
  void runOnOperation() override {
    SmallVector<AttentionOp> ops;
    getOperation()->walk([&](AttentionOp op) { ops.push_back(op); });
    for (AttentionOp att : ops) {
      std::string reason;
      Location loc = att.getLoc();
      // Only cross-attention over projected keys is worth a remark.
      bool candidate = att.getKey().getDefiningOp<SplitHeadsOp>() &&
                       att.getKey() != att.getQuery();
      if (failed(absorb(att, reason))) {
        if (explain && candidate && reason != "self-attention")
          emitRemark(loc) << "K and V projections not absorbed: " << reason;
        continue;
      }
      if (explain)
        emitRemark(loc) << "absorbed the K and V projections into the queries "
                           "(taken at run time where 4 Lq Ek (D + Lk) < "
                           "Lk D (Ek + Lq))";
    }
  }
};

} // namespace
