// One frame of the viewer on the GPU: its uniforms, the steps, the pick, the scene, and the
// copies out of the drawn image (to the swapchain, to the host). viewer.cpp's loop drives them.
#pragma once
#include <cstdint>
#include <functional>
#include <vector>

#include <vulkan/vulkan.h>

#include "app.h"
#include "renderer.h"
#include "timer.h"

namespace alluvium::viewer {

struct Frame {
    VkCommandBuffer cmd = VK_NULL_HANDLE;
    VkFence fence = VK_NULL_HANDLE;
    VkSemaphore acquired = VK_NULL_HANDLE;
    gpu::GpuTimer timer;
    bool submitted = false;
    bool picked = false;
    std::vector<gpu::Pass> timed_passes;               // the passes of the timed step, in order
    uint32_t ts_steps = 0, ts_pick = 0, ts_scene = 0;  // timestamps after the steps, pick, scene
    uint32_t ts_copy_begin = 0, ts_copy_end = 0;       // around the copies out of the frame
    uint32_t ts_history_begin = 0, ts_history_end = 0; // around its snapshots and restores
    uint64_t submission = 0;                           // the frame's number from 1 (history.h)
};

// The uniforms of the next frame: camera, sun, brush ring, grid, overlay, picking ray, relief.
void fillUniforms(App& app, const Renderer& renderer, FrameUniforms& u, VkExtent2D extent, bool brush_visible);
// Reads what the GPU wrote for this slot's previous frame: timestamps, pick, totals.
void readBack(App& app, Frame& f, Renderer& renderer, uint32_t slot);
// Records one frame: the simulation's steps, the pick, the scene and the panel. `capture` records
// the copies out of the drawn image (recordings, screenshots): after the panel, or between the
// scene and the panel if capture_without_panel.
void recordFrame(App& app, Frame& f, Renderer& renderer, uint32_t slot, uint32_t target, int steps, BrushInput input,
                 bool capture_without_panel, const std::function<void(VkCommandBuffer)>& capture);
// Copies `image` (in `layout`) into a host buffer after the scene; the caller waits and writes.
void recordCopy(VkCommandBuffer cmd, VkImage image, VkImageLayout layout, VkExtent2D extent, const gpu::Buffer& buffer);
// Copies the drawn frame (TRANSFER_SRC after the render pass) into the acquired swapchain image
// and leaves that ready to present. The acquire semaphore is waited on at the transfer stage.
void recordPresentCopy(VkCommandBuffer cmd, VkImage frame, VkImage swapchain_image, VkExtent2D extent);

} // namespace alluvium::viewer
