//===- Safetensors.cpp - the one safetensors reader -----------------------===//
//
// The header is parsed here with just enough JSON for safetensors (objects,
// arrays, strings, integers; other scalars are skipped): the runtime links no
// JSON library, and the reader is fuzzed (test/Fuzz).
//
//===----------------------------------------------------------------------===//

#include "attune/safetensors.h"
#include "attune/artifact.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <limits>

using namespace attune;

namespace {

/// A parsed header entry, before its offsets are checked against the file.
struct RawEntry {
  std::string dtype;
  std::vector<int64_t> shape;
  std::vector<int64_t> offsets;
  bool hasDtype = false, hasShape = false, hasOffsets = false;
};

class JsonReader {
public:
  JsonReader(const char *text, size_t size) : s(text), n(size) {}

  /// The top-level object: tensor name -> entry. Returns false with
  /// `problem` set on malformed JSON or a malformed entry.
  bool parseHeader(std::map<std::string, RawEntry> &out, std::string &problem) {
    bool ok = forEachMember(0, [&](const std::string &key) {
      if (key == "__metadata__")
        return skipValue(1);
      if (out.count(key)) {
        problem = "tensor '" + key + "' appears twice in the header";
        return false;
      }
      if (peek() != '{') {
        problem = "tensor '" + key + "': entry is not an object";
        return false;
      }
      return parseEntry(out[key]);
    });
    if (ok && peek() != '\0') {
      problem = "trailing bytes after the header's JSON object";
      return false;
    }
    if (!ok && problem.empty())
      problem = "the header is not valid JSON (near byte " +
                std::to_string(at) + ")";
    return ok;
  }

private:
  /// Nesting deeper than this is rejected (no stack overflow on
  /// adversarial input).
  static constexpr int kMaxDepth = 64;
  const char *s;
  size_t n, at = 0;

