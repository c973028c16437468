#include "vk_check.h"

#include <cstdio>
#include <cstdlib>

namespace alluvium::gpu {

const char* vkResultName(VkResult r) {
    // A switch rather than vk_enum_string_helper.h: that header is not in every distribution's
    // libvulkan-dev. Only names present in all Vulkan 1.2+ headers are listed.
#define ALLUVIUM_RESULT_CASE(name)                                                                                     \
    case name: return #name;
    switch (r) {
        ALLUVIUM_RESULT_CASE(VK_SUCCESS)
        ALLUVIUM_RESULT_CASE(VK_NOT_READY)
        ALLUVIUM_RESULT_CASE(VK_TIMEOUT)
        ALLUVIUM_RESULT_CASE(VK_EVENT_SET)
        ALLUVIUM_RESULT_CASE(VK_EVENT_RESET)
        ALLUVIUM_RESULT_CASE(VK_INCOMPLETE)
        ALLUVIUM_RESULT_CASE(VK_ERROR_OUT_OF_HOST_MEMORY)
        ALLUVIUM_RESULT_CASE(VK_ERROR_OUT_OF_DEVICE_MEMORY)
        ALLUVIUM_RESULT_CASE(VK_ERROR_INITIALIZATION_FAILED)
        ALLUVIUM_RESULT_CASE(VK_ERROR_DEVICE_LOST)
        ALLUVIUM_RESULT_CASE(VK_ERROR_MEMORY_MAP_FAILED)
        ALLUVIUM_RESULT_CASE(VK_ERROR_LAYER_NOT_PRESENT)
        ALLUVIUM_RESULT_CASE(VK_ERROR_EXTENSION_NOT_PRESENT)
        ALLUVIUM_RESULT_CASE(VK_ERROR_FEATURE_NOT_PRESENT)
        ALLUVIUM_RESULT_CASE(VK_ERROR_INCOMPATIBLE_DRIVER)
        ALLUVIUM_RESULT_CASE(VK_ERROR_TOO_MANY_OBJECTS)
        ALLUVIUM_RESULT_CASE(VK_ERROR_FORMAT_NOT_SUPPORTED)
        ALLUVIUM_RESULT_CASE(VK_ERROR_FRAGMENTED_POOL)
        ALLUVIUM_RESULT_CASE(VK_ERROR_UNKNOWN)
        ALLUVIUM_RESULT_CASE(VK_ERROR_OUT_OF_POOL_MEMORY)
        ALLUVIUM_RESULT_CASE(VK_ERROR_INVALID_EXTERNAL_HANDLE)
        ALLUVIUM_RESULT_CASE(VK_ERROR_FRAGMENTATION)
        ALLUVIUM_RESULT_CASE(VK_ERROR_INVALID_OPAQUE_CAPTURE_ADDRESS)
        ALLUVIUM_RESULT_CASE(VK_PIPELINE_COMPILE_REQUIRED)
        ALLUVIUM_RESULT_CASE(VK_ERROR_SURFACE_LOST_KHR)
        ALLUVIUM_RESULT_CASE(VK_ERROR_NATIVE_WINDOW_IN_USE_KHR)
        ALLUVIUM_RESULT_CASE(VK_SUBOPTIMAL_KHR)
        ALLUVIUM_RESULT_CASE(VK_ERROR_OUT_OF_DATE_KHR)
        ALLUVIUM_RESULT_CASE(VK_ERROR_INCOMPATIBLE_DISPLAY_KHR)
        ALLUVIUM_RESULT_CASE(VK_ERROR_VALIDATION_FAILED_EXT)
        ALLUVIUM_RESULT_CASE(VK_ERROR_INVALID_SHADER_NV)
        ALLUVIUM_RESULT_CASE(VK_ERROR_NOT_PERMITTED_KHR)
        ALLUVIUM_RESULT_CASE(VK_ERROR_FULL_SCREEN_EXCLUSIVE_MODE_LOST_EXT)
        ALLUVIUM_RESULT_CASE(VK_THREAD_IDLE_KHR)
        ALLUVIUM_RESULT_CASE(VK_THREAD_DONE_KHR)
        ALLUVIUM_RESULT_CASE(VK_OPERATION_DEFERRED_KHR)
        ALLUVIUM_RESULT_CASE(VK_OPERATION_NOT_DEFERRED_KHR)
    default: break;
    }
#undef ALLUVIUM_RESULT_CASE
    // Thread-local so two threads failing at once do not overwrite each other's text.
    thread_local char unknown[32];
    std::snprintf(unknown, sizeof(unknown), "VkResult(%d)", static_cast<int>(r));
    return unknown;
}

void vkCheckFailed(const char* call, VkResult r, const char* file, int line) {
    std::fprintf(stderr, "VK_CHECK failed: %s -> %s at %s:%d\n", call, vkResultName(r), file, line);
    std::fflush(stderr);
    std::abort();
}

void assertFailed(const char* condition, const char* file, int line) {
    std::fprintf(stderr, "assertion failed: %s at %s:%d\n", condition, file, line);
    std::fflush(stderr);
    std::abort();
}

} // namespace alluvium::gpu
