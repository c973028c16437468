// A ring of host-visible buffers that drawn frames are copied into on the GPU, read by the host
// a frame or two later (after that frame's fence) so that the loop never waits for the GPU.
// Each buffer is free, or in use (by the GPU, then by a writer) until released.
#pragma once
#include <cstdint>
#include <vector>

#include <vulkan/vulkan.h>

#include "context.h"
#include "resources.h"

namespace alluvium::viewer {

class ReadbackRing {
public:
    // `count` buffers of size.width x size.height 8-bit pixels of `format` (BGRA or RGBA UNORM).
    ReadbackRing(const gpu::Context& ctx, VkExtent2D size, VkFormat format, uint32_t count);
    ~ReadbackRing();
    ReadbackRing(const ReadbackRing&) = delete;
    ReadbackRing& operator=(const ReadbackRing&) = delete;

    VkExtent2D extent() const { return extent_; }
    uint32_t count() const { return uint32_t(buffers_.size()); }
    uint32_t inUse() const;

    // A free buffer, now in use; -1 if every buffer is in use.
    int acquire();
    void release(int index);

    // Records the copy of `src` (an image of `src_extent` in TRANSFER_SRC_OPTIMAL, written by a
    // render pass whose dependency makes it readable by transfers) into buffer `index`: as is if
    // the sizes match, else scaled to fit with black bars where the aspect differs. `src` stays in
    // TRANSFER_SRC_OPTIMAL. The host may read the pixels after the command buffer's fence.
    void recordCopy(VkCommandBuffer cmd, int index, VkImage src, VkExtent2D src_extent);
    const void* pixels(int index) const { return buffers_[size_t(index)].mapped; }

private:
    const gpu::Context& ctx_;
    VkExtent2D extent_;
    VkFormat format_;
    VkFilter filter_ = VK_FILTER_NEAREST;
    std::vector<gpu::Buffer> buffers_;
    std::vector<bool> in_use_;
    gpu::Image scaled_; // the blit's target when the sizes differ (made on first use)
};

} // namespace alluvium::viewer
