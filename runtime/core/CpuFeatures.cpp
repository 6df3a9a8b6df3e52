//===- CpuFeatures.cpp - does this CPU run the artifact's code? -----------===//
//
// An artifact records the ISA extensions its code may use
// (artifact::kX86IsaFeatures, LLVM's names). Before any of its code runs,
// the runtime tests each with cpuid, and for the AVX, AVX-512 and AMX
// register states also that the OS saves them (XCR0), so that an artifact
// compiled for a newer CPU is refused with the missing features named
// instead of dying on SIGILL mid-run.
//
//===----------------------------------------------------------------------===//

#include "CpuFeatures.h"
#include "attune/artifact.h"

#include <cstdint>

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif

#include <cstring>

using namespace attune;

namespace {

enum Reg { EAX, EBX, ECX, EDX };
/// Register states a feature needs the OS to save (XCR0 bits).
enum : uint64_t {
  kNone = 0,
  kAvxState = 0x6,           // SSE and AVX (YMM) state
  kAvx512State = 0xE6,       // plus opmask, ZMM_Hi256, Hi16_ZMM
  kAmxState = 0x60000,       // XTILECFG, XTILEDATA
};

struct CpuidBit {
  const char *feature;
  unsigned leaf, subleaf;
  Reg reg;
  unsigned bit;
  uint64_t state;
};

/// Every feature of artifact::kX86IsaFeatures (FormatTest checks that none
/// is missing), and those artifacts of earlier compilers recorded (aes,
/// vaes, pclmul, vpclmulqdq, sha, rdrnd, rdseed, adx, xsave).
constexpr CpuidBit kBits[] = {
    {"cmov", 1, 0, EDX, 15, kNone},
    {"cx8", 1, 0, EDX, 8, kNone},
    {"fxsr", 1, 0, EDX, 24, kNone},
    {"mmx", 1, 0, EDX, 23, kNone},
    {"sse", 1, 0, EDX, 25, kNone},
    {"sse2", 1, 0, EDX, 26, kNone},
    {"sse3", 1, 0, ECX, 0, kNone},
    {"pclmul", 1, 0, ECX, 1, kNone},
    {"ssse3", 1, 0, ECX, 9, kNone},
    {"fma", 1, 0, ECX, 12, kAvxState},
    {"cx16", 1, 0, ECX, 13, kNone},
    {"sse4.1", 1, 0, ECX, 19, kNone},
    {"sse4.2", 1, 0, ECX, 20, kNone},
    {"movbe", 1, 0, ECX, 22, kNone},
    {"popcnt", 1, 0, ECX, 23, kNone},
    {"aes", 1, 0, ECX, 25, kNone},
    {"xsave", 1, 0, ECX, 26, kNone},
    {"avx", 1, 0, ECX, 28, kAvxState},
    {"f16c", 1, 0, ECX, 29, kAvxState},
    {"rdrnd", 1, 0, ECX, 30, kNone},
    {"bmi", 7, 0, EBX, 3, kNone},
    {"avx2", 7, 0, EBX, 5, kAvxState},
    {"bmi2", 7, 0, EBX, 8, kNone},
    {"avx512f", 7, 0, EBX, 16, kAvx512State},
    {"avx512dq", 7, 0, EBX, 17, kAvx512State},
    {"rdseed", 7, 0, EBX, 18, kNone},
    {"adx", 7, 0, EBX, 19, kNone},
    {"avx512ifma", 7, 0, EBX, 21, kAvx512State},
    {"avx512cd", 7, 0, EBX, 28, kAvx512State},
    {"sha", 7, 0, EBX, 29, kNone},
    {"avx512bw", 7, 0, EBX, 30, kAvx512State},
    {"avx512vl", 7, 0, EBX, 31, kAvx512State},
    {"avx512vbmi", 7, 0, ECX, 1, kAvx512State},
    {"avx512vbmi2", 7, 0, ECX, 6, kAvx512State},
    {"gfni", 7, 0, ECX, 8, kNone},
    {"vaes", 7, 0, ECX, 9, kAvxState},
    {"vpclmulqdq", 7, 0, ECX, 10, kAvxState},
    {"avx512vnni", 7, 0, ECX, 11, kAvx512State},
    {"avx512bitalg", 7, 0, ECX, 12, kAvx512State},
    {"avx512vpopcntdq", 7, 0, ECX, 14, kAvx512State},
    {"avx512vp2intersect", 7, 0, EDX, 8, kAvx512State},
    {"amx-bf16", 7, 0, EDX, 22, kAmxState},
    {"avx512fp16", 7, 0, EDX, 23, kAvx512State},
    {"amx-tile", 7, 0, EDX, 24, kAmxState},
    {"amx-int8", 7, 0, EDX, 25, kAmxState},
    {"avxvnni", 7, 1, EAX, 4, kAvxState},
    {"avx512bf16", 7, 1, EAX, 5, kAvx512State},
    {"amx-fp16", 7, 1, EAX, 21, kAmxState},
    {"avxifma", 7, 1, EAX, 23, kAvxState},
    {"avxvnniint8", 7, 1, EDX, 4, kAvxState},
    {"avxneconvert", 7, 1, EDX, 5, kAvxState},
    {"sahf", 0x80000001, 0, ECX, 0, kNone},
    {"lzcnt", 0x80000001, 0, ECX, 5, kNone},
    {"prfchw", 0x80000001, 0, ECX, 8, kNone},
};

const CpuidBit *bitOf(const std::string &feature) {
  for (const CpuidBit &b : kBits)
    if (feature == b.feature)
      return &b;
  return nullptr;
}

#if defined(__x86_64__) || defined(__i386__)
bool cpuid(unsigned leaf, unsigned subleaf, unsigned regs[4]) {
  unsigned max = __get_cpuid_max(leaf & 0x80000000u, nullptr);
  if (max < leaf)
    return false;
  __cpuid_count(leaf, subleaf, regs[0], regs[1], regs[2], regs[3]);
  return true;
}

/// The register states the OS saves (XCR0), or 0 without OSXSAVE.
uint64_t osStates() {
  unsigned regs[4];
  if (!cpuid(1, 0, regs) || !(regs[ECX] & (1u << 27)))
    return 0;
  unsigned lo, hi;
  __asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
  return (uint64_t(hi) << 32) | lo;
}
#endif

} // namespace

bool attune::runtime::hostHasCpuFeature(const std::string &feature,
                                        std::string *why) {
  const CpuidBit *b = bitOf(feature);
  if (!b) {
    if (why)
      *why = "unknown to this runtime";
    return false;
  }
#if defined(__x86_64__) || defined(__i386__)
  unsigned regs[4];
  if (!cpuid(b->leaf, b->subleaf, regs) || !(regs[b->reg] & (1u << b->bit)))
    return false;
  if ((osStates() & b->state) != b->state) {
    if (why)
      *why = "not enabled by the OS";
    return false;
  }
  return true;
#else
  if (why)
    *why = "not an x86 CPU";
  return false;
#endif
}

bool attune::runtime::knowsCpuFeature(const std::string &feature) {
  return bitOf(feature) != nullptr;
}

std::string attune::runtime::missingCpuFeatures(
    const std::vector<std::string> &features) {
  std::string missing;
  for (const std::string &f : features) {
    std::string why;
    if (hostHasCpuFeature(f, &why))
      continue;
    missing += (missing.empty() ? "" : ", ") + f;
    if (!why.empty())
      missing += " (" + why + ")";
  }
  return missing;
}
