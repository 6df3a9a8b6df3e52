//===- KernelTable.h - the Vulkan kernel table in the IR --------*- C++ -*-===//
//
// attune-vulkan-abi records each kernel (and each global the host code
// reads) as a dictionary in a module attribute; attune-serialize-spirv adds
// the SPIR-V symbol and size; the compile flow reads them into the
// artifact's KernelSpec and GlobalSpec (attune/artifact.h). The dictionary
// keys live here only.
//
//===----------------------------------------------------------------------===//

#ifndef ATTUNE_LOWERING_VULKAN_KERNELTABLE_H
#define ATTUNE_LOWERING_VULKAN_KERNELTABLE_H

#include "attune/artifact.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"

#include <vector>

namespace mlir::attune::vulkan {

/// The module attributes holding the tables.
inline constexpr llvm::StringLiteral kKernelsAttr = "attune.vulkan.kernels";
inline constexpr llvm::StringLiteral kGlobalsAttr = "attune.vulkan.globals";

/// A kernel's record before serialization.
DictionaryAttr kernelRecord(Builder &b, StringRef where, StringRef gpuModule,
                            StringRef entry, int64_t buffers,
                            int64_t pushConstants, ArrayRef<int32_t> workgroup,
                            int64_t subgroup);
/// The gpu.module of a kernel's record.
StringRef kernelModule(DictionaryAttr record);
/// `record` with its SPIR-V global and size.
DictionaryAttr withSpirv(DictionaryAttr record, StringRef symbol,
                         int64_t bytes);
/// A global's record.
DictionaryAttr globalRecord(Builder &b, StringAttr symbol, int64_t bytes);

/// The tables of a module that went through the Vulkan pipeline; an error
/// (on the module) if they are missing or incomplete.
LogicalResult readKernelTable(ModuleOp module,
                              std::vector<::attune::artifact::KernelSpec> &kernels,
                              std::vector<::attune::artifact::GlobalSpec> &globals);

} // namespace mlir::attune::vulkan

#endif // ATTUNE_LOWERING_VULKAN_KERNELTABLE_H
