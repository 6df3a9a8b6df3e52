//===- attune/artifact.h - the compiler-runtime contract --------*- C++ -*-===//
//
// What attune-compile writes into a model library and libattune_runtime
// reads from it, defined once for both sides: the exported symbol names, the
// dtype table, and the metadata record (`Metadata`) with its one serializer
// and one parser. Neither side spells a symbol name or a metadata keyword
// anywhere else. C++17, no MLIR or LLVM.
//
// A model library exports:
//   kMetadataSymbol        const char[]: serialize(Metadata), NUL-terminated
//   kInvokePrefix + E      void (void **args) per entry E on the CPU:
//                          args[0] -> the result descriptors, back to back,
//                          args[1 + i] -> the descriptor of input i; a rank-r
//                          memref descriptor is {allocated, aligned, offset,
//                          sizes[r], strides[r]}
//   kVulkanInvokePrefix + E  the same for the Vulkan host code of entry E
//   kSpirvPrefix + K       the SPIR-V words of kernel K (Vulkan)
//   RuntimeImport::slot    pointer slots the runtime fills with its
//                          functions (kRuntimeImports: the CPU code's
//                          allocator, the Vulkan host code's allocator and
//                          dispatch)
//   kCheckHandler          pointer slot for the handler of failed run-time
//                          checks: void (const char *message), no return
//   kVulkanCheckMessages   the messages of the Vulkan host code's deferred
//                          checks (kVulkanCheckCall)
// and, with --weights-external, one global per weight (Metadata::weights).
//
// The metadata is text, one record per line (see Artifact.cpp for the
// grammar); its first line names the format version. A runtime refuses an
// artifact of any other version and says to recompile it.
//
//===----------------------------------------------------------------------===//

#ifndef ATTUNE_ARTIFACT_H
#define ATTUNE_ARTIFACT_H

#include "attune/runtime.h"

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

