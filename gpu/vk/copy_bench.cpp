#include "copy_bench.h"

#include <algorithm>
#include <array>
#include <string>

#include "pipeline.h"
#include "resources.h"
#include "timer.h"

namespace alluvium::gpu {

namespace {

constexpr uint32_t kImageWidth = 4096; // texels per row of the copied images

struct CopyKernels {
    VkDescriptorSetLayout set_layout = VK_NULL_HANDLE;
    VkPipelineLayout layout = VK_NULL_HANDLE;
    VkDescriptorPool pool = VK_NULL_HANDLE;
    VkDescriptorSet set = VK_NULL_HANDLE;
    VkPipeline buffer_copy = VK_NULL_HANDLE, image_copy = VK_NULL_HANDLE;

    explicit CopyKernels(const Context& ctx) : ctx_(ctx) {
        const VkDescriptorSetLayoutBinding bindings[4] = {
            {0, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 1, VK_SHADER_STAGE_COMPUTE_BIT, nullptr},
            {1, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 1, VK_SHADER_STAGE_COMPUTE_BIT, nullptr},
            {2, VK_DESCRIPTOR_TYPE_STORAGE_IMAGE, 1, VK_SHADER_STAGE_COMPUTE_BIT, nullptr},
            {3, VK_DESCRIPTOR_TYPE_STORAGE_IMAGE, 1, VK_SHADER_STAGE_COMPUTE_BIT, nullptr}};
        set_layout = createSetLayout(ctx, bindings, 4);
        layout = createComputeLayout(ctx, set_layout, sizeof(uint32_t));
        pool = createDescriptorPool(ctx, 1,
                                    {{VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 2}, {VK_DESCRIPTOR_TYPE_STORAGE_IMAGE, 2}});
        allocateSets(ctx, pool, set_layout, 1, &set);
        buffer_copy = loadComputePipeline(ctx, layout, "copy_buffer");
        image_copy = loadComputePipeline(ctx, layout, "copy_image");
    }
    ~CopyKernels() { destroyCompute(ctx_, {buffer_copy, image_copy}, pool, layout, set_layout); }
    CopyKernels(const CopyKernels&) = delete;
    CopyKernels& operator=(const CopyKernels&) = delete;

private:
    const Context& ctx_;
};

uint64_t maxStorageBufferRange(const Context& ctx) { return ctx.properties.limits.maxStorageBufferRange; }

// Milliseconds of each of `repeats` recordings of `record`, after one warm-up.
template <class Record> std::vector<double> timeRepeats(const Context& ctx, int repeats, Record record) {
    GpuTimer timer;
    createTimer(timer, ctx, static_cast<uint32_t>(repeats + 2));
    VkCommandBuffer cmd = beginOneShot(ctx);
    resetTimer(timer, cmd);
    record(cmd); // warm-up: first touches, caches
    computeBarrier(cmd);
    writeTimestamp(timer, cmd);
    for (int r = 0; r < repeats; ++r) {
        record(cmd);
        computeBarrier(cmd);
        writeTimestamp(timer, cmd);
    }
    endOneShot(ctx, cmd);
    const std::vector<double> t = readTimestampsMs(timer, ctx);
    destroyTimer(timer, ctx);
    std::vector<double> ms;
    for (size_t i = 1; i < t.size(); ++i) ms.push_back(t[i] - t[i - 1]);
    return ms;
}

} // namespace

CopyBandwidth measureCopyBandwidth(const Context& ctx, uint64_t bytes_moved, int repeats) {
    // Each side holds half of what moves; one buffer (and image) at most what the device allows,
    // and the four of them at most a quarter of its memory.
    uint64_t side = bytes_moved / 2;
    side = std::min<uint64_t>(side, maxStorageBufferRange(ctx));
    if (ctx.max_allocation_bytes > 0) side = std::min<uint64_t>(side, ctx.max_allocation_bytes / 2);
    if (ctx.device_local_bytes > 0) side = std::min<uint64_t>(side, ctx.device_local_bytes / 16);
    const uint64_t rows =
        std::clamp<uint64_t>(side / (16ull * kImageWidth), 1, ctx.properties.limits.maxImageDimension2D);
    side = rows * kImageWidth * 16ull; // whole image rows of vec4, the same bytes for both kernels
    CopyBandwidth result;
    result.bytes = 2 * side;

    CopyKernels k(ctx);
    Buffer source, target;
    Image source_img, target_img;
    createBuffer(source, ctx, side, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT, false);
    createBuffer(target, ctx, side, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT, false);
    createStorageImage(source_img, ctx, kImageWidth, static_cast<uint32_t>(rows), VK_FORMAT_R32G32B32A32_SFLOAT);
    createStorageImage(target_img, ctx, kImageWidth, static_cast<uint32_t>(rows), VK_FORMAT_R32G32B32A32_SFLOAT);
    DescriptorWrites writes; // copy_buffer.comp's and copy_image.comp's bindings
    writes.buffer(k.set, 0, source.buffer);
    writes.buffer(k.set, 1, target.buffer);
    writes.image(k.set, 2, source_img.view);
    writes.image(k.set, 3, target_img.view);
    writes.apply(ctx);
    VkCommandBuffer fill = beginOneShot(ctx);
    vkCmdFillBuffer(fill, source.buffer, 0, VK_WHOLE_SIZE, 0x3f800000u); // 1.0f
    endOneShot(ctx, fill);

    const uint32_t count = static_cast<uint32_t>(side / 16);
    const uint32_t groups = (count + 255) / 256;
    const uint32_t gx = std::min<uint32_t>(groups, 65535), gy = (groups + gx - 1) / gx;
    const std::vector<double> buffer_ms = timeRepeats(ctx, repeats, [&](VkCommandBuffer cmd) {
        vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, k.buffer_copy);
        vkCmdBindDescriptorSets(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, k.layout, 0, 1, &k.set, 0, nullptr);
        vkCmdPushConstants(cmd, k.layout, VK_SHADER_STAGE_COMPUTE_BIT, 0, sizeof count, &count);
        vkCmdDispatch(cmd, gx, gy, 1);
    });
    const std::vector<double> image_ms = timeRepeats(ctx, repeats, [&](VkCommandBuffer cmd) {
        vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, k.image_copy);
        vkCmdBindDescriptorSets(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, k.layout, 0, 1, &k.set, 0, nullptr);
        vkCmdDispatch(cmd, kImageWidth / 16, static_cast<uint32_t>((rows + 15) / 16), 1);
    });
    auto gbs = [&](const std::vector<double>& ms) {
        const double best = *std::min_element(ms.begin(), ms.end());
        return best > 0.0 ? double(result.bytes) / (best * 1e6) : 0.0;
    };
    result.buffer_gb_s = gbs(buffer_ms);
    result.image_gb_s = gbs(image_ms);
    destroyImage(source_img, ctx);
    destroyImage(target_img, ctx);
    destroyBuffer(source, ctx);
    destroyBuffer(target, ctx);
    return result;
}

} // namespace alluvium::gpu
