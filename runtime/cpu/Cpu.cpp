//===- Cpu.cpp - running a model's CPU code -------------------------------===//
//
// Inputs are passed as memref descriptors over the tensors' own memory;
// results are allocated by the model through the runtime's allocator and
// handed to the caller without a copy where their layout allows.
//
//===----------------------------------------------------------------------===//

#include "Cpu.h"

#include <dlfcn.h>
#include <link.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>

using namespace attune;
using namespace attune::runtime;

cpu::Program cpu::bind(void *library) {
  Program program;
  program.setNumThreads = reinterpret_cast<void (*)(int)>(
      dlsym(library, "omp_set_num_threads"));
  program.inParallel =
      reinterpret_cast<int (*)()>(dlsym(library, "omp_in_parallel"));
  // The model's allocation hooks (attune-route-runtime-calls): ours from now on.
  if (void *slot = dlsym(library, artifact::kMalloc.slot)) {
    void *(*alloc)(size_t) = modelAlloc;
    std::memcpy(slot, &alloc, sizeof(alloc));
    if (void *freeSlot = dlsym(library, artifact::kFree.slot)) {
      void (*release)(void *) = modelFree;
      std::memcpy(freeSlot, &release, sizeof(release));
    }
    program.routedAllocation = true;
  }
  return program;
}

/// Calls `visit(begin, end, flags)` for each PT_LOAD segment of `library`
/// (its addresses in this process, `end` past the segment's memory size).
template <typename Visit>
static void forEachSegment(void *library, Visit visit) {
  struct link_map *map = nullptr;
  if (dlinfo(library, RTLD_DI_LINKMAP, &map) != 0 || !map)
    return;
  struct Search {
    const struct link_map *map;
    Visit *visit;
  } search{map, &visit};
  auto callback = [](struct dl_phdr_info *info, size_t, void *data) -> int {
    const auto *search = static_cast<const Search *>(data);
    if (info->dlpi_addr != search->map->l_addr ||
        std::strcmp(info->dlpi_name, search->map->l_name) != 0)
      return 0;
    for (int i = 0; i < info->dlpi_phnum; ++i) {
      const ElfW(Phdr) &segment = info->dlpi_phdr[i];
      if (segment.p_type != PT_LOAD)
        continue;
      uintptr_t begin = info->dlpi_addr + segment.p_vaddr;
      (*search->visit)(begin, begin + segment.p_memsz, segment.p_flags);
    }
    return 1;
  };
  dl_iterate_phdr(callback, &search);
}

void cpu::populateReadOnlyData(void *library) {
#ifdef MADV_POPULATE_READ
  const uintptr_t page = uintptr_t(sysconf(_SC_PAGESIZE));
  forEachSegment(library, [&](uintptr_t begin, uintptr_t end, unsigned flags) {
    if (flags & (PF_W | PF_X))
      return;
    begin &= ~(page - 1);
    // Errors (an older kernel: EINVAL) leave the pages to fault in.
    (void)madvise(reinterpret_cast<void *>(begin), end - begin,
                  MADV_POPULATE_READ);
  });
#else
  (void)library;
#endif
}

void cpu::adviseHugePages(void *library) {
#ifdef MADV_HUGEPAGE
  // x86-64's PMD size; the kernel's own where it says.
  uintptr_t huge = uintptr_t(2) << 20;
  if (FILE *f = std::fopen("/sys/kernel/mm/transparent_hugepage/"
                           "hpage_pmd_size",
                           "r")) {
    unsigned long long size = 0;
    if (std::fscanf(f, "%llu", &size) == 1 && size && !(size & (size - 1)))
      huge = uintptr_t(size);
    std::fclose(f);
  }
  forEachSegment(library, [&](uintptr_t begin, uintptr_t end, unsigned flags) {
    if (!(flags & PF_W))
      return;
    begin = (begin + huge - 1) & ~(huge - 1);
    end &= ~(huge - 1);
    // Errors (no transparent huge pages: EINVAL) leave 4 KiB pages.
    if (end > begin)
      (void)madvise(reinterpret_cast<void *>(begin), end - begin,
                    MADV_HUGEPAGE);
  });
#else
  (void)library;
#endif
}

