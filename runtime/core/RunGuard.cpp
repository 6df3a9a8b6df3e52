//===- RunGuard.cpp - unwinding a failed model run ------------------------===//
//
// Failed shape checks in a model call the handler the runtime installs in
// the model's check-handler slot (artifact::kCheckHandler); it unwinds to the
// attune_model_run that is active on this thread. The model's frames hold no
// destructors, so longjmp over them is sound; what they had allocated is
// freed here: the run records every buffer its thread allocates through the
// model's allocator until the model frees it, and a failed run frees what is
// left (intermediates and results alike).
//
//===----------------------------------------------------------------------===//

#include "Internal.h"

#include <atomic>
#include <csetjmp>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

using namespace attune::runtime;

namespace {
/// One guarded call of a model's entry.
struct Run {
  std::jmp_buf jump;
  /// Buffers this run's thread allocated (some may have been freed since).
  std::vector<void *> allocated;
};

thread_local Run *activeRun = nullptr;
thread_local std::string checkMessage;
thread_local int (*activeInParallel)() = nullptr;

/// The live buffers of active runs and the run each belongs to. A buffer
/// may be freed on another thread than the one that allocated it (an
/// OpenMP worker), hence one table under a lock rather than per thread.
std::mutex liveMutex;
std::unordered_map<void *, Run *> live;
std::atomic<size_t> liveCount{0};

void track(void *p, Run *run) {
  std::lock_guard<std::mutex> lock(liveMutex);
  live[p] = run;
  liveCount.store(live.size(), std::memory_order_relaxed);
  run->allocated.push_back(p);
}

/// Forgets `run`'s buffers; with `release`, frees those still live.
void finish(Run &run, bool release) {
  std::vector<void *> leftover;
  {
    std::lock_guard<std::mutex> lock(liveMutex);
    for (void *p : run.allocated) {
      auto it = live.find(p);
      if (it == live.end() || it->second != &run)
        continue;
      live.erase(it);
      if (release)
        leftover.push_back(p);
    }
    liveCount.store(live.size(), std::memory_order_relaxed);
  }
  for (void *p : leftover)
    bufferFree(p);
}
} // namespace

void attune::runtime::checkFailed(const char *message) {
  if (!activeRun) {
    std::fprintf(stderr, "attune: %s\n", message);
    std::abort();
  }
  checkMessage = message;
  std::longjmp(activeRun->jump, 1);
}

void attune::runtime::failRun(const std::string &message) {
  checkFailed(message.c_str());
}

// Where bufferAlloc fails the run fails with a diagnostic instead of handing
// the code a NULL to write through. Outside any OpenMP parallel region the
// failure unwinds to attune_model_run like a failed check; inside one
// (another thread, or this one with a team waiting at a barrier) unwinding
// would strand the team, so the process reports and aborts.
namespace {
std::atomic<uint64_t> allocatedBytes{0}, allocatedBuffers{0};
} // namespace

void attune_runtime_allocation_stats(uint64_t *bytes, uint64_t *buffers) {
  if (bytes)
    *bytes = allocatedBytes.load(std::memory_order_relaxed);
  if (buffers)
    *buffers = allocatedBuffers.load(std::memory_order_relaxed);
}

void *attune::runtime::modelAlloc(size_t size) {
  allocatedBytes.fetch_add(size, std::memory_order_relaxed);
  allocatedBuffers.fetch_add(1, std::memory_order_relaxed);
  if (void *p = bufferAlloc(size)) {
    // Buffers of OpenMP workers live inside their parallel region, which a
    // failure cannot leave: only the run's own thread's are recorded.
    if (activeRun)
      track(p, activeRun);
    return p;
  }
  char message[160];
  std::snprintf(message, sizeof(message),
                "out of memory: the model could not allocate %zu bytes for "
                "an intermediate or result buffer",
                size);
  if (activeInParallel && activeInParallel()) {
    std::fprintf(stderr, "attune: %s (inside a parallel region: aborting)\n",
                 message);
    std::abort();
  }
  checkFailed(message);
}

void attune::runtime::modelFree(void *p) {
  if (!p)
    return;
  if (liveCount.load(std::memory_order_relaxed) != 0) {
    std::lock_guard<std::mutex> lock(liveMutex);
    if (live.erase(p))
      liveCount.store(live.size(), std::memory_order_relaxed);
  }
  bufferFree(p);
}

attune_status *attune::runtime::invokeGuarded(void (*fn)(void **),
                                              void **args, const char *where,
                                              int (*inParallel)()) {
  Run run;
  Run *outer = activeRun;
  int (*outerInParallel)() = activeInParallel;
  activeRun = &run;
  activeInParallel = inParallel;
  if (setjmp(run.jump) != 0) {
    activeRun = outer;
    activeInParallel = outerInParallel;
    finish(run, /*release=*/true);
    return error("%s: %s", where, checkMessage.c_str());
  }
  fn(args);
  activeRun = outer;
  activeInParallel = outerInParallel;
  finish(run, /*release=*/false);
  return nullptr;
}
