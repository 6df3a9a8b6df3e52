//===- Compile.h - the compile flow: model -> artifact ----------*- C++ -*-===//
//
// The library behind attune-compile: options -> parse -> validate the entry
// points -> bind (or externalize) the weights -> the CPU and/or Vulkan
// pipelines -> the artifact (driver/Artifact.h). Tools and tests call it;
// tools/attune-compile is its command line.
//
//===----------------------------------------------------------------------===//

#ifndef ATTUNE_DRIVER_COMPILE_H
#define ATTUNE_DRIVER_COMPILE_H

#include "lowering/Passes.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/DialectRegistry.h"

#include <optional>
#include <string>

#include <vector>

namespace llvm {
class SourceMgr;
namespace cl {
class OptionCategory;
} // namespace cl
} // namespace llvm

namespace mlir::attune::driver {

/// What to produce: a stage of the flow (attune-compile --emit=).
enum class Emit {
  Attune,   // decomposed and fused attune ops
  Linalg,   // linalg on tensors
  Gpu,      // outlined GPU kernels (Vulkan)
  Spirv,    // SPIR-V kernels and the dispatch calls (Vulkan)
  LLVMMLIR, // the LLVM dialect
  LLVMIR,   // optimized LLVM IR
  Obj,      // an object file
  Lib,      // the shared library the runtime opens (the default)
};

struct CompileOptions {
#define ATTUNE_DRIVER_OPTION(TYPE, FIELD, FLAG, DEFAULT, VALUE_NAME, HELP)     \
  TYPE FIELD = DEFAULT;
#include "driver/Options.def"
  /// attune-cpu-pipeline's and attune-vulkan-pipeline's options.
  CpuOptions cpuPipeline;
  VulkanOptions vulkanPipeline;
  Emit emit = Emit::Lib;
  /// --attention-maps[=SELECTION]: return the selected attentions' weights
  /// as outputs (attune-expose-attention-maps; empty selection: all).
  std::optional<std::string> attentionMaps;
  /// Where the result goes ("-": stdout, for the textual stages).
  std::string output = "-";
};

/// Registers every option of `options` as a command-line option bound to
/// it (grouped: Attune's options, then the pipelines'), plus --emit. Call
/// once, before llvm::cl::ParseCommandLineOptions; `options` must outlive
/// the parse.
void registerCompileOptions(CompileOptions &options);
/// The categories of those options (for llvm::cl::HideUnrelatedOptions).
std::vector<llvm::cl::OptionCategory *> optionCategories();

/// The dialects, extensions and translations the flow needs.
void registerCompilerDialects(DialectRegistry &registry);

/// Compiles the model in `sourceMgr`'s main buffer. Errors are reported
/// through the context's diagnostics (located where they have a location).
LogicalResult compile(MLIRContext &context, llvm::SourceMgr &sourceMgr,
                      const CompileOptions &options);

/// Imports the ONNX model at `path` (frontend/onnx) and compiles it: the
/// weights are embedded, or with --weights-external written beside the
/// output as OUTPUT.safetensors. Errors go to stderr (import) or through
/// the context's diagnostics (compile).
LogicalResult compileOnnx(MLIRContext &context, llvm::StringRef path,
                          const CompileOptions &options);

} // namespace mlir::attune::driver

#endif // ATTUNE_DRIVER_COMPILE_H
