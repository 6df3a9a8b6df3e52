//===- Vulkan.h - the Vulkan device path of the runtime ---------*- C++ -*-===//
//
// No MLIR and no link-time Vulkan dependency: the loader (libvulkan.so.1) is
// opened when a Vulkan device is, so the CPU path works on machines without
// it.
//
//===----------------------------------------------------------------------===//

#ifndef ATTUNE_RUNTIME_VULKAN_VULKAN_H
#define ATTUNE_RUNTIME_VULKAN_VULKAN_H

#include "../cpu/Internal.h"

#include <cstdint>
#include <string>
#include <vector>

namespace attune::vulkan {

struct Device;
struct Program;

/// What the artifact's metadata says about one kernel.
struct KernelSpec {
  std::string entry, symbol, where; // entry point, SPIR-V global, module@loc
  size_t bytes = 0, buffers = 0, pushConstants = 0;
  uint32_t workgroup[3] = {1, 1, 1};
  /// Invocations one subgroup must hold (the kernel reduces over its
  /// workgroup with subgroup arithmetic); 0: no subgroup operations.
  uint32_t subgroup = 0;
};
/// A global the host code reads (weights, constants): uploaded once.
struct GlobalSpec {
  std::string symbol;
  size_t bytes = 0;
};

/// `selector`: "" (the first discrete, integrated, virtual or CPU device, in
/// that order of preference), a device index, or a case-insensitive part of
/// the device name.
attune_status *openDevice(const std::string &selector, Device **out);
void closeDevice(Device *device);
std::string describe(const Device *device);
/// One line per device: "N: name (type, Vulkan x.y)".
attune_status *listDevices(std::string &text);

/// Creates the pipelines of `kernels` (read from `library`) and uploads the
/// globals through staging buffers.
attune_status *createProgram(Device *device, void *library,
                             const std::string &modelPath,
                             const std::vector<KernelSpec> &kernels,
                             const std::vector<GlobalSpec> &globals,
                             Program **out);
void destroyProgram(Program *program);

/// One model run. `invoke(context, args)` calls the host code and returns
/// its error, if any; args[0] points to the result descriptors, args[1 + i]
/// to input i's.
struct RunIO {
  const attune_tensor *const *inputs;
  size_t numInputs;
  const std::vector<std::pair<attune_dtype, size_t>> *outputs; // dtype, rank
  attune_tensor **results;
};
attune_status *run(Program *program, const char *where, const RunIO &io,
                   attune_status *(*invoke)(void *context, void **args),
                   void *invokeContext, bool profile);
/// Per-kernel GPU times of the last profiled run.
std::string profileReport(const Program *program);

} // namespace attune::vulkan

#endif // ATTUNE_RUNTIME_VULKAN_VULKAN_H
