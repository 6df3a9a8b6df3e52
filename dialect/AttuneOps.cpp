//===- AttuneOps.cpp - attune operations ----------------------------------===//
//
// Each op with inferred results has one `infer<Op>` function that checks every
// shape, type and attribute rule and computes the result types. The verifier
// and `inferReturnTypes` both call it, so a rule cannot be checked in one and
// forgotten in the other. Diagnostics name the operand and give the expected
// and the actual value.
//
//===----------------------------------------------------------------------===//

#include "dialect/AttuneOps.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/IR/TypeUtilities.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallBitVector.h"
#include "llvm/ADT/StringExtras.h"

#include <cmath>
#include <cstring>
#include <numeric>

using namespace mlir;
using namespace mlir::attune;

//===----------------------------------------------------------------------===//
// Diagnostics and shape helpers
//===----------------------------------------------------------------------===//

namespace {
/// Emits an op error from the verifier (with the op) or from type inference
/// (with an optional location and the op name). Without either, diagnostics
/// are dropped: inference from a builder that does not want errors.
class Diag {
public:
  explicit Diag(Operation *op) : op(op) {}
  Diag(std::optional<Location> loc, StringRef opName)
      : loc(loc), opName(opName) {}

  InFlightDiagnostic operator()() const {
    if (op)
      return op->emitOpError();
    if (loc)
      return mlir::emitError(*loc) << "'" << opName << "' op ";
    return InFlightDiagnostic();
  }

private:
  Operation *op = nullptr;
  std::optional<Location> loc;
  StringRef opName;
};

/// A named operand, for messages. A null value is an absent optional operand.
struct Named {
  StringRef name;
  Value value;
};
} // namespace

using Shape = SmallVector<int64_t>;
static constexpr int64_t kDyn = ShapedType::kDynamic;

static bool isKnown(int64_t d) { return !ShapedType::isDynamic(d); }
static bool conflicts(int64_t a, int64_t b) {
  return isKnown(a) && isKnown(b) && a != b;
}
/// The more precise of two compatible extents.
static int64_t refine(int64_t a, int64_t b) { return isKnown(a) ? a : b; }

static std::string dimStr(int64_t d) {
  return isKnown(d) ? std::to_string(d) : std::string("?");
}
static std::string shapeStr(ArrayRef<int64_t> shape) {
  std::string s = "[";
  llvm::interleave(
      shape, [&](int64_t d) { s += dimStr(d); }, [&] { s += ", "; });
  return s + "]";
}

static RankedTensorType tensorType(Value v) {
  return cast<RankedTensorType>(v.getType());
}
static ArrayRef<int64_t> shapeOf(Value v) { return tensorType(v).getShape(); }

/// Normalizes a possibly negative axis into [0, rank); fails with a message.
static FailureOr<int64_t> normalizeAxis(const Diag &diag, StringRef what,
                                        int64_t axis, int64_t rank) {
  if (axis < -rank || axis >= rank)
    return diag() << what << " " << axis << " is out of range for rank "
                  << rank << " (expected " << -rank << " <= " << what << " < "
                  << rank << ")",
           failure();
  return axis < 0 ? axis + rank : axis;
}

/// Every present operand has the element type of the first one.
static LogicalResult sameElementType(const Diag &diag, ArrayRef<Named> ops) {
  Type expected;
  StringRef expectedFrom;
  for (const Named &n : ops) {
    if (!n.value)
      continue;
    Type t = getElementTypeOrSelf(n.value.getType());
    if (!expected) {
      expected = t;
      expectedFrom = n.name;
      continue;
    }
    if (t != expected)
      return diag() << n.name << " has element type " << t << ", expected "
                    << expected << " (the element type of " << expectedFrom
                    << ")";
  }
  return success();
}

static LogicalResult expectRank(const Diag &diag, const Named &n,
                                int64_t rank, StringRef layout = {}) {
  int64_t actual = tensorType(n.value).getRank();
  if (actual == rank)
    return success();
  InFlightDiagnostic d = diag() << n.name << " has rank " << actual
                                << ", expected rank " << rank;
  if (!layout.empty())
    d << " " << layout;
  return d;
}

static LogicalResult expectMinRank(const Diag &diag, const Named &n,
                                   int64_t rank, StringRef layout = {}) {
  int64_t actual = tensorType(n.value).getRank();
  if (actual >= rank)
    return success();
  InFlightDiagnostic d = diag() << n.name << " has rank " << actual
                                << ", expected rank >= " << rank;
  if (!layout.empty())
    d << " " << layout;
  return d;
}

/// Checks a full shape; `?` in `expected` accepts any extent. Absent optional
/// operands pass.
static LogicalResult expectShape(const Diag &diag, const Named &n,
                                 ArrayRef<int64_t> expected) {
  if (!n.value)
    return success();
  ArrayRef<int64_t> actual = shapeOf(n.value);
  bool ok = actual.size() == expected.size();
  for (size_t i = 0; ok && i < actual.size(); ++i)
    ok = !conflicts(actual[i], expected[i]);
  if (ok)
    return success();
  return diag() << n.name << " has shape " << shapeStr(actual)
                << ", expected " << shapeStr(expected);
}

/// Checks one extent: `what` is a phrase such as "key dim 3 (Lk)".
static LogicalResult expectDim(const Diag &diag, StringRef what,
                               int64_t actual, int64_t expected,
                               StringRef expectedFrom) {
  if (!conflicts(actual, expected))
    return success();
  return diag() << what << " is " << actual << ", expected " << expected
                << " (" << expectedFrom << ")";
}

static LogicalResult expectStatic(const Diag &diag, const Named &n,
                                  int64_t dim, StringRef meaning) {
  if (isKnown(shapeOf(n.value)[dim]))
    return success();
  return diag() << n.name << " dim " << dim << " (" << meaning
                << ") must be static, got "
                << shapeStr(shapeOf(n.value));
}

/// NumPy broadcast of two shapes (see the dialect description).
static FailureOr<Shape> broadcastShapes(const Diag &diag, const Named &a,
                                        ArrayRef<int64_t> as, const Named &b,
                                        ArrayRef<int64_t> bs) {
  size_t rank = std::max(as.size(), bs.size());
  Shape result(rank);
  for (size_t i = 0; i < rank; ++i) {
    int64_t x = i < rank - as.size() ? 1 : as[i - (rank - as.size())];
    int64_t y = i < rank - bs.size() ? 1 : bs[i - (rank - bs.size())];
    if (x == 1)
      result[i] = y;
    else if (y == 1)
      result[i] = x;
    else if (conflicts(x, y))
      return diag() << "cannot broadcast " << a.name << " of shape "
                    << shapeStr(as) << " with " << b.name << " of shape "
                    << shapeStr(bs) << ": extents " << x << " and " << y
                    << " differ and neither is 1",
             failure();
    else
      result[i] = refine(x, y);
  }
  return result;
}

/// `n` broadcasts to exactly `target` without growing it.
static LogicalResult expectBroadcastableTo(const Diag &diag, const Named &n,
                                           ArrayRef<int64_t> target,
                                           StringRef targetDesc) {
  if (!n.value)
    return success();
  ArrayRef<int64_t> s = shapeOf(n.value);
  bool ok = s.size() <= target.size();
  for (size_t i = 0; ok && i < s.size(); ++i) {
    int64_t x = s[s.size() - 1 - i], t = target[target.size() - 1 - i];
    ok = x == 1 || !conflicts(x, t);
  }
  if (ok)
    return success();
  return diag() << n.name << " of shape " << shapeStr(s)
                << " is not broadcastable to " << targetDesc << " "
                << shapeStr(target);
}

static LogicalResult checkKeyLengths(const Diag &diag, Value lengths,
                                     int64_t batch, StringRef name) {
  if (!lengths)
    return success();
  Named n{name, lengths};
  if (failed(expectRank(diag, n, 1, "([B])")))
    return failure();
  return expectDim(diag, (name + " dim 0 (B)").str(), shapeOf(lengths)[0],
                   batch, "the batch size");
}

static LogicalResult checkWindow(const Diag &diag, IntegerAttr window) {
  if (window && window.getInt() < 1)
    return diag() << "window must be >= 1, got " << window.getInt();
  return success();
}

/// Counts and sizes from attributes: at least 1, and small enough that the
/// shapes computed from them cannot overflow.
static LogicalResult checkPositive(const Diag &diag, StringRef what,
                                   int64_t value) {
  constexpr int64_t kLimit = int64_t(1) << 31;
  if (value < 1)
    return diag() << what << " must be >= 1, got " << value;
  if (value >= kLimit)
    return diag() << what << " must be < 2^31, got " << value;
  return success();
}

static RankedTensorType makeTensor(ArrayRef<int64_t> shape, Value like) {
  return RankedTensorType::get(shape, getElementTypeOrSelf(like.getType()));
}

/// Result types agree when their element types are equal and their shapes
/// are compatible: a written static extent may refine an inferred `?`.
static bool compatibleTensorTypes(TypeRange inferred, TypeRange actual) {
  if (inferred.size() != actual.size())
    return false;
  for (auto [a, b] : llvm::zip(inferred, actual)) {
    auto ta = dyn_cast<RankedTensorType>(a);
    auto tb = dyn_cast<RankedTensorType>(b);
    if (!ta || !tb || ta.getElementType() != tb.getElementType() ||
        failed(verifyCompatibleShape(ta, tb)))
      return false;
  }
  return true;
}

#define ATTUNE_INFERRED_OP(OP)                                                 \
  LogicalResult OP::inferReturnTypes(MLIRContext *, std::optional<Location> loc, \
                                     Adaptor adaptor,                          \
                                     SmallVectorImpl<Type> &types) {           \
    return infer##OP(Diag(loc, getOperationName()), adaptor, types);           \
  }                                                                            \
  LogicalResult OP::verify() {                                                 \
    SmallVector<Type> types;                                                   \
    return infer##OP(Diag(getOperation()), Adaptor(*this), types);             \
  }                                                                            \
  bool OP::isCompatibleReturnTypes(TypeRange l, TypeRange r) {                 \
    return compatibleTensorTypes(l, r);                                        \
  }

LogicalResult mlir::attune::verifyNoUnknownAttributes(
    Operation *op, ArrayRef<StringRef> known) {
  for (NamedAttribute attr : op->getDiscardableAttrs()) {
    if (attr.getName().getValue().contains('.'))
      continue;
    InFlightDiagnostic d = op->emitOpError()
                           << "has unknown attribute '" << attr.getName().getValue()
                           << "'";
    SmallVector<StringRef> names;
    for (StringRef name : known)
      if (name != "operandSegmentSizes" && name != "resultSegmentSizes")
        names.push_back(name);
    llvm::sort(names);
    if (names.empty())
      d << " (it takes no attributes)";
    else
      d << " (known attributes: " << llvm::join(names, ", ") << ")";
    return d;
  }
  return success();
}

