//===- Vulkan.cpp - devices, buffers, pipelines and recorded runs ---------===//
//
// A run records the whole model into one command buffer: the host code of
// the model (compiled C) allocates device buffers through
// `_mlir_memref_to_llvm_alloc` and records kernels through
// `_mlir_ciface_attune_vk_dispatch`; nothing executes until the run
// submits, once, and waits on a fence. Device buffers have addresses in a
// reserved range that the host code only does arithmetic on; the runtime
// maps every address back to (buffer, offset) when it binds descriptors.
//
//===----------------------------------------------------------------------===//

#include "Vulkan.h"

#define VK_NO_PROTOTYPES
#include <vulkan/vulkan.h>

#include <dlfcn.h>
#include <sys/stat.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <memory>
#include <functional>
#include <mutex>
#include <set>
#include <sstream>

using attune::runtime::error;

#define ATTUNE_VK_GLOBAL_FNS(X)                                                \
  X(vkCreateInstance)                                                          \
  X(vkEnumerateInstanceLayerProperties)                                        \
  X(vkEnumerateInstanceExtensionProperties)
#define ATTUNE_VK_INSTANCE_FNS(X)                                              \
  X(vkDestroyInstance)                                                         \
  X(vkEnumeratePhysicalDevices)                                                \
  X(vkGetPhysicalDeviceProperties)                                             \
  X(vkGetPhysicalDeviceProperties2)                                            \
  X(vkGetPhysicalDeviceFeatures2)                                              \
  X(vkEnumerateDeviceExtensionProperties)                                      \
  X(vkGetPhysicalDeviceQueueFamilyProperties)                                  \
  X(vkGetPhysicalDeviceMemoryProperties)                                       \
  X(vkCreateDevice)                                                            \
  X(vkGetDeviceProcAddr)
#define ATTUNE_VK_DEVICE_FNS(X)                                                \
  X(vkDestroyDevice)                                                           \
  X(vkGetDeviceQueue)                                                          \
  X(vkCreateBuffer)                                                            \
  X(vkDestroyBuffer)                                                           \
  X(vkGetBufferMemoryRequirements)                                             \
  X(vkAllocateMemory)                                                          \
  X(vkFreeMemory)                                                              \
  X(vkBindBufferMemory)                                                        \
  X(vkMapMemory)                                                               \
  X(vkCreateShaderModule)                                                      \
  X(vkDestroyShaderModule)                                                     \
  X(vkCreateDescriptorSetLayout)                                               \
  X(vkDestroyDescriptorSetLayout)                                              \
  X(vkCreatePipelineLayout)                                                    \
  X(vkDestroyPipelineLayout)                                                   \
  X(vkCreateComputePipelines)                                                  \
  X(vkDestroyPipeline)                                                         \
  X(vkCreatePipelineCache)                                                     \
  X(vkDestroyPipelineCache)                                                    \
  X(vkGetPipelineCacheData)                                                    \
  X(vkCreateDescriptorPool)                                                    \
  X(vkDestroyDescriptorPool)                                                   \
  X(vkResetDescriptorPool)                                                     \
  X(vkAllocateDescriptorSets)                                                  \
  X(vkUpdateDescriptorSets)                                                    \
  X(vkCreateCommandPool)                                                       \
  X(vkDestroyCommandPool)                                                      \
  X(vkResetCommandPool)                                                        \
  X(vkAllocateCommandBuffers)                                                  \
  X(vkBeginCommandBuffer)                                                      \
  X(vkEndCommandBuffer)                                                        \
  X(vkCmdBindPipeline)                                                         \
  X(vkCmdBindDescriptorSets)                                                   \
  X(vkCmdPushConstants)                                                        \
  X(vkCmdDispatch)                                                             \
  X(vkCmdPipelineBarrier)                                                      \
  X(vkCmdCopyBuffer)                                                           \
  X(vkCmdWriteTimestamp)                                                       \
  X(vkCmdResetQueryPool)                                                       \
  X(vkCreateQueryPool)                                                         \
  X(vkDestroyQueryPool)                                                        \
  X(vkGetQueryPoolResults)                                                     \
  X(vkQueueSubmit)                                                             \
  X(vkCreateFence)                                                             \
  X(vkDestroyFence)                                                            \
  X(vkWaitForFences)                                                           \
  X(vkResetFences)                                                             \
  X(vkDeviceWaitIdle)

namespace attune::vulkan {

const char *resultName(VkResult r) {
  switch (r) {
#define CASE(x)                                                                \
  case x:                                                                      \
    return #x;
    CASE(VK_SUCCESS)
    CASE(VK_NOT_READY)
    CASE(VK_TIMEOUT)
    CASE(VK_INCOMPLETE)
    CASE(VK_ERROR_OUT_OF_HOST_MEMORY)
    CASE(VK_ERROR_OUT_OF_DEVICE_MEMORY)
    CASE(VK_ERROR_INITIALIZATION_FAILED)
    CASE(VK_ERROR_DEVICE_LOST)
    CASE(VK_ERROR_MEMORY_MAP_FAILED)
    CASE(VK_ERROR_LAYER_NOT_PRESENT)
    CASE(VK_ERROR_EXTENSION_NOT_PRESENT)
    CASE(VK_ERROR_FEATURE_NOT_PRESENT)
    CASE(VK_ERROR_INCOMPATIBLE_DRIVER)
    CASE(VK_ERROR_TOO_MANY_OBJECTS)
    CASE(VK_ERROR_FORMAT_NOT_SUPPORTED)
    CASE(VK_ERROR_OUT_OF_POOL_MEMORY)
    CASE(VK_ERROR_INVALID_SHADER_NV)
#undef CASE
  default:
    return "VkResult error";
  }
}

struct Buffer {
  VkBuffer buffer = VK_NULL_HANDLE;
  VkDeviceMemory memory = VK_NULL_HANDLE;
  VkDeviceSize size = 0;
  char *mapped = nullptr; // host-visible memory stays mapped
};

struct Device {
  void *loader = nullptr;
  PFN_vkGetInstanceProcAddr vkGetInstanceProcAddr = nullptr;
#define DECLARE(name) PFN_##name name = nullptr;
  ATTUNE_VK_GLOBAL_FNS(DECLARE)
  ATTUNE_VK_INSTANCE_FNS(DECLARE)
  ATTUNE_VK_DEVICE_FNS(DECLARE)
#undef DECLARE
  PFN_vkCreateDebugUtilsMessengerEXT vkCreateDebugUtilsMessengerEXT = nullptr;
  PFN_vkDestroyDebugUtilsMessengerEXT vkDestroyDebugUtilsMessengerEXT = nullptr;

  VkInstance instance = VK_NULL_HANDLE;
  VkPhysicalDevice physical = VK_NULL_HANDLE;
  VkDevice device = VK_NULL_HANDLE;
  VkQueue queue = VK_NULL_HANDLE;
  uint32_t family = 0;
  VkPhysicalDeviceProperties props{};
  VkPhysicalDeviceMemoryProperties memory{};
  VkPhysicalDeviceSubgroupProperties subgroup{
      VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SUBGROUP_PROPERTIES};
  bool timestamps = false;
  /// The 16-bit features, enabled at device creation where the device has
  /// them (kernels that use f16 tensors need both).
  bool storage16 = false, float16 = false, int16 = false;
  VkDebugUtilsMessengerEXT messenger = VK_NULL_HANDLE;
  std::atomic<int> validationMessages{0};
  VkPipelineCache cache = VK_NULL_HANDLE;
  std::string cachePath;
  std::mutex mutex; // the queue, and one run at a time
  int index = -1;
  std::string description;