/// A tensor over a result's own buffer `allocated` (a bufferAlloc block),
/// if the result is row-major and its first element 64-byte aligned; false
/// (and nothing allocated) otherwise.
static bool adoptResult(attune_dtype dtype, size_t rank, const int64_t *desc,
                        void *allocated, char *aligned, attune_tensor **out) {
  size_t elem = attune_dtype_size(dtype);
  char *base = aligned + desc[2] * elem;
  if (!allocated || reinterpret_cast<uintptr_t>(base) % 64 != 0 ||
      std::any_of(desc + 3, desc + 3 + rank, [](int64_t n) { return n < 0; }) ||
      !isRowMajor(rank, desc))
    return false;
  *out = new attune_tensor{dtype,
                           std::vector<int64_t>(desc + 3, desc + 3 + rank),
                           base, true, allocated};
  return true;
}


attune_status *cpu::run(const Program &program, void (*invoke)(void **),
                        const char *where, int numThreads,
                        const std::vector<artifact::TensorSpec> &outputSpecs,
                        const attune_tensor *const *inputs, size_t numInputs,
                        attune_tensor **results) {
  std::vector<std::vector<int64_t>> descriptors;
  for (size_t i = 0; i < numInputs; ++i)
    descriptors.push_back(rowMajorDescriptor(
        reinterpret_cast<uint64_t>(inputs[i]->data), inputs[i]->shape));
  size_t resultWords = 0;
  for (const artifact::TensorSpec &o : outputSpecs)
    resultWords += descriptorWords(o.shape.size());
  std::vector<int64_t> resultDescs(resultWords, 0);
  std::vector<void *> args;
  args.push_back(resultDescs.data());
  for (auto &d : descriptors)
    args.push_back(d.data());

  // OpenMP's thread count is per calling thread: set it for this one.
  if (numThreads > 0 && program.setNumThreads)
    program.setNumThreads(numThreads);
  if (attune_status *s =
          invokeGuarded(invoke, args.data(), where, program.inParallel)) {
    for (size_t o = 0; o < outputSpecs.size(); ++o)
      results[o] = nullptr;
    return s;
  }

  // Each result becomes a tensor the caller owns. A row-major, 64-byte
  // aligned result in a buffer of the runtime's allocator is handed over as
  // it is (no copy: 25 MB for a 2048 x 3072 linear layer); any other is
  // copied and its buffer freed. A buffer is handed over (or freed) once,
  // should two results share it. Every output is read (and freed) even if an
  // earlier copy fails.
  attune_status *status = nullptr;
  size_t at = 0;
  std::vector<void *> released;
  for (size_t o = 0; o < outputSpecs.size(); ++o) {
    const artifact::TensorSpec &spec = outputSpecs[o];
    size_t rank = spec.shape.size();
    const int64_t *desc = &resultDescs[at];
    at += descriptorWords(rank);
    void *allocated, *aligned;
    std::memcpy(&allocated, &desc[0], sizeof(void *));
    std::memcpy(&aligned, &desc[1], sizeof(void *));
    results[o] = nullptr;
    bool fresh = std::find(released.begin(), released.end(), allocated) ==
                 released.end();
    if (!status && fresh && program.routedAllocation &&
        adoptResult(spec.dtype, rank, desc, allocated,
                    static_cast<char *>(aligned), &results[o])) {
      released.push_back(allocated);
      continue;
    }
    if (!status)
      status = copyResult(spec.dtype, rank, desc,
                          static_cast<const char *>(aligned), &results[o]);
    if (!fresh)
      continue;
    released.push_back(allocated);
    if (program.routedAllocation)
      bufferFree(allocated);
    else
      std::free(allocated);
  }
  if (status)
    for (size_t o = 0; o < outputSpecs.size(); ++o) {
      attune_tensor_free(results[o]);
      results[o] = nullptr;
    }
  return status;
}
