//===- DropStateResults.cpp - states are updated in place -----------------===//
//
// After one-shot bufferization, a public function's state result must be
// its state argument's buffer; the result goes, the caller's buffer holds
// the new value.
//
//===----------------------------------------------------------------------===//

#include "lowering/Passes.h"
#include "dialect/AttuneDialect.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/BitVector.h"

namespace mlir::attune {
#define GEN_PASS_DEF_ATTUNEDROPSTATERESULTS
#include "lowering/Passes.h.inc"
} // namespace mlir::attune

using namespace mlir;
using namespace mlir::attune;

namespace {

/// The buffer `value` is: through casts, and through loops that carry a
/// buffer and yield it unchanged (a cache written row by row in place).
Value source(Value value) {
  while (true) {
    if (auto cast = value.getDefiningOp<memref::CastOp>()) {
      value = cast.getSource();
      continue;
    }
    if (auto loop = value.getDefiningOp<scf::ForOp>()) {
      unsigned i = cast<OpResult>(value).getResultNumber();
      Value yielded = loop.getYieldedValues()[i];
      if (source(yielded) == loop.getRegionIterArgs()[i]) {
        value = loop.getInitArgs()[i];
        continue;
      }
    }
    return value;
  }
}

struct AttuneDropStateResultsPass
    : mlir::attune::impl::AttuneDropStateResultsBase<AttuneDropStateResultsPass> {
  void runOnOperation() override {
    for (auto func : getOperation().getOps<func::FuncOp>()) {
      if (!func.isPublic() || func.isExternal())
        continue;
      llvm::BitVector drop(func.getNumResults());
      // An encoder's state results are initial values: outputs.
      bool encoder = func->hasAttr(kGenerationEncoderAttr);
      for (unsigned r = 0; r < func.getNumResults(); ++r) {
        auto state = func.getResultAttrOfType<StringAttr>(r, kStateAttr);
        if (!state || encoder)
          continue;
        std::optional<unsigned> arg;
        for (unsigned i = 0; i < func.getNumArguments(); ++i)
          if (func.getArgAttrOfType<StringAttr>(i, kStateAttr) == state)
            arg = i;
        if (!arg) {
          func.emitOpError() << "returns the state '" << state.getValue()
                             << "', which no argument is";
          return signalPassFailure();
        }
        bool inPlace = true;
        func.walk([&](func::ReturnOp ret) {
          inPlace &= source(ret.getOperand(r)) == func.getArgument(*arg);
        });
        if (!inPlace) {
          func.emitOpError()
              << "cannot update the state '" << state.getValue()
              << "' in place: its result is not the argument's buffer (is "
                 "the old value read after it is written?)";
          return signalPassFailure();
        }
        drop.set(r);
      }
      // The contract's marks are the metadata's now.
      func->removeAttr(kGenerationStepAttr);
      func->removeAttr(kGenerationEncoderAttr);
      for (unsigned i = 0; i < func.getNumArguments(); ++i) {
        func.removeArgAttr(i, kStateAttr);
        func.removeArgAttr(i, kContextAttr);
      }
      for (unsigned r = 0; r < func.getNumResults(); ++r)
        if (!drop.test(r))
          for (StringRef mark : {kContextAttr, kStateAttr})
            func.removeResultAttr(r, StringAttr::get(&getContext(), mark));
      if (drop.none())
        continue;
      func.walk([&](func::ReturnOp ret) { ret->eraseOperands(drop); });
      if (failed(func.eraseResults(drop))) {
        func.emitOpError() << "cannot drop its state results";
        return signalPassFailure();
      }
    }
  }
};
} // namespace
