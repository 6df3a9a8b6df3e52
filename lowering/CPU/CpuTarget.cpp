//===- CpuTarget.cpp - what the GEMM cost model knows of a CPU ------------===//

#include "lowering/CPU/CpuTarget.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/MC/MCSubtargetInfo.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/TargetParser/Host.h"
#include "llvm/TargetParser/Triple.h"

#include <memory>

using namespace mlir::attune::cpu;

namespace {

struct Entry {
  const char *names; // LLVM CPU names, space-separated
  int64_t bits, registers, fma, loads, latency, l1dKiB, l2KiB;
  bool bf16, amx;
  /// CpuTarget::ompSchedule static instead of guided, and
  /// CpuTarget::prefetchHalfRows: measured, on the CPUs the notes at the
  /// table give.
  bool staticSchedule = false, prefetchHalfRows = true;
};

// Per core, from the vendors' optimization manuals (Intel's, AMD's Software
// Optimization Guides) and the caches the CPUs ship with. `fma`/`loads`:
// full-width vector FMAs / loads per cycle (Zen 4: 512-bit ops as two
// 256-bit halves; client Ice Lake / Tiger Lake: one 512-bit FMA unit).
constexpr Entry kTable[] = {
    {"x86-64 x86-64-v2 nehalem westmere sandybridge ivybridge", 128, 16, 2, 2,
     4, 32, 256, false, false},
    {"x86-64-v3 skylake kabylake coffeelake cometlake", 256, 16, 2, 2, 4, 32,
     256, false, false},
    {"haswell broadwell", 256, 16, 2, 2, 5, 32, 256, false, false},
    {"alderlake raptorlake meteorlake arrowlake", 256, 16, 2, 2, 4, 48, 1280,
     false, false},
    {"x86-64-v4 skylake-avx512 cascadelake", 512, 32, 2, 2, 4, 32, 1024, false,
     false},
    {"cooperlake", 512, 32, 2, 2, 4, 32, 1024, true, false},
    {"icelake-server", 512, 32, 2, 2, 4, 48, 1280, false, false},
    {"icelake-client rocketlake", 512, 32, 1, 2, 4, 48, 512, false, false},
    {"tigerlake", 512, 32, 1, 2, 4, 48, 1280, false, false},
    {"sapphirerapids emeraldrapids graniterapids graniterapids-d", 512, 32, 2,
     2, 4, 48, 2048, true, true},
    {"znver1", 256, 16, 1, 1, 5, 32, 512, false, false},
    {"znver2", 256, 16, 2, 2, 5, 32, 512, false, false},
    {"znver3", 256, 16, 2, 2, 4, 32, 512, false, false},
    // Static schedule, measured against guided at 2 threads. Zen 4
    // (bench/README.md, session 15): decoding step 1.18-1.5x, linear 768 ->
    // 3072 at M = 1 and 128 1.17x and 1.12x, encoder layers and attention
    // equal or 1-2 % faster; at 1 thread as fast as the serial build, guided
    // 5-11 % slower. Zen 5 (session 22): decoding step 0.54-0.57 against
    // 0.73-0.75 ms, 12 layers at L = 128 63.9 against 69.2, at L = 512 289
    // against 297; one layer and attention within 1-3 % either way. Guided
    // was 8-13 % faster than static for the encoder layers on the Intel VMs
    // it was chosen on (session 7).
    // No single-row prefetches on the Zen 4 (session 16): a GPT-2-small
    // decoding step with bf16 weights 13.9-14.2 ms with them, 9.8-11.0
    // without (f32 weights: 20.3-20.7); on the Zen 5 (session 22) the same
    // with and without.
    {"znver4", 512, 32, 1, 1, 4, 32, 1024, true, false, true, false},
    {"znver5", 512, 32, 2, 2, 4, 48, 1024, true, false, true, true},
};

const Entry *findEntry(llvm::StringRef name) {
  for (const Entry &e : kTable) {
    llvm::SmallVector<llvm::StringRef> names;
    llvm::StringRef(e.names).split(names, ' ');
    if (llvm::is_contained(names, name))
      return &e;
  }
  return nullptr;
}

CpuTarget fromEntry(llvm::StringRef name, const Entry &e) {
  CpuTarget t;
  t.name = name.str();
  t.source = "table";
  t.vectorBits = e.bits;
  t.vectorRegisters = e.registers;
  t.fmaPerCycle = e.fma;
  t.loadsPerCycle = e.loads;
  t.fmaLatency = e.latency;
  t.l1d = e.l1dKiB << 10;
  t.l2 = e.l2KiB << 10;
  t.avx512bf16 = e.bf16;
  if (e.staticSchedule)
    t.ompSchedule = "static";
  t.prefetchHalfRows = e.prefetchHalfRows;
  t.amx = e.amx;
  return t;
}

/// The x86-64 level entry that ISA extensions `has` imply.
const Entry &levelEntry(llvm::function_ref<bool(llvm::StringRef)> has) {
  if (has("avx512f"))
    return *findEntry("x86-64-v4");
  if (has("avx2") && has("fma"))
    return *findEntry("x86-64-v3");
  return *findEntry("x86-64-v2");
}

/// "32K", "1024K", "48M" (sysfs's cache sizes) in bytes.
std::optional<int64_t> parseSize(llvm::StringRef text) {
  text = text.trim();
  int64_t scale = 1;
  if (text.consume_back("K"))
    scale = 1 << 10;
  else if (text.consume_back("M"))
    scale = 1 << 20;
  int64_t value;
  if (text.getAsInteger(10, value) || value <= 0)
    return std::nullopt;
  return value * scale;
}

std::optional<std::string> readFile(const std::string &path) {
  // (sysfs files claim 4 KiB whatever they hold: read to the end.)
  auto buffer = llvm::MemoryBuffer::getFileAsStream(path);
  if (!buffer)
    return std::nullopt;
  return (*buffer)->getBuffer().trim().str();
}

/// This machine's data caches from Linux's sysfs (cpu0's); false if there
/// is none to read.
bool readHostCaches(CpuTarget &t) {
  bool found = false;
  for (int index = 0; index < 8; ++index) {
    std::string dir =
        "/sys/devices/system/cpu/cpu0/cache/index" + std::to_string(index) + "/";
    std::optional<std::string> level = readFile(dir + "level"),
                               type = readFile(dir + "type"),
                               size = readFile(dir + "size");
    if (!level || !type || !size)
      continue;
    std::optional<int64_t> bytes = parseSize(*size);
    if (!bytes || *type == "Instruction")
      continue;
    if (*level == "1")
      t.l1d = *bytes;
    else if (*level == "2")
      t.l2 = *bytes;
    else if (*level == "3")
      t.l3 = *bytes;
    else
      continue;
    found = true;
  }
  return found;
}

} // namespace

