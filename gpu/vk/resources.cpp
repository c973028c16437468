// [SECTION] memory: choosing a memory type, allocating, reporting out-of-memory
// [SECTION] buffers and images
// [SECTION] transfers, one-shot submits, barriers
#include "resources.h"

#include <cstdio>
#include <cstring>
#include <string>

namespace alluvium::gpu {

namespace {

// ---------------------------------------------------------------------------------------------
// [SECTION] memory
// ---------------------------------------------------------------------------------------------

std::string bytesText(uint64_t bytes) {
    char text[64];
    std::snprintf(text, sizeof(text), "%llu bytes (%.1f MiB)", static_cast<unsigned long long>(bytes),
                  static_cast<double>(bytes) / (1024.0 * 1024.0));
    return text;
}

// The message a person sees when a grid does not fit: what was asked and what the device has.
[[noreturn]] void throwOutOfMemory(const Context& ctx, uint64_t requested, const char* what,
                                   const std::string& detail) {
    throw DeviceError(std::string("out of device memory: ") + what + " requested " + bytesText(requested) +
                      "; the device-local heap of " + ctx.device_name + " is " + bytesText(ctx.device_local_bytes) +
                      detail);
}

// The first memory type allowed by `type_bits` with all of `required`; UINT32_MAX if none.
uint32_t findMemoryType(const Context& ctx, uint32_t type_bits, VkMemoryPropertyFlags required) {
    for (uint32_t i = 0; i < ctx.memory.memoryTypeCount; ++i)
        if ((type_bits & (1u << i)) && (ctx.memory.memoryTypes[i].propertyFlags & required) == required) return i;
    return UINT32_MAX;
}

// Transfers here may follow or precede any GPU work on the image or buffer, so they are fenced
// off with barriers against all commands on both sides; they are not on the per-step path.
void barrierBeforeTransfer(VkCommandBuffer cmd, VkAccessFlags transfer_access) {
    memoryBarrier(cmd, VK_PIPELINE_STAGE_ALL_COMMANDS_BIT, VK_ACCESS_MEMORY_WRITE_BIT, VK_PIPELINE_STAGE_TRANSFER_BIT,
                  transfer_access);
}

void barrierAfterTransfer(VkCommandBuffer cmd) {
    memoryBarrier(cmd, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT, VK_PIPELINE_STAGE_ALL_COMMANDS_BIT,
                  VK_ACCESS_MEMORY_READ_BIT | VK_ACCESS_MEMORY_WRITE_BIT);
}

VkBufferImageCopy wholeImage(const Image& img) {
    VkBufferImageCopy region{};
    region.bufferOffset = 0;
    region.bufferRowLength = 0; // tightly packed
    region.bufferImageHeight = 0;
    region.imageSubresource = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 0, 1};
    region.imageExtent = {img.width, img.height, 1};
    return region;
}

void checkImageBytes(const Image& img, size_t bytes) {
    const size_t texel = formatTexelBytes(img.format);
    ALLUVIUM_ASSERT(texel != 0);
    ALLUVIUM_ASSERT(bytes == static_cast<size_t>(img.width) * img.height * texel);
}

} // namespace

// Allocates memory for `req`; sizes the device cannot hold are turned into a DeviceError up
// front, because some drivers overcommit and fail later (or crash) instead of returning OOM.
VkDeviceMemory allocateMemory(const Context& ctx, const VkMemoryRequirements& req, VkMemoryPropertyFlags required,
                              const char* what) {
    uint32_t type = findMemoryType(ctx, req.memoryTypeBits, required);
    // The spec guarantees a DEVICE_LOCAL type for buffers and images and a HOST_VISIBLE|
    // HOST_COHERENT type for buffers; the fallback only guards against odd drivers.
    if (type == UINT32_MAX) type = findMemoryType(ctx, req.memoryTypeBits, 0);
    ALLUVIUM_ASSERT(type != UINT32_MAX);
    const uint32_t heap = ctx.memory.memoryTypes[type].heapIndex;
    if (req.size > ctx.memory.memoryHeaps[heap].size) throwOutOfMemory(ctx, req.size, what, "");
    const VkDeviceSize max_allocation = ctx.max_allocation_bytes;
    if (max_allocation > 0 && req.size > max_allocation)
        throwOutOfMemory(ctx, req.size, what, ", and one allocation may be at most " + bytesText(max_allocation));

    VkMemoryAllocateInfo info{};
    info.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO;
    info.allocationSize = req.size;
    info.memoryTypeIndex = type;
    VkDeviceMemory memory = VK_NULL_HANDLE;
    const VkResult result = vkAllocateMemory(ctx.device, &info, nullptr, &memory);
    if (result == VK_ERROR_OUT_OF_DEVICE_MEMORY || result == VK_ERROR_OUT_OF_HOST_MEMORY)
        throwOutOfMemory(ctx, req.size, what, "");
    VK_CHECK(result);
    return memory;
}

