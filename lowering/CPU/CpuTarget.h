//===- CpuTarget.h - what the GEMM cost model knows of a CPU ----*- C++ -*-===//
//
// The machine model behind attune-select-cpu-tiling: vector width and
// registers, the FMA and load throughput of one core, and its caches. From
// a table of named CPUs (LLVM's names, as --cpu takes them, and the x86-64
// levels), or for `native` from this machine (LLVM's host CPU name and
// features, the cache sizes from Linux's sysfs), with --features applied on
// top (e.g. -avx512f halves the vectors). The rule that uses it is in
// SelectCpuTiling.cpp and docs/design.md ("GEMM tiling").
//
//===----------------------------------------------------------------------===//

#ifndef ATTUNE_LOWERING_CPU_CPUTARGET_H
#define ATTUNE_LOWERING_CPU_CPUTARGET_H

#include "mlir/Support/LLVM.h"
#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <optional>
#include <string>

namespace mlir::attune::cpu {

struct CpuTarget {
  /// The CPU's name (LLVM's) and where its numbers come from.
  std::string name;
  std::string source;
  /// Bits of a vector register and how many the ISA has.
  int64_t vectorBits = 128;
  int64_t vectorRegisters = 16;
  /// Full-width vector FMAs and loads issued per cycle (Zen 4 issues a
  /// 512-bit op as two 256-bit halves: 1 each), and the FMA latency.
  int64_t fmaPerCycle = 2;
  int64_t loadsPerCycle = 2;
  int64_t fmaLatency = 4;
  /// Data cache bytes per core (L3: the whole cache, reported only).
  int64_t l1d = 32 << 10;
  int64_t l2 = 256 << 10;
  int64_t l3 = 0;
  /// bf16 dot products (vdpbf16ps) and AMX tiles.
  bool avx512bf16 = false;
  bool amx = false;
  /// The OpenMP schedule of the worksharing loops, --omp-schedule's
  /// default (docs/design.md, "Threads over tiles"): guided, static on the
  /// Zen 4 and Zen 5, where it was measured faster (or as fast) in every
  /// case.
  std::string ompSchedule = "guided";
  /// Whether a single row's k loop on 16-bit weight panels (a decoding
  /// step's GEMMs with --gemm-weights=bf16/f16) prefetches its row of the
  /// next k tile (attune-prefetch-panels): 2-3.2x faster on Emerald Rapids,
  /// where the hardware prefetcher did not keep up with those panels; on
  /// the Zen 4, whose does, 31 % slower (768 -> 50257 at M = 1) and a
  /// GPT-2-small decoding step 1.26-1.45x slower (1.06-1.16x on 2 threads).
  bool prefetchHalfRows = true;

  /// f32 lanes of a vector register.
  int64_t lanes() const { return vectorBits / 32; }
  /// Whether the bf16 dot tiles run as vdpbf16ps (AVX512-BF16 on 512-bit
  /// vectors); elsewhere they are emulated with FMAs.
  bool bf16Dot() const { return avx512bf16 && lanes() == 16; }
  /// One line for remarks: "znver4 (table): 512-bit x 32, ...".
  std::string describe() const;
};

/// The target for --cpu=`cpu` ("" or "native": this machine) with
/// --features=`features` (comma-separated +f/-f) on top; nullopt with
/// `error` set for a name the table does not know.
std::optional<CpuTarget> lookupCpuTarget(StringRef cpu, StringRef features,
                                         std::string &error);

} // namespace mlir::attune::cpu

#endif // ATTUNE_LOWERING_CPU_CPUTARGET_H