//===----------------------------------------------------------------------===//
// WeightOp
//===----------------------------------------------------------------------===//

LogicalResult WeightOp::verify() {
  if (getName().empty())
    return emitOpError() << "name must be a non-empty state_dict key";
  if (!getType().hasStaticShape())
    return emitOpError() << "weight '" << getName()
                         << "' must have a static shape, got "
                         << shapeStr(getType().getShape());
  return success();
}

std::string RepeatOp::weightName(int64_t index, StringRef name) {
  std::string prefix = getPrefix().str();
  std::string number = std::to_string(index);
  for (size_t at = prefix.find("{i}"); at != std::string::npos;
       at = prefix.find("{i}", at + number.size()))
    prefix.replace(at, 3, number);
  return prefix + name.str();
}

LogicalResult RepeatOp::verify() {
  // The repeat is unrolled: a count from a corrupt or mistyped file must not
  // make the compiler spell out billions of layers.
  constexpr int64_t kMaxCount = 4096;
  if (getCount() < 1 || getCount() > kMaxCount)
    return emitOpError() << "count must be in [1, " << kMaxCount << "], got "
                         << getCount();
  if (!getPrefix().contains("{i}"))
    return emitOpError() << "prefix '" << getPrefix()
                         << "' must contain {i} (each iteration's weights "
                            "are named apart by its index)";
  TypeRange inits = getInits().getTypes();
  if (getResultTypes() != inits)
    return emitOpError() << "result types " << getResultTypes()
                         << " must be the types of the inits " << inits;
  Block &body = getBody().front();
  if (body.getArgumentTypes() != inits)
    return emitOpError() << "body arguments " << body.getArgumentTypes()
                         << " must have the types of the inits " << inits;
  auto yield = cast<YieldOp>(body.getTerminator());
  if (yield.getValues().getTypes() != inits)
    return yield.emitOpError()
           << "yields " << yield.getValues().getTypes()
           << ", expected the types of the repeat's inits " << inits;
  return success();
}

//===----------------------------------------------------------------------===//
// Linear algebra
//===----------------------------------------------------------------------===//

static LogicalResult inferLinearOp(const Diag &diag, LinearOp::Adaptor a,
                                   SmallVectorImpl<Type> &types) {
  Named x{"input", a.getInput()}, w{"weight", a.getWeight()},
      b{"bias", a.getBias()};
  if (failed(sameElementType(diag, {x, w, b})) ||
      failed(expectMinRank(diag, x, 1)) ||
      failed(expectRank(diag, w, 2, "([out, in])")))
    return failure();
  ArrayRef<int64_t> xs = shapeOf(x.value), ws = shapeOf(w.value);
  if (failed(expectDim(diag, "weight dim 1 (in features)", ws[1], xs.back(),
                       "the last dim of input")) ||
      failed(expectShape(diag, b, {ws[0]})))
    return failure();
  Shape out(xs.drop_back());
  out.push_back(ws[0]);
  types.push_back(makeTensor(out, x.value));
  return success();
}
ATTUNE_INFERRED_OP(LinearOp)

static LogicalResult inferMatmulOp(const Diag &diag, MatmulOp::Adaptor a,
                                   SmallVectorImpl<Type> &types) {
  Named l{"lhs", a.getLhs()}, r{"rhs", a.getRhs()};
  if (failed(sameElementType(diag, {l, r})) || failed(expectMinRank(diag, l, 2)) ||
      failed(expectMinRank(diag, r, 2)))
    return failure();
  ArrayRef<int64_t> ls = shapeOf(l.value), rs = shapeOf(r.value);
  int64_t m = ls[ls.size() - 2], kl = ls.back();
  if (a.getTransposeLhs())
    std::swap(m, kl);
  int64_t kr = rs[rs.size() - 2], n = rs.back();
  if (a.getTransposeRhs())
    std::swap(kr, n);
  if (conflicts(kl, kr))
    return diag() << "contraction dims differ: lhs has K = " << kl
                  << " and rhs has K = " << kr;
  FailureOr<Shape> batch = broadcastShapes(diag, l, ls.drop_back(2), r,
                                           rs.drop_back(2));
  if (failed(batch))
    return failure();
  Shape out = *batch;
  out.append({m, n});
  types.push_back(makeTensor(out, l.value));
  return success();
}
ATTUNE_INFERRED_OP(MatmulOp)

//===----------------------------------------------------------------------===//
// Shape manipulation
//===----------------------------------------------------------------------===//

static LogicalResult inferTransposeOp(const Diag &diag, TransposeOp::Adaptor a,
                                      SmallVectorImpl<Type> &types) {
  ArrayRef<int64_t> in = shapeOf(a.getInput());
  ArrayRef<int64_t> perm = a.getPermutation();
  llvm::SmallBitVector seen(in.size());
  bool ok = perm.size() == in.size();
  for (int64_t p : perm) {
    ok = ok && p >= 0 && p < static_cast<int64_t>(in.size()) && !seen[p];
    if (ok)
      seen.set(p);
  }
  if (!ok)
    return diag() << "permutation " << shapeStr(perm)
                  << " is not a permutation of [0, " << in.size()
                  << ") for an input of rank " << in.size();
  Shape out;
  for (int64_t p : perm)
    out.push_back(in[p]);
  types.push_back(makeTensor(out, a.getInput()));
  return success();
}
ATTUNE_INFERRED_OP(TransposeOp)

static bool isIdentityPermutation(ArrayRef<int64_t> perm) {
  for (auto [i, p] : llvm::enumerate(perm))
    if (static_cast<int64_t>(i) != p)
      return false;
  return true;
}

OpFoldResult TransposeOp::fold(FoldAdaptor) {
  if (isIdentityPermutation(getPermutation()) &&
      getInput().getType() == getType())
    return getInput();
  return {};
}

namespace {
/// transpose(transpose(x, p1), p2) -> transpose(x, p1 o p2).
struct ComposeTransposes : OpRewritePattern<TransposeOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(TransposeOp op,
                                PatternRewriter &rewriter) const override {
    auto inner = op.getInput().getDefiningOp<TransposeOp>();
    if (!inner)
      return failure();
    SmallVector<int64_t> perm;
    for (int64_t p : op.getPermutation())
      perm.push_back(inner.getPermutation()[p]);
    rewriter.replaceOpWithNewOp<TransposeOp>(op, op.getType(), inner.getInput(),
                                             perm);
    return success();
  }
};
} // namespace

void TransposeOp::getCanonicalizationPatterns(RewritePatternSet &results,
                                              MLIRContext *context) {
  results.add<ComposeTransposes>(context);
}

static LogicalResult inferSplitHeadsOp(const Diag &diag,
                                       SplitHeadsOp::Adaptor a,
                                       SmallVectorImpl<Type> &types) {
  Named x{"input", a.getInput()};
  int64_t heads = static_cast<int64_t>(a.getNumHeads());
  if (failed(expectRank(diag, x, 3, "([B, L, H*D])")) ||
      failed(checkPositive(diag, "num_heads", heads)) ||
      failed(expectStatic(diag, x, 2, "H*D")))
    return failure();
  ArrayRef<int64_t> s = shapeOf(x.value);
  if (s[2] % heads != 0)
    return diag() << "input dim 2 (" << s[2]
                  << ") is not divisible by num_heads (" << heads << ")";
  types.push_back(makeTensor({s[0], heads, s[1], s[2] / heads}, x.value));
  return success();
}
ATTUNE_INFERRED_OP(SplitHeadsOp)

static LogicalResult inferMergeHeadsOp(const Diag &diag,
                                       MergeHeadsOp::Adaptor a,
                                       SmallVectorImpl<Type> &types) {
  Named x{"input", a.getInput()};
  if (failed(expectRank(diag, x, 4, "([B, H, L, D])")) ||
      failed(expectStatic(diag, x, 1, "H")) ||
      failed(expectStatic(diag, x, 3, "D")))
    return failure();
  ArrayRef<int64_t> s = shapeOf(x.value);
  types.push_back(makeTensor({s[0], s[2], s[1] * s[3]}, x.value));
  return success();
}
ATTUNE_INFERRED_OP(MergeHeadsOp)

OpFoldResult MergeHeadsOp::fold(FoldAdaptor) {
  if (auto split = getInput().getDefiningOp<SplitHeadsOp>())
    if (split.getInput().getType() == getType())
      return split.getInput();
  return {};
}

static LogicalResult inferSliceOp(const Diag &diag, SliceOp::Adaptor a,
                                  SmallVectorImpl<Type> &types) {
  ArrayRef<int64_t> s = shapeOf(a.getInput());
  FailureOr<int64_t> axis = normalizeAxis(
      diag, "axis", static_cast<int64_t>(a.getAxis()), s.size());
  if (failed(axis))
    return failure();
  int64_t offset = static_cast<int64_t>(a.getOffset());
  int64_t size = static_cast<int64_t>(a.getSize());
  if (offset < 0)
    return diag() << "offset must be >= 0, got " << offset;
  if (failed(checkPositive(diag, "size", size)))
    return failure();
  if (isKnown(s[*axis]) && (offset > s[*axis] || size > s[*axis] - offset))
    return diag() << "slice [" << offset << ", +" << size
                  << ") exceeds input dim " << *axis << " of extent "
                  << s[*axis];
  Shape out(s);
  out[*axis] = size;
  types.push_back(makeTensor(out, a.getInput()));
  return success();
}
ATTUNE_INFERRED_OP(SliceOp)

OpFoldResult SliceOp::fold(FoldAdaptor) {
  if (getOffset() == 0 && getInput().getType() == getType())
    return getInput();
  return {};
}

