//===- Pipelines.cpp - named pipelines ------------------------------------===//
//
// One definition of each pipeline, shared by attune-opt, attune-compile and
// the tests. The upstream part is written as a textual pipeline: pass names
// are stable across MLIR releases where C++ factory names are not.
//
//===----------------------------------------------------------------------===//

#include "lowering/CPU/CpuTarget.h"
#include "lowering/Passes.h"
#include "passes/Passes.h"

#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Interfaces/SubsetOpInterface.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/Support/ErrorHandling.h"

using namespace mlir;
using namespace mlir::attune;

// Bufferization and deallocation: every returned buffer is a fresh
// allocation the caller owns. Scratch buffers of a static size that a loop
// body allocates and frees again (an attention score tile, 16 KiB per key
// step) are allocated once before the loop; buffer-loop-hoisting leaves
// scf.forall bodies alone, so every thread keeps its own.
// A public function's inputs are the caller's and come back unchanged; a
// generation state is written in place, into the caller's buffer
// (attune-mark-writable-args before, attune-drop-state-results after).
static constexpr const char *kOneShotBufferize =
    "one-shot-bufferize{bufferize-function-boundaries "
    "function-boundary-type-conversion=identity-layout-map "
    "allow-return-allocs-from-loops}";
static constexpr const char *kAfterBufferize =
    "canonicalize,func.func(buffer-loop-hoisting),"
    "buffer-deallocation-pipeline,convert-bufferization-to-memref";

static void addBufferization(OpPassManager &pm, const char *pipeline) {
  pm.addPass(createAttuneMarkWritableArgs());
  if (failed(parsePassPipeline(kOneShotBufferize, pm)))
    llvm::report_fatal_error(Twine(pipeline) + ": upstream passes missing");
  pm.addPass(createAttuneDropStateResults());
  if (failed(parsePassPipeline(kAfterBufferize, pm)))
    llvm::report_fatal_error(Twine(pipeline) + ": upstream passes missing");
}

static constexpr const char *kCpuLoops = "convert-linalg-to-loops";

// With `parallel`: the scf.foralls of the schedules (the GEMMs' column
// tiles, tiled attention's (batch, head) pairs, the vectorized rows of row
// kernels such as layer norm) become OpenMP worksharing loops; the thread
// count is the OpenMP runtime's (OMP_NUM_THREADS, or
// attune_model_set_num_threads). The other linalg ops stay sequential loops:
// as collapsed worksharing loops they ran as scalar code recovering indices
// by division, and made the 1-thread run 1.5x slower than the serial build
// (measured: encoder layer 44 -> 26 ms on 1 thread, 27 -> 15 ms on 2).
// Canonicalization inlines the alloca scopes convert-scf-to-openmp puts
// around loop bodies, which hold no allocas. attune-omp-schedule then picks
// the worksharing loops' schedule (the target's by default), before the vector
// transfers become loops.
static constexpr const char *kCpuParallelLoops =
    "scf-forall-to-parallel,convert-linalg-to-loops,"
    "convert-scf-to-openmp,canonicalize";
static constexpr const char *kCpuVectorLoops =
    "convert-vector-to-scf{full-unroll=true},func.func(lower-vector-mask)";

static constexpr const char *kCpuToLLVM =
    "func.func(llvm-request-c-wrappers),"
    "convert-scf-to-cf,expand-strided-metadata,lower-affine,"
    "convert-vector-to-llvm{vector-contract-lowering=outerproduct "
    "enable-x86vector=true},"
    "finalize-memref-to-llvm,convert-math-to-llvm,convert-math-to-libm,"
    "convert-arith-to-llvm,convert-index-to-llvm,convert-func-to-llvm";

// After attune-lower-runtime-checks has replaced the cf.asserts.
static constexpr const char *kCpuFinishLLVM =
    "convert-cf-to-llvm,convert-ub-to-llvm,convert-openmp-to-llvm,"
    "reconcile-unrealized-casts";

