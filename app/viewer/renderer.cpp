#include "renderer.h"

#include <algorithm>
#include <array>
#include <cstring>
#include <string>

#include "io/errors.h"
#include "pipeline.h"
#include "render_shared.h"

namespace alluvium::viewer {

namespace {

constexpr VkDeviceSize kPickBytes = 32; // vec4 hit, uint non_finite, ground_lo, ground_hi (std430, padded)

constexpr VkPipelineStageFlags kDrawStages =
    VK_PIPELINE_STAGE_VERTEX_SHADER_BIT | VK_PIPELINE_STAGE_FRAGMENT_SHADER_BIT | VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT;

} // namespace

void createColorTarget(ColorTarget& t, const gpu::Context& ctx, VkFormat format, VkExtent2D extent) {
    gpu::createImage2D(t, ctx, format, extent, VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT | VK_IMAGE_USAGE_TRANSFER_SRC_BIT,
                       VK_IMAGE_ASPECT_COLOR_BIT, "a render target");
}

void destroyColorTarget(ColorTarget& t, const gpu::Context& ctx) { gpu::destroyImage(t, ctx); }

bool meshFits(uint64_t x, uint64_t y, uint64_t max_range) {
    return (x + 2) * (y + 2) * 16 <= max_range && (x + 1) * (y + 1) * 24 <= max_range;
}

uint32_t meshSideLimit(uint64_t max_range) {
    uint64_t lo = 2, hi = 1u << 16; // meshFits(lo, lo) for any device (Vulkan's minimum range is 128 MiB)
    while (lo < hi) {
        const uint64_t mid = (lo + hi + 1) / 2;
        if (meshFits(mid, mid, max_range))
            lo = mid;
        else
            hi = mid - 1;
    }
    return static_cast<uint32_t>(lo);
}

uint32_t defaultMeshSide(const gpu::Context& ctx) {
    const VkPhysicalDeviceType type = ctx.properties.deviceType;
    const uint32_t side = type == VK_PHYSICAL_DEVICE_TYPE_CPU            ? MESH_MAX_CPU
                          : type == VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU ? MESH_MAX_DISCRETE
                                                                         : MESH_MAX;
    return std::min(side, meshSideLimit(ctx.properties.limits.maxStorageBufferRange));
}

VkExtent2D drawnMesh(const gpu::Context& ctx, int grid_w, int grid_h, uint32_t mesh_side) {
    const int side =
        std::max(2, static_cast<int>(std::min<uint32_t>(mesh_side != 0 ? mesh_side : defaultMeshSide(ctx), 1u << 20)));
    const VkExtent2D mesh{static_cast<uint32_t>(std::clamp(grid_w, 2, side)),
                          static_cast<uint32_t>(std::clamp(grid_h, 2, side))};
    const uint64_t range = ctx.properties.limits.maxStorageBufferRange;
    if (!meshFits(mesh.width, mesh.height, range))
        throw InputError("--mesh " + std::to_string(mesh_side) + ": a drawn grid of " + std::to_string(mesh.width) +
                         "x" + std::to_string(mesh.height) + " vertices needs more than the " +
                         std::to_string(range >> 20) + " MiB this device binds in one storage buffer (at most " +
                         std::to_string(meshSideLimit(range)) + " a side)");
    return mesh;
}

Renderer::Renderer(const gpu::Context& ctx, const gpu::Simulation& sim, VkFormat color_format,
                   VkImageLayout final_layout, uint32_t frames_in_flight, uint32_t mesh_side, bool keeps_sunlight)
    : ctx_(ctx), sim_(sim), color_format_(color_format), frames_(frames_in_flight), keeps_sunlight_(keeps_sunlight) {
    // The mesh's size first: refused before anything is created.
    const VkExtent2D mesh = drawnMesh(ctx, sim.width(), sim.height(), mesh_side);
    mesh_x_ = mesh.width;
    mesh_y_ = mesh.height;
    createRenderPasses(final_layout);
    createLayouts();
    createImageSets();
    createFrameResources();
    createMeshIndices();
    createPipelines();
}

void Renderer::createRenderPasses(VkImageLayout final_layout) {
    // Render pass: colour cleared, depth cleared and discarded. The external dependency orders
    // this frame's attachment writes after the previous frame's (one depth image for all).
    std::array<VkAttachmentDescription, 2> attachments{};
    attachments[0].format = color_format_;
    attachments[0].samples = VK_SAMPLE_COUNT_1_BIT;
    attachments[0].loadOp = VK_ATTACHMENT_LOAD_OP_CLEAR;
    attachments[0].storeOp = VK_ATTACHMENT_STORE_OP_STORE;
    attachments[0].stencilLoadOp = VK_ATTACHMENT_LOAD_OP_DONT_CARE;
    attachments[0].stencilStoreOp = VK_ATTACHMENT_STORE_OP_DONT_CARE;
    attachments[0].initialLayout = VK_IMAGE_LAYOUT_UNDEFINED;
    attachments[0].finalLayout = final_layout;
    attachments[1] = attachments[0];
    attachments[1].format = VK_FORMAT_D32_SFLOAT;
    attachments[1].storeOp = VK_ATTACHMENT_STORE_OP_DONT_CARE;
    attachments[1].finalLayout = VK_IMAGE_LAYOUT_DEPTH_STENCIL_ATTACHMENT_OPTIMAL;
    VkAttachmentReference colour_ref{0, VK_IMAGE_LAYOUT_COLOR_ATTACHMENT_OPTIMAL};
    VkAttachmentReference depth_ref{1, VK_IMAGE_LAYOUT_DEPTH_STENCIL_ATTACHMENT_OPTIMAL};
    VkSubpassDescription subpass{};
    subpass.pipelineBindPoint = VK_PIPELINE_BIND_POINT_GRAPHICS;
    subpass.colorAttachmentCount = 1;
    subpass.pColorAttachments = &colour_ref;
    subpass.pDepthStencilAttachment = &depth_ref;
    VkSubpassDependency deps[2] = {};
    deps[0].srcSubpass = VK_SUBPASS_EXTERNAL;
    deps[0].dstSubpass = 0;
    deps[0].srcStageMask = VK_PIPELINE_STAGE_COLOR_ATTACHMENT_OUTPUT_BIT | VK_PIPELINE_STAGE_LATE_FRAGMENT_TESTS_BIT |
                           VK_PIPELINE_STAGE_TRANSFER_BIT;
    deps[0].srcAccessMask = VK_ACCESS_COLOR_ATTACHMENT_WRITE_BIT | VK_ACCESS_DEPTH_STENCIL_ATTACHMENT_WRITE_BIT;
    deps[0].dstStageMask = VK_PIPELINE_STAGE_COLOR_ATTACHMENT_OUTPUT_BIT | VK_PIPELINE_STAGE_EARLY_FRAGMENT_TESTS_BIT |
                           VK_PIPELINE_STAGE_LATE_FRAGMENT_TESTS_BIT;
    deps[0].dstAccessMask = VK_ACCESS_COLOR_ATTACHMENT_WRITE_BIT | VK_ACCESS_COLOR_ATTACHMENT_READ_BIT |
                            VK_ACCESS_DEPTH_STENCIL_ATTACHMENT_WRITE_BIT | VK_ACCESS_DEPTH_STENCIL_ATTACHMENT_READ_BIT;
    deps[1].srcSubpass = 0;
    deps[1].dstSubpass = VK_SUBPASS_EXTERNAL;
    deps[1].srcStageMask = VK_PIPELINE_STAGE_COLOR_ATTACHMENT_OUTPUT_BIT;
    deps[1].srcAccessMask = VK_ACCESS_COLOR_ATTACHMENT_WRITE_BIT;
    deps[1].dstStageMask = VK_PIPELINE_STAGE_TRANSFER_BIT;
    deps[1].dstAccessMask = VK_ACCESS_TRANSFER_READ_BIT;
    VkRenderPassCreateInfo rp{VK_STRUCTURE_TYPE_RENDER_PASS_CREATE_INFO};
    rp.attachmentCount = 2;
    rp.pAttachments = attachments.data();
    rp.subpassCount = 1;
    rp.pSubpasses = &subpass;
    rp.dependencyCount = 2;
    rp.pDependencies = deps;
    VK_CHECK(vkCreateRenderPass(ctx_.device, &rp, nullptr, &render_pass_));
    // The overlay pass: the same attachments (so the scene's framebuffers and ImGui's pipeline
    // serve it), the colour loaded from final_layout, where the scene pass and the copies out of
    // it left the image; the first dependency also orders after those copies (transfer reads).
    attachments[0].loadOp = VK_ATTACHMENT_LOAD_OP_LOAD;
    attachments[0].initialLayout = final_layout;
    attachments[1].loadOp = VK_ATTACHMENT_LOAD_OP_DONT_CARE;
    VK_CHECK(vkCreateRenderPass(ctx_.device, &rp, nullptr, &overlay_pass_));
}

void Renderer::createLayouts() {
    // Set 0: the simulation's images, readable by every stage that draws or picks.
    const VkShaderStageFlags stages =
        VK_SHADER_STAGE_VERTEX_BIT | VK_SHADER_STAGE_FRAGMENT_BIT | VK_SHADER_STAGE_COMPUTE_BIT;
    std::array<VkDescriptorSetLayoutBinding, R_IMAGE_COUNT> image_bindings{};
    for (uint32_t b = 0; b < R_IMAGE_COUNT; ++b) // (the sunlight's check is the compute stage's)
        image_bindings[b] = {b, VK_DESCRIPTOR_TYPE_STORAGE_IMAGE, 1,
                             b == R_SUN_SEEN ? VkShaderStageFlags(VK_SHADER_STAGE_COMPUTE_BIT) : stages, nullptr};
    image_layout_ = gpu::createSetLayout(ctx_, image_bindings.data(), R_IMAGE_COUNT);
    std::array<VkDescriptorSetLayoutBinding, R_FRAME_BINDINGS> frame_bindings{};
    for (uint32_t b = 0; b < R_FRAME_BINDINGS; ++b)
        frame_bindings[b] = {b, b == R_FRAME ? VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER : VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 1,
                             b == R_SUN_CONTROL ? VkShaderStageFlags(VK_SHADER_STAGE_COMPUTE_BIT) : stages, nullptr};
    frame_layout_ = gpu::createSetLayout(ctx_, frame_bindings.data(), R_FRAME_BINDINGS);
    const VkDescriptorSetLayout layouts[2] = {image_layout_, frame_layout_};
    VkPipelineLayoutCreateInfo layout_info{VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO};
    layout_info.setLayoutCount = 2;
    layout_info.pSetLayouts = layouts;
    VK_CHECK(vkCreatePipelineLayout(ctx_.device, &layout_info, nullptr, &pipeline_layout_));
}

void Renderer::createImageSets() {
    const gpu::Simulation& sim = sim_;
    constexpr uint32_t keys = gpu::Simulation::kParityKeys;
    pool_ = gpu::createDescriptorPool(ctx_, keys + frames_,
                                      {{VK_DESCRIPTOR_TYPE_STORAGE_IMAGE, keys * R_IMAGE_COUNT},
                                       {VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER, frames_},
                                       {VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, frames_ * (R_FRAME_BINDINGS - 1)}});

    // One image set per parity key of the simulation: set k binds the current images of key k.
    gpu::allocateSets(ctx_, pool_, image_layout_, keys, image_sets_);
    using gpu::Field;
    gpu::createStorageImage(sun_, ctx_, uint32_t(sim.width()), uint32_t(sim.height()), VK_FORMAT_R32_SFLOAT);
    if (keeps_sunlight_)
        gpu::createStorageImage(sun_seen_, ctx_, uint32_t(sim.width()), uint32_t(sim.height()),
                                VK_FORMAT_R32G32_SFLOAT);
    gpu::createBuffer(sun_control_, ctx_, sizeof(SunControl),
                      VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_INDIRECT_BUFFER_BIT |
                          VK_BUFFER_USAGE_TRANSFER_DST_BIT,
                      true);
    std::memset(sun_control_.mapped, 0, sizeof(SunControl)); // valid 0: the first check computes the sunlight
    gpu::createStorageImage(unused_rgba_, ctx_, 1, 1, VK_FORMAT_R32G32B32A32_SFLOAT);
    gpu::createStorageImage(unused_rg_, ctx_, 1, 1, VK_FORMAT_R32G32_SFLOAT);
    // By binding; R_SUN and R_SUN_SEEN are the viewer's own images (their entries here are not used).
    const std::array<Field, R_IMAGE_COUNT> fields = {
        Field::Terrain, Field::Water,   Field::Sediment,   Field::Velocity, Field::Hardness,
        Field::Wear,    Field::Outflow, Field::Terrain,    Field::Lake,     Field::Drainage,
        Field::Outflow, Field::Outflow, Field::WaterTable, Field::Seepage,  Field::Terrain,
        Field::Loose,   Field::Snow,    Field::Vegetation, Field::Lava};
    const bool split = sim.splitWide();
    gpu::DescriptorWrites writes;
    for (uint32_t key = 0; key < keys; ++key) {
        for (uint32_t b = 0; b < R_IMAGE_COUNT; ++b) {
            VkImageView view = b == R_SUN        ? sun_.view
                               : b == R_SUN_SEEN ? (keeps_sunlight_ ? sun_seen_.view : unused_rg_.view)
                                                 : sim.currentImage(fields[b], int(key)).view;
            if (b == R_OUTFLOW && split) view = unused_rgba_.view;
            if (b == R_OUTFLOW_XY || b == R_OUTFLOW_ZW)
                view = split ? sim.currentImage(Field::Outflow, int(key), b == R_OUTFLOW_XY ? 0 : 1).view
                             : unused_rg_.view;
            writes.image(image_sets_[key], b, view);
        }
    }
    writes.apply(ctx_);
}

void Renderer::createFrameResources() {
    // The mesh: (n + 2)^2 vertices generated from gl_VertexIndex (the outer ring is the skirt);
    // only the triangle list is stored.
    const uint32_t vx = mesh_x_ + 2, vy = mesh_y_ + 2;
    const VkDeviceSize vertex_bytes = VkDeviceSize(vx) * vy * 16, index_bytes = VkDeviceSize(vx - 1) * (vy - 1) * 6 * 4;

    frame_sets_.resize(frames_);
    uniform_buffers_.resize(frames_);
    pick_buffers_.resize(frames_);
    vertex_buffers_.resize(frames_);
    water_index_buffers_.resize(frames_);
    water_draw_buffers_.resize(frames_);
    for (uint32_t i = 0; i < frames_; ++i) {
        gpu::createBuffer(uniform_buffers_[i], ctx_, sizeof(FrameUniforms), VK_BUFFER_USAGE_UNIFORM_BUFFER_BIT, true);
        gpu::createBuffer(pick_buffers_[i], ctx_, kPickBytes, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT, true);
        gpu::createBuffer(vertex_buffers_[i], ctx_, vertex_bytes, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT, false);
        gpu::createBuffer(water_index_buffers_[i], ctx_, index_bytes,
                          VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_INDEX_BUFFER_BIT, false);
        gpu::createBuffer(water_draw_buffers_[i], ctx_, 5 * sizeof(uint32_t),
                          VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_INDIRECT_BUFFER_BIT, false);
        std::memset(uniform_buffers_[i].mapped, 0, sizeof(FrameUniforms));
        std::memset(pick_buffers_[i].mapped, 0, kPickBytes);
        const uint32_t no_range[2] = {0xFFFFFFFFu, 0u}; // ground_lo, ground_hi
        std::memcpy(static_cast<char*>(pick_buffers_[i].mapped) + 20, no_range, sizeof no_range);
        gpu::allocateSets(ctx_, pool_, frame_layout_, 1, &frame_sets_[i]);
        const VkDescriptorSet set = frame_sets_[i];
        gpu::DescriptorWrites writes;
        writes.buffer(set, R_FRAME, uniform_buffers_[i].buffer, sizeof(FrameUniforms),
                      VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER);
        writes.buffer(set, R_PICK, pick_buffers_[i].buffer, kPickBytes);
        writes.buffer(set, R_VERTICES, vertex_buffers_[i].buffer);
        writes.buffer(set, R_WATER_INDICES, water_index_buffers_[i].buffer);
        writes.buffer(set, R_WATER_DRAW, water_draw_buffers_[i].buffer);
        writes.buffer(set, R_SUN_CONTROL, sun_control_.buffer, sizeof(SunControl));
        writes.apply(ctx_);
    }
}

void Renderer::createMeshIndices() {
    const uint32_t vx = mesh_x_ + 2, vy = mesh_y_ + 2;
    std::vector<uint32_t> indices;
    indices.reserve(size_t(vx - 1) * (vy - 1) * 6);
    for (uint32_t y = 0; y + 1 < vy; ++y)
        for (uint32_t x = 0; x + 1 < vx; ++x) {
            const uint32_t a = y * vx + x, b = a + 1, c = a + vx, d = c + 1;
            for (uint32_t i : {a, c, b, b, c, d}) indices.push_back(i);
        }
    index_count_ = static_cast<uint32_t>(indices.size());
    gpu::createBuffer(index_buffer_, ctx_, indices.size() * sizeof(uint32_t), VK_BUFFER_USAGE_INDEX_BUFFER_BIT, false);
    gpu::uploadBuffer(ctx_, index_buffer_, indices.data(), indices.size() * sizeof(uint32_t));
}

void Renderer::createPipelines() {
    VkShaderModule vert = gpu::loadShaderModule(ctx_, "surface_mesh");
    VkShaderModule frag = gpu::loadShaderModule(ctx_, "surface_shade");
    VkShaderModule pick = gpu::loadShaderModule(ctx_, "pick");
    VkShaderModule prepare = gpu::loadShaderModule(ctx_, "surface_prepare");
    VkShaderModule sun = gpu::loadShaderModule(ctx_, "surface_sun");
    VkShaderModule sun_check = gpu::loadShaderModule(ctx_, "surface_sun_check");
    VkShaderModule sun_control = gpu::loadShaderModule(ctx_, "surface_sun_control");
    for (int layer : {LAYER_TERRAIN, LAYER_WATER}) {
        // The layer, and the outflow's layout (the flux overlay reads it).
        const struct {
            int layer;
            VkBool32 split;
        } values{layer, sim_.splitWide() ? VK_TRUE : VK_FALSE};
        const VkSpecializationMapEntry entries[2] = {{SPEC_LAYER, 0, sizeof(int)},
                                                     {SPEC_SPLIT_OUTFLOW, sizeof(int), sizeof(VkBool32)}};
        const VkSpecializationInfo spec{2, entries, sizeof values, &values};
        VkPipelineShaderStageCreateInfo stages[2] = {{VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO},
                                                     {VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO}};
        stages[0].stage = VK_SHADER_STAGE_VERTEX_BIT;
        stages[0].module = vert;
        stages[0].pName = "main";
        stages[0].pSpecializationInfo = &spec;
        stages[1].stage = VK_SHADER_STAGE_FRAGMENT_BIT;
        stages[1].module = frag;
        stages[1].pName = "main";
        stages[1].pSpecializationInfo = &spec;
        VkPipelineVertexInputStateCreateInfo vertex_input{VK_STRUCTURE_TYPE_PIPELINE_VERTEX_INPUT_STATE_CREATE_INFO};
        VkPipelineInputAssemblyStateCreateInfo assembly{VK_STRUCTURE_TYPE_PIPELINE_INPUT_ASSEMBLY_STATE_CREATE_INFO};
        assembly.topology = VK_PRIMITIVE_TOPOLOGY_TRIANGLE_LIST;
        VkPipelineViewportStateCreateInfo viewport{VK_STRUCTURE_TYPE_PIPELINE_VIEWPORT_STATE_CREATE_INFO};
        viewport.viewportCount = 1;
        viewport.scissorCount = 1;
        VkPipelineRasterizationStateCreateInfo raster{VK_STRUCTURE_TYPE_PIPELINE_RASTERIZATION_STATE_CREATE_INFO};
        raster.polygonMode = VK_POLYGON_MODE_FILL;
        raster.cullMode = VK_CULL_MODE_NONE; // skirts and water walls face both ways
        raster.frontFace = VK_FRONT_FACE_COUNTER_CLOCKWISE;
        raster.lineWidth = 1.0f;
        VkPipelineMultisampleStateCreateInfo multisample{VK_STRUCTURE_TYPE_PIPELINE_MULTISAMPLE_STATE_CREATE_INFO};
        multisample.rasterizationSamples = VK_SAMPLE_COUNT_1_BIT;
        VkPipelineDepthStencilStateCreateInfo depth{VK_STRUCTURE_TYPE_PIPELINE_DEPTH_STENCIL_STATE_CREATE_INFO};
        depth.depthTestEnable = VK_TRUE;
        depth.depthWriteEnable = layer == LAYER_TERRAIN ? VK_TRUE : VK_FALSE;
        depth.depthCompareOp = VK_COMPARE_OP_LESS_OR_EQUAL;
        VkPipelineColorBlendAttachmentState blend{};
        blend.colorWriteMask = 0xF;
        if (layer == LAYER_WATER) {
            blend.blendEnable = VK_TRUE;
            blend.srcColorBlendFactor = VK_BLEND_FACTOR_SRC_ALPHA;
            blend.dstColorBlendFactor = VK_BLEND_FACTOR_ONE_MINUS_SRC_ALPHA;
            blend.colorBlendOp = VK_BLEND_OP_ADD;
            blend.srcAlphaBlendFactor = VK_BLEND_FACTOR_ONE;
            blend.dstAlphaBlendFactor = VK_BLEND_FACTOR_ZERO;
            blend.alphaBlendOp = VK_BLEND_OP_ADD;
        }
        VkPipelineColorBlendStateCreateInfo blend_state{VK_STRUCTURE_TYPE_PIPELINE_COLOR_BLEND_STATE_CREATE_INFO};
        blend_state.attachmentCount = 1;
        blend_state.pAttachments = &blend;
        const VkDynamicState dynamic[2] = {VK_DYNAMIC_STATE_VIEWPORT, VK_DYNAMIC_STATE_SCISSOR};
        VkPipelineDynamicStateCreateInfo dynamic_state{VK_STRUCTURE_TYPE_PIPELINE_DYNAMIC_STATE_CREATE_INFO};
        dynamic_state.dynamicStateCount = 2;
        dynamic_state.pDynamicStates = dynamic;
        VkGraphicsPipelineCreateInfo info{VK_STRUCTURE_TYPE_GRAPHICS_PIPELINE_CREATE_INFO};
        info.stageCount = 2;
        info.pStages = stages;
        info.pVertexInputState = &vertex_input;
        info.pInputAssemblyState = &assembly;
        info.pViewportState = &viewport;
        info.pRasterizationState = &raster;
        info.pMultisampleState = &multisample;
        info.pDepthStencilState = &depth;
        info.pColorBlendState = &blend_state;
        info.pDynamicState = &dynamic_state;
        info.layout = pipeline_layout_;
        info.renderPass = render_pass_;
        VK_CHECK(vkCreateGraphicsPipelines(ctx_.device, VK_NULL_HANDLE, 1, &info, nullptr,
                                           layer == LAYER_TERRAIN ? &terrain_pipeline_ : &water_pipeline_));
    }
    pick_pipeline_ = gpu::createComputePipeline(ctx_, pipeline_layout_, pick);
    prepare_pipeline_ = gpu::createComputePipeline(ctx_, pipeline_layout_, prepare);
    sun_pipeline_ = gpu::createComputePipeline(ctx_, pipeline_layout_, sun);
    sun_check_pipeline_ = gpu::createComputePipeline(ctx_, pipeline_layout_, sun_check);
    sun_control_pipeline_ = gpu::createComputePipeline(ctx_, pipeline_layout_, sun_control);
    for (VkShaderModule m : {vert, frag, pick, prepare, sun, sun_check, sun_control})
        vkDestroyShaderModule(ctx_.device, m, nullptr);
}

Renderer::~Renderer() {
    vkDeviceWaitIdle(ctx_.device);
    setTargets({}, {});
    gpu::destroyImage(sun_, ctx_);
    gpu::destroyImage(sun_seen_, ctx_);
    gpu::destroyBuffer(sun_control_, ctx_);
    gpu::destroyImage(unused_rgba_, ctx_);
    gpu::destroyImage(unused_rg_, ctx_);
    for (VkPipeline p : {terrain_pipeline_, water_pipeline_, pick_pipeline_, prepare_pipeline_, sun_pipeline_,
                         sun_check_pipeline_, sun_control_pipeline_})
        vkDestroyPipeline(ctx_.device, p, nullptr);
    vkDestroyPipelineLayout(ctx_.device, pipeline_layout_, nullptr);
    vkDestroyDescriptorPool(ctx_.device, pool_, nullptr);
    vkDestroyDescriptorSetLayout(ctx_.device, image_layout_, nullptr);
    vkDestroyDescriptorSetLayout(ctx_.device, frame_layout_, nullptr);
    for (gpu::Buffer& b : uniform_buffers_) gpu::destroyBuffer(b, ctx_);
    for (gpu::Buffer& b : pick_buffers_) gpu::destroyBuffer(b, ctx_);
    for (auto* list : {&vertex_buffers_, &water_index_buffers_, &water_draw_buffers_})
        for (gpu::Buffer& b : *list) gpu::destroyBuffer(b, ctx_);
    gpu::destroyBuffer(index_buffer_, ctx_);
    vkDestroyRenderPass(ctx_.device, render_pass_, nullptr);
    vkDestroyRenderPass(ctx_.device, overlay_pass_, nullptr);
}

void Renderer::setTargets(const std::vector<VkImageView>& views, VkExtent2D extent) {
    vkDeviceWaitIdle(ctx_.device); // resizing only, never in the frame loop
    for (VkFramebuffer fb : framebuffers_) vkDestroyFramebuffer(ctx_.device, fb, nullptr);
    framebuffers_.clear();
    destroyColorTarget(depth_, ctx_);
    extent_ = extent;
    if (views.empty()) return;
    gpu::createImage2D(depth_, ctx_, VK_FORMAT_D32_SFLOAT, extent, VK_IMAGE_USAGE_DEPTH_STENCIL_ATTACHMENT_BIT,
                       VK_IMAGE_ASPECT_DEPTH_BIT, "a depth buffer");
    for (VkImageView view : views) {
        const VkImageView attachments[2] = {view, depth_.view};
        VkFramebufferCreateInfo info{VK_STRUCTURE_TYPE_FRAMEBUFFER_CREATE_INFO};
        info.renderPass = render_pass_;
        info.attachmentCount = 2;
        info.pAttachments = attachments;
        info.width = extent.width;
        info.height = extent.height;
        info.layers = 1;
        VkFramebuffer fb;
        VK_CHECK(vkCreateFramebuffer(ctx_.device, &info, nullptr, &fb));
        framebuffers_.push_back(fb);
    }
}

FrameUniforms& Renderer::uniforms(uint32_t frame) {
    return *static_cast<FrameUniforms*>(uniform_buffers_[frame].mapped);
}

PickResult Renderer::pick(uint32_t frame) const {
    float v[4];
    std::memcpy(v, pick_buffers_[frame].mapped, sizeof v);
    return {v[0], v[1], v[2], v[3] > 0.5f};
}

std::optional<std::pair<float, float>> Renderer::takeGroundRange(uint32_t frame) {
    char* p = static_cast<char*>(pick_buffers_[frame].mapped) + 20;
    uint32_t bits[2];
    std::memcpy(bits, p, sizeof bits);
    const uint32_t reset[2] = {0xFFFFFFFFu, 0u};
    std::memcpy(p, reset, sizeof reset);
    if (bits[0] > bits[1]) return std::nullopt; // nothing drawn (or not yet)
    auto decode = [](uint32_t o) {
        const uint32_t u = (o & 0x80000000u) ? (o & 0x7FFFFFFFu) : ~o;
        float v;
        std::memcpy(&v, &u, 4);
        return v;
    };
    return std::pair<float, float>{decode(bits[0]), decode(bits[1])};
}

bool Renderer::takeNonFinite(uint32_t frame) {
    uint32_t flag = 0;
    std::memcpy(&flag, static_cast<char*>(pick_buffers_[frame].mapped) + 16, sizeof flag);
    std::memset(static_cast<char*>(pick_buffers_[frame].mapped) + 16, 0, sizeof flag);
    return flag != 0;
}

void Renderer::barrierSimulationToDraw(VkCommandBuffer cmd) {
    gpu::memoryBarrier(cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT,
                       VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_WRITE_BIT, kDrawStages,
                       VK_ACCESS_SHADER_READ_BIT);
}

void Renderer::barrierDrawToSimulation(VkCommandBuffer cmd) {
    gpu::memoryBarrier(cmd, kDrawStages, VK_ACCESS_SHADER_READ_BIT,
                       VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT,
                       VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_WRITE_BIT);
}

void Renderer::recordPick(VkCommandBuffer cmd, uint32_t frame) {
    const VkDescriptorSet sets[2] = {image_sets_[sim_.parity()], frame_sets_[frame]};
    vkCmdBindDescriptorSets(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, pipeline_layout_, 0, 2, sets, 0, nullptr);
    vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, pick_pipeline_);
    vkCmdDispatch(cmd, 1, 1, 1);
    // The host reads the hit after this frame's fence.
    gpu::memoryBarrier(cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_WRITE_BIT,
                       VK_PIPELINE_STAGE_HOST_BIT, VK_ACCESS_HOST_READ_BIT);
}

