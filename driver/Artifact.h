//===- Artifact.h - emitting the artifact -----------------------*- C++ -*-===//
//
// The last part of the compile flow: the lowered CPU and Vulkan host modules
// become one LLVM module with the runtime's entry wrappers and the metadata
// of attune/artifact.h, optimized and compiled for the target CPU, then an
// object file and a shared library.
//
//===----------------------------------------------------------------------===//

#ifndef ATTUNE_DRIVER_ARTIFACT_H
#define ATTUNE_DRIVER_ARTIFACT_H

#include "attune/artifact.h"

#include "mlir/IR/BuiltinOps.h"

#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/Target/TargetMachine.h"

#include <memory>

namespace mlir::attune::driver {

/// The target machine for `cpu` (empty or "native": this machine, with its
/// features) plus `features` (+f,-f); unknown names are errors, reported on
/// stderr.
std::unique_ptr<llvm::TargetMachine> createTargetMachine(llvm::StringRef cpu,
                                                         llvm::StringRef features);

/// The LLVM module of the artifact: `cpuModule` and `vulkanModule` (either
/// may be null; both in the LLVM dialect) translated and linked, each entry's
/// runtime wrapper added, and `metadata` (completed with the target CPU and
/// its ISA extensions from `tm`) as the metadata global. Null after
/// reporting an error.
std::unique_ptr<llvm::Module>
buildArtifactModule(llvm::LLVMContext &context, ModuleOp cpuModule,
                    ModuleOp vulkanModule, ::attune::artifact::Metadata metadata,
                    llvm::TargetMachine &tm);

/// Optimizes `module` at O3 for `tm` (without loop unrolling: the kernels
/// arrive unrolled where it pays).
void optimize(llvm::Module &module, llvm::TargetMachine &tm);

/// Writes `module` as an object file to `path`.
LogicalResult emitObject(llvm::Module &module, llvm::TargetMachine &tm,
                         llvm::StringRef path);

/// Links `objects` into the shared library `output` with the system driver;
/// `openmp`: the code calls LLVM's OpenMP runtime.
LogicalResult linkSharedLibrary(ArrayRef<std::string> objects,
                                llvm::StringRef output, bool openmp);

} // namespace mlir::attune::driver

#endif // ATTUNE_DRIVER_ARTIFACT_H
