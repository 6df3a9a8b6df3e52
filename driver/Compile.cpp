//===- Compile.cpp - the compile flow: model -> artifact ------------------===//

#include "driver/Compile.h"
#include "dialect/AttuneDialect.h"
#include "dialect/AttuneOps.h"
#include "driver/Artifact.h"
#include "driver/DataObject.h"
#include "frontend/onnx/Import.h"
#include "lowering/CPU/CpuKernels.h"
#include "lowering/Vulkan/KernelTable.h"
#include "passes/BindWeights.h"
#include "passes/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Support/FileUtilities.h"
#include "mlir/Support/Timing.h"
#include "mlir/Target/LLVMIR/Dialect/Builtin/BuiltinToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/LLVMIR/LLVMToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/OpenMP/OpenMPToLLVMIRTranslation.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FileUtilities.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/ToolOutputFile.h"

#include <unistd.h>

namespace mlir::attune::driver {

namespace artifact = ::attune::artifact;

void registerCompilerDialects(DialectRegistry &registry) {
  registry.insert<AttuneDialect>();
  registerFastSubsetModels(registry);
  registerBufferizationModels(registry);
  registerAllDialects(registry);
  registerAllExtensions(registry);
  registerBuiltinDialectTranslation(registry);
  registerLLVMDialectTranslation(registry);
  registerOpenMPDialectTranslation(registry);
}

namespace {

/// Constants from this size on go into the data object (smaller ones stay
/// where LLVM can see their values).
constexpr size_t kDataObjectMinBytes = 4096;

//===----------------------------------------------------------------------===//
// Entry points
//===----------------------------------------------------------------------===//

FailureOr<artifact::TensorSpec> tensorSpec(Location loc, Type type,
                                           DictionaryAttr attrs,
                                           std::string defaultName,
                                           StringRef what) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  if (!tensor)
    return emitError(loc) << what << " has type " << type
                          << "; entry points take and return ranked tensors",
           failure();
  artifact::TensorSpec spec;
  spec.name = std::move(defaultName);
  // A state's or context's name is its name in the artifact too.
  if (attrs) {
    for (StringRef key : {kStateAttr, kContextAttr, kNameAttr})
      if (auto name = attrs.getAs<StringAttr>(key)) {
        spec.name = name.str();
        break;
      }
  }
  if (spec.name.empty() || llvm::any_of(spec.name, [](char c) {
        return !llvm::isAlnum(c) && c != '_' && c != '.' && c != '-';
      }))
    return emitError(loc) << what << " name '" << spec.name
                          << "' must be letters, digits, '_', '.' or '-'",
           failure();
  const char *dtype = artifactDtypeName(tensor.getElementType());
  if (!dtype)
    return emitError(loc) << what << " has element type "
                          << tensor.getElementType()
                          << "; entry points take f32, f16, bf16, i32, i64 "
                             "or bool tensors",
           failure();
  spec.dtype = artifact::dtypeNamed(dtype)->dtype;
  for (int64_t d : tensor.getShape())
    spec.shape.push_back(ShapedType::isDynamic(d) ? -1 : d);
  return spec;
}

/// Across functions: at most one generation step and one encoder; the
/// step's contexts are outputs of the encoder, with the same dtype and
/// shape (a dynamic extent on either side matches).
LogicalResult
checkGenerationContract(ModuleOp module,
                        const std::vector<artifact::EntrySpec> &entries) {
  const artifact::EntrySpec *step = nullptr, *encoder = nullptr;
  for (const artifact::EntrySpec &e : entries) {
    const artifact::EntrySpec *&slot =
        e.generationStep ? step : e.generationEncoder ? encoder : step;
    if (!e.generationStep && !e.generationEncoder)
      continue;
    if (slot)
      return emitError(module.getLoc())
                 << "the model has two generation "
                 << (e.generationStep ? "steps" : "encoders") << ", @"
                 << slot->name << " and @" << e.name,
             failure();
    slot = &e;
  }
  if (encoder && !step)
    return emitError(module.getLoc())
               << "@" << encoder->name
               << " is a generation encoder, but no generation step reads "
                  "its contexts",
           failure();
  if (!step)
    return success();
  for (const artifact::TensorSpec &in : step->inputs) {
    // A state may take its initial value from the encoder's output of its
    // name; a context must.
    if (!in.context && !(in.state && encoder &&
                         llvm::any_of(encoder->outputs, [&](auto &o) {
                           return o.name == in.name;
                         })))
      continue;
    const artifact::TensorSpec *out = nullptr;
    if (encoder)
      for (const artifact::TensorSpec &o : encoder->outputs)
        if (o.name == in.name)
          out = &o;
    if (!out)
      return emitError(module.getLoc())
                 << "the context '" << in.name << "' of @" << step->name
                 << " is no output of a generation encoder (a function "
                    "marked "
                 << kGenerationEncoderAttr << " returning it)",
             failure();
    bool same = out->dtype == in.dtype && out->shape.size() == in.shape.size();
    for (size_t d = 0; same && d < in.shape.size(); ++d)
      same = in.shape[d] < 0 || out->shape[d] < 0 ||
             in.shape[d] == out->shape[d];
    if (!same)
      return emitError(module.getLoc())
                 << "the context '" << in.name << "' is "
                 << artifact::dtypeInfo(out->dtype)->name << " of rank "
                 << out->shape.size() << " from @" << encoder->name
                 << " but " << artifact::dtypeInfo(in.dtype)->name << " of rank "
                 << in.shape.size() << " in @" << step->name
                 << " (or their static extents differ)",
             failure();
  }
  return success();
}

/// Entry points are the public functions of the module.
FailureOr<std::vector<artifact::EntrySpec>> collectEntries(ModuleOp module) {
  std::vector<artifact::EntrySpec> entries;
  for (auto func : module.getOps<func::FuncOp>()) {
    if (!func.isPublic() || func.isExternal())
      continue;
    artifact::EntrySpec entry;
    entry.name = func.getSymName().str();
    FunctionType type = func.getFunctionType();
    for (unsigned i = 0; i < type.getNumInputs(); ++i) {
      FailureOr<artifact::TensorSpec> spec = tensorSpec(
          func.getLoc(), type.getInput(i), func.getArgAttrDict(i),
          "input" + std::to_string(i),
          ("input #" + std::to_string(i) + " of @" + entry.name));
      if (failed(spec))
        return failure();
      entry.inputs.push_back(*spec);
    }
    for (unsigned i = 0; i < type.getNumInputs(); ++i) {
      entry.inputs[i].state =
          static_cast<bool>(func.getArgAttrOfType<StringAttr>(i, kStateAttr));
      entry.inputs[i].context = static_cast<bool>(
          func.getArgAttrOfType<StringAttr>(i, kContextAttr));
    }
    entry.generationStep = func->hasAttr(kGenerationStepAttr);
    entry.generationEncoder = func->hasAttr(kGenerationEncoderAttr);
    // A state's result is written into its argument's buffer (the lowering
    // drops it, attune-drop-state-results): no output.
    for (unsigned i = 0; i < type.getNumResults(); ++i) {
      // (The encoder's state results are outputs: the states' initial
      // values.)
      if (func.getResultAttr(i, kStateAttr) && !entry.generationEncoder)
        continue;
      FailureOr<artifact::TensorSpec> spec = tensorSpec(
          func.getLoc(), type.getResult(i), func.getResultAttrDict(i),
          "output" + std::to_string(i),
          ("result #" + std::to_string(i) + " of @" + entry.name));
      if (failed(spec))
        return failure();
      entry.outputs.push_back(*spec);
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
  if (failed(checkGenerationContract(module, entries)))
    return failure();
  return entries;
}

//===----------------------------------------------------------------------===//
// Weights
//===----------------------------------------------------------------------===//

std::unique_ptr<::attune::SafetensorsFile> openWeights(StringRef path) {
  std::string problem;
  std::unique_ptr<::attune::SafetensorsFile> file =
      ::attune::SafetensorsFile::open(path.str(), problem);
  if (!file)
    llvm::errs() << "error: " << problem << "\n";
  return file;
}

/// Externalizes the weights of `module` (attune-externalize-weights) and
/// records them in `metadata`. With a weights file, every weight is first
/// checked against it.
LogicalResult externalizeWeights(ModuleOp module,
                                 const ::attune::SafetensorsFile *file,
                                 artifact::Metadata &metadata) {
  metadata.weightsFile = "-";
  bool ok = true;
  if (file) {
    SmallString<256> path(file->path());
    llvm::sys::fs::make_absolute(path);
    metadata.weightsFile = path.str().str();
    module.walk(
        [&](WeightOp op) { ok &= succeeded(checkWeight(op, *file)); });
  }
  module.walk([&](WeightOp op) {
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
  pm.addPass(createAttuneExternalizeWeights());
  if (failed(pm.run(module)))
    return failure();
  for (auto global : module.getOps<memref::GlobalOp>()) {
    auto name = global->getAttrOfType<StringAttr>(kWeightNameAttr);
    if (!name)
      continue;
    FailureOr<artifact::TensorSpec> spec = tensorSpec(
        global.getLoc(),
        RankedTensorType::get(global.getType().getShape(),
                              global.getType().getElementType()),
        nullptr, name.str(), "weight");
    if (failed(spec))
      return failure();
    spec->name = name.str();
    metadata.weights.push_back({global.getSymName().str(), *spec});
  }
  return success();
}

/// Binds the weights of `module` to `options.weightsFile`, or externalizes
/// them (--weights-external), before anything else: a model and its weights
/// that disagree fail early, at the weight's location.
LogicalResult prepareWeights(ModuleOp module, const CompileOptions &options,
                             artifact::Metadata &metadata,
                             std::unique_ptr<::attune::SafetensorsFile> &bound) {
  SmallVector<std::string> names;
  module->walk([&](WeightOp op) { names.push_back(op.getName().str()); });
  if (names.empty())
    return success();
  if (options.weightsExternal) {
    std::unique_ptr<::attune::SafetensorsFile> file;
    if (!options.weightsFile.empty() &&
        !(file = openWeights(options.weightsFile)))
      return failure();
    return externalizeWeights(module, file.get(), metadata);
  }
  if (options.weightsFile.empty())
    return emitError(module->getLoc())
           << "the model has " << names.size()
           << " attune.weight op(s) (first: '" << names.front()
           << "'); pass --weights FILE.safetensors";
  // The constants read the file's mapping, which the compile keeps open:
  // the weights are not copied (340 MB for BERT-base).
  bound = openWeights(options.weightsFile);
  if (!bound)
    return failure();
  return bindWeights(module, *bound, /*borrow=*/true);
}

//===----------------------------------------------------------------------===//
// Options
//===----------------------------------------------------------------------===//

LogicalResult checkOptions(const CompileOptions &options, bool &hasCpu,
                           bool &hasVulkan) {
  hasCpu = hasVulkan = false;
  SmallVector<StringRef> names;
  StringRef(options.target).split(names, ',');
  for (StringRef name : names) {
    if (name == "cpu") {
      hasCpu = true;
    } else if (name == "vulkan") {
      hasVulkan = true;
    } else {
      llvm::errs() << "error: --target=" << options.target
                   << ": unknown target '" << name
                   << "' (targets: cpu, vulkan, cpu,vulkan)\n";
      return failure();
    }
  }
  const CpuOptions &cpu = options.cpuPipeline;
  if (!cpu.parallel && (cpu.ompSchedule != CpuOptions().ompSchedule ||
                        cpu.ompChunk != CpuOptions().ompChunk)) {
    llvm::errs() << "error: --omp-schedule and --omp-chunk need --parallel\n";
    return failure();
  }
  if (!cpu.ompSchedule.empty() &&
      !llvm::is_contained({"static", "dynamic", "guided", "runtime"},
                          cpu.ompSchedule)) {
    llvm::errs() << "error: --omp-schedule=" << cpu.ompSchedule
                 << ": expected static, dynamic, guided or runtime\n";
    return failure();
  }
  if (!llvm::is_contained(cpu::kPanelStorageNames, cpu.gemmWeights)) {
    llvm::errs() << "error: --gemm-weights=" << cpu.gemmWeights << ": expected "
                 << cpu::panelStorageChoices() << "\n";
    return failure();
  }
  // The two arithmetic flags: a known value, and a CPU option (the Vulkan
  // kernels compute in f32).
  struct ComputeFlag {
    StringRef flag;
    const std::string &value, defaultValue;
  };
  const CpuOptions defaults;
  ComputeFlag computeFlags[] = {
      {"gemm-compute", cpu.gemmCompute, defaults.gemmCompute},
      {"attention-compute", cpu.attentionCompute, defaults.attentionCompute}};
  for (const auto &[flag, value, defaultValue] : computeFlags)
    if (!llvm::is_contained(cpu::kComputeNames, value)) {
      llvm::errs() << "error: --" << flag << "=" << value
                   << ": expected f32 or bf16\n";
      return failure();
    }
  // bf16 compute reads bf16 weights: f16 storage would be a second rounding.
  if (cpu.gemmCompute == "bf16" && cpu.gemmWeights == "f16") {
    llvm::errs() << "error: --gemm-compute=bf16 stores the weights as bf16; "
                    "--gemm-weights=f16 contradicts it\n";
    return failure();
  }
  if (cpu.ompChunk < 0 || (cpu.ompChunk > 0 && cpu.ompSchedule == "runtime")) {
    llvm::errs() << "error: --omp-chunk=" << cpu.ompChunk << ": expected "
                 << (cpu.ompChunk < 0 ? "a chunk of 0 or more iterations"
                                      : "no chunk with --omp-schedule=runtime "
                                        "(OMP_SCHEDULE carries it)")
                 << "\n";
    return failure();
  }
  for (const auto &[flag, value, defaultValue] : computeFlags)
    if (hasVulkan && !hasCpu && value != defaultValue) {
      llvm::errs() << "error: --" << flag
                   << " is a CPU option; --target=vulkan computes in f32\n";
      return failure();
    }
  if (hasVulkan && cpu.parallel && !hasCpu) {
    llvm::errs() << "error: --parallel is a CPU option; --target=vulkan "
                    "runs its kernels on the device\n";
    return failure();
  }
  Emit emit = options.emit;
  if ((emit == Emit::Gpu || emit == Emit::Spirv) && (hasCpu || !hasVulkan)) {
    llvm::errs() << "error: --emit=gpu and --emit=spirv need --target=vulkan\n";
    return failure();
  }
  if (hasCpu && hasVulkan &&
      (emit == Emit::Attune || emit == Emit::Linalg || emit == Emit::LLVMMLIR)) {
    llvm::errs() << "error: --emit=attune, linalg and llvm-mlir show one "
                    "target's IR; choose --target=cpu or --target=vulkan\n";
    return failure();
  }
  if ((emit == Emit::Obj || emit == Emit::Lib) && options.output == "-") {
    llvm::errs() << "error: --emit=obj and --emit=lib need -o PATH\n";
    return failure();
  }
  return success();
}

//===----------------------------------------------------------------------===//
// Outputs
//===----------------------------------------------------------------------===//

LogicalResult printModule(ModuleOp module, StringRef output) {
  std::string error;
  auto out = openOutputFile(output, &error);
  if (!out) {
    llvm::errs() << "error: " << error << "\n";
    return failure();
  }
  module.print(out->os());
  out->keep();
  return success();
}

LogicalResult dumpSpirv(ModuleOp vulkanModule, StringRef dir) {
  if (std::error_code ec = llvm::sys::fs::create_directories(dir)) {
    llvm::errs() << "error: cannot create " << dir << ": " << ec.message()
                 << "\n";
    return failure();
  }
  for (auto global : vulkanModule.getOps<LLVM::GlobalOp>()) {
    StringRef kernel = global.getSymName();
    if (!kernel.consume_front(artifact::kSpirvPrefix))
      continue;
    auto bytes = cast<StringAttr>(*global.getValue());
    std::string path = (dir + "/" + kernel + ".spv").str();
    std::error_code ec;
    llvm::raw_fd_ostream out(path, ec, llvm::sys::fs::OF_None);
    if (ec) {
      llvm::errs() << "error: cannot write " << path << ": " << ec.message()
                   << "\n";
      return failure();
    }
    out << bytes.getValue();
  }
  return success();
}

LogicalResult writeArtifact(llvm::Module &module, llvm::TargetMachine &tm,
                            const CompileOptions &options,
                            ArrayRef<DataSymbol> data, TimingScope &timing) {
  if (options.emit == Emit::LLVMIR) {
    std::string error;
    auto out = openOutputFile(options.output, &error);
    if (!out) {
      llvm::errs() << "error: " << error << "\n";
      return failure();
    }
    module.print(out->os(), nullptr);
    out->keep();
    return success();
  }
  if (options.emit == Emit::Obj) {
    TimingScope t = timing.nest("code generation");
    return emitObject(module, tm, options.output);
  }
  SmallString<128> object;
  if (std::error_code ec =
          llvm::sys::fs::createTemporaryFile("attune", "o", object)) {
    llvm::errs() << "error: cannot create a temporary object file: "
                 << ec.message() << "\n";
    return failure();
  }
  llvm::FileRemover removeObject(object);
  TimingScope codegen = timing.nest("code generation");
  if (failed(emitObject(module, tm, object)))
    return failure();
  codegen.stop();
  SmallVector<std::string> objects = {object.str().str()};
  SmallString<128> dataObject;
  llvm::FileRemover removeData;
  if (!data.empty()) {
    if (std::error_code ec = llvm::sys::fs::createTemporaryFile(
            "attune-data", "o", dataObject)) {
      llvm::errs() << "error: cannot create a temporary object file: "
                   << ec.message() << "\n";
      return failure();
    }
    removeData.setFile(dataObject);
    TimingScope t = timing.nest("data object");
    if (failed(writeDataObject(dataObject, data)))
      return failure();
    objects.push_back(dataObject.str().str());
  }
  TimingScope link = timing.nest("link");
  return linkSharedLibrary(objects, options.output,
                           options.cpuPipeline.parallel);
}

/// A pass manager with the command line's MLIR options
/// (--mlir-print-ir-after-all, ...), timed under `timing`.
FailureOr<std::unique_ptr<PassManager>> newPassManager(MLIRContext &context,
                                                       TimingScope &timing) {
  auto pm = std::make_unique<PassManager>(&context);
  if (failed(applyPassManagerCLOptions(*pm)))
    return failure();
  pm->enableTiming(timing);
  return pm;
}

} // namespace

namespace {

/// The flow after the model is in memory (parsed or imported).
LogicalResult compileModule(MLIRContext &context, OwningOpRef<ModuleOp> module,
                            const CompileOptions &options,
                            TimingScope &timing) {
  // The weights file, mapped: the bound constants read it until the end.
  std::unique_ptr<::attune::SafetensorsFile> weightsFile;
  bool hasCpu, hasVulkan;
  if (failed(checkOptions(options, hasCpu, hasVulkan)))
    return failure();
  Emit emit = options.emit;
  // Bad --cpu or --features names fail before any work.
  std::unique_ptr<llvm::TargetMachine> tm =
      createTargetMachine(options.cpuPipeline.cpu,
                          options.cpuPipeline.features);
  if (!tm)
    return failure();

  artifact::Metadata metadata;
  metadata.hasCpu = hasCpu;
  metadata.hasVulkan = hasVulkan;
  // The attention maps are outputs like any other: exposed before the
  // outputs are read.
  if (options.attentionMaps) {
    PassManager pm(&context);
    pm.addPass(createAttuneUnrollRepeat());
    pm.addPass(createAttuneExposeAttentionMaps({*options.attentionMaps}));
    if (failed(pm.run(*module)))
      return failure();
  }
  FailureOr<std::vector<artifact::EntrySpec>> entries = collectEntries(*module);
  if (failed(entries))
    return failure();
  metadata.entries = std::move(*entries);
  // The names now live in the metadata; the lowering has no use for them.
  for (auto func : module->getOps<func::FuncOp>()) {
    for (unsigned i = 0; i < func.getNumArguments(); ++i)
      func.removeArgAttr(i, kNameAttr);
    for (unsigned i = 0; i < func.getNumResults(); ++i)
      func.removeResultAttr(i, StringAttr::get(&context, kNameAttr));
  }
  TimingScope weightsTime = timing.nest("weights");
  // Repeated layers are spelled out, each with its weights' full names,
  // before the names are bound.
  bool hasRepeat = false;
  module->walk([&](RepeatOp) { hasRepeat = true; });
  if (hasRepeat) {
    PassManager pm(&context);
    pm.addPass(createAttuneUnrollRepeat());
    if (failed(pm.run(*module)))
      return failure();
  }
  if (failed(prepareWeights(*module, options, metadata, weightsFile)))
    return failure();
  weightsTime.stop();

  // One lowering per target, from the same bound module.
  OwningOpRef<ModuleOp> vulkanModule;
  if (hasVulkan)
    vulkanModule = cast<ModuleOp>((*module)->clone());

  if (hasCpu) {
    CpuStage stage = emit == Emit::Attune   ? CpuStage::Attune
                     : emit == Emit::Linalg ? CpuStage::Linalg
                                            : CpuStage::LLVM;
    TimingScope pipelineTime = timing.nest("attune-cpu-pipeline");
    FailureOr<std::unique_ptr<PassManager>> pm =
        newPassManager(context, pipelineTime);
    if (failed(pm))
      return failure();
    buildCpuPipeline(**pm, stage, options.cpuPipeline);
    if (failed((*pm)->run(*module)))
      return failure();
    if (emit == Emit::Attune || emit == Emit::Linalg || emit == Emit::LLVMMLIR)
      return printModule(*module, options.output);
    // External weights the code rounds to f16: the runtime checks their
    // range at load.
    if (auto names = (*module)->getAttrOfType<ArrayAttr>(kF16WeightsAttr)) {
      for (artifact::WeightSpec &w : metadata.weights)
        w.f16 =
            llvm::is_contained(names, StringAttr::get(&context, w.tensor.name));
      (*module)->removeAttr(kF16WeightsAttr);
    }
    // External weights prepared once at load (attune-prepare-weights-at-load):
    // the runtime calls each preparation after reading its weights, then may
    // release the weights only preparations read (not where the Vulkan code
    // of the same library reads them).
    if (auto groups =
            (*module)->getAttrOfType<ArrayAttr>(kWeightPreparationsAttr)) {
      for (Attribute group : groups) {
        metadata.preparations.emplace_back();
        for (Attribute symbol : cast<ArrayAttr>(group))
          metadata.preparations.back().push_back(
              cast<StringAttr>(symbol).str());
      }
      (*module)->removeAttr(kWeightPreparationsAttr);
    }
    if (auto names =
            (*module)->getAttrOfType<ArrayAttr>(kPreparedOnlyWeightsAttr)) {
      for (artifact::WeightSpec &w : metadata.weights)
        w.preparedOnly =
            !hasVulkan &&
            llvm::is_contained(names, StringAttr::get(&context, w.tensor.name));
      (*module)->removeAttr(kPreparedOnlyWeightsAttr);
    }
  }

  if (hasVulkan) {
    llvm::Expected<VulkanProfile> profile =
        vulkanProfileOf(options.vulkanPipeline);
    if (!profile) {
      llvm::errs() << "error: " << llvm::toString(profile.takeError()) << "\n";
      return failure();
    }
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
    VulkanStage stage = emit == Emit::Attune   ? VulkanStage::Attune
                        : emit == Emit::Linalg ? VulkanStage::Linalg
                        : emit == Emit::Gpu    ? VulkanStage::Gpu
                        : emit == Emit::Spirv  ? VulkanStage::Spirv
                                               : VulkanStage::LLVM;
    TimingScope pipelineTime = timing.nest("attune-vulkan-pipeline");
    FailureOr<std::unique_ptr<PassManager>> pm =
        newPassManager(context, pipelineTime);
    if (failed(pm))
      return failure();
    // With both targets, the CPU pipeline has explained the fusions.
    buildVulkanPipeline(**pm, stage, *profile,
                        options.vulkanPipeline.explainFusion && !hasCpu,
                        options.cpuPipeline.cpu, options.cpuPipeline.features);
    if (failed((*pm)->run(*vulkanModule)))
      return failure();
    if (emit == Emit::Attune || emit == Emit::Linalg || emit == Emit::Gpu ||
        emit == Emit::Spirv || emit == Emit::LLVMMLIR)
      return printModule(*vulkanModule, options.output);
    metadata.vulkanProfile = profile->name;
    if (failed(vulkan::readKernelTable(*vulkanModule, metadata.kernels,
                                       metadata.globals)))
      return failure();
    if (!options.dumpSpirv.empty() &&
        failed(dumpSpirv(*vulkanModule, options.dumpSpirv)))
      return failure();
  }

  // The library's large constants (the weights) skip LLVM: their bytes go
  // from the blobs straight into an object of their own.
  std::vector<DataSymbol> data;
  if (emit == Emit::Lib && hasCpu)
    data = extractConstantData(*module, kDataObjectMinBytes);
  TimingScope translateTime = timing.nest("translate to LLVM IR");
  llvm::LLVMContext llvmContext;
  std::unique_ptr<llvm::Module> llvmModule = buildArtifactModule(
      llvmContext, hasCpu ? *module : ModuleOp(),
      hasVulkan ? *vulkanModule : ModuleOp(), std::move(metadata), *tm);
  if (!llvmModule)
    return failure();
  translateTime.stop();
  TimingScope optimizeTime = timing.nest("LLVM optimization");
  optimize(*llvmModule, *tm);
  optimizeTime.stop();
  return writeArtifact(*llvmModule, *tm, options, data, timing);
}

/// --time-report (or --mlir-timing): one report over every phase.
TimingScope rootTiming(DefaultTimingManager &timingManager,
                       const CompileOptions &options) {
  applyDefaultTimingManagerCLOptions(timingManager);
  if (options.timeReport)
    timingManager.setEnabled(true);
  return timingManager.getRootScope();
}

} // namespace

LogicalResult compile(MLIRContext &context, llvm::SourceMgr &sourceMgr,
                      const CompileOptions &options) {
  DefaultTimingManager timingManager;
  TimingScope timing = rootTiming(timingManager, options);
  TimingScope parseTime = timing.nest("parse");
  OwningOpRef<ModuleOp> module = parseSourceFile<ModuleOp>(sourceMgr, &context);
  if (!module)
    return failure();
  parseTime.stop();
  return compileModule(context, std::move(module), options, timing);
}

LogicalResult compileOnnx(MLIRContext &context, StringRef path,
                          const CompileOptions &options) {
  DefaultTimingManager timingManager;
  TimingScope timing = rootTiming(timingManager, options);
  TimingScope importTime = timing.nest("import");
  auto fail = [](llvm::Error e) {
    llvm::errs() << "error: " << llvm::toString(std::move(e)) << "\n";
    return failure();
  };
  if (!options.weightsFile.empty())
    return emitError(UnknownLoc::get(&context))
           << "--weights is for attune models: an ONNX model carries its "
              "weights";
  auto model = ::attune::onnx_import::readOnnxModel(path);
  if (!model)
    return fail(model.takeError());
  auto imported = ::attune::onnx_import::importOnnx(context, **model);
  if (!imported)
    return fail(imported.takeError());
  // The weights go through a safetensors file, as for any model: beside
  // the library with --weights-external (the artifact records its path),
  // else a temporary file removed once the weights are embedded.
  CompileOptions withWeights = options;
  SmallString<256> weightsPath;
  bool temporary = !options.weightsExternal;
  if (temporary) {
    int fd;
    if (std::error_code ec = llvm::sys::fs::createTemporaryFile(
            "attune-import", "safetensors", fd, weightsPath))
      return emitError(UnknownLoc::get(&context))
             << "cannot create a temporary weights file: " << ec.message();
    ::close(fd);
  } else {
    if (options.output == "-")
      return emitError(UnknownLoc::get(&context))
             << "--weights-external with an ONNX model needs -o: the "
                "weights are written beside the library";
    weightsPath = options.output;
    llvm::sys::path::replace_extension(weightsPath, "safetensors");
  }
  if (llvm::Error e = ::attune::onnx_import::writeSafetensors(
          weightsPath, imported->weights)) {
    if (temporary)
      llvm::sys::fs::remove(weightsPath);
    return fail(std::move(e));
  }
  importTime.stop();
  withWeights.weightsFile = weightsPath.str().str();
  LogicalResult result = compileModule(context, std::move(imported->module),
                                       withWeights, timing);
  // The bound constants borrowed the file's mapping, now unmapped; the
  // library holds copies.
  if (temporary)
    llvm::sys::fs::remove(weightsPath);
  return result;
}

} // namespace mlir::attune::driver
