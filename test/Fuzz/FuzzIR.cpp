//===- FuzzIR.cpp - libFuzzer target: textual attune IR ------------------===//
//
// Parse and verify, then --attune-decompose and --convert-attune-to-linalg
// (with verification after each pass): any input must end in success or
// diagnostics, never a crash, an assertion or a hang.
//
//===----------------------------------------------------------------------===//

#include "dialect/AttuneDialect.h"
#include "lowering/Passes.h"
#include "passes/Passes.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Transforms/Passes.h"

#include <cstdint>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static mlir::DialectRegistry *registry = [] {
    auto *r = new mlir::DialectRegistry();
    r->insert<mlir::attune::AttuneDialect>();
    mlir::registerAllDialects(*r);
    mlir::registerAllExtensions(*r);
    return r;
  }();
  // Dialects load as the parser meets them (loading all of them for every
  // input made the target 30x slower).
  mlir::MLIRContext context(*registry, mlir::MLIRContext::Threading::DISABLED);
  mlir::ScopedDiagnosticHandler quiet(
      &context, [](mlir::Diagnostic &) { return mlir::success(); });
  // NUL-terminated, as the tools' input files are (MLIR's lexer reads the
  // terminator).
  std::string text(reinterpret_cast<const char *>(data), size);
  mlir::OwningOpRef<mlir::ModuleOp> module =
      mlir::parseSourceString<mlir::ModuleOp>(text, &context);
  if (!module)
    return 0;
  mlir::PassManager pm(&context);
  pm.addPass(mlir::attune::createAttuneDecompose());
  pm.addPass(mlir::createCanonicalizerPass());
  pm.addPass(mlir::attune::createAttuneWidenHalf());
  pm.addPass(mlir::attune::createConvertAttuneToLinalg());
  (void)pm.run(*module);
  return 0;
}