static LogicalResult inferConcatOp(const Diag &diag, ConcatOp::Adaptor a,
                                   SmallVectorImpl<Type> &types) {
  ValueRange inputs = a.getInputs();
  if (inputs.empty())
    return diag() << "needs at least one input", failure();
  SmallVector<std::string> names;
  SmallVector<Named> named;
  for (size_t i = 0; i < inputs.size(); ++i)
    names.push_back("input #" + std::to_string(i));
  for (size_t i = 0; i < inputs.size(); ++i)
    named.push_back({names[i], inputs[i]});
  int64_t rank = tensorType(inputs[0]).getRank();
  for (const Named &n : named)
    if (failed(expectRank(diag, n, rank)))
      return failure();
  if (failed(sameElementType(diag, named)))
    return failure();
  if (rank == 0)
    return diag() << "inputs must have rank >= 1, got rank 0", failure();
  FailureOr<int64_t> axis =
      normalizeAxis(diag, "axis", static_cast<int64_t>(a.getAxis()), rank);
  if (failed(axis))
    return failure();
  Shape out(shapeOf(inputs[0]));
  out[*axis] = 0;
  for (const Named &n : named) {
    ArrayRef<int64_t> s = shapeOf(n.value);
    for (int64_t d = 0; d < rank; ++d) {
      if (d == *axis) {
        out[d] = isKnown(out[d]) && isKnown(s[d]) ? out[d] + s[d] : kDyn;
        continue;
      }
      if (conflicts(out[d], s[d]))
        return diag() << n.name << " has shape " << shapeStr(s)
                      << ", expected extent " << out[d] << " in dim " << d
                      << " (all dims but axis " << *axis
                      << " must agree, as " << named[0].name << "'s "
                      << shapeStr(shapeOf(inputs[0])) << ")",
               failure();
      out[d] = refine(out[d], s[d]);
    }
  }
  types.push_back(makeTensor(out, inputs[0]));
  return success();
}
ATTUNE_INFERRED_OP(ConcatOp)

OpFoldResult ConcatOp::fold(FoldAdaptor) {
  if (getInputs().size() == 1 && getInputs()[0].getType() == getType())
    return getInputs()[0];
  return {};
}

static LogicalResult inferExpandDimsOp(const Diag &diag,
                                       ExpandDimsOp::Adaptor a,
                                       SmallVectorImpl<Type> &types) {
  ArrayRef<int64_t> s = shapeOf(a.getInput());
  FailureOr<int64_t> axis = normalizeAxis(
      diag, "axis", static_cast<int64_t>(a.getAxis()), s.size() + 1);
  if (failed(axis))
    return failure();
  Shape out(s);
  out.insert(out.begin() + *axis, 1);
  types.push_back(makeTensor(out, a.getInput()));
  return success();
}
ATTUNE_INFERRED_OP(ExpandDimsOp)

static LogicalResult inferSqueezeOp(const Diag &diag, SqueezeOp::Adaptor a,
                                    SmallVectorImpl<Type> &types) {
  ArrayRef<int64_t> s = shapeOf(a.getInput());
  FailureOr<int64_t> axis = normalizeAxis(
      diag, "axis", static_cast<int64_t>(a.getAxis()), s.size());
  if (failed(axis))
    return failure();
  if (s[*axis] != 1)
    return diag() << "input dim " << *axis << " has extent "
                  << dimStr(s[*axis]) << ", expected a static 1";
  Shape out(s);
  out.erase(out.begin() + *axis);
  types.push_back(makeTensor(out, a.getInput()));
  return success();
}
ATTUNE_INFERRED_OP(SqueezeOp)

OpFoldResult SqueezeOp::fold(FoldAdaptor) {
  auto expand = getInput().getDefiningOp<ExpandDimsOp>();
  if (!expand)
    return {};
  int64_t rank = getInput().getType().getRank();
  auto norm = [&](int64_t axis) { return axis < 0 ? axis + rank : axis; };
  if (norm(static_cast<int64_t>(expand.getAxis())) ==
          norm(static_cast<int64_t>(getAxis())) &&
      expand.getInput().getType() == getType())
    return expand.getInput();
  return {};
}

//===----------------------------------------------------------------------===//
// Elementwise and normalization
//===----------------------------------------------------------------------===//

//===----------------------------------------------------------------------===//
// CastOp
//===----------------------------------------------------------------------===//

std::vector<char> mlir::attune::convertFloatData(ArrayRef<char> bytes,
                                                 FloatType from, FloatType to) {
  size_t inWidth = from.getWidth() / 8, outWidth = to.getWidth() / 8;
  size_t count = bytes.size() / inWidth;
  std::vector<char> out(count * outWidth);
  // f32 -> bf16, the common case for a large model: the upper half of the
  // bits, rounded to nearest even (NaNs stay quiet NaNs).
  if (from.isF32() && to.isBF16()) {
    for (size_t i = 0; i < count; ++i) {
      uint32_t u;
      std::memcpy(&u, bytes.data() + i * 4, 4);
      uint16_t h;
      if ((u & 0x7fffffffu) > 0x7f800000u)
        h = uint16_t((u >> 16) | 0x40);
      else
        h = uint16_t((u + 0x7fffu + ((u >> 16) & 1)) >> 16);
      std::memcpy(out.data() + i * 2, &h, 2);
    }
    return out;
  }
  // f32 -> f16 likewise (APFloat is ~10x slower: seconds for a model's
  // weights): rounded to nearest even, subnormals by a float addition that
  // rounds them into place, 65520 and beyond to infinity, NaNs quiet.
  if (from.isF32() && to.isF16()) {
    constexpr uint32_t kF16Overflow = (127 + 16) << 23; // 2^16
    constexpr uint32_t kF16MinNormal = 113 << 23;       // 2^-14
    constexpr uint32_t kSubnormalMagic = ((127 - 15) + (23 - 10) + 1) << 23;
    float magic;
    std::memcpy(&magic, &kSubnormalMagic, 4);
    for (size_t i = 0; i < count; ++i) {
      uint32_t u;
      std::memcpy(&u, bytes.data() + i * 4, 4);
      uint32_t sign = u & 0x80000000u;
      u ^= sign;
      uint16_t h;
      if (u >= kF16Overflow) {
        h = u > 0x7f800000u ? 0x7e00 : 0x7c00;
      } else if (u < kF16MinNormal) {
        float f;
        std::memcpy(&f, &u, 4);
        f += magic;
        uint32_t r;
        std::memcpy(&r, &f, 4);
        h = uint16_t(r - kSubnormalMagic);
      } else {
        uint32_t odd = (u >> 13) & 1;
        h = uint16_t((u + (uint32_t(15 - 127) << 23) + 0xfffu + odd) >> 13);
      }
      h |= uint16_t(sign >> 16);
      std::memcpy(out.data() + i * 2, &h, 2);
    }
    return out;
  }
  for (size_t i = 0; i < count; ++i) {
    uint64_t bits = 0;
    std::memcpy(&bits, bytes.data() + i * inWidth, inWidth);
    APFloat v(from.getFloatSemantics(), APInt(from.getWidth(), bits));
    bool lost;
    v.convert(to.getFloatSemantics(), APFloat::rmNearestTiesToEven, &lost);
    uint64_t word = v.bitcastToAPInt().getZExtValue();
    std::memcpy(out.data() + i * outWidth, &word, outWidth);
  }
  return out;
}

LogicalResult MaskBiasOp::verify() {
  auto in = getMask().getType();
  auto out = getType();
  if (in.getShape() != out.getShape())
    return emitOpError("result shape ")
           << shapeStr(out.getShape()) << " differs from the mask's "
           << shapeStr(in.getShape());
  return success();
}

LogicalResult CastOp::verify() {
  auto in = getInput().getType();
  auto out = getType();
  if (in.getShape() != out.getShape())
    return emitOpError("result shape ")
           << shapeStr(out.getShape()) << " differs from the input's "
           << shapeStr(in.getShape()) << " (a cast keeps the shape)";
  return success();
}

/// Whether a cast from `from` to `to` is exact for every value.
static bool isExactWidening(Type from, Type to) {
  return isa<FloatType>(from) && to.isF32();
}

OpFoldResult CastOp::fold(FoldAdaptor adaptor) {
  Type to = getType().getElementType();
  if (getInput().getType() == getType())
    return getInput();
  // cast(cast(x: A -> f32) -> B) with A a float type: the inner cast is exact,
  // so this is one rounding of x to B (none when B is A).
  if (auto inner = getInput().getDefiningOp<CastOp>()) {
    Type from = inner.getInput().getType().getElementType();
    if (isExactWidening(from, inner.getType().getElementType())) {
      if (inner.getInput().getType() == getType())
        return inner.getInput();
      getInputMutable().assign(inner.getInput());
      return getResult();
    }
  }
  auto floatTo = cast<FloatType>(to);
  // A bound weight (a blob) converts at compile time, like every other
  // weight preparation: a half-precision weight for f32 arithmetic becomes
  // an f32 blob.
  if (auto blob = dyn_cast_if_present<DenseResourceElementsAttr>(
          adaptor.getInput())) {
    auto from = dyn_cast<FloatType>(getInput().getType().getElementType());
    AsmResourceBlob *data = blob.getRawHandle().getBlob();
    if (!from || !data)
      return {};
    ArrayRef<char> bytes = data->getData();
    size_t inWidth = from.getWidth() / 8;
    size_t count = bytes.size() / inWidth;
    if (count * inWidth != bytes.size() ||
        (int64_t)count != getType().getNumElements())
      return {};
    std::vector<char> out = convertFloatData(bytes, from, floatTo);
    return DenseResourceElementsAttr::get(
        getType(), blob.getRawHandle().getKey(),
        HeapAsmResourceBlob::allocateAndCopyWithAlign(out, 64));
  }
  // Small constants (a splat or an inline dense literal) fold.
  auto dense = dyn_cast_if_present<DenseElementsAttr>(adaptor.getInput());
  if (!dense)
    return {};
  auto convert = [&](Attribute a) -> APFloat {
    if (auto f = dyn_cast<FloatAttr>(a)) {
      APFloat v = f.getValue();
      bool lost;
      v.convert(floatTo.getFloatSemantics(), APFloat::rmNearestTiesToEven,
                &lost);
      return v;
    }
    APFloat v(floatTo.getFloatSemantics());
    v.convertFromAPInt(cast<IntegerAttr>(a).getValue(), /*isSigned=*/true,
                       APFloat::rmNearestTiesToEven);
    return v;
  };
  if (dense.isSplat())
    return DenseElementsAttr::get(getType(),
                                  convert(dense.getSplatValue<Attribute>()));
  SmallVector<APFloat> values;
  for (Attribute a : dense.getValues<Attribute>())
    values.push_back(convert(a));
  return DenseElementsAttr::get(getType(), values);
}

OpFoldResult ScaleOp::fold(FoldAdaptor) {
  if (getFactor().convertToDouble() == 1.0)
    return getInput();
  return {};
}

