//===- KernelTable.cpp - the Vulkan kernel table in the IR ----------------===//

#include "lowering/Vulkan/KernelTable.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "llvm/ADT/StringExtras.h"

using namespace mlir;
using namespace mlir::attune;

namespace {
constexpr StringLiteral kLoc = "loc", kModule = "module", kEntry = "entry",
                        kBuffers = "buffers", kPush = "push_constants",
                        kWorkgroup = "workgroup", kSubgroup = "subgroup",
                        kSpirvSymbol = "spirv_symbol",
                        kSpirvBytes = "spirv_bytes", kSymbol = "symbol",
                        kBytes = "bytes";
} // namespace

DictionaryAttr vulkan::kernelRecord(Builder &b, StringRef where,
                                    StringRef gpuModule, StringRef entry,
                                    int64_t buffers, int64_t pushConstants,
                                    ArrayRef<int32_t> workgroup,
                                    int64_t subgroup) {
  NamedAttribute fields[] = {
      b.getNamedAttr(kLoc, b.getStringAttr(where)),
      b.getNamedAttr(kModule, b.getStringAttr(gpuModule)),
      b.getNamedAttr(kEntry, b.getStringAttr(entry)),
      b.getNamedAttr(kBuffers, b.getI64IntegerAttr(buffers)),
      b.getNamedAttr(kPush, b.getI64IntegerAttr(pushConstants)),
      b.getNamedAttr(kWorkgroup, b.getDenseI32ArrayAttr(workgroup)),
      b.getNamedAttr(kSubgroup, b.getI64IntegerAttr(subgroup))};
  return b.getDictionaryAttr(fields);
}

StringRef vulkan::kernelModule(DictionaryAttr record) {
  auto name = record.getAs<StringAttr>(kModule);
  return name ? name.getValue() : StringRef();
}

DictionaryAttr vulkan::withSpirv(DictionaryAttr record, StringRef symbol,
                                 int64_t bytes) {
  Builder b(record.getContext());
  NamedAttrList fields(record);
  fields.set(kSpirvSymbol, b.getStringAttr(symbol));
  fields.set(kSpirvBytes, b.getI64IntegerAttr(bytes));
  return fields.getDictionary(record.getContext());
}

DictionaryAttr vulkan::globalRecord(Builder &b, StringAttr symbol,
                                    int64_t bytes) {
  NamedAttribute fields[] = {b.getNamedAttr(kSymbol, symbol),
                             b.getNamedAttr(kBytes, b.getI64IntegerAttr(bytes))};
  return b.getDictionaryAttr(fields);
}

LogicalResult
vulkan::readKernelTable(ModuleOp module,
                        std::vector<::attune::artifact::KernelSpec> &kernels,
                        std::vector<::attune::artifact::GlobalSpec> &globals) {
  auto kernelTable = module->getAttrOfType<ArrayAttr>(kKernelsAttr);
  auto globalTable = module->getAttrOfType<ArrayAttr>(kGlobalsAttr);
  if (!kernelTable || !globalTable)
    return module.emitError("the Vulkan pipeline left no kernel table");
  for (Attribute a : kernelTable) {
    auto d = dyn_cast<DictionaryAttr>(a);
    auto where = d ? d.getAs<StringAttr>(kLoc) : nullptr;
    auto gpuModule = d ? d.getAs<StringAttr>(kModule) : nullptr;
    auto entry = d ? d.getAs<StringAttr>(kEntry) : nullptr;
    auto symbol = d ? d.getAs<StringAttr>(kSpirvSymbol) : nullptr;
    auto bytes = d ? d.getAs<IntegerAttr>(kSpirvBytes) : nullptr;
    auto buffers = d ? d.getAs<IntegerAttr>(kBuffers) : nullptr;
    auto push = d ? d.getAs<IntegerAttr>(kPush) : nullptr;
    auto workgroup = d ? d.getAs<DenseI32ArrayAttr>(kWorkgroup) : nullptr;
    if (!where || !gpuModule || !entry || !symbol || !bytes || !buffers ||
        !push || !workgroup || workgroup.size() != 3)
      return module.emitError("incomplete Vulkan kernel record ") << a;
    ::attune::artifact::KernelSpec k;
    // The metadata separates fields by white space.
    std::string loc = where.str();
    for (char &c : loc)
      if (llvm::isSpace(c))
        c = '_';
    k.where = gpuModule.str() + "@" + loc;
    k.entry = entry.str();
    k.symbol = symbol.str();
    k.bytes = bytes.getInt();
    k.buffers = buffers.getInt();
    k.pushConstants = push.getInt();
    for (int i = 0; i < 3; ++i)
      k.workgroup[i] = workgroup[i];
    if (auto subgroup = d.getAs<IntegerAttr>(kSubgroup))
      k.subgroup = subgroup.getInt();
    kernels.push_back(std::move(k));
  }
  for (Attribute a : globalTable) {
    auto d = dyn_cast<DictionaryAttr>(a);
    auto symbol = d ? d.getAs<StringAttr>(kSymbol) : nullptr;
    auto bytes = d ? d.getAs<IntegerAttr>(kBytes) : nullptr;
    if (!symbol || !bytes)
      return module.emitError("incomplete Vulkan global record ") << a;
    globals.push_back({symbol.str(), size_t(bytes.getInt())});
  }
  return success();
}
