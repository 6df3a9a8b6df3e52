//===- UnrollRepeat.cpp - attune.repeat as its iterations -----------------===//
//
// attune-unroll-repeat: each attune.repeat becomes `count` copies of its
// body, the weights of copy i named by the repeat's prefix for i. Runs
// before the weights are bound (the names must be final by then).
//
//===----------------------------------------------------------------------===//

#include "passes/Passes.h"

#include "mlir/IR/IRMapping.h"

namespace mlir::attune {
#define GEN_PASS_DEF_ATTUNEUNROLLREPEAT
#include "passes/Passes.h.inc"
} // namespace mlir::attune

using namespace mlir;
using namespace mlir::attune;

namespace {

struct AttuneUnrollRepeatPass
    : mlir::attune::impl::AttuneUnrollRepeatBase<AttuneUnrollRepeatPass> {
  void runOnOperation() override {
    // Innermost first (post-order): an outer copy then clones expanded
    // inner bodies, and its prefix goes in front of theirs.
    SmallVector<RepeatOp> repeats;
    getOperation()->walk([&](RepeatOp op) { repeats.push_back(op); });
    for (RepeatOp repeat : repeats) {
      Block &body = repeat.getBody().front();
      auto yield = cast<YieldOp>(body.getTerminator());
      OpBuilder b(repeat);
      SmallVector<Value> current(repeat.getInits());
      for (int64_t i = 0; i < repeat.getCount(); ++i) {
        IRMapping map;
        map.map(body.getArguments(), current);
        for (Operation &op : body.without_terminator()) {
          Operation *copy = b.clone(op, map);
          copy->walk([&](WeightOp weight) {
            weight.setName(repeat.weightName(i, weight.getName()));
          });
        }
        for (auto [j, v] : llvm::enumerate(yield.getValues()))
          current[j] = map.lookupOrDefault(v);
      }
      repeat->replaceAllUsesWith(current);
      repeat->erase();
    }
  }
};

} // namespace
