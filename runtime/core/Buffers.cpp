//===- Buffers.cpp - the buffer cache of CPU code and tensors -------------===//

#include "Internal.h"

#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <unordered_map>

using namespace attune::runtime;

// attune-compile routes the CPU code's malloc and free through the
// function pointers attune_cpu_malloc_hook and attune_cpu_free_hook
// (attune-route-runtime-calls), which hold malloc and free until
// attune_model_open writes bufferAlloc and bufferFree into them. Freed
// buffers of 16 KiB or more, the model's and the tensors', are kept by size
// for the next allocation of the same size: a model run
// repeatedly allocates the same sizes, and glibc would return such blocks to
// the system, so that every run faulted in fresh zeroed pages (about 1,100
// faults per run of a BERT-base encoder layer at L = 128). Blocks below its
// mmap threshold are not spared either: freed at the top of the heap, they
// join a free top above glibc's trim threshold (128 KiB), which it gives
// back with brk, and the next run grows the heap again (a decoder step's
// dozens of 12-49 KiB buffers: 4 trims and ~7 % of each run, by the luck
// of the order in which the code allocated them; none from 16 KiB up).
// ATTUNE_CPU_BUFFER_CACHE caps the bytes kept (default 1 GiB; 0 keeps none);
// closing a model releases them.
//
// A kept block handed out zeroed is cleared where the process holds its
// pages (clearBlock): a generation's caches are such blocks, large and
// touched sparsely (GPT-2's 24 caches of 2,048 positions are 151 MB, of
// which a prompt of 128 tokens touches 7 %), and writing them whole faulted
// in every page on the second generation of a process (34,000 faults, 0.35
// s on a Zen 5 VM) and cost ~5 ms on every one after it.
//
// Each block is 64-byte aligned and carries its header just below the
// pointer handed out: what malloc returned and the size asked for. Freeing a
// small block is then a plain free (glibc's per-thread cache, no lock), and
// only blocks of 16 KiB or more take the cache's lock.
namespace {
struct BlockHeader {
  void *raw;
  size_t size;
};
constexpr size_t kAlign = 64;
constexpr size_t kMinCachedSize = 16 << 10;

struct BufferCache {
  std::mutex mutex;
  std::unordered_multimap<size_t, void *> kept;
  size_t keptBytes = 0;
  size_t limit = [] {
    const char *env = std::getenv("ATTUNE_CPU_BUFFER_CACHE");
    return env && *env ? std::strtoull(env, nullptr, 10) : size_t(1) << 30;
  }();
};
// Never destroyed: models may free buffers while the process exits.
BufferCache &bufferCache() {
  static BufferCache *cache = new BufferCache;
  return *cache;
}

BlockHeader *headerOf(void *p) { return static_cast<BlockHeader *>(p) - 1; }

void freeBlock(void *p) { std::free(headerOf(p)->raw); }
} // namespace

