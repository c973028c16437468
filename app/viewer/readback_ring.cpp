// The readback ring (readback_ring.h).
#include "readback_ring.h"

#include <algorithm>
#include <cmath>

#include "vk_check.h"

namespace alluvium::viewer {

namespace {

// Between the transfers of one frame's copy (the blit, the clear, the copy out).
void transferBarrier(VkCommandBuffer cmd, VkImage image, VkImageLayout from, VkImageLayout to, VkAccessFlags src_access,
                     VkAccessFlags dst_access) {
    gpu::imageBarrier(
        cmd, image, {from, to, VK_PIPELINE_STAGE_TRANSFER_BIT, src_access, VK_PIPELINE_STAGE_TRANSFER_BIT, dst_access});
}

// Host-cached memory if the device has it: the writer reads every byte of each frame, which is
// slow from the write-combined memory that plain HOST_VISIBLE|HOST_COHERENT often is on GPUs.
VkMemoryPropertyFlags readbackMemory(const gpu::Context& ctx, uint32_t type_bits) {
    const VkMemoryPropertyFlags cached =
        VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT | VK_MEMORY_PROPERTY_HOST_CACHED_BIT;
    for (uint32_t i = 0; i < ctx.memory.memoryTypeCount; ++i)
        if ((type_bits & (1u << i)) && (ctx.memory.memoryTypes[i].propertyFlags & cached) == cached) return cached;
    return VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
}

} // namespace

ReadbackRing::ReadbackRing(const gpu::Context& ctx, VkExtent2D size, VkFormat format, uint32_t count)
    : ctx_(ctx), extent_(size), format_(format), buffers_(count), in_use_(count, false) {
    VkFormatProperties props;
    vkGetPhysicalDeviceFormatProperties(ctx.physical, format, &props);
    if (props.optimalTilingFeatures & VK_FORMAT_FEATURE_SAMPLED_IMAGE_FILTER_LINEAR_BIT) filter_ = VK_FILTER_LINEAR;
    const VkDeviceSize bytes = VkDeviceSize(size.width) * size.height * 4;
    try {
        for (gpu::Buffer& b : buffers_) {
            VkBufferCreateInfo info{VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO};
            info.size = bytes;
            info.usage = VK_BUFFER_USAGE_TRANSFER_DST_BIT;
            info.sharingMode = VK_SHARING_MODE_EXCLUSIVE;
            VK_CHECK(vkCreateBuffer(ctx.device, &info, nullptr, &b.buffer));
            VkMemoryRequirements req;
            vkGetBufferMemoryRequirements(ctx.device, b.buffer, &req);
            b.memory =
                gpu::allocateMemory(ctx, req, readbackMemory(ctx, req.memoryTypeBits), "a recording's readback buffer");
            VK_CHECK(vkBindBufferMemory(ctx.device, b.buffer, b.memory, 0));
            VK_CHECK(vkMapMemory(ctx.device, b.memory, 0, VK_WHOLE_SIZE, 0, &b.mapped));
            b.size = bytes;
        }
    } catch (...) {
        for (gpu::Buffer& b : buffers_) gpu::destroyBuffer(b, ctx);
        throw;
    }
}

ReadbackRing::~ReadbackRing() {
    // The owner releases the ring only once no frame in flight copies into it.
    for (gpu::Buffer& b : buffers_) gpu::destroyBuffer(b, ctx_);
    gpu::destroyImage(scaled_, ctx_);
}

uint32_t ReadbackRing::inUse() const { return uint32_t(std::count(in_use_.begin(), in_use_.end(), true)); }

int ReadbackRing::acquire() {
    for (size_t i = 0; i < in_use_.size(); ++i)
        if (!in_use_[i]) {
            in_use_[i] = true;
            return int(i);
        }
    return -1;
}

void ReadbackRing::release(int index) { in_use_[size_t(index)] = false; }

void ReadbackRing::recordCopy(VkCommandBuffer cmd, int index, VkImage src, VkExtent2D src_extent) {
    VkImage from = src;
    if (src_extent.width != extent_.width || src_extent.height != extent_.height) {
        if (!scaled_.image)
            gpu::createImage2D(scaled_, ctx_, format_, extent_,
                               VK_IMAGE_USAGE_TRANSFER_SRC_BIT | VK_IMAGE_USAGE_TRANSFER_DST_BIT, 0,
                               "a recording's scaled frame");
        // The whole view, scaled to fit and centred; black bars where the aspects differ.
        const double scale =
            std::min(double(extent_.width) / src_extent.width, double(extent_.height) / src_extent.height);
        const int32_t w = std::clamp(int32_t(std::lround(src_extent.width * scale)), 1, int32_t(extent_.width));
        const int32_t h = std::clamp(int32_t(std::lround(src_extent.height * scale)), 1, int32_t(extent_.height));
        const int32_t x = (int32_t(extent_.width) - w) / 2, y = (int32_t(extent_.height) - h) / 2;
        // The previous frame's copy out of it was a transfer too: the barrier orders after it.
        transferBarrier(cmd, scaled_.image, VK_IMAGE_LAYOUT_UNDEFINED, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, 0,
                        VK_ACCESS_TRANSFER_WRITE_BIT);
        if (w != int32_t(extent_.width) || h != int32_t(extent_.height)) {
            const VkClearColorValue black{{0.0f, 0.0f, 0.0f, 1.0f}};
            const VkImageSubresourceRange all{VK_IMAGE_ASPECT_COLOR_BIT, 0, 1, 0, 1};
            vkCmdClearColorImage(cmd, scaled_.image, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, &black, 1, &all);
            transferBarrier(cmd, scaled_.image, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL,
                            VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, VK_ACCESS_TRANSFER_WRITE_BIT,
                            VK_ACCESS_TRANSFER_WRITE_BIT);
        }
        VkImageBlit blit{};
        blit.srcSubresource = blit.dstSubresource = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 0, 1};
        blit.srcOffsets[1] = {int32_t(src_extent.width), int32_t(src_extent.height), 1};
        blit.dstOffsets[0] = {x, y, 0};
        blit.dstOffsets[1] = {x + w, y + h, 1};
        vkCmdBlitImage(cmd, src, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, scaled_.image,
                       VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, 1, &blit, filter_);
        transferBarrier(cmd, scaled_.image, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL,
                        VK_ACCESS_TRANSFER_WRITE_BIT, VK_ACCESS_TRANSFER_READ_BIT);
        from = scaled_.image;
    }
    VkBufferImageCopy region{};
    region.imageSubresource = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 0, 1};
    region.imageExtent = {extent_.width, extent_.height, 1};
    vkCmdCopyImageToBuffer(cmd, from, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, buffers_[size_t(index)].buffer, 1, &region);
    gpu::memoryBarrier(cmd, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT, VK_PIPELINE_STAGE_HOST_BIT,
                       VK_ACCESS_HOST_READ_BIT);
}

} // namespace alluvium::viewer
