//===- attune-import.cpp - ONNX model -> attune model + weights -----------===//
//
//   attune-import MODEL.onnx -o MODEL.mlir [--weights-out W.safetensors]
//                [--explain]
//
// The command line of the ONNX front end (frontend/onnx/Import.h). Nothing
// is written unless the whole import succeeds.
//
//===----------------------------------------------------------------------===//

#include "dialect/AttuneDialect.h"
#include "frontend/onnx/Import.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Support/FileUtilities.h"

#include "llvm/Support/CommandLine.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/ToolOutputFile.h"

using namespace mlir;
namespace cl = llvm::cl;

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  static cl::OptionCategory category("attune-import options");
  static cl::opt<std::string> inputFile(cl::Positional,
                                        cl::desc("<model.onnx>"), cl::Required,
                                        cl::cat(category));
  static cl::opt<std::string> outputFile(
      "o", cl::desc("Where the attune model goes (default: stdout)"),
      cl::value_desc("model.mlir"), cl::init("-"), cl::cat(category));
  static cl::opt<std::string> weightsOut(
      "weights-out",
      cl::desc("Also write the weights, named as the model's attune.weight "
               "ops name them, to this safetensors file"),
      cl::value_desc("W.safetensors"), cl::cat(category));
  static cl::opt<bool> explain(
      "explain",
      cl::desc("List what was raised to which attune op, and every node "
               "imported in generic form (on stderr)"),
      cl::cat(category));
  cl::HideUnrelatedOptions(category);
  cl::ParseCommandLineOptions(
      argc, argv,
      "attune-import: an ONNX model as an attune model and its weights\n");

  auto fail = [](llvm::Error e) {
    llvm::errs() << "error: " << llvm::toString(std::move(e)) << "\n";
    return 1;
  };
  auto model = ::attune::onnx_import::readOnnxModel(inputFile);
  if (!model)
    return fail(model.takeError());
  DialectRegistry registry;
  registry.insert<mlir::attune::AttuneDialect, func::FuncDialect,
                  arith::ArithDialect>();
  MLIRContext context(registry);
  context.loadAllAvailableDialects();
  auto imported = ::attune::onnx_import::importOnnx(context, **model);
  if (!imported)
    return fail(imported.takeError());
  if (explain)
    for (const std::string &line : imported->explanation)
      llvm::errs() << line << "\n";
  if (failed(verify(*imported->module))) {
    llvm::errs() << "error: " << inputFile
                 << ": the imported model does not verify (an importer "
                    "bug: please report it with the model)\n";
    return 1;
  }

  std::string error;
  auto output = openOutputFile(outputFile, &error);
  if (!output) {
    llvm::errs() << "error: " << error << "\n";
    return 1;
  }
  if (!weightsOut.empty())
    if (llvm::Error e = ::attune::onnx_import::writeSafetensors(
            weightsOut, imported->weights))
      return fail(std::move(e));
  output->os() << "// Imported from " << inputFile << " by attune-import.\n";
  imported->module->print(output->os());
  output->os() << "\n";
  output->keep();
  return 0;
}
