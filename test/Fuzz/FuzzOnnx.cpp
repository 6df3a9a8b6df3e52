//===- FuzzOnnx.cpp - libFuzzer target: ONNX files ------------------------===//
//
// Read (protobuf, opset, initializers), import and verify: any input must end
// in a model or an error message, never a crash, an assertion or a hang.
// External data is looked up in a folder that does not exist.
//
//===----------------------------------------------------------------------===//

#include "dialect/AttuneDialect.h"
#include "frontend/onnx/Import.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"

#include <cstdint>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static mlir::DialectRegistry *registry = [] {
    auto *r = new mlir::DialectRegistry();
    r->insert<mlir::attune::AttuneDialect, mlir::func::FuncDialect,
              mlir::arith::ArithDialect>();
    return r;
  }();
  auto model = ::attune::onnx_import::parseOnnxModel(
      llvm::StringRef(reinterpret_cast<const char *>(data), size), "fuzz.onnx",
      "/nonexistent-attune-fuzz-folder");
  if (!model) {
    llvm::consumeError(model.takeError());
    return 0;
  }
  mlir::MLIRContext context(*registry, mlir::MLIRContext::Threading::DISABLED);
  context.loadAllAvailableDialects();
  mlir::ScopedDiagnosticHandler quiet(
      &context, [](mlir::Diagnostic &) { return mlir::success(); });
  auto imported = ::attune::onnx_import::importOnnx(context, **model);
  if (!imported) {
    llvm::consumeError(imported.takeError());
    return 0;
  }
  (void)mlir::verify(*imported->module);
  return 0;
}
