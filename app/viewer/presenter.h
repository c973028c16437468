// The viewer's output: a window's surface and swapchain (or none offscreen), the images frames are
// drawn into, Dear ImGui, and the frames in flight. Made whole by the constructor and attach(),
// used by acquire / newFrame / submit each frame, given back in reverse order by the destructor,
// whatever throws in between.
#pragma once
#include <cstdint>
#include <vector>

#include <vulkan/vulkan.h>

#include "frame.h"
#include "renderer.h"
#include "window.h"

struct GLFWwindow;

namespace alluvium::viewer {

struct PresenterInit {
    GLFWwindow* window = nullptr;  // null: offscreen
    VkExtent2D extent{1600, 900};  // offscreen: the images' size
    bool vsync = true;             // a window's: FIFO presentation
    uint32_t frames_in_flight = 2; // frames recorded while the GPU works on earlier ones
    uint32_t timer_capacity = 0;   // timestamps a frame writes at most
};

class Presenter {
public:
    // The surface and swapchain (a window), ImGui's context and the frames. Throws DeviceError
    // when the window cannot be presented to.
    Presenter(gpu::Context& ctx, const PresenterInit& init);
    ~Presenter();
    Presenter(const Presenter&) = delete;
    Presenter& operator=(const Presenter&) = delete;

    // The drawn images and ImGui's Vulkan backend, for `renderer` (drawn in format()).
    void attach(Renderer& renderer);

    bool windowed() const { return window_ != nullptr; }
    VkFormat format() const { return format_; }
    bool bgra() const { return format_ == VK_FORMAT_B8G8R8A8_UNORM || format_ == VK_FORMAT_B8G8R8A8_SRGB; }
    VkExtent2D extent() const { return extent_; }
    uint32_t framesInFlight() const { return uint32_t(frames_.size()); }
    Frame& frame(uint32_t slot) { return frames_[slot]; }
    const ColorTarget& target(uint32_t slot) const { return targets_[slot]; }

    // The swapchain image the frame in `slot` presents into (windowed; the slot offscreen); false
    // when the swapchain was out of date and was made anew (the frame starts over).
    bool acquire(uint32_t slot, uint32_t& image);
    // ImGui's new frame, `dt` seconds after the last.
    void newFrame(double dt);
    // Ends the frame's command buffer (windowed: after the copy of its image into the acquired
    // one), submits it, and presents; a window that changed gets a new swapchain.
    void submit(uint32_t slot, uint32_t image);
    // After a change of vsync (windowed): a new swapchain.
    void setVsync(bool vsync);

private:
    void recreate();
    void makeTargets();
    void makeSemaphores();
    void release();

    gpu::Context& ctx_;
    GLFWwindow* window_;
    bool vsync_;
    VkSurfaceKHR surface_ = VK_NULL_HANDLE;
    Swapchain swapchain_;
    VkFormat format_ = VK_FORMAT_B8G8R8A8_UNORM;
    VkExtent2D extent_;
    Renderer* renderer_ = nullptr;
    std::vector<ColorTarget> targets_; // one per frame in flight
    std::vector<Frame> frames_;
    std::vector<VkSemaphore> rendered_; // one per swapchain image: its present may still wait on it
    VkDescriptorPool imgui_pool_ = VK_NULL_HANDLE;
    bool imgui_glfw_ = false, imgui_vulkan_ = false;
};

} // namespace alluvium::viewer