namespace {
/// scale(scale(x, a), b) -> scale(x, a * b).
struct CombineScales : OpRewritePattern<ScaleOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(ScaleOp op,
                                PatternRewriter &rewriter) const override {
    auto inner = op.getInput().getDefiningOp<ScaleOp>();
    if (!inner)
      return failure();
    double factor = inner.getFactor().convertToDouble() *
                    op.getFactor().convertToDouble();
    rewriter.replaceOpWithNewOp<ScaleOp>(op, inner.getInput(),
                                         rewriter.getF64FloatAttr(factor));
    return success();
  }
};
} // namespace

void ScaleOp::getCanonicalizationPatterns(RewritePatternSet &results,
                                          MLIRContext *context) {
  results.add<CombineScales>(context);
}

LogicalResult SoftmaxOp::verify() {
  return normalizeAxis(Diag(getOperation()), "axis",
                       static_cast<int64_t>(getAxis()),
                       getInput().getType().getRank());
}

static LogicalResult inferBroadcastBinary(const Diag &diag, Value lhs,
                                          Value rhs,
                                          SmallVectorImpl<Type> &types) {
  Named l{"lhs", lhs}, r{"rhs", rhs};
  if (failed(sameElementType(diag, {l, r})))
    return failure();
  FailureOr<Shape> out =
      broadcastShapes(diag, l, shapeOf(lhs), r, shapeOf(rhs));
  if (failed(out))
    return failure();
  types.push_back(makeTensor(*out, lhs));
  return success();
}

static LogicalResult inferAddOp(const Diag &diag, AddOp::Adaptor a,
                                SmallVectorImpl<Type> &types) {
  return inferBroadcastBinary(diag, a.getLhs(), a.getRhs(), types);
}
ATTUNE_INFERRED_OP(AddOp)

static LogicalResult inferMulOp(const Diag &diag, MulOp::Adaptor a,
                                SmallVectorImpl<Type> &types) {
  return inferBroadcastBinary(diag, a.getLhs(), a.getRhs(), types);
}
ATTUNE_INFERRED_OP(MulOp)

static LogicalResult inferBinaryOp(const Diag &diag, BinaryOp::Adaptor a,
                                   SmallVectorImpl<Type> &types) {
  return inferBroadcastBinary(diag, a.getLhs(), a.getRhs(), types);
}
ATTUNE_INFERRED_OP(BinaryOp)

static LogicalResult inferCompareOp(const Diag &diag, CompareOp::Adaptor a,
                                    SmallVectorImpl<Type> &types) {
  SmallVector<Type> broadcast;
  if (failed(inferBroadcastBinary(diag, a.getLhs(), a.getRhs(), broadcast)))
    return failure();
  auto shaped = cast<RankedTensorType>(broadcast.front());
  types.push_back(RankedTensorType::get(
      shaped.getShape(), IntegerType::get(shaped.getContext(), 1)));
  return success();
}
ATTUNE_INFERRED_OP(CompareOp)

static LogicalResult inferSelectOp(const Diag &diag, SelectOp::Adaptor a,
                                   SmallVectorImpl<Type> &types) {
  Named c{"condition", a.getCondition()}, l{"lhs", a.getLhs()},
      r{"rhs", a.getRhs()};
  if (failed(sameElementType(diag, {l, r})))
    return failure();
  FailureOr<Shape> values =
      broadcastShapes(diag, l, shapeOf(l.value), r, shapeOf(r.value));
  if (failed(values))
    return failure();
  FailureOr<Shape> out = broadcastShapes(
      diag, c, shapeOf(c.value), Named{"lhs and rhs", l.value}, *values);
  if (failed(out))
    return failure();
  types.push_back(makeTensor(*out, l.value));
  return success();
}
ATTUNE_INFERRED_OP(SelectOp)

static LogicalResult inferReduceOp(const Diag &diag, ReduceOp::Adaptor a,
                                   SmallVectorImpl<Type> &types) {
  ArrayRef<int64_t> s = shapeOf(a.getInput());
  int64_t rank = s.size();
  SmallVector<bool> reduced(rank, false);
  for (int64_t axis : a.getAxes()) {
    FailureOr<int64_t> n = normalizeAxis(diag, "axis", axis, rank);
    if (failed(n))
      return failure();
    if (reduced[*n])
      return diag() << "axis " << axis << " is repeated in axes (dim " << *n
                    << " is reduced once)";
    reduced[*n] = true;
  }
  Shape out;
  for (int64_t i = 0; i < rank; ++i) {
    if (!reduced[i])
      out.push_back(s[i]);
    else if (a.getKeepDims())
      out.push_back(1);
  }
  types.push_back(makeTensor(out, a.getInput()));
  return success();
}
ATTUNE_INFERRED_OP(ReduceOp)

static LogicalResult inferGatherOp(const Diag &diag, GatherOp::Adaptor a,
                                   SmallVectorImpl<Type> &types) {
  Named x{"input", a.getInput()};
  if (failed(expectMinRank(diag, x, 1)))
    return failure();
  ArrayRef<int64_t> s = shapeOf(x.value);
  FailureOr<int64_t> axis =
      normalizeAxis(diag, "axis", static_cast<int64_t>(a.getAxis()), s.size());
  if (failed(axis))
    return failure();
  Shape out(s.begin(), s.begin() + *axis);
  llvm::append_range(out, shapeOf(a.getIndices()));
  out.append(s.begin() + *axis + 1, s.end());
  types.push_back(makeTensor(out, x.value));
  return success();
}
ATTUNE_INFERRED_OP(GatherOp)

/// The products of the static dims between consecutive dynamic dims of
/// `shape` (one more entry than it has dynamic dims).
static SmallVector<int64_t> staticRuns(ArrayRef<int64_t> shape) {
  SmallVector<int64_t> runs(1, 1);
  for (int64_t d : shape) {
    if (isKnown(d))
      runs.back() *= d;
    else
      runs.push_back(1);
  }
  return runs;
}

LogicalResult ReshapeOp::verify() {
  ArrayRef<int64_t> in = getInput().getType().getShape();
  ArrayRef<int64_t> out = getType().getShape();
  if (getInput().getType().getElementType() != getType().getElementType())
    return emitOpError("result element type ")
           << getType().getElementType() << " differs from the input's "
           << getInput().getType().getElementType();
  if (!getSizes().empty()) {
    // Given extents: the element counts are checked at run time.
    int64_t dynamic = llvm::count_if(out, ShapedType::isDynamic);
    if (int64_t(getSizes().size()) != dynamic)
      return emitOpError("has ")
             << getSizes().size() << " sizes for " << dynamic
             << " dynamic dims of the result " << shapeStr(out)
             << " (one per dynamic dim, in order)";
    return success();
  }
  SmallVector<int64_t> a = staticRuns(in), b = staticRuns(out);
  if (a.size() != b.size())
    return emitOpError("input ")
           << shapeStr(in) << " has " << a.size() - 1
           << " dynamic dims and result " << shapeStr(out) << " has "
           << b.size() - 1
           << " (without sizes, a reshape keeps the dynamic dims)";
  for (size_t i = 0; i < a.size(); ++i)
    if (a[i] != b[i])
      return emitOpError("static dims ")
             << (i == 0 ? std::string("before the first dynamic dim")
                        : "after dynamic dim " + std::to_string(i))
             << " hold " << a[i] << " elements in the input " << shapeStr(in)
             << " and " << b[i] << " in the result " << shapeStr(out);
  return success();
}

OpFoldResult ReshapeOp::fold(FoldAdaptor) {
  if (getInput().getType() == getType() && getSizes().empty())
    return getInput();
  return {};
}

LogicalResult BroadcastOp::verify() {
  ArrayRef<int64_t> in = getInput().getType().getShape();
  ArrayRef<int64_t> out = getType().getShape();
  if (getInput().getType().getElementType() != getType().getElementType())
    return emitOpError("result element type ")
           << getType().getElementType() << " differs from the input's "
           << getInput().getType().getElementType();
  if (in.size() > out.size())
    return emitOpError("input ")
           << shapeStr(in) << " has more dims than the result "
           << shapeStr(out);
  int64_t dynamic = llvm::count_if(out, ShapedType::isDynamic);
  if (int64_t(getSizes().size()) != dynamic)
    return emitOpError("has ")
           << getSizes().size() << " sizes for " << dynamic
           << " dynamic dims of the result " << shapeStr(out)
           << " (one per dynamic dim, in order)";
  size_t lead = out.size() - in.size();
  for (size_t i = 0; i < in.size(); ++i)
    if (in[i] != 1 && conflicts(in[i], out[lead + i]))
      return emitOpError("input dim ")
             << i << " is " << in[i] << ", expected 1 or the result's "
             << out[lead + i] << " (result " << shapeStr(out) << ")";
  return success();
}

LogicalResult TriluOp::verify() {
  int64_t rank = getInput().getType().getRank();
  if (rank < 2)
    return emitOpError("input has rank ")
           << rank << ", expected rank >= 2 ([..., M, N])";
  return success();
}

static LogicalResult inferLayerNormOp(const Diag &diag, LayerNormOp::Adaptor a,
                                      SmallVectorImpl<Type> &types) {
  Named x{"input", a.getInput()}, w{"weight", a.getWeight()},
      b{"bias", a.getBias()};
  if (failed(sameElementType(diag, {x, w, b})))
    return failure();
  if (Value r = a.getResidual(); r && r.getType() != x.value.getType())
    return diag() << "residual has type " << r.getType()
                  << ", expected the input's type " << x.value.getType();
  ArrayRef<int64_t> s = shapeOf(x.value);
  int64_t nrank = static_cast<int64_t>(a.getNormalizedRank());
  if (nrank < 1 || nrank > static_cast<int64_t>(s.size()))
    return diag() << "normalized_rank " << nrank << " is out of range for an "
                  << "input of rank " << s.size() << " (expected 1 <= "
                  << "normalized_rank <= " << s.size() << ")";
  ArrayRef<int64_t> normalized = s.take_back(nrank);
  for (int64_t i = s.size() - nrank; i < static_cast<int64_t>(s.size()); ++i)
    if (failed(expectStatic(diag, x, i, "normalized")))
      return failure();
  double eps = a.getEpsilon().convertToDouble();
  if (!(eps > 0.0))
    return diag() << "epsilon must be positive, got " << eps;
  if (failed(expectShape(diag, w, normalized)) ||
      failed(expectShape(diag, b, normalized)))
    return failure();
  types.push_back(x.value.getType());
  return success();
}
ATTUNE_INFERRED_OP(LayerNormOp)

//===----------------------------------------------------------------------===//
// Embeddings
//===----------------------------------------------------------------------===//