void mlir::attune::buildAttuneFusions(OpPassManager &pm, bool explain) {
  // (The driver has expanded repeats before binding the weights; a module
  // given to the pipeline directly may still hold some.)
  pm.addPass(createAttuneUnrollRepeat());
  pm.addPass(createAttuneDecompose());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
  pm.addPass(createAttuneFuseAttention({explain}));
  pm.addPass(createCanonicalizerPass());
  // Bias adds first join their linears, so that they can be packed.
  pm.addPass(createAttuneFuseEpilogues({explain}));
  pm.addPass(createAttunePackProjections({explain}));
  pm.addPass(createCanonicalizerPass());
}

// After the attune -> linalg conversion: chains of element-wise kernels
// become one loop nest.
static void addLinalgCleanup(OpPassManager &pm) {
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
  pm.addPass(attune::createAttuneFuseElementwise());
  pm.addPass(createCanonicalizerPass());
}

/// --cpu for the passes: the empty default is this machine.
static std::string targetCpu(const CpuOptions &options) {
  return options.cpu.empty() ? "native" : options.cpu;
}

/// The CPU kernel passes (lowering/CPU), in their order: a pass reads what
/// the ones before it decided or marked.
static void addCpuKernelPasses(OpPassManager &pm, const CpuOptions &options) {
  bool parallel = options.parallel;
  // The tiles from the target CPU's model.
  pm.addPass(createAttuneSelectCpuTiling(
      {targetCpu(options), options.features, options.explainTiling,
       options.gemmCompute, options.gemmWeights}));
  pm.addPass(createAttunePackHeadGemms({options.gemmWeights}));
  pm.addPass(createAttuneVectorizeRows({parallel}));
  pm.addPass(createAttuneTransposeTiles({parallel}));
  pm.addPass(createAttunePackGemms({options.gemmWeights}));
  pm.addPass(createAttuneGatherFromPanels());
  pm.addPass(createAttuneHoistWeightPreparation());
  pm.addPass(createAttunePrepareWeightsAtLoad());
  pm.addPass(createAttuneFuseGemmInits({parallel}));
  pm.addPass(
      createAttuneTileGemm({parallel, targetCpu(options), options.features}));
  pm.addPass(createAttuneAccumulatorsInRegisters());
  pm.addPass(createAttuneFinishCpuKernels({parallel}));
}