void memoryBarrier(VkCommandBuffer cmd, VkPipelineStageFlags src_stage, VkAccessFlags src_access,
                   VkPipelineStageFlags dst_stage, VkAccessFlags dst_access) {
    VkMemoryBarrier barrier{};
    barrier.sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER;
    barrier.srcAccessMask = src_access;
    barrier.dstAccessMask = dst_access;
    vkCmdPipelineBarrier(cmd, src_stage, dst_stage, 0, 1, &barrier, 0, nullptr, 0, nullptr);
}

// -------------------------------------------------------------------------------------------------
// [SECTION] buffers and images
// -------------------------------------------------------------------------------------------------

void createBuffer(Buffer& b, const Context& ctx, VkDeviceSize size, VkBufferUsageFlags usage, bool host_visible) {
    ALLUVIUM_ASSERT(size > 0);
    b = Buffer{};
    VkBufferCreateInfo info{};
    info.sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO;
    info.size = size;
    info.usage = usage | VK_BUFFER_USAGE_TRANSFER_SRC_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT;
    info.sharingMode = VK_SHARING_MODE_EXCLUSIVE;
    const VkResult result = vkCreateBuffer(ctx.device, &info, nullptr, &b.buffer);
    if (result == VK_ERROR_OUT_OF_DEVICE_MEMORY || result == VK_ERROR_OUT_OF_HOST_MEMORY)
        throwOutOfMemory(ctx, size, "a buffer", "");
    VK_CHECK(result);

    VkMemoryRequirements req{};
    vkGetBufferMemoryRequirements(ctx.device, b.buffer, &req);
    const VkMemoryPropertyFlags required =
        host_visible ? VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT
                     : VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT;
    try {
        b.memory = allocateMemory(ctx, req, required, "a buffer");
    } catch (...) {
        vkDestroyBuffer(ctx.device, b.buffer, nullptr);
        b = Buffer{};
        throw;
    }
    VK_CHECK(vkBindBufferMemory(ctx.device, b.buffer, b.memory, 0));
    if (host_visible) VK_CHECK(vkMapMemory(ctx.device, b.memory, 0, VK_WHOLE_SIZE, 0, &b.mapped));
    b.size = size;
}

void destroyBuffer(Buffer& b, const Context& ctx) {
    if (b.mapped) vkUnmapMemory(ctx.device, b.memory);
    if (b.buffer) vkDestroyBuffer(ctx.device, b.buffer, nullptr);
    if (b.memory) vkFreeMemory(ctx.device, b.memory, nullptr);
    b = Buffer{};
}

