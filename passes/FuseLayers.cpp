//===- FuseLayers.cpp - epilogues and packed projections ------------------===//
//
// Two attune -> attune fusions around the linear layers:
// - attune-fuse-epilogues folds what follows a GEMM or precedes a norm into
//   the op that computes it (a bias add and an activation into
//   attune.linear, a residual add into attune.layer_norm), so the lowering
//   never stores the intermediate;
// - attune-pack-projections turns linear layers that read the same input
//   (Q, K and V projections written separately) into one GEMM over the
//   concatenated weights, sliced afterwards.
// Every step requires that the intermediate has no other use; with
// `explain`, each fusion and each rejected candidate is a remark.
//
//===----------------------------------------------------------------------===//

#include "passes/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "mlir/IR/Matchers.h"

namespace mlir::attune {
#define GEN_PASS_DEF_ATTUNEFUSEEPILOGUES
#define GEN_PASS_DEF_ATTUNEPACKPROJECTIONS
#include "passes/Passes.h.inc"
} // namespace mlir::attune

using namespace mlir;
using namespace mlir::attune;

namespace {

/// Reports a fusion or a rejection when `explain` is set.
struct Explainer {
  bool enabled;
  void operator()(Operation *op, const Twine &message) const {
    if (enabled)
      emitRemark(op->getLoc(), message);
  }
};

//===----------------------------------------------------------------------===//
// Epilogues
//===----------------------------------------------------------------------===//

/// `linear(x, W) + b` with `b` of shape [Out] and no bias yet: the bias
/// becomes the linear's.
void fuseBias(AddOp add, const Explainer &explain) {
  for (auto [mine, other] : {std::pair{add.getLhs(), add.getRhs()},
                             std::pair{add.getRhs(), add.getLhs()}}) {
    auto linear = mine.getDefiningOp<LinearOp>();
    if (!linear)
      continue;
    auto bias = cast<RankedTensorType>(other.getType());
    int64_t out = linear.getType().getShape().back();
    if (bias.getRank() != 1 || bias.getDimSize(0) != out)
      continue;
    if (linear.getBias() || linear.getActivation())
      return explain(add, "bias add not fused into attune.linear: the linear "
                          "already has a bias or an activation");
    if (!linear->hasOneUse())
      return explain(add, "bias add not fused into attune.linear: the "
                          "linear's result has another use");
    if (add.getType() != linear.getType())
      return;
    // The bias must be defined before the linear it joins.
    if (Operation *def = other.getDefiningOp();
        def && (def->getBlock() != linear->getBlock() ||
                !def->isBeforeInBlock(linear)))
      return explain(add, "bias add not fused into attune.linear: the bias "
                          "is computed after the linear");
    linear.getBiasMutable().assign(other);
    linear->setLoc(FusedLoc::get(add.getContext(),
                                 {linear.getLoc(), add.getLoc()}));
    add.replaceAllUsesWith(linear.getResult());
    add.erase();
    return explain(linear, "fused the bias add into attune.linear");
  }
}

/// `activation(linear(...))`: the activation becomes the linear's epilogue.
void fuseActivation(ActivationOp act, const Explainer &explain) {
  auto linear = act.getInput().getDefiningOp<LinearOp>();
  if (!linear)
    return;
  if (linear.getActivation())
    return explain(act, "activation not fused into attune.linear: the linear "
                        "already has one");
  if (!linear->hasOneUse())
    return explain(act, "activation not fused into attune.linear: the "
                        "linear's result has another use");
  linear.setActivation(act.getKind());
  linear->setLoc(FusedLoc::get(act.getContext(),
                               {linear.getLoc(), act.getLoc()}));
  act.replaceAllUsesWith(linear.getResult());
  act.erase();
  explain(linear, "fused the " + stringifyActivation(linear.getActivation()
                                                          .value()) +
                      " activation into attune.linear as its epilogue");
}

/// `layer_norm(x + r)`: the sum is read by the norm and never stored.
void fuseResidual(LayerNormOp norm, const Explainer &explain) {
  auto add = norm.getInput().getDefiningOp<AddOp>();
  if (!add || norm.getResidual())
    return;
  if (!add->hasOneUse())
    return explain(norm, "residual add not fused into attune.layer_norm: the "
                         "sum has another use (a pre-norm residual stream)");
  if (add.getLhs().getType() != add.getType() ||
      add.getRhs().getType() != add.getType())
    return explain(norm, "residual add not fused into attune.layer_norm: the "
                         "add broadcasts");
  norm.getInputMutable().assign(add.getLhs());
  norm.getResidualMutable().assign(add.getRhs());
  norm->setLoc(FusedLoc::get(norm.getContext(), {norm.getLoc(), add.getLoc()}));
  add.erase();
  explain(norm, "fused the residual add into attune.layer_norm");
}

struct AttuneFuseEpiloguesPass
    : mlir::attune::impl::AttuneFuseEpiloguesBase<AttuneFuseEpiloguesPass> {
  using Base::Base;
  void runOnOperation() override {
    Explainer explainer{explain};
    // Bias adds first, so that linear -> add -> activation becomes one op.
    SmallVector<AddOp> adds;
    getOperation()->walk([&](AddOp op) { adds.push_back(op); });
    for (AddOp add : adds)
      fuseBias(add, explainer);
    SmallVector<ActivationOp> acts;
    getOperation()->walk([&](ActivationOp op) { acts.push_back(op); });
    for (ActivationOp act : acts)
      fuseActivation(act, explainer);
    SmallVector<LayerNormOp> norms;
    getOperation()->walk([&](LayerNormOp op) { norms.push_back(op); });
    for (LayerNormOp norm : norms)
      fuseResidual(norm, explainer);
  }
};

//===----------------------------------------------------------------------===//
// Packed projections
//===----------------------------------------------------------------------===//

/// Why `w` cannot be packed, or empty.
std::string unpackableReason(Value w) {
  if (constantBytes(w))
    return {};
  if (w.getDefiningOp<WeightOp>())
    return "the weights are not bound yet (packing runs on constants, after "
           "attune-bind-weights)";
  if (w.getDefiningOp<arith::ConstantOp>())
    return "a weight is a constant whose data cannot be read";
  return "a weight is not a compile-time constant (weights loaded at run "
         "time would be copied on every run)";
}

/// A [rows..., cols] constant concatenating `parts` along dim 0 (bytes of
/// equal row width); a null part is that many rows of zeros.
Value concatConstant(OpBuilder &b, Location loc, RankedTensorType type,
                     ArrayRef<std::pair<Value, int64_t>> parts,
                     StringRef name) {
  size_t width = type.getElementTypeBitWidth() / 8;
  size_t rowBytes = width * (type.getRank() == 2 ? type.getDimSize(1) : 1);
  std::vector<char> bytes;
  bytes.reserve(type.getNumElements() * width);
  for (auto [v, rows] : parts) {
    if (!v) {
      bytes.insert(bytes.end(), rows * rowBytes, 0);
      continue;
    }
    std::vector<char> data = *constantBytes(v);
    bytes.insert(bytes.end(), data.begin(), data.end());
  }
  auto attr = DenseResourceElementsAttr::get(
      type, name,
      HeapAsmResourceBlob::allocateAndCopyWithAlign(bytes, alignof(double)));
  return arith::ConstantOp::create(b, loc, type, attr);
}

void packGroup(ArrayRef<LinearOp> group, const Explainer &explain) {
  for (LinearOp l : group) {
    if (l.getActivation())
      return explain(l, "not packed with the other projections of its input: "
                        "it has an activation");
    if (std::string why = unpackableReason(l.getWeight()); !why.empty())
      return explain(l, "not packed with the other projections of its "
                        "input: " + why);
    if (l.getBias() && !constantBytes(l.getBias()))
      return explain(l, "not packed with the other projections of its "
                        "input: its bias is not a compile-time constant");
  }
  LinearOp first = group.front();
  for (LinearOp l : group)
    if (l->isBeforeInBlock(first))
      first = l;
  auto wType = cast<RankedTensorType>(first.getWeight().getType());
  Type elem = wType.getElementType();
  int64_t in = wType.getDimSize(1), total = 0;
  bool anyBias = false;
  SmallVector<std::pair<Value, int64_t>> weights, biases;
  SmallVector<std::string> names;
  SmallVector<Location> locs;
  for (LinearOp l : group) {
    int64_t out = cast<RankedTensorType>(l.getWeight().getType()).getDimSize(0);
    total += out;
    anyBias |= static_cast<bool>(l.getBias());
    weights.push_back({l.getWeight(), out});
    biases.push_back({l.getBias(), out});
    names.push_back(constantKey(l.getWeight(), "projection"));
    locs.push_back(l.getLoc());
  }
  OpBuilder b(first);
  Location loc = b.getFusedLoc(locs);
  std::string name = llvm::join(names, "+");
  Value w = concatConstant(b, loc, RankedTensorType::get({total, in}, elem),
                           weights, name);
  Value bias = anyBias ? concatConstant(b, loc, RankedTensorType::get({total}, elem),
                                        biases, name + ".bias")
                       : Value();
  auto packed = LinearOp::create(b, loc, first.getInput(), w, bias,
                                 /*activation=*/nullptr);
  // All slices first: the builder inserts before `first`, erased below.
  int64_t axis = packed.getType().getRank() - 1, offset = 0;
  SmallVector<Value> parts;
  for (LinearOp l : group) {
    int64_t out = l.getType().getShape().back();
    parts.push_back(SliceOp::create(b, l.getLoc(), packed, axis, offset, out));
    offset += out;
  }
  for (auto [l, part] : llvm::zip_equal(group, parts)) {
    Operation *op = l;
    op->replaceAllUsesWith(ValueRange{part});
    op->erase();
  }
  explain(packed, "packed " + Twine(group.size()) +
                      " projections of one input into one GEMM (" +
                      Twine(total) + " output features)");
}

struct AttunePackProjectionsPass
    : mlir::attune::impl::AttunePackProjectionsBase<AttunePackProjectionsPass> {
  using Base::Base;
  void runOnOperation() override {
    Explainer explainer{explain};
    // Groups of linears in one block reading one input, in program order.
    llvm::MapVector<std::pair<Value, Block *>, SmallVector<LinearOp>> groups;
    getOperation()->walk([&](LinearOp op) {
      groups[{op.getInput(), op->getBlock()}].push_back(op);
    });
    for (auto &[key, group] : groups)
      if (group.size() > 1)
        packGroup(group, explainer);
  }
};

} // namespace