  void skipSpace() {
    while (at < n && (s[at] == ' ' || s[at] == '\t' || s[at] == '\r' ||
                      s[at] == '\n'))
      ++at;
  }
  char peek() {
    skipSpace();
    return at < n ? s[at] : '\0';
  }
  bool consume(char c) {
    if (peek() != c)
      return false;
    ++at;
    return true;
  }
  static void appendUtf8(std::string &out, uint32_t code) {
    if (code < 0x80) {
      out += static_cast<char>(code);
    } else if (code < 0x800) {
      out += static_cast<char>(0xC0 | (code >> 6));
      out += static_cast<char>(0x80 | (code & 0x3F));
    } else {
      out += static_cast<char>(0xE0 | (code >> 12));
      out += static_cast<char>(0x80 | ((code >> 6) & 0x3F));
      out += static_cast<char>(0x80 | (code & 0x3F));
    }
  }
  bool parseString(std::string &out) {
    if (!consume('"'))
      return false;
    out.clear();
    while (at < n && s[at] != '"') {
      char c = s[at++];
      if (static_cast<unsigned char>(c) < 0x20)
        return false; // control characters must be escaped
      if (c != '\\') {
        out += c;
        continue;
      }
      if (at >= n)
        return false;
      char e = s[at++];
      switch (e) {
      case '"':
      case '\\':
      case '/':
        out += e;
        break;
      case 'b':
        out += '\b';
        break;
      case 'f':
        out += '\f';
        break;
      case 'n':
        out += '\n';
        break;
      case 'r':
        out += '\r';
        break;
      case 't':
        out += '\t';
        break;
      case 'u': {
        if (n - at < 4)
          return false;
        uint32_t code = 0;
        for (int i = 0; i < 4; ++i) {
          char h = s[at++];
          code <<= 4;
          if (h >= '0' && h <= '9')
            code |= h - '0';
          else if (h >= 'a' && h <= 'f')
            code |= h - 'a' + 10;
          else if (h >= 'A' && h <= 'F')
            code |= h - 'A' + 10;
          else
            return false;
        }
        appendUtf8(out, code); // surrogate pairs kept as two code units
        break;
      }
      default:
        return false;
      }
    }
    return at++ < n;
  }
  bool parseInt(int64_t &out) {
    skipSpace();
    size_t start = at;
    bool negative = at < n && s[at] == '-';
    if (negative)
      ++at;
    if (at >= n || s[at] < '0' || s[at] > '9')
      return false;
    uint64_t v = 0;
    while (at < n && s[at] >= '0' && s[at] <= '9') {
      unsigned digit = s[at++] - '0';
      if (v > (uint64_t(std::numeric_limits<int64_t>::max()) - digit) / 10)
        return false;
      v = v * 10 + digit;
    }
    if (at < n && (s[at] == '.' || s[at] == 'e' || s[at] == 'E'))
      return false; // not an integer
    out = negative ? -static_cast<int64_t>(v) : static_cast<int64_t>(v);
    return at > start;
  }
  bool parseIntArray(std::vector<int64_t> &out) {
    if (!consume('['))
      return false;
    if (consume(']'))
      return true;
    do {
      int64_t v;
      if (!parseInt(v) || out.size() > 1024)
        return false;
      out.push_back(v);
    } while (consume(','));
    return consume(']');
  }
  /// Calls `member` after each `"key":` of an object; it parses the value.
  template <typename Fn> bool forEachMember(int depth, Fn member) {
    if (depth > kMaxDepth || !consume('{'))
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
  bool parseEntry(RawEntry &e) {
    return forEachMember(1, [&](const std::string &key) {
      if (key == "dtype")
        return e.hasDtype = parseString(e.dtype);
      if (key == "shape")
        return e.hasShape = parseIntArray(e.shape);
      if (key == "data_offsets")
        return e.hasOffsets = parseIntArray(e.offsets);
      return skipValue(2);
    });
  }
  bool skipValue(int depth) {
    if (depth > kMaxDepth)
      return false;
    char c = peek();
    std::string ignored;
    if (c == '"')
      return parseString(ignored);
    if (c == '{')
      return forEachMember(depth, [&](const std::string &) {
        return skipValue(depth + 1);
      });
    if (c == '[') {
      ++at;
      if (consume(']'))
        return true;
      do {
        if (!skipValue(depth + 1))
          return false;
      } while (consume(','));
      return consume(']');
    }
    // A number, true, false or null.
    size_t start = at;
    while (at < n && (std::isalnum(static_cast<unsigned char>(s[at])) ||
                      s[at] == '-' || s[at] == '+' || s[at] == '.'))
      ++at;
    return at > start;
  }
};

std::string shapeText(const std::vector<int64_t> &shape) {
  std::string text = "[";
  for (size_t i = 0; i < shape.size(); ++i)
    text += (i ? ", " : "") + std::to_string(shape[i]);
  return text + "]";
}

} // namespace

std::unique_ptr<SafetensorsFile>
SafetensorsFile::fromBytes(const char *bytes, size_t size,
                           const std::string &name, std::string &error) {
  auto fail = [&](const std::string &what) {
    error = name + ": " + what;
    return nullptr;
  };
  if (size < 8)
    return fail("not a safetensors file: " + std::to_string(size) +
                " bytes, expected at least an 8-byte header length");
  uint64_t headerLen = 0;
  for (int i = 7; i >= 0; --i)
    headerLen = (headerLen << 8) | static_cast<unsigned char>(bytes[i]);
  if (headerLen > size - 8)
    return fail("truncated: header length " + std::to_string(headerLen) +
                " exceeds the " + std::to_string(size - 8) +
                " bytes that follow it");
  std::map<std::string, RawEntry> raw;
  std::string problem;
  if (!JsonReader(bytes + 8, headerLen).parseHeader(raw, problem))
    return fail(problem);
  const char *data = bytes + 8 + headerLen;
  uint64_t dataSize = size - 8 - headerLen;

  std::unique_ptr<SafetensorsFile> file(new SafetensorsFile);
  file->filePath = name;
  for (auto &[key, e] : raw) {
    if (!e.hasDtype || !e.hasShape || !e.hasOffsets || e.offsets.size() != 2)
      return fail("tensor '" + key +
                  "': expected dtype, shape and two data_offsets");
    size_t elemSize = artifact::safetensorsElementSize(e.dtype);
    if (elemSize == 0)
      return fail("tensor '" + key + "': unknown dtype '" + e.dtype + "'");
    uint64_t count = 1;
    for (int64_t extent : e.shape) {
      if (extent < 0 ||
          (extent > 0 && count > (uint64_t(1) << 62) / uint64_t(extent)))
        return fail("tensor '" + key + "': invalid shape " +
                    shapeText(e.shape));
      count *= uint64_t(extent);
    }
    int64_t begin = e.offsets[0], end = e.offsets[1];
    if (begin < 0 || end < begin || uint64_t(end) > dataSize)
      return fail("tensor '" + key + "': data_offsets [" +
                  std::to_string(begin) + ", " + std::to_string(end) +
                  "] lie outside the " + std::to_string(dataSize) +
                  "-byte data section");
    if (count > (uint64_t(1) << 62) / elemSize ||
        uint64_t(end - begin) != count * elemSize)
      return fail("tensor '" + key + "': " + std::to_string(end - begin) +
                  " bytes of data, expected " +
                  std::to_string(count * elemSize) + " for its shape " +
                  shapeText(e.shape) + " and dtype " + e.dtype);
    SafetensorsTensor &t = file->tensors[key];
    t.dtype = std::move(e.dtype);
    t.shape = std::move(e.shape);
    t.data = data + begin;
    t.bytes = size_t(end - begin);
  }
  return file;
}

std::unique_ptr<SafetensorsFile>
SafetensorsFile::open(const std::string &path, std::string &error) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    error = path + ": cannot read: " + std::strerror(errno);
    return nullptr;
  }
  struct stat st;
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    error = path + ": cannot read: not a regular file";
    ::close(fd);
    return nullptr;
  }
  size_t size = size_t(st.st_size);
  void *mapping = nullptr;
  if (size > 0) {
    mapping = mmap(nullptr, size, PROT_READ, MAP_PRIVATE, fd, 0);
    if (mapping == MAP_FAILED) {
      error = path + ": cannot map: " + std::strerror(errno);
      ::close(fd);
      return nullptr;
    }
  }
  ::close(fd);
  static const char empty[1] = {0};
  std::unique_ptr<SafetensorsFile> file = fromBytes(
      mapping ? static_cast<const char *>(mapping) : empty, size, path, error);
  if (!file) {
    if (mapping)
      munmap(mapping, size);
    return nullptr;
  }
  file->mapping = mapping;
  file->mappingSize = size;
  return file;
}

