//===- Pipelines.cpp - named pipelines ------------------------------------===//
//
// One definition of each pipeline, shared by attune-opt, attune-compile and
// the tests. The upstream part is written as a textual pipeline: pass names
// are stable across MLIR releases where C++ factory names are not.
//
//===----------------------------------------------------------------------===//

#include "lowering/Passes.h"
#include "passes/Passes.h"

#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"
#include "llvm/Support/ErrorHandling.h"

using namespace mlir;

// Bufferization and deallocation: every returned buffer is a fresh
// allocation the caller owns.
static constexpr const char *kCpuBufferize =
    "one-shot-bufferize{bufferize-function-boundaries "
    "function-boundary-type-conversion=identity-layout-map "
    "allow-return-allocs-from-loops},"
    "canonicalize,"
    "buffer-deallocation-pipeline,convert-bufferization-to-memref";

static constexpr const char *kCpuToLLVM =
    "convert-linalg-to-loops,"
    "func.func(llvm-request-c-wrappers),"
    "convert-scf-to-cf,expand-strided-metadata,lower-affine,"
    "finalize-memref-to-llvm,convert-math-to-llvm,convert-math-to-libm,"
    "convert-arith-to-llvm,convert-index-to-llvm,convert-func-to-llvm,"
    "convert-cf-to-llvm,convert-ub-to-llvm,reconcile-unrealized-casts";

void mlir::attune::buildCpuPipeline(OpPassManager &pm, CpuStage last) {
  pm.addPass(createAttuneDecompose());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
  if (last == CpuStage::Attune)
    return;
  pm.addPass(createConvertAttuneToLinalg());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
  if (last == CpuStage::Linalg)
    return;
  if (failed(parsePassPipeline(kCpuBufferize, pm)))
    llvm::report_fatal_error("attune-cpu-pipeline: upstream passes missing");
  pm.addPass(createAttuneLowerStridedCopies());
  if (failed(parsePassPipeline(kCpuToLLVM, pm)))
    llvm::report_fatal_error("attune-cpu-pipeline: upstream passes missing");
}

void mlir::attune::registerAttunePipelines() {
  PassPipelineRegistration<>(
      "attune-cpu-pipeline",
      "attune -> linalg -> bufferized loops -> LLVM dialect (weights bound)",
      [](OpPassManager &pm) { buildCpuPipeline(pm); });
}
