//===- Tensor.cpp - statuses, tensors, descriptors and .npy files ---------===//

#include "Internal.h"
#include "attune/artifact.h"

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <memory>

using namespace attune;
using namespace attune::runtime;

attune_status *attune::runtime::error(const char *format, ...) {
  va_list args;
  va_start(args, format);
  char buffer[2048];
  vsnprintf(buffer, sizeof(buffer), format, args);
  va_end(args);
  return new attune_status{buffer};
}

std::string attune::runtime::shapeString(const int64_t *shape, size_t rank) {
  std::string s = "[";
  for (size_t i = 0; i < rank; ++i) {
    if (i)
      s += ", ";
    s += shape[i] < 0 ? "?" : std::to_string(shape[i]);
  }
  return s + "]";
}

int64_t attune::runtime::elementCount(const int64_t *shape, size_t rank) {
  int64_t count = 1;
  for (size_t i = 0; i < rank; ++i) {
    if (shape[i] < 0)
      return -1;
    if (shape[i] != 0 && count > std::numeric_limits<int64_t>::max() / shape[i])
      return -1;
    count *= shape[i];
  }
  return count;
}

//===----------------------------------------------------------------------===//
// Memref descriptors
//===----------------------------------------------------------------------===//

bool attune::runtime::isRowMajor(size_t rank, const int64_t *desc) {
  int64_t expect = 1;
  for (size_t d = rank; d-- > 0;) {
    if (desc[3 + d] != 1 && desc[3 + rank + d] != expect)
      return false;
    expect *= desc[3 + d];
  }
  return true;
}

attune_status *attune::runtime::copyResult(attune_dtype dtype, size_t rank,
                                           const int64_t *desc,
                                           const char *aligned,
                                           attune_tensor **out) {
  attune_tensor *t = nullptr;
  if (attune_status *s = attune_tensor_create(dtype, rank, desc + 3, &t))
    return s;
  size_t elem = attune_dtype_size(dtype);
  size_t count = attune_tensor_num_elements(t);
  const char *base = aligned + desc[2] * elem;
  // Row-major results are one copy; anything else goes element-wise.
  if (isRowMajor(rank, desc)) {
    if (count)
      std::memcpy(t->data, base, count * elem);
  } else {
    std::vector<int64_t> index(rank, 0);
    for (size_t n = 0; n < count; ++n) {
      int64_t offset = 0;
      for (size_t d = 0; d < rank; ++d)
        offset += index[d] * desc[3 + rank + d];
      std::memcpy(static_cast<char *>(t->data) + n * elem, base + offset * elem,
                  elem);
      for (size_t d = rank; d-- > 0;)
        if (++index[d] < desc[3 + d])
          break;
        else
          index[d] = 0;
    }
  }
  *out = t;
  return nullptr;
}

std::vector<int64_t> attune::runtime::rowMajorDescriptor(
    uint64_t address, const std::vector<int64_t> &shape) {
  size_t rank = shape.size();
  std::vector<int64_t> desc(3 + 2 * rank);
  desc[0] = desc[1] = static_cast<int64_t>(address);
  desc[2] = 0;
  int64_t stride = 1;
  for (size_t d = rank; d-- > 0;) {
    desc[3 + d] = shape[d];
    desc[3 + rank + d] = stride;
    stride *= shape[d];
  }
  return desc;
}