static LogicalResult inferEmbeddingOp(const Diag &diag, EmbeddingOp::Adaptor a,
                                      SmallVectorImpl<Type> &types) {
  Named t{"table", a.getTable()};
  if (failed(expectRank(diag, t, 2, "([V, E])")) ||
      failed(expectStatic(diag, t, 0, "V")) ||
      failed(expectStatic(diag, t, 1, "E")))
    return failure();
  Shape out(shapeOf(a.getIds()));
  out.push_back(shapeOf(t.value)[1]);
  types.push_back(makeTensor(out, t.value));
  return success();
}
ATTUNE_INFERRED_OP(EmbeddingOp)

static LogicalResult
inferPositionalEncodingOp(const Diag &diag, PositionalEncodingOp::Adaptor a,
                          SmallVectorImpl<Type> &types) {
  Named x{"input", a.getInput()}, t{"table", a.getTable()};
  if (failed(sameElementType(diag, {x, t})) ||
      failed(expectMinRank(diag, x, 2, "([..., L, E])")))
    return failure();
  ArrayRef<int64_t> s = shapeOf(x.value);
  if (failed(expectStatic(diag, x, s.size() - 1, "E")))
    return failure();
  int64_t offset = static_cast<int64_t>(a.getOffset());
  if (offset < 0)
    return diag() << "offset must be >= 0, got " << offset;
  if (Value offsets = a.getOffsets()) {
    if (offset != 0)
      return diag() << "offset " << offset
                    << " and an offsets operand are exclusive";
    if (failed(expectRank(diag, x, 3, "([B, L, E]) with offsets")) ||
        failed(checkKeyLengths(diag, offsets, s[0], "offsets")))
      return failure();
  }
  bool learned = a.getKind() == PositionalKind::learned;
  if (learned && !t.value)
    return diag() << "learned positional encoding requires a table operand";
  if (!learned && t.value)
    return diag() << "sinusoidal positional encoding takes no table operand";
  if (learned) {
    if (failed(expectRank(diag, t, 2, "([maxLen, E])")) ||
        failed(expectDim(diag, "table dim 1 (E)", shapeOf(t.value)[1],
                         s.back(), "the last dim of input")))
      return failure();
    int64_t maxLen = shapeOf(t.value)[0], len = s[s.size() - 2];
    if (isKnown(maxLen) && isKnown(len) &&
        (offset > maxLen || len > maxLen - offset))
      return diag() << "positions [" << offset << ", +" << len
                    << ") exceed the table's " << maxLen << " rows";
  }
  types.push_back(x.value.getType());
  return success();
}
ATTUNE_INFERRED_OP(PositionalEncodingOp)

//===----------------------------------------------------------------------===//
// Attention
//===----------------------------------------------------------------------===//

/// The operand shapes attention ops share: query [B, H, Lq, D], key
/// [B, Hk, Lk, D], value [B, Hk, Lk, Dv] of one element type (and the
/// bias's, when given), heads and head dims static, Hk dividing H.
struct AttentionShapes {
  ArrayRef<int64_t> q, k, v;
  int64_t batch; // refined from the three
};
static FailureOr<AttentionShapes>
checkAttentionShapes(const Diag &diag, const Named &q, const Named &k,
                     const Named &v, const Named &bias) {
  if (failed(sameElementType(diag, {q, k, v, bias})) ||
      failed(expectRank(diag, q, 4, "([B, H, Lq, D])")) ||
      failed(expectRank(diag, k, 4, "([B, Hk, Lk, D])")) ||
      failed(expectRank(diag, v, 4, "([B, Hk, Lk, Dv])")) ||
      failed(expectStatic(diag, q, 1, "H")) ||
      failed(expectStatic(diag, q, 3, "D")) ||
      failed(expectStatic(diag, k, 1, "Hk")) ||
      failed(expectStatic(diag, v, 3, "Dv")))
    return failure();
  ArrayRef<int64_t> qs = shapeOf(q.value), ks = shapeOf(k.value),
                    vs = shapeOf(v.value);
  int64_t heads = qs[1], kvHeads = ks[1];
  if (kvHeads < 1 || heads % kvHeads != 0)
    return diag() << "key heads (" << kvHeads << ") must divide query heads ("
                  << heads << ")";
  if (failed(expectDim(diag, "key dim 0 (B)", ks[0], qs[0], "query batch")) ||
      failed(expectDim(diag, "value dim 0 (B)", vs[0], qs[0], "query batch")) ||
      failed(
          expectDim(diag, "value dim 1 (Hk)", vs[1], kvHeads, "key heads")) ||
      failed(expectDim(diag, "key head dim", ks[3], qs[3], "query head dim")) ||
      failed(expectDim(diag, "value dim 2 (Lk)", vs[2], ks[2], "key length")))
    return failure();
  return AttentionShapes{qs, ks, vs, refine(refine(qs[0], ks[0]), vs[0])};
}

static LogicalResult inferAttentionOp(const Diag &diag, AttentionOp::Adaptor a,
                                      SmallVectorImpl<Type> &types) {
  Named q{"query", a.getQuery()}, k{"key", a.getKey()},
      v{"value", a.getValue()}, bias{"bias", a.getBias()};
  FailureOr<AttentionShapes> shapes = checkAttentionShapes(diag, q, k, v, bias);
  if (failed(shapes))
    return failure();
  ArrayRef<int64_t> qs = shapes->q, ks = shapes->k, vs = shapes->v;
  int64_t heads = qs[1], batch = shapes->batch;
  int64_t kvLen = refine(ks[2], vs[2]);
  if (a.getQueryOffsets() && a.getAlign() == MaskAlign::bottom_right)
    return diag() << "query_offsets and align = bottom_right are exclusive "
                     "(both place the queries)";
  if (failed(checkKeyLengths(diag, a.getKeyLengths(), batch, "key_lengths")) ||
      failed(checkKeyLengths(diag, a.getQueryOffsets(), batch,
                             "query_offsets")) ||
      failed(expectBroadcastableTo(diag, bias, {batch, heads, qs[2], kvLen},
                                   "[B, H, Lq, Lk] =")) ||
      failed(checkWindow(diag, a.getWindowAttr())))
    return failure();
  if (a.getScaleAttr() && a.getScore() == ScoreKind::dot)
    return diag() << "scale is only meaningful with score = scaled_dot";
  if (IntegerAttr d = a.getDilationAttr()) {
    if (!a.getWindowAttr())
      return diag() << "dilation spaces a window's keys: expected a window "
                       "= w with it";
    // The span (w - 1) d + 1 stays far from overflowing an index.
    if (d.getInt() < 1 || d.getInt() > (int64_t(1) << 31))
      return diag() << "dilation must be in [1, 2^31], got " << d.getInt();
    if (a.getWindowAttr().getInt() > (int64_t(1) << 31))
      return diag() << "a dilated window must be at most 2^31, got "
                    << a.getWindowAttr().getInt();
  }
  if (SparseLayoutAttr sparse = a.getSparseAttr()) {
    if (a.getGlobalIndices())
      return diag() << "a sparse layout and global tokens are exclusive "
                       "(expected the layout's global blocks)";
    if (sparse.getSplit() && heads % 2 != 0)
      return diag() << "a split sparse layout alternates its two factors "
                       "over the heads: expected an even number of query "
                       "heads, got "
                    << heads;
  }
  if (Value g = a.getGlobalIndices()) {
    Named gn{"globals", g};
    if (!a.getWindowAttr())
      return diag() << "global tokens need a window (expected window = w; "
                       "without one every key is visible already)";
    if (a.getQueryOffsets())
      return diag() << "global tokens and query_offsets are exclusive";
    if (failed(expectRank(diag, gn, 2, "([B, G])")) ||
        failed(expectStatic(diag, gn, 1, "G")) ||
        failed(expectDim(diag, "globals dim 0 (B)", shapeOf(g)[0], batch,
                         "the batch size")))
      return failure();
    // Constant positions are checked here: in [0, Lk), each once.
    DenseIntElementsAttr values;
    if (matchPattern(g, m_Constant(&values))) {
      int64_t lk = refine(ks[2], vs[2]);
      int64_t perRow = shapeOf(g)[1], index = 0;
      llvm::SmallDenseSet<int64_t> seen;
      for (const APInt &value : values.getValues<APInt>()) {
        int64_t pos = value.getSExtValue();
        if (index++ % perRow == 0)
          seen.clear();
        if (pos < 0 || (isKnown(lk) && pos >= lk))
          return diag() << "global token position " << pos
                        << " is outside the keys [0, "
                        << (isKnown(lk) ? std::to_string(lk) : "Lk") << ")";
        if (!seen.insert(pos).second)
          return diag() << "global token position " << pos
                        << " is given twice in one row (expected distinct "
                           "positions)";
      }
    }
  }
  types.push_back(makeTensor({batch, heads, qs[2], vs[3]}, q.value));
  if (a.getReturnWeights())
    types.push_back(makeTensor({batch, heads, qs[2], kvLen}, q.value));
  return success();
}
ATTUNE_INFERRED_OP(AttentionOp)

static LogicalResult inferLinearAttentionOp(const Diag &diag,
                                            LinearAttentionOp::Adaptor a,
                                            SmallVectorImpl<Type> &types) {
  Named q{"query", a.getQuery()}, k{"key", a.getKey()},
      v{"value", a.getValue()};
  FailureOr<AttentionShapes> shapes =
      checkAttentionShapes(diag, q, k, v, Named{"bias", Value()});
  if (failed(shapes))
    return failure();
  ArrayRef<int64_t> qs = shapes->q, ks = shapes->k, vs = shapes->v;
  int64_t heads = qs[1], kvHeads = ks[1], batch = shapes->batch;
  if (failed(checkKeyLengths(diag, a.getKeyLengths(), batch, "key_lengths")))
    return failure();
  if (IntegerAttr w = a.getWindowAttr())
    return diag() << "linear attention cannot honour a window mask (window = "
                  << w.getInt()
                  << "): its sums run over every visible key; expected no "
                     "window (use attune.attention for a sliding window)";
  if (a.getCausal() &&
      failed(expectDim(diag, "key length (Lk) with causal",
                       refine(ks[2], vs[2]), qs[2], "query length")))
    return failure();
  double eps = a.getEps().convertToDouble();
  if (!(eps >= 0.0) || !std::isfinite(eps))
    return diag() << "eps must be finite and >= 0, got " << eps;
  types.push_back(makeTensor({batch, heads, qs[2], vs[3]}, q.value));
  ValueRange state = a.getState();
  if (state.empty())
    return success();
  if (state.size() != 2)
    return diag() << "state takes 2 operands (kv [B, Hk, D, Dv], ksum [B, Hk, "
                     "D]), got "
                  << state.size();
  Type f32 = Float32Type::get(q.value.getContext());
  SmallVector<int64_t> kvShape = {batch, kvHeads, qs[3], vs[3]};
  SmallVector<int64_t> sumShape = {batch, kvHeads, qs[3]};
  for (auto [value, name, shape] :
       {std::tuple<Value, StringRef, ArrayRef<int64_t>>{state[0], "state kv",
                                                        kvShape},
        {state[1], "state ksum", sumShape}}) {
    auto type = cast<RankedTensorType>(value.getType());
    if (type.getElementType() != f32)
      return diag() << name << " must be f32 (the sums accumulate in f32), got "
                    << type.getElementType();
    if (failed(expectShape(diag, Named{name, value}, shape)))
      return failure();
    SmallVector<int64_t> refined(shape);
    refined[0] = refine(batch, type.getDimSize(0));
    types.push_back(RankedTensorType::get(refined, f32));
  }
  return success();
}
ATTUNE_INFERRED_OP(LinearAttentionOp)

