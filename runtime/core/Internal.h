//===- Internal.h - the runtime core shared by its devices ------*- C++ -*-===//
//
// The device-independent core of the runtime: statuses, tensors and their
// memref descriptors, the buffer cache, and the guard that turns a failed
// run-time check into a status. The device folders (cpu/, vulkan/) include
// this and never each other.
//
//===----------------------------------------------------------------------===//

#ifndef ATTUNE_RUNTIME_CORE_INTERNAL_H
#define ATTUNE_RUNTIME_CORE_INTERNAL_H

#include "attune/artifact.h"
#include "attune/runtime.h"

#include <cstdarg>
#include <cstdint>
#include <string>
#include <vector>

struct attune_status {
  std::string message;
};

struct attune_tensor {
  attune_dtype dtype;
  std::vector<int64_t> shape;
  void *data = nullptr;
  bool owned = false;
  // When owned: the bufferAlloc block to free, if not `data` itself (a
  // model's result handed over without a copy, `data` inside it).
  void *allocation = nullptr;
};

namespace attune::vulkan {
struct Program;
struct Resident;
} // namespace attune::vulkan

namespace attune::runtime {

/// The metadata of entry `entry` of `model`, or null (Model.cpp).
const artifact::EntrySpec *entrySpec(const attune_model *model, size_t entry);

/// The model's Vulkan program, or null when it runs on the CPU.
vulkan::Program *vulkanProgram(const attune_model *model);

/// attune_model_run with, per input (`resident` may be null), a resident
/// device buffer bound in place of uploading the input, whose tensor then
/// gives only its dtype and shape (Vulkan only).
attune_status *runEntry(const attune_model *model, size_t entry,
                        const attune_tensor *const *inputs, size_t numInputs,
                        const vulkan::Resident *const *resident,
                        attune_tensor **outputs, size_t numOutputs);

/// A status with a printf-style message.
attune_status *error(const char *format, ...)
    __attribute__((format(printf, 1, 2)));

/// "[2, ?, 64]" (-1 prints as ?).
std::string shapeString(const int64_t *shape, size_t rank);

/// Number of elements, or -1 on overflow or a negative extent.
int64_t elementCount(const int64_t *shape, size_t rank);

//===----------------------------------------------------------------------===//
// Memref descriptors (Tensor.cpp)
//===----------------------------------------------------------------------===//

/// Words in a rank-r memref descriptor: {allocated, aligned, offset,
/// sizes[r], strides[r]}.
inline size_t descriptorWords(size_t rank) { return 3 + 2 * rank; }

/// Whether the descriptor `desc` (rank `rank`) is row-major: each dim of
/// extent other than 1 strides by the product of the extents after it.
bool isRowMajor(size_t rank, const int64_t *desc);

/// The memref descriptor of a row-major tensor at `address`: {allocated,
/// aligned, offset 0, sizes[r], strides[r]}.
std::vector<int64_t> rowMajorDescriptor(uint64_t address,
                                        const std::vector<int64_t> &shape);

/// A new tensor with the contents of a result descriptor whose aligned
/// pointer reads at `aligned` on the host.
attune_status *copyResult(attune_dtype dtype, size_t rank, const int64_t *desc,
                          const char *aligned, attune_tensor **out);

//===----------------------------------------------------------------------===//
// Buffers (Buffers.cpp)
//===----------------------------------------------------------------------===//

/// Heap buffers of the CPU code and of tensors, 64-byte aligned; from 16 KiB
/// up, freed buffers are kept by size for the next allocation of the same
/// size. bufferFree takes only bufferAlloc's (and bufferAllocZeroed's)
/// pointers.
void *bufferAlloc(size_t size);
/// bufferAlloc's block, zero-filled (a new block's pages are not written).
void *bufferAllocZeroed(size_t size);
void bufferFree(void *p);
/// Frees the buffers kept for reuse.
void releaseBuffers();
/// The whole pages of the system's page size inside [p, p + bytes):
/// [*begin, *end); false (and nothing set) where there is none.
bool wholePages(const void *p, size_t bytes, char **begin, char **end);

//===----------------------------------------------------------------------===//
// The run guard (RunGuard.cpp)
//===----------------------------------------------------------------------===//

/// Calls a model's entry wrapper `fn(args)`; a failed check inside (or an
/// allocation that fails) returns its message as the status, prefixed with
/// `where`. `inParallel`: the model's omp_in_parallel, if it has one.
attune_status *invokeGuarded(void (*fn)(void **), void **args,
                             const char *where,
                             int (*inParallel)() = nullptr);

/// The model's check handler (artifact::kCheckHandler): ends the run active
/// on this thread with `message`; aborts the process outside any run.
[[noreturn]] void checkFailed(const char *message);

/// The same for runtime functions that the model's code calls.
[[noreturn]] void failRun(const std::string &message);

/// The model code's allocator (artifact::kMalloc's slot): bufferAlloc, failing
/// the run on out of memory instead of returning NULL; the buffers a run
/// allocates on its own thread are freed if it fails.
void *modelAlloc(size_t size);
/// Its free (artifact::kFree's slot).
void modelFree(void *p);

} // namespace attune::runtime

#endif // ATTUNE_RUNTIME_CORE_INTERNAL_H
