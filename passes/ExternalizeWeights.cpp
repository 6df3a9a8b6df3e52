//===- ExternalizeWeights.cpp - attune.weight -> globals filled at load ---===//

#include "passes/Passes.h"

#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Interfaces/FunctionInterfaces.h"

#include <map>

namespace mlir::attune {
#define GEN_PASS_DEF_ATTUNEEXTERNALIZEWEIGHTS
#include "passes/Passes.h.inc"
} // namespace mlir::attune

using namespace mlir;
using namespace mlir::attune;

namespace {
struct AttuneExternalizeWeightsPass
    : mlir::attune::impl::AttuneExternalizeWeightsBase<
          AttuneExternalizeWeightsPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    MLIRContext *ctx = &getContext();
    std::map<std::string, memref::GlobalOp> globals;
    std::map<std::pair<Region *, std::string>, Value> views;
    OpBuilder moduleBuilder = OpBuilder::atBlockBegin(module.getBody());
    bool ok = true;
    module.walk([&](WeightOp op) {
      RankedTensorType type = op.getType();
      auto memrefType = MemRefType::get(type.getShape(), type.getElementType());
      memref::GlobalOp &global = globals[op.getName().str()];
      if (!global) {
        std::string symbol = "attune_weight_" + std::to_string(globals.size() - 1);
        global = memref::GlobalOp::create(
            moduleBuilder, op.getLoc(), symbol, /*sym_visibility=*/StringAttr(),
            memrefType, /*initial_value=*/UnitAttr::get(ctx),
            /*constant=*/false, moduleBuilder.getI64IntegerAttr(64));
        global->setAttr(kWeightNameAttr, op.getNameAttr());
      } else if (global.getType() != memrefType) {
        op.emitOpError() << "weight '" << op.getName() << "' is declared "
                         << type << " here and with another type elsewhere";
        ok = false;
        return;
      }
      // One read-only view per function and weight: `restrict` promises
      // that no other to_tensor aliases the buffer.
      Region *body = op->getParentOfType<FunctionOpInterface>()
                         ? &op->getParentOfType<FunctionOpInterface>()
                                ->getRegion(0)
                         : op->getParentRegion();
      Value &view = views[{body, global.getSymName().str()}];
      if (!view) {
        OpBuilder b = OpBuilder::atBlockBegin(&body->front());
        Value m = memref::GetGlobalOp::create(b, op.getLoc(), memrefType,
                                              global.getSymName());
        view = bufferization::ToTensorOp::create(b, op.getLoc(), type, m,
                                                 /*restrict=*/true);
      }
      op.replaceAllUsesWith(view);
      op.erase();
    });
    if (!ok)
      signalPassFailure();
  }
};
} // namespace
