//===- FuseEpilogues.cpp - epilogues into linears and norms -----------------===//
//
// attune-fuse-epilogues folds what follows a GEMM or precedes a norm into
// the op that computes it (a bias add and an activation into attune.linear,
// a residual add into attune.layer_norm), so the lowering never stores the
// intermediate. Every step requires that the intermediate has no other use;
// with `explain`, each fusion and each rejected candidate is a remark.
//
//===----------------------------------------------------------------------===//

#include "passes/Explainer.h"
#include "passes/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "mlir/IR/Matchers.h"

namespace mlir::attune {
#define GEN_PASS_DEF_ATTUNEFUSEEPILOGUES
#include "passes/Passes.h.inc"
} // namespace mlir::attune

using namespace mlir;
using namespace mlir::attune;

namespace {

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

} // namespace
