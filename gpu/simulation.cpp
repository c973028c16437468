#include "simulation.h"

#include <algorithm>
#include <cassert>
#include <cstring>
#include <string>

#include "pipeline.h"
#include "vk_check.h"

namespace alluvium::gpu {

namespace {

struct PassInfo {
    const char* name;   // also the shader file name
    double bytes;       // per cell, read + written
    bool single_group;  // reductions run one workgroup
};

constexpr std::array<PassInfo, kPassCount> kPasses = {{
    {"sources", 12, false},
    {"outflow_flux", 40, false},
    {"water_update", 24, false},
    {"velocity", 36, false},
    {"erosion_deposition", 40, false},
    {"sediment_transport", 16, false},
    {"reduce_sediment", 0, true},
    {"sediment_correct", 8, false},
    {"thermal_outflow", 40, false},
    {"thermal_gather", 40, false},
    {"evaporation", 8, false},
    {"reduce_totals", 0, true},
    {"talus_outflow", 36, false},
    {"talus_gather", 76, false},
    {"musgrave_transfer", 84, false},
    {"musgrave_apply", 72, false},
    {"simple_transfer", 48, false},
    {"simple_apply", 72, false},
    {"particles", 0, false},
    {"particles_apply", 12, false},
    {"fluvial_control", 0, true},
    {"fluvial_descend", 0, false},
    {"fluvial_label_jump", 0, false},
    {"fluvial_edges", 0, false},
    {"fluvial_hook", 0, false},
    {"fluvial_hook_jump", 0, false},
    {"fluvial_relabel", 0, false},
    {"fluvial_level", 0, false},
    {"fluvial_flats", 0, false},
    {"fluvial_route", 0, false},
    {"fluvial_tree_init", 0, false},
    {"fluvial_tree_jump", 0, false},
    {"fluvial_tree_push", 0, false},
    {"fluvial_drainage", 0, false},
    {"fluvial_apply", 0, false},
    {"fluvial_deposit", 0, false},
}};


constexpr uint32_t kMaxSprings = 4096; // 64 KiB: the limit of vkCmdUpdateBuffer

struct FieldInfo {
    const char* name;
    int channels;
    VkFormat format;
    bool ping_pong;
};

constexpr std::array<FieldInfo, static_cast<size_t>(Field::Count)> kFields = {{
    {"terrain", 1, VK_FORMAT_R32_SFLOAT, true},
    {"water", 1, VK_FORMAT_R32_SFLOAT, true},
    {"sediment", 1, VK_FORMAT_R32_SFLOAT, true},
    {"outflow", 4, VK_FORMAT_R32G32B32A32_SFLOAT, true},
    {"velocity", 2, VK_FORMAT_R32G32_SFLOAT, false},
    {"hardness", 1, VK_FORMAT_R32_SFLOAT, false},
    {"thermal_axis", 4, VK_FORMAT_R32G32B32A32_SFLOAT, false},
    {"thermal_diag", 4, VK_FORMAT_R32G32B32A32_SFLOAT, false},
    {"rain_mask", 1, VK_FORMAT_R32_SFLOAT, false},
    {"wear", 2, VK_FORMAT_R32G32_SFLOAT, false},
    {"flow", 1, VK_FORMAT_R32_SFLOAT, false},
    {"scratch", 4, VK_FORMAT_R32G32B32A32_SFLOAT, false},
    {"lake", 1, VK_FORMAT_R32_SFLOAT, false},
    {"drainage", 1, VK_FORMAT_R32_SFLOAT, false},
    {"uplift", 1, VK_FORMAT_R32_SFLOAT, false},
}};

uint64_t blockCount(int width, int height) { return uint64_t((width + 1) / 2) * uint64_t((height + 1) / 2); }

uint32_t groupsX(int width);
uint32_t groupsY(int height);

// The fluvial model's buffers, in the order the constructor creates them: per cell, per basin
// block (one per 2 x 2 cells: pits are never neighbours), per tile and per ring node (RING_CELLS
// per tile). None is above 8 bytes a cell, so a 4096 x 4096 grid binds each in 128 MiB.
struct FluvialBufferSize {
    uint64_t bytes;
    const char* what;
};
std::array<FluvialBufferSize, 14> fluvialBufferSizes(int width, int height) {
    const uint64_t cells = uint64_t(width) * uint64_t(height), blocks = blockCount(width, height);
    const uint64_t tiles = uint64_t(groupsX(width)) * groupsY(height), ring = tiles * RING_CELLS;
    return {{{cells * 4, "filled levels"},
             {2 * cells * 4, "steps across flats"},
             {cells * 4, "receivers"},
             {cells * 8, "drainage accumulation"},
             {cells * 4, "erosion targets"},
             {cells * 8, "implicit erosion maps"},
             {3 * tiles * 4, "tile lists"},
             {cells * 4, "basin labels"},
             {2 * cells * 4, "basin edges"},
             {6 * blocks * 4, "basin graph"},
             {blocks * 8, "basin passes"},
             {4 * blocks * 4, "basin lists"},
             {6 * ring * 4, "tile crossings"},
             {4 * ring * 8, "values at tile crossings"}}};
}

const FieldInfo& info(Field f) { return kFields[static_cast<size_t>(f)]; }

uint32_t groupsX(int width) { return static_cast<uint32_t>((width + WG_X - 1) / WG_X); }
uint32_t groupsY(int height) { return static_cast<uint32_t>((height + WG_Y - 1) / WG_Y); }

// The reductions keep one partial per subgroup; the smallest subgroup we accept is 4 wide.
constexpr uint32_t kMinSubgroupSize = 4;

uint32_t subgroupSize(const Context& ctx) {
    VkPhysicalDeviceSubgroupProperties subgroup{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SUBGROUP_PROPERTIES};
    VkPhysicalDeviceProperties2 props{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2};
    props.pNext = &subgroup;
    vkGetPhysicalDeviceProperties2(ctx.physical, &props);
    const bool arithmetic = (subgroup.supportedOperations & VK_SUBGROUP_FEATURE_ARITHMETIC_BIT) &&
                            (subgroup.supportedStages & VK_SHADER_STAGE_COMPUTE_BIT);
    if (!arithmetic || subgroup.subgroupSize < kMinSubgroupSize || WG_SIZE % subgroup.subgroupSize != 0)
        throw DeviceError(ctx.device_name + " lacks subgroup arithmetic in compute shaders (needed for the reductions)");
    return subgroup.subgroupSize;
}

uint64_t partialsBytes(int width, int height, uint32_t subgroup_size) {
    return uint64_t(REDUCE_SLOTS) * groupsX(width) * groupsY(height) * (WG_SIZE / subgroup_size) *
           sizeof(float);
}

} // namespace

int fieldChannels(Field f) { return info(f).channels; }
const char* fieldName(Field f) { return info(f).name; }
const char* passName(Pass p) { return kPasses[static_cast<size_t>(p)].name; }
double passBytesPerCell(Pass p) { return kPasses[static_cast<size_t>(p)].bytes; }

const std::vector<Pass>& modelPasses(int model) {
    static const std::vector<Pass> pipe = {
        Pass::Sources,        Pass::OutflowFlux,       Pass::WaterUpdate,    Pass::Velocity,
        Pass::ErosionDeposition, Pass::SedimentTransport, Pass::ReduceSediment, Pass::SedimentCorrect,
        Pass::ThermalOutflow, Pass::ThermalGather,     Pass::Evaporation,    Pass::ReduceTotals};
    static const std::vector<Pass> talus = {Pass::TalusOutflow, Pass::TalusGather};
    static const std::vector<Pass> musgrave = {Pass::MusgraveTransfer, Pass::MusgraveApply};
    static const std::vector<Pass> simple = {Pass::SimpleTransfer, Pass::SimpleApply};
    static const std::vector<Pass> particles = {Pass::Particles, Pass::ParticlesApply};
    // Phases: basins, pass points, spill solve, flats, route, accumulate, erode, deposit.
    static const std::vector<Pass> fluvial = {Pass::FluvialDescend, Pass::FluvialEdges, Pass::FluvialHook,
                                              Pass::FluvialFlats, Pass::FluvialRoute, Pass::FluvialDrainage,
                                              Pass::FluvialApply, Pass::FluvialDeposit};
    switch (model) {
    case MODEL_THERMAL:
    case MODEL_OLSEN: return talus;
    case MODEL_MUSGRAVE: return musgrave;
    case MODEL_SIMPLE: return simple;
    case MODEL_PARTICLES: return particles;
    case MODEL_FLUVIAL: return fluvial;
    default: return pipe;
    }
}

const char* fluvialPhaseName(size_t phase) {
    static const char* const names[] = {"basins", "pass_points", "spill_solve", "flats",
                                        "route",  "accumulate",  "erode",       "deposit"};
    return phase < std::size(names) ? names[phase] : "?";
}

const char* modelName(int model) {
    switch (model) {
    case MODEL_THERMAL: return "thermal";
    case MODEL_OLSEN: return "olsen";
    case MODEL_PARTICLES: return "particles";
    case MODEL_MUSGRAVE: return "musgrave";
    case MODEL_SIMPLE: return "simple";
    case MODEL_FLUVIAL: return "fluvial";
    default: return "pipe";
    }
}

int modelFromName(const std::string& name) {
    for (int m = 0; m < MODEL_COUNT; ++m)
        if (name == modelName(m)) return m;
    return -1;
}

uint64_t simulationBytes(int width, int height) {
    const uint64_t cells = uint64_t(width) * uint64_t(height);
    uint64_t per_cell = 0;
    for (const FieldInfo& f : kFields) per_cell += uint64_t(f.channels) * 4u * (f.ping_pong ? 2u : 1u);
    uint64_t fluvial = 0;
    for (const FluvialBufferSize& b : fluvialBufferSizes(width, height)) fluvial += b.bytes;
    return cells * per_cell + fluvial + partialsBytes(width, height, kMinSubgroupSize) + sizeof(SimParams) +
           sizeof(Totals) + kMaxSprings * sizeof(Spring);
}

uint64_t fluvialLargestBuffer(int width, int height) {
    uint64_t largest = 0;
    for (const FluvialBufferSize& b : fluvialBufferSizes(width, height)) largest = std::max(largest, b.bytes);
    return largest;
}

Simulation::Simulation(const Context& ctx, int width, int height)
    : ctx_(ctx), width_(width), height_(height) {
    assert(width > 0 && height > 0);
    const uint64_t need = simulationBytes(width, height);
    if (ctx.device_local_bytes > 0 && need > ctx.device_local_bytes)
        throw DeviceError("a " + std::to_string(width) + "x" + std::to_string(height) +
                          " grid needs " + std::to_string(need >> 20) + " MiB of GPU memory; " +
                          ctx.device_name + " has " + std::to_string(ctx.device_local_bytes >> 20) +
                          " MiB");

    const auto w = static_cast<uint32_t>(width), h = static_cast<uint32_t>(height);
    for (int i = 0; i < 2; ++i) {
        createStorageImage(terrain_[i], ctx, w, h, info(Field::Terrain).format);
        createStorageImage(water_[i], ctx, w, h, info(Field::Water).format);
        createStorageImage(sediment_[i], ctx, w, h, info(Field::Sediment).format);
        createStorageImage(outflow_[i], ctx, w, h, info(Field::Outflow).format);
    }
    createStorageImage(velocity_, ctx, w, h, info(Field::Velocity).format);
    createStorageImage(hardness_, ctx, w, h, info(Field::Hardness).format);
    createStorageImage(thermal_axis_, ctx, w, h, info(Field::ThermalAxis).format);
    createStorageImage(thermal_diag_, ctx, w, h, info(Field::ThermalDiag).format);
    createStorageImage(rain_mask_, ctx, w, h, info(Field::RainMask).format);
    createStorageImage(wear_, ctx, w, h, info(Field::Wear).format);
    createStorageImage(flow_, ctx, w, h, info(Field::Flow).format);
    createStorageImage(scratch_, ctx, w, h, info(Field::Scratch).format);
    createStorageImage(lake_, ctx, w, h, info(Field::Lake).format);
    createStorageImage(drainage_, ctx, w, h, info(Field::Drainage).format);
    createStorageImage(uplift_, ctx, w, h, info(Field::Uplift).format);
    upload(Field::RainMask, std::vector<float>(size_t(w) * h, 1.0f));
    upload(Field::Uplift, std::vector<float>(size_t(w) * h, 1.0f));

    const VkBufferUsageFlags storage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT;
    createBuffer(params_buffer_, ctx, sizeof(SimParams), storage, false);
    subgroup_size_ = subgroupSize(ctx);
    createBuffer(partials_, ctx, partialsBytes(width, height, subgroup_size_), storage, false);
    createBuffer(totals_, ctx, sizeof(Totals), storage, true);
    createBuffer(springs_buffer_, ctx, kMaxSprings * sizeof(Spring), storage, false);
    createBuffer(delta_, ctx, uint64_t(w) * h * sizeof(int32_t), storage, false);
    createBuffer(drained_, ctx, sizeof(int64_t), storage, false);
    const uint64_t cells = uint64_t(w) * h;
    // Cell indices << 4 (edge lists) must fit in 32 bits, coordinates in 16 bits (cell lists).
    if (cells >= (uint64_t(1) << 28) || width > 65535 || height > 65535)
        throw DeviceError("a " + std::to_string(width) + "x" + std::to_string(height) +
                          " grid has too many cells for the fluvial model (at most 2^28, 65535 a side)");
    // Every buffer is bound whole: none may exceed the device's range for one binding (128 MiB
    // on lavapipe), nor its largest allocation (checked when allocating).
    const uint64_t max_range = ctx.properties.limits.maxStorageBufferRange;
    const auto fluvial_sizes = fluvialBufferSizes(width, height);
    for (const FluvialBufferSize& b : fluvial_sizes)
        if (b.bytes > max_range)
            throw DeviceError("a " + std::to_string(width) + "x" + std::to_string(height) + " grid needs " +
                              std::to_string(b.bytes >> 20) + " MiB for the fluvial model's " + b.what + "; " +
                              ctx.device_name + " binds at most " + std::to_string(max_range >> 20) +
                              " MiB in one storage buffer");
    Buffer* const fluvial[] = {&fluvial_level_, &fluvial_steps_, &fluvial_rcv_,   &fluvial_acc_,   &fluvial_anc_,
                               &fluvial_ab_,    &fluvial_tiles_, &fluvial_label_, &fluvial_edges_, &fluvial_basin_,
                               &fluvial_best_,  &fluvial_lists_, &fluvial_ring_,  &fluvial_ring_val_};
    static_assert(std::size(fluvial) == std::tuple_size_v<decltype(fluvial_sizes)>);
    for (size_t k = 0; k < fluvial_sizes.size(); ++k) createBuffer(*fluvial[k], ctx, fluvial_sizes[k].bytes, storage, false);
    // The control lives in device memory (every round's passes update its counters with atomics;
    // in host memory each would cross the bus); each step ends with a copy for the host.
    createBuffer(fluvial_control_, ctx, sizeof(FluvialControl), storage | VK_BUFFER_USAGE_INDIRECT_BUFFER_BIT, false);
    createBuffer(fluvial_control_host_, ctx, sizeof(FluvialControl), 0, true);
    std::memset(fluvial_control_host_.mapped, 0, sizeof(FluvialControl));
    resetTotals();
    // Partials are summed by the reductions before every pass has written its slot once.
    VkCommandBuffer cmd = beginOneShot(ctx);
    vkCmdFillBuffer(cmd, partials_.buffer, 0, VK_WHOLE_SIZE, 0);
    vkCmdFillBuffer(cmd, springs_buffer_.buffer, 0, VK_WHOLE_SIZE, 0);
    vkCmdFillBuffer(cmd, delta_.buffer, 0, VK_WHOLE_SIZE, 0);
    vkCmdFillBuffer(cmd, drained_.buffer, 0, VK_WHOLE_SIZE, 0);
    vkCmdFillBuffer(cmd, fluvial_control_.buffer, 0, VK_WHOLE_SIZE, 0);
    endOneShot(ctx, cmd);

    // One layout for every pass: each shader declares the bindings it uses from shared.h.
    std::vector<VkDescriptorSetLayoutBinding> bindings(BINDING_COUNT);
    for (uint32_t b = 0; b < BINDING_COUNT; ++b) {
        const bool buffer = b == B_PARAMS || b == B_PARTIALS || b == B_TOTALS || b == B_SPRINGS ||
                            b == B_DELTA || b == B_DRAINED || (b >= B_FLUVIAL_LEVEL && b <= B_FLUVIAL_CONTROL) ||
                            b >= B_FLUVIAL_TILES;
        bindings[b] = {b, buffer ? VK_DESCRIPTOR_TYPE_STORAGE_BUFFER : VK_DESCRIPTOR_TYPE_STORAGE_IMAGE,
                       1, VK_SHADER_STAGE_COMPUTE_BIT, nullptr};
    }
    VkDescriptorSetLayoutCreateInfo set_info{VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO};
    set_info.bindingCount = BINDING_COUNT;
    set_info.pBindings = bindings.data();
    VK_CHECK(vkCreateDescriptorSetLayout(ctx.device, &set_info, nullptr, &set_layout_));

    const VkPushConstantRange push{VK_SHADER_STAGE_COMPUTE_BIT, 0, sizeof(PushConstants)};
    VkPipelineLayoutCreateInfo layout_info{VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO};
    layout_info.setLayoutCount = 1;
    layout_info.pSetLayouts = &set_layout_;
    layout_info.pushConstantRangeCount = 1;
    layout_info.pPushConstantRanges = &push;
    VK_CHECK(vkCreatePipelineLayout(ctx.device, &layout_info, nullptr, &pipeline_layout_));

    const VkDescriptorPoolSize sizes[] = {{VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 2 * BINDING_COUNT},
                                          {VK_DESCRIPTOR_TYPE_STORAGE_IMAGE, 2 * BINDING_COUNT}};
    VkDescriptorPoolCreateInfo pool_info{VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO};
    pool_info.maxSets = 2;
    pool_info.poolSizeCount = 2;
    pool_info.pPoolSizes = sizes;
    VK_CHECK(vkCreateDescriptorPool(ctx.device, &pool_info, nullptr, &descriptor_pool_));
    const VkDescriptorSetLayout layouts[2] = {set_layout_, set_layout_};
    VkDescriptorSetAllocateInfo alloc{VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO};
    alloc.descriptorPool = descriptor_pool_;
    alloc.descriptorSetCount = 2;
    alloc.pSetLayouts = layouts;
    VK_CHECK(vkAllocateDescriptorSets(ctx.device, &alloc, sets_.data()));

    // Set `parity` binds cur = [parity], next = [1 - parity].
    for (int parity = 0; parity < 2; ++parity) {
        std::array<VkDescriptorImageInfo, BINDING_COUNT> images{};
        std::array<VkDescriptorBufferInfo, BINDING_COUNT> buffers{};
        std::vector<VkWriteDescriptorSet> writes;
        auto image = [&](uint32_t binding, const Image& img) {
            images[binding] = {VK_NULL_HANDLE, img.view, VK_IMAGE_LAYOUT_GENERAL};
            VkWriteDescriptorSet wr{VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET};
            wr.dstSet = sets_[static_cast<size_t>(parity)];
            wr.dstBinding = binding;
            wr.descriptorCount = 1;
            wr.descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_IMAGE;
            wr.pImageInfo = &images[binding];
            writes.push_back(wr);
        };
        auto buffer = [&](uint32_t binding, const Buffer& buf) {
            buffers[binding] = {buf.buffer, 0, VK_WHOLE_SIZE};
            VkWriteDescriptorSet wr{VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET};
            wr.dstSet = sets_[static_cast<size_t>(parity)];
            wr.dstBinding = binding;
            wr.descriptorCount = 1;
            wr.descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
            wr.pBufferInfo = &buffers[binding];
            writes.push_back(wr);
        };
        const size_t cur = static_cast<size_t>(parity), next = 1 - cur;
        buffer(B_PARAMS, params_buffer_);
        image(B_TERRAIN_CUR, terrain_[cur]);
        image(B_TERRAIN_NEXT, terrain_[next]);
        image(B_WATER_CUR, water_[cur]);
        image(B_WATER_NEXT, water_[next]);
        image(B_SEDIMENT_CUR, sediment_[cur]);
        image(B_SEDIMENT_NEXT, sediment_[next]);
        image(B_OUTFLOW_CUR, outflow_[cur]);
        image(B_OUTFLOW_NEXT, outflow_[next]);
        image(B_VELOCITY, velocity_);
        image(B_HARDNESS, hardness_);
        image(B_THERMAL_AXIS, thermal_axis_);
        image(B_THERMAL_DIAG, thermal_diag_);
        image(B_RAIN_MASK, rain_mask_);
        image(B_WEAR, wear_);
        image(B_FLOW, flow_);
        image(B_SCRATCH, scratch_);
        buffer(B_DELTA, delta_);
        buffer(B_DRAINED, drained_);
        buffer(B_PARTIALS, partials_);
        buffer(B_TOTALS, totals_);
        buffer(B_SPRINGS, springs_buffer_);
        image(B_LAKE, lake_);
        image(B_DRAINAGE, drainage_);
        image(B_UPLIFT, uplift_);
        buffer(B_FLUVIAL_LEVEL, fluvial_level_);
        buffer(B_FLUVIAL_STEPS, fluvial_steps_);
        buffer(B_FLUVIAL_LABEL, fluvial_label_);
        buffer(B_FLUVIAL_EDGES, fluvial_edges_);
        buffer(B_FLUVIAL_BASIN, fluvial_basin_);
        buffer(B_FLUVIAL_BEST, fluvial_best_);
        buffer(B_FLUVIAL_LISTS, fluvial_lists_);
        buffer(B_FLUVIAL_RING, fluvial_ring_);
        buffer(B_FLUVIAL_RING_VAL, fluvial_ring_val_);
        buffer(B_FLUVIAL_RCV, fluvial_rcv_);
        buffer(B_FLUVIAL_ACC, fluvial_acc_);
        buffer(B_FLUVIAL_ANC, fluvial_anc_);
        buffer(B_FLUVIAL_AB, fluvial_ab_);
        buffer(B_FLUVIAL_CONTROL, fluvial_control_);
        buffer(B_FLUVIAL_TILES, fluvial_tiles_);
        vkUpdateDescriptorSets(ctx.device, static_cast<uint32_t>(writes.size()), writes.data(), 0,
                               nullptr);
    }

    SimParams defaults{};
    setParams(defaults);
}

Simulation::~Simulation() {
    vkDeviceWaitIdle(ctx_.device);
    for (VkPipeline p : pipelines_)
        if (p != VK_NULL_HANDLE) vkDestroyPipeline(ctx_.device, p, nullptr);
    vkDestroyDescriptorPool(ctx_.device, descriptor_pool_, nullptr);
    vkDestroyPipelineLayout(ctx_.device, pipeline_layout_, nullptr);
    vkDestroyDescriptorSetLayout(ctx_.device, set_layout_, nullptr);
    for (Buffer* b : {&params_buffer_, &partials_, &totals_, &springs_buffer_, &delta_, &drained_, &fluvial_level_,
                      &fluvial_steps_, &fluvial_rcv_, &fluvial_acc_, &fluvial_anc_, &fluvial_ab_, &fluvial_control_, &fluvial_control_host_,
                      &fluvial_tiles_, &fluvial_label_, &fluvial_edges_, &fluvial_basin_, &fluvial_best_,
                      &fluvial_lists_, &fluvial_ring_, &fluvial_ring_val_})
        destroyBuffer(*b, ctx_);
    for (int i = 0; i < 2; ++i)
        for (Image* img : {&terrain_[size_t(i)], &water_[size_t(i)], &sediment_[size_t(i)], &outflow_[size_t(i)]})
            destroyImage(*img, ctx_);
    for (Image* img : {&velocity_, &hardness_, &thermal_axis_, &thermal_diag_, &rain_mask_, &wear_, &flow_, &scratch_, &lake_, &drainage_,
                        &uplift_})
        destroyImage(*img, ctx_);
}

const Image& Simulation::image(Field f, bool next) const {
    const size_t i = static_cast<size_t>(parity_ ^ (next ? 1 : 0));
    switch (f) {
    case Field::Terrain: return terrain_[i];
    case Field::Water: return water_[i];
    case Field::Sediment: return sediment_[i];
    case Field::Outflow: return outflow_[i];
    case Field::Velocity: return velocity_;
    case Field::Hardness: return hardness_;
    case Field::ThermalAxis: return thermal_axis_;
    case Field::ThermalDiag: return thermal_diag_;
    case Field::RainMask: return rain_mask_;
    case Field::Wear: return wear_;
    case Field::Flow: return flow_;
    case Field::Scratch: return scratch_;
    case Field::Lake: return lake_;
    case Field::Drainage: return drainage_;
    case Field::Uplift: return uplift_;
    case Field::Count: break;
    }
    assert(false);
    return terrain_[0];
}

void Simulation::upload(Field f, const std::vector<float>& data, bool next) {
    assert(data.size() == size_t(width_) * size_t(height_) * size_t(fieldChannels(f)));
    uploadImage(ctx_, image(f, next), data.data(), data.size() * sizeof(float));
}

std::vector<float> Simulation::download(Field f, bool next) const {
    std::vector<float> data(size_t(width_) * size_t(height_) * size_t(fieldChannels(f)));
    downloadImage(ctx_, image(f, next), data.data(), data.size() * sizeof(float));
    return data;
}

void Simulation::setParams(const SimParams& params) {
    params_ = params;
    params_.width = width_;
    params_.height = height_;
    params_.group_count_x = static_cast<int>(groupsX(width_));
    params_.group_count_y = static_cast<int>(groupsY(height_));
    params_.partial_count = static_cast<int>(groupsX(width_) * groupsY(height_) * (WG_SIZE / subgroup_size_));
    params_.spring_count = static_cast<int>(springs_.size());
    params_dirty_ = true;
}

void Simulation::setSprings(const std::vector<Spring>& springs) {
    springs_.assign(springs.begin(), springs.begin() + std::min<size_t>(springs.size(), kMaxSprings));
    params_.spring_count = static_cast<int>(springs_.size());
    springs_dirty_ = true;
    params_dirty_ = true;
}

void Simulation::resetTotals() {
    Totals zero{};
    zero.sediment_scale = 1.0f;
    std::memcpy(totals_.mapped, &zero, sizeof(Totals));
}

void Simulation::setTotals(const Totals& totals) {
    std::memcpy(totals_.mapped, &totals, sizeof(Totals));
}

Totals Simulation::totals() const {
    Totals t{};
    std::memcpy(&t, totals_.mapped, sizeof(Totals));
    return t;
}

void Simulation::recordUpdates(VkCommandBuffer cmd) {
    if (params_dirty_) {
        vkCmdUpdateBuffer(cmd, params_buffer_.buffer, 0, sizeof(SimParams), &params_);
        params_dirty_ = false;
    }
    if (springs_dirty_ && !springs_.empty()) {
        vkCmdUpdateBuffer(cmd, springs_buffer_.buffer, 0, springs_.size() * sizeof(Spring), springs_.data());
    }
    springs_dirty_ = false;
    computeBarrier(cmd);
}

VkPipeline Simulation::pipeline(Pass pass) {
    // Created at first use: a model's shaders are loaded only when that model runs.
    VkPipeline& p = pipelines_[static_cast<size_t>(pass)];
    if (p == VK_NULL_HANDLE) {
        const std::vector<uint32_t> code = loadSpirv(shaderDirectory() / (std::string(passName(pass)) + ".spv"));
        VkShaderModule module = createShaderModule(ctx_, code);
        p = createComputePipeline(ctx_, pipeline_layout_, module);
        vkDestroyShaderModule(ctx_.device, module, nullptr);
    }
    return p;
}

void Simulation::dispatch(VkCommandBuffer cmd, Pass pass, int mode) {
    const PassInfo& p = kPasses[static_cast<size_t>(pass)];
    vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, pipeline(pass));
    const PushConstants push{step_index_, mode};
    vkCmdPushConstants(cmd, pipeline_layout_, VK_SHADER_STAGE_COMPUTE_BIT, 0, sizeof push, &push);
    if (p.single_group)
        vkCmdDispatch(cmd, 1, 1, 1);
    else if (pass == Pass::Particles) // one invocation per droplet
        vkCmdDispatch(cmd, (static_cast<uint32_t>(std::max(params_.particle_count, 0)) + WG_SIZE - 1) / WG_SIZE, 1, 1);
    else
        vkCmdDispatch(cmd, groupsX(width_), groupsY(height_), 1);
}

