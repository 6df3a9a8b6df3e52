//===- attune-compile.cpp - attune model -> native shared library ---------===//
//
//   attune-compile MODEL.mlir --weights W.safetensors [--target=cpu,vulkan]
//                 -o MODEL.so
//
// Stages (`--emit=`): attune (decomposed attune ops), linalg, gpu and spirv
// (Vulkan only), llvm-mlir (LLVM dialect), llvm-ir (optimized LLVM IR), obj,
// lib (the default: a shared library with the code, the weights, the SPIR-V
// kernels and the metadata the runtime reads).
//
//===----------------------------------------------------------------------===//

#include "dialect/AttuneDialect.h"
#include "dialect/AttuneOps.h"
#include "lowering/Passes.h"
#include "passes/BindWeights.h"
#include "passes/Passes.h"
#include "attune/artifact.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/AsmState.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Support/FileUtilities.h"
#include "mlir/Support/Timing.h"
#include "mlir/Target/LLVMIR/Dialect/Builtin/BuiltinToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/LLVMIR/LLVMToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/OpenMP/OpenMPToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Export.h"

#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/IR/Module.h"
#include "llvm/Linker/Linker.h"
#include "llvm/MC/MCSubtargetInfo.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FileUtilities.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Support/ToolOutputFile.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/TargetParser/Host.h"

using namespace mlir;
namespace cl = llvm::cl;
namespace artifact = ::attune::artifact;

enum class Emit { Attune, Linalg, Gpu, Spirv, LLVMMLIR, LLVMIR, Obj, Lib };

static cl::OptionCategory category("attune-compile options");
static cl::opt<std::string> inputFile(cl::Positional, cl::desc("<model.mlir>"),
                                      cl::Required, cl::cat(category));
static cl::opt<std::string> outputFile("o", cl::desc("Output file"),
                                       cl::value_desc("path"), cl::init("-"),
                                       cl::cat(category));
static cl::opt<std::string>
    weightsFile("weights", cl::desc("Safetensors file with the model's weights"),
                cl::value_desc("path"), cl::cat(category));
static cl::opt<std::string>
    target("target",
           cl::desc("Targets: cpu, vulkan, or cpu,vulkan for one artifact "
                    "serving both"),
           cl::init("cpu"), cl::cat(category));
static cl::opt<std::string> vulkanProfile(
    "vulkan-profile",
    cl::desc("Vulkan target profile: baseline (default; Vulkan 1.1 minimum "
             "limits), lavapipe or desktop, then ,key=value overrides "
             "(workgroup-size, max-workgroup-invocations, push-constant-bytes, "
             "shared-memory-bytes, subgroup-size, fp16, fused-attention, "
             "shared-attention, subgroup-attention)"),
    cl::init("baseline"), cl::cat(category));
static cl::opt<bool> vulkanFusedAttention(
    "vulkan-fused-attention",
    cl::desc("Vulkan: lower attention to one fused online-softmax kernel "
             "(default); =false keeps the plain lowering with the scores "
             "materialized"),
    cl::init(true), cl::cat(category));
static cl::opt<std::string> dumpSpirv(
    "dump-spirv",
    cl::desc("Also write each Vulkan kernel to DIR/<kernel>.spv"),
    cl::value_desc("DIR"), cl::init(""), cl::cat(category));
static cl::opt<Emit> emit(
    "emit", cl::desc("What to produce"), cl::init(Emit::Lib),
    cl::values(clEnumValN(Emit::Attune, "attune", "decomposed attune IR"),
               clEnumValN(Emit::Linalg, "linalg", "linalg on tensors"),
               clEnumValN(Emit::Gpu, "gpu", "outlined GPU kernels (vulkan)"),
               clEnumValN(Emit::Spirv, "spirv",
                          "SPIR-V kernels and dispatch calls (vulkan)"),
               clEnumValN(Emit::LLVMMLIR, "llvm-mlir", "the LLVM dialect"),
               clEnumValN(Emit::LLVMIR, "llvm-ir", "optimized LLVM IR"),
               clEnumValN(Emit::Obj, "obj", "an object file"),
               clEnumValN(Emit::Lib, "lib", "a shared library (default)")),
    cl::cat(category));
static cl::opt<bool> weightsExternal(
    "weights-external",
    cl::desc("Keep the weights out of the library: the runtime loads them "
             "from the safetensors file when it opens the model (the --weights "
             "file, recorded by absolute path, or one given at load time)"),
    cl::init(false), cl::cat(category));
static cl::opt<bool> parallel(
    "parallel",
    cl::desc("Run the kernels' parallel loops on OpenMP threads (attune-run "
             "--threads N): the GEMMs' column tiles and tiled attention's heads"),
    cl::init(false), cl::cat(category));
