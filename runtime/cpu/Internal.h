//===- Internal.h - runtime internals shared by its files -------*- C++ -*-===//

#ifndef ATTUNE_RUNTIME_CPU_INTERNAL_H
#define ATTUNE_RUNTIME_CPU_INTERNAL_H

#include "attune/runtime.h"

#include <cstdarg>
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
};

namespace attune::runtime {

/// A status with a printf-style message.
attune_status *error(const char *format, ...)
    __attribute__((format(printf, 1, 2)));

/// "[2, ?, 64]" (-1 prints as ?).
std::string shapeString(const int64_t *shape, size_t rank);

/// Number of elements, or -1 on overflow or a negative extent.
int64_t elementCount(const int64_t *shape, size_t rank);

} // namespace attune::runtime

#endif // ATTUNE_RUNTIME_CPU_INTERNAL_H