extern "C" {

const char *attune_status_message(const attune_status *status) {
  return status ? status->message.c_str() : "ok";
}

void attune_status_free(attune_status *status) { delete status; }

const char *attune_dtype_name(attune_dtype dtype) {
  const artifact::DtypeInfo *d = artifact::dtypeInfo(dtype);
  return d ? d->name : "unknown";
}

size_t attune_dtype_size(attune_dtype dtype) {
  const artifact::DtypeInfo *d = artifact::dtypeInfo(dtype);
  return d ? d->size : 0;
}

static attune_status *checkShape(attune_dtype dtype, size_t rank,
                                 const int64_t *shape, int64_t *bytes) {
  if (attune_dtype_size(dtype) == 0)
    return error("unknown dtype %d", static_cast<int>(dtype));
  if (rank && !shape)
    return error("shape is NULL for a tensor of rank %zu", rank);
  int64_t count = elementCount(shape, rank);
  if (count < 0 ||
      count > std::numeric_limits<int64_t>::max() /
                  static_cast<int64_t>(attune_dtype_size(dtype)))
    return error("invalid tensor shape %s", shapeString(shape, rank).c_str());
  *bytes = count * static_cast<int64_t>(attune_dtype_size(dtype));
  return nullptr;
}

attune_status *attune_tensor_create(attune_dtype dtype, size_t rank,
                                    const int64_t *shape, attune_tensor **out) {
  int64_t bytes = 0;
  if (attune_status *s = checkShape(dtype, rank, shape, &bytes))
    return s;
  // 64-byte aligned, at least one byte so that empty tensors have storage.
  size_t size = (static_cast<size_t>(bytes) + 63) / 64 * 64 + 64;
  void *data = bufferAllocZeroed(size);
  if (!data)
    return error(
        "out of memory allocating a %s tensor of shape %s (%lld bytes)",
        attune_dtype_name(dtype), shapeString(shape, rank).c_str(),
        static_cast<long long>(bytes));
  *out = new attune_tensor{dtype, std::vector<int64_t>(shape, shape + rank),
                           data, true};
  return nullptr;
}

attune_status *attune_tensor_wrap(attune_dtype dtype, size_t rank,
                                  const int64_t *shape, void *data,
                                  attune_tensor **out) {
  int64_t bytes = 0;
  if (attune_status *s = checkShape(dtype, rank, shape, &bytes))
    return s;
  if (!data && bytes)
    return error("attune_tensor_wrap: data is NULL");
  *out = new attune_tensor{dtype, std::vector<int64_t>(shape, shape + rank),
                           data, false};
  return nullptr;
}

void attune_tensor_free(attune_tensor *tensor) {
  if (!tensor)
    return;
  if (tensor->owned)
    bufferFree(tensor->allocation ? tensor->allocation : tensor->data);
  delete tensor;
}

attune_dtype attune_tensor_dtype(const attune_tensor *t) { return t->dtype; }
size_t attune_tensor_rank(const attune_tensor *t) { return t->shape.size(); }
const int64_t *attune_tensor_shape(const attune_tensor *t) {
  return t->shape.data();
}
size_t attune_tensor_num_elements(const attune_tensor *t) {
  return static_cast<size_t>(elementCount(t->shape.data(), t->shape.size()));
}
void *attune_tensor_data(attune_tensor *t) { return t->data; }

//===----------------------------------------------------------------------===//
// .npy
//===----------------------------------------------------------------------===//

namespace {
struct FileCloser {
  void operator()(FILE *f) const {
    if (f)
      std::fclose(f);
  }
};
using File = std::unique_ptr<FILE, FileCloser>;

/// The value of `key` in the header dict, as written by NumPy:
/// {'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }
bool headerField(const std::string &header, const char *key,
                 std::string &value) {
  std::string quoted = std::string("'") + key + "'";
  size_t at = header.find(quoted);
  if (at == std::string::npos)
    return false;
  at = header.find(':', at + quoted.size());
  if (at == std::string::npos)
    return false;
  ++at;
  while (at < header.size() && header[at] == ' ')
    ++at;
  if (at >= header.size())
    return false;
  size_t end;
  if (header[at] == '\'') {
    end = header.find('\'', at + 1);
    if (end == std::string::npos)
      return false;
    value = header.substr(at + 1, end - at - 1);
  } else if (header[at] == '(') {
    end = header.find(')', at);
    if (end == std::string::npos)
      return false;
    value = header.substr(at + 1, end - at - 1);
  } else {
    end = header.find_first_of(",}", at);
    if (end == std::string::npos)
      return false;
    value = header.substr(at, end - at);
  }
  return true;
}
} // namespace

attune_status *attune_tensor_read_npy(const char *path, attune_tensor **out) {
  File f(std::fopen(path, "rb"));
  if (!f)
    return error("%s: cannot open: %s", path, std::strerror(errno));
  unsigned char magic[8];
  if (std::fread(magic, 1, 8, f.get()) != 8 ||
      std::memcmp(magic, "\x93NUMPY", 6) != 0)
    return error("%s: not a .npy file (bad magic)", path);
  int major = magic[6];
  uint32_t headerLen = 0;
  if (major == 1) {
    unsigned char len[2];
    if (std::fread(len, 1, 2, f.get()) != 2)
      return error("%s: truncated .npy header", path);
    headerLen = len[0] | (len[1] << 8);
  } else if (major == 2 || major == 3) {
    unsigned char len[4];
    if (std::fread(len, 1, 4, f.get()) != 4)
      return error("%s: truncated .npy header", path);
    headerLen = len[0] | (len[1] << 8) | (len[2] << 16) |
                (static_cast<uint32_t>(len[3]) << 24);
  } else {
    return error("%s: unsupported .npy version %d.%d", path, major, magic[7]);
  }
  if (headerLen > (1u << 20))
    return error("%s: .npy header of %u bytes is implausibly large", path,
                 headerLen);
  std::string header(headerLen, '\0');
  if (std::fread(header.data(), 1, headerLen, f.get()) != headerLen)
    return error("%s: truncated .npy header", path);

  std::string descr, fortran, shapeText;
  if (!headerField(header, "descr", descr) ||
      !headerField(header, "fortran_order", fortran) ||
      !headerField(header, "shape", shapeText))
    return error("%s: malformed .npy header: %s", path, header.c_str());
  if (fortran.find("True") != std::string::npos)
    return error("%s: Fortran-order arrays are not supported; save a "
                 "C-contiguous array (numpy.ascontiguousarray)",
                 path);
  if (descr.size() < 3)
    return error("%s: unsupported dtype '%s'", path, descr.c_str());
  if (descr[0] == '>')
    return error("%s: big-endian dtype '%s' is not supported; use "
                 "array.astype('<%s')",
                 path, descr.c_str(), descr.c_str() + 1);
  const artifact::DtypeInfo *info = nullptr;
  std::string known;
  for (const artifact::DtypeInfo &d : artifact::kDtypes) {
    if (!d.npy)
      continue;
    known += std::string(known.empty() ? "" : ", ") + d.npy;
    if (d.dtype == ATTUNE_BF16)
      known += " (bf16 bits)";
    // '|' marks a byte order that does not apply; '=' is the host's, which
    // is little-endian on every machine Attune runs on.
    if (descr.substr(1) == d.npy + 1 &&
        (descr[0] == '<' || descr[0] == '|' || descr[0] == '='))
      info = &d;
  }
  if (!info)
    return error("%s: unsupported dtype '%s' (expected one of %s)", path,
                 descr.c_str(), known.c_str());
  attune_dtype dtype = info->dtype;

  std::vector<int64_t> shape;
  const char *p = shapeText.c_str();
  while (*p) {
    while (*p == ' ' || *p == ',')
      ++p;
    if (!*p)
      break;
    char *end;
    errno = 0;
    long long extent = std::strtoll(p, &end, 10);
    if (end == p || errno || extent < 0)
      return error("%s: malformed shape (%s)", path, shapeText.c_str());
    shape.push_back(extent);
    p = end;
    while (*p == 'L' || *p == ' ')
      ++p;
    if (*p && *p != ',')
      return error("%s: malformed shape (%s)", path, shapeText.c_str());
  }
  // The data must be in the file before anything is allocated for it: a
  // header may claim any shape (found by fuzzing: a 10^14-byte claim).
  long start = std::ftell(f.get());
  long fileEnd = -1;
  if (start >= 0 && std::fseek(f.get(), 0, SEEK_END) == 0)
    fileEnd = std::ftell(f.get());
  if (start < 0 || fileEnd < start || std::fseek(f.get(), start, SEEK_SET))
    return error("%s: cannot find the data after the header", path);
  size_t available = static_cast<size_t>(fileEnd - start);
  size_t claimed = attune_dtype_size(dtype);
  bool overflow = false;
  for (int64_t d : shape)
    overflow |= __builtin_mul_overflow(claimed, static_cast<size_t>(d),
                                       &claimed);
  if (!overflow && claimed > available)
    return error("%s: truncated data: %zu bytes, expected %zu for %s %s",
                 path, available, claimed, descr.c_str(),
                 shapeString(shape.data(), shape.size()).c_str());
  // (An overflowing shape is attune_tensor_create's error.)
  attune_tensor *tensor;
  if (attune_status *s =
          attune_tensor_create(dtype, shape.size(), shape.data(), &tensor)) {
    // (Found by fuzzing: this status leaked.)
    attune_status *wrapped = error("%s: %s", path, s->message.c_str());
    attune_status_free(s);
    return wrapped;
  }
  size_t bytes = attune_tensor_num_elements(tensor) * attune_dtype_size(dtype);
  size_t got = std::fread(tensor->data, 1, bytes, f.get());
  if (got != bytes) {
    attune_tensor_free(tensor);
    return error("%s: truncated data: %zu bytes, expected %zu for %s %s", path,
                 got, bytes, descr.c_str(),
                 shapeString(shape.data(), shape.size()).c_str());
  }
  *out = tensor;
  return nullptr;
}

attune_status *attune_tensor_write_npy(const attune_tensor *tensor,
                                       const char *path) {
  const artifact::DtypeInfo *info = artifact::dtypeInfo(tensor->dtype);
  if (!info || !info->npy)
    return error("%s: NumPy has no %s dtype; convert the tensor first", path,
                 attune_dtype_name(tensor->dtype));
  const char *descr = info->npy;
  // NumPy's tuple syntax: (), (5,), (2, 3).
  std::string shape = "(";
  for (size_t i = 0; i < tensor->shape.size(); ++i)
    shape += (i ? ", " : "") + std::to_string(tensor->shape[i]);
  shape += tensor->shape.size() == 1 ? ",)" : ")";
  std::string header = std::string("{'descr': '") + descr +
                       "', 'fortran_order': False, 'shape': " + shape + ", }";
  // Pad so that the data starts at a multiple of 64 bytes.
  size_t total = 10 + header.size() + 1;
  header.append((64 - total % 64) % 64, ' ');
  header += '\n';
  File f(std::fopen(path, "wb"));
  if (!f)
    return error("%s: cannot create: %s", path, std::strerror(errno));
  unsigned char prefix[10] = {0x93, 'N', 'U', 'M', 'P', 'Y', 1, 0,
                              static_cast<unsigned char>(header.size() & 0xff),
                              static_cast<unsigned char>(header.size() >> 8)};
  size_t bytes = attune_tensor_num_elements(tensor) *
                 attune_dtype_size(tensor->dtype);
  if (std::fwrite(prefix, 1, 10, f.get()) != 10 ||
      std::fwrite(header.data(), 1, header.size(), f.get()) != header.size() ||
      std::fwrite(tensor->data, 1, bytes, f.get()) != bytes)
    return error("%s: write failed: %s", path, std::strerror(errno));
  return nullptr;
}

} // extern "C"
