// The Vulkan context: instance, (optional) validation messenger, one physical device, one
// logical device with one queue that does compute (and graphics, for the viewer), and a command
// pool. Everything else in gpu/ takes a `const Context&`.
#pragma once
#include <atomic>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include <vulkan/vulkan.h>

#include "vk_check.h"

namespace alluvium::gpu {

struct ContextOptions {
    int device_index = -1;                        // -1: best of discrete > integrated > virtual > cpu; >= 0: that index
    int spread_rank = 0;                          // a process of a run split over several (mpirun): rank r
                                                  // takes the best kind's devices in turn (round-robin)
    bool validation = false;                      // VK_LAYER_KHRONOS_validation if installed (else run without it)
    bool verbose = true;                          // print the chosen device on stderr
    std::vector<const char*> instance_extensions; // extra, e.g. surface extensions (viewer)
    std::vector<const char*> device_extensions;   // extra, e.g. VK_KHR_swapchain (viewer)
};

struct Context {
    VkInstance instance = VK_NULL_HANDLE;
    VkDebugUtilsMessengerEXT messenger = VK_NULL_HANDLE;
    VkPhysicalDevice physical = VK_NULL_HANDLE;
    VkPhysicalDeviceProperties properties{};
    VkPhysicalDeviceMemoryProperties memory{};
    VkDevice device = VK_NULL_HANDLE;
    uint32_t queue_family = 0; // COMPUTE with timestamps, GRAPHICS|COMPUTE preferred
    VkQueue queue = VK_NULL_HANDLE;
    VkCommandPool command_pool = VK_NULL_HANDLE; // RESET_COMMAND_BUFFER_BIT
    bool validation_enabled = false;
    // ERROR-severity validation messages so far (tests assert it stays 0). Shared so the
    // messenger's pointer stays valid even if the Context is copied or moved.
    std::shared_ptr<std::atomic<int>> validation_errors;
    uint64_t device_local_bytes = 0; // size of the largest DEVICE_LOCAL heap
    // shaderInt64 and shaderBufferInt64Atomics: the particles and fluvial models' accumulators.
    bool int64_atomics = false;
    // The largest single allocation (maintenance3's maxMemoryAllocationSize: 4 GiB on NVIDIA, 2 GiB
    // on lavapipe). Resources never ask for more; a test lowers it to force the split layouts.
    uint64_t max_allocation_bytes = 0;
    std::string device_name;
};

// Creates everything above; throws DeviceError when no usable device exists (no driver, no
// compute queue, no shaderFloat64, device_index out of range). Cleans up after itself on throw.
void createContext(Context& ctx, const ContextOptions& options);

// Waits for the device to go idle and destroys everything; safe on a partly created Context.
void destroyContext(Context& ctx);

// The index in `names` of the value of the environment variable `variable` (ALLUVIUM_* choices
// of a code path), or -1 when it is unset, empty or names none of them.
int environmentChoice(const char* variable, std::span<const char* const> names);

// "index: name [type]" for every physical device; empty if Vulkan is not usable.
std::vector<std::string> listDevices();

} // namespace alluvium::gpu
