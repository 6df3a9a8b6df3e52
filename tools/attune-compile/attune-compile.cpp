//===- attune-compile.cpp - attune model -> native shared library ---------===//
//
//   attune-compile MODEL.mlir --weights W.safetensors [--target=cpu,vulkan]
//                 -o MODEL.so
//
// The command line of the compile flow (driver/Compile.h).
//
//===----------------------------------------------------------------------===//

#include "driver/Compile.h"

#include "mlir/IR/AsmState.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Support/FileUtilities.h"
#include "mlir/Support/Timing.h"

#include "llvm/Support/CommandLine.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/TargetSelect.h"

using namespace mlir;
namespace cl = llvm::cl;

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  llvm::InitializeNativeTarget();
  llvm::InitializeNativeTargetAsmPrinter();

  static cl::OptionCategory toolCategory("Input");
  static cl::opt<std::string> inputFile(cl::Positional,
                                        cl::desc("<model.mlir | model.onnx>"), cl::Required,
                                        cl::cat(toolCategory));
  attune::driver::CompileOptions options;
  attune::driver::registerCompileOptions(options);
  registerAsmPrinterCLOptions();
  registerMLIRContextCLOptions();
  registerPassManagerCLOptions();
  registerDefaultTimingManagerCLOptions();
  // --help shows Attune's options and the MLIR ones that help debugging
  // (--mlir-timing, --mlir-print-ir-after-all, ...); LLVM's backend options
  // are under --help-hidden.
  static cl::OptionCategory mlirCategory("MLIR options (debugging)");
  for (auto &[name, option] : cl::getRegisteredOptions())
    if (name.starts_with("mlir-"))
      option->addCategory(mlirCategory);
  std::vector<const cl::OptionCategory *> shown = {&toolCategory,
                                                   &mlirCategory};
  for (cl::OptionCategory *c : attune::driver::optionCategories())
    shown.push_back(c);
  cl::HideUnrelatedOptions(shown);
  cl::ParseCommandLineOptions(
      argc, argv,
      "attune-compile: compile an attune model to a native shared library\n\n"
      "  attune-compile MODEL.mlir --weights W.safetensors -o MODEL.so\n"
      "  attune-compile MODEL.onnx -o MODEL.so\n");

  DialectRegistry registry;
  attune::driver::registerCompilerDialects(registry);
  registerAllPasses();
  MLIRContext context(registry);
  context.loadAllAvailableDialects();
  // A located message is what a model's author needs; the dump of the
  // failing op in generic form only with --mlir-print-op-on-diagnostic.
  if (!cl::getRegisteredOptions()["mlir-print-op-on-diagnostic"]
           ->getNumOccurrences())
    context.printOpOnDiagnostic(false);

  if (llvm::StringRef(inputFile).ends_with(".onnx"))
    return failed(attune::driver::compileOnnx(context, inputFile, options));

  std::string error;
  auto input = openInputFile(inputFile, &error);
  if (!input) {
    llvm::errs() << "error: " << error << "\n";
    return 1;
  }
  llvm::SourceMgr sourceMgr;
  sourceMgr.AddNewSourceBuffer(std::move(input), llvm::SMLoc());
  SourceMgrDiagnosticHandler handler(sourceMgr, &context);
  return failed(attune::driver::compile(context, sourceMgr, options)) ? 1 : 0;
}
