//===- OutlineLayers.cpp - identical layers compiled once -----------------===//
//
// attune-outline-layers: a stack of layers that are the same computation
// with different weights (12 attune.encoder_layer ops of one shape, each
// with its own constants) becomes one private function, called once per
// layer with that layer's weights. The pipeline then compiles the layer
// once; attune-hoist-weight-preparation later moves what the function does
// to its weights alone (transposes, packing) back to the callers, where it
// folds into each layer's constants.
//
//===----------------------------------------------------------------------===//

#include "passes/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/SymbolTable.h"

#include <map>

namespace mlir::attune {
#define GEN_PASS_DEF_ATTUNEOUTLINELAYERS
#include "passes/Passes.h.inc"
} // namespace mlir::attune

using namespace mlir;
using namespace mlir::attune;

bool mlir::attune::isWeightValue(Value v) {
  Operation *def = v.getDefiningOp();
  if (!def)
    return false;
  if (isa<arith::ConstantOp>(def))
    return isa<RankedTensorType>(v.getType());
  // An external weight: a global filled at load (attune-externalize-weights).
  if (auto toTensor = dyn_cast<bufferization::ToTensorOp>(def))
    return toTensor.getBuffer().getDefiningOp<memref::GetGlobalOp>() !=
           nullptr;
  return false;
}

namespace {

/// What makes two layer ops the same computation: the op, its attributes
/// (inherent ones included: they live in the op's properties), its operand
/// and result types, and which operands are weights.
std::string signature(Operation *op) {
  std::string key;
  llvm::raw_string_ostream os(key);
  os << op->getName() << op->getAttrDictionary() << "(";
  for (Value v : op->getOperands())
    os << v.getType() << (isWeightValue(v) ? "w" : "") << ",";
  os << ")->(";
  for (Type t : op->getResultTypes())
    os << t << ",";
  os << ")";
  return key;
}

/// The ops that are whole layers, worth a function of their own.
bool isLayer(Operation *op) {
  return isa<EncoderLayerOp, DecoderLayerOp>(op) &&
         llvm::any_of(op->getOperands(), isWeightValue);
}

struct AttuneOutlineLayersPass
    : mlir::attune::impl::AttuneOutlineLayersBase<AttuneOutlineLayersPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    MLIRContext *ctx = &getContext();
    SymbolTable symbols(module);
    for (auto func : llvm::to_vector(module.getOps<func::FuncOp>())) {
      if (func.isExternal())
        continue;
      // Layers by signature, in order of first appearance.
      std::map<std::string, SmallVector<Operation *>> groups;
      SmallVector<std::string> order;
      func.walk([&](Operation *op) {
        if (!isLayer(op))
          return;
        std::string key = signature(op);
        if (!groups.count(key))
          order.push_back(key);
        groups[key].push_back(op);
      });
      for (const std::string &key : order) {
        SmallVector<Operation *> &layers = groups[key];
        if (layers.size() < 2)
          continue;
        Operation *first = layers.front();
        // The layer function: every operand an argument (weights marked),
        // the op cloned, its results returned.
        OpBuilder b = OpBuilder::atBlockEnd(module.getBody());
        auto type = FunctionType::get(ctx, first->getOperandTypes(),
                                      first->getResultTypes());
        std::string name = (func.getSymName() + "_" +
                            first->getName().stripDialect())
                               .str();
        auto layerFunc =
            func::FuncOp::create(b, first->getLoc(), name, type);
        layerFunc.setPrivate();
        symbols.insert(layerFunc);
        for (auto [i, v] : llvm::enumerate(first->getOperands()))
          if (isWeightValue(v))
            layerFunc.setArgAttr(i, kWeightArgAttr, UnitAttr::get(ctx));
        Block *body = layerFunc.addEntryBlock();
        b.setInsertionPointToStart(body);
        // Operand by operand: a value layer 0 passes twice (one norm's
        // weights for both norms) may be two values in other layers.
        Operation *clone = b.clone(*first);
        clone->setOperands(body->getArguments());
        func::ReturnOp::create(b, first->getLoc(), clone->getResults());
        // Each layer calls it with its own operands.
        for (Operation *layer : layers) {
          OpBuilder cb(layer);
          auto call = func::CallOp::create(cb, layer->getLoc(), layerFunc,
                                           layer->getOperands());
          layer->replaceAllUsesWith(call.getResults());
          layer->erase();
        }
      }
    }
  }
};

} // namespace
