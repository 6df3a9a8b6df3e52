//===- Weights.cpp - loading external weights from safetensors ------------===//
//
// A model compiled with --weights-external has one exported global per
// weight (artifact::WeightSpec). Opening it checks each weight's dtype and
// shape against the safetensors file and copies the data into the global.
//
//===----------------------------------------------------------------------===//

#include "Weights.h"
#include "attune/safetensors.h"

#include <dlfcn.h>

#include <cstring>
#include <map>
#include <mutex>

using namespace attune;
using namespace attune::runtime;

namespace {
/// Libraries whose weight globals are filled, and from which file: a model
/// opened twice shares its globals, so a second, different file is refused.
std::mutex registryMutex;
std::map<void *, std::pair<std::string, int>> registry;
} // namespace

attune_status *attune::runtime::loadExternalWeights(
    void *library, const std::string &modelPath,
    const std::vector<artifact::WeightSpec> &weights, const std::string &file) {
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
    void *global = dlsym(library, w.symbol.c_str());
    if (!global)
      return error("%s: no symbol %s for weight '%s'", modelPath.c_str(),
                   w.symbol.c_str(), want.name.c_str());
    std::memcpy(global, t->data, t->bytes);
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