static cl::opt<std::string> ompSchedule(
    "omp-schedule",
    cl::desc("With --parallel: how the OpenMP worksharing loops share out "
             "their iterations (default guided; runtime reads OMP_SCHEDULE)"),
    cl::value_desc("static|dynamic|guided|runtime"), cl::init("guided"),
    cl::cat(category));
static cl::opt<int64_t>
    ompChunk("omp-chunk",
             cl::desc("With --parallel: iterations per chunk of --omp-schedule "
                      "(default 0: the OpenMP runtime's)"),
             cl::init(0), cl::cat(category));
static cl::opt<bool> explainFusion(
    "explain-fusion",
    cl::desc("Report each fusion (attention, epilogues, packed projections) "
             "and why each rejected candidate was not fused, as remarks"),
    cl::init(false), cl::cat(category));
static cl::opt<int64_t> attentionTileQ(
    "attention-tile-q", cl::desc("Queries per tile of tiled attention"),
    cl::init(64), cl::cat(category));
static cl::opt<int64_t> attentionTileK(
    "attention-tile-k", cl::desc("Keys per tile of tiled attention"),
    cl::init(64), cl::cat(category));
static cl::opt<int64_t> attentionMinLength(
    "attention-min-length",
    cl::desc("Tile attention from this static key length on (dynamic lengths "
             "are always tiled)"),
    cl::init(128), cl::cat(category));
static cl::opt<std::string> cpu(
    "cpu",
    cl::desc("Target CPU: native (the default: this machine), an x86-64 "
             "level for artifacts that run on a fleet (x86-64, x86-64-v2, "
             "x86-64-v3, x86-64-v4) or a CPU name (haswell, icelake-server, "
             "sapphirerapids, znver4, ...). The artifact records the ISA "
             "extensions it uses and refuses to load on a CPU without them"),
    cl::init(""), cl::cat(category));
static cl::opt<std::string>
    features("features", cl::desc("Target features, e.g. +avx2,-avx512f "
                                  "(default: the host's)"),
             cl::init(""), cl::cat(category));

namespace {

/// One entry point of the artifact: a public func.func on tensors.
struct TensorInfo {
  std::string name, dtype;
  SmallVector<int64_t> shape; // -1: dynamic
};
struct EntryInfo {
  std::string name;
  std::vector<TensorInfo> inputs, outputs;
};

FailureOr<std::string> dtypeName(Location loc, Type type, StringRef what) {
  if (const char *name = mlir::attune::artifactDtypeName(type))
    return std::string(name);
  return emitError(loc) << what << " has element type " << type
                        << "; entry points take f32, f16, bf16, i32 or i64 "
                           "tensors",
         failure();
}

FailureOr<TensorInfo> tensorInfo(Location loc, Type type, DictionaryAttr attrs,
                                 std::string defaultName, StringRef what) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  if (!tensor)
    return emitError(loc) << what << " has type " << type
                          << "; entry points take and return ranked tensors",
           failure();
  TensorInfo info;
  info.name = std::move(defaultName);
  if (attrs)
    if (auto name = attrs.getAs<StringAttr>("attune.name"))
      info.name = name.str();
  if (info.name.empty() ||
      llvm::any_of(info.name, [](char c) { return !llvm::isAlnum(c) && c != '_' && c != '.' && c != '-'; }))
    return emitError(loc) << what << " name '" << info.name
                          << "' must be letters, digits, '_', '.' or '-'",
           failure();
  FailureOr<std::string> dtype =
      dtypeName(loc, tensor.getElementType(), what);
  if (failed(dtype))
    return failure();
  info.dtype = *dtype;
  for (int64_t d : tensor.getShape())
    info.shape.push_back(ShapedType::isDynamic(d) ? -1 : d);
  return info;
}

/// Entry points are the public functions of the module.
FailureOr<std::vector<EntryInfo>> collectEntries(ModuleOp module) {
  std::vector<EntryInfo> entries;
  for (auto func : module.getOps<func::FuncOp>()) {
    if (!func.isPublic() || func.isExternal())
      continue;
    EntryInfo entry;
    entry.name = func.getSymName().str();
    FunctionType type = func.getFunctionType();
    for (unsigned i = 0; i < type.getNumInputs(); ++i) {
      FailureOr<TensorInfo> info = tensorInfo(
          func.getLoc(), type.getInput(i), func.getArgAttrDict(i),
          "input" + std::to_string(i),
          ("input #" + std::to_string(i) + " of @" + entry.name));
      if (failed(info))
        return failure();
      entry.inputs.push_back(*info);
    }
    for (unsigned i = 0; i < type.getNumResults(); ++i) {
      FailureOr<TensorInfo> info = tensorInfo(
          func.getLoc(), type.getResult(i), func.getResultAttrDict(i),
          "output" + std::to_string(i),
          ("result #" + std::to_string(i) + " of @" + entry.name));
      if (failed(info))
        return failure();
      entry.outputs.push_back(*info);
    }
    if (entry.outputs.empty())
      return emitError(func.getLoc())
                 << "entry point @" << entry.name << " returns nothing",
             failure();
    entries.push_back(std::move(entry));
  }
  if (entries.empty())
    return emitError(module.getLoc())
               << "the model has no public func.func to compile",
           failure();
  return entries;
}