namespace {
/// From this size up, kept blocks are cleared page by page (clearBlock).
constexpr size_t kSparseClearSize = 256 << 10;

/// Zeroes the `size` bytes at `p`. From kSparseClearSize up, only the pages
/// the process holds (mincore) are written; the others, never touched or
/// swapped out, are dropped (MADV_DONTNEED: a private anonymous page reads
/// as zeros when next touched), so that clearing costs the pages a block's
/// last user touched, not page faults over all of it. Where the kernel
/// refuses either call, the bytes are written.
void clearBlock(void *p, size_t size) {
  auto *bytes = static_cast<char *>(p);
  char *begin, *end;
  if (size < kSparseClearSize || !wholePages(p, size, &begin, &end)) {
    std::memset(p, 0, size);
    return;
  }
  size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  // The partial pages at both ends, which the block shares with others.
  std::memset(bytes, 0, begin - bytes);
  std::memset(end, 0, bytes + size - end);
  // Whole pages, in windows of `kWindow` pages: runs of held pages are
  // written, runs of others dropped.
  constexpr size_t kWindow = 4096;
  unsigned char held[kWindow];
  for (char *first = begin; first < end; first += kWindow * page) {
    size_t pages = std::min<size_t>(kWindow, (end - first) / page);
    if (mincore(first, pages * page, held) != 0) {
      std::memset(first, 0, pages * page);
      continue;
    }
    for (size_t i = 0; i < pages;) {
      bool resident = held[i] & 1;
      size_t j = i + 1;
      while (j < pages && (held[j] & 1) == resident)
        ++j;
      char *run = first + i * page;
      size_t runBytes = (j - i) * page;
      if (resident || madvise(run, runBytes, MADV_DONTNEED) != 0)
        std::memset(run, 0, runBytes);
      i = j;
    }
  }
}

/// A block of `size` bytes: one kept from an earlier allocation of that size
/// (cleared with `zeroed`, clearBlock), else a new one from malloc, or with
/// `zeroed` from calloc, whose fresh pages are zero without being written (the
/// pages a tensor never touches, a generation cache's unused capacity, are
/// never faulted in). Null when out of memory.
void *allocateBlock(size_t size, bool zeroed) {
  if (size >= kMinCachedSize) {
    void *kept = nullptr;
    {
      BufferCache &c = bufferCache();
      std::lock_guard<std::mutex> lock(c.mutex);
      if (auto it = c.kept.find(size); it != c.kept.end()) {
        kept = it->second;
        c.kept.erase(it);
        c.keptBytes -= size;
      }
    }
    if (kept) {
      if (zeroed)
        clearBlock(kept, size);
      return kept;
    }
  }
  // Room for the header and the alignment: malloc's pointers are 16-byte
  // aligned, so the aligned block starts at most 16 + 48 bytes in.
  size_t room = sizeof(BlockHeader) + kAlign;
  if (size > SIZE_MAX - room)
    return nullptr;
  char *raw = static_cast<char *>(zeroed ? std::calloc(size + room, 1)
                                         : std::malloc(size + room));
  if (!raw)
    return nullptr;
  uintptr_t at = (reinterpret_cast<uintptr_t>(raw) + sizeof(BlockHeader) +
                  kAlign - 1) /
                 kAlign * kAlign;
  void *p = reinterpret_cast<void *>(at);
  *headerOf(p) = {raw, size};
  return p;
}
} // namespace

void *attune::runtime::bufferAlloc(size_t size) {
  return allocateBlock(size, /*zeroed=*/false);
}

void *attune::runtime::bufferAllocZeroed(size_t size) {
  return allocateBlock(size, /*zeroed=*/true);
}

bool attune::runtime::wholePages(const void *p, size_t bytes, char **begin,
                                 char **end) {
  long page = sysconf(_SC_PAGESIZE);
  if (page <= 0)
    return false;
  uintptr_t at = reinterpret_cast<uintptr_t>(p);
  uintptr_t first = (at + page - 1) / page * page;
  uintptr_t last = (at + bytes) / page * page;
  if (last <= first)
    return false;
  *begin = reinterpret_cast<char *>(first);
  *end = reinterpret_cast<char *>(last);
  return true;
}

void attune::runtime::bufferFree(void *p) {
  if (!p)
    return;
  size_t size = headerOf(p)->size;
  if (size >= kMinCachedSize) {
    BufferCache &c = bufferCache();
    std::lock_guard<std::mutex> lock(c.mutex);
    if (c.keptBytes + size <= c.limit) {
      c.kept.emplace(size, p);
      c.keptBytes += size;
      return;
    }
  }
  freeBlock(p);
}

void attune::runtime::releaseBuffers() {
  BufferCache &c = bufferCache();
  std::lock_guard<std::mutex> lock(c.mutex);
  for (auto &[size, p] : c.kept)
    freeBlock(p);
  c.kept.clear();
  c.keptBytes = 0;
}
