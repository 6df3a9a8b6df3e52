//===- Model.cpp - opening compiled models and running their entries ----===//
//
// A model is a shared library from attune-compile; attune/artifact.h defines
// what it exports. Opening one reads and checks its metadata, points its
// hooks at the runtime, loads external weights and, on a Vulkan device,
// creates its pipelines. A run checks its inputs against the metadata and
// hands it to the device the model was opened on (cpu/ or vulkan/).
//
//===----------------------------------------------------------------------===//

#include "CpuFeatures.h"
#include "Internal.h"
#include "Weights.h"
#include "../cpu/Cpu.h"
#include "../vulkan/Vulkan.h"
#include "attune/artifact.h"

#include <dlfcn.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>

using namespace attune;
using namespace attune::runtime;

namespace {
/// An entry point with its code.
struct Entry {
  artifact::EntrySpec spec;
  void (*invoke)(void **) = nullptr;   // CPU code
  void (*vkInvoke)(void **) = nullptr; // Vulkan host code
};
} // namespace

struct attune_device {
  attune::vulkan::Device *vulkan = nullptr; // null: the CPU
  std::string description;
};

struct attune_model {
  void *library = nullptr;
  std::string path;
  artifact::Metadata metadata;
  std::vector<Entry> entries;
  cpu::Program cpu;
  int numThreads = 0; // 0: OpenMP's default
  bool weightsLoaded = false;
  // The Vulkan program when opened on Vulkan.
  attune::vulkan::Program *program = nullptr;
  std::string deviceName = "cpu";
  bool profiling = false;
  std::string report;
  // attune_model_inspect: metadata only, nothing bound, nothing runs.
  bool inspectOnly = false;
  std::string targetInfo;
};

const artifact::EntrySpec *attune::runtime::entrySpec(const attune_model *m,
                                                     size_t entry) {
  return m && entry < m->entries.size() ? &m->entries[entry].spec : nullptr;
}

/// Reads the metadata of `model.library` and finds each entry's code.
static attune_status *readMetadata(attune_model &model) {
  const char *text = static_cast<const char *>(
      dlsym(model.library, artifact::kMetadataSymbol));
  if (!text)
    return error("%s: not an Attune model (no %s symbol)", model.path.c_str(),
                 artifact::kMetadataSymbol);
  std::string problem = artifact::parse(text, model.metadata);
  if (!problem.empty())
    return error("%s: %s", model.path.c_str(), problem.c_str());
  for (const artifact::EntrySpec &spec : model.metadata.entries) {
    Entry e{spec};
    for (bool vk : {false, true}) {
      if (!(vk ? model.metadata.hasVulkan : model.metadata.hasCpu))
        continue;
      std::string symbol =
          (vk ? artifact::kVulkanInvokePrefix : artifact::kInvokePrefix) +
          spec.name;
      auto fn = reinterpret_cast<void (*)(void **)>(
          dlsym(model.library, symbol.c_str()));
      if (!fn)
        return error("%s: entry '%s' has no symbol %s", model.path.c_str(),
                     spec.name.c_str(), symbol.c_str());
      (vk ? e.vkInvoke : e.invoke) = fn;
    }
    model.entries.push_back(std::move(e));
  }
  return nullptr;
}

static attune_tensor_info infoOf(const artifact::TensorSpec &t) {
  return attune_tensor_info{t.name.c_str(), t.dtype, t.shape.size(),
                            t.shape.data()};
}

