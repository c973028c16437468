#include "window.h"

#include <algorithm>
#include <cstring>
#include <span>

#define GLFW_INCLUDE_VULKAN
#include <GLFW/glfw3.h>
#include <png.h>

#include "io/atomic_file.h"
#include "io/errors.h"

namespace alluvium::viewer {

bool initWindowSystem() {
    glfwSetErrorCallback([](int, const char*) {}); // no display is a normal case, not an error
    return glfwInit() == GLFW_TRUE && glfwVulkanSupported() == GLFW_TRUE;
}

void shutdownWindowSystem() { glfwTerminate(); }

std::vector<const char*> windowInstanceExtensions() {
    uint32_t count = 0;
    const char** names = glfwGetRequiredInstanceExtensions(&count);
    return names ? std::vector<const char*>(names, names + count) : std::vector<const char*>{};
}

VkFormat chooseSurfaceFormat(const gpu::Context& ctx, VkSurfaceKHR surface) {
    uint32_t count = 0;
    VK_CHECK(vkGetPhysicalDeviceSurfaceFormatsKHR(ctx.physical, surface, &count, nullptr));
    std::vector<VkSurfaceFormatKHR> formats(count);
    VK_CHECK(vkGetPhysicalDeviceSurfaceFormatsKHR(ctx.physical, surface, &count, formats.data()));
    for (VkFormat want : {VK_FORMAT_B8G8R8A8_UNORM, VK_FORMAT_R8G8B8A8_UNORM})
        for (const VkSurfaceFormatKHR& f : formats)
            if (f.format == want && f.colorSpace == VK_COLOR_SPACE_SRGB_NONLINEAR_KHR) return want;
    if (formats.empty()) throw gpu::DeviceError("the window surface offers no formats");
    return formats[0].format;
}

void createSwapchain(Swapchain& sc, const gpu::Context& ctx, VkSurfaceKHR surface, VkExtent2D want, VkFormat format,
                     bool vsync) {
    VkSurfaceCapabilitiesKHR caps;
    VK_CHECK(vkGetPhysicalDeviceSurfaceCapabilitiesKHR(ctx.physical, surface, &caps));
    VkExtent2D extent = caps.currentExtent;
    if (extent.width == UINT32_MAX) {
        extent.width = std::clamp(want.width, caps.minImageExtent.width, caps.maxImageExtent.width);
        extent.height = std::clamp(want.height, caps.minImageExtent.height, caps.maxImageExtent.height);
    }
    uint32_t mode_count = 0;
    VK_CHECK(vkGetPhysicalDeviceSurfacePresentModesKHR(ctx.physical, surface, &mode_count, nullptr));
    std::vector<VkPresentModeKHR> modes(mode_count);
    VK_CHECK(vkGetPhysicalDeviceSurfacePresentModesKHR(ctx.physical, surface, &mode_count, modes.data()));
    VkPresentModeKHR mode = VK_PRESENT_MODE_FIFO_KHR; // always there
    if (!vsync)
        for (VkPresentModeKHR m : {VK_PRESENT_MODE_MAILBOX_KHR, VK_PRESENT_MODE_IMMEDIATE_KHR})
            if (std::find(modes.begin(), modes.end(), m) != modes.end()) {
                mode = m;
                break;
            }
    uint32_t images = std::max(caps.minImageCount + 1, 3u);
    if (caps.maxImageCount > 0) images = std::min(images, caps.maxImageCount);

    VkSwapchainCreateInfoKHR info{VK_STRUCTURE_TYPE_SWAPCHAIN_CREATE_INFO_KHR};
    info.surface = surface;
    info.minImageCount = images;
    info.imageFormat = format;
    info.imageColorSpace = VK_COLOR_SPACE_SRGB_NONLINEAR_KHR;
    info.imageExtent = extent;
    info.imageArrayLayers = 1;
    // The viewer draws into its own image and copies it here.
    if (!(caps.supportedUsageFlags & VK_IMAGE_USAGE_TRANSFER_DST_BIT))
        throw gpu::DeviceError("the window's swapchain cannot be a copy destination (try --offscreen)");
    info.imageUsage = VK_IMAGE_USAGE_TRANSFER_DST_BIT;
    info.imageSharingMode = VK_SHARING_MODE_EXCLUSIVE;
    info.preTransform = caps.currentTransform;
    info.compositeAlpha = VK_COMPOSITE_ALPHA_OPAQUE_BIT_KHR;
    info.presentMode = mode;
    info.clipped = VK_TRUE;
    info.oldSwapchain = sc.swapchain;
    VkSwapchainKHR created;
    VK_CHECK(vkCreateSwapchainKHR(ctx.device, &info, nullptr, &created));
    destroySwapchain(sc, ctx);
    sc.swapchain = created;
    sc.format = format;
    sc.extent = extent;
    uint32_t count = 0;
    VK_CHECK(vkGetSwapchainImagesKHR(ctx.device, created, &count, nullptr));
    sc.images.resize(count);
    VK_CHECK(vkGetSwapchainImagesKHR(ctx.device, created, &count, sc.images.data()));
}

void destroySwapchain(Swapchain& sc, const gpu::Context& ctx) {
    if (sc.swapchain) vkDestroySwapchainKHR(ctx.device, sc.swapchain, nullptr);
    sc = {};
}

void writeScreenshot(const std::string& path, uint32_t width, uint32_t height, const void* pixels, bool bgra) {
    png_image image;
    std::memset(&image, 0, sizeof image);
    image.version = PNG_IMAGE_VERSION;
    image.width = width;
    image.height = height;
    image.format = bgra ? PNG_FORMAT_BGRA : PNG_FORMAT_RGBA;
    // Opaque output: drop alpha by writing through a copy with alpha forced to 255.
    std::vector<uint8_t> copy(static_cast<const uint8_t*>(pixels),
                              static_cast<const uint8_t*>(pixels) + size_t(width) * height * 4);
    for (size_t i = 3; i < copy.size(); i += 4) copy[i] = 255;
    png_alloc_size_t size = 0;
    if (!png_image_write_to_memory(&image, nullptr, &size, 0, copy.data(), 0, nullptr))
        throw InputError("cannot encode the screenshot '" + path + "'");
    std::vector<std::byte> bytes(size);
    if (!png_image_write_to_memory(&image, bytes.data(), &size, 0, copy.data(), 0, nullptr))
        throw InputError("cannot encode the screenshot '" + path + "'");
    bytes.resize(size);
    writeFileAtomic(path, std::span<const std::byte>(bytes));
}

} // namespace alluvium::viewer