void mlir::attune::buildCpuPipeline(OpPassManager &pm, CpuStage last,
                                    const CpuOptions &options) {
  // Identical layers become one function, compiled once (repeats spelled
  // out first: the driver does it before binding the weights, a module
  // given to the pipeline directly may still hold some; found by the
  // mutation test: 64 repeated layers compiled inline took minutes).
  pm.addPass(createAttuneUnrollRepeat());
  if (options.outlineLayers)
    pm.addPass(createAttuneOutlineLayers());
  buildAttuneFusions(pm, options.explainFusion);
  // A decoding step's cross-attention: the memory's K and V projections
  // move to the query side when that is at most a quarter of the work.
  pm.addPass(createAttuneAbsorbKvProjections({options.explainFusion}));
  // f16/bf16 are storage formats: every op computes in f32.
  pm.addPass(createAttuneWidenHalf());
  pm.addPass(createCanonicalizerPass());
  if (last == CpuStage::Attune)
    return;
  // Long (or dynamic) attention as tiled online softmax; the rest plain.
  AttuneTileAttentionOptions tiling;
  tiling.tileQ = options.attentionTileQ;
  tiling.tileK = options.attentionTileK;
  tiling.minLength = options.attentionMinLength;
  tiling.linearChunk = options.linearAttentionChunk;
  tiling.parallel = options.parallel;
  tiling.compute = options.attentionCompute;
  pm.addPass(createAttuneTileAttention(tiling));
  pm.addPass(createConvertAttuneToLinalg({/*checkIndices=*/true,
                                          /*requireBoundWeights=*/true,
                                          /*deferChecks=*/false}));
  addLinalgCleanup(pm);
  // Dynamic extents that must agree are checked before each kernel runs.
  pm.addPass(createAttuneInsertRuntimeChecks());
  pm.addPass(createCanonicalizerPass());
  // The CPU kernels: each GEMM's tiling decided (a typed attribute), then
  // applied: packed weights, vectorized rows, fused inits, cache and
  // register tiles, vector FMAs.
  addCpuKernelPasses(pm, options);
  if (last == CpuStage::Linalg)
    return;
  addBufferization(pm, "attune-cpu-pipeline");
  pm.addPass(createAttuneMergeConstants());
  pm.addNestedPass<func::FuncOp>(createAttuneEpilogueInRegisters());
  pm.addNestedPass<func::FuncOp>(createAttuneFreeAfterLastUse());
  pm.addPass(
      createAttunePrefetchPanels({targetCpu(options), options.features}));
  pm.addPass(
      createAttuneSplitAccumulators({targetCpu(options), options.features}));
  pm.addPass(createAttuneLowerStridedCopies());
  if (failed(parsePassPipeline(options.parallel ? kCpuParallelLoops : kCpuLoops,
                               pm)))
    llvm::report_fatal_error("attune-cpu-pipeline: upstream passes missing");
  if (options.parallel) {
    AttuneOmpScheduleOptions schedule;
    schedule.schedule = options.ompSchedule;
    if (schedule.schedule.empty()) {
      // The target's (an unknown --cpu is reported by the kernel passes).
      std::string error;
      std::optional<cpu::CpuTarget> target =
          cpu::lookupCpuTarget(targetCpu(options), options.features, error);
      schedule.schedule = target ? target->ompSchedule : "guided";
    }
    schedule.chunk = options.ompChunk;
    pm.addPass(createAttuneOmpSchedule(schedule));
  }
  if (failed(parsePassPipeline(kCpuVectorLoops, pm)))
    llvm::report_fatal_error("attune-cpu-pipeline: upstream passes missing");
  // Without AVX512-BF16, LLVM would round to bf16 by calling __truncsfbf2,
  // which nothing defines.
  pm.addPass(
      createAttuneExpandBf16Truncation({targetCpu(options), options.features}));
  // (kCpuToLLVM runs expand-strided-metadata.)
  pm.addPass(createAttuneGuardExpandShapes());
  if (failed(parsePassPipeline(kCpuToLLVM, pm)))
    llvm::report_fatal_error("attune-cpu-pipeline: upstream passes missing");
  pm.addPass(createAttuneLowerRuntimeChecks());
  pm.addPass(createAttuneRouteRuntimeCalls());
  if (failed(parsePassPipeline(kCpuFinishLLVM, pm)))
    llvm::report_fatal_error("attune-cpu-pipeline: upstream passes missing");
}

//===----------------------------------------------------------------------===//
// Vulkan
//===----------------------------------------------------------------------===//

llvm::Expected<attune::VulkanProfile>
mlir::attune::parseVulkanProfile(llvm::StringRef spec) {
  VulkanProfile p;
  SmallVector<StringRef> parts;
  spec.split(parts, ',', -1, /*KeepEmpty=*/false);
  auto fail = [&](const Twine &message) {
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "--vulkan-profile=" + spec + ": " + message);
  };
  size_t first = 0;
  if (!parts.empty() && !parts[0].contains('=')) {
    p.name = parts[0].str();
    first = 1;
    if (p.name == "baseline") {
      // Vulkan 1.1's guaranteed limits.
    } else if (p.name == "lavapipe") {
      p.sharedAttention = false; // measured: per-row is faster on the CPU
      p.maxWorkgroupInvocations = 1024;
      p.sharedMemoryBytes = 32768;
      p.subgroupSize = 8; // 256-bit lanes; more with AVX-512 builds
      // Measured: a subgroup per row faster than per-row (1.6x at L = 128,
      // bench/README.md; the lanes of a row load a key row as one vector).
      p.subgroupAttention = true;
      p.float16 = true;
    } else if (p.name == "desktop") {
      p.workgroupSize = 256;
      p.maxWorkgroupInvocations = 1024;
      p.sharedMemoryBytes = 32768;
      p.subgroupSize = 32;
    } else {
      return fail("unknown profile '" + p.name +
                  "' (profiles: baseline, lavapipe, desktop)");
    }
  }
  for (StringRef part : ArrayRef(parts).drop_front(first)) {
    auto [key, value] = part.split('=');
    int64_t v;
    if (value.getAsInteger(10, v) || v < 0)
      return fail("'" + part + "' is not key=<non-negative integer>");
    if (key == "workgroup-size")
      p.workgroupSize = v;
    else if (key == "max-workgroup-invocations")
      p.maxWorkgroupInvocations = v;
    else if (key == "push-constant-bytes")
      p.pushConstantBytes = v;
    else if (key == "shared-memory-bytes")
      p.sharedMemoryBytes = v;
    else if (key == "subgroup-size")
      p.subgroupSize = v;
    else if (key == "fp16")
      p.float16 = v != 0;
    else if (key == "fused-attention")
      p.fusedAttention = v != 0;
    else if (key == "shared-attention")
      p.sharedAttention = v != 0;
    else if (key == "subgroup-attention")
      p.subgroupAttention = v != 0;
    else
      return fail("unknown key '" + key +
                  "' (keys: workgroup-size, max-workgroup-invocations, "
                  "push-constant-bytes, shared-memory-bytes, subgroup-size, "
                  "fp16, fused-attention, shared-attention, "
                  "subgroup-attention)");
  }
  if (p.workgroupSize < 1 || p.workgroupSize > p.maxWorkgroupInvocations)
    return fail("workgroup-size " + Twine(p.workgroupSize) +
                " must be in [1, max-workgroup-invocations = " +
                Twine(p.maxWorkgroupInvocations) + "]");
  if (p.subgroupAttention && p.subgroupSize < 2)
    return fail("subgroup-attention needs a subgroup-size of 2 or more");
  if (p.pushConstantBytes < 128)
    return fail("push-constant-bytes must be at least 128 (Vulkan's minimum)");
  return p;
}

