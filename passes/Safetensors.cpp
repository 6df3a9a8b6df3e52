//===- Safetensors.cpp - read safetensors files ---------------------------===//

#include "passes/Safetensors.h"

#include "llvm/Support/Endian.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"

#include <algorithm>

using namespace mlir::attune;
using llvm::formatv;

static llvm::Error fail(llvm::StringRef path, const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                 "%s: %s", path.str().c_str(),
                                 message.str().c_str());
}

size_t SafetensorsFile::elementSize(llvm::StringRef dtype) {
  return llvm::StringSwitch<size_t>(dtype)
      .Cases("F64", "I64", "U64", 8)
      .Cases("F32", "I32", "U32", 4)
      .Cases("F16", "BF16", "I16", "U16", 2)
      .Cases("I8", "U8", "BOOL", "F8_E4M3", "F8_E5M2", 1)
      .Default(0);
}

llvm::Expected<SafetensorsFile> SafetensorsFile::open(llvm::StringRef path) {
  auto buffer = llvm::MemoryBuffer::getFile(path, /*IsText=*/false,
                                            /*RequiresNullTerminator=*/false);
  if (!buffer)
    return fail(path, "cannot read: " + buffer.getError().message());
  llvm::StringRef bytes = (*buffer)->getBuffer();
  if (bytes.size() < 8)
    return fail(path, formatv("not a safetensors file: {0} bytes, expected at "
                              "least an 8-byte header length",
                              bytes.size()));
  uint64_t headerLen = llvm::support::endian::read64le(bytes.data());
  if (headerLen > bytes.size() - 8)
    return fail(path, formatv("truncated: header length {0} exceeds the {1} "
                              "bytes that follow it",
                              headerLen, bytes.size() - 8));
  llvm::StringRef header = bytes.substr(8, headerLen);
  llvm::StringRef data = bytes.substr(8 + headerLen);
  llvm::Expected<llvm::json::Value> json = llvm::json::parse(header);
  if (!json)
    return fail(path, "header is not valid JSON: " +
                          llvm::toString(json.takeError()));
  const llvm::json::Object *root = json->getAsObject();
  if (!root)
    return fail(path, "header is not a JSON object");

  SafetensorsFile file;
  file.filePath = path.str();
  for (const auto &kv : *root) {
    llvm::StringRef name = kv.first;
    if (name == "__metadata__")
      continue;
    const llvm::json::Object *info = kv.second.getAsObject();
    if (!info)
      return fail(path, formatv("tensor '{0}': entry is not an object", name));
    SafetensorsEntry entry;
    std::optional<llvm::StringRef> dtype = info->getString("dtype");
    const llvm::json::Array *shape = info->getArray("shape");
    const llvm::json::Array *offsets = info->getArray("data_offsets");
    if (!dtype || !shape || !offsets || offsets->size() != 2)
      return fail(path, formatv("tensor '{0}': expected dtype, shape and two "
                                "data_offsets",
                                name));
    entry.dtype = dtype->str();
    size_t elemSize = elementSize(*dtype);
    if (elemSize == 0)
      return fail(path, formatv("tensor '{0}': unknown dtype '{1}'", name,
                                *dtype));
    uint64_t count = 1;
    for (const llvm::json::Value &d : *shape) {
      std::optional<int64_t> extent = d.getAsInteger();
      if (!extent || *extent < 0 || (*extent > 0 && count > (UINT64_MAX >> 1) / *extent))
        return fail(path, formatv("tensor '{0}': invalid shape", name));
      entry.shape.push_back(*extent);
      count *= *extent;
    }
    std::optional<int64_t> begin = (*offsets)[0].getAsInteger();
    std::optional<int64_t> end = (*offsets)[1].getAsInteger();
    if (!begin || !end || *begin < 0 || *end < *begin ||
        static_cast<uint64_t>(*end) > data.size())
      return fail(path, formatv("tensor '{0}': data_offsets [{1}, {2}] lie "
                                "outside the {3}-byte data section",
                                name, begin.value_or(-1), end.value_or(-1),
                                data.size()));
    uint64_t bytesNeeded = count * elemSize;
    if (static_cast<uint64_t>(*end - *begin) != bytesNeeded)
      return fail(path, formatv("tensor '{0}': {1} bytes of data, expected {2} "
                                "for its shape and dtype {3}",
                                name, *end - *begin, bytesNeeded, *dtype));
    entry.data = llvm::ArrayRef<char>(data.data() + *begin, bytesNeeded);
    file.entries[name] = std::move(entry);
  }
  file.buffer = std::move(*buffer);
  return std::move(file);
}

const SafetensorsEntry *SafetensorsFile::lookup(llvm::StringRef name) const {
  auto it = entries.find(name);
  return it == entries.end() ? nullptr : &it->second;
}

std::vector<std::string> SafetensorsFile::names() const {
  std::vector<std::string> result;
  for (const auto &e : entries)
    result.push_back(e.getKey().str());
  std::sort(result.begin(), result.end());
  return result;
}
