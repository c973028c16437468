// The window side of the viewer: whether a display is there, and the swapchain of a surface
// (recreated on resize, FIFO when vsync is on).
#pragma once
#include <cstdint>
#include <vector>

#include <vulkan/vulkan.h>

#include "context.h"

namespace alluvium::viewer {

// glfwInit succeeded (a display is present). Leaves GLFW initialised when true.
bool initWindowSystem();
void shutdownWindowSystem();
// The instance extensions a GLFW surface needs.
std::vector<const char*> windowInstanceExtensions();

struct Swapchain {
    VkSwapchainKHR swapchain = VK_NULL_HANDLE;
    VkFormat format = VK_FORMAT_UNDEFINED;
    VkExtent2D extent{};
    std::vector<VkImage> images; // copy destinations (the viewer draws elsewhere)
};

// A UNORM BGRA/RGBA format the surface offers (the shaders encode sRGB themselves).
VkFormat chooseSurfaceFormat(const gpu::Context& ctx, VkSurfaceKHR surface);
// Creates (or recreates, replacing sc.swapchain) a swapchain of about `want` pixels.
void createSwapchain(Swapchain& sc, const gpu::Context& ctx, VkSurfaceKHR surface, VkExtent2D want, VkFormat format,
                     bool vsync);
void destroySwapchain(Swapchain& sc, const gpu::Context& ctx);

// Writes 8-bit pixels (4 bytes each, BGRA if bgra else RGBA) as an RGB PNG, atomically.
// Throws InputError if the file cannot be written.
void writeScreenshot(const std::string& path, uint32_t width, uint32_t height, const void* pixels, bool bgra);

} // namespace alluvium::viewer