// The host code never touches tensor data: every buffer is a device
// allocation from the runtime (`_mlir_memref_to_llvm_alloc`), and kernels are
// dispatched through `attune_vk_dispatch`.
static constexpr const char *kGpuOutline =
    "convert-parallel-loops-to-gpu,lower-affine,canonicalize,cse,"
    "gpu-launch-sink-index-computations,gpu-kernel-outlining,cse";

// SPIR-V 1.0 unless the profile has subgroup arithmetic (1.3, Vulkan 1.1);
// with fp16, 16-bit storage buffers, f16 values (loaded, converted,
// stored: the arithmetic is f32, see attune-widen-half) and 16-bit integers
// (bf16 bits). spirv-update-vce
// then gives each module the least it needs.
static std::string spirvPipeline(const VulkanProfile &profile) {
  bool subgroups = profile.subgroupSize > 0;
  std::string caps = "Shader";
  std::string exts = "SPV_KHR_storage_buffer_storage_class";
  if (subgroups)
    caps += ",GroupNonUniform,GroupNonUniformArithmetic";
  if (profile.float16) {
    caps += ",Float16,Int16,StorageBuffer16BitAccess";
    exts += ",SPV_KHR_16bit_storage";
  }
  return std::string("spirv-attach-target{ver=") +
         (subgroups ? "v1.3" : "v1.0") + " caps=" + caps + " exts=" + exts +
         "},gpu.module(convert-math-to-spirv),convert-gpu-to-spirv,"
         "spirv.module(spirv-lower-abi-attrs,spirv-update-vce)";
}

static constexpr const char *kVulkanHostToLLVM =
    "func.func(llvm-request-c-wrappers),"
    "convert-scf-to-cf,expand-strided-metadata,lower-affine,"
    "finalize-memref-to-llvm{use-generic-functions=1},"
    "convert-arith-to-llvm,convert-index-to-llvm,convert-func-to-llvm";