double AttentionOp::getEffectiveScale() {
  if (getScore() == ScoreKind::dot)
    return 1.0;
  if (std::optional<APFloat> s = getScale())
    return s->convertToDouble();
  return 1.0 / std::sqrt(static_cast<double>(getQuery().getType().getShape()[3]));
}

int64_t AttentionOp::getDilationOrOne() {
  std::optional<uint64_t> d = getDilation();
  return d ? static_cast<int64_t>(*d) : 1;
}

std::optional<int64_t> AttentionOp::getWindowSpan() {
  std::optional<uint64_t> w = getWindow();
  if (!w)
    return std::nullopt;
  return (static_cast<int64_t>(*w) - 1) * getDilationOrOne() + 1;
}

static LogicalResult inferMaskOp(const Diag &diag, MaskOp::Adaptor a,
                                 SmallVectorImpl<Type> &types) {
  Named x{"input", a.getInput()};
  if (failed(expectMinRank(diag, x, a.getKeyLengths() ? 3 : 2,
                           a.getKeyLengths() ? "([B, ..., Lq, Lk])"
                                             : "([..., Lq, Lk])")) ||
      failed(checkKeyLengths(diag, a.getKeyLengths(), shapeOf(x.value)[0],
                             "key_lengths")) ||
      failed(checkWindow(diag, a.getWindowAttr())))
    return failure();
  types.push_back(x.value.getType());
  return success();
}
ATTUNE_INFERRED_OP(MaskOp)

OpFoldResult MaskOp::fold(FoldAdaptor) {
  if (!getCausal() && !getWindow() && !getKeyLengths())
    return getInput();
  return {};
}

//===----------------------------------------------------------------------===//
// Generation state
//===----------------------------------------------------------------------===//

static LogicalResult inferCacheWriteOp(const Diag &diag, CacheWriteOp::Adaptor a,
                                       SmallVectorImpl<Type> &types) {
  Named c{"cache", a.getCache()}, u{"update", a.getUpdate()};
  if (failed(sameElementType(diag, {c, u})) ||
      failed(expectRank(diag, c, 4, "([B, H, C, D])")) ||
      failed(expectRank(diag, u, 4, "([B, H, T, D])")) ||
      failed(expectStatic(diag, c, 1, "H")) ||
      failed(expectStatic(diag, c, 3, "D")))
    return failure();
  ArrayRef<int64_t> cs = shapeOf(c.value), us = shapeOf(u.value);
  if (failed(expectDim(diag, "update dim 0 (B)", us[0], cs[0],
                       "the cache's batch")) ||
      failed(expectDim(diag, "update dim 1 (H)", us[1], cs[1],
                       "the cache's heads")) ||
      failed(expectDim(diag, "update dim 3 (D)", us[3], cs[3],
                       "the cache's head dim")))
    return failure();
  if (isKnown(us[2]) && isKnown(cs[2]) && us[2] > cs[2])
    return diag() << "update of " << us[2]
                  << " positions does not fit the cache's capacity of "
                  << cs[2];
  int64_t batch = refine(cs[0], us[0]);
  if (failed(checkKeyLengths(diag, a.getPositions(), batch, "positions")))
    return failure();
  types.push_back(makeTensor({batch, cs[1], cs[2], cs[3]}, c.value));
  return success();
}
ATTUNE_INFERRED_OP(CacheWriteOp)

static LogicalResult inferOverwriteOp(const Diag &diag, OverwriteOp::Adaptor a,
                                      SmallVectorImpl<Type> &types) {
  Named d{"dest", a.getDest()}, v{"value", a.getValue()};
  if (failed(sameElementType(diag, {d, v})) ||
      failed(expectRank(diag, v, shapeOf(d.value).size())))
    return failure();
  ArrayRef<int64_t> ds = shapeOf(d.value), vs = shapeOf(v.value);
  Shape out;
  for (size_t i = 0; i < ds.size(); ++i) {
    if (failed(expectDim(diag, "value dim " + std::to_string(i), vs[i], ds[i],
                         "the dest's")))
      return failure();
    out.push_back(refine(ds[i], vs[i]));
  }
  types.push_back(makeTensor(out, d.value));
  return success();
}
ATTUNE_INFERRED_OP(OverwriteOp)

static LogicalResult inferSelectLastOp(const Diag &diag, SelectLastOp::Adaptor a,
                                       SmallVectorImpl<Type> &types) {
  Named x{"input", a.getInput()};
  if (failed(expectMinRank(diag, x, 2, "([B, L, ...])")))
    return failure();
  ArrayRef<int64_t> s = shapeOf(x.value);
  if (failed(checkKeyLengths(diag, a.getLengths(), s[0], "lengths")))
    return failure();
  if (s[1] == 0)
    return diag() << "input has no positions (L = 0) to select from";
  Shape out = {refine(s[0], shapeOf(a.getLengths())[0])};
  out.append(s.begin() + 2, s.end());
  types.push_back(makeTensor(out, x.value));
  return success();
}
ATTUNE_INFERRED_OP(SelectLastOp)

static LogicalResult
inferMultiHeadAttentionOp(const Diag &diag, MultiHeadAttentionOp::Adaptor a,
                          SmallVectorImpl<Type> &types) {
  Named q{"query", a.getQuery()}, k{"key", a.getKey()}, v{"value", a.getValue()},
      inW{"in_proj_weight", a.getInProjWeight()},
      qW{"q_proj_weight", a.getQProjWeight()},
      kW{"k_proj_weight", a.getKProjWeight()},
      vW{"v_proj_weight", a.getVProjWeight()},
      inB{"in_proj_bias", a.getInProjBias()},
      outW{"out_proj_weight", a.getOutProjWeight()},
      outB{"out_proj_bias", a.getOutProjBias()}, bias{"bias", a.getBias()};
  if (failed(sameElementType(diag,
                             {q, k, v, inW, qW, kW, vW, inB, outW, outB, bias})) ||
      failed(expectRank(diag, q, 3, "([B, Lq, E])")) ||
      failed(expectRank(diag, k, 3, "([B, Lk, Ek])")) ||
      failed(expectRank(diag, v, 3, "([B, Lk, Ev])")) ||
      failed(expectStatic(diag, q, 2, "E")))
    return failure();
  ArrayRef<int64_t> qs = shapeOf(q.value), ks = shapeOf(k.value),
                    vs = shapeOf(v.value);
  int64_t embed = qs[2];
  int64_t heads = static_cast<int64_t>(a.getNumHeads());
  int64_t kvHeads =
      a.getNumKvHeadsAttr() ? a.getNumKvHeadsAttr().getInt() : heads;
  if (failed(checkPositive(diag, "num_heads", heads)) ||
      failed(checkPositive(diag, "num_kv_heads", kvHeads)))
    return failure();
  if (embed % heads != 0)
    return diag() << "embedding dim " << embed
                  << " is not divisible by num_heads " << heads;
  if (heads % kvHeads != 0)
    return diag() << "num_kv_heads " << kvHeads << " does not divide num_heads "
                  << heads;
  int64_t kvDim = kvHeads * (embed / heads);
  if (failed(expectDim(diag, "key dim 0 (B)", ks[0], qs[0], "query batch")) ||
      failed(expectDim(diag, "value dim 0 (B)", vs[0], qs[0], "query batch")) ||
      failed(expectDim(diag, "value dim 1 (Lk)", vs[1], ks[1], "key length")))
    return failure();
  bool separate = qW.value || kW.value || vW.value;
  if (inW.value && separate)
    return diag() << "expected either in_proj_weight or q/k/v_proj_weight, "
                     "got both";
  if (inW.value) {
    if (failed(expectShape(diag, inW, {embed + 2 * kvDim, embed})) ||
        failed(expectDim(diag, "key dim 2 (Ek)", ks[2], embed,
                         "a packed in_proj_weight needs Ek = E")) ||
        failed(expectDim(diag, "value dim 2 (Ev)", vs[2], embed,
                         "a packed in_proj_weight needs Ev = E")))
      return failure();
  } else if (qW.value && kW.value && vW.value) {
    if (failed(expectShape(diag, qW, {embed, embed})) ||
        failed(expectShape(diag, kW, {kvDim, ks[2]})) ||
        failed(expectShape(diag, vW, {kvDim, vs[2]})))
      return failure();
  } else {
    return diag() << "expected in_proj_weight or all of q_proj_weight, "
                     "k_proj_weight and v_proj_weight";
  }
  int64_t batch = refine(refine(qs[0], ks[0]), vs[0]);
  if (failed(expectShape(diag, inB, {embed + 2 * kvDim})) ||
      failed(expectShape(diag, outW, {embed, embed})) ||
      failed(expectShape(diag, outB, {embed})) ||
      failed(checkKeyLengths(diag, a.getKeyLengths(), batch, "key_lengths")) ||
      failed(expectBroadcastableTo(diag, bias,
                                   {batch, heads, qs[1], refine(ks[1], vs[1])},
                                   "[B, num_heads, Lq, Lk] =")) ||
      failed(checkWindow(diag, a.getWindowAttr())))
    return failure();
  types.push_back(makeTensor({batch, qs[1], embed}, q.value));
  return success();
}
ATTUNE_INFERRED_OP(MultiHeadAttentionOp)

