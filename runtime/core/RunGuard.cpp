//===- RunGuard.cpp - unwinding a failed model run ------------------------===//
//
// Failed shape checks in a model call the handler the runtime installs in
// the model's check-handler slot (artifact::kCheckHandler); it unwinds to the
// attune_model_run that is active on this thread. The model's frames hold no
// destructors, so longjmp over them is sound.
//
//===----------------------------------------------------------------------===//

#include "Internal.h"

#include <csetjmp>
#include <cstdio>
#include <cstdlib>
#include <string>

using namespace attune::runtime;

namespace {
thread_local std::jmp_buf *activeRun = nullptr;
thread_local std::string checkMessage;
} // namespace

void attune::runtime::checkFailed(const char *message) {
  if (!activeRun) {
    std::fprintf(stderr, "attune: %s\n", message);
    std::abort();
  }
  checkMessage = message;
  std::longjmp(*activeRun, 1);
}

void attune::runtime::failRun(const std::string &message) {
  checkFailed(message.c_str());
}

// The model code's allocator (its attune_cpu_malloc_hook): bufferAlloc, and
// where that fails the run fails with a diagnostic instead of handing the
// code a NULL to write through. Outside any OpenMP parallel region the
// failure unwinds to attune_model_run like a failed check; inside one
// (another thread, or this one with a team waiting at a barrier) unwinding
// would strand the team, so the process reports and aborts.
namespace {
thread_local int (*activeInParallel)() = nullptr;
} // namespace

void *attune::runtime::modelAlloc(size_t size) {
  if (void *p = attune::runtime::bufferAlloc(size))
    return p;
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

attune_status *attune::runtime::invokeGuarded(void (*fn)(void **),
                                              void **args, const char *where,
                                              int (*inParallel)()) {
  std::jmp_buf jump;
  std::jmp_buf *outer = activeRun;
  int (*outerInParallel)() = activeInParallel;
  activeRun = &jump;
  activeInParallel = inParallel;
  if (setjmp(jump) != 0) {
    activeRun = outer;
    activeInParallel = outerInParallel;
    return error("%s: %s", where, checkMessage.c_str());
  }
  fn(args);
  activeRun = outer;
  activeInParallel = outerInParallel;
  return nullptr;
}