void mlir::attune::buildVulkanPipeline(OpPassManager &pm, VulkanStage last,
                                       const VulkanProfile &profile,
                                       bool explainFusion, StringRef hostCpu,
                                       StringRef hostFeatures) {
  buildAttuneFusions(pm, explainFusion);
  pm.addPass(createAttuneWidenHalf());
  pm.addPass(createCanonicalizerPass());
  if (last == VulkanStage::Attune)
    return;
  if (profile.fusedAttention) {
    AttuneGpuAttentionOptions attention;
    attention.workgroupSize = profile.workgroupSize;
    attention.sharedMemoryBytes =
        profile.sharedAttention ? profile.sharedMemoryBytes : 0;
    attention.subgroupSize =
        profile.subgroupAttention ? profile.subgroupSize : 0;
    pm.addPass(createAttuneGpuAttention(attention));
  }
  // Ids are checked on the device; the run fails after it completes.
  pm.addPass(createConvertAttuneToLinalg({/*checkIndices=*/true,
                                          /*requireBoundWeights=*/true,
                                          /*deferChecks=*/true}));
  addLinalgCleanup(pm);
  pm.addPass(createAttuneInsertRuntimeChecks());
  pm.addPass(createCanonicalizerPass());
  pm.addNestedPass<func::FuncOp>(createAttuneWidenBooleans());
  if (last == VulkanStage::Linalg)
    return;
  addBufferization(pm, "attune-vulkan-pipeline");
  AttuneMapToGpuOptions map;
  map.workgroupSize = profile.workgroupSize;
  pm.addNestedPass<func::FuncOp>(createAttuneMapToGpu(map));
  if (failed(parsePassPipeline(kGpuOutline, pm)))
    llvm::report_fatal_error("attune-vulkan-pipeline: upstream passes missing");
  if (last == VulkanStage::Gpu)
    return;
  AttuneVulkanAbiOptions abi;
  abi.pushConstantBytes = profile.pushConstantBytes;
  abi.maxWorkgroupInvocations = profile.maxWorkgroupInvocations;
  abi.float16 = profile.float16;
  pm.addPass(createAttuneVulkanAbi(abi));
  if (failed(parsePassPipeline(spirvPipeline(profile), pm)))
    llvm::report_fatal_error("attune-vulkan-pipeline: upstream passes missing");
  if (last == VulkanStage::Spirv)
    return;
  pm.addPass(createAttuneSerializeSpirv());
  pm.addPass(createAttuneExpandBf16Truncation(
      {hostCpu.empty() ? "native" : hostCpu.str(), hostFeatures.str()}));
  pm.addPass(createAttuneGuardExpandShapes());
  if (failed(parsePassPipeline(kVulkanHostToLLVM, pm)))
    llvm::report_fatal_error("attune-vulkan-pipeline: upstream passes missing");
  pm.addPass(createAttuneLowerRuntimeChecks());
  pm.addPass(createAttuneRouteRuntimeCalls());
  if (failed(parsePassPipeline(kCpuFinishLLVM, pm)))
    llvm::report_fatal_error("attune-vulkan-pipeline: upstream passes missing");
}

namespace {
// The named pipelines' options: lowering/PipelineOptions.def.
#define ATTUNE_PIPELINE_OPTION(TYPE, FIELD, FLAG, DEFAULT, HELP)               \
  Option<TYPE> FIELD{*this, FLAG, llvm::cl::desc(HELP),                        \
                     llvm::cl::init(DEFAULT)};
#define ATTUNE_COPY_OPTION(TYPE, FIELD, FLAG, DEFAULT, HELP)                   \
  result.FIELD = FIELD;

struct CpuPipelineOptions : PassPipelineOptions<CpuPipelineOptions> {
#define ATTUNE_COMMON_OPTION ATTUNE_PIPELINE_OPTION
#define ATTUNE_CPU_OPTION ATTUNE_PIPELINE_OPTION
#include "lowering/PipelineOptions.def"
  CpuOptions get() const {
    CpuOptions result;
#define ATTUNE_COMMON_OPTION ATTUNE_COPY_OPTION
#define ATTUNE_CPU_OPTION ATTUNE_COPY_OPTION
#include "lowering/PipelineOptions.def"
    return result;
  }
};

struct VulkanPipelineOptions : PassPipelineOptions<VulkanPipelineOptions> {
#define ATTUNE_COMMON_OPTION ATTUNE_PIPELINE_OPTION
#define ATTUNE_VULKAN_OPTION ATTUNE_PIPELINE_OPTION
#include "lowering/PipelineOptions.def"
  Option<std::string> stage{
      *this, "stage",
      llvm::cl::desc("Last stage: attune | linalg | gpu | spirv | llvm"),
      llvm::cl::init("llvm")};
  VulkanOptions get() const {
    VulkanOptions result;
#define ATTUNE_COMMON_OPTION ATTUNE_COPY_OPTION
#define ATTUNE_VULKAN_OPTION ATTUNE_COPY_OPTION
#include "lowering/PipelineOptions.def"
    return result;
  }
};
} // namespace