void Renderer::recordPrepare(VkCommandBuffer cmd, uint32_t frame, bool check_sun) {
    const uint32_t reset[5] = {0, 1, 0, 0, 0}; // no water triangles yet, one instance
    vkCmdUpdateBuffer(cmd, water_draw_buffers_[frame].buffer, 0, sizeof reset, reset);
    gpu::memoryBarrier(cmd, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT,
                       VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT);
    const VkDescriptorSet sets[2] = {image_sets_[sim_.parity()], frame_sets_[frame]};
    vkCmdBindDescriptorSets(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, pipeline_layout_, 0, 2, sets, 0, nullptr);
    vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, prepare_pipeline_);
    // Rows of PREPARE_ROW_GROUPS workgroups: a 2048^2 mesh has more than the 65535 workgroups a
    // dispatch may count in x on some devices (Vulkan's minimum, Intel's and lavapipe's limit).
    const uint32_t vertices = (mesh_x_ + 2) * (mesh_y_ + 2);
    const uint32_t groups = (vertices + PREPARE_WG - 1) / PREPARE_WG;
    vkCmdDispatch(cmd, std::min(groups, uint32_t(PREPARE_ROW_GROUPS)),
                  (groups + PREPARE_ROW_GROUPS - 1) / PREPARE_ROW_GROUPS, 1);
    recordSun(cmd, check_sun);
    gpu::memoryBarrier(cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_WRITE_BIT,
                       VK_PIPELINE_STAGE_DRAW_INDIRECT_BIT | VK_PIPELINE_STAGE_VERTEX_INPUT_BIT |
                           VK_PIPELINE_STAGE_VERTEX_SHADER_BIT | VK_PIPELINE_STAGE_FRAGMENT_SHADER_BIT,
                       VK_ACCESS_INDIRECT_COMMAND_READ_BIT | VK_ACCESS_INDEX_READ_BIT | VK_ACCESS_SHADER_READ_BIT);
    // The host reads the watchdog's flag after the frame's fence.
    gpu::memoryBarrier(cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_WRITE_BIT,
                       VK_PIPELINE_STAGE_HOST_BIT, VK_ACCESS_HOST_READ_BIT);
}

