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
/// (/sys/kernel/mm/transparent_hugepage/enabled is `madvise` on Debian):
/// in 4 KiB pages, a decoding step that streams 500 MB of weights walks
/// the page tables 120,000 times. The compiled-in weights are file-backed
/// and mapped in 2 MiB pages by the kernel where the file's page cache has
/// them. An optimization only: where the kernel has no huge pages, nothing
/// changes.
void adviseHugePages(void *library);

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