/// A weight kept outside the library (--weights-external).
struct ExternalWeight {
  std::string symbol;
  TensorInfo tensor; // name = the state_dict key
};
struct ExternalWeights {
  std::string file; // absolute path, or "-" when none was given
  std::vector<ExternalWeight> weights;
};

/// One SPIR-V kernel of the Vulkan target (attune.vulkan.kernels).
struct VulkanKernel {
  std::string loc, module, entry, symbol;
  int64_t bytes, buffers, pushConstants;
  SmallVector<int32_t> workgroup;
  int64_t subgroup = 0; // subgroup invocations the kernel needs; 0: none
};
/// A global the Vulkan host code reads (attune.vulkan.globals).
struct VulkanGlobal {
  std::string symbol;
  int64_t bytes;
};
struct VulkanInfo {
  std::string profile;
  std::vector<VulkanKernel> kernels;
  std::vector<VulkanGlobal> globals;
};

artifact::TensorSpec tensorSpec(const TensorInfo &t) {
  artifact::TensorSpec spec;
  spec.name = t.name;
  spec.dtype = artifact::dtypeNamed(t.dtype)->dtype;
  spec.shape.assign(t.shape.begin(), t.shape.end());
  return spec;
}

/// The metadata the runtime reads (attune/artifact.h).
std::string metadataText(ArrayRef<EntryInfo> entries,
                         const ExternalWeights &external, bool hasCpu,
                         const std::optional<VulkanInfo> &vulkan,
                         const llvm::TargetMachine &tm) {
  artifact::Metadata m;
  m.hasCpu = hasCpu;
  m.hasVulkan = vulkan.has_value();
  m.cpuName = tm.getTargetCPU().str();
  const llvm::MCSubtargetInfo *sti = tm.getMCSubtargetInfo();
  for (const char *feature : artifact::kX86IsaFeatures)
    if (sti->checkFeatures(std::string("+") + feature))
      m.cpuFeatures.push_back(feature);
  if (vulkan) {
    m.vulkanProfile = vulkan->profile;
    for (const VulkanKernel &k : vulkan->kernels) {
      artifact::KernelSpec spec;
      spec.entry = k.entry;
      spec.symbol = k.symbol;
      spec.where = k.module + "@" + k.loc;
      spec.bytes = k.bytes;
      spec.buffers = k.buffers;
      spec.pushConstants = k.pushConstants;
      for (int i = 0; i < 3; ++i)
        spec.workgroup[i] = k.workgroup[i];
      spec.subgroup = k.subgroup;
      m.kernels.push_back(std::move(spec));
    }
    for (const VulkanGlobal &g : vulkan->globals)
      m.globals.push_back({g.symbol, size_t(g.bytes)});
  }
  for (const EntryInfo &e : entries) {
    artifact::EntrySpec spec;
    spec.name = e.name;
    for (const TensorInfo &t : e.inputs)
      spec.inputs.push_back(tensorSpec(t));
    for (const TensorInfo &t : e.outputs)
      spec.outputs.push_back(tensorSpec(t));
    m.entries.push_back(std::move(spec));
  }
  m.weightsFile = external.file;
  for (const ExternalWeight &w : external.weights)
    m.weights.push_back({w.symbol, tensorSpec(w.tensor)});
  return artifact::serialize(m);
}

/// Externalizes the weights of `module` (attune-externalize-weights) and
/// describes them for the metadata. With a weights file, every weight is
/// first checked against it.
FailureOr<ExternalWeights>
externalizeWeights(ModuleOp module, const ::attune::SafetensorsFile *file) {
  ExternalWeights result;
  result.file = "-";
  bool ok = true;
  if (file) {
    SmallString<256> path(file->path());
    llvm::sys::fs::make_absolute(path);
    result.file = path.str().str();
    module.walk([&](mlir::attune::WeightOp op) {
      ok &= succeeded(mlir::attune::checkWeight(op, *file));
    });
  }
  module.walk([&](mlir::attune::WeightOp op) {
    if (llvm::any_of(op.getName(), [](char c) { return llvm::isSpace(c); })) {
      op.emitOpError() << "weight name '" << op.getName()
                       << "' contains white space; external weights need "
                          "names without it";
      ok = false;
    }
  });
  if (!ok)
    return failure();
  PassManager pm(module.getContext());
  pm.addPass(mlir::attune::createAttuneExternalizeWeights());
  if (failed(pm.run(module)))
    return failure();
  for (auto global : module.getOps<memref::GlobalOp>()) {
    auto name = global->getAttrOfType<StringAttr>(mlir::attune::kWeightNameAttr);
    if (!name)
      continue;
    FailureOr<TensorInfo> info = tensorInfo(
        global.getLoc(),
        RankedTensorType::get(global.getType().getShape(),
                              global.getType().getElementType()),
        nullptr, name.str(), "weight");
    if (failed(info))
      return failure();
    info->name = name.str();
    result.weights.push_back({global.getSymName().str(), *info});
  }
  return result;
}

