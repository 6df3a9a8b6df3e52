//===- attune/runtime.hpp - C++ convenience wrapper -------------*- C++ -*-===//
//
// RAII owners over the C API. Errors come back as `attune::Status` (no
// exceptions, so it works in -fno-exceptions code).
//
//===----------------------------------------------------------------------===//

#ifndef ATTUNE_RUNTIME_HPP
#define ATTUNE_RUNTIME_HPP

#include "attune/runtime.h"

#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace attune {

/// Success, or a message.
class Status {
public:
  Status() = default;
  /// Takes ownership of a C status (NULL is success).
  explicit Status(attune_status *s) {
    if (s) {
      message_ = attune_status_message(s);
      failed_ = true;
      attune_status_free(s);
    }
  }
  static Status error(std::string message) {
    Status s;
    s.message_ = std::move(message);
    s.failed_ = true;
    return s;
  }
  bool ok() const { return !failed_; }
  explicit operator bool() const { return ok(); }
  const std::string &message() const { return message_; }

private:
  std::string message_;
  bool failed_ = false;
};

class Tensor {
public:
  Tensor() = default;
  explicit Tensor(attune_tensor *t) : t_(t) {}

  static Status create(attune_dtype dtype, const std::vector<int64_t> &shape,
                       Tensor &out) {
    attune_tensor *t = nullptr;
    Status s(attune_tensor_create(dtype, shape.size(), shape.data(), &t));
    if (s)
      out = Tensor(t);
    return s;
  }
  static Status readNpy(const std::string &path, Tensor &out) {
    attune_tensor *t = nullptr;
    Status s(attune_tensor_read_npy(path.c_str(), &t));
    if (s)
      out = Tensor(t);
    return s;
  }
  Status writeNpy(const std::string &path) const {
    return Status(attune_tensor_write_npy(t_.get(), path.c_str()));
  }

  attune_dtype dtype() const { return attune_tensor_dtype(t_.get()); }
  std::vector<int64_t> shape() const {
    const int64_t *s = attune_tensor_shape(t_.get());
    return std::vector<int64_t>(s, s + attune_tensor_rank(t_.get()));
  }
  size_t size() const { return attune_tensor_num_elements(t_.get()); }
  void *data() { return attune_tensor_data(t_.get()); }
  const void *data() const { return attune_tensor_data(t_.get()); }
  template <typename T> T *data() { return static_cast<T *>(data()); }
  template <typename T> const T *data() const {
    return static_cast<const T *>(data());
  }
  const attune_tensor *get() const { return t_.get(); }
  explicit operator bool() const { return t_ != nullptr; }

private:
  struct Deleter {
    void operator()(attune_tensor *t) const { attune_tensor_free(t); }
  };
  std::unique_ptr<attune_tensor, Deleter> t_;
};

/// A device models run on: "cpu", "vulkan", "vulkan:N", "vulkan:NAME",
/// "auto" (see attune_device_open). Must outlive its models.
class Device {
public:
  static Status open(const std::string &spec, Device &out) {
    attune_device *d = nullptr;
    Status s(attune_device_open(spec.c_str(), &d));
    if (s)
      out.d_.reset(d);
    return s;
  }
  attune_device *get() const { return d_.get(); }
  std::string description() const { return attune_device_description(d_.get()); }
  bool isVulkan() const { return attune_device_is_vulkan(d_.get()) != 0; }

private:
  struct Deleter {
    void operator()(attune_device *d) const { attune_device_close(d); }
  };
  std::unique_ptr<attune_device, Deleter> d_;
};

class Model {
public:
  /// `weights`: the safetensors file of a --weights-external model, or empty
  /// for the one recorded at compile time. `device`: null for the CPU.
  static Status open(const std::string &path, Model &out,
                     const std::string &weights = "",
                     const Device *device = nullptr) {
    attune_model *m = nullptr;
    Status s(attune_model_open_on(
        path.c_str(), weights.empty() ? nullptr : weights.c_str(),
        device ? device->get() : nullptr, &m));
    if (s)
      out.m_.reset(m);
    return s;
  }

  /// Opens `path` to describe it, not to run it (attune_model_inspect).
  static Status inspect(const std::string &path, Model &out) {
    attune_model *m = nullptr;
    Status s(attune_model_inspect(path.c_str(), &m));
    if (s)
      out.m_.reset(m);
    return s;
  }

  std::string device() const { return attune_model_device(m_.get()); }
  const attune_model *get() const { return m_.get(); }
  /// What the artifact was compiled for (attune_model_target_info).
  std::string targetInfo() const {
    return attune_model_target_info(m_.get());
  }
  Status setProfiling(bool enable) {
    return Status(attune_model_set_profiling(m_.get(), enable ? 1 : 0));
  }
  std::string profile() const { return attune_model_profile(m_.get()); }

  size_t numEntries() const { return attune_model_num_entries(m_.get()); }
  std::string entryName(size_t entry) const {
    const char *n = attune_model_entry_name(m_.get(), entry);
    return n ? n : "";
  }
  Status findEntry(const std::string &name, size_t &entry) const {
    return Status(attune_model_find_entry(m_.get(), name.c_str(), &entry));
  }
  std::vector<attune_tensor_info> inputs(size_t entry = 0) const {
    std::vector<attune_tensor_info> r;
    for (size_t i = 0; i < attune_model_num_inputs(m_.get(), entry); ++i)
      r.push_back(attune_model_input(m_.get(), entry, i));
    return r;
  }
  std::vector<attune_tensor_info> outputs(size_t entry = 0) const {
    std::vector<attune_tensor_info> r;
    for (size_t i = 0; i < attune_model_num_outputs(m_.get(), entry); ++i)
      r.push_back(attune_model_output(m_.get(), entry, i));
    return r;
  }

  Status setNumThreads(int n) {
    return Status(attune_model_set_num_threads(m_.get(), n));
  }

  /// Runs `entry` on `inputs`; `outputs` receives one tensor per output.
  /// Thread-safe (see runtime.h).
  Status run(const std::vector<const Tensor *> &inputs,
             std::vector<Tensor> &outputs, size_t entry = 0) const {
    std::vector<const attune_tensor *> in;
    for (const Tensor *t : inputs)
      in.push_back(t ? t->get() : nullptr);
    std::vector<attune_tensor *> out(attune_model_num_outputs(m_.get(), entry));
    Status s(attune_model_run(m_.get(), entry, in.data(), in.size(),
                              out.data(), out.size()));
    outputs.clear();
    for (attune_tensor *t : out)
      outputs.emplace_back(t);
    return s;
  }

  /// attune_model_generate: the new tokens of the prompts `prompt` [B, T]
  /// (`lengths` [B], or an empty tensor for T each); with `scores` and
  /// `logits`, also their scores and the logits that chose them.
  Status generate(const Tensor &prompt, const Tensor &lengths,
                  const attune_generate_options &options, Tensor &tokens,
                  Tensor *scores = nullptr, Tensor *logits = nullptr) const {
    attune_tensor *t = nullptr, *sc = nullptr, *l = nullptr;
    Status s(attune_model_generate(
        m_.get(), prompt.get(), lengths ? lengths.get() : nullptr, &options,
        &t, scores ? &sc : nullptr, logits ? &l : nullptr));
    tokens = Tensor(t);
    if (scores)
      *scores = Tensor(sc);
    if (logits)
      *logits = Tensor(l);
    return s;
  }

private:
  struct Deleter {
    void operator()(attune_model *m) const { attune_model_close(m); }
  };
  std::unique_ptr<attune_model, Deleter> m_;
};

} // namespace attune

#endif // ATTUNE_RUNTIME_HPP