void createStorageImage(Image& img, const Context& ctx, uint32_t width, uint32_t height, VkFormat format) {
    ALLUVIUM_ASSERT(width > 0 && height > 0);
    img = Image{};
    const VkImageUsageFlags usage = VK_IMAGE_USAGE_STORAGE_BIT | VK_IMAGE_USAGE_SAMPLED_BIT |
                                    VK_IMAGE_USAGE_TRANSFER_SRC_BIT | VK_IMAGE_USAGE_TRANSFER_DST_BIT;
    // Asked before creating, so a grid too large for the device is a message, not a crash.
    VkImageFormatProperties limits{};
    const VkResult supported = vkGetPhysicalDeviceImageFormatProperties(ctx.physical, format, VK_IMAGE_TYPE_2D,
                                                                        VK_IMAGE_TILING_OPTIMAL, usage, 0, &limits);
    if (supported != VK_SUCCESS)
        throw DeviceError(ctx.device_name + " cannot use format " + std::to_string(static_cast<int>(format)) +
                          " as a storage image (" + vkResultName(supported) + ")");
    const uint64_t image_bytes = static_cast<uint64_t>(width) * height * formatTexelBytes(format);
    if (image_bytes > ctx.device_local_bytes) throwOutOfMemory(ctx, image_bytes, "an image", "");
    if (image_bytes > limits.maxResourceSize)
        throwOutOfMemory(ctx, image_bytes, "an image",
                         ", and one image may be at most " + bytesText(limits.maxResourceSize));
    if (width > limits.maxExtent.width || height > limits.maxExtent.height)
        throw DeviceError("a " + std::to_string(width) + " x " + std::to_string(height) +
                          " grid exceeds the largest image " + ctx.device_name + " supports (" +
                          std::to_string(limits.maxExtent.width) + " x " + std::to_string(limits.maxExtent.height) +
                          ")");

    createImage2D(img, ctx, format, {width, height}, usage, VK_IMAGE_ASPECT_COLOR_BIT, "an image");

    // GENERAL for life: compute reads and writes it as a storage image, transfers and sampling
    // are valid in GENERAL too, so no pass ever needs a layout transition.
    VkCommandBuffer cmd = beginOneShot(ctx);
    imageBarrier(cmd, img.image,
                 {VK_IMAGE_LAYOUT_UNDEFINED, VK_IMAGE_LAYOUT_GENERAL, VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT, 0,
                  VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT});
    const VkClearColorValue zero{}; // all-zero bits: 0.0f for float formats, 0 for integer ones
    const VkImageSubresourceRange all{VK_IMAGE_ASPECT_COLOR_BIT, 0, 1, 0, 1};
    vkCmdClearColorImage(cmd, img.image, VK_IMAGE_LAYOUT_GENERAL, &zero, 1, &all);
    barrierAfterTransfer(cmd);
    endOneShot(ctx, cmd);
}

void createImage2D(Image& img, const Context& ctx, VkFormat format, VkExtent2D extent, VkImageUsageFlags usage,
                   VkImageAspectFlags aspect, const char* what) {
    img = Image{};
    VkImageCreateInfo info{VK_STRUCTURE_TYPE_IMAGE_CREATE_INFO};
    info.imageType = VK_IMAGE_TYPE_2D;
    info.format = format;
    info.extent = {extent.width, extent.height, 1};
    info.mipLevels = 1;
    info.arrayLayers = 1;
    info.samples = VK_SAMPLE_COUNT_1_BIT;
    info.tiling = VK_IMAGE_TILING_OPTIMAL;
    info.usage = usage;
    info.sharingMode = VK_SHARING_MODE_EXCLUSIVE;
    info.initialLayout = VK_IMAGE_LAYOUT_UNDEFINED;
    const VkResult result = vkCreateImage(ctx.device, &info, nullptr, &img.image);
    const uint64_t bytes = uint64_t(extent.width) * extent.height * formatTexelBytes(format);
    if (result == VK_ERROR_OUT_OF_DEVICE_MEMORY || result == VK_ERROR_OUT_OF_HOST_MEMORY)
        throwOutOfMemory(ctx, bytes, what, "");
    VK_CHECK(result);
    VkMemoryRequirements req{};
    vkGetImageMemoryRequirements(ctx.device, img.image, &req);
    try {
        img.memory = allocateMemory(ctx, req, VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT, what);
    } catch (...) {
        vkDestroyImage(ctx.device, img.image, nullptr);
        img = Image{};
        throw;
    }
    VK_CHECK(vkBindImageMemory(ctx.device, img.image, img.memory, 0));
    if (aspect != 0) {
        VkImageViewCreateInfo view{VK_STRUCTURE_TYPE_IMAGE_VIEW_CREATE_INFO};
        view.image = img.image;
        view.viewType = VK_IMAGE_VIEW_TYPE_2D;
        view.format = format;
        view.subresourceRange = {aspect, 0, 1, 0, 1};
        VK_CHECK(vkCreateImageView(ctx.device, &view, nullptr, &img.view));
    }
    img.format = format;
    img.width = extent.width;
    img.height = extent.height;
}

void imageBarrier(VkCommandBuffer cmd, VkImage image, const ImageTransition& t) {
    VkImageMemoryBarrier b{VK_STRUCTURE_TYPE_IMAGE_MEMORY_BARRIER};
    b.srcAccessMask = t.src_access;
    b.dstAccessMask = t.dst_access;
    b.oldLayout = t.from;
    b.newLayout = t.to;
    b.srcQueueFamilyIndex = b.dstQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED;
    b.image = image;
    b.subresourceRange = {t.aspect, 0, 1, 0, 1};
    vkCmdPipelineBarrier(cmd, t.src_stage, t.dst_stage, 0, 0, nullptr, 0, nullptr, 1, &b);
}

