//===- Passes.h - conversions out of attune ---------------------*- C++ -*-===//

#ifndef ATTUNE_LOWERING_PASSES_H
#define ATTUNE_LOWERING_PASSES_H

#include "dialect/Markers.h"
#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlow.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SPIRV/IR/SPIRVDialect.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Dialect/X86Vector/X86VectorDialect.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/Support/Error.h"

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
/// The attune -> attune front shared by both pipelines: decomposition of the
/// composite ops, then the fusions (attention, epilogues, packed
/// projections); with `explain`, each fusion decision is a remark.
void buildAttuneFusions(OpPassManager &pm, bool explain = false);


/// The options of attune-cpu-pipeline (lowering/PipelineOptions.def).
struct CpuOptions {
#define ATTUNE_COMMON_OPTION(TYPE, FIELD, FLAG, DEFAULT, HELP)                 \
  TYPE FIELD = DEFAULT;
#define ATTUNE_CPU_OPTION ATTUNE_COMMON_OPTION
#include "lowering/PipelineOptions.def"
};

/// The options of attune-vulkan-pipeline (lowering/PipelineOptions.def).
struct VulkanOptions {
#define ATTUNE_COMMON_OPTION(TYPE, FIELD, FLAG, DEFAULT, HELP)                 \
  TYPE FIELD = DEFAULT;
#define ATTUNE_VULKAN_OPTION ATTUNE_COMMON_OPTION
#include "lowering/PipelineOptions.def"
};

void buildCpuPipeline(OpPassManager &pm, CpuStage last = CpuStage::LLVM,
                      const CpuOptions &options = {});

/// A Vulkan target profile: the device limits and features the kernels are
/// compiled for. The defaults are Vulkan 1.1's guaranteed minimums, which
/// lavapipe and every conformant GPU meet.
struct VulkanProfile {
  std::string name = "baseline";
  int64_t workgroupSize = 64;           // invocations the mapping uses
  int64_t maxWorkgroupInvocations = 128; // maxComputeWorkGroupInvocations
  int64_t pushConstantBytes = 128;      // maxPushConstantsSize
  int64_t sharedMemoryBytes = 16384;    // maxComputeSharedMemorySize
  int64_t subgroupSize = 0;             // 0: no subgroup operations
  bool float16 = false;                 // shaderFloat16
  /// Attention as one fused kernel (attune-gpu-attention); false keeps the
  /// plain lowering (scores materialized), for comparison.
  bool fusedAttention = true;
  /// The fused kernel stages key/value tiles through shared memory (what
  /// GPUs want); false: one invocation per query row reading keys from
  /// global memory (faster on lavapipe, whose "shared memory" is ordinary
  /// memory behind barriers).
  bool sharedAttention = true;
  /// With a subgroup size of 2 or more: the fused kernel runs a subgroup per
  /// query row, its scores reduced by subgroup arithmetic (SPIR-V 1.3's
  /// GroupNonUniformArithmetic); takes precedence over sharedAttention.
  /// lavapipe's default (measured faster there).
  bool subgroupAttention = false;
};

/// Parses `--vulkan-profile=`: a named profile (`baseline`, `lavapipe`,
/// `desktop`) optionally followed by `,key=value` overrides (keys:
/// workgroup-size, max-workgroup-invocations, push-constant-bytes,
/// shared-memory-bytes, subgroup-size, fp16, fused-attention, shared-attention,
/// subgroup-attention). Returns an error message on failure.
llvm::Expected<VulkanProfile> parseVulkanProfile(llvm::StringRef spec);
/// The profile `options` ask for: `profile` parsed, with fused attention
/// off if `fusedAttention` is.
llvm::Expected<VulkanProfile> vulkanProfileOf(const VulkanOptions &options);

/// Stages of `attune-vulkan-pipeline`.
enum class VulkanStage {
  Attune, // decomposed and fused attune ops, canonicalized
  Linalg, // linalg on tensors, with the run-time checks
  Gpu,    // bufferized host code with outlined gpu.module kernels
  Spirv, // kernels converted to spirv.module, dispatch calls in the host code
  LLVM,  // host code in the LLVM dialect, SPIR-V in byte-array globals
};

/// `hostCpu` and `hostFeatures`: the CPU the host code is compiled for (as
/// CpuOptions' cpu and features).
void buildVulkanPipeline(OpPassManager &pm,
                         VulkanStage last = VulkanStage::LLVM,
                         const VulkanProfile &profile = {},
                         bool explainFusion = false,
                         StringRef hostCpu = "native",
                         StringRef hostFeatures = "");

/// Registers the named pipelines (`attune-cpu-pipeline`,
/// `attune-vulkan-pipeline`).
void registerAttunePipelines();

/// Subset models of the tensor slice ops and vector transfers that take
/// identical offsets, sizes and strides as equivalent before asking
/// ValueBoundsConstraintSet (see Pipelines.cpp). The first model attached to
/// an op wins: call this before registerAllDialects, which attaches
/// upstream's.
void registerFastSubsetModels(DialectRegistry &registry);

/// attune.cache_write's bufferization (Vulkan/CacheWriteBufferization.cpp):
/// a device scatter into the cache's buffer, where the Vulkan pipeline
/// leaves the op for one-shot bufferization.
void registerBufferizationModels(DialectRegistry &registry);

} // namespace mlir::attune

#endif // ATTUNE_LOWERING_PASSES_H