/// Adds `attune_model_metadata` and, per entry, `void attune_invoke_<name>(
/// void **args)` calling `_mlir_ciface_<name>(args[0], args[1], ...)`: the
/// result struct then one descriptor per input, all by pointer.
/// Vulkan host functions are `attune_vk_<entry>`, their wrappers
/// `attune_vk_invoke_<entry>`.
LogicalResult addRuntimeInterface(llvm::Module &module,
                                  ArrayRef<EntryInfo> entries,
                                  const ExternalWeights &external, bool hasCpu,
                                  const std::optional<VulkanInfo> &vulkan,
                                  const llvm::TargetMachine &tm) {
  llvm::LLVMContext &ctx = module.getContext();
  llvm::Constant *text = llvm::ConstantDataArray::getString(
      ctx, metadataText(entries, external, hasCpu, vulkan, tm));
  new llvm::GlobalVariable(module, text->getType(), /*isConstant=*/true,
                           llvm::GlobalValue::ExternalLinkage, text,
                           artifact::kMetadataSymbol);
  llvm::Type *ptr = llvm::PointerType::get(ctx, 0);
  SmallVector<std::pair<std::string, std::string>> wrappers;
  for (const EntryInfo &e : entries) {
    if (hasCpu)
      wrappers.push_back({"_mlir_ciface_" + e.name,
                          artifact::kInvokePrefix + e.name});
    if (vulkan)
      wrappers.push_back(
          {std::string("_mlir_ciface_") + artifact::kVulkanHostPrefix + e.name,
           artifact::kVulkanInvokePrefix + e.name});
  }
  for (const auto &[from, to] : wrappers) {
    llvm::Function *ciface = module.getFunction(from);
    if (!ciface) {
      llvm::errs() << "error: no C interface " << from << "\n";
      return failure();
    }
    auto *fnType = llvm::FunctionType::get(llvm::Type::getVoidTy(ctx), {ptr},
                                           /*isVarArg=*/false);
    auto *fn = llvm::Function::Create(fnType, llvm::GlobalValue::ExternalLinkage,
                                      to, module);
    llvm::IRBuilder<> b(llvm::BasicBlock::Create(ctx, "entry", fn));
    SmallVector<llvm::Value *> args;
    for (unsigned i = 0; i < ciface->arg_size(); ++i) {
      llvm::Value *slot = b.CreateConstGEP1_64(ptr, fn->getArg(0), i);
      args.push_back(b.CreateLoad(ptr, slot));
    }
    b.CreateCall(ciface, args);
    b.CreateRetVoid();
  }
  return success();
}

std::unique_ptr<llvm::TargetMachine> createTargetMachine() {
  std::string triple = llvm::sys::getDefaultTargetTriple();
  std::string error;
  const llvm::Target *t = llvm::TargetRegistry::lookupTarget(llvm::Triple(triple), error);
  if (!t) {
    llvm::errs() << "error: no LLVM target for " << triple << ": " << error
                 << "\n";
    return nullptr;
  }
  bool host = cpu.empty() || cpu == "native";
  std::string cpuName = host ? llvm::sys::getHostCPUName().str() : cpu;
  std::string featureString = features;
  if (host && features.empty()) {
    SmallVector<std::string> hostFeatures;
    for (const auto &f : llvm::sys::getHostCPUFeatures())
      hostFeatures.push_back((f.second ? "+" : "-") + f.first().str());
    featureString = llvm::join(hostFeatures, ",");
  }
  // Unknown names are errors, not LLVM's warning and a generic CPU.
  std::unique_ptr<llvm::MCSubtargetInfo> generic(
      t->createMCSubtargetInfo(llvm::Triple(triple), "", ""));
  if (!generic->isCPUStringValid(cpuName)) {
    llvm::errs() << "error: --cpu=" << cpu << ": unknown CPU (e.g. native, "
                 << "x86-64, x86-64-v2, x86-64-v3, x86-64-v4, haswell, "
                    "skylake-avx512, icelake-server, sapphirerapids, znver3, "
                    "znver4; `llc -mcpu=help` lists them all)\n";
    return nullptr;
  }
  if (!features.empty()) {
    SmallVector<StringRef> list;
    StringRef(features).split(list, ',', -1, /*KeepEmpty=*/false);
    for (StringRef f : list) {
      StringRef name = f.drop_front(f.starts_with("+") || f.starts_with("-"));
      bool known = (f.starts_with("+") || f.starts_with("-")) &&
                   llvm::any_of(generic->getAllProcessorFeatures(),
                                [&](const llvm::SubtargetFeatureKV &kv) {
                                  return name == kv.Key;
                                });
      if (!known) {
        llvm::errs() << "error: --features=" << features << ": '" << f
                     << "' is not +FEATURE or -FEATURE with a known x86 "
                        "feature (e.g. +avx2, -avx512f)\n";
        return nullptr;
      }
    }
  }
  llvm::TargetOptions options;
  return std::unique_ptr<llvm::TargetMachine>(t->createTargetMachine(
      llvm::Triple(triple), cpuName, featureString, options, llvm::Reloc::PIC_,
      std::nullopt, llvm::CodeGenOptLevel::Aggressive));
}

