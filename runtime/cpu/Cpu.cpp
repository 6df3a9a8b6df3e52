//===- Cpu.cpp - running a model's CPU code -------------------------------===//
//
// Inputs are passed as memref descriptors over the tensors' own memory;
// results are allocated by the model through the runtime's allocator and
// handed to the caller without a copy where their layout allows.
//
//===----------------------------------------------------------------------===//

#include "Cpu.h"

#include <dlfcn.h>
#include <fcntl.h>
#include <link.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
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

/// Calls `visit(begin, end, flags, offset)` for each PT_LOAD segment of
/// `library` (its addresses in this process, `end` past the segment's memory
/// size; `offset`: where `begin` lies in the library's file).
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
      (*search->visit)(begin, begin + segment.p_memsz, segment.p_flags,
                       uintptr_t(segment.p_offset));
    }
    return 1;
  };
  dl_iterate_phdr(callback, &search);
}

void cpu::populateReadOnlyData(void *library) {
#ifdef MADV_POPULATE_READ
  const uintptr_t page = uintptr_t(sysconf(_SC_PAGESIZE));
  forEachSegment(library, [&](uintptr_t begin, uintptr_t end, unsigned flags,
                              uintptr_t) {
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

/// The kernel's transparent huge page size; 0 where it has none, or where
/// they are off (`never`) or refused (ATTUNE_CPU_HUGE_PAGES=0).
static uintptr_t hugePageSize() {
  if (const char *env = std::getenv("ATTUNE_CPU_HUGE_PAGES");
      env && std::strcmp(env, "0") == 0)
    return 0;
  char mode[128] = {};
  if (FILE *f =
          std::fopen("/sys/kernel/mm/transparent_hugepage/enabled", "r")) {
    size_t n = std::fread(mode, 1, sizeof(mode) - 1, f);
    mode[n] = 0;
    std::fclose(f);
  }
  if (!*mode || std::strstr(mode, "[never]"))
    return 0;
  // x86-64's PMD size; the kernel's own where it says.
  uintptr_t huge = uintptr_t(2) << 20;
  if (FILE *f = std::fopen("/sys/kernel/mm/transparent_hugepage/hpage_pmd_size",
                           "r")) {
    unsigned long long size = 0;
    if (std::fscanf(f, "%llu", &size) == 1 && size && !(size & (size - 1)))
      huge = uintptr_t(size);
    std::fclose(f);
  }
  return huge;
}

/// `x` rounded up to a multiple of `to` (a power of two).
static uintptr_t alignUp(uintptr_t x, uintptr_t to) {
  return (x + to - 1) & ~(to - 1);
}

/// Whether the mapping holding `address` maps, at `offset`, the file that
/// `file` is open on (the same device and inode in /proc/self/maps): a
/// library opened again is anonymous there already, and a library file
/// replaced on disk since it was loaded (a rebuilt model) is another
/// inode, whose bytes must not be copied over the loaded one's.
static bool mapsFile(uintptr_t address, int file, uintptr_t offset) {
  struct stat st;
  if (fstat(file, &st) != 0)
    return false;
  FILE *maps = std::fopen("/proc/self/maps", "r");
  if (!maps)
    return false;
  bool same = false;
  char line[4096];
  while (std::fgets(line, sizeof(line), maps)) {
    unsigned long long lo, hi, at, inode;
    unsigned devMajor, devMinor;
    char perms[8];
    if (std::sscanf(line, "%llx-%llx %7s %llx %x:%x %llu", &lo, &hi, perms, &at,
                    &devMajor, &devMinor, &inode) == 7 &&
        lo <= address && address < hi) {
      same = inode == st.st_ino && devMajor == major(st.st_dev) &&
             devMinor == minor(st.st_dev) && at + (address - lo) == offset;
      break;
    }
  }
  std::fclose(maps);
  return same;
}

void cpu::adviseHugePages(void *library) {
#ifdef MADV_HUGEPAGE
  uintptr_t huge = hugePageSize();
  if (!huge)
    return;
  forEachSegment(library, [&](uintptr_t begin, uintptr_t end, unsigned flags,
                              uintptr_t) {
    if (!(flags & PF_W))
      return;
    begin = alignUp(begin, huge);
    end &= ~(huge - 1);
    if (end > begin)
      (void)madvise(reinterpret_cast<void *>(begin), end - begin,
                    MADV_HUGEPAGE);
  });
#else
  (void)library;
#endif
}

void cpu::moveReadOnlyDataToHugePages(void *library) {
#if defined(MADV_HUGEPAGE) && defined(MREMAP_FIXED)
  uintptr_t huge = hugePageSize();
  struct link_map *map = nullptr;
  if (!huge || dlinfo(library, RTLD_DI_LINKMAP, &map) != 0 || !map)
    return;
  // Text relocations would have written to read-only segments after they
  // were mapped: the file's bytes are then not the loaded ones.
  for (const ElfW(Dyn) *d = map->l_ld; d && d->d_tag != DT_NULL; ++d)
    if (d->d_tag == DT_TEXTREL ||
        (d->d_tag == DT_FLAGS && (d->d_un.d_val & DF_TEXTREL)))
      return;
  int file = open(map->l_name, O_RDONLY | O_CLOEXEC);
  if (file < 0)
    return;
  forEachSegment(library, [&](uintptr_t begin, uintptr_t end, unsigned flags,
                              uintptr_t offset) {
    if (flags & (PF_W | PF_X))
      return;
    uintptr_t first = alignUp(begin, huge);
    end &= ~(huge - 1);
    offset += first - begin;
    if (end <= first || !mapsFile(first, file, offset))
      return;
    size_t size = end - first;
    // Anonymous memory at a huge page boundary: `size` bytes from there.
    void *raw = mmap(nullptr, size + huge, PROT_READ | PROT_WRITE,
                     MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (raw == MAP_FAILED)
      return;
    uintptr_t at = reinterpret_cast<uintptr_t>(raw);
    uintptr_t copy = alignUp(at, huge);
    if (copy > at)
      munmap(raw, copy - at);
    munmap(reinterpret_cast<void *>(copy + size), at + huge - copy);
    auto *to = reinterpret_cast<char *>(copy);
    (void)madvise(to, size, MADV_HUGEPAGE);
    // Read from the file (the page cache's copy, without mapping it).
    size_t done = 0;
    while (done < size) {
      ssize_t n = pread(file, to + done, size - done, off_t(offset + done));
      if (n <= 0)
        break;
      done += size_t(n);
    }
    // Over the file's pages, atomically: a run of the same library on
    // another thread reads the same bytes from either.
    if (done != size || mprotect(to, size, PROT_READ) != 0 ||
        mremap(to, size, size, MREMAP_MAYMOVE | MREMAP_FIXED,
               reinterpret_cast<void *>(first)) == MAP_FAILED)
      munmap(to, size);
  });
  close(file);
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