void destroyImage(Image& img, const Context& ctx) {
    if (img.view) vkDestroyImageView(ctx.device, img.view, nullptr);
    if (img.image) vkDestroyImage(ctx.device, img.image, nullptr);
    if (img.memory) vkFreeMemory(ctx.device, img.memory, nullptr);
    img = Image{};
}

size_t formatTexelBytes(VkFormat format) {
    switch (format) {
    case VK_FORMAT_R8_UNORM:
    case VK_FORMAT_R8_UINT: return 1;
    case VK_FORMAT_R16_SFLOAT:
    case VK_FORMAT_R16_UNORM:
    case VK_FORMAT_R16_UINT:
    case VK_FORMAT_R8G8_UNORM: return 2;
    case VK_FORMAT_R32_SFLOAT:
    case VK_FORMAT_R32_UINT:
    case VK_FORMAT_R32_SINT:
    case VK_FORMAT_R16G16_SFLOAT:
    case VK_FORMAT_R16G16_UNORM:
    case VK_FORMAT_R8G8B8A8_UNORM:
    case VK_FORMAT_R8G8B8A8_SRGB:
    case VK_FORMAT_B8G8R8A8_UNORM:
    case VK_FORMAT_B8G8R8A8_SRGB: return 4;
    case VK_FORMAT_R32G32_SFLOAT:
    case VK_FORMAT_R32G32_UINT:
    case VK_FORMAT_R32G32_SINT:
    case VK_FORMAT_R16G16B16A16_SFLOAT:
    case VK_FORMAT_R16G16B16A16_UNORM: return 8;
    case VK_FORMAT_R32G32B32A32_SFLOAT:
    case VK_FORMAT_R32G32B32A32_UINT:
    case VK_FORMAT_R32G32B32A32_SINT: return 16;
    default: return 0;
    }
}

// -------------------------------------------------------------------------------------------------
// [SECTION] transfers, one-shot submits, barriers
// -------------------------------------------------------------------------------------------------

void uploadImage(const Context& ctx, const Image& img, const void* data, size_t bytes) {
    checkImageBytes(img, bytes);
    Buffer staging;
    createBuffer(staging, ctx, bytes, 0, true);
    std::memcpy(staging.mapped, data, bytes);
    VkCommandBuffer cmd = beginOneShot(ctx);
    barrierBeforeTransfer(cmd, VK_ACCESS_TRANSFER_WRITE_BIT);
    const VkBufferImageCopy region = wholeImage(img);
    vkCmdCopyBufferToImage(cmd, staging.buffer, img.image, VK_IMAGE_LAYOUT_GENERAL, 1, &region);
    barrierAfterTransfer(cmd);
    endOneShot(ctx, cmd);
    destroyBuffer(staging, ctx);
}

void downloadImage(const Context& ctx, const Image& img, void* data, size_t bytes) {
    checkImageBytes(img, bytes);
    Buffer staging;
    createBuffer(staging, ctx, bytes, 0, true);
    VkCommandBuffer cmd = beginOneShot(ctx);
    barrierBeforeTransfer(cmd, VK_ACCESS_TRANSFER_READ_BIT);
    const VkBufferImageCopy region = wholeImage(img);
    vkCmdCopyImageToBuffer(cmd, img.image, VK_IMAGE_LAYOUT_GENERAL, staging.buffer, 1, &region);
    endOneShot(ctx, cmd); // ends with a transfer -> host barrier
    std::memcpy(data, staging.mapped, bytes);
    destroyBuffer(staging, ctx);
}

void uploadBuffer(const Context& ctx, const Buffer& dst, const void* data, size_t bytes, VkDeviceSize offset) {
    ALLUVIUM_ASSERT(offset + bytes <= dst.size);
    if (bytes == 0) return;
    if (dst.mapped) {
        // HOST_COHERENT: the write is visible to every later submit without a flush.
        std::memcpy(static_cast<char*>(dst.mapped) + offset, data, bytes);
        return;
    }
    Buffer staging;
    createBuffer(staging, ctx, bytes, 0, true);
    std::memcpy(staging.mapped, data, bytes);
    VkCommandBuffer cmd = beginOneShot(ctx);
    barrierBeforeTransfer(cmd, VK_ACCESS_TRANSFER_WRITE_BIT);
    const VkBufferCopy region{0, offset, bytes};
    vkCmdCopyBuffer(cmd, staging.buffer, dst.buffer, 1, &region);
    barrierAfterTransfer(cmd);
    endOneShot(ctx, cmd);
    destroyBuffer(staging, ctx);
}

