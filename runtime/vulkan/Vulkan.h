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
/// A device buffer that outlives runs: a generation step's state or context
/// kept on the device from step to step, so that a step uploads only its
/// tokens and reads back only its logits.
struct Resident;
/// A resident buffer holding a copy of `initial`'s bytes.
attune_status *createResident(Program *program, const attune_tensor *initial,
                              Resident **out);
void destroyResident(Program *program, Resident *resident);
/// Copies `bytes` bytes from offset `from` to offset `to` of a resident
/// buffer, for each move; every source is read before any is written.
struct ByteMove {
  uint64_t from, to, bytes;
};
attune_status *moveResident(Program *program, Resident *resident,
                            const std::vector<ByteMove> &moves);

struct RunIO {
  const attune_tensor *const *inputs;
  size_t numInputs;
  const std::vector<std::pair<attune_dtype, size_t>> *outputs; // dtype, rank
  attune_tensor **results;
  /// Per input, or null: a resident buffer bound in place of uploading
  /// inputs[i] (which then gives only the dtype and shape).
  const Resident *const *resident = nullptr;
  /// Per input, or null: the input is a state the run updates in place;
  /// its new value is copied back into inputs[i]'s data.
  const bool *writeBack = nullptr;
};
attune_status *run(Program *program, const char *where, const RunIO &io,
                   attune_status *(*invoke)(void *context, void **args),
                   void *invokeContext, bool profile);
/// Per-kernel GPU times of the last profiled run.
std::string profileReport(const Program *program);
/// attune_runtime_transfer_stats's counters.
void transferStats(uint64_t *uploaded, uint64_t *downloaded,
                   uint64_t *deviceBytes);

} // namespace attune::vulkan

#endif // ATTUNE_RUNTIME_VULKAN_VULKAN_H
