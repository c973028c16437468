// Error handling for Vulkan calls. Two kinds of failure, kept apart on purpose:
// - a Vulkan call that should never fail (a bug, a lost device): VK_CHECK prints the call and
//   aborts in every build type, so a debugger or core dump lands on the exact line;
// - a failure a person can act on (no driver, no suitable device, out of device memory):
//   DeviceError, which the CLI prints as one line before exiting with status 3.
#pragma once
#include <stdexcept>

#include <vulkan/vulkan.h>

namespace alluvium::gpu {

// The enum name of a VkResult ("VK_ERROR_DEVICE_LOST"), or "VkResult(<n>)" if unknown.
const char* vkResultName(VkResult r);

// Prints "VK_CHECK failed: <call> -> <name> at file:line" to stderr and aborts.
[[noreturn]] void vkCheckFailed(const char* call, VkResult r, const char* file, int line);

// Prints "assertion failed: <condition> at file:line" to stderr and aborts.
[[noreturn]] void assertFailed(const char* condition, const char* file, int line);

// A device failure the user can act on; what() is one line meant for the user.
struct DeviceError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

} // namespace alluvium::gpu

#define VK_CHECK(call)                                                                                                 \
    do {                                                                                                               \
        const VkResult vk_check_result_ = (call);                                                                      \
        if (vk_check_result_ != VK_SUCCESS)                                                                            \
            ::alluvium::gpu::vkCheckFailed(#call, vk_check_result_, __FILE__, __LINE__);                               \
    } while (0)

// Like assert(), but active in Release too: guards API misuse that would otherwise overrun
// a buffer or hang the GPU (wrong byte count, too many timestamps).
#define ALLUVIUM_ASSERT(condition)                                                                                     \
    do {                                                                                                               \
        if (!(condition)) ::alluvium::gpu::assertFailed(#condition, __FILE__, __LINE__);                               \
    } while (0)
