//===- Import.h - ONNX graph -> attune module -------------------*- C++ -*-===//
//
// The ONNX front end: a validated model (OnnxModel.h) becomes a module with
// one `func.func @forward` in the attune dialect, whose arguments and
// results carry the graph's input and output names, and whose weights are
// `attune.weight` ops bound by PyTorch state_dict keys where the export
// lets them be recovered (else by initializer names). The weights' values
// come back beside the module, to be written as safetensors or bound
// directly.
//
//===----------------------------------------------------------------------===//

#ifndef ATTUNE_FRONTEND_ONNX_IMPORT_H
#define ATTUNE_FRONTEND_ONNX_IMPORT_H

#include "frontend/onnx/OnnxModel.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"

#include <string>
#include <utility>
#include <vector>

namespace attune::onnx_import {

struct ImportResult {
  mlir::OwningOpRef<mlir::ModuleOp> module;
  /// Weights in the order the module first uses them, by bound name.
  std::vector<std::pair<std::string, HostTensor>> weights;
  /// With `explain`: one line per raised pattern and per node imported in
  /// generic form (and why it was not raised).
  std::vector<std::string> explanation;
};

/// Imports `model` into `context` (which must have the attune, func and
/// arith dialects loaded). Errors name the file, the node and its op type.
llvm::Expected<ImportResult> importOnnx(mlir::MLIRContext &context,
                                        const OnnxModel &model);

/// Writes `weights` as a safetensors file at `path`, through a temporary
/// file renamed into place (no partial file on failure).
llvm::Error writeSafetensors(
    llvm::StringRef path,
    const std::vector<std::pair<std::string, HostTensor>> &weights);

} // namespace attune::onnx_import

#endif // ATTUNE_FRONTEND_ONNX_IMPORT_H