extern "C" {

int attune_runtime_api_version(void) { return ATTUNE_RUNTIME_API_VERSION; }

void attune_runtime_transfer_stats(uint64_t *uploaded, uint64_t *downloaded,
                                   uint64_t *deviceBytes) {
  attune::vulkan::transferStats(uploaded, downloaded, deviceBytes);
}

int attune_artifact_format_version(void) { return artifact::kFormatVersion; }

attune_status *attune_model_open(const char *path, attune_model **out) {
  return attune_model_open_with_weights(path, nullptr, out);
}

attune_status *attune_model_open_with_weights(const char *path,
                                              const char *weights,
                                              attune_model **out) {
  return attune_model_open_on(path, weights, nullptr, out);
}

/// dlopens `path` and reads its metadata: no code of the model runs.
static attune_status *openLibrary(const char *path, attune_model **out) {
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
  if (attune_status *status = readMetadata(*model)) {
    attune_model_close(model);
    return status;
  }
  *out = model;
  return nullptr;
}

attune_status *attune_model_inspect(const char *path, attune_model **out) {
  attune_model *model = nullptr;
  if (attune_status *s = openLibrary(path, &model))
    return s;
  model->inspectOnly = true;
  model->deviceName = "none (inspected)";
  *out = model;
  return nullptr;
}

attune_status *attune_model_open_on(const char *path, const char *weights,
                                    attune_device *device,
                                    attune_model **out) {
  attune_model *model = nullptr;
  if (attune_status *s = openLibrary(path, &model))
    return s;
  void *library = model->library;
  const artifact::Metadata &meta = model->metadata;
  // The code (the CPU kernels, or the Vulkan host code) runs on this CPU:
  // refuse before any of it runs if it uses an extension this CPU lacks.
  std::string missing = missingCpuFeatures(meta.cpuFeatures);
  if (!missing.empty()) {
    attune_status *s = error(
        "%s: the model was compiled for CPU '%s' and uses ISA extensions this "
        "CPU lacks: %s. Recompile it here (attune-compile --cpu=native) or for "
        "an x86-64 level every machine it must run on has (--cpu=x86-64-v2, "
        "x86-64-v3 or x86-64-v4)",
        path, meta.cpuName.c_str(), missing.c_str());
    attune_model_close(model);
    return s;
  }
  model->cpu = cpu::bind(library);
  // Models without any check have no handler slot.
  if (void *slot = dlsym(library, artifact::kCheckHandler)) {
    void (*handler)(const char *) = checkFailed;
    std::memcpy(slot, &handler, sizeof(handler));
  }
  if (!meta.weights.empty()) {
    std::string file = weights ? weights : meta.weightsFile;
    if (file == "-") {
      // The message reads the metadata, which closing the model frees.
      attune_status *s =
          error("%s: the model keeps its %zu weights outside; give the "
                "safetensors file (attune_model_open_with_weights, "
                "attune-run --weights)",
                path, meta.weights.size());
      attune_model_close(model);
      return s;
    }
    cpu::adviseHugePages(library);
    if (attune_status *s = loadExternalWeights(library, path, meta, file)) {
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
  if (onVulkan && !meta.hasVulkan) {
    attune_model_close(model);
    return error("%s: the model has no SPIR-V kernels; compile it with "
                 "attune-compile --target=vulkan (or cpu,vulkan) to run it on "
                 "%s",
                 path, device->description.c_str());
  }
  if (!onVulkan && !meta.hasCpu) {
    attune_model_close(model);
    return error("%s: the model was compiled for Vulkan only; open it on a "
                 "Vulkan device (attune-run --device=vulkan) or compile it "
                 "with --target=cpu",
                 path);
  }
  // The CPU kernels read the compiled-in weights in place: their pages are
  // mapped now, at open, as a framework reads its weights when it loads a
  // model, not faulted in one at a time inside the first run.
  if (!onVulkan) {
    cpu::moveReadOnlyDataToHugePages(library);
    cpu::populateReadOnlyData(library);
  }
  if (onVulkan) {
    if (attune_status *s = attune::vulkan::createProgram(
            device->vulkan, library, path, meta.kernels, meta.globals,
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
  if (n > 1 && !m->cpu.setNumThreads)
    return error("%s: the model has no parallel runtime; it runs on one thread",
                 m->path.c_str());
  m->numThreads = n;
  return nullptr;
}

size_t attune_model_num_entries(const attune_model *m) {
  return m->entries.size();
}

const char *attune_model_entry_name(const attune_model *m, size_t entry) {
  return entry < m->entries.size() ? m->entries[entry].spec.name.c_str()
                                   : nullptr;
}

attune_status *attune_model_find_entry(const attune_model *m, const char *name,
                                       size_t *entry) {
  std::string known;
  for (size_t i = 0; i < m->entries.size(); ++i) {
    if (m->entries[i].spec.name == name) {
      *entry = i;
      return nullptr;
    }
    known += (i ? ", " : "") + m->entries[i].spec.name;
  }
  return error("%s: no entry point '%s' (entries: %s)", m->path.c_str(), name,
               known.c_str());
}

size_t attune_model_num_inputs(const attune_model *m, size_t entry) {
  return entry < m->entries.size() ? m->entries[entry].spec.inputs.size() : 0;
}

int attune_model_input_is_state(const attune_model *m, size_t entry,
                                size_t index) {
  return entry < m->entries.size() &&
         index < m->entries[entry].spec.inputs.size() &&
         m->entries[entry].spec.inputs[index].state;
}

int attune_model_input_is_context(const attune_model *m, size_t entry,
                                  size_t index) {
  return entry < m->entries.size() &&
         index < m->entries[entry].spec.inputs.size() &&
         m->entries[entry].spec.inputs[index].context;
}

int attune_model_entry_is_generation_step(const attune_model *m,
                                          size_t entry) {
  return entry < m->entries.size() && m->entries[entry].spec.generationStep;
}

int attune_model_entry_is_generation_encoder(const attune_model *m,
                                             size_t entry) {
  return entry < m->entries.size() && m->entries[entry].spec.generationEncoder;
}

size_t attune_model_num_outputs(const attune_model *m, size_t entry) {
  return entry < m->entries.size() ? m->entries[entry].spec.outputs.size() : 0;
}

attune_tensor_info attune_model_input(const attune_model *m, size_t entry,
                                      size_t index) {
  if (entry >= m->entries.size() || index >= m->entries[entry].spec.inputs.size())
    return attune_tensor_info{nullptr, ATTUNE_F32, 0, nullptr};
  return infoOf(m->entries[entry].spec.inputs[index]);
}

attune_tensor_info attune_model_output(const attune_model *m, size_t entry,
                                       size_t index) {
  if (entry >= m->entries.size() || index >= m->entries[entry].spec.outputs.size())
    return attune_tensor_info{nullptr, ATTUNE_F32, 0, nullptr};
  return infoOf(m->entries[entry].spec.outputs[index]);
}

attune_status *attune_model_run(const attune_model *m, size_t entryIndex,
                                const attune_tensor *const *inputs,
                                size_t numInputs, attune_tensor **outputs,
                                size_t numOutputs) {
  return runEntry(m, entryIndex, inputs, numInputs, nullptr, outputs,
                  numOutputs);
}

} // extern "C"

attune::vulkan::Program *attune::runtime::vulkanProgram(const attune_model *m) {
  return m ? m->program : nullptr;
}

attune_status *attune::runtime::runEntry(
    const attune_model *m, size_t entryIndex,
    const attune_tensor *const *inputs, size_t numInputs,
    const attune::vulkan::Resident *const *resident, attune_tensor **outputs,
    size_t numOutputs) {
  if (!m || entryIndex >= m->entries.size())
    return error("attune_model_run: no entry point #%zu", entryIndex);
  if (m->inspectOnly)
    return error("%s: opened with attune_model_inspect, which runs nothing; "
                 "open it with attune_model_open to run it",
                 m->path.c_str());
  const Entry &code = m->entries[entryIndex];
  const artifact::EntrySpec &entry = code.spec;
  const char *where = entry.name.c_str();
  if (numInputs != entry.inputs.size())
    return error("%s: expected %zu input(s), got %zu", where,
                 entry.inputs.size(), numInputs);
  if (numOutputs != entry.outputs.size())
    return error("%s: expected room for %zu output(s), got %zu", where,
                 entry.outputs.size(), numOutputs);

  // Inputs against the metadata.
  for (size_t i = 0; i < numInputs; ++i) {
    const artifact::TensorSpec &spec = entry.inputs[i];
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
    for (const artifact::TensorSpec &o : entry.outputs)
      outs.push_back({o.dtype, o.shape.size()});
    // A state is updated in place: copied back unless it stays resident.
    std::unique_ptr<bool[]> writeBack(new bool[numInputs]);
    for (size_t i = 0; i < numInputs; ++i)
      writeBack[i] = entry.inputs[i].state;
    attune::vulkan::RunIO io{inputs,   numInputs,      &outs,
                             outputs,  resident,       writeBack.get()};
    struct Call {
      void (*fn)(void **);
      const char *where;
    } call{code.vkInvoke, where};
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

  if (resident)
    for (size_t i = 0; i < numInputs; ++i)
      if (resident[i])
        return error("%s: a resident device buffer given to a model that runs "
                     "on the CPU",
                     where);
  return cpu::run(m->cpu, code.invoke, where, m->numThreads, entry.outputs,
                  inputs, numInputs, outputs);
}

extern "C" {

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

const char *attune_model_target_info(const attune_model *m) {
  if (!m->targetInfo.empty())
    return m->targetInfo.c_str();
  const artifact::Metadata &meta = m->metadata;
  std::string &text = const_cast<attune_model *>(m)->targetInfo;
  text = "targets:";
  if (meta.hasCpu)
    text += " cpu";
  if (meta.hasVulkan)
    text += " vulkan";
  text += "\ncpu: " + (meta.cpuName.empty() ? "unknown" : meta.cpuName) +
          "\ncpu-features:";
  for (size_t i = 0; i < meta.cpuFeatures.size(); ++i)
    text += (i ? ", " : " ") + meta.cpuFeatures[i];
  std::string missing = missingCpuFeatures(meta.cpuFeatures);
  text += "\nruns on this cpu: " +
          (missing.empty() ? std::string("yes") : "no, it lacks " + missing);
  if (meta.hasVulkan)
    text += "\nvulkan-profile: " + meta.vulkanProfile + " (" +
            std::to_string(meta.kernels.size()) + " kernels)";
  if (!meta.weights.empty())
    text += "\nweights: " + std::to_string(meta.weights.size()) +
            " external, from " + meta.weightsFile;
  text += "\n";
  return text.c_str();
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
