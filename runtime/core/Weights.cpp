//===- Weights.cpp - loading external weights from safetensors ------------===//
//
// A model compiled with --weights-external has one exported global per
// weight (artifact::WeightSpec). Opening it checks each weight's dtype and
// shape against the safetensors file and copies the data into the global,
// group by group for the weights the library prepares (packs into panels)
// at load: each group's preparation runs right after its weights are read,
// and the raw copies only preparations read are released before the next.
//
//===----------------------------------------------------------------------===//

#include "Weights.h"
#include "attune/safetensors.h"

#include <dlfcn.h>
#include <sys/mman.h>

#include <cstring>
#include <map>
#include <mutex>
#include <optional>

using namespace attune;
using namespace attune::runtime;

namespace {
/// Libraries whose weight globals are filled, and from which file: a model
/// opened twice shares its globals, so a second, different file is refused.
std::mutex registryMutex;
std::map<void *, std::pair<std::string, int>> registry;
/// The first finite value of `t` (f32 or bf16) that rounds to an f16
/// infinity, if any. The data may be only 2-byte aligned.
std::optional<float> beyondF16(const SafetensorsTensor &t) {
  const char *data = static_cast<const char *>(t.data);
  bool bf16 = t.dtype == "BF16";
  if (!bf16 && t.dtype != "F32")
    return std::nullopt;
  size_t width = bf16 ? 2 : 4;
  for (size_t i = 0; i < t.bytes / width; ++i) {
    float v;
    if (bf16) {
      uint16_t h;
      std::memcpy(&h, data + i * 2, 2);
      v = artifact::bf16ToFloat(h);
    } else {
      std::memcpy(&v, data + i * 4, 4);
    }
    if (artifact::roundsToF16Infinity(v))
      return v;
  }
  return std::nullopt;
}
/// Gives the pages wholly inside [data, data + bytes) back to the system:
/// a raw weight in `.bss` (it reads as zeros if touched again; the next
/// load writes it anew), or a read-only mapping of the weights file (read
/// again from the file if touched).
void releasePages(const void *data, size_t bytes) {
  char *begin, *end;
  if (wholePages(data, bytes, &begin, &end))
    madvise(begin, end - begin, MADV_DONTNEED);
}

/// The weight preparation being called (under registryMutex), and the
/// wrapper invokeGuarded calls for it.
void (*preparing)() = nullptr;
void callPreparation(void **) { preparing(); }
} // namespace

attune_status *attune::runtime::loadExternalWeights(
    void *library, const std::string &modelPath, const artifact::Metadata &meta,
    const std::string &file) {
  const std::vector<artifact::WeightSpec> &weights = meta.weights;
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

  std::string problem;
  std::unique_ptr<SafetensorsFile> st = SafetensorsFile::open(file, problem);
  if (!st)
    return error("%s: cannot open the weights file %s", modelPath.c_str(),
                 problem.c_str());
  // Every weight checked before any is read.
  struct Found {
    const artifact::WeightSpec *spec;
    const SafetensorsTensor *tensor;
    void *global;
    bool read = false;
  };
  std::map<std::string, Found> found;
  for (const artifact::WeightSpec &w : weights) {
    const artifact::TensorSpec &want = w.tensor;
    const SafetensorsTensor *t = st->find(want.name);
    if (!t)
      return error("%s: weight '%s' is not in %s", modelPath.c_str(),
                   want.name.c_str(), file.c_str());
    const artifact::DtypeInfo *dtype = artifact::dtypeInfo(want.dtype);
    if (!dtype || t->dtype != dtype->safetensors)
      return error("%s: weight '%s' has dtype %s in %s, expected %s",
                   modelPath.c_str(), want.name.c_str(), t->dtype.c_str(),
                   file.c_str(), dtype ? dtype->safetensors : "?");
    if (t->shape != want.shape)
      return error("%s: weight '%s' has shape %s in %s, expected %s",
                   modelPath.c_str(), want.name.c_str(),
                   shapeString(t->shape.data(), t->shape.size()).c_str(),
                   file.c_str(),
                   shapeString(want.shape.data(), want.shape.size()).c_str());
    if (w.f16)
      if (std::optional<float> v = beyondF16(*t))
        return error("%s: weight '%s' holds %.9g in %s, beyond f16's range "
                     "(largest finite value 65504): the model stores it as "
                     "f16 (compiled with --gemm-weights=f16; bf16 keeps "
                     "f32's range)",
                     modelPath.c_str(), want.name.c_str(), *v, file.c_str());
    void *global = dlsym(library, w.symbol.c_str());
    if (!global)
      return error("%s: no symbol %s for weight '%s'", modelPath.c_str(),
                   w.symbol.c_str(), want.name.c_str());
    found[w.symbol] = {&w, t, global};
  }
  std::vector<void (*)()> preparations;
  for (size_t i = 0; i < meta.preparations.size(); ++i) {
    std::string symbol = artifact::kPrepareWeightsPrefix + std::to_string(i);
    void *fn = dlsym(library, symbol.c_str());
    if (!fn)
      return error("%s: no symbol %s, which its metadata promises",
                   modelPath.c_str(), symbol.c_str());
    preparations.emplace_back();
    std::memcpy(&preparations.back(), &fn, sizeof(fn));
  }
  // Reads a weight into its global; the file's pages it came from leave
  // this process's memory.
  auto readWeight = [&](Found &f) {
    if (f.read)
      return;
    f.read = true;
    std::memcpy(f.global, f.tensor->data, f.tensor->bytes);
    releasePages(f.tensor->data, f.tensor->bytes);
  };
  // Preparation by preparation: its weights read, prepared, and those only
  // it reads released, so that the raw and the prepared copies of all
  // weights are never in memory together.
  std::string where = modelPath + ": preparing the weights of " + file;
  for (size_t i = 0; i < preparations.size(); ++i) {
    for (const std::string &symbol : meta.preparations[i])
      readWeight(found.at(symbol));
    preparing = preparations[i];
    attune_status *failed =
        invokeGuarded(callPreparation, nullptr, where.c_str());
    // Its temporaries are not kept for reuse (the buffer cache).
    releaseBuffers();
    if (failed)
      return failed;
    for (const std::string &symbol : meta.preparations[i]) {
      const Found &f = found.at(symbol);
      if (f.spec->preparedOnly)
        releasePages(f.global, f.tensor->bytes);
    }
  }
  for (auto &[symbol, f] : found)
    readWeight(f);
  registry[library] = {file, 1};
  return nullptr;
}

void attune::runtime::releaseExternalWeights(void *library) {
  std::lock_guard<std::mutex> lock(registryMutex);
  auto it = registry.find(library);
  if (it != registry.end() && --it->second.second == 0)
    registry.erase(it);
}
