//===- Passes.h - conversions out of attune ---------------------*- C++ -*-===//

#ifndef ATTUNE_LOWERING_PASSES_H
#define ATTUNE_LOWERING_PASSES_H

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlow.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassManager.h"

namespace mlir::attune {

#define GEN_PASS_DECL
#include "lowering/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "lowering/Passes.h.inc"

/// Stages of `attune-cpu-pipeline`, each ending in the IR that
/// `attune-compile --emit=` names.
enum class CpuStage {
  Attune, // decomposed into primitive attune ops, canonicalized
  Linalg, // linalg on tensors
  LLVM,   // the LLVM dialect
};

/// The passes of `attune-cpu-pipeline` up to and including `last`. Weights
/// must be bound (constants or arguments) before the bufferization part;
/// `attune-compile` does that first.
struct CpuOptions {
  /// Run the kernels' parallel loops on OpenMP threads.
  bool parallel = false;
  /// attune-tile-attention's options.
  int64_t attentionTileQ = 64, attentionTileK = 64, attentionMinLength = 128;
};

void buildCpuPipeline(OpPassManager &pm, CpuStage last = CpuStage::LLVM,
                      const CpuOptions &options = {});

/// Registers the named pipelines (`attune-cpu-pipeline`).
void registerAttunePipelines();

} // namespace mlir::attune

#endif // ATTUNE_LOWERING_PASSES_H
