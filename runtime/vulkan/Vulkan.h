//===- Vulkan.h - the Vulkan device path of the runtime ---------*- C++ -*-===//
//
// No MLIR and no link-time Vulkan dependency: the loader (libvulkan.so.1) is
// opened when a Vulkan device is, so the CPU path works on machines without
// it.
//
//===----------------------------------------------------------------------===//

#ifndef ATTUNE_RUNTIME_VULKAN_VULKAN_H
#define ATTUNE_RUNTIME_VULKAN_VULKAN_H

#include "../core/Internal.h"
#include "attune/artifact.h"

#include <cstdint>
#include <string>
#include <vector>

namespace attune::vulkan {

struct Device;
struct Program;

using KernelSpec = artifact::KernelSpec;
using GlobalSpec = artifact::GlobalSpec;

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