void downloadBuffer(const Context& ctx, const Buffer& src, void* data, size_t bytes, VkDeviceSize offset) {
    ALLUVIUM_ASSERT(offset + bytes <= src.size);
    if (bytes == 0) return;
    if (src.mapped) {
        std::memcpy(data, static_cast<const char*>(src.mapped) + offset, bytes);
        return;
    }
    Buffer staging;
    createBuffer(staging, ctx, bytes, 0, true);
    VkCommandBuffer cmd = beginOneShot(ctx);
    barrierBeforeTransfer(cmd, VK_ACCESS_TRANSFER_READ_BIT);
    const VkBufferCopy region{offset, 0, bytes};
    vkCmdCopyBuffer(cmd, src.buffer, staging.buffer, 1, &region);
    endOneShot(ctx, cmd);
    std::memcpy(data, staging.mapped, bytes);
    destroyBuffer(staging, ctx);
}

VkCommandBuffer beginOneShot(const Context& ctx) {
    VkCommandBufferAllocateInfo info{};
    info.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO;
    info.commandPool = ctx.command_pool;
    info.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
    info.commandBufferCount = 1;
    VkCommandBuffer cmd = VK_NULL_HANDLE;
    VK_CHECK(vkAllocateCommandBuffers(ctx.device, &info, &cmd));
    VkCommandBufferBeginInfo begin{};
    begin.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO;
    begin.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
    VK_CHECK(vkBeginCommandBuffer(cmd, &begin));
    return cmd;
}

namespace {

void submitAndWait(const Context& ctx, VkCommandBuffer cmd) {
    // Waiting on the fence alone does not make device writes visible to the host; this
    // barrier does, so results of any one-shot (and host-visible buffers) can be read at once.
    memoryBarrier(cmd, VK_PIPELINE_STAGE_ALL_COMMANDS_BIT, VK_ACCESS_MEMORY_WRITE_BIT, VK_PIPELINE_STAGE_HOST_BIT,
                  VK_ACCESS_HOST_READ_BIT);
    VK_CHECK(vkEndCommandBuffer(cmd));
    VkFenceCreateInfo fence_info{};
    fence_info.sType = VK_STRUCTURE_TYPE_FENCE_CREATE_INFO;
    VkFence fence = VK_NULL_HANDLE;
    VK_CHECK(vkCreateFence(ctx.device, &fence_info, nullptr, &fence));
    VkSubmitInfo submit{};
    submit.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO;
    submit.commandBufferCount = 1;
    submit.pCommandBuffers = &cmd;
    VK_CHECK(vkQueueSubmit(ctx.queue, 1, &submit, fence));
    VK_CHECK(vkWaitForFences(ctx.device, 1, &fence, VK_TRUE, UINT64_MAX));
    vkDestroyFence(ctx.device, fence, nullptr);
}

} // namespace

void endOneShot(const Context& ctx, VkCommandBuffer cmd) {
    submitAndWait(ctx, cmd);
    vkFreeCommandBuffers(ctx.device, ctx.command_pool, 1, &cmd);
}

void submitAndRestart(const Context& ctx, VkCommandBuffer cmd) {
    submitAndWait(ctx, cmd);
    VK_CHECK(vkResetCommandBuffer(cmd, 0));
    VkCommandBufferBeginInfo begin{};
    begin.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO;
    begin.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
    VK_CHECK(vkBeginCommandBuffer(cmd, &begin));
}

void computeBarrier(VkCommandBuffer cmd) {
    // One global barrier rather than per-image ones: every pass reads what the previous wrote,
    // and on all current drivers a global barrier costs the same as an image barrier.
    const VkPipelineStageFlags stages = VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT;
    // The fluvial passes write the arguments of indirect dispatches: those are read too.
    memoryBarrier(cmd, stages, VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_WRITE_BIT,
                  stages | VK_PIPELINE_STAGE_DRAW_INDIRECT_BIT,
                  VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_READ_BIT |
                      VK_ACCESS_TRANSFER_WRITE_BIT | VK_ACCESS_INDIRECT_COMMAND_READ_BIT);
}

} // namespace alluvium::gpu
