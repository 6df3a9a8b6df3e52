//===- Options.cpp - the compile options on the command line --------------===//
//
// Every option is bound to its CompileOptions field, so the declaration in
// the .def files is the only one.
//
//===----------------------------------------------------------------------===//

#include "driver/Compile.h"

#include "llvm/Support/CommandLine.h"

#include <type_traits>

namespace cl = llvm::cl;
using namespace mlir::attune::driver;

namespace {
/// `--help` shows these groups; LLVM's own options move to --help-hidden.
cl::OptionCategory driverCategory("Attune options");
cl::OptionCategory cpuCategory("Attune CPU pipeline options (--target=cpu)");
cl::OptionCategory vulkanCategory(
    "Attune Vulkan pipeline options (--target=vulkan)");

/// Registers `--FLAG` bound to `FIELD` (FLAG must be a string literal: a
/// std::string option given its name as a StringRef is not registered).
#define ATTUNE_BIND(FIELD, FLAG, HELP, VALUE_NAME, CATEGORY)                   \
  new cl::opt<std::remove_reference_t<decltype(FIELD)>, true>(                 \
      FLAG, cl::desc(HELP), cl::value_desc(VALUE_NAME), cl::location(FIELD),   \
      cl::cat(CATEGORY))
} // namespace

void mlir::attune::driver::registerCompileOptions(CompileOptions &options) {
#define ATTUNE_DRIVER_OPTION(TYPE, FIELD, FLAG, DEFAULT, VALUE_NAME, HELP)     \
  ATTUNE_BIND(options.FIELD, FLAG, HELP, VALUE_NAME, driverCategory);
#include "driver/Options.def"

  new cl::opt<Emit, true>(
      "emit", cl::desc("What to produce"), cl::location(options.emit),
      cl::values(
          clEnumValN(Emit::Attune, "attune", "decomposed, fused attune IR"),
          clEnumValN(Emit::Linalg, "linalg", "linalg on tensors"),
          clEnumValN(Emit::Gpu, "gpu", "outlined GPU kernels (vulkan)"),
          clEnumValN(Emit::Spirv, "spirv",
                     "SPIR-V kernels and dispatch calls (vulkan)"),
          clEnumValN(Emit::LLVMMLIR, "llvm-mlir", "the LLVM dialect"),
          clEnumValN(Emit::LLVMIR, "llvm-ir", "optimized LLVM IR"),
          clEnumValN(Emit::Obj, "obj", "an object file"),
          clEnumValN(Emit::Lib, "lib", "a shared library (default)")),
      cl::cat(driverCategory));
  // --attention-maps alone selects every attention: the flag's presence is
  // recorded apart from its (optional) value.
  auto *maps = new cl::opt<std::string>(
      "attention-maps",
      cl::desc("Also return the weights of the model's attentions as outputs "
               "attn.<site> (per head) and attn.<site>.mean (head average), "
               "drawn by attune-run --attention-maps DIR; SELECTION: site "
               "numbers, names or path prefixes, comma-separated (default: "
               "all)"),
      cl::value_desc("SELECTION"), cl::ValueOptional, cl::cat(driverCategory),
      cl::cb<void, const std::string &>([&options](const std::string &value) {
        options.attentionMaps = value;
      }));
  (void)maps;
  auto *output = new cl::opt<std::string, true>(
      "o", cl::desc("Output file (- : stdout, for the textual stages)"),
      cl::location(options.output), cl::cat(driverCategory));
  output->setValueStr("path");

  // The pipelines' options. A common one is shown once, with the CPU
  // group's, and sets both pipelines' fields.
#define ATTUNE_COMMON_OPTION(TYPE, FIELD, FLAG, DEFAULT, HELP)                 \
  new cl::opt<TYPE, true>(                                                     \
      FLAG, cl::desc(HELP), cl::location(options.cpuPipeline.FIELD),           \
      cl::cat(cpuCategory), cl::cb<void, TYPE>([&options](TYPE value) {        \
        options.vulkanPipeline.FIELD = value;                                  \
      }));
#define ATTUNE_CPU_OPTION(TYPE, FIELD, FLAG, DEFAULT, HELP)                    \
  ATTUNE_BIND(options.cpuPipeline.FIELD, FLAG, HELP, "", cpuCategory);
#include "lowering/PipelineOptions.def"
#define ATTUNE_VULKAN_OPTION(TYPE, FIELD, FLAG, DEFAULT, HELP)                 \
  ATTUNE_BIND(options.vulkanPipeline.FIELD, FLAG, HELP, "", vulkanCategory);
#include "lowering/PipelineOptions.def"
}

std::vector<llvm::cl::OptionCategory *> mlir::attune::driver::optionCategories() {
  return {&driverCategory, &cpuCategory, &vulkanCategory};
}