SafetensorsFile::~SafetensorsFile() {
  if (mapping)
    munmap(mapping, mappingSize);
}

const SafetensorsTensor *SafetensorsFile::find(const std::string &name) const {
  auto it = tensors.find(name);
  return it == tensors.end() ? nullptr : &it->second;
}

std::vector<std::string> SafetensorsFile::names() const {
  std::vector<std::string> result;
  for (const auto &entry : tensors)
    result.push_back(entry.first);
  return result; // std::map keeps them sorted
}

namespace {

void appendJsonString(std::string &out, const std::string &text) {
  out += '"';
  for (char c : text) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (static_cast<unsigned char>(c) < 0x20) {
      char buf[8];
      snprintf(buf, sizeof(buf), "\\u%04x", unsigned(c));
      out += buf;
    } else {
      out += c;
    }
  }
  out += '"';
}

} // namespace

bool attune::writeSafetensors(const std::string &path,
                              const std::vector<SafetensorsEntry> &entries,
                              std::string &error) {
  std::string header = "{";
  size_t offset = 0;
  for (size_t i = 0; i < entries.size(); ++i) {
    const SafetensorsEntry &e = entries[i];
    if (i)
      header += ',';
    appendJsonString(header, e.name);
    header += ":{\"dtype\":";
    appendJsonString(header, e.dtype);
    header += ",\"shape\":[";
    for (size_t d = 0; d < e.shape.size(); ++d)
      header += (d ? "," : "") + std::to_string(e.shape[d]);
    header += "],\"data_offsets\":[" + std::to_string(offset) + "," +
              std::to_string(offset + e.bytes) + "]}";
    offset += e.bytes;
  }
  header += '}';
  header.append((8 - header.size() % 8) % 8, ' '); // the data 8-aligned

  std::string temp = path + ".tmp" + std::to_string(getpid());
  int fd = ::open(temp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) {
    error = path + ": " + std::strerror(errno);
    return false;
  }
  auto writeAll = [&](const char *p, size_t n) {
    while (n) {
      ssize_t w = ::write(fd, p, std::min<size_t>(n, size_t(1) << 30));
      if (w < 0 && errno == EINTR)
        continue;
      if (w <= 0)
        return false;
      p += w;
      n -= size_t(w);
    }
    return true;
  };
  unsigned char length[8];
  uint64_t n = header.size();
  for (int i = 0; i < 8; ++i)
    length[i] = static_cast<unsigned char>(n >> (8 * i));
  bool ok = writeAll(reinterpret_cast<const char *>(length), 8) &&
            writeAll(header.data(), header.size());
  for (const SafetensorsEntry &e : entries)
    ok = ok && writeAll(e.data, e.bytes);
  int savedErrno = errno;
  if (::close(fd) != 0 && ok) {
    ok = false;
    savedErrno = errno;
  }
  if (ok && std::rename(temp.c_str(), path.c_str()) != 0) {
    ok = false;
    savedErrno = errno;
  }
  if (!ok) {
    ::unlink(temp.c_str());
    error = path + ": " + std::strerror(savedErrno);
  }
  return ok;
}