void optimize(llvm::Module &module, llvm::TargetMachine &tm) {
  llvm::LoopAnalysisManager lam;
  llvm::FunctionAnalysisManager fam;
  llvm::CGSCCAnalysisManager cgam;
  llvm::ModuleAnalysisManager mam;
  // No LLVM loop unrolling: the kernels arrive unrolled where it pays (the
  // vector ops' unrolling, attune-prefetch-panels' k loops). Measured on
  // this VM: compile time -27 % for the 12-layer encoder (57 -> 42 s), -40 %
  // for one layer and the decode step; run times the same within the noise
  // (encoder layers, decode step, attention at L = 2048 and 4096, linears).
  llvm::PipelineTuningOptions tuning;
  tuning.LoopUnrolling = false;
  llvm::PassBuilder pb(&tm, tuning);
  pb.registerModuleAnalyses(mam);
  pb.registerCGSCCAnalyses(cgam);
  pb.registerFunctionAnalyses(fam);
  pb.registerLoopAnalyses(lam);
  pb.crossRegisterProxies(lam, fam, cgam, mam);
  pb.buildPerModuleDefaultPipeline(llvm::OptimizationLevel::O3).run(module, mam);
}

LogicalResult emitObject(llvm::Module &module, llvm::TargetMachine &tm,
                         StringRef path) {
  std::error_code ec;
  llvm::raw_fd_ostream out(path, ec, llvm::sys::fs::OF_None);
  if (ec) {
    llvm::errs() << "error: cannot write " << path << ": " << ec.message()
                 << "\n";
    return failure();
  }
  llvm::legacy::PassManager pm;
  if (tm.addPassesToEmitFile(pm, out, nullptr,
                             llvm::CodeGenFileType::ObjectFile)) {
    llvm::errs() << "error: the target cannot emit object files\n";
    return failure();
  }
  pm.run(module);
  return success();
}

/// Links `object` into the shared library `output` with the system driver.
LogicalResult linkSharedLibrary(StringRef object, StringRef output) {
  llvm::ErrorOr<std::string> driver = llvm::sys::findProgramByName("cc");
  if (!driver)
    driver = llvm::sys::findProgramByName("gcc");
  if (!driver) {
    llvm::errs() << "error: no C compiler driver (cc) on PATH to link the "
                    "shared library; install gcc or use --emit=obj\n";
    return failure();
  }
  SmallVector<StringRef> args = {*driver, "-shared", "-o", output, object,
                                 "-Wl,-z,noexecstack"};
  // Parallel kernels call into LLVM's OpenMP runtime.
  std::string ompDir = "-L" ATTUNE_OMP_LIB_DIR;
  std::string ompRpath = "-Wl,-rpath," ATTUNE_OMP_LIB_DIR;
  if (parallel)
    args.append({ompDir, ompRpath, "-lomp"});
  args.push_back("-lm");
  std::string message;
  int rc = llvm::sys::ExecuteAndWait(*driver, args, std::nullopt, {}, 0, 0,
                                     &message);
  if (rc != 0) {
    llvm::errs() << "error: linking " << output << " failed"
                 << (message.empty() ? "" : ": " + message) << "\n";
    return failure();
  }
  return success();
}

LogicalResult printModule(ModuleOp module) {
  std::string error;
  auto out = openOutputFile(outputFile, &error);
  if (!out) {
    llvm::errs() << "error: " << error << "\n";
    return failure();
  }
  module.print(out->os());
  out->keep();
  return success();
}

