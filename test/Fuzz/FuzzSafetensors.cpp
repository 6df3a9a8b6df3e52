//===- FuzzSafetensors.cpp - libFuzzer target: the safetensors reader ----===//
//
// The one reader the compiler (binding weights) and the runtime (external
// weights) share: validation must reject every malformed file with a
// message, and every tensor of an accepted one must lie inside it.
//
//===----------------------------------------------------------------------===//

#include "attune/safetensors.h"

#include <cstdint>
#include <cstdlib>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  std::string error;
  auto file = attune::SafetensorsFile::fromBytes(
      reinterpret_cast<const char *>(data), size, "fuzz.safetensors", error);
  if (!file) {
    if (error.empty())
      std::abort(); // a rejection must say why
    return 0;
  }
  for (const std::string &name : file->names()) {
    const attune::SafetensorsTensor *t = file->find(name);
    if (!t)
      std::abort();
    // Touch the first and last byte: ASan reports one outside the input.
    if (t->bytes) {
      volatile char first = t->data[0], last = t->data[t->bytes - 1];
      (void)first;
      (void)last;
    }
  }
  return 0;
}