void Simulation::dispatchJob(VkCommandBuffer cmd, Pass pass, int job, int mode) {
    vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, pipeline(pass));
    const PushConstants push{step_index_, mode};
    vkCmdPushConstants(cmd, pipeline_layout_, VK_SHADER_STAGE_COMPUTE_BIT, 0, sizeof push, &push);
    vkCmdDispatchIndirect(cmd, fluvial_control_.buffer, VkDeviceSize(job) * 3 * sizeof(uint32_t));
}

void Simulation::bindSet(VkCommandBuffer cmd) {
    vkCmdBindDescriptorSets(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, pipeline_layout_, 0, 1,
                            &sets_[static_cast<size_t>(parity_)], 0, nullptr);
}

void Simulation::recordPass(VkCommandBuffer cmd, Pass pass) {
    vkCmdBindDescriptorSets(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, pipeline_layout_, 0, 1,
                            &sets_[static_cast<size_t>(parity_)], 0, nullptr);
    dispatch(cmd, pass);
    computeBarrier(cmd);
}

void Simulation::recordStep(VkCommandBuffer cmd, GpuTimer* timer) {
    bindSet(cmd);
    if (timer) writeTimestamp(*timer, cmd);
    if (params_.model == MODEL_FLUVIAL) {
        recordFluvialStep(cmd, timer);
    } else {
        // Every pass reads what the one before wrote: a full compute barrier between each.
        for (Pass pass : modelPasses(params_.model)) {
            dispatch(cmd, pass);
            computeBarrier(cmd);
            if (timer) writeTimestamp(*timer, cmd);
        }
    }
    parity_ ^= 1;
    ++step_index_;
}

