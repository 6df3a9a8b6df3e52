//===- WidenHalf.cpp - half-precision ops compute in f32 ------------------===//
//
// attune-widen-half: each computing attune op with f16/bf16 operands or
// results runs in f32 between casts (see its description in Passes.td).
//
//===----------------------------------------------------------------------===//

#include "passes/Passes.h"

#include "mlir/IR/TypeUtilities.h"

namespace mlir::attune {
#define GEN_PASS_DEF_ATTUNEWIDENHALF
#include "passes/Passes.h.inc"
} // namespace mlir::attune

using namespace mlir;
using namespace mlir::attune;

namespace {

bool isHalf(Type t) {
  Type e = getElementTypeOrSelf(t);
  return e.isF16() || e.isBF16();
}

/// Ops that only move or select elements: exact in any float type.
bool movesData(Operation *op) {
  return isa<TransposeOp, SplitHeadsOp, MergeHeadsOp, SliceOp, ConcatOp,
             ExpandDimsOp, SqueezeOp, EmbeddingOp, CastOp, WeightOp, RepeatOp,
             CacheWriteOp, OverwriteOp, SelectLastOp, MaskBiasOp,
             YieldOp>(op);
}

Type widened(Type t) {
  auto tensor = dyn_cast<RankedTensorType>(t);
  if (!tensor || !isHalf(tensor))
    return t;
  return tensor.clone(Float32Type::get(t.getContext()));
}

struct AttuneWidenHalfPass
    : mlir::attune::impl::AttuneWidenHalfBase<AttuneWidenHalfPass> {
  void runOnOperation() override {
    SmallVector<Operation *> ops;
    getOperation()->walk([&](Operation *op) {
      if (!isa<AttuneDialect>(op->getDialect()) || movesData(op))
        return;
      if (llvm::any_of(op->getOperandTypes(), isHalf) ||
          llvm::any_of(op->getResultTypes(), isHalf))
        ops.push_back(op);
    });
    for (Operation *op : ops) {
      OpBuilder b(op);
      for (OpOperand &operand : op->getOpOperands()) {
        Type wide = widened(operand.get().getType());
        if (wide != operand.get().getType())
          operand.set(CastOp::create(b, op->getLoc(), wide, operand.get()));
      }
      b.setInsertionPointAfter(op);
      for (OpResult result : op->getResults()) {
        Type narrow = result.getType();
        Type wide = widened(narrow);
        if (wide == narrow)
          continue;
        result.setType(wide);
        auto back = CastOp::create(b, op->getLoc(), narrow, result);
        result.replaceAllUsesExcept(back, back);
      }
    }
  }
};

} // namespace
