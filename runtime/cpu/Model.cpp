//===- Model.cpp - loading and running compiled models --------------------===//
//
// A model is a shared library from attune-compile. It exports
// `attune_model_metadata` (text, see attune-compile's metadataText) and, per
// entry point, `void attune_invoke_<name>(void **args)` where args[0] points
// to the results (one memref descriptor per output, back to back) and
// args[1 + i] to the descriptor of input i. A rank-r descriptor is
// {allocated ptr, aligned ptr, int64 offset, int64 sizes[r], int64 strides[r]}.
// Results are allocated by the model (through attune_cpu_malloc_hook, below)
// and owned by the caller.
//
//===----------------------------------------------------------------------===//

#include "Internal.h"
#include "Weights.h"
#include "../vulkan/Vulkan.h"

#include <dlfcn.h>

#include <algorithm>
#include <csetjmp>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <sstream>
#include <unordered_map>

using namespace attune::runtime;

//===----------------------------------------------------------------------===//
// The CPU code's heap buffers
//===----------------------------------------------------------------------===//

// attune-compile routes the CPU code's malloc and free through the
// function pointers attune_cpu_malloc_hook and attune_cpu_free_hook
// (attune-runtime-allocator), which hold malloc and free until
// attune_model_open writes bufferAlloc and bufferFree into them. Freed
// buffers of 64 KiB or more, the model's and the tensors', are kept by size
// for the next allocation of the same size: a model run
// repeatedly allocates the same sizes, and glibc would return such blocks to
// the system, so that every run faulted in fresh zeroed pages (about 1,100
// faults per run of a BERT-base encoder layer at L = 128).
// ATTUNE_CPU_BUFFER_CACHE caps the bytes kept (default 1 GiB; 0 keeps none);
// closing a model releases them.
//
// Each block is 64-byte aligned and carries its header just below the
// pointer handed out: what malloc returned and the size asked for. Freeing a
// small block is then a plain free (glibc's per-thread cache, no lock), and
// only blocks of 64 KiB or more take the cache's lock.
namespace {
struct BlockHeader {
  void *raw;
  size_t size;
};
constexpr size_t kAlign = 64;
constexpr size_t kMinCachedSize = 64 << 10;

struct BufferCache {
  std::mutex mutex;
  std::unordered_multimap<size_t, void *> kept;
  size_t keptBytes = 0;
  size_t limit = [] {
    const char *env = std::getenv("ATTUNE_CPU_BUFFER_CACHE");
    return env && *env ? std::strtoull(env, nullptr, 10) : size_t(1) << 30;
  }();
};
// Never destroyed: models may free buffers while the process exits.
BufferCache &bufferCache() {
  static BufferCache *cache = new BufferCache;
  return *cache;
}

BlockHeader *headerOf(void *p) { return static_cast<BlockHeader *>(p) - 1; }

void freeBlock(void *p) { std::free(headerOf(p)->raw); }
} // namespace

void *attune::runtime::bufferAlloc(size_t size) {
  if (size >= kMinCachedSize) {
    BufferCache &c = bufferCache();
    std::lock_guard<std::mutex> lock(c.mutex);
    if (auto it = c.kept.find(size); it != c.kept.end()) {
      void *p = it->second;
      c.kept.erase(it);
      c.keptBytes -= size;
      return p;
    }
  }
  // Room for the header and the alignment: malloc's pointers are 16-byte
  // aligned, so the aligned block starts at most 16 + 48 bytes in.
  size_t room = sizeof(BlockHeader) + kAlign;
  if (size > SIZE_MAX - room)
    return nullptr;
  char *raw = static_cast<char *>(std::malloc(size + room));
  if (!raw)
    return nullptr;
  uintptr_t at = (reinterpret_cast<uintptr_t>(raw) + sizeof(BlockHeader) +
                  kAlign - 1) /
                 kAlign * kAlign;
  void *p = reinterpret_cast<void *>(at);
  *headerOf(p) = {raw, size};
  return p;
}