static LogicalResult inferSeq2SeqAttentionOp(const Diag &diag,
                                             Seq2SeqAttentionOp::Adaptor a,
                                             SmallVectorImpl<Type> &types) {
  Named q{"query", a.getQuery()}, k{"keys", a.getKeys()},
      v{"values", a.getValues()};
  SmallVector<Named> all = {q, k, v};
  for (Value w : a.getWeights())
    all.push_back({"weight", w});
  if (failed(sameElementType(diag, all)) ||
      failed(expectRank(diag, q, 3, "([B, Lq, Dq])")) ||
      failed(expectRank(diag, k, 3, "([B, Lk, Dk])")) ||
      failed(expectRank(diag, v, 3, "([B, Lk, Dv])")))
    return failure();
  ArrayRef<int64_t> qs = shapeOf(q.value), ks = shapeOf(k.value),
                    vs = shapeOf(v.value);
  if (failed(expectDim(diag, "keys dim 0 (B)", ks[0], qs[0], "query batch")) ||
      failed(expectDim(diag, "values dim 0 (B)", vs[0], qs[0],
                       "query batch")) ||
      failed(expectDim(diag, "values dim 1 (Lk)", vs[1], ks[1],
                       "keys length")))
    return failure();
  int64_t batch = refine(refine(qs[0], ks[0]), vs[0]);
  int64_t kvLen = refine(ks[1], vs[1]);
  int64_t dq = qs[2], dk = ks[2];
  ValueRange w = a.getWeights();
  auto expectCount = [&](StringRef layout, size_t lo,
                         size_t hi) -> LogicalResult {
    if (w.size() >= lo && w.size() <= hi)
      return success();
    return diag() << "score " << stringifySeq2SeqScore(a.getScore())
                  << " expects weights " << layout << ", got " << w.size()
                  << " weight operand(s)";
  };
  switch (a.getScore()) {
  case Seq2SeqScore::dot:
    if (failed(expectCount("()", 0, 0)) ||
        failed(expectDim(diag, "keys dim 2 (Dk)", dk, dq,
                         "dot scores need Dk = Dq")))
      return failure();
    break;
  case Seq2SeqScore::general:
    if (failed(expectCount("(W [Dq, Dk])", 1, 1)) ||
        failed(expectShape(diag, {"W", w[0]}, {dq, dk})))
      return failure();
    break;
  case Seq2SeqScore::additive: {
    if (failed(expectCount("(W1 [A, Dq], W2 [A, Dk], v [1, A][, b [A]])", 3,
                           4)) ||
        failed(expectRank(diag, {"W1", w[0]}, 2, "([A, Dq])")))
      return failure();
    int64_t attn = shapeOf(w[0])[0];
    if (failed(expectShape(diag, {"W1", w[0]}, {attn, dq})) ||
        failed(expectShape(diag, {"W2", w[1]}, {attn, dk})) ||
        failed(expectShape(diag, {"v", w[2]}, {1, attn})) ||
        (w.size() == 4 && failed(expectShape(diag, {"b", w[3]}, {attn}))))
      return failure();
    break;
  }
  case Seq2SeqScore::location: {
    if (failed(expectCount("(W [Lk, Dq][, b [Lk]])", 1, 2)) ||
        failed(expectRank(diag, {"W", w[0]}, 2, "([Lk, Dq])")))
      return failure();
    int64_t rows = shapeOf(w[0])[0];
    if (failed(expectShape(diag, {"W", w[0]}, {kvLen, dq})) ||
        (w.size() == 2 && failed(expectShape(diag, {"b", w[1]}, {rows}))))
      return failure();
    kvLen = refine(kvLen, rows);
    break;
  }
  }
  if (failed(checkKeyLengths(diag, a.getKeyLengths(), batch, "key_lengths")))
    return failure();
  types.push_back(makeTensor({batch, qs[1], vs[2]}, q.value));
  if (a.getReturnWeights())
    types.push_back(makeTensor({batch, qs[1], kvLen}, q.value));
  return success();
}
ATTUNE_INFERRED_OP(Seq2SeqAttentionOp)

//===----------------------------------------------------------------------===//
// Transformer blocks
//===----------------------------------------------------------------------===//

static LogicalResult inferFeedForwardOp(const Diag &diag,
                                        FeedForwardOp::Adaptor a,
                                        SmallVectorImpl<Type> &types) {
  Named x{"input", a.getInput()}, w1{"weight1", a.getWeight1()},
      b1{"bias1", a.getBias1()}, w2{"weight2", a.getWeight2()},
      b2{"bias2", a.getBias2()};
  if (failed(sameElementType(diag, {x, w1, b1, w2, b2})) ||
      failed(expectMinRank(diag, x, 1)) ||
      failed(expectRank(diag, w1, 2, "([F, E])")) ||
      failed(expectRank(diag, w2, 2, "([E2, F])")))
    return failure();
  ArrayRef<int64_t> xs = shapeOf(x.value), s1 = shapeOf(w1.value),
                    s2 = shapeOf(w2.value);
  if (failed(expectDim(diag, "weight1 dim 1 (E)", s1[1], xs.back(),
                       "the last dim of input")) ||
      failed(expectShape(diag, b1, {s1[0]})) ||
      failed(expectDim(diag, "weight2 dim 1 (F)", s2[1], s1[0],
                       "weight1 dim 0")) ||
      failed(expectShape(diag, b2, {s2[0]})))
    return failure();
  Shape out(xs.drop_back());
  out.push_back(s2[0]);
  types.push_back(makeTensor(out, x.value));
  return success();
}
ATTUNE_INFERRED_OP(FeedForwardOp)

/// Checks the parts shared by the encoder and decoder layers: the model input
/// `x [B, L, E]`, heads, activation, epsilon, the feed-forward weights and the
/// given layer norms. Returns E.
static FailureOr<int64_t>
checkLayerCommon(const Diag &diag, const Named &x, int64_t heads,
                 Activation act, double eps, const Named &l1w,
                 const Named &l1b, const Named &l2w, const Named &l2b,
                 ArrayRef<Named> normParams) {
  if (failed(expectRank(diag, x, 3, "([B, L, E])")) ||
      failed(expectStatic(diag, x, 2, "E")) ||
      failed(checkPositive(diag, "num_heads", heads)))
    return failure();
  int64_t embed = shapeOf(x.value)[2];
  if (embed % heads != 0)
    return diag() << "embedding dim " << embed
                  << " is not divisible by num_heads " << heads,
           failure();
  if (act != Activation::relu && act != Activation::gelu)
    return diag() << "activation must be relu or gelu (as in PyTorch), got "
                  << stringifyActivation(act),
           failure();
  if (!(eps > 0.0))
    return diag() << "epsilon must be positive, got " << eps,
           failure();
  if (failed(expectRank(diag, l1w, 2, "([F, E])")))
    return failure();
  int64_t ff = shapeOf(l1w.value)[0];
  if (failed(expectShape(diag, l1w, {ff, embed})) ||
      failed(expectShape(diag, l1b, {ff})) ||
      failed(expectShape(diag, l2w, {embed, ff})) ||
      failed(expectShape(diag, l2b, {embed})))
    return failure();
  for (const Named &n : normParams)
    if (failed(expectShape(diag, n, {embed})))
      return failure();
  return embed;
}

static LogicalResult checkPackedAttention(const Diag &diag, int64_t embed,
                                          const Named &inW, const Named &inB,
                                          const Named &outW,
                                          const Named &outB) {
  if (failed(expectShape(diag, inW, {3 * embed, embed})) ||
      failed(expectShape(diag, inB, {3 * embed})) ||
      failed(expectShape(diag, outW, {embed, embed})) ||
      failed(expectShape(diag, outB, {embed})))
    return failure();
  return success();
}

static LogicalResult inferEncoderLayerOp(const Diag &diag,
                                         EncoderLayerOp::Adaptor a,
                                         SmallVectorImpl<Type> &types) {
  Named x{"src", a.getSrc()},
      inW{"self_attn.in_proj_weight", a.getInProjWeight()},
      inB{"self_attn.in_proj_bias", a.getInProjBias()},
      outW{"self_attn.out_proj.weight", a.getOutProjWeight()},
      outB{"self_attn.out_proj.bias", a.getOutProjBias()},
      l1w{"linear1.weight", a.getLinear1Weight()},
      l1b{"linear1.bias", a.getLinear1Bias()},
      l2w{"linear2.weight", a.getLinear2Weight()},
      l2b{"linear2.bias", a.getLinear2Bias()},
      n1w{"norm1.weight", a.getNorm1Weight()},
      n1b{"norm1.bias", a.getNorm1Bias()},
      n2w{"norm2.weight", a.getNorm2Weight()},
      n2b{"norm2.bias", a.getNorm2Bias()};
  if (failed(sameElementType(
          diag, {x, inW, inB, outW, outB, l1w, l1b, l2w, l2b, n1w, n1b, n2w,
                 n2b})))
    return failure();
  FailureOr<int64_t> embed = checkLayerCommon(
      diag, x, static_cast<int64_t>(a.getNumHeads()), a.getActivation(),
      a.getEpsilon().convertToDouble(), l1w, l1b, l2w, l2b,
      {n1w, n1b, n2w, n2b});
  if (failed(embed) ||
      failed(checkPackedAttention(diag, *embed, inW, inB, outW, outB)) ||
      failed(checkKeyLengths(diag, a.getKeyLengths(), shapeOf(x.value)[0],
                             "key_lengths")))
    return failure();
  types.push_back(x.value.getType());
  return success();
}
ATTUNE_INFERRED_OP(EncoderLayerOp)

