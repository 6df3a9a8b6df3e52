//===- Internal.h - runtime internals shared by its files -------*- C++ -*-===//

#ifndef ATTUNE_RUNTIME_CPU_INTERNAL_H
#define ATTUNE_RUNTIME_CPU_INTERNAL_H

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

namespace attune::runtime {

/// A status with a printf-style message.
attune_status *error(const char *format, ...)
    __attribute__((format(printf, 1, 2)));

/// "[2, ?, 64]" (-1 prints as ?).
std::string shapeString(const int64_t *shape, size_t rank);

/// Number of elements, or -1 on overflow or a negative extent.
int64_t elementCount(const int64_t *shape, size_t rank);

/// Ends the model run active on this thread with `message` (unwinds out of
/// the model's code to attune_model_run). Called by runtime functions that
/// the model's code calls.
[[noreturn]] void failRun(const std::string &message);

/// The memref descriptor of a row-major tensor at `address`: {allocated,
/// aligned, offset 0, sizes[r], strides[r]}.
std::vector<int64_t> rowMajorDescriptor(uint64_t address,
                                        const std::vector<int64_t> &shape);

/// Heap buffers of the CPU code and of tensors, 64-byte aligned; from 64 KiB
/// up, freed buffers are kept by size for the next allocation of the same
/// size (Model.cpp). bufferFree takes only bufferAlloc's pointers.
void *bufferAlloc(size_t size);
void bufferFree(void *p);
/// Frees the buffers kept for reuse.
void releaseBuffers();

/// A new tensor with the contents of a result descriptor (rank-r memref:
/// allocated, aligned, offset, sizes[r], strides[r]) whose aligned pointer
/// reads at `aligned` on the host.
attune_status *copyResult(attune_dtype dtype, size_t rank, const int64_t *desc,
                          const char *aligned, attune_tensor **out);

} // namespace attune::runtime

#endif // ATTUNE_RUNTIME_CPU_INTERNAL_H
