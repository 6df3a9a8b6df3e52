//===- FuzzNpy.cpp - libFuzzer target: the runtime's .npy reader ----------===//
//
// The bytes become a file (a memfd: the reader takes a path) read with
// attune_tensor_read_npy; a malformed file must give a status, never a
// crash, and a tensor it accepts must be writable again.
//
//===----------------------------------------------------------------------===//

#include "attune/runtime.h"

#include <cstdint>
#include <cstdio>
#include <string>
#include <sys/mman.h>
#include <unistd.h>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static int fd = memfd_create("fuzz.npy", 0);
  static std::string path = "/proc/self/fd/" + std::to_string(fd);
  if (fd < 0 || ftruncate(fd, 0) != 0 ||
      pwrite(fd, data, size, 0) != static_cast<ssize_t>(size))
    return 0;
  attune_tensor *t = nullptr;
  if (attune_status *s = attune_tensor_read_npy(path.c_str(), &t)) {
    attune_status_free(s);
    return 0;
  }
  static int out = memfd_create("fuzz-out.npy", 0);
  static std::string outPath = "/proc/self/fd/" + std::to_string(out);
  if (attune_status *s = attune_tensor_write_npy(t, outPath.c_str()))
    attune_status_free(s);
  attune_tensor_free(t);
  return 0;
}
