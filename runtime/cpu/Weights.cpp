//===- Weights.cpp - loading external weights from safetensors ------------===//
//
// A model compiled with --weights-external has one exported global per
// weight; its metadata lists `weight SYMBOL NAME DTYPE RANK DIMS...`. Opening
// it reads the safetensors header (JSON, parsed here: the runtime links no
// JSON library), checks each weight's dtype and shape, and reads the data
// straight into the global.
//
//===----------------------------------------------------------------------===//

#include "Weights.h"

#include <dlfcn.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>

using namespace attune::runtime;

namespace {

struct JsonEntry {
  std::string dtype;
  std::vector<int64_t> shape;
  int64_t begin = -1, end = -1;
};

/// Just enough JSON for safetensors headers: an object of objects holding
/// strings and arrays of integers; anything else (e.g. __metadata__) is
/// parsed and skipped.
class JsonReader {
public:
  explicit JsonReader(const std::string &text) : s(text) {}

  bool parseHeader(std::map<std::string, JsonEntry> &out) {
    return forEachMember([&](const std::string &key) {
      if (peek() != '{')
        return skipValue(); // e.g. __metadata__
      return parseEntry(out[key]);
    });
  }

private:
  const std::string &s;
  size_t at = 0;

  void skipSpace() {
    while (at < s.size() && std::strchr(" \t\r\n", s[at]))
      ++at;
  }
  char peek() {
    skipSpace();
    return at < s.size() ? s[at] : '\0';
  }
  bool consume(char c) {
    if (peek() != c)
      return false;
    ++at;
    return true;
  }
  bool parseString(std::string &out) {
    if (!consume('"'))
      return false;
    out.clear();
    while (at < s.size() && s[at] != '"') {
      if (s[at] == '\\') {
        if (++at >= s.size())
          return false;
        char e = s[at];
        out += e == 'n' ? '\n' : e == 't' ? '\t' : e; // \uXXXX kept verbatim
      } else {
        out += s[at];
      }
      ++at;
    }
    return at++ < s.size();
  }
  bool parseInt(int64_t &out) {
    skipSpace();
    char *end;
    errno = 0;
    long long v = std::strtoll(s.c_str() + at, &end, 10);
    if (end == s.c_str() + at || errno)
      return false;
    at = end - s.c_str();
    out = v;
    return true;
  }
  bool parseIntArray(std::vector<int64_t> &out) {
    if (!consume('['))
      return false;
    if (consume(']'))
      return true;
    do {
      int64_t v;
      if (!parseInt(v))
        return false;
      out.push_back(v);
    } while (consume(','));
    return consume(']');
  }
  /// Calls `member` after each `"key":` of an object; it parses the value.
  template <typename Fn> bool forEachMember(Fn member) {
    if (!consume('{'))
      return false;
    if (consume('}'))
      return true;
    do {
      std::string key;
      if (!parseString(key) || !consume(':') || !member(key))
        return false;
    } while (consume(','));
    return consume('}');
  }
  bool parseEntry(JsonEntry &e) {
    return forEachMember([&](const std::string &key) {
      if (key == "dtype")
        return parseString(e.dtype);
      if (key == "shape")
        return parseIntArray(e.shape);
      if (key == "data_offsets") {
        std::vector<int64_t> offsets;
        if (!parseIntArray(offsets) || offsets.size() != 2)
          return false;
        e.begin = offsets[0];
        e.end = offsets[1];
        return true;
      }
      return skipValue();
    });
  }
  bool skipValue() {
    char c = peek();
    std::string ignored;
    if (c == '"')
      return parseString(ignored);
    if (c == '{')
      return forEachMember([&](const std::string &) { return skipValue(); });
    if (c == '[') {
      ++at;
      if (consume(']'))
        return true;
      do {
        if (!skipValue())
          return false;
      } while (consume(','));
      return consume(']');
    }
    while (at < s.size() && !std::strchr(",}] \t\r\n", s[at]))
      ++at;
    return true;
  }
};

const char *safetensorsDtype(attune_dtype dtype) {
  switch (dtype) {
  case ATTUNE_F32:
    return "F32";
  case ATTUNE_F16:
    return "F16";
  case ATTUNE_BF16:
    return "BF16";
  case ATTUNE_I32:
    return "I32";
  case ATTUNE_I64:
    return "I64";
  }
  return "?";
}

struct FileCloser {
  void operator()(FILE *f) const {
    if (f)
      std::fclose(f);
  }
};

/// Libraries whose weight globals are filled, and from which file: a model
/// opened twice shares its globals, so a second, different file is refused.
std::mutex registryMutex;
std::map<void *, std::pair<std::string, int>> registry;

} // namespace