void Renderer::recordSun(VkCommandBuffer cmd, bool check) {
    // The previous frames' reads of the sunlight (fragments), of its dispatch and of the check's
    // block -> this frame's writes.
    constexpr VkPipelineStageFlags compute = VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT;
    gpu::memoryBarrier(cmd, kDrawStages | VK_PIPELINE_STAGE_DRAW_INDIRECT_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT,
                       VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_WRITE_BIT,
                       compute | VK_PIPELINE_STAGE_TRANSFER_BIT,
                       VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_WRITE_BIT);
    const uint32_t gx = (uint32_t(sim_.width()) + 15) / 16, gy = (uint32_t(sim_.height()) + 15) / 16;
    if (!check || !keeps_sunlight_) {
        // The next check starts afresh: its cells and inputs are not what this sunlight read.
        vkCmdFillBuffer(cmd, sun_control_.buffer, SUN_CONTROL_VALID * 4, 4, 0u);
        gpu::memoryBarrier(cmd, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT, compute,
                           VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT);
        vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, sun_pipeline_);
        vkCmdDispatch(cmd, gx, gy, 1);
        return;
    }
    vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, sun_check_pipeline_);
    vkCmdDispatch(cmd, gx, gy, 1);
    gpu::memoryBarrier(cmd, compute, VK_ACCESS_SHADER_WRITE_BIT, compute,
                       VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT);
    vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, sun_control_pipeline_);
    vkCmdDispatch(cmd, 1, 1, 1);
    gpu::memoryBarrier(cmd, compute, VK_ACCESS_SHADER_WRITE_BIT, VK_PIPELINE_STAGE_DRAW_INDIRECT_BIT | compute,
                       VK_ACCESS_INDIRECT_COMMAND_READ_BIT | VK_ACCESS_SHADER_READ_BIT);
    vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, sun_pipeline_);
    vkCmdDispatchIndirect(cmd, sun_control_.buffer, 0);
}