  ~Device();
  void saveCache();
  /// A buffer of `size` bytes in memory with `want` properties (falling back
  /// to `fallback`); on failure the message names `what`.
  attune_status *createBuffer(VkDeviceSize size, VkMemoryPropertyFlags want,
                              VkMemoryPropertyFlags fallback, const char *what,
                              Buffer &out);
  void destroyBuffer(Buffer &b);
};

namespace {

VKAPI_ATTR VkBool32 VKAPI_CALL
onValidationMessage(VkDebugUtilsMessageSeverityFlagBitsEXT severity,
                    VkDebugUtilsMessageTypeFlagsEXT,
                    const VkDebugUtilsMessengerCallbackDataEXT *data,
                    void *user) {
  if (severity < VK_DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT)
    return VK_FALSE;
  auto *device = static_cast<Device *>(user);
  ++device->validationMessages;
  std::fprintf(stderr, "attune: vulkan validation: %s\n",
               data && data->pMessage ? data->pMessage : "(no message)");
  return VK_FALSE;
}

std::string lower(std::string s) {
  for (char &c : s)
    c = (char)std::tolower((unsigned char)c);
  return s;
}

const char *typeName(VkPhysicalDeviceType t) {
  switch (t) {
  case VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU:
    return "discrete GPU";
  case VK_PHYSICAL_DEVICE_TYPE_INTEGRATED_GPU:
    return "integrated GPU";
  case VK_PHYSICAL_DEVICE_TYPE_VIRTUAL_GPU:
    return "virtual GPU";
  case VK_PHYSICAL_DEVICE_TYPE_CPU:
    return "CPU";
  default:
    return "other";
  }
}

int preference(VkPhysicalDeviceType t) {
  switch (t) {
  case VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU:
    return 0;
  case VK_PHYSICAL_DEVICE_TYPE_INTEGRATED_GPU:
    return 1;
  case VK_PHYSICAL_DEVICE_TYPE_VIRTUAL_GPU:
    return 2;
  case VK_PHYSICAL_DEVICE_TYPE_CPU:
    return 3;
  default:
    return 4;
  }
}

bool envFlag(const char *name) {
  const char *v = std::getenv(name);
  return v && *v && std::strcmp(v, "0") != 0;
}

/// Loader and instance; validation when ATTUNE_VULKAN_VALIDATION is set.
attune_status *createInstance(Device &d) {
  const char *loaderName = std::getenv("ATTUNE_VULKAN_LOADER");
  if (!loaderName || !*loaderName)
    loaderName = "libvulkan.so.1";
  d.loader = dlopen(loaderName, RTLD_NOW | RTLD_LOCAL);
  if (!d.loader)
    return error("vulkan: cannot load the Vulkan loader %s (%s); install "
                 "libvulkan1 and a driver (mesa-vulkan-drivers for lavapipe)",
                 loaderName, dlerror());
  d.vkGetInstanceProcAddr = reinterpret_cast<PFN_vkGetInstanceProcAddr>(
      dlsym(d.loader, "vkGetInstanceProcAddr"));
  if (!d.vkGetInstanceProcAddr)
    return error("vulkan: %s has no vkGetInstanceProcAddr", loaderName);
#define LOAD(name)                                                             \
  d.name = reinterpret_cast<PFN_##name>(                                       \
      d.vkGetInstanceProcAddr(VK_NULL_HANDLE, #name));                         \
  if (!d.name)                                                                 \
    return error("vulkan: the loader lacks %s", #name);
  ATTUNE_VK_GLOBAL_FNS(LOAD)
#undef LOAD

  std::vector<const char *> layers, extensions;
  bool validation = envFlag("ATTUNE_VULKAN_VALIDATION");
  if (validation) {
    uint32_t n = 0;
    d.vkEnumerateInstanceLayerProperties(&n, nullptr);
    std::vector<VkLayerProperties> available(n);
    d.vkEnumerateInstanceLayerProperties(&n, available.data());
    bool found = std::any_of(available.begin(), available.end(), [](auto &l) {
      return std::strcmp(l.layerName, "VK_LAYER_KHRONOS_validation") == 0;
    });
    if (!found)
      return error("vulkan: ATTUNE_VULKAN_VALIDATION is set but the layer "
                   "VK_LAYER_KHRONOS_validation is not installed "
                   "(vulkan-validationlayers)");
    layers.push_back("VK_LAYER_KHRONOS_validation");
    extensions.push_back(VK_EXT_DEBUG_UTILS_EXTENSION_NAME);
  }
  VkApplicationInfo app{VK_STRUCTURE_TYPE_APPLICATION_INFO};
  app.pApplicationName = "attune";
  app.pEngineName = "attune";
  app.apiVersion = VK_API_VERSION_1_1;
  VkInstanceCreateInfo info{VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO};
  info.pApplicationInfo = &app;
  info.enabledLayerCount = (uint32_t)layers.size();
  info.ppEnabledLayerNames = layers.data();
  info.enabledExtensionCount = (uint32_t)extensions.size();
  info.ppEnabledExtensionNames = extensions.data();
  if (VkResult r = d.vkCreateInstance(&info, nullptr, &d.instance))
    return error("vulkan: cannot create an instance (%s)%s", resultName(r),
                 r == VK_ERROR_INCOMPATIBLE_DRIVER
                     ? ": no Vulkan 1.1 driver is installed"
                     : "");
#define LOAD(name)                                                             \
  d.name = reinterpret_cast<PFN_##name>(                                       \
      d.vkGetInstanceProcAddr(d.instance, #name));                             \
  if (!d.name)                                                                 \
    return error("vulkan: the instance lacks %s", #name);
  ATTUNE_VK_INSTANCE_FNS(LOAD)
#undef LOAD
  if (validation) {
    d.vkCreateDebugUtilsMessengerEXT =
        reinterpret_cast<PFN_vkCreateDebugUtilsMessengerEXT>(
            d.vkGetInstanceProcAddr(d.instance,
                                    "vkCreateDebugUtilsMessengerEXT"));
    d.vkDestroyDebugUtilsMessengerEXT =
        reinterpret_cast<PFN_vkDestroyDebugUtilsMessengerEXT>(
            d.vkGetInstanceProcAddr(d.instance,
                                    "vkDestroyDebugUtilsMessengerEXT"));
    VkDebugUtilsMessengerCreateInfoEXT m{
        VK_STRUCTURE_TYPE_DEBUG_UTILS_MESSENGER_CREATE_INFO_EXT};
    m.messageSeverity = VK_DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT |
                        VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT;
    m.messageType = VK_DEBUG_UTILS_MESSAGE_TYPE_GENERAL_BIT_EXT |
                    VK_DEBUG_UTILS_MESSAGE_TYPE_VALIDATION_BIT_EXT |
                    VK_DEBUG_UTILS_MESSAGE_TYPE_PERFORMANCE_BIT_EXT;
    m.pfnUserCallback = onValidationMessage;
    m.pUserData = &d;
    if (!d.vkCreateDebugUtilsMessengerEXT ||
        d.vkCreateDebugUtilsMessengerEXT(d.instance, &m, nullptr,
                                         &d.messenger) != VK_SUCCESS)
      return error("vulkan: cannot install the validation message callback");
  }
  return nullptr;
}

std::vector<VkPhysicalDevice> physicalDevices(Device &d) {
  uint32_t n = 0;
  d.vkEnumeratePhysicalDevices(d.instance, &n, nullptr);
  std::vector<VkPhysicalDevice> all(n);
  d.vkEnumeratePhysicalDevices(d.instance, &n, all.data());
  all.resize(n);
  return all;
}

std::string cacheFile(const VkPhysicalDeviceProperties &p) {
  if (const char *path = std::getenv("ATTUNE_VULKAN_PIPELINE_CACHE"))
    return std::strcmp(path, "off") == 0 ? "" : path;
  std::string dir;
  if (const char *xdg = std::getenv("XDG_CACHE_HOME"); xdg && *xdg)
    dir = xdg;
  else if (const char *home = std::getenv("HOME"); home && *home)
    dir = std::string(home) + "/.cache";
  else
    return "";
  char name[96];
  std::snprintf(name, sizeof(name), "/attune/vulkan-pipelines-%04x-%04x.bin",
                p.vendorID, p.deviceID);
  return dir + name;
}

} // namespace

Device::~Device() {
  if (device) {
    vkDeviceWaitIdle(device);
    saveCache();
    if (cache)
      vkDestroyPipelineCache(device, cache, nullptr);
    vkDestroyDevice(device, nullptr);
  }
  if (messenger && vkDestroyDebugUtilsMessengerEXT)
    vkDestroyDebugUtilsMessengerEXT(instance, messenger, nullptr);
  if (instance)
    vkDestroyInstance(instance, nullptr);
  if (loader)
    dlclose(loader);
}

void Device::saveCache() {
  if (!cache || cachePath.empty())
    return;
  size_t size = 0;
  if (vkGetPipelineCacheData(device, cache, &size, nullptr) != VK_SUCCESS)
    return;
  std::vector<char> data(size);
  if (vkGetPipelineCacheData(device, cache, &size, data.data()) != VK_SUCCESS)
    return;
  // mkdir -p of the parent; failures only cost the cache.
  for (size_t i = 1; i < cachePath.size(); ++i)
    if (cachePath[i] == '/')
      mkdir(cachePath.substr(0, i).c_str(), 0755);
  std::string tmp = cachePath + ".tmp";
  std::ofstream out(tmp, std::ios::binary);
  out.write(data.data(), (std::streamsize)size);
  out.close();
  if (out)
    std::rename(tmp.c_str(), cachePath.c_str());
  else
    std::remove(tmp.c_str());
}

attune_status *Device::createBuffer(VkDeviceSize size,
                                    VkMemoryPropertyFlags want,
                                    VkMemoryPropertyFlags fallback,
                                    const char *what, Buffer &out) {
  out = Buffer{};
  out.size = std::max<VkDeviceSize>(size, 4);
  if (out.size > props.limits.maxStorageBufferRange)
    return error("vulkan: %s needs %llu bytes, more than the device's "
                 "maxStorageBufferRange (%u bytes)",
                 what, (unsigned long long)size,
                 props.limits.maxStorageBufferRange);
  VkBufferCreateInfo info{VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO};
  info.size = out.size;
  info.usage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT |
               VK_BUFFER_USAGE_TRANSFER_SRC_BIT |
               VK_BUFFER_USAGE_TRANSFER_DST_BIT;
  info.sharingMode = VK_SHARING_MODE_EXCLUSIVE;
  if (VkResult r = vkCreateBuffer(device, &info, nullptr, &out.buffer))
    return error("vulkan: cannot create a buffer of %llu bytes for %s (%s)",
                 (unsigned long long)size, what, resultName(r));
  VkMemoryRequirements req;
  vkGetBufferMemoryRequirements(device, out.buffer, &req);
  int type = -1;
  for (VkMemoryPropertyFlags flags : {want, fallback}) {
    for (uint32_t i = 0; i < memory.memoryTypeCount && type < 0; ++i)
      if ((req.memoryTypeBits & (1u << i)) &&
          (memory.memoryTypes[i].propertyFlags & flags) == flags)
        type = (int)i;
    if (type >= 0)
      break;
  }
  if (type < 0) {
    destroyBuffer(out);
    return error("vulkan: no memory type for %s", what);
  }
  VkMemoryAllocateInfo alloc{VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO};
  alloc.allocationSize = req.size;
  alloc.memoryTypeIndex = (uint32_t)type;
  if (VkResult r = vkAllocateMemory(device, &alloc, nullptr, &out.memory)) {
    destroyBuffer(out);
    return error("vulkan: out of device memory: cannot allocate %llu bytes "
                 "for %s (%s)",
                 (unsigned long long)req.size, what, resultName(r));
  }
  vkBindBufferMemory(device, out.buffer, out.memory, 0);
  if (memory.memoryTypes[type].propertyFlags &
      VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT) {
    void *p = nullptr;
    if (VkResult r = vkMapMemory(device, out.memory, 0, VK_WHOLE_SIZE, 0, &p)) {
      destroyBuffer(out);
      return error("vulkan: cannot map %s (%s)", what, resultName(r));
    }
    out.mapped = static_cast<char *>(p);
  }
  return nullptr;
}

void Device::destroyBuffer(Buffer &b) {
  if (b.buffer)
    vkDestroyBuffer(device, b.buffer, nullptr);
  if (b.memory)
    vkFreeMemory(device, b.memory, nullptr);
  b = Buffer{};
}

attune_status *listDevices(std::string &text) {
  Device d;
  if (attune_status *s = createInstance(d))
    return s;
  std::vector<VkPhysicalDevice> all = physicalDevices(d);
  if (all.empty())
    return error("vulkan: the loader found no Vulkan device");
  text.clear();
  for (size_t i = 0; i < all.size(); ++i) {
    VkPhysicalDeviceProperties p;
    d.vkGetPhysicalDeviceProperties(all[i], &p);
    char line[512];
    std::snprintf(line, sizeof(line), "%zu: %s (%s, Vulkan %u.%u)\n", i,
                  p.deviceName, typeName(p.deviceType),
                  VK_API_VERSION_MAJOR(p.apiVersion),
                  VK_API_VERSION_MINOR(p.apiVersion));
    text += line;
  }
  return nullptr;
}

attune_status *openDevice(const std::string &selector, Device **out) {
  auto d = std::make_unique<Device>();
  if (attune_status *s = createInstance(*d))
    return s;
  std::vector<VkPhysicalDevice> all = physicalDevices(*d);
  if (all.empty())
    return error("vulkan: no Vulkan device found (the loader works, but no "
                 "driver offers a device)");
  std::vector<VkPhysicalDeviceProperties> props(all.size());
  for (size_t i = 0; i < all.size(); ++i)
    d->vkGetPhysicalDeviceProperties(all[i], &props[i]);
  int chosen = -1;
  if (selector.empty()) {
    for (size_t i = 0; i < all.size(); ++i)
      if (chosen < 0 || preference(props[i].deviceType) <
                            preference(props[chosen].deviceType))
        chosen = (int)i;
  } else if (std::all_of(selector.begin(), selector.end(), ::isdigit)) {
    chosen = std::atoi(selector.c_str());
    if (chosen >= (int)all.size())
      return error("vulkan: no device %d (there are %zu)", chosen, all.size());
  } else {
    for (size_t i = 0; i < all.size() && chosen < 0; ++i)
      if (lower(props[i].deviceName).find(lower(selector)) != std::string::npos)
        chosen = (int)i;
    if (chosen < 0) {
      std::string names;
      for (auto &p : props)
        names += std::string(names.empty() ? "" : ", ") + p.deviceName;
      return error("vulkan: no device named like '%s' (devices: %s)",
                   selector.c_str(), names.c_str());
    }
  }
  d->index = chosen;
  d->physical = all[chosen];
  d->props = props[chosen];
  d->vkGetPhysicalDeviceMemoryProperties(d->physical, &d->memory);
  if (d->props.apiVersion < VK_API_VERSION_1_1)
    return error("vulkan: %s supports Vulkan %u.%u; Attune needs 1.1",
                 d->props.deviceName, VK_API_VERSION_MAJOR(d->props.apiVersion),
                 VK_API_VERSION_MINOR(d->props.apiVersion));
  VkPhysicalDeviceProperties2 props2{
      VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2};
  props2.pNext = &d->subgroup;
  d->vkGetPhysicalDeviceProperties2(d->physical, &props2);

  uint32_t n = 0;
  d->vkGetPhysicalDeviceQueueFamilyProperties(d->physical, &n, nullptr);
  std::vector<VkQueueFamilyProperties> families(n);
  d->vkGetPhysicalDeviceQueueFamilyProperties(d->physical, &n, families.data());
  int family = -1;
  for (uint32_t i = 0; i < n && family < 0; ++i)
    if (families[i].queueFlags & VK_QUEUE_COMPUTE_BIT)
      family = (int)i;
  if (family < 0)
    return error("vulkan: %s has no compute queue", d->props.deviceName);
  d->family = (uint32_t)family;
  d->timestamps = families[family].timestampValidBits > 0 &&
                  d->props.limits.timestampPeriod > 0;
  // 16-bit storage (core in 1.1), f16 values (1.2, or
  // VK_KHR_shader_float16_int8) and 16-bit integers (bf16 bits): enabled when present; a kernel that needs
  // one the device lacks is refused at load (checkCapabilities).
  VkPhysicalDeviceShaderFloat16Int8Features f16{
      VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_FLOAT16_INT8_FEATURES};
  VkPhysicalDevice16BitStorageFeatures storage16{
      VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_16BIT_STORAGE_FEATURES};
  std::vector<const char *> deviceExtensions;
  bool f16Available = d->props.apiVersion >= VK_API_VERSION_1_2;
  if (!f16Available) {
    uint32_t count = 0;
    d->vkEnumerateDeviceExtensionProperties(d->physical, nullptr, &count,
                                            nullptr);
    std::vector<VkExtensionProperties> exts(count);
    d->vkEnumerateDeviceExtensionProperties(d->physical, nullptr, &count,
                                            exts.data());
    for (const VkExtensionProperties &e : exts)
      if (!std::strcmp(e.extensionName,
                       VK_KHR_SHADER_FLOAT16_INT8_EXTENSION_NAME))
        f16Available = true;
    if (f16Available)
      deviceExtensions.push_back(VK_KHR_SHADER_FLOAT16_INT8_EXTENSION_NAME);
  }
  VkPhysicalDeviceFeatures2 features{
      VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2};
  features.pNext = &storage16;
  if (f16Available)
    storage16.pNext = &f16;
  d->vkGetPhysicalDeviceFeatures2(d->physical, &features);
  d->storage16 = storage16.storageBuffer16BitAccess;
  d->int16 = features.features.shaderInt16;
  d->float16 = f16Available && f16.shaderFloat16;
  // ATTUNE_VULKAN_WITHOUT=shaderFloat16,shaderInt16,storageBuffer16BitAccess
  // treats the device as lacking those features: what a smaller device
  // does, checked on this one.
  if (const char *without = std::getenv("ATTUNE_VULKAN_WITHOUT")) {
    std::string list = std::string(",") + without + ",";
    auto off = [&](const char *name) {
      return list.find(std::string(",") + name + ",") != std::string::npos;
    };
    d->float16 &= !off("shaderFloat16");
    d->int16 &= !off("shaderInt16");
    d->storage16 &= !off("storageBuffer16BitAccess");
  }
  // Enable exactly these two (and nothing else the query reported).
  VkPhysicalDeviceShaderFloat16Int8Features f16On{
      VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_FLOAT16_INT8_FEATURES};
  f16On.shaderFloat16 = d->float16;
  VkPhysicalDevice16BitStorageFeatures storage16On{
      VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_16BIT_STORAGE_FEATURES};
  storage16On.storageBuffer16BitAccess = d->storage16;
  if (f16Available)
    storage16On.pNext = &f16On;
  VkPhysicalDeviceFeatures basicOn{};
  basicOn.shaderInt16 = d->int16;

  float priority = 1.0f;
  VkDeviceQueueCreateInfo q{VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO};
  q.queueFamilyIndex = d->family;
  q.queueCount = 1;
  q.pQueuePriorities = &priority;
  VkDeviceCreateInfo info{VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO};
  info.queueCreateInfoCount = 1;
  info.pQueueCreateInfos = &q;
  info.pNext = &storage16On;
  info.pEnabledFeatures = &basicOn;
  info.enabledExtensionCount = (uint32_t)deviceExtensions.size();
  info.ppEnabledExtensionNames = deviceExtensions.data();
  if (VkResult r = d->vkCreateDevice(d->physical, &info, nullptr, &d->device))
    return error("vulkan: cannot create a logical device on %s (%s)",
                 d->props.deviceName, resultName(r));
#define LOAD(name)                                                             \
  d->name = reinterpret_cast<PFN_##name>(                                      \
      d->vkGetDeviceProcAddr(d->device, #name));                               \
  if (!d->name)                                                                \
    return error("vulkan: the device lacks %s", #name);
  ATTUNE_VK_DEVICE_FNS(LOAD)
#undef LOAD
  d->vkGetDeviceQueue(d->device, d->family, 0, &d->queue);

  // Pipeline cache, persisted across processes.
  d->cachePath = cacheFile(d->props);
  std::vector<char> data;
  if (!d->cachePath.empty()) {
    std::ifstream in(d->cachePath, std::ios::binary);
    data.assign(std::istreambuf_iterator<char>(in),
                std::istreambuf_iterator<char>());
  }
  VkPipelineCacheCreateInfo c{VK_STRUCTURE_TYPE_PIPELINE_CACHE_CREATE_INFO};
  c.initialDataSize = data.size();
  c.pInitialData = data.empty() ? nullptr : data.data();
  if (d->vkCreatePipelineCache(d->device, &c, nullptr, &d->cache) !=
      VK_SUCCESS) {
    c.initialDataSize = 0;
    c.pInitialData = nullptr;
    d->vkCreatePipelineCache(d->device, &c, nullptr, &d->cache);
  }
  char text[512];
  std::snprintf(text, sizeof(text), "vulkan:%d (%s, %s)", chosen,
                d->props.deviceName, typeName(d->props.deviceType));
  d->description = text;
  *out = d.release();
  return nullptr;
}

void closeDevice(Device *device) { delete device; }

std::string describe(const Device *device) { return device->description; }

//===----------------------------------------------------------------------===//
// Programs and runs
//===----------------------------------------------------------------------===//

struct Kernel {
  KernelSpec spec;
  VkShaderModule module = VK_NULL_HANDLE;
  VkDescriptorSetLayout setLayout = VK_NULL_HANDLE;
  VkPipelineLayout layout = VK_NULL_HANDLE;
  VkPipeline pipeline = VK_NULL_HANDLE;
};

/// An address range the host code may pass to a kernel.
struct Region {
  uint64_t size = 0;
  Buffer buffer;
  bool global = false; // uploaded at load; else owned by the current run
  bool resident = false; // a Resident's buffer, bound for the current run
};

struct Resident {
  Buffer buffer;
  uint64_t bytes = 0;
};

struct Program {
  Device *device = nullptr;
  std::string path;
  std::vector<Kernel> kernels;
  std::map<uint64_t, Region> regions; // by start address
  std::multimap<VkDeviceSize, Buffer> pool; // free run buffers, by size
  uint64_t nextAddress = 0;

  VkCommandPool commandPool = VK_NULL_HANDLE;
  VkCommandBuffer cmd = VK_NULL_HANDLE;
  VkFence fence = VK_NULL_HANDLE;
  std::vector<VkDescriptorPool> descriptorPools;
  size_t descriptorPoolInUse = 0;
  VkQueryPool queries = VK_NULL_HANDLE;
  uint32_t queryCapacity = 0;
  std::vector<uint32_t> timed; // kernel index per timed dispatch
  bool profiling = false;
  size_t dispatches = 0;
  std::vector<Buffer> staging; // freed after the run
  std::string report;
  /// The deferred checks of the current run: a readback copy of each flag
  /// word as it was at the check, and the check's message id.
  std::vector<std::pair<Buffer, int64_t>> checks;
  std::vector<std::string> checkMessages; // by id (kVulkanCheckMessages)
  std::set<Resident *> residents;          // destroyed with the program

  ~Program();
  /// Records commands with `record` into the command buffer, submits them
  /// and waits (outside a run; the caller holds the device's mutex).
  /// `after` runs once the commands are done, before the staging buffers
  /// are freed.
  attune_status *submitOnce(const char *what,
                            const std::function<void(VkCommandBuffer)> &record,
                            const std::function<void()> &after = {});
  attune_status *takeBuffer(uint64_t size, const char *what, Buffer &out);
  void giveBack(Buffer b) { pool.emplace(b.buffer ? b.size : 0, b); }
  uint64_t addRegion(uint64_t size, Buffer b);
  /// The buffer holding `address` and the offset into it.
  const Region *find(uint64_t address, uint64_t &offset) const;
  VkDescriptorSet allocateSet(const Kernel &k);
  /// A mapped host buffer for an upload (or, with `readback`, a download),
  /// freed after the run; on failure the message names `what`.
  attune_status *stagingBuffer(VkDeviceSize size, bool readback,
                               const std::string &what, Buffer &out);
  /// Submits the recorded command buffer and waits for it.
  VkResult submitAndWait();
  void barrier();
  void releaseRunRegions();
};

namespace {
// attune_runtime_transfer_stats.
std::atomic<uint64_t> uploadedBytes{0}, downloadedBytes{0}, deviceBytes{0};
// Device addresses the host code sees: a range no host mapping uses.
constexpr uint64_t kAddressBase = 0x100000000000ull; // 16 TiB
constexpr uint64_t kAddressAlign = 256;
thread_local Program *current = nullptr;
} // namespace

Program::~Program() {
  Device &d = *device;
  d.vkDeviceWaitIdle(d.device);
  releaseRunRegions();
  for (auto &[start, r] : regions)
    d.destroyBuffer(r.buffer);
  for (auto &[size, b] : pool)
    d.destroyBuffer(b);
  for (Resident *r : residents) {
    d.destroyBuffer(r->buffer);
    delete r;
  }
  for (Buffer &b : staging)
    d.destroyBuffer(b);
  for (Kernel &k : kernels) {
    if (k.pipeline)
      d.vkDestroyPipeline(d.device, k.pipeline, nullptr);
    if (k.layout)
      d.vkDestroyPipelineLayout(d.device, k.layout, nullptr);
    if (k.setLayout)
      d.vkDestroyDescriptorSetLayout(d.device, k.setLayout, nullptr);
    if (k.module)
      d.vkDestroyShaderModule(d.device, k.module, nullptr);
  }
  for (VkDescriptorPool p : descriptorPools)
    d.vkDestroyDescriptorPool(d.device, p, nullptr);
  if (queries)
    d.vkDestroyQueryPool(d.device, queries, nullptr);
  if (fence)
    d.vkDestroyFence(d.device, fence, nullptr);
  if (commandPool)
    d.vkDestroyCommandPool(d.device, commandPool, nullptr);
}

attune_status *Program::takeBuffer(uint64_t size, const char *what,
                                   Buffer &out) {
  // Best fit among pooled buffers no more than twice the size.
  auto it = pool.lower_bound(std::max<uint64_t>(size, 4));
  if (it != pool.end() && it->first <= 2 * std::max<uint64_t>(size, 4)) {
    out = it->second;
    pool.erase(it);
    return nullptr;
  }
  return device->createBuffer(
      size,
      VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT | VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT |
          VK_MEMORY_PROPERTY_HOST_COHERENT_BIT,
      VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT, what, out);
}

uint64_t Program::addRegion(uint64_t size, Buffer b) {
  uint64_t start = nextAddress;
  nextAddress += (size + 2 * kAddressAlign - 1) / kAddressAlign * kAddressAlign;
  Region r;
  r.size = size;
  r.buffer = b;
  regions[start] = r;
  return start;
}

const Region *Program::find(uint64_t address, uint64_t &offset) const {
  auto it = regions.upper_bound(address);
  if (it == regions.begin())
    return nullptr;
  --it;
  // One past the end is allowed: empty views point there.
  if (address > it->first + it->second.size)
    return nullptr;
  offset = address - it->first;
  return &it->second;
}

VkDescriptorSet Program::allocateSet(const Kernel &k) {
  Device &d = *device;
  for (;;) {
    if (descriptorPoolInUse == descriptorPools.size()) {
      VkDescriptorPoolSize size{VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 4096};
      VkDescriptorPoolCreateInfo info{
          VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO};
      info.maxSets = 512;
      info.poolSizeCount = 1;
      info.pPoolSizes = &size;
      VkDescriptorPool p;
      if (d.vkCreateDescriptorPool(d.device, &info, nullptr, &p) != VK_SUCCESS)
        return VK_NULL_HANDLE;
      descriptorPools.push_back(p);
    }
    VkDescriptorSetAllocateInfo info{
        VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO};
    info.descriptorPool = descriptorPools[descriptorPoolInUse];
    info.descriptorSetCount = 1;
    info.pSetLayouts = &k.setLayout;
    VkDescriptorSet set;
    if (d.vkAllocateDescriptorSets(d.device, &info, &set) == VK_SUCCESS)
      return set;
    ++descriptorPoolInUse; // full: the next one
  }
}

attune_status *Program::stagingBuffer(VkDeviceSize size, bool readback,
                                      const std::string &what, Buffer &out) {
  VkMemoryPropertyFlags host = VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT |
                               VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
  if (attune_status *s = device->createBuffer(
          size, readback ? host | VK_MEMORY_PROPERTY_HOST_CACHED_BIT : host,
          host, what.c_str(), out))
    return s;
  staging.push_back(out);
  return nullptr;
}

VkResult Program::submitAndWait() {
  Device &d = *device;
  VkSubmitInfo submit{VK_STRUCTURE_TYPE_SUBMIT_INFO};
  submit.commandBufferCount = 1;
  submit.pCommandBuffers = &cmd;
  VkResult r = d.vkQueueSubmit(d.queue, 1, &submit, fence);
  if (r == VK_SUCCESS)
    r = d.vkWaitForFences(d.device, 1, &fence, VK_TRUE, UINT64_MAX);
  d.vkResetFences(d.device, 1, &fence);
  return r;
}

void Program::barrier() {
  VkMemoryBarrier b{VK_STRUCTURE_TYPE_MEMORY_BARRIER};
  b.srcAccessMask = VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_WRITE_BIT;
  b.dstAccessMask = VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT |
                    VK_ACCESS_TRANSFER_READ_BIT | VK_ACCESS_TRANSFER_WRITE_BIT;
  device->vkCmdPipelineBarrier(
      cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT,
      VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT, 0,
      1, &b, 0, nullptr, 0, nullptr);
}

void Program::releaseRunRegions() {
  for (auto it = regions.begin(); it != regions.end();) {
    if (it->second.global) {
      ++it;
      continue;
    }
    if (!it->second.resident)
      giveBack(it->second.buffer);
    it = regions.erase(it);
  }
  for (Buffer &b : staging)
    device->destroyBuffer(b);
  staging.clear();
}

// The runtime functions the host code calls (below), through the slots of
// artifact::kRuntimeImports.
/// A 1-D memref descriptor as the host code passes it.
template <typename T> struct MemRef1 {
  T *allocated, *aligned;
  int64_t offset, size, stride;
};
void *hostAlloc(size_t size);
void hostFree(void *ptr);
void hostDispatch(int64_t id, int64_t gx, int64_t gy, int64_t gz,
                  MemRef1<int64_t> *buffers, MemRef1<int32_t> *push);
/// A rank-0 memref descriptor as the host code passes it.
template <typename T> struct MemRef0 {
  T *allocated, *aligned;
  int64_t offset;
};
void hostCheck(MemRef0<int32_t> *flag, int64_t id);

/// Points the host code's runtime slots of `library` at our functions.
static attune_status *bindHostCode(void *library, const char *path,
                                   bool hasKernels) {
  struct Binding {
    const artifact::RuntimeImport &import;
    void *function;
  };
  const Binding bindings[] = {
      {artifact::kVulkanAlloc, reinterpret_cast<void *>(&hostAlloc)},
      {artifact::kVulkanFree, reinterpret_cast<void *>(&hostFree)},
      {artifact::kVulkanDispatchCall, reinterpret_cast<void *>(&hostDispatch)},
      {artifact::kVulkanCheckCall, reinterpret_cast<void *>(&hostCheck)},
  };
  for (const Binding &b : bindings) {
    void *slot = dlsym(library, b.import.slot);
    if (!slot) {
      // Host code with kernels dispatches; not every one allocates, frees
      // or checks (and a model whose work folded away, such as a triangle
      // of an empty matrix, has no kernel).
      if (&b.import == &artifact::kVulkanDispatchCall && hasKernels)
        return error("%s: the Vulkan host code has no %s slot (compiled by an "
                     "older attune-compile? recompile it)",
                     path, b.import.slot);
      continue;
    }
    std::memcpy(slot, &b.function, sizeof(void *));
  }
  return nullptr;
}

/// Refuses a kernel whose SPIR-V declares a capability that needs a device
/// feature the device lacks (read from the module's OpCapability
/// instructions, so the check cannot disagree with the code).
static attune_status *checkCapabilities(const Device &d, const char *path,
                                        const char *name,
                                        const std::vector<uint32_t> &words) {
  constexpr uint32_t kOpCapability = 17, kOpFunction = 54;
  constexpr uint32_t kFloat16 = 9, kInt16 = 22,
                     kStorageBuffer16BitAccess = 4433;
  for (size_t i = 5; i < words.size();) {
    uint32_t count = words[i] >> 16, opcode = words[i] & 0xffff;
    if (count == 0 || opcode == kOpFunction)
      break;
    if (opcode == kOpCapability && count == 2 && i + 1 < words.size()) {
      uint32_t cap = words[i + 1];
      if (cap == kFloat16 && !d.float16)
        return error("%s: kernel %s: converts f16 values (the feature "
                     "shaderFloat16), which %s lacks; this device cannot "
                     "run f16 models",
                     path, name, d.props.deviceName);
      if (cap == kInt16 && !d.int16)
        return error("%s: kernel %s: converts bf16 values as 16-bit "
                     "integers (the feature shaderInt16), which %s lacks; "
                     "this device cannot run bf16 models",
                     path, name, d.props.deviceName);
      if (cap == kStorageBuffer16BitAccess && !d.storage16)
        return error("%s: kernel %s: reads or writes 16-bit tensors "
                     "(storageBuffer16BitAccess), which %s lacks; this "
                     "device cannot run f16 or bf16 models",
                     path, name, d.props.deviceName);
    }
    i += count;
  }
  return nullptr;
}

attune_status *createProgram(Device *device, void *library,
                             const std::string &modelPath,
                             const std::vector<KernelSpec> &specs,
                             const std::vector<GlobalSpec> &globals,
                             Program **out) {
  if (attune_status *s =
          bindHostCode(library, modelPath.c_str(), !specs.empty()))
    return s;
  Device &d = *device;
  std::vector<std::string> checkMessages;
  if (const char *m = static_cast<const char *>(
          dlsym(library, artifact::kVulkanCheckMessages)))
    for (; *m; m += std::strlen(m) + 1)
      checkMessages.push_back(m);
  int messagesBefore = d.validationMessages.load();
  auto p = std::make_unique<Program>();
  p->device = device;
  p->path = modelPath;
  p->checkMessages = std::move(checkMessages);
  const char *path = modelPath.c_str();
  for (const KernelSpec &spec : specs) {
    Kernel k;
    k.spec = spec;
    p->kernels.push_back(k);
  }
  for (Kernel &k : p->kernels) {
    const KernelSpec &spec = k.spec;
    const char *name = spec.where.c_str();
    const void *code = dlsym(library, spec.symbol.c_str());
    if (!code || spec.bytes % 4 != 0 || spec.bytes == 0)
      return error("%s: kernel %s: no SPIR-V (symbol %s)", path, name,
                   spec.symbol.c_str());
    if (spec.workgroup[0] * spec.workgroup[1] * spec.workgroup[2] >
            d.props.limits.maxComputeWorkGroupInvocations ||
        spec.workgroup[0] > d.props.limits.maxComputeWorkGroupSize[0] ||
        spec.workgroup[1] > d.props.limits.maxComputeWorkGroupSize[1] ||
        spec.workgroup[2] > d.props.limits.maxComputeWorkGroupSize[2])
      return error("%s: kernel %s: workgroup %ux%ux%u exceeds %s's limits "
                   "(%u invocations); compile with a --vulkan-profile that "
                   "matches the device",
                   path, name, spec.workgroup[0], spec.workgroup[1],
                   spec.workgroup[2], d.props.deviceName,
                   d.props.limits.maxComputeWorkGroupInvocations);
    // A kernel that reduces over its workgroup with subgroup arithmetic
    // needs the whole workgroup in one subgroup.
    const VkPhysicalDeviceSubgroupProperties &sg = d.subgroup;
    VkSubgroupFeatureFlags ops =
        VK_SUBGROUP_FEATURE_BASIC_BIT | VK_SUBGROUP_FEATURE_ARITHMETIC_BIT;
    bool arithmetic = (sg.supportedStages & VK_SHADER_STAGE_COMPUTE_BIT) &&
                      (sg.supportedOperations & ops) == ops;
    if (spec.subgroup && (!arithmetic || sg.subgroupSize < spec.subgroup))
      return error("%s: kernel %s: needs subgroup arithmetic in compute "
                   "shaders with subgroups of at least %u invocations; %s "
                   "has subgroups of %u (%s); compile with a "
                   "--vulkan-profile that matches the device",
                   path, name, spec.subgroup, d.props.deviceName,
                   sg.subgroupSize,
                   arithmetic ? "with arithmetic"
                              : "without arithmetic in compute shaders");
    if (spec.pushConstants * 4 > d.props.limits.maxPushConstantsSize)
      return error("%s: kernel %s: %zu bytes of push constants exceed %s's "
                   "%u",
                   path, name, spec.pushConstants * 4, d.props.deviceName,
                   d.props.limits.maxPushConstantsSize);
    VkShaderModuleCreateInfo m{VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO};
    m.codeSize = spec.bytes;
    // The global is 4-byte aligned; copy anyway for strict-aliasing safety.
    std::vector<uint32_t> words(spec.bytes / 4);
    std::memcpy(words.data(), code, spec.bytes);
    if (attune_status *s = checkCapabilities(d, path, name, words))
      return s;
    m.pCode = words.data();
    if (VkResult r = d.vkCreateShaderModule(d.device, &m, nullptr, &k.module))
      return error("%s: kernel %s: cannot create the shader module (%s)", path,
                   name, resultName(r));
    std::vector<VkDescriptorSetLayoutBinding> bindings(spec.buffers);
    for (size_t i = 0; i < spec.buffers; ++i) {
      bindings[i] = {};
      bindings[i].binding = (uint32_t)i;
      bindings[i].descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
      bindings[i].descriptorCount = 1;
      bindings[i].stageFlags = VK_SHADER_STAGE_COMPUTE_BIT;
    }
    VkDescriptorSetLayoutCreateInfo s{
        VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO};
    s.bindingCount = (uint32_t)bindings.size();
    s.pBindings = bindings.data();
    if (VkResult r =
            d.vkCreateDescriptorSetLayout(d.device, &s, nullptr, &k.setLayout))
      return error("%s: kernel %s: cannot create its descriptor set layout "
                   "(%s)",
                   path, name, resultName(r));
    VkPushConstantRange range{VK_SHADER_STAGE_COMPUTE_BIT, 0,
                              (uint32_t)(4 * spec.pushConstants)};
    VkPipelineLayoutCreateInfo l{VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO};
    l.setLayoutCount = 1;
    l.pSetLayouts = &k.setLayout;
    l.pushConstantRangeCount = spec.pushConstants ? 1 : 0;
    l.pPushConstantRanges = &range;
    if (VkResult r = d.vkCreatePipelineLayout(d.device, &l, nullptr, &k.layout))
      return error("%s: kernel %s: cannot create its pipeline layout (%s)",
                   path, name, resultName(r));
    VkComputePipelineCreateInfo c{VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO};
    c.stage.sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO;
    c.stage.stage = VK_SHADER_STAGE_COMPUTE_BIT;
    c.stage.module = k.module;
    c.stage.pName = spec.entry.c_str();
    c.layout = k.layout;
    if (VkResult r = d.vkCreateComputePipelines(d.device, d.cache, 1, &c,
                                                nullptr, &k.pipeline))
      return error("%s: kernel %s (entry %s): pipeline creation failed (%s)",
                   path, name, spec.entry.c_str(), resultName(r));
  }

  VkCommandPoolCreateInfo cp{VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO};
  cp.queueFamilyIndex = d.family;
  if (VkResult r = d.vkCreateCommandPool(d.device, &cp, nullptr, &p->commandPool))
    return error("%s: cannot create a command pool (%s)", path, resultName(r));
  VkCommandBufferAllocateInfo cb{VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO};
  cb.commandPool = p->commandPool;
  cb.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
  cb.commandBufferCount = 1;
  if (VkResult r = d.vkAllocateCommandBuffers(d.device, &cb, &p->cmd))
    return error("%s: cannot allocate a command buffer (%s)", path,
                 resultName(r));
  VkFenceCreateInfo f{VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
  if (VkResult r = d.vkCreateFence(d.device, &f, nullptr, &p->fence))
    return error("%s: cannot create a fence (%s)", path, resultName(r));

  // Globals: device-local buffers filled once through staging buffers.
  if (!globals.empty()) {
    std::lock_guard<std::mutex> lock(d.mutex);
    attune_status *failed = nullptr;
    attune_status *submitted = p->submitOnce(
        "uploading the weights", [&](VkCommandBuffer c) {
          for (const GlobalSpec &g : globals) {
            const char *host =
                static_cast<const char *>(dlsym(library, g.symbol.c_str()));
            if (!host) {
              failed =
                  error("%s: no global %s to upload", path, g.symbol.c_str());
              return;
            }
            std::string what = "weight/constant " + g.symbol;
            Buffer staging, target;
            if ((failed = p->stagingBuffer(g.bytes, /*readback=*/false,
                                           "the staging buffer of " + what,
                                           staging)))
              return;
            if ((failed = d.createBuffer(g.bytes,
                                         VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT, 0,
                                         what.c_str(), target)))
              return;
            std::memcpy(staging.mapped, host, g.bytes);
            VkBufferCopy copy{0, 0, std::max<VkDeviceSize>(g.bytes, 4)};
            d.vkCmdCopyBuffer(c, staging.buffer, target.buffer, 1, &copy);
            Region r;
            r.size = g.bytes;
            r.buffer = target;
            r.global = true;
            p->regions[reinterpret_cast<uint64_t>(host)] = r;
          }
        });
    if (failed) {
      attune_status_free(submitted);
      return failed;
    }
    if (submitted) {
      std::string message = submitted->message;
      attune_status_free(submitted);
      return error("%s: %s", path, message.c_str());
    }
  }
  if (int messages = d.validationMessages.load() - messagesBefore)
    return error("%s: the Vulkan validation layer reported %d message(s) "
                 "while loading the model",
                 path, messages);
  d.saveCache();
  *out = p.release();
  return nullptr;
}

void destroyProgram(Program *program) { delete program; }

void transferStats(uint64_t *uploaded, uint64_t *downloaded,
                   uint64_t *allocated) {
  if (uploaded)
    *uploaded = uploadedBytes.load();
  if (downloaded)
    *downloaded = downloadedBytes.load();
  if (allocated)
    *allocated = deviceBytes.load();
}

attune_status *Program::submitOnce(
    const char *what, const std::function<void(VkCommandBuffer)> &record,
    const std::function<void()> &after) {
  Device &d = *device;
  d.vkResetCommandPool(d.device, commandPool, 0);
  VkCommandBufferBeginInfo begin{VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
  begin.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
  d.vkBeginCommandBuffer(cmd, &begin);
  record(cmd);
  attune_status *status = nullptr;
  if (VkResult r = d.vkEndCommandBuffer(cmd))
    status = error("vulkan: recording %s failed (%s)", what, resultName(r));
  else if (VkResult r = submitAndWait())
    status = error("vulkan: %s failed (%s)", what, resultName(r));
  if (!status && after)
    after();
  d.vkResetCommandPool(d.device, commandPool, 0);
  for (Buffer &b : staging)
    d.destroyBuffer(b);
  staging.clear();
  return status;
}

attune_status *createResident(Program *p, const attune_tensor *initial,
                              Resident **out) {
  Device &d = *p->device;
  std::lock_guard<std::mutex> lock(d.mutex);
  uint64_t bytes =
      attune_tensor_num_elements(initial) * attune_dtype_size(initial->dtype);
  auto r = std::make_unique<Resident>();
  r->bytes = bytes;
  if (attune_status *s = d.createBuffer(
          bytes,
          VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT |
              VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT |
              VK_MEMORY_PROPERTY_HOST_COHERENT_BIT,
          VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT, "a generation state", r->buffer))
    return s;
  uploadedBytes += bytes;
  if (bytes && r->buffer.mapped) {
    std::memcpy(r->buffer.mapped, initial->data, bytes);
  } else if (bytes) {
    Buffer staging;
    attune_status *s = p->stagingBuffer(bytes, /*readback=*/false,
                                        "a generation state's upload", staging);
    if (!s) {
      std::memcpy(staging.mapped, initial->data, bytes);
      s = p->submitOnce("a generation state's upload", [&](VkCommandBuffer c) {
        VkBufferCopy copy{0, 0, bytes};
        d.vkCmdCopyBuffer(c, staging.buffer, r->buffer.buffer, 1, &copy);
      });
    }
    if (s) {
      d.destroyBuffer(r->buffer);
      return s;
    }
  }
  *out = r.get();
  p->residents.insert(r.release());
  return nullptr;
}

void destroyResident(Program *p, Resident *r) {
  if (!r)
    return;
  Device &d = *p->device;
  std::lock_guard<std::mutex> lock(d.mutex);
  p->residents.erase(r);
  d.destroyBuffer(r->buffer);
  delete r;
}

attune_status *moveResident(Program *p, Resident *r,
                            const std::vector<ByteMove> &moves) {
  Device &d = *p->device;
  std::lock_guard<std::mutex> lock(d.mutex);
  uint64_t total = 0;
  for (const ByteMove &m : moves) {
    if (m.from + m.bytes > r->bytes || m.to + m.bytes > r->bytes)
      return error("vulkan: a state move of %llu bytes is outside its buffer "
                   "of %llu",
                   (unsigned long long)m.bytes, (unsigned long long)r->bytes);
    total += m.bytes;
  }
  if (!total)
    return nullptr;
  if (r->buffer.mapped) {
    std::vector<char> copies(total);
    uint64_t at = 0;
    for (const ByteMove &m : moves) {
      std::memcpy(&copies[at], r->buffer.mapped + m.from, m.bytes);
      at += m.bytes;
    }
    at = 0;
    for (const ByteMove &m : moves) {
      std::memcpy(r->buffer.mapped + m.to, &copies[at], m.bytes);
      at += m.bytes;
    }
    return nullptr;
  }
  // Through a scratch buffer: all sources out, a barrier, all in.
  Buffer scratch;
  if (attune_status *s = d.createBuffer(total,
                                        VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT, 0,
                                        "a state move's scratch", scratch))
    return s;
  attune_status *s = p->submitOnce("a state move", [&](VkCommandBuffer c) {
    std::vector<VkBufferCopy> out, in;
    uint64_t at = 0;
    for (const ByteMove &m : moves) {
      if (!m.bytes)
        continue;
      out.push_back({m.from, at, m.bytes});
      in.push_back({at, m.to, m.bytes});
      at += m.bytes;
    }
    d.vkCmdCopyBuffer(c, r->buffer.buffer, scratch.buffer, out.size(),
                      out.data());
    VkMemoryBarrier b{VK_STRUCTURE_TYPE_MEMORY_BARRIER};
    b.srcAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT;
    b.dstAccessMask = VK_ACCESS_TRANSFER_READ_BIT;
    d.vkCmdPipelineBarrier(c, VK_PIPELINE_STAGE_TRANSFER_BIT,
                           VK_PIPELINE_STAGE_TRANSFER_BIT, 0, 1, &b, 0,
                           nullptr, 0, nullptr);
    d.vkCmdCopyBuffer(c, scratch.buffer, r->buffer.buffer, in.size(),
                      in.data());
  });
  d.destroyBuffer(scratch);
  return s;
}

std::string profileReport(const Program *program) { return program->report; }

attune_status *run(Program *p, const char *where, const RunIO &io,
                   attune_status *(*invoke)(void *, void **),
                   void *invokeContext,
                   bool profile) {
  Device &d = *p->device;
  std::lock_guard<std::mutex> lock(d.mutex);
  int messagesBefore = d.validationMessages.load();
  p->nextAddress = kAddressBase;
  p->descriptorPoolInUse = 0;
  for (VkDescriptorPool pool : p->descriptorPools)
    d.vkResetDescriptorPool(d.device, pool, 0);
  d.vkResetCommandPool(d.device, p->commandPool, 0);
  p->timed.clear();
  p->checks.clear();
  p->dispatches = 0;
  p->profiling = profile && d.timestamps;
  if (p->profiling && !p->queries) {
    p->queryCapacity = 8192;
    VkQueryPoolCreateInfo q{VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO};
    q.queryType = VK_QUERY_TYPE_TIMESTAMP;
    q.queryCount = p->queryCapacity;
    if (d.vkCreateQueryPool(d.device, &q, nullptr, &p->queries) != VK_SUCCESS)
      p->profiling = false;
  }
  VkCommandBufferBeginInfo begin{VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
  begin.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
  d.vkBeginCommandBuffer(p->cmd, &begin);
  if (p->profiling)
    d.vkCmdResetQueryPool(p->cmd, p->queries, 0, p->queryCapacity);

  auto abandon = [&](attune_status *s) {
    d.vkEndCommandBuffer(p->cmd);
    d.vkResetCommandPool(d.device, p->commandPool, 0);
    p->releaseRunRegions();
    current = nullptr;
    return s;
  };

  // Inputs: device buffers, written directly when mapped, else staged; a
  // resident buffer is bound as it is.
  std::vector<std::vector<int64_t>> descriptors(io.numInputs);
  std::vector<uint64_t> inputAddresses(io.numInputs);
  for (size_t i = 0; i < io.numInputs; ++i) {
    const attune_tensor *t = io.inputs[i];
    // SPIR-V storage buffers hold no booleans: a bool input travels as i32
    // 0 or 1 (the kernels take it so: attune-widen-booleans).
    bool widen = t->dtype == ATTUNE_BOOL;
    size_t bytes = attune_tensor_num_elements(t) *
                   (widen ? sizeof(int32_t) : attune_dtype_size(t->dtype));
    auto write = [&](char *to) {
      if (!widen) {
        std::memcpy(to, t->data, bytes);
        return;
      }
      const unsigned char *from = static_cast<const unsigned char *>(t->data);
      for (size_t e = 0; e < bytes / sizeof(int32_t); ++e) {
        int32_t v = from[e] != 0;
        std::memcpy(to + e * sizeof(int32_t), &v, sizeof(v));
      }
    };
    if (const Resident *r = io.resident ? io.resident[i] : nullptr) {
      if (r->bytes != bytes)
        return abandon(error("%s: input #%zu needs %zu bytes, its resident "
                             "buffer holds %llu",
                             where, i, bytes, (unsigned long long)r->bytes));
      uint64_t address = p->addRegion(bytes, r->buffer);
      p->regions[address].resident = true;
      inputAddresses[i] = address;
      descriptors[i] = attune::runtime::rowMajorDescriptor(address, t->shape);
      continue;
    }
    Buffer b;
    std::string what = std::string("input #") + std::to_string(i);
    if (attune_status *s = p->takeBuffer(bytes, what.c_str(), b))
      return abandon(s);
    uint64_t address = p->addRegion(bytes, b);
    inputAddresses[i] = address;
    uploadedBytes += bytes;
    if (bytes) {
      if (b.mapped) {
        write(b.mapped);
      } else {
        Buffer staging;
        if (attune_status *s = p->stagingBuffer(
                bytes, /*readback=*/false, "the staging buffer of " + what,
                staging))
          return abandon(s);
        write(staging.mapped);
        VkBufferCopy copy{0, 0, bytes};
        d.vkCmdCopyBuffer(p->cmd, staging.buffer, b.buffer, 1, &copy);
      }
    }
    descriptors[i] = attune::runtime::rowMajorDescriptor(address, t->shape);
  }
  size_t resultWords = 0;
  for (auto &[dtype, rank] : *io.outputs)
    resultWords += 3 + 2 * rank;
  std::vector<int64_t> results(resultWords, 0);
  std::vector<void *> args;
  args.push_back(results.data());
  for (auto &desc : descriptors)
    args.push_back(desc.data());

  current = p;
  if (attune_status *s = invoke(invokeContext, args.data()))
    return abandon(s);
  current = nullptr;

  // Where the host reads a device address after the fence: the mapped
  // buffer, or a staging copy recorded now.
  auto hostView = [&](uint64_t address, const char *what,
                      const char *&base) -> attune_status * {
    uint64_t offset = 0;
    const Region *r = p->find(address, offset);
    if (!r)
      return error("%s: %s is not in a device buffer", where, what);
    if (r->buffer.mapped) {
      base = r->buffer.mapped + offset;
      return nullptr;
    }
    Buffer staging;
    if (attune_status *s = p->stagingBuffer(
            r->size, /*readback=*/true,
            std::string("the readback buffer of ") + what, staging))
      return s;
    p->barrier();
    VkBufferCopy copy{0, 0, std::max<VkDeviceSize>(r->size, 4)};
    d.vkCmdCopyBuffer(p->cmd, r->buffer.buffer, staging.buffer, 1, &copy);
    base = staging.mapped + offset;
    return nullptr;
  };
  // Results, and the states updated in place (their new values go back to
  // the caller).
  std::vector<const char *> readback(io.outputs->size(), nullptr);
  size_t at = 0;
  for (size_t o = 0; o < io.outputs->size(); ++o) {
    size_t rank = (*io.outputs)[o].second;
    const int64_t *desc = &results[at];
    at += 3 + 2 * rank;
    std::string what = "output #" + std::to_string(o);
    if (attune_status *s =
            hostView((uint64_t)desc[1], what.c_str(), readback[o]))
      return abandon(s);
  }
  std::vector<const char *> stateBack(io.numInputs, nullptr);
  for (size_t i = 0; io.writeBack && i < io.numInputs; ++i) {
    if (!io.writeBack[i] || (io.resident && io.resident[i]))
      continue;
    std::string what = "state input #" + std::to_string(i);
    if (attune_status *s =
            hostView(inputAddresses[i], what.c_str(), stateBack[i]))
      return abandon(s);
  }
  VkMemoryBarrier toHost{VK_STRUCTURE_TYPE_MEMORY_BARRIER};
  toHost.srcAccessMask = VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_WRITE_BIT;
  toHost.dstAccessMask = VK_ACCESS_HOST_READ_BIT;
  d.vkCmdPipelineBarrier(
      p->cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT,
      VK_PIPELINE_STAGE_HOST_BIT, 0, 1, &toHost, 0, nullptr, 0, nullptr);
  if (VkResult r = d.vkEndCommandBuffer(p->cmd))
    return abandon(error("%s: recording the command buffer failed (%s)", where,
                         resultName(r)));
  if (VkResult r = p->submitAndWait())
    return abandon(error("%s: the device failed to run the model (%s)", where,
                         resultName(r)));

  // A failed deferred check fails the run (the first, in program order).
  attune_status *status = nullptr;
  for (auto &[flag, id] : p->checks) {
    int32_t word;
    std::memcpy(&word, flag.mapped, sizeof(word));
    if (word != 0) {
      status = error("%s: %s", where,
                     (size_t)id < p->checkMessages.size()
                         ? p->checkMessages[id].c_str()
                         : "a run-time check failed (unknown check)");
      break;
    }
  }
  // A failed run leaves the caller's states as they were (the run wrote a
  // copy).
  if (!status)
    for (size_t i = 0; i < io.numInputs; ++i)
      if (stateBack[i]) {
        size_t bytes = attune_tensor_num_elements(io.inputs[i]) *
                       attune_dtype_size(io.inputs[i]->dtype);
        std::memcpy(io.inputs[i]->data, stateBack[i], bytes);
        downloadedBytes += bytes;
      }
  at = 0;
  for (size_t o = 0; o < io.outputs->size(); ++o) {
    auto [dtype, rank] = (*io.outputs)[o];
    const int64_t *desc = &results[at];
    at += 3 + 2 * rank;
    io.results[o] = nullptr;
    if (!status && dtype == ATTUNE_BOOL) {
      // Booleans come back as i32 0 or 1 (attune-widen-booleans): one byte
      // each for the caller.
      attune_tensor *wide = nullptr;
      status = attune::runtime::copyResult(ATTUNE_I32, rank, desc, readback[o],
                                           &wide);
      if (!status)
        status = attune_tensor_create(ATTUNE_BOOL, rank, wide->shape.data(),
                                      &io.results[o]);
      if (!status) {
        const int32_t *from = static_cast<const int32_t *>(wide->data);
        unsigned char *to = static_cast<unsigned char *>(io.results[o]->data);
        for (size_t e = 0, n = attune_tensor_num_elements(wide); e < n; ++e)
          to[e] = from[e] != 0;
      }
      attune_tensor_free(wide);
    } else if (!status) {
      status = attune::runtime::copyResult(dtype, rank, desc, readback[o],
                                           &io.results[o]);
    }
    if (!status)
      downloadedBytes += attune_tensor_num_elements(io.results[o]) *
                         attune_dtype_size(dtype);
  }
  if (p->profiling) {
    size_t n = p->timed.size();
    std::vector<uint64_t> stamps(2 * n);
    if (n && d.vkGetQueryPoolResults(
                 d.device, p->queries, 0, (uint32_t)(2 * n),
                 stamps.size() * sizeof(uint64_t), stamps.data(),
                 sizeof(uint64_t),
                 VK_QUERY_RESULT_64_BIT | VK_QUERY_RESULT_WAIT_BIT) ==
                 VK_SUCCESS) {
      std::vector<double> total(p->kernels.size(), 0);
      std::vector<size_t> calls(p->kernels.size(), 0);
      double sum = 0;
      for (size_t i = 0; i < n; ++i) {
        double ns = (double)(stamps[2 * i + 1] - stamps[2 * i]) *
                    d.props.limits.timestampPeriod;
        total[p->timed[i]] += ns;
        calls[p->timed[i]] += 1;
        sum += ns;
      }
      std::vector<size_t> order(p->kernels.size());
      for (size_t i = 0; i < order.size(); ++i)
        order[i] = i;
      std::sort(order.begin(), order.end(),
                [&](size_t a, size_t b) { return total[a] > total[b]; });
      std::ostringstream out;
      char line[512];
      std::snprintf(line, sizeof(line), "%-8s %6s %10s %6s  %s\n", "kernel",
                    "calls", "GPU ms", "%", "source");
      out << line;
      for (size_t k : order) {
        if (!calls[k])
          continue;
        std::snprintf(line, sizeof(line), "#%-7zu %6zu %10.3f %5.1f%%  %s\n", k,
                      calls[k], total[k] / 1e6,
                      sum > 0 ? 100.0 * total[k] / sum : 0.0,
                      p->kernels[k].spec.where.c_str());
        out << line;
      }
      std::snprintf(line, sizeof(line), "total    %6zu %10.3f   (%zu dispatches%s)\n",
                    n, sum / 1e6, p->dispatches,
                    n < p->dispatches ? ", the rest untimed" : "");
      out << line;
      p->report = out.str();
    }
  } else if (profile) {
    p->report = "the device has no timestamp queries on its compute queue\n";
  }
  p->releaseRunRegions();
  int messages = d.validationMessages.load() - messagesBefore;
  if (!status && messages > 0)
    status = error("%s: the Vulkan validation layer reported %d message(s) "
                   "during the run",
                   where, messages);
  if (status)
    for (size_t o = 0; o < io.outputs->size(); ++o) {
      attune_tensor_free(io.results[o]);
      io.results[o] = nullptr;
    }
  return status;
}

} // namespace attune::vulkan

using namespace attune::vulkan;

//===----------------------------------------------------------------------===//
// Called by the models' host code
//===----------------------------------------------------------------------===//

namespace {
[[noreturn]] void outsideRun(const char *what) {
  std::fprintf(stderr,
               "attune: %s called outside a Vulkan model run; Vulkan models "
               "run through attune_model_run\n",
               what);
  std::abort();
}
} // namespace

namespace attune::vulkan {

void *hostAlloc(size_t size) {
  Program *p = current;
  if (!p)
    outsideRun("_mlir_memref_to_llvm_alloc");
  Buffer b;
  deviceBytes += size;
  if (attune_status *s = p->takeBuffer(size, "an intermediate tensor", b)) {
    std::string message = attune_status_message(s);
    attune_status_free(s);
    attune::runtime::failRun(message);
  }
  return reinterpret_cast<void *>(p->addRegion(size, b));
}

void hostFree(void *ptr) {
  Program *p = current;
  if (!p)
    outsideRun("_mlir_memref_to_llvm_free");
  auto it = p->regions.find(reinterpret_cast<uint64_t>(ptr));
  if (it == p->regions.end() || it->second.global || it->second.resident)
    return;
  p->giveBack(it->second.buffer);
  p->regions.erase(it);
}

void hostCheck(MemRef0<int32_t> *flag, int64_t id) {
  Program *p = current;
  if (!p)
    outsideRun("attune_vk_check");
  Device &d = *p->device;
  uint64_t offset = 0;
  const Region *r = p->find(
      (uint64_t)flag->aligned + (uint64_t)flag->offset * sizeof(int32_t),
      offset);
  if (!r)
    attune::runtime::failRun("a run-time check's flag is not device memory");
  // The flag's buffer may be reused later in the run: copy the word now.
  Buffer word;
  if (attune_status *s = p->stagingBuffer(sizeof(int32_t), /*readback=*/true,
                                          "a run-time check's readback buffer",
                                          word)) {
    std::string message = s->message;
    attune_status_free(s);
    attune::runtime::failRun(message);
  }
  p->barrier();
  VkBufferCopy copy{offset, 0, sizeof(int32_t)};
  d.vkCmdCopyBuffer(p->cmd, r->buffer.buffer, word.buffer, 1, &copy);
  p->checks.push_back({word, id});
}

void hostDispatch(int64_t id, int64_t gx, int64_t gy, int64_t gz,
                  MemRef1<int64_t> *buffers, MemRef1<int32_t> *push) {
  Program *p = current;
  if (!p)
    outsideRun("attune_vk_dispatch");
  Device &d = *p->device;
  if (id < 0 || (size_t)id >= p->kernels.size())
    attune::runtime::failRun("dispatch of unknown kernel #" +
                             std::to_string(id));
  const Kernel &k = p->kernels[id];
  const char *name = k.spec.where.c_str();
  if (gx <= 0 || gy <= 0 || gz <= 0)
    return; // empty tensors: nothing to do
  const uint32_t *max = d.props.limits.maxComputeWorkGroupCount;
  if ((uint64_t)gx > max[0] || (uint64_t)gy > max[1] || (uint64_t)gz > max[2]) {
    char message[512];
    std::snprintf(message, sizeof(message),
                  "kernel %s needs %lldx%lldx%lld workgroups; %s allows at "
                  "most %ux%ux%u",
                  name, (long long)gx, (long long)gy, (long long)gz,
                  d.props.deviceName, max[0], max[1], max[2]);
    attune::runtime::failRun(message);
  }
  if ((size_t)buffers->size != k.spec.buffers ||
      (size_t)push->size != k.spec.pushConstants)
    attune::runtime::failRun(std::string("kernel ") + name +
                             ": buffer or push-constant count disagrees with "
                             "the artifact's metadata");
  VkDescriptorSet set = p->allocateSet(k);
  if (!set)
    attune::runtime::failRun(std::string("kernel ") + name +
                             ": cannot allocate a descriptor set");
  std::vector<VkDescriptorBufferInfo> infos(k.spec.buffers);
  std::vector<VkWriteDescriptorSet> writes(k.spec.buffers);
  for (size_t i = 0; i < k.spec.buffers; ++i) {
    uint64_t address =
        (uint64_t)buffers->aligned[buffers->offset + (int64_t)i * buffers->stride];
    uint64_t offset = 0;
    const Region *r = p->find(address, offset);
    if (!r) {
      char message[512];
      std::snprintf(message, sizeof(message),
                    "kernel %s: buffer #%zu (address 0x%llx) is not device "
                    "memory",
                    name, i, (unsigned long long)address);
      attune::runtime::failRun(message);
    }
    VkDeviceSize align = d.props.limits.minStorageBufferOffsetAlignment;
    if (align && offset % align) {
      char message[512];
      std::snprintf(message, sizeof(message),
                    "kernel %s: buffer #%zu starts %llu bytes into its "
                    "allocation, not a multiple of the device's "
                    "minStorageBufferOffsetAlignment (%llu)",
                    name, i, (unsigned long long)offset,
                    (unsigned long long)align);
      attune::runtime::failRun(message);
    }
    // An empty view at the end still needs a non-empty range.
    if (offset >= r->buffer.size)
      offset = 0;
    infos[i] = {r->buffer.buffer, offset, VK_WHOLE_SIZE};
    writes[i] = {VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET};
    writes[i].dstSet = set;
    writes[i].dstBinding = (uint32_t)i;
    writes[i].descriptorCount = 1;
    writes[i].descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
    writes[i].pBufferInfo = &infos[i];
  }
  d.vkUpdateDescriptorSets(d.device, (uint32_t)writes.size(), writes.data(), 0,
                           nullptr);
  p->barrier();
  d.vkCmdBindPipeline(p->cmd, VK_PIPELINE_BIND_POINT_COMPUTE, k.pipeline);
  d.vkCmdBindDescriptorSets(p->cmd, VK_PIPELINE_BIND_POINT_COMPUTE, k.layout, 0,
                            1, &set, 0, nullptr);
  if (k.spec.pushConstants) {
    std::vector<int32_t> words(k.spec.pushConstants);
    for (size_t i = 0; i < words.size(); ++i)
      words[i] = push->aligned[push->offset + (int64_t)i * push->stride];
    d.vkCmdPushConstants(p->cmd, k.layout, VK_SHADER_STAGE_COMPUTE_BIT, 0,
                         (uint32_t)(4 * words.size()), words.data());
  }
  bool timed = p->profiling && 2 * (p->timed.size() + 1) <= p->queryCapacity;
  uint32_t query = (uint32_t)(2 * p->timed.size());
  if (timed)
    d.vkCmdWriteTimestamp(p->cmd, VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT, p->queries,
                          query);
  d.vkCmdDispatch(p->cmd, (uint32_t)gx, (uint32_t)gy, (uint32_t)gz);
  if (timed) {
    d.vkCmdWriteTimestamp(p->cmd, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT,
                          p->queries, query + 1);
    p->timed.push_back((uint32_t)id);
  }
  ++p->dispatches;
}

} // namespace attune::vulkan
