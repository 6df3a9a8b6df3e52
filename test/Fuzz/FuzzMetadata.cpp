//===- FuzzMetadata.cpp - libFuzzer target: the artifact metadata parser --===//
//
// The text an artifact carries (attune/artifact.h): parse must accept or
// reject with a message, and what it accepts must serialize and parse back
// to the same text.
//
//===----------------------------------------------------------------------===//

#include "attune/artifact.h"

#include <cstdint>
#include <cstdlib>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  std::string text(reinterpret_cast<const char *>(data), size);
  attune::artifact::Metadata m;
  std::string error = attune::artifact::parse(text.c_str(), m);
  if (!error.empty())
    return 0;
  std::string again = attune::artifact::serialize(m);
  attune::artifact::Metadata m2;
  if (!attune::artifact::parse(again.c_str(), m2).empty() ||
      attune::artifact::serialize(m2) != again)
    std::abort(); // serialize and parse disagree
  return 0;
}