SunControl Renderer::sunControl() const {
    SunControl c;
    std::memcpy(&c, sun_control_.mapped, sizeof c);
    return c;
}

std::vector<float> Renderer::sunlight() const {
    vkDeviceWaitIdle(ctx_.device);
    std::vector<float> out(size_t(sim_.width()) * size_t(sim_.height()));
    gpu::downloadImage(ctx_, sun_, out.data(), out.size() * sizeof(float));
    return out;
}

void Renderer::beginScene(VkCommandBuffer cmd, uint32_t frame, uint32_t target, bool water) {
    VkClearValue clear[2];
    clear[0].color = {{0.52f, 0.64f, 0.80f, 1.0f}}; // the sky, already sRGB-encoded
    clear[1].depthStencil = {1.0f, 0};
    VkRenderPassBeginInfo begin{VK_STRUCTURE_TYPE_RENDER_PASS_BEGIN_INFO};
    begin.renderPass = render_pass_;
    begin.framebuffer = framebuffers_[target];
    begin.renderArea = {{0, 0}, extent_};
    begin.clearValueCount = 2;
    begin.pClearValues = clear;
    vkCmdBeginRenderPass(cmd, &begin, VK_SUBPASS_CONTENTS_INLINE);
    const VkViewport viewport{0, 0, float(extent_.width), float(extent_.height), 0, 1};
    const VkRect2D scissor{{0, 0}, extent_};
    vkCmdSetViewport(cmd, 0, 1, &viewport);
    vkCmdSetScissor(cmd, 0, 1, &scissor);
    const VkDescriptorSet sets[2] = {image_sets_[sim_.parity()], frame_sets_[frame]};
    vkCmdBindDescriptorSets(cmd, VK_PIPELINE_BIND_POINT_GRAPHICS, pipeline_layout_, 0, 2, sets, 0, nullptr);
    vkCmdBindIndexBuffer(cmd, index_buffer_.buffer, 0, VK_INDEX_TYPE_UINT32);
    vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_GRAPHICS, terrain_pipeline_);
    vkCmdDrawIndexed(cmd, index_count_, 1, 0, 0, 0);
    if (water) { // only the wet quads, as surface_prepare.comp listed them
        vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_GRAPHICS, water_pipeline_);
        vkCmdBindIndexBuffer(cmd, water_index_buffers_[frame].buffer, 0, VK_INDEX_TYPE_UINT32);
        vkCmdDrawIndexedIndirect(cmd, water_draw_buffers_[frame].buffer, 0, 1, 5 * sizeof(uint32_t));
    }
}

void Renderer::beginOverlay(VkCommandBuffer cmd, uint32_t target) {
    VkRenderPassBeginInfo begin{VK_STRUCTURE_TYPE_RENDER_PASS_BEGIN_INFO};
    begin.renderPass = overlay_pass_;
    begin.framebuffer = framebuffers_[target];
    begin.renderArea = {{0, 0}, extent_};
    vkCmdBeginRenderPass(cmd, &begin, VK_SUBPASS_CONTENTS_INLINE);
    const VkViewport viewport{0, 0, float(extent_.width), float(extent_.height), 0, 1};
    const VkRect2D scissor{{0, 0}, extent_};
    vkCmdSetViewport(cmd, 0, 1, &viewport);
    vkCmdSetScissor(cmd, 0, 1, &scissor);
}

void Renderer::endScene(VkCommandBuffer cmd) { vkCmdEndRenderPass(cmd); }

} // namespace alluvium::viewer