void Simulation::run(int steps, const std::function<void(int)>& progress) {
    // Batches of roughly 4M cell-steps keep each submission short (so progress shows) while
    // amortising the submit and wait.
    const int cells = width_ * height_;
    const int batch = std::clamp((1 << 22) / std::max(cells, 1), 1, 200);
    int done = 0;
    while (done < steps) {
        const int n = std::min(batch, steps - done);
        VkCommandBuffer cmd = beginOneShot(ctx_);
        recordUpdates(cmd);
        for (int i = 0; i < n; ++i) recordStep(cmd);
        endOneShot(ctx_, cmd);
        done += n;
        if (progress) progress(done);
    }
}

void Simulation::reloadPass(Pass pass, const std::vector<uint32_t>& spirv) {
    VkShaderModule module = createShaderModule(ctx_, spirv);
    VkPipeline fresh = createComputePipeline(ctx_, pipeline_layout_, module);
    vkDestroyShaderModule(ctx_.device, module, nullptr);
    vkDeviceWaitIdle(ctx_.device); // frames in flight may still use the old one
    VkPipeline& p = pipelines_[static_cast<size_t>(pass)];
    if (p != VK_NULL_HANDLE) vkDestroyPipeline(ctx_.device, p, nullptr);
    p = fresh;
}

void Simulation::runPass(Pass pass) {
    VkCommandBuffer cmd = beginOneShot(ctx_);
    recordUpdates(cmd);
    recordPass(cmd, pass);
    endOneShot(ctx_, cmd);
}

} // namespace alluvium::gpu