void attune::runtime::bufferFree(void *p) {
  if (!p)
    return;
  size_t size = headerOf(p)->size;
  if (size >= kMinCachedSize) {
    BufferCache &c = bufferCache();
    std::lock_guard<std::mutex> lock(c.mutex);
    if (c.keptBytes + size <= c.limit) {
      c.kept.emplace(size, p);
      c.keptBytes += size;
      return;
    }
  }
  freeBlock(p);
}

void attune::runtime::releaseBuffers() {
  BufferCache &c = bufferCache();
  std::lock_guard<std::mutex> lock(c.mutex);
  for (auto &[size, p] : c.kept)
    freeBlock(p);
  c.kept.clear();
  c.keptBytes = 0;
}

namespace {
struct TensorSpec {
  std::string name;
  attune_dtype dtype;
  std::vector<int64_t> shape;
};
struct Entry {
  std::string name;
  std::vector<TensorSpec> inputs, outputs;
  void (*invoke)(void **) = nullptr;   // CPU code
  void (*vkInvoke)(void **) = nullptr; // Vulkan host code
};

bool parseDtype(const std::string &s, attune_dtype &dtype) {
  static const std::pair<const char *, attune_dtype> names[] = {
      {"f32", ATTUNE_F32}, {"f16", ATTUNE_F16}, {"bf16", ATTUNE_BF16},
      {"i32", ATTUNE_I32}, {"i64", ATTUNE_I64}};
  for (const auto &[n, d] : names)
    if (s == n) {
      dtype = d;
      return true;
    }
  return false;
}

size_t descriptorWords(size_t rank) { return 3 + 2 * rank; }
} // namespace

// Failed shape checks in a model call the handler the runtime installs in
// the model's `attune_check_handler`; it unwinds to the attune_model_run that
// is active on this thread. The model's frames hold no destructors, so
// longjmp over them is sound (their heap intermediates leak).
namespace {
thread_local std::jmp_buf *activeRun = nullptr;
thread_local std::string checkMessage;

[[noreturn]] void checkFailed(const char *message) {
  if (!activeRun) {
    std::fprintf(stderr, "attune: %s\n", message);
    std::abort();
  }
  checkMessage = message;
  std::longjmp(*activeRun, 1);
}
} // namespace

void attune::runtime::failRun(const std::string &message) {
  checkFailed(message.c_str());
}

// The model code's allocator (its attune_cpu_malloc_hook): bufferAlloc, and
// where that fails the run fails with a diagnostic instead of handing the
// code a NULL to write through. Outside any OpenMP parallel region the
// failure unwinds to attune_model_run like a failed check; inside one
// (another thread, or this one with a team waiting at a barrier) unwinding
// would strand the team, so the process reports and aborts.
namespace {
thread_local int (*activeInParallel)() = nullptr;

void *modelAlloc(size_t size) {
  if (void *p = attune::runtime::bufferAlloc(size))
    return p;
  char message[160];
  std::snprintf(message, sizeof(message),
                "out of memory: the model could not allocate %zu bytes for "
                "an intermediate or result buffer",
                size);
  if (activeInParallel && activeInParallel()) {
    std::fprintf(stderr, "attune: %s (inside a parallel region: aborting)\n",
                 message);
    std::abort();
  }
  checkFailed(message);
}
} // namespace