namespace attune::artifact {

/// The metadata format this compiler writes and this runtime reads.
/// 2: adds the `cpu` record (target CPU and features).
/// 3: adds `state` and `context` inputs and the `generation-step` and
/// `generation-encoder` records.
/// 4: adds the `weight-f16` record.
/// 5: adds the `prepare-weights` and `weight-prepared` records.
inline constexpr int kFormatVersion = 5;

/// The smallest magnitude an f32 value rounds (to nearest even) to an f16
/// infinity: 65504, f16's largest finite value, plus half its last step. A
/// weight the code stores as f16 (--gemm-weights=f16) must stay below it;
/// the compiler checks bound weights, the runtime external ones
/// (WeightSpec::f16).
inline constexpr float kF16Overflow = 65520.0f;

/// Whether finite `v` becomes an infinity when rounded to f16.
inline bool roundsToF16Infinity(float v) {
  return std::isfinite(v) && std::fabs(v) >= kF16Overflow;
}

//===----------------------------------------------------------------------===//
// Symbols
//===----------------------------------------------------------------------===//

inline constexpr char kMetadataSymbol[] = "attune_model_metadata";
inline constexpr char kInvokePrefix[] = "attune_invoke_";
inline constexpr char kVulkanInvokePrefix[] = "attune_vk_invoke_";
/// The Vulkan host function of entry E is kVulkanHostPrefix + E (so that a
/// library can serve both targets).
inline constexpr char kVulkanHostPrefix[] = "attune_vk_";
inline constexpr char kSpirvPrefix[] = "attune_vk_spirv_";
/// Device-resident globals of the Vulkan host code (weights, constants).
inline constexpr char kVulkanGlobalPrefix[] = "attune_vk_global_";
/// External weights: kWeightPrefix + N.
inline constexpr char kWeightPrefix[] = "attune_weight_";
/// External weights: `void kPrepareWeightsPrefix + N(void)` computes what
/// the code reads of the weights of preparation N (Metadata::preparations:
/// packed panels, half-precision roundings) into the library's own globals;
/// the runtime calls it once, after it has filled those weights' globals.
inline constexpr char kPrepareWeightsPrefix[] = "attune_prepare_weights_";
inline constexpr char kCheckHandler[] = "attune_check_handler";
/// Outputs added by `attune-compile --attention-maps`: the weights of
/// attention site S are output kAttentionMapPrefix + S ([B, H, Lq, Lk], or
/// [B, Lq, Lk] for a seq2seq attention), their head average that name +
/// kAttentionMapMeanSuffix ([B, Lq, Lk]); attune-run --attention-maps draws
/// the outputs so named.
inline constexpr char kAttentionMapPrefix[] = "attn.";
inline constexpr char kAttentionMapMeanSuffix[] = ".mean";
/// The function the Vulkan host code calls to record a kernel dispatch
/// (its C interface, _mlir_ciface_attune_vk_dispatch, is a RuntimeImport).
inline constexpr char kVulkanDispatch[] = "attune_vk_dispatch";

/// A function the model's code calls in the runtime. The code calls it
/// through an exported pointer slot that the runtime fills when it opens the
/// model (attune-route-runtime-calls), never through a symbol resolved from
/// the global scope: a model opens in a process that loaded the runtime
/// with RTLD_LOCAL (Python's ctypes) just as well.
struct RuntimeImport {
  const char *callee;  // what the lowered code declares and calls
  const char *wrapper; // the internal function it calls instead
  const char *slot;    // the exported pointer slot
  /// The slot holds `callee` itself (libc's) until the runtime fills it, so
  /// that the library also runs without the runtime; else it holds null.
  bool libcFallback;
};
inline constexpr RuntimeImport kMalloc = {"malloc", "attune_cpu_malloc",
                                          "attune_cpu_malloc_hook", true};
inline constexpr RuntimeImport kFree = {"free", "attune_cpu_free",
                                        "attune_cpu_free_hook", true};
inline constexpr RuntimeImport kVulkanAlloc = {
    "_mlir_memref_to_llvm_alloc", "attune_vk_alloc", "attune_vk_alloc_hook",
    false};
inline constexpr RuntimeImport kVulkanFree = {
    "_mlir_memref_to_llvm_free", "attune_vk_free", "attune_vk_free_hook",
    false};
inline constexpr RuntimeImport kVulkanDispatchCall = {
    "_mlir_ciface_attune_vk_dispatch", "attune_vk_dispatch_call",
    "attune_vk_dispatch_hook", false};
/// A check the Vulkan host code cannot make itself (the data is on the
/// device): `void attune_vk_check(memref<i32> *flag, int64_t id)` records
/// that the run fails with message `id` of kVulkanCheckMessages if the
/// word `flag` holds at that point of the run is not 0.
inline constexpr RuntimeImport kVulkanCheckCall = {
    "_mlir_ciface_attune_vk_check", "attune_vk_check_call",
    "attune_vk_check_hook", false};
inline constexpr RuntimeImport kRuntimeImports[] = {
    kMalloc, kFree, kVulkanAlloc, kVulkanFree, kVulkanDispatchCall,
    kVulkanCheckCall};
/// The function the host code declares for kVulkanCheckCall.
inline constexpr char kVulkanCheck[] = "attune_vk_check";
/// const char[]: the messages of the deferred checks, each NUL-terminated,
/// in id order, then an empty one.
inline constexpr char kVulkanCheckMessages[] = "attune_vk_check_messages";

//===----------------------------------------------------------------------===//
// Dtypes
//===----------------------------------------------------------------------===//

/// One row per attune_dtype: its name in the metadata and in tools, its
/// size, its safetensors name and its NumPy descr (null: none).
struct DtypeInfo {
  attune_dtype dtype;
  const char *name;
  size_t size;
  const char *safetensors;
  const char *npy;
};
inline constexpr DtypeInfo kDtypes[] = {
    {ATTUNE_F32, "f32", 4, "F32", "<f4"},
    {ATTUNE_F16, "f16", 2, "F16", "<f2"},
    {ATTUNE_BF16, "bf16", 2, "BF16", "|V2"}, // raw bits, as ml_dtypes saves
    {ATTUNE_I32, "i32", 4, "I32", "<i4"},
    {ATTUNE_I64, "i64", 8, "I64", "<i8"},
    {ATTUNE_BOOL, "bool", 1, "BOOL", "|b1"},
};
/// The row of `dtype`, or null for a value outside the enum.
const DtypeInfo *dtypeInfo(attune_dtype dtype);
/// The row named `name` ("f32", ...), or null.
const DtypeInfo *dtypeNamed(const std::string &name);
/// The row whose safetensors name is `name` ("F32", ...), or null.
const DtypeInfo *dtypeOfSafetensors(const std::string &name);
/// Bytes per element of a safetensors dtype (also those Attune does not
/// compute in: F64, I8, BOOL, ...), or 0 if unknown.
size_t safetensorsElementSize(const std::string &name);

/// An f16 (IEEE binary16) value, given as its bits, as a float (exact).
inline float halfToFloat(uint16_t h) {
  uint32_t sign = (h >> 15) & 1, exp = (h >> 10) & 0x1f, frac = h & 0x3ff;
  float value;
  if (exp == 0)
    value = std::ldexp(static_cast<float>(frac), -24);
  else if (exp == 31)
    value = frac ? NAN : INFINITY;
  else
    value = std::ldexp(static_cast<float>(frac | 0x400),
                       static_cast<int>(exp) - 25);
  return sign ? -value : value;
}

/// A bf16 value, given as its bits, as a float (exact).
inline float bf16ToFloat(uint16_t h) {
  uint32_t bits = static_cast<uint32_t>(h) << 16;
  float f;
  std::memcpy(&f, &bits, 4);
  return f;
}

//===----------------------------------------------------------------------===//
// CPU features
//===----------------------------------------------------------------------===//

// clang-format off
/// The x86-64 ISA extensions (LLVM's feature names) that generated code may
/// use and the runtime can test with cpuid. An artifact records those its
/// target CPU has; the runtime refuses to open it on a CPU that lacks one.
/// Tuning flags (prefer-256-bit, fast-gather, ...) are not ISA extensions
/// and are not recorded, nor are the extensions LLVM emits only for their
/// own intrinsics, which Attune's code never calls (aes, vaes, pclmul,
/// vpclmulqdq, sha, rdrnd, rdseed, adx, xsave): hypervisors hide some of
/// them (a Zen 5 VM without rdseed refused code compiled for znver4) and
/// the code runs without them.
inline constexpr const char *kX86IsaFeatures[] = {
    "cmov",        "cx8",          "cx16",        "fxsr",
    "mmx",         "sse",          "sse2",        "sse3",
    "ssse3",       "sse4.1",       "sse4.2",      "popcnt",
    "sahf",        "lzcnt",        "bmi",         "bmi2",
    "movbe",       "prfchw",       "f16c",        "fma",
    "avx",         "avx2",         "avxvnni",     "avxifma",
    "avxvnniint8", "avxneconvert", "avx512f",     "avx512cd",
    "avx512bw",    "avx512dq",     "avx512vl",    "avx512ifma",
    "avx512vbmi",  "avx512vbmi2",  "avx512vnni",  "avx512bitalg",
    "avx512vpopcntdq", "avx512bf16", "avx512fp16", "avx512vp2intersect",
    "gfni",        "amx-tile",     "amx-int8",    "amx-bf16",
    "amx-fp16",
};
// clang-format on

//===----------------------------------------------------------------------===//
// Metadata
//===----------------------------------------------------------------------===//

struct TensorSpec {
  std::string name;
  attune_dtype dtype = ATTUNE_F32;
  std::vector<int64_t> shape; // -1: dynamic
  /// An input that is a generation state (`attune.state`): the entry writes
  /// its new value into the caller's buffer, in place; it is no output.
  bool state = false;
  /// An input of a generation step that is a context (`attune.context`):
  /// the generation encoder's output of the same name.
  bool context = false;
};

/// One entry point: a public function of the model.
struct EntrySpec {
  std::string name;
  std::vector<TensorSpec> inputs, outputs;
  /// A generation step (`attune.generation_step`): inputs tokens [B, T],
  /// positions [B], lengths [B], then its contexts and states; output
  /// logits [B, V].
  bool generationStep = false;
  /// The generation encoder (`attune.generation_encoder`): the user's
  /// inputs to the contexts (its outputs, named as the step's inputs).
  bool generationEncoder = false;
};

/// The inputs of a generation step before its contexts and states.
inline constexpr size_t kStepTokens = 0, kStepPositions = 1, kStepLengths = 2,
                        kStepFirstState = 3;

/// One SPIR-V kernel of the Vulkan target.
struct KernelSpec {
  std::string entry;  // the kernel's entry point name in the SPIR-V
  std::string symbol; // the global holding its SPIR-V words
  std::string where;  // module@location, for messages (no white space)
  size_t bytes = 0, buffers = 0, pushConstants = 0;
  uint32_t workgroup[3] = {1, 1, 1};
  /// Invocations one subgroup must hold (the kernel reduces over its
  /// workgroup with subgroup arithmetic); 0: no subgroup operations.
  uint32_t subgroup = 0;
};

/// A global the Vulkan host code reads (weights, constants): uploaded once.
struct GlobalSpec {
  std::string symbol;
  size_t bytes = 0;
};

/// A weight kept outside the library (--weights-external): the global
/// `symbol` receives the safetensors tensor `tensor.name`.
struct WeightSpec {
  std::string symbol;
  TensorSpec tensor;
  /// The code rounds it to f16 (f16 GEMM panels, rounded at run time): the
  /// runtime refuses a file whose tensor has a value of magnitude
  /// kF16Overflow or more, which would become an infinity.
  bool f16 = false;
  /// Only its preparation reads it: once that has run, the runtime may
  /// release the global's memory.
  bool preparedOnly = false;
};

struct Metadata {
  bool hasCpu = false, hasVulkan = false;
  /// The CPU the code was compiled for (an LLVM CPU name) and the ISA
  /// features it may use (LLVM names without '+': "avx2", "avx512f", ...).
  std::string cpuName;
  std::vector<std::string> cpuFeatures;
  std::string vulkanProfile;
  std::vector<KernelSpec> kernels;
  std::vector<GlobalSpec> globals;
  std::vector<EntrySpec> entries;
  /// --weights-external: the file recorded at compile time ("-": none).
  std::string weightsFile = "-";
  std::vector<WeightSpec> weights;
  /// Preparation N (the function kPrepareWeightsPrefix + N) reads the
  /// weights with these symbols (no two share one); it must run after they
  /// are read and before any entry.
  std::vector<std::vector<std::string>> preparations;
};

/// The metadata text (ends in "end\n"). Names must hold no white space.
std::string serialize(const Metadata &metadata);

/// Parses `text` into `out`. Returns an empty string on success, else what
/// is wrong ("format version 1, expected 2: recompile ...", "corrupt ...").
std::string parse(const char *text, Metadata &out);

} // namespace attune::artifact

#endif // ATTUNE_ARTIFACT_H
