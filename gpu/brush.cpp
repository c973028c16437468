#include "brush.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>

#include "pipeline.h"

namespace alluvium::gpu {

namespace {

uint32_t groups(int n) { return static_cast<uint32_t>((n + BRUSH_WG - 1) / BRUSH_WG); }

} // namespace

double brushWeightSum(int width, int height, float x, float y, float radius, float falloff) {
    // The shader's weight, in the same float arithmetic, summed in double.
    double sum = 0;
    const int x0 = std::max(0, int(std::floor(x - radius)) - 1),
              x1 = std::min(width - 1, int(std::ceil(x + radius)) + 1);
    const int y0 = std::max(0, int(std::floor(y - radius)) - 1),
              y1 = std::min(height - 1, int(std::ceil(y + radius)) + 1);
    for (int j = y0; j <= y1; ++j)
        for (int i = x0; i <= x1; ++i) {
            const float dx = float(i) + 0.5f - x, dy = float(j) + 0.5f - y;
            const float t2 = (dx * dx + dy * dy) / (radius * radius);
            if (t2 >= 1.0f) continue;
            sum += falloff <= 0.0f ? 1.0 : std::pow(double(1.0f - t2), 2.0 * double(falloff));
        }
    return sum;
}

Brush::Brush(const Context& ctx, const Simulation& sim) : ctx_(ctx), sim_(sim) {
    const int w = sim.width(), h = sim.height();
    createStorageImage(scratch_, ctx, uint32_t(w), uint32_t(h), VK_FORMAT_R32_SFLOAT);
    createBuffer(partials_, ctx, VkDeviceSize(groups(w)) * groups(h) * 4 * sizeof(float),
                 VK_BUFFER_USAGE_STORAGE_BUFFER_BIT, false);
    createBuffer(totals_, ctx, BRUSH_SLOTS * sizeof(double), VK_BUFFER_USAGE_STORAGE_BUFFER_BIT, true);
    resetTotals();

    const VkDescriptorSetLayoutBinding bindings[BB_COUNT] = {
        {BB_TERRAIN, VK_DESCRIPTOR_TYPE_STORAGE_IMAGE, 1, VK_SHADER_STAGE_COMPUTE_BIT, nullptr},
        {BB_WATER, VK_DESCRIPTOR_TYPE_STORAGE_IMAGE, 1, VK_SHADER_STAGE_COMPUTE_BIT, nullptr},
        {BB_HARDNESS, VK_DESCRIPTOR_TYPE_STORAGE_IMAGE, 1, VK_SHADER_STAGE_COMPUTE_BIT, nullptr},
        {BB_SCRATCH, VK_DESCRIPTOR_TYPE_STORAGE_IMAGE, 1, VK_SHADER_STAGE_COMPUTE_BIT, nullptr},
        {BB_PARTIALS, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 1, VK_SHADER_STAGE_COMPUTE_BIT, nullptr},
        {BB_TOTALS, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 1, VK_SHADER_STAGE_COMPUTE_BIT, nullptr},
        {BB_UPLIFT, VK_DESCRIPTOR_TYPE_STORAGE_IMAGE, 1, VK_SHADER_STAGE_COMPUTE_BIT, nullptr},
        {BB_RAIN, VK_DESCRIPTOR_TYPE_STORAGE_IMAGE, 1, VK_SHADER_STAGE_COMPUTE_BIT, nullptr},
        {BB_LOOSE, VK_DESCRIPTOR_TYPE_STORAGE_IMAGE, 1, VK_SHADER_STAGE_COMPUTE_BIT, nullptr},
        {BB_SNOW, VK_DESCRIPTOR_TYPE_STORAGE_IMAGE, 1, VK_SHADER_STAGE_COMPUTE_BIT, nullptr},
        {BB_VEGETATION, VK_DESCRIPTOR_TYPE_STORAGE_IMAGE, 1, VK_SHADER_STAGE_COMPUTE_BIT, nullptr},
        {BB_LAVA, VK_DESCRIPTOR_TYPE_STORAGE_IMAGE, 1, VK_SHADER_STAGE_COMPUTE_BIT, nullptr}};
    set_layout_ = createSetLayout(ctx, bindings, BB_COUNT);
    layout_ = createComputeLayout(ctx, set_layout_, sizeof(BrushParams));
    constexpr uint32_t keys = Simulation::kParityKeys;
    pool_ = createDescriptorPool(
        ctx, keys, {{VK_DESCRIPTOR_TYPE_STORAGE_IMAGE, 10 * keys}, {VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 2 * keys}});
    allocateSets(ctx, pool_, set_layout_, keys, sets_.data());
    // One set per parity key of the simulation: set k binds the current images of key k.
    DescriptorWrites writes;
    for (int key = 0; key < int(keys); ++key) {
        const VkDescriptorSet set = sets_[size_t(key)];
        writes.image(set, BB_TERRAIN, sim.currentImage(Field::Terrain, key).view);
        writes.image(set, BB_WATER, sim.currentImage(Field::Water, key).view);
        writes.image(set, BB_HARDNESS, sim.currentImage(Field::Hardness, key).view);
        writes.image(set, BB_SCRATCH, scratch_.view);
        writes.image(set, BB_UPLIFT, sim.currentImage(Field::Uplift, key).view);
        writes.image(set, BB_RAIN, sim.currentImage(Field::RainMask, key).view);
        writes.image(set, BB_LOOSE, sim.currentImage(Field::Loose, key).view);
        writes.image(set, BB_SNOW, sim.currentImage(Field::Snow, key).view);
        writes.image(set, BB_VEGETATION, sim.currentImage(Field::Vegetation, key).view);
        writes.image(set, BB_LAVA, sim.currentImage(Field::Lava, key).view);
        writes.buffer(set, BB_PARTIALS, partials_.buffer);
        writes.buffer(set, BB_TOTALS, totals_.buffer);
    }
    writes.apply(ctx);
    apply_ = loadComputePipeline(ctx, layout_, "brush");
    commit_ = loadComputePipeline(ctx, layout_, "brush_commit");
    reduce_ = loadComputePipeline(ctx, layout_, "brush_reduce");
}

Brush::~Brush() {
    vkDeviceWaitIdle(ctx_.device);
    destroyCompute(ctx_, {apply_, commit_, reduce_}, pool_, layout_, set_layout_);
    destroyBuffer(partials_, ctx_);
    destroyBuffer(totals_, ctx_);
    destroyImage(scratch_, ctx_);
}

void Brush::record(VkCommandBuffer cmd, BrushParams p) {
    p.width = sim_.width();
    p.height = sim_.height();
    p.group_count_x = int(groups(p.width));
    p.group_count = int(groups(p.width) * groups(p.height));
    p.layers = sim_.params().enable_layers;
    // Smoothing is explicit diffusion, stable up to 0.25 an application: a larger amount (a long
    // frame, a strong brush) is split into equal applications, at most 64 a frame.
    int applications = 1;
    if (p.tool == BRUSH_TOOL_SMOOTH) {
        p.amount = std::max(p.amount, 0.0f);
        applications = std::clamp(int(std::ceil(p.amount / 0.25f)), 1, 64);
        p.amount = std::min(p.amount / float(applications), 0.25f);
    }
    vkCmdBindDescriptorSets(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, layout_, 0, 1, &sets_[size_t(sim_.parity())], 0,
                            nullptr);
    vkCmdPushConstants(cmd, layout_, VK_SHADER_STAGE_COMPUTE_BIT, 0, sizeof p, &p);
    for (int i = 0; i < applications; ++i) {
        computeBarrier(cmd); // the previous step's (or application's) writes
        vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, apply_);
        vkCmdDispatch(cmd, groups(p.width), groups(p.height), 1);
        computeBarrier(cmd);
        if (p.tool == BRUSH_TOOL_SMOOTH) {
            vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, commit_);
            vkCmdDispatch(cmd, groups(p.width), groups(p.height), 1);
        }
    }
    vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, reduce_);
    vkCmdDispatch(cmd, 1, 1, 1);
    computeBarrier(cmd);
    // The host reads the totals after the frame's fence.
    VkMemoryBarrier host{VK_STRUCTURE_TYPE_MEMORY_BARRIER};
    host.srcAccessMask = VK_ACCESS_SHADER_WRITE_BIT;
    host.dstAccessMask = VK_ACCESS_HOST_READ_BIT;
    vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_PIPELINE_STAGE_HOST_BIT, 0, 1, &host, 0, nullptr,
                         0, nullptr);
}

void Brush::apply(const BrushParams& params) {
    VkCommandBuffer cmd = beginOneShot(ctx_);
    record(cmd, params);
    endOneShot(ctx_, cmd);
}

BrushTotals Brush::totals() const {
    double t[BRUSH_SLOTS];
    std::memcpy(t, totals_.mapped, sizeof t);
    BrushTotals r;
    r.water_added = t[BRUSH_WATER_ADDED];
    r.water_removed = t[BRUSH_WATER_REMOVED];
    r.terrain_added = t[BRUSH_TERRAIN_ADDED];
    r.terrain_removed = t[BRUSH_TERRAIN_REMOVED];
    r.hand_picked = t[BRUSH_HAND_PICKED];
    r.hand_dropped = t[BRUSH_HAND_DROPPED];
    r.lava_poured = t[BRUSH_LAVA_POURED];
    return r;
}

void Brush::resetTotals() { std::memset(totals_.mapped, 0, BRUSH_SLOTS * sizeof(double)); }

} // namespace alluvium::gpu
