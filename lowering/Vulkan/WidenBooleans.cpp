//===- WidenBooleans.cpp - i1 tensors between kernels as i32 --------------===//
//
// Kernels take f32, f16, bf16, i32 and i64 buffers (SPIR-V storage buffers
// hold no booleans), so every boolean tensor that bufferization would turn
// into a buffer is widened to i32 first: its producers store 0 or 1, its
// linalg readers compare with 0, and boolean inputs and results are i32
// (runtime/vulkan widens the caller's bytes and narrows the results). Types
// change in place, in program order, so a reader sees its operand widened
// before it is visited.
//
//===----------------------------------------------------------------------===//

#include "lowering/Passes.h"

#include "attune/artifact.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

namespace mlir::attune {
#define GEN_PASS_DEF_ATTUNEWIDENBOOLEANS
#include "lowering/Passes.h.inc"
} // namespace mlir::attune

using namespace mlir;

namespace {

bool isBoolTensor(Type t) {
  auto tt = dyn_cast<RankedTensorType>(t);
  return tt && tt.getElementType().isInteger(1);
}

RankedTensorType widened(Type t) {
  auto tt = cast<RankedTensorType>(t);
  return tt.clone(IntegerType::get(t.getContext(), 32));
}

struct AttuneWidenBooleansPass
    : mlir::attune::impl::AttuneWidenBooleansBase<AttuneWidenBooleansPass> {
  void runOnOperation() override {
    func::FuncOp func = getOperation();
    // The instance runs on one function after another.
    widenedValues.clear();
    toErase.clear();
    // Boolean inputs arrive as i32 0 or 1 (the runtime widens the caller's
    // bytes as it uploads them; the metadata still says bool).
    if (!func.isDeclaration()) {
      for (BlockArgument arg : func.getArguments())
        if (isBoolTensor(arg.getType())) {
          arg.setType(widened(arg.getType()));
          widenedValues.insert(arg);
        }
      func.setFunctionType(FunctionType::get(func.getContext(),
                                             func.getBody().getArgumentTypes(),
                                             func.getResultTypes()));
    }
    WalkResult result = func.walk<WalkOrder::PreOrder>([&](Operation *op) {
      return failed(widen(op)) ? WalkResult::interrupt()
                               : WalkResult::advance();
    });
    for (Operation *op : toErase)
      op->erase();
    if (result.wasInterrupted())
      signalPassFailure();
  }

  LogicalResult widen(Operation *op) {
    // Readers: a generic's widened input is compared with 0 in its body.
    if (auto generic = dyn_cast<linalg::GenericOp>(op)) {
      Block &body = generic.getRegion().front();
      OpBuilder b = OpBuilder::atBlockBegin(&body);
      for (OpOperand *in : generic.getDpsInputOperands()) {
        BlockArgument arg = body.getArgument(in->getOperandNumber());
        if (!arg.getType().isInteger(1) || isBoolTensor(in->get().getType()))
          continue;
        arg.setType(b.getI32Type());
        Value zero =
            arith::ConstantOp::create(b, op->getLoc(), b.getI32IntegerAttr(0));
        Value bit = arith::CmpIOp::create(b, op->getLoc(),
                                          arith::CmpIPredicate::ne, arg, zero);
        arg.replaceAllUsesExcept(bit, bit.getDefiningOp());
      }
    }
    bool producesBool = llvm::any_of(op->getResultTypes(), isBoolTensor);
    bool readsWidened = llvm::any_of(
        op->getOperands(), [&](Value v) { return widenedValues.contains(v); });
    bool reshape = isa<tensor::ExpandShapeOp, tensor::CollapseShapeOp,
                       tensor::CastOp, tensor::ExtractSliceOp>(op);
    if (readsWidened && isa<func::ReturnOp>(op)) {
      // Boolean results leave as i32 0 or 1 (the runtime narrows them back
      // to bytes as it reads them back).
      auto func = op->getParentOfType<func::FuncOp>();
      func.setFunctionType(FunctionType::get(
          func.getContext(), func.getArgumentTypes(), op->getOperandTypes()));
      return success();
    }
    if (readsWidened && !reshape && !isa<linalg::GenericOp, tensor::DimOp>(op))
      return op->emitError("a boolean tensor read by '")
             << op->getName()
             << "' is not supported on Vulkan (kernels take f32, f16, bf16, "
                "i32 and i64 buffers); compile it for the CPU";
    if (!producesBool)
      return success();
    // Producers.
    if (auto c = dyn_cast<arith::ConstantOp>(op)) {
      auto dense = dyn_cast<DenseElementsAttr>(c.getValue());
      if (!dense)
        return op->emitError("a boolean constant that is not dense");
      SmallVector<int32_t> values;
      for (bool v : dense.getValues<bool>())
        values.push_back(v);
      OpBuilder b(op);
      auto wide = arith::ConstantOp::create(
          b, op->getLoc(),
          DenseElementsAttr::get(widened(c.getType()), ArrayRef(values)));
      widenedValues.insert(wide.getResult());
      c.replaceAllUsesWith(wide.getResult());
      toErase.push_back(op);
      return success();
    }
    if (auto generic = dyn_cast<linalg::GenericOp>(op)) {
      Block &body = generic.getRegion().front();
      for (OpOperand &init : generic.getDpsInitsMutable()) {
        BlockArgument arg = body.getArgument(init.getOperandNumber());
        if (!arg.getType().isInteger(1))
          continue;
        if (isBoolTensor(init.get().getType()))
          return op->emitError("boolean init not widened: ")
                 << init.get().getType();
        arg.setType(IntegerType::get(op->getContext(), 32));
        if (!arg.use_empty())
          return op->emitError(
              "a kernel that reads its boolean output is not supported on "
              "Vulkan");
      }
      auto yield = cast<linalg::YieldOp>(body.getTerminator());
      OpBuilder b(yield);
      for (OpOperand &v : yield->getOpOperands())
        if (v.get().getType().isInteger(1))
          v.set(arith::ExtUIOp::create(b, yield.getLoc(), b.getI32Type(),
                                       v.get()));
      for (OpResult r : op->getResults())
        if (isBoolTensor(r.getType())) {
          r.setType(widened(r.getType()));
          widenedValues.insert(r);
        }
      return success();
    }
    if (auto fill = dyn_cast<linalg::FillOp>(op)) {
      OpBuilder b(op);
      Value v = fill.getInputs()[0];
      if (v.getType().isInteger(1)) {
        fill.getInputsMutable()[0].set(
            arith::ExtUIOp::create(b, op->getLoc(), b.getI32Type(), v));
        fill.getRegion().front().getArgument(0).setType(b.getI32Type());
        fill.getRegion().front().getArgument(1).setType(b.getI32Type());
      }
      for (OpResult r : op->getResults()) {
        r.setType(widened(r.getType()));
        widenedValues.insert(r);
      }
      return success();
    }
    if (isa<tensor::EmptyOp>(op) || (readsWidened && reshape)) {
      for (OpResult r : op->getResults()) {
        r.setType(widened(r.getType()));
        widenedValues.insert(r);
      }
      return success();
    }
    return op->emitError("a boolean tensor computed by '")
           << op->getName()
           << "' is not supported on Vulkan (kernels take f32, f16, bf16, "
              "i32 and i64 buffers); compile it for the CPU";
  }

  DenseSet<Value> widenedValues;
  SmallVector<Operation *> toErase;
};

} // namespace
