//===- FuseAttention.cpp - attention written op by op -> attune.attention -===//
//
// attune-fuse-attention is anchored on each attune.softmax: walk up through
// the optional mask, bias and scale to the score matmul, and down to the
// matmul with the values. Every step requires a single use, so no
// intermediate is lost; every rejection of a candidate has a reason,
// reported with `explain`.
//
//===----------------------------------------------------------------------===//

#include "passes/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Matchers.h"

namespace mlir::attune {
#define GEN_PASS_DEF_ATTUNEFUSEATTENTION
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

/// Whether `v` is attention scores: a matmul of queries by transposed keys,
/// possibly scaled by a constant (any spelling of the scale).
bool isScores(Value v) {
  Operation *def = v.getDefiningOp();
  if (auto sc = dyn_cast_or_null<ScaleOp>(def)) {
    v = sc.getInput();
  } else if (auto mul = dyn_cast_or_null<MulOp>(def)) {
    if (splatValue(mul.getRhs()))
      v = mul.getLhs();
    else if (splatValue(mul.getLhs()))
      v = mul.getRhs();
  } else if (auto mul = dyn_cast_or_null<arith::MulFOp>(def)) {
    if (splatValue(mul.getRhs()))
      v = mul.getLhs();
  } else if (auto div = dyn_cast_or_null<arith::DivFOp>(def)) {
    if (splatValue(div.getRhs()))
      v = div.getLhs();
  }
  auto mm = v.getDefiningOp<MatmulOp>();
  return mm && keyOf(mm);
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
    // The chain continues through the operand that leads back to a
    // query-key matmul (whatever computes the other: a bias may itself be a
    // matmul or scaled). Where both do, either reading computes the same
    // sum; the left one is taken.
    bool lhsIsScores = isScores(add.getLhs()) || !isScores(add.getRhs());
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
  Value result = AttentionOp::create(b, loc, q, k, v, lengths, Value(), bias,
                                     Value(), score, scale, Selection::soft,
                                     /*return_weights=*/false, causal, align,
                                     window, SparseLayoutAttr(), IntegerAttr())
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
} // namespace