/// Whether the memref descriptor `desc` (rank `rank`) is row-major: each
/// dim of extent other than 1 strides by the product of the extents after
/// it.
static bool isRowMajor(size_t rank, const int64_t *desc) {
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

/// A tensor over a result's own buffer `allocated` (a bufferAlloc block),
/// if the result is row-major and its first element 64-byte aligned; false
/// (and nothing allocated) otherwise.
static bool adoptResult(attune_dtype dtype, size_t rank, const int64_t *desc,
                        void *allocated, char *aligned, attune_tensor **out) {
  size_t elem = attune_dtype_size(dtype);
  char *base = aligned + desc[2] * elem;
  if (!allocated || reinterpret_cast<uintptr_t>(base) % 64 != 0 ||
      std::any_of(desc + 3, desc + 3 + rank, [](int64_t n) { return n < 0; }) ||
      !isRowMajor(rank, desc))
    return false;
  *out = new attune_tensor{dtype,
                           std::vector<int64_t>(desc + 3, desc + 3 + rank),
                           base, true, allocated};
  return true;
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

/// Calls a model's entry wrapper; a failed check inside returns its message
/// as the status (see checkFailed).
static attune_status *invokeGuarded(void (*fn)(void **), void **args,
                                    const char *where,
                                    int (*inParallel)() = nullptr) {
  std::jmp_buf jump;
  std::jmp_buf *outer = activeRun;
  int (*outerInParallel)() = activeInParallel;
  activeRun = &jump;
  activeInParallel = inParallel;
  if (setjmp(jump) != 0) {
    activeRun = outer;
    activeInParallel = outerInParallel;
    return error("%s: %s", where, checkMessage.c_str());
  }
  fn(args);
  activeRun = outer;
  activeInParallel = outerInParallel;
  return nullptr;
}

struct attune_device {
  attune::vulkan::Device *vulkan = nullptr; // null: the CPU
  std::string description;
};

struct attune_model {
  void *library = nullptr;
  std::string path;
  std::vector<Entry> entries;
  // From the OpenMP runtime the model links; null if it links none.
  void (*setNumThreads)(int) = nullptr;
  int (*inParallel)() = nullptr;
  int numThreads = 0; // 0: OpenMP's default
  // Whether the CPU code allocates through attune_cpu_malloc (its results
  // are then bufferAlloc blocks) or, compiled before that routing, malloc.
  bool routedAllocation = false;
  // --weights-external models.
  std::string weightsFile = "-";
  std::vector<ExternalWeight> weights;
  bool weightsLoaded = false;
  // Targets in the artifact, and the Vulkan program when opened on Vulkan.
  bool hasCpu = false, hasVulkan = false;
  std::string vulkanProfile;
  std::vector<attune::vulkan::KernelSpec> kernels;
  std::vector<attune::vulkan::GlobalSpec> globals;
  attune::vulkan::Program *program = nullptr;
  std::string deviceName = "cpu";
  bool profiling = false;
  std::string report;
};

static attune_status *parseMetadata(attune_model &model, const char *text) {
  std::istringstream in(text);
  std::string word;
  int version = 0;
  if (!(in >> word >> version) || word != "attune-model" || version != 1)
    return error("%s: unsupported model metadata (expected 'attune-model 1')",
                 model.path.c_str());
  model.hasCpu = true; // unless a `targets` line says otherwise
  while (in >> word) {
    if (word == "end")
      return nullptr;
    if (word == "entry") {
      Entry e;
      size_t numIn, numOut;
      if (!(in >> e.name >> numIn >> numOut))
        break;
      for (size_t i = 0; i < numIn + numOut; ++i) {
        std::string kind, dtype;
        size_t rank;
        TensorSpec t;
        if (!(in >> kind >> t.name >> dtype >> rank) ||
            kind != (i < numIn ? "input" : "output") ||
            !parseDtype(dtype, t.dtype) || rank > 64)
          return error("%s: corrupt metadata for entry '%s'",
                       model.path.c_str(), e.name.c_str());
        t.shape.resize(rank);
        for (int64_t &d : t.shape)
          if (!(in >> d))
            return error("%s: corrupt metadata for entry '%s'",
                         model.path.c_str(), e.name.c_str());
        (i < numIn ? e.inputs : e.outputs).push_back(std::move(t));
      }
      for (bool vk : {false, true}) {
        if (!(vk ? model.hasVulkan : model.hasCpu))
          continue;
        std::string symbol = (vk ? "attune_vk_invoke_" : "attune_invoke_") + e.name;
        auto fn = reinterpret_cast<void (*)(void **)>(
            dlsym(model.library, symbol.c_str()));
        if (!fn)
          return error("%s: entry '%s' has no symbol %s", model.path.c_str(),
                       e.name.c_str(), symbol.c_str());
        (vk ? e.vkInvoke : e.invoke) = fn;
      }
      model.entries.push_back(std::move(e));
      continue;
    }
    if (word == "targets") {
      std::string line;
      std::getline(in, line);
      std::istringstream targets(line);
      model.hasCpu = false;
      while (targets >> word) {
        if (word == "cpu")
          model.hasCpu = true;
        else if (word == "vulkan")
          model.hasVulkan = true;
        else
          return error("%s: the model is for target '%s', which this runtime "
                       "does not know",
                       model.path.c_str(), word.c_str());
      }
      continue;
    }
    if (word == "vulkan-profile") {
      if (!(in >> model.vulkanProfile))
        break;
      continue;
    }
    if (word == "kernel") {
      attune::vulkan::KernelSpec k;
      if (!(in >> k.entry >> k.symbol >> k.bytes >> k.buffers >>
            k.pushConstants >> k.workgroup[0] >> k.workgroup[1] >>
            k.workgroup[2] >> k.where))
        break;
      model.kernels.push_back(std::move(k));
      continue;
    }
    if (word == "kernel-subgroup") {
      if (model.kernels.empty() || !(in >> model.kernels.back().subgroup))
        break;
      continue;
    }
    if (word == "vk-global") {
      attune::vulkan::GlobalSpec g;
      if (!(in >> g.symbol >> g.bytes))
        break;
      model.globals.push_back(std::move(g));
      continue;
    }
    if (word == "weights-file") {
      if (!(in >> model.weightsFile))
        break;
      continue;
    }
    if (word == "weight") {
      ExternalWeight w;
      std::string dtype;
      size_t rank;
      if (!(in >> w.symbol >> w.name >> dtype >> rank) ||
          !parseDtype(dtype, w.dtype) || rank > 64)
        break;
      w.shape.resize(rank);
      for (int64_t &d : w.shape)
        if (!(in >> d))
          return error("%s: corrupt metadata for weight '%s'",
                       model.path.c_str(), w.name.c_str());
      model.weights.push_back(std::move(w));
      continue;
    }
    break;
  }
  return error("%s: corrupt model metadata near '%s'", model.path.c_str(),
               word.c_str());
}

static attune_tensor_info infoOf(const TensorSpec &t) {
  return attune_tensor_info{t.name.c_str(), t.dtype, t.shape.size(),
                            t.shape.data()};
}

extern "C" {

attune_status *attune_model_open(const char *path, attune_model **out) {
  return attune_model_open_with_weights(path, nullptr, out);
}

attune_status *attune_model_open_with_weights(const char *path,
                                              const char *weights,
                                              attune_model **out) {
  return attune_model_open_on(path, weights, nullptr, out);
}

attune_status *attune_model_open_on(const char *path, const char *weights,
                                    attune_device *device,
                                    attune_model **out) {
  if (!path || !out)
    return error("attune_model_open: NULL argument");
  // dlopen searches the library path for names without a slash.
  std::string resolved = std::strchr(path, '/') ? path : std::string("./") + path;
  void *library = dlopen(resolved.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!library)
    return error("%s: cannot load the model: %s", path, dlerror());
  auto *model = new attune_model;
  model->library = library;
  model->path = path;
  const char *metadata =
      static_cast<const char *>(dlsym(library, "attune_model_metadata"));
  attune_status *status =
      metadata ? parseMetadata(*model, metadata)
               : error("%s: not an Attune model (no attune_model_metadata "
                       "symbol)",
                       path);
  if (status) {
    attune_model_close(model);
    return status;
  }
  model->setNumThreads = reinterpret_cast<void (*)(int)>(
      dlsym(library, "omp_set_num_threads"));
  model->inParallel =
      reinterpret_cast<int (*)()>(dlsym(library, "omp_in_parallel"));
  // The model's allocation hooks (attune-runtime-allocator): ours from now on.
  if (void *slot = dlsym(library, "attune_cpu_malloc_hook")) {
    void *(*alloc)(size_t) = modelAlloc;
    std::memcpy(slot, &alloc, sizeof(alloc));
    if (void *freeSlot = dlsym(library, "attune_cpu_free_hook")) {
      void (*release)(void *) = bufferFree;
      std::memcpy(freeSlot, &release, sizeof(release));
    }
    model->routedAllocation = true;
  }
  // Models without any check have no handler slot.
  if (void *slot = dlsym(library, "attune_check_handler")) {
    void (*handler)(const char *) = checkFailed;
    std::memcpy(slot, &handler, sizeof(handler));
  }
  if (!model->weights.empty()) {
    std::string file = weights ? weights : model->weightsFile;
    if (file == "-") {
      attune_model_close(model);
      return error("%s: the model keeps its %zu weights outside; give the "
                   "safetensors file (attune_model_open_with_weights, "
                   "attune-run --weights)",
                   path, model->weights.size());
    }
    if (attune_status *s = loadExternalWeights(library, path, model->weights,
                                               file)) {
      attune_model_close(model);
      return s;
    }
    model->weightsLoaded = true;
  } else if (weights) {
    attune_model_close(model);
    return error("%s: the model's weights are compiled in; it takes no "
                 "weights file",
                 path);
  }
  bool onVulkan = device && device->vulkan;
  if (onVulkan && !model->hasVulkan) {
    attune_model_close(model);
    return error("%s: the model has no SPIR-V kernels; compile it with "
                 "attune-compile --target=vulkan (or cpu,vulkan) to run it on "
                 "%s",
                 path, device->description.c_str());
  }
  if (!onVulkan && !model->hasCpu) {
    attune_model_close(model);
    return error("%s: the model was compiled for Vulkan only; open it on a "
                 "Vulkan device (attune-run --device=vulkan) or compile it "
                 "with --target=cpu",
                 path);
  }
  if (onVulkan) {
    if (attune_status *s = attune::vulkan::createProgram(
            device->vulkan, library, path, model->kernels, model->globals,
            &model->program)) {
      attune_model_close(model);
      return s;
    }
    model->deviceName = device->description;
  }
  *out = model;
  return nullptr;
}

void attune_model_close(attune_model *model) {
  if (!model)
    return;
  if (model->program)
    attune::vulkan::destroyProgram(model->program);
  if (model->weightsLoaded)
    releaseExternalWeights(model->library);
  if (model->library)
    dlclose(model->library);
  delete model;
  releaseBuffers();
}

attune_status *attune_model_set_num_threads(attune_model *m, int n) {
  if (n < 0)
    return error("attune_model_set_num_threads: %d is not a thread count", n);
  if (n > 1 && !m->setNumThreads)
    return error("%s: the model has no parallel runtime; it runs on one thread",
                 m->path.c_str());
  m->numThreads = n;
  return nullptr;
}

size_t attune_model_num_entries(const attune_model *m) {
  return m->entries.size();
}

const char *attune_model_entry_name(const attune_model *m, size_t entry) {
  return entry < m->entries.size() ? m->entries[entry].name.c_str() : nullptr;
}

attune_status *attune_model_find_entry(const attune_model *m, const char *name,
                                       size_t *entry) {
  std::string known;
  for (size_t i = 0; i < m->entries.size(); ++i) {
    if (m->entries[i].name == name) {
      *entry = i;
      return nullptr;
    }
    known += (i ? ", " : "") + m->entries[i].name;
  }
  return error("%s: no entry point '%s' (entries: %s)", m->path.c_str(), name,
               known.c_str());
}

size_t attune_model_num_inputs(const attune_model *m, size_t entry) {
  return entry < m->entries.size() ? m->entries[entry].inputs.size() : 0;
}

size_t attune_model_num_outputs(const attune_model *m, size_t entry) {
  return entry < m->entries.size() ? m->entries[entry].outputs.size() : 0;
}

attune_tensor_info attune_model_input(const attune_model *m, size_t entry,
                                      size_t index) {
  if (entry >= m->entries.size() || index >= m->entries[entry].inputs.size())
    return attune_tensor_info{nullptr, ATTUNE_F32, 0, nullptr};
  return infoOf(m->entries[entry].inputs[index]);
}

attune_tensor_info attune_model_output(const attune_model *m, size_t entry,
                                       size_t index) {
  if (entry >= m->entries.size() || index >= m->entries[entry].outputs.size())
    return attune_tensor_info{nullptr, ATTUNE_F32, 0, nullptr};
  return infoOf(m->entries[entry].outputs[index]);
}

attune_status *attune_model_run(const attune_model *m, size_t entryIndex,
                                const attune_tensor *const *inputs,
                                size_t numInputs, attune_tensor **outputs,
                                size_t numOutputs) {
  if (!m || entryIndex >= m->entries.size())
    return error("attune_model_run: no entry point #%zu", entryIndex);
  const Entry &entry = m->entries[entryIndex];
  const char *where = entry.name.c_str();
  if (numInputs != entry.inputs.size())
    return error("%s: expected %zu input(s), got %zu", where,
                 entry.inputs.size(), numInputs);
  if (numOutputs != entry.outputs.size())
    return error("%s: expected room for %zu output(s), got %zu", where,
                 entry.outputs.size(), numOutputs);

  // Inputs against the metadata.
  for (size_t i = 0; i < numInputs; ++i) {
    const TensorSpec &spec = entry.inputs[i];
    const attune_tensor *t = inputs[i];
    if (!t)
      return error("%s: input '%s' is NULL", where, spec.name.c_str());
    if (t->dtype != spec.dtype)
      return error("%s: input '%s' has dtype %s, expected %s", where,
                   spec.name.c_str(), attune_dtype_name(t->dtype),
                   attune_dtype_name(spec.dtype));
    bool shapeOk = t->shape.size() == spec.shape.size();
    for (size_t d = 0; shapeOk && d < spec.shape.size(); ++d)
      shapeOk = spec.shape[d] < 0 || spec.shape[d] == t->shape[d];
    if (!shapeOk)
      return error("%s: input '%s' has shape %s, expected %s", where,
                   spec.name.c_str(),
                   shapeString(t->shape.data(), t->shape.size()).c_str(),
                   shapeString(spec.shape.data(), spec.shape.size()).c_str());
  }

  if (m->program) {
    std::vector<std::pair<attune_dtype, size_t>> outs;
    for (const TensorSpec &o : entry.outputs)
      outs.push_back({o.dtype, o.shape.size()});
    attune::vulkan::RunIO io{inputs, numInputs, &outs, outputs};
    struct Call {
      void (*fn)(void **);
      const char *where;
    } call{entry.vkInvoke, where};
    auto invoke = [](void *context, void **args) -> attune_status * {
      auto *c = static_cast<Call *>(context);
      return invokeGuarded(c->fn, args, c->where);
    };
    attune_status *s = attune::vulkan::run(m->program, where, io, invoke,
                                           &call, m->profiling);
    if (m->profiling)
      const_cast<attune_model *>(m)->report =
          attune::vulkan::profileReport(m->program);
    return s;
  }

  std::vector<std::vector<int64_t>> descriptors;
  for (size_t i = 0; i < numInputs; ++i)
    descriptors.push_back(rowMajorDescriptor(
        reinterpret_cast<uint64_t>(inputs[i]->data), inputs[i]->shape));
  size_t resultWords = 0;
  for (const TensorSpec &o : entry.outputs)
    resultWords += descriptorWords(o.shape.size());
  std::vector<int64_t> results(resultWords, 0);
  std::vector<void *> args;
  args.push_back(results.data());
  for (auto &d : descriptors)
    args.push_back(d.data());

  // OpenMP's thread count is per calling thread: set it for this one.
  if (m->numThreads > 0 && m->setNumThreads)
    m->setNumThreads(m->numThreads);
  if (attune_status *s =
          invokeGuarded(entry.invoke, args.data(), where, m->inParallel)) {
    for (size_t o = 0; o < numOutputs; ++o)
      outputs[o] = nullptr;
    return s;
  }

  // Each result becomes a tensor the caller owns. A row-major, 64-byte
  // aligned result in a buffer of the runtime's allocator is handed over as
  // it is (no copy: 25 MB for a 2048 x 3072 linear layer); any other is
  // copied and its buffer freed. A buffer is handed over (or freed) once,
  // should two results share it. Every output is read (and freed) even if an
  // earlier copy fails.
  attune_status *status = nullptr;
  size_t at = 0;
  std::vector<void *> released;
  for (size_t o = 0; o < numOutputs; ++o) {
    const TensorSpec &spec = entry.outputs[o];
    size_t rank = spec.shape.size();
    const int64_t *desc = &results[at];
    at += descriptorWords(rank);
    void *allocated, *aligned;
    std::memcpy(&allocated, &desc[0], sizeof(void *));
    std::memcpy(&aligned, &desc[1], sizeof(void *));
    outputs[o] = nullptr;
    bool fresh = std::find(released.begin(), released.end(), allocated) ==
                 released.end();
    if (!status && fresh && m->routedAllocation &&
        adoptResult(spec.dtype, rank, desc, allocated,
                    static_cast<char *>(aligned), &outputs[o])) {
      released.push_back(allocated);
      continue;
    }
    if (!status)
      status = copyResult(spec.dtype, rank, desc,
                          static_cast<const char *>(aligned), &outputs[o]);
    if (!fresh)
      continue;
    released.push_back(allocated);
    if (m->routedAllocation)
      bufferFree(allocated);
    else
      std::free(allocated);
  }
  if (status)
    for (size_t o = 0; o < numOutputs; ++o) {
      attune_tensor_free(outputs[o]);
      outputs[o] = nullptr;
    }
  return status;
}

attune_status *attune_model_set_profiling(attune_model *m, int enable) {
  if (enable && !m->program)
    return error("%s: profiling times Vulkan kernels; the model runs on the "
                 "CPU",
                 m->path.c_str());
  m->profiling = enable != 0;
  return nullptr;
}

const char *attune_model_profile(const attune_model *m) {
  return m->report.c_str();
}

const char *attune_model_device(const attune_model *m) {
  return m->deviceName.c_str();
}

attune_status *attune_device_open(const char *spec, attune_device **out) {
  if (!spec || !out)
    return error("attune_device_open: NULL argument");
  std::string s = spec;
  auto *device = new attune_device;
  if (s == "cpu") {
    device->description = "cpu";
    *out = device;
    return nullptr;
  }
  bool fallback = s == "auto";
  std::string selector;
  if (s == "vulkan" || fallback) {
    selector = "";
  } else if (s.rfind("vulkan:", 0) == 0) {
    selector = s.substr(7);
  } else {
    delete device;
    return error("unknown device '%s' (devices: cpu, vulkan, vulkan:N, "
                 "vulkan:NAME, auto)",
                 spec);
  }
  attune_status *status = attune::vulkan::openDevice(selector, &device->vulkan);
  if (status && fallback) {
    std::fprintf(stderr, "attune: no usable Vulkan device (%s); running on the "
                 "CPU\n",
                 attune_status_message(status));
    attune_status_free(status);
    device->description = "cpu";
    *out = device;
    return nullptr;
  }
  if (status) {
    delete device;
    return status;
  }
  device->description = attune::vulkan::describe(device->vulkan);
  *out = device;
  return nullptr;
}

void attune_device_close(attune_device *device) {
  if (!device)
    return;
  attune::vulkan::closeDevice(device->vulkan);
  delete device;
}

const char *attune_device_description(const attune_device *device) {
  return device->description.c_str();
}

int attune_device_is_vulkan(const attune_device *device) {
  return device->vulkan != nullptr;
}

attune_status *attune_vulkan_devices(char **text) {
  std::string list;
  if (attune_status *s = attune::vulkan::listDevices(list))
    return s;
  *text = strdup(list.c_str());
  return nullptr;
}

} // extern "C"
