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

static constexpr const char *kCpuLoops =
    "convert-linalg-to-loops,"
    "convert-vector-to-scf{full-unroll=true},func.func(lower-vector-mask)";

// With `parallel`: parallel dims become scf.parallel and then OpenMP
// worksharing loops (the reduction dims stay sequential inside); the thread
// count is the OpenMP runtime's (OMP_NUM_THREADS, or
// attune_model_set_num_threads). Canonicalization inlines the alloca scopes
// convert-scf-to-openmp puts around loop bodies, which hold no allocas.
static constexpr const char *kCpuParallelLoops =
    "convert-linalg-to-parallel-loops,convert-scf-to-openmp,canonicalize,"
    "convert-vector-to-scf{full-unroll=true},func.func(lower-vector-mask)";

static constexpr const char *kCpuToLLVM =
    "func.func(llvm-request-c-wrappers),"
    "convert-scf-to-cf,expand-strided-metadata,lower-affine,"
    "convert-vector-to-llvm{vector-contract-lowering=outerproduct},"
    "finalize-memref-to-llvm,convert-math-to-llvm,convert-math-to-libm,"
    "convert-arith-to-llvm,convert-index-to-llvm,convert-func-to-llvm";

// After attune-lower-runtime-checks has replaced the cf.asserts.
static constexpr const char *kCpuFinishLLVM =
    "convert-cf-to-llvm,convert-ub-to-llvm,convert-openmp-to-llvm,"
    "reconcile-unrealized-casts";

void mlir::attune::buildCpuPipeline(OpPassManager &pm, CpuStage last,
                                    const CpuOptions &options) {
  pm.addPass(createAttuneDecompose());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
  pm.addPass(createAttuneFuseAttention());
  pm.addPass(createCanonicalizerPass());
  if (last == CpuStage::Attune)
    return;
  // Long (or dynamic) attention as tiled online softmax; the rest plain.
  AttuneTileAttentionOptions tiling;
  tiling.tileQ = options.attentionTileQ;
  tiling.tileK = options.attentionTileK;
  tiling.minLength = options.attentionMinLength;
  pm.addPass(createAttuneTileAttention(tiling));
  pm.addPass(createConvertAttuneToLinalg());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
  // Dynamic extents that must agree are checked before each kernel runs.
  pm.addPass(createAttuneInsertRuntimeChecks());
  pm.addPass(createCanonicalizerPass());
  // The linear layers' GEMMs: cache and register tiles, vector FMAs.
  pm.addPass(createAttuneTileGemm());
  if (last == CpuStage::Linalg)
    return;
  if (failed(parsePassPipeline(kCpuBufferize, pm)))
    llvm::report_fatal_error("attune-cpu-pipeline: upstream passes missing");
  pm.addPass(createAttuneLowerStridedCopies());
  if (failed(parsePassPipeline(options.parallel ? kCpuParallelLoops : kCpuLoops,
                               pm)) ||
      failed(parsePassPipeline(kCpuToLLVM, pm)))
    llvm::report_fatal_error("attune-cpu-pipeline: upstream passes missing");
  pm.addPass(createAttuneLowerRuntimeChecks());
  if (failed(parsePassPipeline(kCpuFinishLLVM, pm)))
    llvm::report_fatal_error("attune-cpu-pipeline: upstream passes missing");
}

namespace {
struct CpuPipelineOptions : PassPipelineOptions<CpuPipelineOptions> {
  Option<bool> parallel{*this, "parallel",
                        llvm::cl::desc("Parallel loops through OpenMP"),
                        llvm::cl::init(false)};
  Option<int64_t> tileQ{*this, "attention-tile-q",
                        llvm::cl::desc("Queries per attention tile"),
                        llvm::cl::init(64)};
  Option<int64_t> tileK{*this, "attention-tile-k",
                        llvm::cl::desc("Keys per attention tile"),
                        llvm::cl::init(64)};
  Option<int64_t> minLength{
      *this, "attention-min-length",
      llvm::cl::desc("Tile attention from this static key length on"),
      llvm::cl::init(128)};
};
} // namespace

void mlir::attune::registerAttunePipelines() {
  PassPipelineRegistration<CpuPipelineOptions>(
      "attune-cpu-pipeline",
      "attune -> linalg -> bufferized loops -> LLVM dialect (weights bound)",
      [](OpPassManager &pm, const CpuPipelineOptions &options) {
        CpuOptions cpu;
        cpu.parallel = options.parallel;
        cpu.attentionTileQ = options.tileQ;
        cpu.attentionTileK = options.tileK;
        cpu.attentionMinLength = options.minLength;
        buildCpuPipeline(pm, CpuStage::LLVM, cpu);
      });
}
