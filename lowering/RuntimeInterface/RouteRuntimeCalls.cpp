//===- RouteRuntimeCalls.cpp - the model's calls into the runtime ---------===//
//
// Every function of attune/artifact.h's kRuntimeImports that the lowered
// code declares is called through an exported pointer slot that the runtime
// fills when it opens the model.
//
//===----------------------------------------------------------------------===//

#include "lowering/Passes.h"
#include "attune/artifact.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/BuiltinOps.h"

namespace mlir::attune {
#define GEN_PASS_DEF_ATTUNEROUTERUNTIMECALLS
#include "lowering/Passes.h.inc"
} // namespace mlir::attune

using namespace mlir;

namespace {
struct AttuneRouteRuntimeCallsPass
    : mlir::attune::impl::AttuneRouteRuntimeCallsBase<
          AttuneRouteRuntimeCallsPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    MLIRContext *ctx = &getContext();
    auto ptr = LLVM::LLVMPointerType::get(ctx);
    for (const ::attune::artifact::RuntimeImport &route :
         ::attune::artifact::kRuntimeImports) {
      auto decl = module.lookupSymbol<LLVM::LLVMFuncOp>(route.callee);
      if (!decl || !decl.isExternal())
        continue;
      for (StringRef name : {route.wrapper, route.slot})
        if (Operation *clash = module.lookupSymbol(name)) {
          clash->emitError() << "attune-route-runtime-calls: the module "
                                "already defines '"
                             << name << "'";
          return signalPassFailure();
        }
      if (failed(SymbolTable::replaceAllSymbolUses(
              decl, StringAttr::get(ctx, route.wrapper), module)))
        return signalPassFailure();
      Location loc = decl.getLoc();
      OpBuilder b = OpBuilder::atBlockEnd(module.getBody());
      // The exported slot: libc's function, or null, until the runtime
      // writes its own.
      auto slot = LLVM::GlobalOp::create(b, loc, ptr, /*isConstant=*/false,
                                         LLVM::Linkage::External, route.slot,
                                         Attribute());
      Block *init = new Block();
      slot.getInitializerRegion().push_back(init);
      b.setInsertionPointToStart(init);
      Value initial =
          route.libcFallback
              ? Value(LLVM::AddressOfOp::create(b, loc, decl))
              : Value(LLVM::ZeroOp::create(b, loc, ptr));
      LLVM::ReturnOp::create(b, loc, ValueRange{initial});
      // The function the code calls: an indirect call through the slot.
      b.setInsertionPointToEnd(module.getBody());
      LLVM::LLVMFunctionType type = decl.getFunctionType();
      auto fn = LLVM::LLVMFuncOp::create(b, loc, route.wrapper, type,
                                         LLVM::Linkage::Internal);
      Block *entry = fn.addEntryBlock(b);
      b.setInsertionPointToStart(entry);
      Value target = LLVM::LoadOp::create(
          b, loc, ptr, LLVM::AddressOfOp::create(b, loc, slot));
      SmallVector<Value> operands = {target};
      llvm::append_range(operands, entry->getArguments());
      auto call = LLVM::CallOp::create(b, loc, type, operands);
      LLVM::ReturnOp::create(b, loc, call.getResults());
      // Nothing but the fallback may name the callee any more: the library
      // needs no symbol of the runtime.
      if (!route.libcFallback)
        decl.erase();
    }
  }
};
} // namespace
