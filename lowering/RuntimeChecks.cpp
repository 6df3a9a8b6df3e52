//===- RuntimeChecks.cpp - dynamic shape checks that report, not abort ----===//

#include "lowering/Passes.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "lowering/AttuneToLinalg/KernelBuilder.h"

#include "mlir/Dialect/ControlFlow/IR/ControlFlowOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Interfaces/RuntimeVerifiableOpInterface.h"

namespace mlir::attune {
#define GEN_PASS_DEF_ATTUNEINSERTRUNTIMECHECKS
#define GEN_PASS_DEF_ATTUNELOWERRUNTIMECHECKS
#include "lowering/Passes.h.inc"
} // namespace mlir::attune

using namespace mlir;

namespace {
struct AttuneInsertRuntimeChecksPass
    : mlir::attune::impl::AttuneInsertRuntimeChecksBase<
          AttuneInsertRuntimeChecksPass> {
  void runOnOperation() override {
    SmallVector<RuntimeVerifiableOpInterface> ops;
    getOperation()->walk([&](RuntimeVerifiableOpInterface op) {
      // Kernel bodies (linalg ops, the parallel loops of attune's own GPU
      // kernels) compute safe indices themselves.
      if (op->getParentOfType<linalg::LinalgOp>() ||
          op->getParentOfType<scf::ParallelOp>() ||
          op->getParentOfType<gpu::LaunchOp>())
        return;
      ops.push_back(op);
    });
    for (RuntimeVerifiableOpInterface op : ops) {
      OpBuilder builder(op);
      op.generateRuntimeVerification(
          builder, op.getLoc(), [](Operation *failing, StringRef reason) {
            return attune::shapeCheckMessage(failing->getLoc(), reason);
          });
    }
  }
};

struct AttuneLowerRuntimeChecksPass
    : mlir::attune::impl::AttuneLowerRuntimeChecksBase<
          AttuneLowerRuntimeChecksPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
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
        "attune_check_handler", LLVM::ZeroAttr::get(ctx));
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