attune_status *attune::runtime::loadExternalWeights(
    void *library, const std::string &modelPath,
    const std::vector<ExternalWeight> &weights, const std::string &file) {
  std::lock_guard<std::mutex> lock(registryMutex);
  auto known = registry.find(library);
  if (known != registry.end()) {
    if (known->second.first != file)
      return error("%s: already open in this process with weights %s; a "
                   "second copy cannot use %s",
                   modelPath.c_str(), known->second.first.c_str(),
                   file.c_str());
    ++known->second.second;
    return nullptr;
  }

  std::unique_ptr<FILE, FileCloser> f(std::fopen(file.c_str(), "rb"));
  if (!f)
    return error("%s: cannot open the weights file %s: %s", modelPath.c_str(),
                 file.c_str(), std::strerror(errno));
  unsigned char lenBytes[8];
  if (std::fread(lenBytes, 1, 8, f.get()) != 8)
    return error("%s: not a safetensors file (shorter than 8 bytes)",
                 file.c_str());
  uint64_t headerLen = 0;
  for (int i = 7; i >= 0; --i)
    headerLen = (headerLen << 8) | lenBytes[i];
  if (headerLen > (uint64_t(1) << 30))
    return error("%s: implausible safetensors header length %llu",
                 file.c_str(), static_cast<unsigned long long>(headerLen));
  std::string header(headerLen, '\0');
  if (std::fread(header.data(), 1, headerLen, f.get()) != headerLen)
    return error("%s: truncated safetensors header", file.c_str());
  std::map<std::string, JsonEntry> entries;
  if (!JsonReader(header).parseHeader(entries))
    return error("%s: malformed safetensors header", file.c_str());
  if (std::fseek(f.get(), 0, SEEK_END) != 0)
    return error("%s: cannot seek: %s", file.c_str(), std::strerror(errno));
  long fileSize = std::ftell(f.get());
  int64_t dataStart = 8 + static_cast<int64_t>(headerLen);

  for (const ExternalWeight &w : weights) {
    auto it = entries.find(w.name);
    if (it == entries.end())
      return error("%s: weight '%s' is not in %s", modelPath.c_str(),
                   w.name.c_str(), file.c_str());
    const JsonEntry &e = it->second;
    if (e.dtype != safetensorsDtype(w.dtype))
      return error("%s: weight '%s' has dtype %s in %s, expected %s",
                   modelPath.c_str(), w.name.c_str(), e.dtype.c_str(),
                   file.c_str(), safetensorsDtype(w.dtype));
    if (e.shape != w.shape)
      return error("%s: weight '%s' has shape %s in %s, expected %s",
                   modelPath.c_str(), w.name.c_str(),
                   shapeString(e.shape.data(), e.shape.size()).c_str(),
                   file.c_str(),
                   shapeString(w.shape.data(), w.shape.size()).c_str());
    int64_t bytes = elementCount(w.shape.data(), w.shape.size()) *
                    static_cast<int64_t>(attune_dtype_size(w.dtype));
    if (e.begin < 0 || e.end - e.begin != bytes ||
        dataStart + e.end > fileSize)
      return error("%s: weight '%s': data_offsets [%lld, %lld] do not hold "
                   "%lld bytes inside the file",
                   file.c_str(), w.name.c_str(),
                   static_cast<long long>(e.begin),
                   static_cast<long long>(e.end), static_cast<long long>(bytes));
    void *global = dlsym(library, w.symbol.c_str());
    if (!global)
      return error("%s: no symbol %s for weight '%s'", modelPath.c_str(),
                   w.symbol.c_str(), w.name.c_str());
    if (std::fseek(f.get(), dataStart + e.begin, SEEK_SET) != 0 ||
        std::fread(global, 1, bytes, f.get()) != static_cast<size_t>(bytes))
      return error("%s: reading weight '%s' failed", file.c_str(),
                   w.name.c_str());
  }
  registry[library] = {file, 1};
  return nullptr;
}

void attune::runtime::releaseExternalWeights(void *library) {
  std::lock_guard<std::mutex> lock(registryMutex);
  auto it = registry.find(library);
  if (it != registry.end() && --it->second.second == 0)
    registry.erase(it);
}