std::string CpuTarget::describe() const {
  auto kib = [](int64_t bytes) {
    return bytes % (1 << 20) == 0 ? std::to_string(bytes >> 20) + " MiB"
                                  : std::to_string(bytes >> 10) + " KiB";
  };
  std::string text = name + " (" + source + "): " +
                     std::to_string(vectorBits) + "-bit vectors x " +
                     std::to_string(vectorRegisters) + ", " +
                     std::to_string(fmaPerCycle) + " FMA + " +
                     std::to_string(loadsPerCycle) + " loads per cycle, FMA latency " +
                     std::to_string(fmaLatency) + ", L1d " + kib(l1d) +
                     ", L2 " + kib(l2);
  if (l3)
    text += ", L3 " + kib(l3);
  if (avx512bf16)
    text += ", avx512bf16";
  if (amx)
    text += ", amx";
  return text;
}

std::optional<CpuTarget>
mlir::attune::cpu::lookupCpuTarget(llvm::StringRef cpu,
                                   llvm::StringRef features,
                                   std::string &error) {
  CpuTarget t;
  if (cpu.empty() || cpu == "native") {
    std::string name = llvm::sys::getHostCPUName().str();
    llvm::StringMap<bool> host = llvm::sys::getHostCPUFeatures();
    auto has = [&](llvm::StringRef f) { return host.lookup(f); };
    const Entry *e = findEntry(name);
    t = fromEntry(name, e ? *e : levelEntry(has));
    t.source = e ? "host, table" : "host";
    // What this machine (or VM) has, whatever its name suggests.
    const Entry &level = levelEntry(has);
    if (level.bits < t.vectorBits) {
      t.vectorBits = level.bits;
      t.vectorRegisters = level.registers;
    }
    t.avx512bf16 = has("avx512bf16");
    t.amx = has("amx-tile") && has("amx-bf16");
    if (readHostCaches(t))
      t.source += ", sysfs caches";
  } else if (const Entry *e = findEntry(cpu)) {
    t = fromEntry(cpu, *e);
  } else {
    // A name LLVM knows and the table does not: its ISA level from LLVM's
    // description of it (where the X86 target is linked in).
    std::string triple = llvm::sys::getDefaultTargetTriple();
    std::string lookupError;
    const llvm::Target *target =
        llvm::TargetRegistry::lookupTarget(llvm::Triple(triple), lookupError);
    std::unique_ptr<llvm::MCSubtargetInfo> info;
    if (target)
      info.reset(target->createMCSubtargetInfo(llvm::Triple(triple), cpu, ""));
    if (!info || !info->isCPUStringValid(cpu)) {
      error = ("--cpu=" + cpu +
               ": no machine model for this CPU (the table knows x86-64, "
               "x86-64-v2, x86-64-v3, x86-64-v4, haswell, skylake-avx512, "
               "icelake-server, sapphirerapids, znver3, znver4, znver5, ...)")
                  .str();
      return std::nullopt;
    }
    auto has = [&](llvm::StringRef f) {
      return info->checkFeatures(("+" + f).str());
    };
    t = fromEntry(cpu, levelEntry(has));
    t.source = "ISA level of LLVM's " + cpu.str();
    t.avx512bf16 = has("avx512bf16");
    t.amx = has("amx-tile") && has("amx-bf16");
  }
  // --features on top.
  llvm::SmallVector<llvm::StringRef> list;
  features.split(list, ',', -1, /*KeepEmpty=*/false);
  for (llvm::StringRef f : list) {
    bool on = f.consume_front("+");
    if (!on && !f.consume_front("-"))
      continue;
    if (f == "avx512f") {
      t.vectorBits = on ? 512 : std::min<int64_t>(t.vectorBits, 256);
      t.vectorRegisters = on ? 32 : 16;
    } else if ((f == "avx2" || f == "avx" || f == "fma") && !on) {
      t.vectorBits = 128;
      t.vectorRegisters = 16;
    } else if (f == "avx2" && on && t.vectorBits < 256) {
      t.vectorBits = 256;
    } else if (f == "avx512bf16") {
      t.avx512bf16 = on;
    } else if (f == "amx-tile" || f == "amx-bf16") {
      t.amx = on;
    } else {
      continue;
    }
    t.source += ", " + (on ? std::string("+") : std::string("-")) + f.str();
  }
  return t;
}
