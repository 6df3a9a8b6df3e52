//===- Artifact.cpp - emitting the artifact -------------------------------===//

#include "driver/Artifact.h"

#include "mlir/Target/LLVMIR/Export.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/Linker/Linker.h"
#include "llvm/MC/MCSubtargetInfo.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"
#include "llvm/TargetParser/Host.h"

namespace mlir::attune::driver {

namespace artifact = ::attune::artifact;

std::unique_ptr<llvm::TargetMachine>
createTargetMachine(StringRef cpu, StringRef features) {
  std::string triple = llvm::sys::getDefaultTargetTriple();
  std::string error;
  const llvm::Target *t = llvm::TargetRegistry::lookupTarget(llvm::Triple(triple), error);
  if (!t) {
    llvm::errs() << "error: no LLVM target for " << triple << ": " << error
                 << "\n";
    return nullptr;
  }
  bool host = cpu.empty() || cpu == "native";
  std::string cpuName = host ? llvm::sys::getHostCPUName().str() : cpu.str();
  std::string featureString = features.str();
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
    features.split(list, ',', -1, /*KeepEmpty=*/false);
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

std::unique_ptr<llvm::Module>
buildArtifactModule(llvm::LLVMContext &llvmContext, ModuleOp cpuModule,
                    ModuleOp vulkanModule, artifact::Metadata metadata,
                    llvm::TargetMachine &tm) {
  std::unique_ptr<llvm::Module> llvmModule;
  if (cpuModule) {
    llvmModule = translateModuleToLLVMIR(cpuModule, llvmContext, "attune_model");
    if (!llvmModule) {
      llvm::errs() << "error: translation to LLVM IR failed\n";
      return nullptr;
    }
  }
  if (vulkanModule) {
    std::unique_ptr<llvm::Module> host =
        translateModuleToLLVMIR(vulkanModule, llvmContext, "attune_model");
    if (!host) {
      llvm::errs() << "error: translation of the Vulkan host code to LLVM IR "
                      "failed\n";
      return nullptr;
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
        return nullptr;
      }
    }
  }
  llvmModule->setDataLayout(tm.createDataLayout());
  llvmModule->setTargetTriple(tm.getTargetTriple());

  // The metadata, completed with what the code may use of the CPU.
  metadata.cpuName = tm.getTargetCPU().str();
  const llvm::MCSubtargetInfo *sti = tm.getMCSubtargetInfo();
  for (const char *feature : artifact::kX86IsaFeatures)
    if (sti->checkFeatures(std::string("+") + feature))
      metadata.cpuFeatures.push_back(feature);
  llvm::LLVMContext &ctx = llvmModule->getContext();
  llvm::Module &module = *llvmModule;
  llvm::Constant *text =
      llvm::ConstantDataArray::getString(ctx, artifact::serialize(metadata));
  new llvm::GlobalVariable(module, text->getType(), /*isConstant=*/true,
                           llvm::GlobalValue::ExternalLinkage, text,
                           artifact::kMetadataSymbol);
  // Per entry, `void attune_invoke_<name>(void **args)` calling
  // `_mlir_ciface_<name>(args[0], args[1], ...)`: the result struct then one
  // descriptor per input, all by pointer; likewise for the Vulkan host code.
  llvm::Type *ptr = llvm::PointerType::get(ctx, 0);
  SmallVector<std::pair<std::string, std::string>> wrappers;
  for (const artifact::EntrySpec &e : metadata.entries) {
    if (metadata.hasCpu)
      wrappers.push_back({"_mlir_ciface_" + e.name,
                          artifact::kInvokePrefix + e.name});
    if (metadata.hasVulkan)
      wrappers.push_back(
          {std::string("_mlir_ciface_") + artifact::kVulkanHostPrefix + e.name,
           artifact::kVulkanInvokePrefix + e.name});
  }
  for (const auto &[from, to] : wrappers) {
    llvm::Function *ciface = module.getFunction(from);
    if (!ciface) {
      llvm::errs() << "error: no C interface " << from << "\n";
      return nullptr;
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
  // The library exports the entries' wrappers and nothing else of its
  // code: the entry functions, their C interfaces and what the lowering made
  // public on its way (the C interface of an outlined layer, the
  // deallocation helper) become internal, and O3 drops what no one calls.
  // An exported entry named like a libc function (`step`, `index`) would
  // be interposed: the C interface's call resolved to libc's.
  llvm::StringSet<> exported;
  for (const auto &[from, to] : wrappers)
    exported.insert(to);
  for (size_t i = 0; i < metadata.preparations.size(); ++i)
    exported.insert(artifact::kPrepareWeightsPrefix + std::to_string(i));
  for (llvm::Function &fn : module)
    if (!fn.isDeclaration() && fn.hasExternalLinkage() &&
        !exported.contains(fn.getName()))
      fn.setLinkage(llvm::GlobalValue::InternalLinkage);
  return llvmModule;
}

/// Chooses whether LLVM's pre-register-allocation machine scheduler runs
/// (`llc -enable-misched`), unless the command line set it: not for AVX-512
/// targets. The kernels arrive with their k steps unrolled and their FMAs
/// in the order that keeps one register tile live (attune-tile-gemm); on
/// 32 vector registers the scheduler moved the A broadcasts of later k
/// steps up to the loop head, past the registers a 4 x 64 tile and its
/// operands take, and the allocator spilled accumulators inside the k loop
/// (42 zmm spill slots in one linear layer's loop, 84 in the encoder
/// layer's; the OpenMP-outlined loops of --parallel and the outlined layers
/// happened to escape). Measured on an AMD EPYC Zen 4, 1 thread,
/// interleaved (bench/README.md, session 13): encoder layer 1 x 128 20.1 ->
/// 16.8 ms, decoder step 1.65 -> 1.31 ms, 3072 -> 768 at M = 2048 96.6 ->
/// 86.4 ms; attention and the 12-layer encoder unchanged; the same code for
/// icelake-server 17-18 -> 17.0 and 79 -> 75 ms on that machine. AVX2 keeps
/// the scheduler: with 16 registers its 4 x 24 tiles spill more without it
/// (the encoder layer 1-2 % slower). The option is LLVM's process-wide
/// setting, read when the scheduler runs; the first call takes it over
/// (an occurrence), later ones set its value.
static void chooseMachineScheduler(const llvm::TargetMachine &tm) {
  auto &&options = llvm::cl::getRegisteredOptions();
  auto it = options.find("enable-misched");
  if (it == options.end())
    return;
  // LLVM's declaration: `static cl::opt<bool> EnableMachineSched(...)`.
  auto *option = static_cast<llvm::cl::opt<bool> *>(it->second);
  static const bool userSet = option->getNumOccurrences() > 0;
  if (userSet)
    return;
  bool schedule = !tm.getMCSubtargetInfo()->checkFeatures("+avx512f");
  if (option->getNumOccurrences() == 0)
    (void)option->addOccurrence(/*pos=*/0, "enable-misched",
                                schedule ? "true" : "false");
  else
    option->setValue(schedule);
}

LogicalResult emitObject(llvm::Module &module, llvm::TargetMachine &tm,
                         StringRef path) {
  chooseMachineScheduler(tm);
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
LogicalResult linkSharedLibrary(ArrayRef<std::string> objects,
                                StringRef output, bool openmp) {
  llvm::ErrorOr<std::string> driver = llvm::sys::findProgramByName("cc");
  if (!driver)
    driver = llvm::sys::findProgramByName("gcc");
  if (!driver) {
    llvm::errs() << "error: no C compiler driver (cc) on PATH to link the "
                    "shared library; install gcc or use --emit=obj\n";
    return failure();
  }
  SmallVector<StringRef> args = {*driver, "-shared", "-o", output};
  for (const std::string &object : objects)
    args.push_back(object);
  args.push_back("-Wl,-z,noexecstack");
  // Every symbol the artifact references must be defined by what it links
  // (libc, libm, libgcc, LLVM's OpenMP runtime): a reference nothing defines
  // (a compiler-rt helper such as __truncsfbf2 that libgcc lacks) fails here,
  // at compile time, instead of when a program loads the model.
  args.push_back("-Wl,-z,defs");
  // lld when it is installed (the one next to LLVM's tools: the driver finds
  // ld.lld in the -B directory).
  std::string lldDir;
  if (StringRef lld = ATTUNE_LLD;
      !lld.empty() && llvm::sys::fs::can_execute(lld)) {
    lldDir = ("-B" + llvm::sys::path::parent_path(lld) + "/").str();
    args.append({"-fuse-ld=lld", lldDir});
  }
  // Parallel kernels call into LLVM's OpenMP runtime.
  std::string ompDir = "-L" ATTUNE_OMP_LIB_DIR;
  std::string ompRpath = "-Wl,-rpath," ATTUNE_OMP_LIB_DIR;
  if (openmp)
    args.append({ompDir, ompRpath, "-lomp"});
  args.push_back("-lm");
  std::string message;
  int rc = llvm::sys::ExecuteAndWait(*driver, args, std::nullopt, {}, 0, 0,
                                     &message);
  if (rc != 0) {
    llvm::errs() << "error: linking " << output << " failed"
                 << (message.empty() ? "" : ": " + message)
                 << " (the linker's messages are above; an undefined symbol "
                    "is one the compiled code calls that neither the C "
                    "library, libm, libgcc nor the OpenMP runtime defines)\n";
    return failure();
  }
  return success();
}

} // namespace mlir::attune::driver
