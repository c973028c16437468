// Buffers, storage images and the transfers between them and the host. One allocation per
// resource: the simulation owns a few dozen, so a sub-allocator would buy nothing.
#pragma once
#include <cstddef>

#include <vulkan/vulkan.h>

#include "context.h"

namespace alluvium::gpu {

struct Buffer {
    VkBuffer buffer = VK_NULL_HANDLE;
    VkDeviceMemory memory = VK_NULL_HANDLE;
    VkDeviceSize size = 0;
    void* mapped = nullptr; // set for host-visible buffers (mapped for their whole life)
};

struct Image {
    VkImage image = VK_NULL_HANDLE;
    VkImageView view = VK_NULL_HANDLE;
    VkDeviceMemory memory = VK_NULL_HANDLE;
    VkFormat format = VK_FORMAT_UNDEFINED;
    uint32_t width = 0, height = 0;
};

// host_visible: HOST_VISIBLE|HOST_COHERENT, persistently mapped; else DEVICE_LOCAL.
// TRANSFER_SRC|TRANSFER_DST are always added. Throws DeviceError when out of memory.
void createBuffer(Buffer& b, const Context& ctx, VkDeviceSize size, VkBufferUsageFlags usage, bool host_visible);
// Frees the buffer and resets `b`; no-op on an empty Buffer.
void destroyBuffer(Buffer& b, const Context& ctx);

// 2D, one mip, STORAGE|SAMPLED|TRANSFER_SRC|TRANSFER_DST, DEVICE_LOCAL; returned in
// VK_IMAGE_LAYOUT_GENERAL (its layout for life) and cleared to zero. Throws DeviceError when
// out of memory, too large for the device, or the format cannot be a storage image.
void createStorageImage(Image& img, const Context& ctx, uint32_t width, uint32_t height, VkFormat format);
// Frees the image and resets `img`; no-op on an empty Image.
void destroyImage(Image& img, const Context& ctx);
// A 2D image of one mip and layer, optimal tiling, DEVICE_LOCAL, left in the UNDEFINED layout,
// with a view of `aspect` (render targets, depth; 0: no view, for an image only transfers use). `what` names it in an
// out-of-memory message ("a render target").
void createImage2D(Image& img, const Context& ctx, VkFormat format, VkExtent2D extent, VkImageUsageFlags usage,
                   VkImageAspectFlags aspect, const char* what);

// One image's layout transition and memory dependency, over its whole `aspect` range.
struct ImageTransition {
    VkImageLayout from, to;
    VkPipelineStageFlags src_stage;
    VkAccessFlags src_access;
    VkPipelineStageFlags dst_stage;
    VkAccessFlags dst_access;
    VkImageAspectFlags aspect = VK_IMAGE_ASPECT_COLOR_BIT;
};
void imageBarrier(VkCommandBuffer cmd, VkImage image, const ImageTransition& t);

// Bytes per texel of the formats Alluvium uses (R32F 4, RG32F 8, RGBA32F 16, ...); 0 if unknown.
size_t formatTexelBytes(VkFormat format);

// Whole image from/to tightly packed rows (bytes == width*height*texel); blocks until done.
void uploadImage(const Context& ctx, const Image& img, const void* data, size_t bytes);
void downloadImage(const Context& ctx, const Image& img, void* data, size_t bytes);

// memcpy if host-visible (the GPU work touching it must be finished), else a staging copy
// that blocks until done.
void uploadBuffer(const Context& ctx, const Buffer& dst, const void* data, size_t bytes, VkDeviceSize offset = 0);
void downloadBuffer(const Context& ctx, const Buffer& src, void* data, size_t bytes, VkDeviceSize offset = 0);

// A primary command buffer from ctx.command_pool, begun with ONE_TIME_SUBMIT.
VkCommandBuffer beginOneShot(const Context& ctx);
// Ends `cmd`, submits it with a fence, waits, frees it. Its writes are then visible to the host.
void endOneShot(const Context& ctx, VkCommandBuffer cmd);
// Ends, submits and waits for `cmd` as endOneShot does, then begins it again (empty, nothing
// bound): a recording that must hand results to the host half-way goes on in the same buffer.
void submitAndRestart(const Context& ctx, VkCommandBuffer cmd);

// Compute/transfer writes -> compute/transfer reads and writes: between dependent dispatches.
void computeBarrier(VkCommandBuffer cmd);
// One global memory barrier.
void memoryBarrier(VkCommandBuffer cmd, VkPipelineStageFlags src_stage, VkAccessFlags src_access,
                   VkPipelineStageFlags dst_stage, VkAccessFlags dst_access);

// Memory for `req` with the `required` properties (any allowed type if none has them). A size
// the device cannot hold throws DeviceError naming `what` ("a render target").
VkDeviceMemory allocateMemory(const Context& ctx, const VkMemoryRequirements& req, VkMemoryPropertyFlags required,
                              const char* what);

} // namespace alluvium::gpu
