//===- FuseAttention.cpp - attention-level attune -> attune rewrites ------===//
//
// attune-fuse-attention is anchored on each attune.softmax: walk up through
// the optional mask, bias and scale to the score matmul, and down to the
// matmul with the values. Every step requires a single use, so no
// intermediate is lost; every rejection of a candidate has a reason,
// reported with `explain`.
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
#define GEN_PASS_DEF_ATTUNEFUSEATTENTION
#define GEN_PASS_DEF_ATTUNEABSORBKVPROJECTIONS
#include "passes/Passes.h.inc"
} // namespace mlir::attune

using namespace mlir;
using namespace mlir::attune;

namespace {

/// The pieces of one attention written out op by op.
struct Chain {
  MatmulOp scores, output;
  SoftmaxOp softmax;
  Value query, key, value, bias;
  std::optional<double> scale;
  MaskOp mask;
  // The ops between the softmax and the inputs, from the softmax upward
  // (each one's only user precedes it here).
  SmallVector<Operation *> ops;
};

/// The value of a splat float constant, if `v` is one.
std::optional<double> splatValue(Value v) {
  DenseElementsAttr attr;
  if (!matchPattern(v, m_Constant(&attr)) || !attr.isSplat() ||
      !isa<FloatType>(attr.getElementType()))
    return std::nullopt;
  return attr.getSplatValue<APFloat>().convertToDouble();
}

bool singleUse(Value v) { return v.hasOneUse(); }

/// `k` transposed in its last two dims: the operand itself with
/// {transpose_rhs}, or the input of a transpose that swaps them.
Value keyOf(MatmulOp mm) {
  if (mm.getTransposeLhs())
    return {};
  if (mm.getTransposeRhs())
    return mm.getRhs();
  auto t = mm.getRhs().getDefiningOp<TransposeOp>();
  if (!t || !singleUse(t.getResult()))
    return {};
  ArrayRef<int64_t> perm = t.getPermutation();
  int64_t r = perm.size();
  for (int64_t i = 0; i < r - 2; ++i)
    if (perm[i] != i)
      return {};
  if (r < 2 || perm[r - 2] != r - 1 || perm[r - 1] != r - 2)
    return {};
  return t.getInput();
}

/// Matches the chain around `softmax`; on failure `reason` says why.
FailureOr<Chain> match(SoftmaxOp softmax, std::string &reason) {
  Chain c;
  c.softmax = softmax;
  auto type = softmax.getType();
  int64_t axis = static_cast<int64_t>(softmax.getAxis());
  if (axis != -1 && axis != type.getRank() - 1)
    return reason = "the softmax is not over the last (key) dim", failure();

  // Down: the probabilities feed exactly one plain matmul with the values.
  if (!singleUse(softmax.getResult()))
    return reason = "the attention weights have another use", failure();
  auto out = dyn_cast<MatmulOp>(*softmax->getUsers().begin());
  if (!out || out.getLhs() != softmax.getResult() || out.getTransposeLhs() ||
      out.getTransposeRhs())
    return reason = "the weights do not feed a matmul with the values",
           failure();
  c.output = out;
  c.value = out.getRhs();

  // Up: mask, bias, scale, then the score matmul.
  Value s = softmax.getInput();
  SmallVector<Operation *> upward;
  auto step = [&](Operation *op) {
    upward.push_back(op);
    return op->getOperand(0);
  };
  auto oneUse = [&](Value v) { return singleUse(v); };
  if (auto mask = s.getDefiningOp<MaskOp>()) {
    if (!oneUse(mask.getResult()))
      return reason = "the masked scores have another use", failure();
    c.mask = mask;
    s = step(mask);
  }
  if (auto add = s.getDefiningOp<AddOp>()) {
    if (!oneUse(add.getResult()))
      return reason = "the biased scores have another use", failure();
    // The chain continues through whichever operand is the scores.
    bool lhsIsScores = add.getLhs().getDefiningOp<MatmulOp>() ||
                       add.getLhs().getDefiningOp<ScaleOp>() ||
                       add.getLhs().getDefiningOp<MulOp>() ||
                       add.getLhs().getDefiningOp<arith::MulFOp>() ||
                       add.getLhs().getDefiningOp<arith::DivFOp>();
    Value scores = lhsIsScores ? add.getLhs() : add.getRhs();
    c.bias = lhsIsScores ? add.getRhs() : add.getLhs();
    if (add.getType() != cast<RankedTensorType>(scores.getType()))
      return reason = "the bias broadcasts the scores to a larger shape",
             failure();
    upward.push_back(add);
    s = scores;
  }
  // The scale, by any spelling.
  Operation *scaleOp = s.getDefiningOp();
  Value scaled;
  if (auto sc = dyn_cast_or_null<ScaleOp>(scaleOp)) {
    c.scale = sc.getFactor().convertToDouble();
    scaled = sc.getInput();
  } else if (auto mul = dyn_cast_or_null<MulOp>(scaleOp)) {
    if (auto f = splatValue(mul.getRhs())) {
      c.scale = *f;
      scaled = mul.getLhs();
    } else if (auto f = splatValue(mul.getLhs())) {
      c.scale = *f;
      scaled = mul.getRhs();
    }
  } else if (auto mul = dyn_cast_or_null<arith::MulFOp>(scaleOp)) {
    if (auto f = splatValue(mul.getRhs())) {
      c.scale = *f;
      scaled = mul.getLhs();
    }
  } else if (auto div = dyn_cast_or_null<arith::DivFOp>(scaleOp)) {
    if (auto f = splatValue(div.getRhs()); f && *f != 0.0) {
      c.scale = 1.0 / *f;
      scaled = div.getLhs();
    }
  }
  if (scaled) {
    if (!oneUse(s))
      return reason = "the scaled scores have another use", failure();
    upward.push_back(scaleOp);
    s = scaled;
  }
  auto scores = s.getDefiningOp<MatmulOp>();
  if (!scores) {
    if (s.getDefiningOp<AddOp>() || s.getDefiningOp<MaskOp>())
      return reason = "a bias or mask comes before the scale", failure();
    return reason = "the softmax input is not a matmul of queries and keys",
           failure();
  }
  if (!oneUse(scores.getResult()))
    return reason = "the scores have another use", failure();
  Value key = keyOf(scores);
  if (!key)
    return reason = "the score matmul does not multiply by the transposed keys",
           failure();
  c.scores = scores;
  c.query = scores.getLhs();
  c.key = key;
  upward.push_back(scores);
  if (auto t = scores.getRhs().getDefiningOp<TransposeOp>())
    upward.push_back(t);

  // Shapes attune.attention accepts: q [B, H, Lq, D], k [B, Hk, Lk, D],
  // v [B, Hk, Lk, Dv] (rank 3: one head), heads and head dims static.
  auto qt = cast<RankedTensorType>(c.query.getType());
  auto kt = cast<RankedTensorType>(c.key.getType());
  auto vt = cast<RankedTensorType>(c.value.getType());
  int64_t rank = qt.getRank();
  if ((rank != 3 && rank != 4) || kt.getRank() != rank || vt.getRank() != rank)
    return reason = "queries, keys and values are not all [B, H, L, D] or "
                    "[B, L, D]",
           failure();
  if (ShapedType::isDynamic(qt.getShape().back()) ||
      ShapedType::isDynamic(vt.getShape().back()) ||
      (rank == 4 && (qt.isDynamicDim(1) || kt.isDynamicDim(1) ||
                     vt.isDynamicDim(1))))
    return reason = "head counts and head dims must be static", failure();
  if (rank == 4) {
    int64_t h = qt.getDimSize(1), hk = kt.getDimSize(1);
    if (hk != vt.getDimSize(1) || h % hk != 0)
      return reason = "key/value heads do not divide the query heads",
             failure();
  }
  for (int64_t d = 0; d + 2 < rank; ++d)
    if (d != 1 && (kt.getDimSize(d) != qt.getDimSize(d) ||
                   vt.getDimSize(d) != qt.getDimSize(d)) &&
        !(qt.isDynamicDim(d) || kt.isDynamicDim(d) || vt.isDynamicDim(d)))
      return reason = "the batch dims of queries, keys and values differ",
             failure();
  if (rank == 3 && (kt.getDimSize(0) != qt.getDimSize(0) ||
                    vt.getDimSize(0) != qt.getDimSize(0)) &&
      !(qt.isDynamicDim(0) || kt.isDynamicDim(0) || vt.isDynamicDim(0)))
    return reason = "the batch dims of queries, keys and values differ",
           failure();

  c.ops.assign(upward.begin(), upward.end());
  return c;
}

/// Replaces the chain by an attune.attention.
void fuse(Chain &c) {
  OpBuilder b(c.output);
  Location loc = b.getFusedLoc({c.scores.getLoc(), c.softmax.getLoc(),
                                c.output.getLoc()});
  bool threeD = cast<RankedTensorType>(c.query.getType()).getRank() == 3;
  auto heads = [&](Value v) {
    return threeD ? ExpandDimsOp::create(b, loc, v, 1).getResult() : v;
  };
  Value q = heads(c.query), k = heads(c.key), v = heads(c.value);
  Value bias = c.bias;
  if (bias && threeD && cast<RankedTensorType>(bias.getType()).getRank() == 3)
    bias = ExpandDimsOp::create(b, loc, bias, 1);
  ScoreKind score = c.scale ? ScoreKind::scaled_dot : ScoreKind::dot;
  FloatAttr scale = c.scale ? b.getF64FloatAttr(*c.scale) : FloatAttr();
  Value lengths = c.mask ? c.mask.getKeyLengths() : Value();
  bool causal = c.mask && c.mask.getCausal();
  MaskAlign align = c.mask ? c.mask.getAlign() : MaskAlign::top_left;
  IntegerAttr window = c.mask ? c.mask.getWindowAttr() : IntegerAttr();
  Value result = AttentionOp::create(b, loc, q, k, v, lengths, bias, score,
                                     scale, Selection::soft,
                                     /*return_weights=*/false, causal, align,
                                     window)
                     .getResult();
  if (threeD)
    result = SqueezeOp::create(b, loc, result, 1);
  Type type = c.output.getType();
  if (result.getType() != type)
    result = tensor::CastOp::create(b, loc, type, result);
  c.output.getResult().replaceAllUsesWith(result);
  // Users before producers: the output matmul, the softmax, then upward.
  c.output.erase();
  c.softmax.erase();
  for (Operation *op : c.ops)
    op->erase();
}

std::string describe(const Chain &c) {
  std::string s = "matmul";
  if (c.scale)
    s += " -> scale";
  if (c.bias)
    s += " -> bias";
  if (c.mask)
    s += " -> mask";
  return s + " -> softmax -> matmul";
}

/// Whether a rejected softmax looked like attention: worth a remark.
bool isCandidate(SoftmaxOp softmax) {
  bool feedsMatmul = llvm::any_of(softmax->getUsers(), [](Operation *u) {
    return isa<MatmulOp>(u);
  });
  Value s = softmax.getInput();
  for (int i = 0; i < 4 && s && s.getDefiningOp(); ++i) {
    if (isa<MatmulOp>(s.getDefiningOp()))
      return true;
    s = s.getDefiningOp()->getNumOperands() ? s.getDefiningOp()->getOperand(0)
                                            : Value();
  }
  return feedsMatmul;
}

struct AttuneFuseAttentionPass
    : mlir::attune::impl::AttuneFuseAttentionBase<AttuneFuseAttentionPass> {
  using AttuneFuseAttentionBase::AttuneFuseAttentionBase;
  void runOnOperation() override {
    SmallVector<SoftmaxOp> softmaxes;
    getOperation()->walk([&](SoftmaxOp op) { softmaxes.push_back(op); });
    for (SoftmaxOp softmax : softmaxes) {
      std::string reason;
      Location loc = softmax.getLoc();
      FailureOr<Chain> chain = match(softmax, reason);
      if (failed(chain)) {
        if (explain && isCandidate(softmax))
          emitRemark(loc) << "not fused into attune.attention: " << reason;
        continue;
      }
      std::string what = describe(*chain);
      fuse(*chain);
      if (explain)
        emitRemark(loc) << "fused " << what << " into attune.attention";
    }
  }
};


//===----------------------------------------------------------------------===//
// K and V projections absorbed into the queries
//===----------------------------------------------------------------------===//

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
  if (att.getBias() || att.getCausal() || att.getWindow())
    return "a causal or window mask or a bias can hide every key of a row, "
           "where the weights no longer sum to 1";
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
      b, loc, q1, m1, m1, att.getKeyLengths(), Value(), ScoreKind::scaled_dot,
      scale, Selection::soft, /*return_weights=*/false, /*causal=*/false,
      MaskAlign::top_left, IntegerAttr());
  // At most ~D/4 queries per head take this form (the cost rule): 32-query
  // tiles pad the H Lq rows less than the default 64 (decode step: 10 %).
  absorbedAtt->setAttr(kTileQCapAttr, b.getI64IntegerAttr(32));
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
