//===- MarkWritableArgs.cpp - only states are written in place ------------===//
//
// The caller's inputs come back unchanged; a generation state's buffer
// receives its new value.
//
//===----------------------------------------------------------------------===//

#include "lowering/Passes.h"
#include "dialect/AttuneDialect.h"

#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"

namespace mlir::attune {
#define GEN_PASS_DEF_ATTUNEMARKWRITABLEARGS
#include "lowering/Passes.h.inc"
} // namespace mlir::attune

using namespace mlir;
using namespace mlir::attune;

namespace {
struct AttuneMarkWritableArgsPass
    : mlir::attune::impl::AttuneMarkWritableArgsBase<AttuneMarkWritableArgsPass> {
  void runOnOperation() override {
    Builder b(&getContext());
    for (auto func : getOperation().getOps<func::FuncOp>()) {
      if (!func.isPublic() || func.isExternal())
        continue;
      for (unsigned i = 0; i < func.getNumArguments(); ++i)
        if (isa<TensorType>(func.getArgument(i).getType()))
          func.setArgAttr(
              i, bufferization::BufferizationDialect::kWritableAttrName,
              b.getBoolAttr(static_cast<bool>(
                  func.getArgAttrOfType<StringAttr>(i, kStateAttr))));
    }
  }
};
} // namespace