static LogicalResult inferDecoderLayerOp(const Diag &diag,
                                         DecoderLayerOp::Adaptor a,
                                         SmallVectorImpl<Type> &types) {
  Named x{"tgt", a.getTgt()}, mem{"memory", a.getMemory()},
      saW{"self_attn.in_proj_weight", a.getSaInProjWeight()},
      saB{"self_attn.in_proj_bias", a.getSaInProjBias()},
      saOW{"self_attn.out_proj.weight", a.getSaOutProjWeight()},
      saOB{"self_attn.out_proj.bias", a.getSaOutProjBias()},
      caW{"multihead_attn.in_proj_weight", a.getCaInProjWeight()},
      caB{"multihead_attn.in_proj_bias", a.getCaInProjBias()},
      caOW{"multihead_attn.out_proj.weight", a.getCaOutProjWeight()},
      caOB{"multihead_attn.out_proj.bias", a.getCaOutProjBias()},
      l1w{"linear1.weight", a.getLinear1Weight()},
      l1b{"linear1.bias", a.getLinear1Bias()},
      l2w{"linear2.weight", a.getLinear2Weight()},
      l2b{"linear2.bias", a.getLinear2Bias()},
      n1w{"norm1.weight", a.getNorm1Weight()},
      n1b{"norm1.bias", a.getNorm1Bias()},
      n2w{"norm2.weight", a.getNorm2Weight()},
      n2b{"norm2.bias", a.getNorm2Bias()},
      n3w{"norm3.weight", a.getNorm3Weight()},
      n3b{"norm3.bias", a.getNorm3Bias()};
  if (failed(sameElementType(diag, {x, mem, saW, saB, saOW, saOB, caW, caB,
                                    caOW, caOB, l1w, l1b, l2w, l2b, n1w, n1b,
                                    n2w, n2b, n3w, n3b})))
    return failure();
  FailureOr<int64_t> embed = checkLayerCommon(
      diag, x, static_cast<int64_t>(a.getNumHeads()), a.getActivation(),
      a.getEpsilon().convertToDouble(), l1w, l1b, l2w, l2b,
      {n1w, n1b, n2w, n2b, n3w, n3b});
  if (failed(embed) || failed(expectRank(diag, mem, 3, "([B, Ls, E])")))
    return failure();
  ArrayRef<int64_t> ts = shapeOf(x.value), ms = shapeOf(mem.value);
  if (failed(expectDim(diag, "memory dim 0 (B)", ms[0], ts[0], "tgt batch")) ||
      failed(expectDim(diag, "memory dim 2 (E)", ms[2], *embed,
                       "tgt embedding dim")) ||
      failed(checkPackedAttention(diag, *embed, saW, saB, saOW, saOB)) ||
      failed(checkPackedAttention(diag, *embed, caW, caB, caOW, caOB)))
    return failure();
  int64_t batch = refine(ts[0], ms[0]);
  if (failed(checkKeyLengths(diag, a.getTgtKeyLengths(), batch,
                             "tgt_key_lengths")) ||
      failed(checkKeyLengths(diag, a.getMemoryKeyLengths(), batch,
                             "memory_key_lengths")))
    return failure();
  types.push_back(makeTensor({batch, ts[1], *embed}, x.value));
  return success();
}
ATTUNE_INFERRED_OP(DecoderLayerOp)

//===----------------------------------------------------------------------===//
// Recurrent layers
//===----------------------------------------------------------------------===//

static LogicalResult checkNonlinearity(const Diag &diag, Activation act) {
  if (act == Activation::tanh || act == Activation::relu)
    return success();
  return diag() << "nonlinearity must be tanh or relu (as in PyTorch), got "
                << stringifyActivation(act);
}

/// Checks `weight_ih [G*H, in]`, `weight_hh [G*H, H]` and, when present, the
/// two biases at `weights[first..]`. `suffix` names the layer, e.g. "_l1".
static LogicalResult checkGateWeights(const Diag &diag, ValueRange weights,
                                      size_t first, bool biases, int64_t gates,
                                      int64_t hidden, int64_t inFeatures,
                                      StringRef suffix) {
  std::string sfx = suffix.str();
  std::string ih = "weight_ih" + sfx, hh = "weight_hh" + sfx,
              bih = "bias_ih" + sfx, bhh = "bias_hh" + sfx;
  if (failed(expectShape(diag, {ih, weights[first]},
                         {gates * hidden, inFeatures})) ||
      failed(expectShape(diag, {hh, weights[first + 1]},
                         {gates * hidden, hidden})))
    return failure();
  if (biases && (failed(expectShape(diag, {bih, weights[first + 2]},
                                    {gates * hidden})) ||
                 failed(expectShape(diag, {bhh, weights[first + 3]},
                                    {gates * hidden}))))
    return failure();
  return success();
}

/// Shared by rnn, lstm and gru: checks everything and pushes the output, the
/// final hidden state and, when `initialC` is given (LSTM), the final cell
/// state types.
static LogicalResult
inferRecurrent(const Diag &diag, int64_t gates, Value input, ValueRange weights,
               Value initialH, Value initialC, bool isLstm, int64_t hidden,
               int64_t layers, bool bidirectional, bool biases,
               SmallVectorImpl<Type> &types) {
  Named x{"input", input}, h0{"initial_h", initialH}, c0{"initial_c", initialC};
  SmallVector<Named> all = {x, h0, c0};
  for (Value w : weights)
    all.push_back({"weight", w});
  if (failed(sameElementType(diag, all)) ||
      failed(expectRank(diag, x, 3, "([B, T, I])")) ||
      failed(expectStatic(diag, x, 2, "I")) ||
      failed(checkPositive(diag, "hidden_size", hidden)) ||
      failed(checkPositive(diag, "num_layers", layers)))
    return failure();
  int64_t dirs = bidirectional ? 2 : 1;
  int64_t perLayer = biases ? 4 : 2;
  int64_t expected = layers * dirs * perLayer; // layers < 2^31: no overflow
  if (failed(checkPositive(diag, "hidden_size * gates", hidden * gates)))
    return failure();
  if (static_cast<int64_t>(weights.size()) != expected)
    return diag() << "expected " << expected << " weight operands ("
                  << layers << " layer(s) x " << dirs << " direction(s) x "
                  << perLayer << "), got " << weights.size();
  ArrayRef<int64_t> xs = shapeOf(input);
  for (int64_t l = 0; l < layers; ++l) {
    int64_t inFeatures = l == 0 ? xs[2] : dirs * hidden;
    for (int64_t d = 0; d < dirs; ++d) {
      std::string suffix = "_l" + std::to_string(l) + (d ? "_reverse" : "");
      if (failed(checkGateWeights(diag, weights, (l * dirs + d) * perLayer,
                                  biases, gates, hidden, inFeatures, suffix)))
        return failure();
    }
  }
  Shape state = {layers * dirs, xs[0], hidden};
  if (failed(expectShape(diag, h0, state)) ||
      failed(expectShape(diag, c0, state)))
    return failure();
  types.push_back(makeTensor({xs[0], xs[1], dirs * hidden}, input));
  types.push_back(makeTensor(state, input));
  if (isLstm)
    types.push_back(makeTensor(state, input));
  return success();
}

static LogicalResult inferRNNOp(const Diag &diag, RNNOp::Adaptor a,
                                SmallVectorImpl<Type> &types) {
  if (failed(checkNonlinearity(diag, a.getNonlinearity())))
    return failure();
  return inferRecurrent(diag, RNNOp::kNumGates, a.getInput(), a.getWeights(),
                        a.getInitialH(), Value(), /*isLstm=*/false,
                        static_cast<int64_t>(a.getHiddenSize()),
                        static_cast<int64_t>(a.getNumLayers()),
                        a.getBidirectional(), a.getHasBiases(), types);
}
ATTUNE_INFERRED_OP(RNNOp)

static LogicalResult inferLSTMOp(const Diag &diag, LSTMOp::Adaptor a,
                                 SmallVectorImpl<Type> &types) {
  return inferRecurrent(diag, LSTMOp::kNumGates, a.getInput(), a.getWeights(),
                        a.getInitialH(), a.getInitialC(), /*isLstm=*/true,
                        static_cast<int64_t>(a.getHiddenSize()),
                        static_cast<int64_t>(a.getNumLayers()),
                        a.getBidirectional(), a.getHasBiases(), types);
}
ATTUNE_INFERRED_OP(LSTMOp)

static LogicalResult inferGRUOp(const Diag &diag, GRUOp::Adaptor a,
                                SmallVectorImpl<Type> &types) {
  return inferRecurrent(diag, GRUOp::kNumGates, a.getInput(), a.getWeights(),
                        a.getInitialH(), Value(), /*isLstm=*/false,
                        static_cast<int64_t>(a.getHiddenSize()),
                        static_cast<int64_t>(a.getNumLayers()),
                        a.getBidirectional(), a.getHasBiases(), types);
}
ATTUNE_INFERRED_OP(GRUOp)

/// Shared by the cells: `input [B, I]`, `h [B, H]`, optional `c [B, H]` and
/// 2 or 4 gate weights. Pushes one `[B, H]` type per state.
static LogicalResult inferCell(const Diag &diag, int64_t gates, Value input,
                               Value h, Value c, ValueRange weights,
                               SmallVectorImpl<Type> &types) {
  Named x{"input", input}, hn{"h", h}, cn{"c", c};
  SmallVector<Named> all = {x, hn, cn};
  for (Value w : weights)
    all.push_back({"weight", w});
  if (failed(sameElementType(diag, all)) ||
      failed(expectRank(diag, x, 2, "([B, I])")) ||
      failed(expectRank(diag, hn, 2, "([B, H])")) ||
      failed(expectStatic(diag, x, 1, "I")) ||
      failed(expectStatic(diag, hn, 1, "H")))
    return failure();
  if (weights.size() != 2 && weights.size() != 4)
    return diag() << "expected 2 weight operands (weight_ih, weight_hh) or 4 "
                     "(with bias_ih, bias_hh), got "
                  << weights.size();
  ArrayRef<int64_t> xs = shapeOf(input), hs = shapeOf(h);
  int64_t batch = refine(xs[0], hs[0]);
  if (failed(expectDim(diag, "h dim 0 (B)", hs[0], xs[0], "input batch")) ||
      failed(expectShape(diag, cn, {batch, hs[1]})) ||
      failed(checkGateWeights(diag, weights, 0, weights.size() == 4, gates,
                              hs[1], xs[1], "")))
    return failure();
  types.push_back(makeTensor({batch, hs[1]}, input));
  if (c)
    types.push_back(makeTensor({batch, hs[1]}, input));
  return success();
}

static LogicalResult inferRNNCellOp(const Diag &diag, RNNCellOp::Adaptor a,
                                    SmallVectorImpl<Type> &types) {
  if (failed(checkNonlinearity(diag, a.getNonlinearity())))
    return failure();
  return inferCell(diag, RNNCellOp::kNumGates, a.getInput(), a.getH(), Value(),
                   a.getWeights(), types);
}
ATTUNE_INFERRED_OP(RNNCellOp)

static LogicalResult inferLSTMCellOp(const Diag &diag, LSTMCellOp::Adaptor a,
                                     SmallVectorImpl<Type> &types) {
  return inferCell(diag, LSTMCellOp::kNumGates, a.getInput(), a.getH(),
                   a.getC(), a.getWeights(), types);
}
ATTUNE_INFERRED_OP(LSTMCellOp)

static LogicalResult inferGRUCellOp(const Diag &diag, GRUCellOp::Adaptor a,
                                    SmallVectorImpl<Type> &types) {
  return inferCell(diag, GRUCellOp::kNumGates, a.getInput(), a.getH(), Value(),
                   a.getWeights(), types);
}
ATTUNE_INFERRED_OP(GRUCellOp)

#define GET_OP_CLASSES
#include "dialect/AttuneOps.cpp.inc"
