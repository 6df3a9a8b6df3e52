//===- LowerRuntimeChecks.cpp - failed checks reported, not aborted -------===//
//
// A model must not kill its host process for bad input: each cf.assert
// branches to a call of the runtime's check handler (see the pass
// description in Passes.td).
//
//===----------------------------------------------------------------------===//

#include "lowering/Passes.h"
#include "attune/artifact.h"
#include "lowering/AttuneToLinalg/AttuneToLinalg.h"

#include "mlir/Dialect/ControlFlow/IR/ControlFlowOps.h"
#include "mlir/Dialect/LLVMIR/FunctionCallUtils.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/BuiltinOps.h"

namespace mlir::attune {
#define GEN_PASS_DEF_ATTUNELOWERRUNTIMECHECKS
#include "lowering/Passes.h.inc"
} // namespace mlir::attune

using namespace mlir;

namespace {
/// The messages of the deferred checks (the convert-attune-to-linalg
/// module attribute) as the artifact's kVulkanCheckMessages: each
/// NUL-terminated, in id order, then an empty one.
void emitDeferredCheckMessages(ModuleOp module) {
  auto table = module->getAttrOfType<ArrayAttr>(
      mlir::attune::kDeferredCheckMessagesAttr);
  if (!table)
    return;
  std::string text;
  for (Attribute a : table)
    text += cast<StringAttr>(a).getValue().str() + '\0';
  text.push_back('\0');
  OpBuilder b = OpBuilder::atBlockEnd(module.getBody());
  MLIRContext *ctx = module.getContext();
  auto type =
      LLVM::LLVMArrayType::get(IntegerType::get(ctx, 8), text.size());
  LLVM::GlobalOp::create(b, module.getLoc(), type, /*isConstant=*/true,
                         LLVM::Linkage::External,
                         ::attune::artifact::kVulkanCheckMessages,
                         b.getStringAttr(text));
  module->removeAttr(mlir::attune::kDeferredCheckMessagesAttr);
}

struct AttuneLowerRuntimeChecksPass
    : mlir::attune::impl::AttuneLowerRuntimeChecksBase<
          AttuneLowerRuntimeChecksPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    emitDeferredCheckMessages(module);
    SmallVector<cf::AssertOp> asserts;
    module.walk([&](cf::AssertOp op) { asserts.push_back(op); });
    if (asserts.empty())
      return;
    MLIRContext *ctx = &getContext();
    auto ptr = LLVM::LLVMPointerType::get(ctx);
    OpBuilder mb = OpBuilder::atBlockBegin(module.getBody());
    // void (*attune_check_handler)(const char *), set by the runtime.
    auto handler = LLVM::GlobalOp::create(
        mb, module.getLoc(), ptr, /*isConstant=*/false, LLVM::Linkage::External,
        ::attune::artifact::kCheckHandler, LLVM::ZeroAttr::get(ctx));
    unsigned count = 0;
    for (cf::AssertOp op : asserts) {
      OpBuilder b(op);
      Location loc = op.getLoc();
      Block *before = op->getBlock();
      Block *after = before->splitBlock(op);
      Region *region = before->getParent();
      Block *fail = new Block();
      region->getBlocks().insert(std::next(Region::iterator(after)), fail);
      b.setInsertionPointToEnd(before);
      LLVM::CondBrOp::create(b, loc, op.getArg(), after, ValueRange{}, fail,
                             ValueRange{});
      b.setInsertionPointToEnd(fail);
      // createGlobalString does not NUL-terminate; the handler reads a C
      // string.
      std::string text = op.getMsg().str();
      text.push_back('\0');
      Value message = LLVM::createGlobalString(
          loc, b, ("attune_check_message_" + Twine(count++)).str(), text,
          LLVM::Linkage::Internal);
      Value slot = LLVM::AddressOfOp::create(b, loc, handler);
      Value fn = LLVM::LoadOp::create(b, loc, ptr, slot);
      LLVM::CallOp::create(b, loc, LLVM::LLVMFunctionType::get(
                                       LLVM::LLVMVoidType::get(ctx), {ptr}),
                           ValueRange{fn, message});
      LLVM::UnreachableOp::create(b, loc);
      op.erase();
    }
  }
};

} // namespace