LogicalResult compile(MLIRContext &context, llvm::SourceMgr &sourceMgr) {
  OwningOpRef<ModuleOp> module = parseSourceFile<ModuleOp>(sourceMgr, &context);
  if (!module)
    return failure();
  bool hasCpu = false, hasVulkan = false;
  {
    SmallVector<StringRef> names;
    StringRef(target).split(names, ',');
    for (StringRef name : names) {
      if (name == "cpu") {
        hasCpu = true;
      } else if (name == "vulkan") {
        hasVulkan = true;
      } else {
        llvm::errs() << "error: --target=" << target << ": unknown target '"
                     << name << "' (targets: cpu, vulkan, cpu,vulkan)\n";
        return failure();
      }
    }
  }
  if (!parallel &&
      (ompSchedule.getNumOccurrences() || ompChunk.getNumOccurrences())) {
    llvm::errs() << "error: --omp-schedule and --omp-chunk need --parallel\n";
    return failure();
  }
  if (!llvm::is_contained({"static", "dynamic", "guided", "runtime"},
                          ompSchedule.getValue())) {
    llvm::errs() << "error: --omp-schedule=" << ompSchedule
                 << ": expected static, dynamic, guided or runtime\n";
    return failure();
  }
  if (ompChunk < 0 || (ompChunk > 0 && ompSchedule == "runtime")) {
    llvm::errs() << "error: --omp-chunk=" << ompChunk << ": expected "
                 << (ompChunk < 0 ? "a chunk of 0 or more iterations"
                                  : "no chunk with --omp-schedule=runtime "
                                    "(OMP_SCHEDULE carries it)")
                 << "\n";
    return failure();
  }
  if (hasVulkan && parallel && !hasCpu) {
    llvm::errs() << "error: --parallel is a CPU option; --target=vulkan "
                    "runs its kernels on the device\n";
    return failure();
  }
  FailureOr<std::vector<EntryInfo>> entries = collectEntries(*module);
  if (failed(entries))
    return failure();
  // The names now live in the metadata; the lowering has no use for them.
  for (auto func : module->getOps<func::FuncOp>()) {
    for (unsigned i = 0; i < func.getNumArguments(); ++i)
      func.removeArgAttr(i, "attune.name");
    for (unsigned i = 0; i < func.getNumResults(); ++i)
      func.removeResultAttr(i, StringAttr::get(&context, "attune.name"));
  }

  // Bind (or externalize) the weights before anything else, so that a model
  // and its weights that disagree fail early with the weight's location.
  bool hasWeights = false;
  module->walk([&](mlir::attune::WeightOp) { hasWeights = true; });
  ExternalWeights external;
  if (hasWeights && weightsExternal) {
    std::unique_ptr<::attune::SafetensorsFile> file;
    if (!weightsFile.empty()) {
      std::string problem;
      file = ::attune::SafetensorsFile::open(weightsFile, problem);
      if (!file) {
        llvm::errs() << "error: " << problem << "\n";
        return failure();
      }
    }
    FailureOr<ExternalWeights> result = externalizeWeights(*module, file.get());
    if (failed(result))
      return failure();
    external = std::move(*result);
  } else if (hasWeights) {
    if (weightsFile.empty()) {
      SmallVector<std::string> names;
      module->walk([&](mlir::attune::WeightOp op) { names.push_back(op.getName().str()); });
      emitError(module->getLoc())
          << "the model has " << names.size()
          << " attune.weight op(s) (first: '" << names.front()
          << "'); pass --weights FILE.safetensors";
      return failure();
    }
    std::string problem;
    std::unique_ptr<::attune::SafetensorsFile> weights =
        ::attune::SafetensorsFile::open(weightsFile, problem);
    if (!weights) {
      llvm::errs() << "error: " << problem << "\n";
      return failure();
    }
    if (failed(mlir::attune::bindWeights(*module, *weights)))
      return failure();
  }

  // One lowering per target, from the same bound module.
  bool onlyVulkan = !hasCpu && hasVulkan;
  if ((emit == Emit::Gpu || emit == Emit::Spirv) && !onlyVulkan) {
    llvm::errs() << "error: --emit=gpu and --emit=spirv need --target=vulkan\n";
    return failure();
  }
  if (hasCpu && hasVulkan &&
      (emit == Emit::Attune || emit == Emit::Linalg || emit == Emit::LLVMMLIR)) {
    llvm::errs() << "error: --emit=attune, linalg and llvm-mlir show one "
                    "target's IR; choose --target=cpu or --target=vulkan\n";
    return failure();
  }
  OwningOpRef<ModuleOp> vulkanModule;
  if (hasVulkan)
    vulkanModule = cast<ModuleOp>((*module)->clone());

  if (hasCpu) {
    mlir::attune::CpuStage stage = emit == Emit::Attune   ? mlir::attune::CpuStage::Attune
                             : emit == Emit::Linalg ? mlir::attune::CpuStage::Linalg
                                                    : mlir::attune::CpuStage::LLVM;
    PassManager pm(&context);
    if (failed(applyPassManagerCLOptions(pm)))
      return failure();
    applyDefaultTimingPassManagerCLOptions(pm);
    mlir::attune::CpuOptions options;
    options.parallel = parallel;
    options.ompSchedule = ompSchedule;
    options.ompChunk = ompChunk;
    options.explainFusion = explainFusion;
    options.attentionTileQ = attentionTileQ;
    options.attentionTileK = attentionTileK;
    options.attentionMinLength = attentionMinLength;
    mlir::attune::buildCpuPipeline(pm, stage, options);
    if (failed(pm.run(*module)))
      return failure();
    if (emit == Emit::Attune || emit == Emit::Linalg || emit == Emit::LLVMMLIR)
      return printModule(*module);
  }

  std::optional<VulkanInfo> vulkan;
  if (hasVulkan) {
    llvm::Expected<mlir::attune::VulkanProfile> profile =
        mlir::attune::parseVulkanProfile(vulkanProfile);
    if (!profile) {
      llvm::errs() << "error: " << llvm::toString(profile.takeError()) << "\n";
      return failure();
    }
    if (!vulkanFusedAttention)
      profile->fusedAttention = false;
    // Host functions get their own names so that both targets can share
    // one library.
    for (auto func : vulkanModule->getOps<func::FuncOp>()) {
      if (!func.isPublic() || func.isExternal())
        continue;
      auto name = StringAttr::get(
          &context, artifact::kVulkanHostPrefix + func.getSymName().str());
      if (failed(SymbolTable::replaceAllSymbolUses(func, name, *vulkanModule)))
        return failure();
      func.setSymNameAttr(name);
    }
    PassManager pm(&context);
    if (failed(applyPassManagerCLOptions(pm)))
      return failure();
    applyDefaultTimingPassManagerCLOptions(pm);
    if (emit == Emit::Attune || emit == Emit::Linalg) {
      mlir::attune::buildCpuPipeline(pm, emit == Emit::Attune
                                       ? mlir::attune::CpuStage::Attune
                                       : mlir::attune::CpuStage::Linalg);
      if (failed(pm.run(*vulkanModule)))
        return failure();
      return printModule(*vulkanModule);
    }
    mlir::attune::VulkanStage stage = emit == Emit::Gpu     ? mlir::attune::VulkanStage::Gpu
                                : emit == Emit::Spirv ? mlir::attune::VulkanStage::Spirv
                                                      : mlir::attune::VulkanStage::LLVM;
    // With both targets, the CPU pipeline has explained the fusions.
    mlir::attune::buildVulkanPipeline(pm, stage, *profile,
                                explainFusion && !hasCpu);
    if (failed(pm.run(*vulkanModule)))
      return failure();
    if (emit == Emit::Gpu || emit == Emit::Spirv || emit == Emit::LLVMMLIR)
      return printModule(*vulkanModule);
    vulkan.emplace();
    vulkan->profile = profile->name;
    auto kernels =
        (*vulkanModule)->getAttrOfType<ArrayAttr>("attune.vulkan.kernels");
    auto globals =
        (*vulkanModule)->getAttrOfType<ArrayAttr>("attune.vulkan.globals");
    if (!kernels || !globals) {
      llvm::errs() << "error: the Vulkan pipeline left no kernel table\n";
      return failure();
    }
    for (Attribute a : kernels) {
      auto d = cast<DictionaryAttr>(a);
      VulkanKernel k;
      k.loc = d.getAs<StringAttr>("loc").str();
      for (char &c : k.loc)
        if (llvm::isSpace(c))
          c = '_';
      k.module = d.getAs<StringAttr>("module").str();
      k.entry = d.getAs<StringAttr>("entry").str();
      k.symbol = d.getAs<StringAttr>("spirv_symbol").str();
      k.bytes = d.getAs<IntegerAttr>("spirv_bytes").getInt();
      k.buffers = d.getAs<IntegerAttr>("buffers").getInt();
      k.pushConstants = d.getAs<IntegerAttr>("push_constants").getInt();
      k.workgroup = llvm::to_vector(
          d.getAs<DenseI32ArrayAttr>("workgroup").asArrayRef());
      if (auto sg = d.getAs<IntegerAttr>("subgroup"))
        k.subgroup = sg.getInt();
      vulkan->kernels.push_back(std::move(k));
    }
    for (Attribute a : globals) {
      auto d = cast<DictionaryAttr>(a);
      vulkan->globals.push_back({d.getAs<StringAttr>("symbol").str(),
                                 d.getAs<IntegerAttr>("bytes").getInt()});
    }
    if (!dumpSpirv.empty()) {
      if (std::error_code ec = llvm::sys::fs::create_directories(dumpSpirv)) {
        llvm::errs() << "error: cannot create " << dumpSpirv << ": "
                     << ec.message() << "\n";
        return failure();
      }
      for (auto global : vulkanModule->getOps<LLVM::GlobalOp>()) {
        StringRef kernel = global.getSymName();
        if (!kernel.consume_front(artifact::kSpirvPrefix))
          continue;
        auto bytes = cast<StringAttr>(*global.getValue());
        std::string path = (dumpSpirv + "/" + kernel + ".spv").str();
        std::error_code ec;
        llvm::raw_fd_ostream out(path, ec, llvm::sys::fs::OF_None);
        if (ec) {
          llvm::errs() << "error: cannot write " << path << ": "
                       << ec.message() << "\n";
          return failure();
        }
        out << bytes.getValue();
      }
    }
  }

  llvm::LLVMContext llvmContext;
  std::unique_ptr<llvm::Module> llvmModule;
  if (hasCpu) {
    llvmModule = translateModuleToLLVMIR(*module, llvmContext, "attune_model");
    if (!llvmModule) {
      llvm::errs() << "error: translation to LLVM IR failed\n";
      return failure();
    }
  }
  if (hasVulkan) {
    std::unique_ptr<llvm::Module> host =
        translateModuleToLLVMIR(*vulkanModule, llvmContext, "attune_model");
    if (!host) {
      llvm::errs() << "error: translation of the Vulkan host code to LLVM IR "
                      "failed\n";
      return failure();
    }
    if (!llvmModule) {
      llvmModule = std::move(host);
    } else {
      // Globals both define (the check handler slot, external weights)
      // are the CPU side's.
      for (llvm::GlobalVariable &g : host->globals())
        if (!g.isDeclaration() && !g.hasLocalLinkage())
          if (llvm::GlobalVariable *other =
                  llvmModule->getGlobalVariable(g.getName()))
            if (!other->isDeclaration()) {
              g.setInitializer(nullptr);
              g.setLinkage(llvm::GlobalValue::ExternalLinkage);
            }
      // Helpers both lowerings generate (dealloc_helper, ...) stay private
      // to each side.
      for (llvm::Function &f : host->functions())
        if (!f.isDeclaration() && !f.hasLocalLinkage() &&
            llvmModule->getFunction(f.getName()))
          f.setLinkage(llvm::GlobalValue::InternalLinkage);
      if (llvm::Linker::linkModules(*llvmModule, std::move(host))) {
        llvm::errs() << "error: cannot link the CPU and Vulkan code\n";
        return failure();
      }
    }
  }
  std::unique_ptr<llvm::TargetMachine> tm = createTargetMachine();
  if (!tm)
    return failure();
  llvmModule->setDataLayout(tm->createDataLayout());
  llvmModule->setTargetTriple(tm->getTargetTriple());
  if (failed(addRuntimeInterface(*llvmModule, *entries, external, hasCpu,
                                 vulkan, *tm)))
    return failure();
  optimize(*llvmModule, *tm);

  if (emit == Emit::LLVMIR) {
    std::string error;
    auto out = openOutputFile(outputFile, &error);
    if (!out) {
      llvm::errs() << "error: " << error << "\n";
      return failure();
    }
    llvmModule->print(out->os(), nullptr);
    out->keep();
    return success();
  }
  if (outputFile == "-") {
    llvm::errs() << "error: --emit=obj and --emit=lib need -o PATH\n";
    return failure();
  }
  if (emit == Emit::Obj)
    return emitObject(*llvmModule, *tm, outputFile);

  SmallString<128> object;
  if (std::error_code ec =
          llvm::sys::fs::createTemporaryFile("attune", "o", object)) {
    llvm::errs() << "error: cannot create a temporary object file: "
                 << ec.message() << "\n";
    return failure();
  }
  llvm::FileRemover removeObject(object);
  if (failed(emitObject(*llvmModule, *tm, object)))
    return failure();
  return linkSharedLibrary(object, outputFile);
}

} // namespace

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  llvm::InitializeNativeTarget();
  llvm::InitializeNativeTargetAsmPrinter();

  registerAsmPrinterCLOptions();
  registerMLIRContextCLOptions();
  registerPassManagerCLOptions();
  registerDefaultTimingManagerCLOptions();
  cl::HideUnrelatedOptions({&category, &cl::getGeneralCategory()});
  // The MLIR options (--mlir-print-ir-after-all, --mlir-timing, ...) stay
  // visible: they are registered in their own categories.
  cl::ParseCommandLineOptions(
      argc, argv,
      "attune-compile: compile an attune model to a native shared library\n\n"
      "  attune-compile MODEL.mlir --weights W.safetensors -o MODEL.so\n");

  DialectRegistry registry;
  registry.insert<mlir::attune::AttuneDialect>();
  mlir::attune::registerFastSubsetModels(registry);
  registerAllDialects(registry);
  registerAllExtensions(registry);
  registerBuiltinDialectTranslation(registry);
  registerLLVMDialectTranslation(registry);
  registerOpenMPDialectTranslation(registry);
  registerAllPasses();
  MLIRContext context(registry);
  context.loadAllAvailableDialects();

  std::string error;
  auto input = openInputFile(inputFile, &error);
  if (!input) {
    llvm::errs() << "error: " << error << "\n";
    return 1;
  }
  llvm::SourceMgr sourceMgr;
  sourceMgr.AddNewSourceBuffer(std::move(input), llvm::SMLoc());
  SourceMgrDiagnosticHandler handler(sourceMgr, &context);
  return failed(compile(context, sourceMgr)) ? 1 : 0;
}