llvm::Expected<VulkanProfile>
mlir::attune::vulkanProfileOf(const VulkanOptions &options) {
  llvm::Expected<VulkanProfile> profile = parseVulkanProfile(options.profile);
  if (profile && !options.fusedAttention)
    profile->fusedAttention = false;
  return profile;
}

namespace {
struct CpuKernelsOptions : PassPipelineOptions<CpuKernelsOptions> {
  Option<bool> parallel{*this, "parallel",
                        llvm::cl::desc("As attune-cpu-pipeline's parallel"),
                        llvm::cl::init(false)};
  Option<std::string> cpu{*this, "cpu",
                          llvm::cl::desc("As attune-cpu-pipeline's cpu"),
                          llvm::cl::init("")};
};
} // namespace

void mlir::attune::registerAttunePipelines() {
  PassPipelineRegistration<CpuKernelsOptions>(
      "attune-cpu-kernels",
      "The CPU kernel passes of attune-cpu-pipeline, from "
      "attune-select-cpu-tiling to attune-finish-cpu-kernels",
      [](OpPassManager &pm, const CpuKernelsOptions &options) {
        CpuOptions cpu;
        cpu.parallel = options.parallel;
        cpu.cpu = options.cpu;
        addCpuKernelPasses(pm, cpu);
      });
  PassPipelineRegistration<CpuPipelineOptions>(
      "attune-cpu-pipeline",
      "attune -> linalg -> bufferized loops -> LLVM dialect (weights bound)",
      [](OpPassManager &pm, const CpuPipelineOptions &options) {
        buildCpuPipeline(pm, CpuStage::LLVM, options.get());
      });
  PassPipelineRegistration<VulkanPipelineOptions>(
      "attune-vulkan-pipeline",
      "attune -> linalg -> GPU kernels -> SPIR-V + host code in the LLVM "
      "dialect (weights bound)",
      [](OpPassManager &pm, const VulkanPipelineOptions &options) {
        VulkanOptions vulkan = options.get();
        // Pass-pipeline options cannot hold ',': overrides use ';'.
        std::replace(vulkan.profile.begin(), vulkan.profile.end(), ';', ',');
        llvm::Expected<VulkanProfile> profile = vulkanProfileOf(vulkan);
        if (!profile)
          llvm::report_fatal_error(llvm::toString(profile.takeError()).c_str(),
                                   /*gen_crash_diag=*/false);
        VulkanStage stage =
            llvm::StringSwitch<VulkanStage>(options.stage.getValue())
                .Case("attune", VulkanStage::Attune)
                .Case("linalg", VulkanStage::Linalg)
                .Case("gpu", VulkanStage::Gpu)
                .Case("spirv", VulkanStage::Spirv)
                .Default(VulkanStage::LLVM);
        buildVulkanPipeline(pm, stage, *profile, vulkan.explainFusion);
      });
}

//===----------------------------------------------------------------------===//
// Slice equivalence with a syntactic fast path
//===----------------------------------------------------------------------===//

