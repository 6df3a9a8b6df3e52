//===- SerializeSpirv.cpp - SPIR-V kernels into byte-array globals --------===//

#include "lowering/Passes.h"
#include "lowering/Vulkan/KernelTable.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/SPIRV/IR/SPIRVOps.h"
#include "mlir/Target/SPIRV/Serialization.h"
#include "llvm/ADT/StringMap.h"

namespace mlir::attune {
#define GEN_PASS_DEF_ATTUNESERIALIZESPIRV
#include "lowering/Passes.h.inc"
} // namespace mlir::attune

using namespace mlir;
using namespace mlir::attune;

namespace {
struct AttuneSerializeSpirvPass
    : mlir::attune::impl::AttuneSerializeSpirvBase<AttuneSerializeSpirvPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    MLIRContext *ctx = &getContext();
    auto kernels = module->getAttrOfType<ArrayAttr>(vulkan::kKernelsAttr);
    if (!kernels) {
      module.emitError() << "has no " << vulkan::kKernelsAttr
                         << " attribute; run attune-vulkan-abi first";
      return signalPassFailure();
    }
    llvm::StringMap<std::pair<std::string, int64_t>> blobs;
    OpBuilder b = OpBuilder::atBlockEnd(module.getBody());
    for (auto spv : llvm::make_early_inc_range(module.getOps<spirv::ModuleOp>())) {
      StringRef name = spv.getName().value_or("");
      name.consume_front("__spv__");
      // spirv-lower-abi-attrs gives every interface variable a binding;
      // the push-constant block must have none (VUID-...-06491).
      spv.walk([](spirv::GlobalVariableOp var) {
        auto ptr = cast<spirv::PointerType>(var.getType());
        if (ptr.getStorageClass() == spirv::StorageClass::PushConstant) {
          var->removeAttr("binding");
          var->removeAttr("descriptor_set");
        }
      });
      SmallVector<uint32_t> words;
      if (failed(spirv::serialize(spv, words))) {
        spv.emitError() << "cannot be serialized to SPIR-V";
        return signalPassFailure();
      }
      std::string symbol = (::attune::artifact::kSpirvPrefix + name).str();
      StringRef bytes(reinterpret_cast<const char *>(words.data()),
                      words.size() * sizeof(uint32_t));
      auto type = LLVM::LLVMArrayType::get(IntegerType::get(ctx, 8),
                                           bytes.size());
      LLVM::GlobalOp::create(b, spv.getLoc(), type, /*isConstant=*/true,
                             LLVM::Linkage::External, symbol,
                             b.getStringAttr(bytes), /*alignment=*/4);
      blobs[name] = {symbol, (int64_t)bytes.size()};
      spv.erase();
    }
    SmallVector<Attribute> updated;
    for (Attribute a : kernels) {
      auto kernel = cast<DictionaryAttr>(a);
      StringRef gpuModule = vulkan::kernelModule(kernel);
      auto it = blobs.find(gpuModule);
      if (it == blobs.end()) {
        module.emitError() << "kernel module '" << gpuModule
                           << "' was not converted to SPIR-V";
        return signalPassFailure();
      }
      updated.push_back(
          vulkan::withSpirv(kernel, it->second.first, it->second.second));
    }
    module->setAttr(vulkan::kKernelsAttr, ArrayAttr::get(ctx, updated));
    for (auto gm : llvm::make_early_inc_range(module.getOps<gpu::GPUModuleOp>()))
      gm.erase();
    module->removeAttr(gpu::GPUDialect::getContainerModuleAttrName());
  }
};

} // namespace
