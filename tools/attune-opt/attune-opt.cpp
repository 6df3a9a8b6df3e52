//===- attune-opt.cpp - opt-style driver for attune -----------------------===//

#include "dialect/AttuneDialect.h"
#include "lowering/Passes.h"
#include "passes/Passes.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"

int main(int argc, char **argv) {
  mlir::DialectRegistry registry;
  registry.insert<mlir::attune::AttuneDialect>();
  mlir::attune::registerFastSubsetModels(registry);
  mlir::attune::registerBufferizationModels(registry);
  mlir::registerAllDialects(registry);
  mlir::registerAllExtensions(registry);
  mlir::registerAllPasses();
  mlir::attune::registerAttunePasses();
  mlir::attune::registerAttuneLoweringPasses();
  mlir::attune::registerAttunePipelines();
  return mlir::asMainReturnCode(mlir::MlirOptMain(
      argc, argv, "Attune optimizer driver\n", registry));
}