namespace {
/// The slice `op` (a tensor slice op or a vector transfer on a tensor)
/// accesses, as upstream's subset models define it.
HyperrectangularSlice accessedSlice(Operation *op) {
  auto transfer = [&](auto xfer) {
    Builder b(op->getContext());
    SmallVector<OpFoldResult> offsets = llvm::map_to_vector(
        xfer.getIndices(), [](Value v) -> OpFoldResult { return v; });
    SmallVector<OpFoldResult> sizes = llvm::map_to_vector(
        xfer.getTransferChunkAccessed(),
        [&](int64_t size) -> OpFoldResult { return b.getIndexAttr(size); });
    return HyperrectangularSlice(offsets, sizes);
  };
  if (auto read = dyn_cast<vector::TransferReadOp>(op))
    return transfer(read);
  if (auto write = dyn_cast<vector::TransferWriteOp>(op))
    return transfer(write);
  return HyperrectangularSlice(cast<OffsetSizeAndStrideOpInterface>(op));
}

/// The slice `op` accesses, if `candidate` accesses the same one: the same
/// offsets, sizes and strides, operand for operand (the same SSA values or
/// constants).
std::optional<HyperrectangularSlice> sharedSlice(Operation *op,
                                                 SubsetOpInterface candidate) {
  FailureOr<HyperrectangularSlice> other =
      candidate.getAccessedHyperrectangularSlice();
  if (failed(other))
    return std::nullopt;
  HyperrectangularSlice mine = accessedSlice(op);
  if (mine.getMixedOffsets() != other->getMixedOffsets() ||
      mine.getMixedSizes() != other->getMixedSizes() ||
      mine.getMixedStrides() != other->getMixedStrides())
    return std::nullopt;
  return mine;
}

/// The subset models of the tensor slice ops and the vector transfers
/// (upstream's: tensor/Transforms/SubsetInsertionOpInterfaceImpl and
/// vector/Transforms/SubsetOpInterfaceImpl), with one change: two subsets
/// with the same offsets, sizes and strides, operand for operand (the same
/// SSA values or constants), of equivalent tensors are equivalent without
/// asking ValueBoundsConstraintSet. Upstream proves even identical offsets
/// equal with Presburger emptiness checks over their backward slices, and
/// one-shot bufferization and hoist_loop_invariant_subsets ask that of every
/// extract/insert and read/write pair of the tile loops: for the 12-layer
/// encoder, one-shot-bufferize took 12.1 s and attune-tile-gemm 14.8 s with
/// upstream's models, 0.14-0.25 s and 5-6 s with these (the same output).
/// The answer is the same: identical operands are equal values.
template <typename OpTy>
struct FastSubsetModel
    : SubsetOpInterface::ExternalModel<FastSubsetModel<OpTy>, OpTy> {
  FailureOr<HyperrectangularSlice>
  getAccessedHyperrectangularSlice(Operation *op) const {
    return accessedSlice(op);
  }
  /// The same slice of equivalent tensors is the same subset; upstream's
  /// check of the tensors comes first too, so a `false` is its answer.
  bool operatesOnEquivalentSubset(
      Operation *op, SubsetOpInterface candidate,
      function_ref<bool(Value, Value)> equivalenceFn) const {
    if (sharedSlice(op, candidate))
      return equivalenceFn(cast<SubsetOpInterface>(op).getTensorContainer(),
                           candidate.getTensorContainer());
    return mlir::detail::defaultOperatesOnEquivalentSubset(op, candidate,
                                                     equivalenceFn);
  }
  /// The same slice twice is not disjoint from itself unless it is empty:
  /// with every size a positive constant, no proof needed either.
  bool operatesOnDisjointSubset(
      Operation *op, SubsetOpInterface candidate,
      function_ref<bool(Value, Value)> equivalenceFn) const {
    auto positive = [](OpFoldResult size) {
      std::optional<int64_t> c = getConstantIntValue(size);
      return c && *c > 0;
    };
    if (std::optional<HyperrectangularSlice> slice = sharedSlice(op, candidate);
        slice && llvm::all_of(slice->getMixedSizes(), positive))
      return false;
    return mlir::detail::defaultOperatesOnDisjointSubset(op, candidate,
                                                   equivalenceFn);
  }
};
} // namespace

void mlir::attune::registerFastSubsetModels(DialectRegistry &registry) {
  registry.addExtension(+[](MLIRContext *ctx, tensor::TensorDialect *) {
    tensor::ExtractSliceOp::attachInterface<
        FastSubsetModel<tensor::ExtractSliceOp>>(*ctx);
    tensor::InsertSliceOp::attachInterface<
        FastSubsetModel<tensor::InsertSliceOp>>(*ctx);
    tensor::ParallelInsertSliceOp::attachInterface<
        FastSubsetModel<tensor::ParallelInsertSliceOp>>(*ctx);
  });
  registry.addExtension(+[](MLIRContext *ctx, vector::VectorDialect *) {
    vector::TransferReadOp::attachInterface<
        FastSubsetModel<vector::TransferReadOp>>(*ctx);
    vector::TransferWriteOp::attachInterface<
        FastSubsetModel<vector::TransferWriteOp>>(*ctx);
  });
}
