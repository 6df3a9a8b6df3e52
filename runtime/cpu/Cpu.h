//===- Cpu.h - running a model's CPU code -----------------------*- C++ -*-===//

#ifndef ATTUNE_RUNTIME_CPU_CPU_H
#define ATTUNE_RUNTIME_CPU_CPU_H

#include "../core/Internal.h"
#include "attune/artifact.h"

namespace attune::cpu {

/// The CPU code of an opened model.
struct Program {
  /// From the OpenMP runtime the model links; null if it links none.
  void (*setNumThreads)(int) = nullptr;
  int (*inParallel)() = nullptr;
  /// Whether the code allocates through the runtime's allocator (its results
  /// are then bufferAlloc blocks) or, compiled before that routing, malloc.
  bool routedAllocation = false;
};

/// Points the allocation hooks of `library` at the runtime's allocator and
/// finds its OpenMP runtime.
Program bind(void *library);

/// Maps the pages of `library`'s read-only data (the compiled-in weights)
/// into this process now, in one call per segment, rather than one page
/// fault at a time in the model's first run. An optimization only: where
/// the kernel cannot (MADV_POPULATE_READ, Linux 5.14), the pages fault in
/// as they are read.
void populateReadOnlyData(void *library);

/// Asks for transparent huge pages behind `library`'s writable segments
/// (the globals a model compiled with --weights-external reads its weights
/// into, and the panels it packs them into at load), before any is touched.
/// Anonymous memory gets 2 MiB pages only where advised
/// (/sys/kernel/mm/transparent_hugepage/enabled is `madvise` on Debian).
/// An optimization only: where the kernel has no huge pages (or
/// ATTUNE_CPU_HUGE_PAGES=0), nothing changes.
void adviseHugePages(void *library);

/// Moves `library`'s read-only data (the compiled-in weights), whole huge
/// pages of it, into anonymous memory in transparent huge pages: read from
/// the file, then mremap over the file's pages. In 4 KiB pages, a decoding step
/// that streams 500 MB of weights walks the page tables 120,000 times; the
/// kernel maps a file in 2 MiB pages only where its page cache holds them
/// so (a linker's output, written through its own mapping, mostly does
/// not). The data becomes private to the process (the page cache's copy
/// stays, reclaimable). Before populateReadOnlyData (which then maps only
/// the file's pages at the segment's ends). An optimization only:
/// where the kernel has no huge pages (or ATTUNE_CPU_HUGE_PAGES=0), or a
/// step fails, the file's pages stay.
void moveReadOnlyDataToHugePages(void *library);

/// Runs the entry wrapper `invoke` on `inputs` (checked by the caller) and
/// hands its results to the caller as new tensors. `numThreads` > 0 sets the
/// OpenMP thread count of this thread first.
attune_status *run(const Program &program, void (*invoke)(void **),
                   const char *where, int numThreads,
                   const std::vector<artifact::TensorSpec> &outputs,
                   const attune_tensor *const *inputs, size_t numInputs,
                   attune_tensor **results);

} // namespace attune::cpu

#endif // ATTUNE_RUNTIME_CPU_CPU_H
