// The simulation: its buffers and descriptor sets, its pipelines, and a step's recording by
// model (each model's passes in their own file: pipe.cpp, fluvial.cpp, groundwater.cpp, ...).
// The fields' images are in fields.cpp, the fluvial model's buffers in fluvial_buffers.cpp.
#include "simulation.h"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <string>

#include "pipeline.h"
#include "vk_check.h"

namespace alluvium::gpu {

namespace {

constexpr uint32_t kMaxSprings = 4096; // 64 KiB: the limit of vkCmdUpdateBuffer

// The ping-pong fields a model's step writes (its "next" halves); the others keep their half.
int writtenPingPong(int model) {
    constexpr int terrain = 1, water = 2, sediment = 4, outflow = 8;
    switch (model) {
    case MODEL_THERMAL:
    case MODEL_OLSEN:
    case MODEL_FLUVIAL: return terrain; // the fluvial model leaves the pipe model's fields as they are
    case MODEL_MUSGRAVE:
    case MODEL_SIMPLE: return terrain | water | sediment; // no outflow: their water moves without one
    case MODEL_PARTICLES: return terrain | sediment;      // droplets carry no standing water
    default: return terrain | water | sediment | outflow;
    }
}

// The step's sums reduce each subgroup first (partials.glsl: subgroupAdd, subgroupMax), and the
// fluvial passes vote per subgroup (subgroupAny, subgroupElect). A workgroup holds at most
// WG_SIZE / 4 subgroups.
void checkSubgroups(const Context& ctx) {
    VkPhysicalDeviceSubgroupProperties subgroup{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SUBGROUP_PROPERTIES};
    VkPhysicalDeviceProperties2 props{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2};
    props.pNext = &subgroup;
    vkGetPhysicalDeviceProperties2(ctx.physical, &props);
    const VkSubgroupFeatureFlags needed =
        VK_SUBGROUP_FEATURE_BASIC_BIT | VK_SUBGROUP_FEATURE_VOTE_BIT | VK_SUBGROUP_FEATURE_ARITHMETIC_BIT;
    if ((subgroup.supportedOperations & needed) != needed || !(subgroup.supportedStages & VK_SHADER_STAGE_COMPUTE_BIT) ||
        subgroup.subgroupSize < 4)
        throw DeviceError(ctx.device_name + " lacks subgroup arithmetic and votes in compute shaders (subgroups of 4 "
                                            "or more lanes)");
}

} // namespace

uint64_t partialsCount(uint32_t workgroups) {
    uint64_t n = 0;
    for (uint32_t level : foldLevelSizes(workgroups)) n += uint64_t(level) * REDUCE_SLOTS;
    return n;
}

bool splitsWideFields(const Context& ctx, int width, int height) {
    // One rgba32f image, with room for the driver's alignment padding.
    const uint64_t bytes = uint64_t(width) * uint64_t(height) * 16u;
    return ctx.max_allocation_bytes > 0 && bytes + bytes / 64 > ctx.max_allocation_bytes;
}

uint64_t simulationBytes(int width, int height, uint32_t partials_per_group) {
    const uint64_t cells = uint64_t(width) * uint64_t(height);
    // The fields, and the particles' height changes (the sums per workgroup follow).
    const uint64_t per_cell = fieldBytesPerCell() + sizeof(int64_t);
    uint64_t sums = 0;
    for (const WorkgroupShape& s : workgroupShapes()) {
        const uint32_t groups = workgroupCount(width, height, s);
        sums = std::max(sums, (partialsBufferDoubles(groups, partials_per_group) + 2 * uint64_t(groups) * partials_per_group) *
                                  sizeof(double));
    }
    return cells * per_cell + sums + sizeof(SimParams) + sizeof(Totals) + kMaxSprings * sizeof(Spring) +
           sizeof(SeaControl);
}

PipePasses resolvePipePasses(const Context& ctx, PipePasses asked) {
    if (asked != PipePasses::Auto) return asked;
    if (const char* env = std::getenv("ALLUVIUM_PIPE_PASSES"); env && *env) {
        if (std::string(env) == "fused") return PipePasses::Fused;
        if (std::string(env) == "direct") return PipePasses::Direct;
    }
    return ctx.properties.deviceType == VK_PHYSICAL_DEVICE_TYPE_CPU ? PipePasses::Direct : PipePasses::Fused;
}

Simulation::Simulation(const Context& ctx, int width, int height, PipePasses pipe, WorkgroupShape shape)
    : ctx_(ctx), width_(width), height_(height), pipe_passes_(resolvePipePasses(ctx, pipe)),
      shape_(resolveWorkgroupShape(ctx, shape)) {
    assert(width > 0 && height > 0);
    // One partial per subgroup (CPU drivers) while the partials buffer stays one allocation and
    // one binding (maxStorageBufferRange: 128 MiB on lavapipe, about 2600^2 cells).
    partials_per_group_ = resolvePartialsPerGroup(ctx);
    if (partials_per_group_ > 1) {
        const uint64_t bytes =
            partialsBufferDoubles(workgroupCount(width, height, shape_), partials_per_group_) * sizeof(double);
        if (bytes > ctx.properties.limits.maxStorageBufferRange ||
            (ctx.max_allocation_bytes > 0 && bytes > ctx.max_allocation_bytes))
            partials_per_group_ = 1;
    }
    const uint64_t need = simulationBytes(width, height, partials_per_group_);
    if (ctx.device_local_bytes > 0 && need > ctx.device_local_bytes)
        throw DeviceError("a " + std::to_string(width) + "x" + std::to_string(height) +
                          " grid needs " + std::to_string(need >> 20) + " MiB of GPU memory; " +
                          ctx.device_name + " has " + std::to_string(ctx.device_local_bytes >> 20) +
                          " MiB");
    checkSubgroups(ctx);
    split_wide_ = splitsWideFields(ctx, width, height);

    fields_ = std::make_unique<FieldImages>(ctx, width, height, split_wide_, pipe_passes_ == PipePasses::Direct);

    const VkBufferUsageFlags storage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT;
    createBuffer(params_buffer_, ctx, sizeof(SimParams), storage, false);
    createBuffer(partials_, ctx, partialsBufferDoubles(workgroupCount(width, height, shape_), partials_per_group_) * sizeof(double),
                 storage, false);
    createBuffer(totals_, ctx, sizeof(Totals), storage, true);
    createBuffer(springs_buffer_, ctx, kMaxSprings * sizeof(Spring), storage, false);
    createBuffer(delta_, ctx, uint64_t(width) * uint64_t(height) * sizeof(int64_t), storage, false); // particles.glsl
    // The model totals: the droplets' four int64 counters, then musgrave's and simple's water sums
    // per workgroup (two slots; per subgroup on CPU drivers).
    createBuffer(drained_, ctx,
                 4 * sizeof(int64_t) + 2 * uint64_t(workgroupCount(width, height, shape_)) * partials_per_group_ * sizeof(double),
                 storage, false);
    // The fluvial model's buffers wait for that model (allocateFluvial); until then its bindings
    // hold this stand-in.
    createBuffer(unused_buffer_, ctx, sizeof(FluvialControl), storage | VK_BUFFER_USAGE_INDIRECT_BUFFER_BIT, false);
    createBuffer(sea_control_, ctx, sizeof(SeaControl), storage | VK_BUFFER_USAGE_INDIRECT_BUFFER_BIT, true);
    std::memset(sea_control_.mapped, 0, sizeof(SeaControl));
    resetTotals();
    // Partials of slots a step does not produce are folded as zeros.
    VkCommandBuffer cmd = beginOneShot(ctx);
    vkCmdFillBuffer(cmd, partials_.buffer, 0, VK_WHOLE_SIZE, 0);
    vkCmdFillBuffer(cmd, springs_buffer_.buffer, 0, VK_WHOLE_SIZE, 0);
    vkCmdFillBuffer(cmd, delta_.buffer, 0, VK_WHOLE_SIZE, 0);
    vkCmdFillBuffer(cmd, drained_.buffer, 0, VK_WHOLE_SIZE, 0);
    vkCmdFillBuffer(cmd, unused_buffer_.buffer, 0, VK_WHOLE_SIZE, 0);
    endOneShot(ctx, cmd);

    createDescriptorSets();

    SimParams defaults{};
    setParams(defaults);
}

Simulation::~Simulation() {
    vkDeviceWaitIdle(ctx_.device);
    for (const auto& [key, p] : pipelines_) vkDestroyPipeline(ctx_.device, p, nullptr);
    vkDestroyDescriptorPool(ctx_.device, descriptor_pool_, nullptr);
    vkDestroyPipelineLayout(ctx_.device, pipeline_layout_, nullptr);
    vkDestroyDescriptorSetLayout(ctx_.device, set_layout_, nullptr);
    for (Buffer* b : {&params_buffer_, &partials_, &totals_, &springs_buffer_, &delta_, &drained_, &unused_buffer_,
                      &sea_control_})
        destroyBuffer(*b, ctx_);
    destroyFluvialBuffers();
}

void Simulation::createDescriptorSets() {
    // One layout for every pass: the buffers' slots (shared.h), then the fields' (their rows);
    // each shader declares the bindings it uses.
    std::vector<VkDescriptorSetLayoutBinding> bindings;
    uint32_t image_slots = 0;
    for (uint32_t b = 0; b < B_BUFFER_COUNT; ++b)
        bindings.push_back({b, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 1, VK_SHADER_STAGE_COMPUTE_BIT, nullptr});
    for (int i = 0; i < kFieldCount; ++i)
        for (uint32_t k = 0; k < fieldSlots(Field(i)); ++k, ++image_slots)
            bindings.push_back({kFieldTable[size_t(i)].binding + k, VK_DESCRIPTOR_TYPE_STORAGE_IMAGE, 1,
                                VK_SHADER_STAGE_COMPUTE_BIT, nullptr});
    set_layout_ = createSetLayout(ctx_, bindings.data(), uint32_t(bindings.size()));
    pipeline_layout_ = createComputeLayout(ctx_, set_layout_, sizeof(PushConstants));
    descriptor_pool_ = createDescriptorPool(ctx_, kParityKeys,
                                            {{VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, kParityKeys * B_BUFFER_COUNT},
                                             {VK_DESCRIPTOR_TYPE_STORAGE_IMAGE, kParityKeys * image_slots}});
    allocateSets(ctx_, descriptor_pool_, set_layout_, kParityKeys, sets_.data());
    // Set `key` binds, for each ping-pong field, cur = [its bit of key], next = the other half.
    const std::pair<uint32_t, const Buffer*> buffers[] = {
        {B_PARAMS, &params_buffer_}, {B_PARTIALS, &partials_}, {B_TOTALS, &totals_},          {B_SPRINGS, &springs_buffer_},
        {B_DELTA, &delta_},          {B_DRAINED, &drained_},   {B_SEA_CONTROL, &sea_control_}};
    for (int key = 0; key < kParityKeys; ++key) {
        std::vector<VkWriteDescriptorSet> writes;
        std::deque<VkDescriptorImageInfo> images;
        std::deque<VkDescriptorBufferInfo> infos;
        fields_->describe(sets_[size_t(key)], key, writes, images);
        for (const auto& [slot, buffer] : buffers) {
            infos.push_back({buffer->buffer, 0, VK_WHOLE_SIZE});
            VkWriteDescriptorSet w{VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET};
            w.dstSet = sets_[size_t(key)];
            w.dstBinding = slot;
            w.descriptorCount = 1;
            w.descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
            w.pBufferInfo = &infos.back();
            writes.push_back(w);
        }
        vkUpdateDescriptorSets(ctx_.device, uint32_t(writes.size()), writes.data(), 0, nullptr);
    }
    bindFluvialBuffers();
}

int Simulation::half(Field f, bool next) const {
    const int bit = fieldPingPongBit(f);
    return bit < 0 ? 0 : ((parity_ >> bit) & 1) ^ (next ? 1 : 0);
}

const Image& Simulation::currentImage(Field f, int key, int part) const {
    const int bit = fieldPingPongBit(f);
    return fields_->image(f, bit < 0 ? 0 : (key >> bit) & 1, part);
}

const Image& Simulation::fieldImage(Field f, int half) const { return fields_->image(f, half); }

std::vector<const Image*> Simulation::fieldImages(Field f, bool next) const { return fields_->images(f, half(f, next)); }

void Simulation::upload(Field f, const std::vector<float>& data, bool next) {
    if (f == Field::RainMask)
        rain_uniform_ = std::all_of(data.begin(), data.end(), [](float v) { return v == 1.0f; });
    if (f == Field::Terrain) sea_dirty_ = true; // a new ground: a new spill surface for the sea
    fields_->upload(f, half(f, next), data);
    if (f == Field::RainMask) setParams(params_);
}

std::vector<float> Simulation::download(Field f, bool next) const {
    requireSettled("download");
    return fields_->download(f, half(f, next));
}

void Simulation::setParams(const SimParams& params) {
    if (params.model == MODEL_FLUVIAL) allocateFluvial(); // throws before anything changes
    // The sea's edges (or whether there is a sea at all) changed: run its spill surface anew.
    if (params.enable_sea != params_.enable_sea || params.edge_mode != params_.edge_mode ||
        params.model != params_.model || params.fluvial_outlets != params_.fluvial_outlets)
        sea_dirty_ = true;
    params_ = params;
    params_.groundwater_substeps = evenGroundwaterSubsteps(params.groundwater_substeps);
    params_.width = width_;
    params_.height = height_;
    params_.group_count_x = static_cast<int>(groupsCovering(width_, shape_.x));
    params_.group_count_y = static_cast<int>(groupsCovering(height_, shape_.y));
    params_.tile_count_x = static_cast<int>(groupsCovering(width_, FLUVIAL_TILE));
    params_.tile_count_y = static_cast<int>(groupsCovering(height_, FLUVIAL_TILE));
    params_.partials_per_group = static_cast<int>(partials_per_group_);
    params_.subgroup_partials_at =
        partials_per_group_ > 1 ? static_cast<int>(partialsCount(workgroupCount(width_, height_, shape_))) : 0;
    params_.rain_uniform = rain_uniform_ ? 1 : 0;
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
    requireSettled("recordUpdates");
    // The springs' source image depends on the springs and the cell size.
    const bool springs_changed = springs_dirty_ || params_dirty_;
    if (params_dirty_) {
        // The shaders see the sub-step's dt (the pipe model's CFL sub-steps; 1 otherwise).
        SimParams uploaded = params_;
        if (params_.model == MODEL_PIPE) uploaded.time_step = params_.time_step / float(substeps_);
        vkCmdUpdateBuffer(cmd, params_buffer_.buffer, 0, sizeof(SimParams), &uploaded);
        uploaded_parts_ = stepParts(uploaded);
        params_dirty_ = false;
    }
    if (springs_dirty_ && !springs_.empty()) {
        vkCmdUpdateBuffer(cmd, springs_buffer_.buffer, 0, springs_.size() * sizeof(Spring), springs_.data());
    }
    springs_dirty_ = false;
    computeBarrier(cmd);
    if (springs_changed && !springs_.empty()) {
        bindSet(cmd);
        dispatch(cmd, Pass::SpringsPrepare);
        computeBarrier(cmd);
    }
    if (sea_dirty_ && seaInStep()) {
        bindSet(cmd);
        recordSeaSpillFull(cmd);
    }
}

VkPipeline Simulation::pipeline(Pass pass) {
    // Created at first use: a model's shaders are loaded only when that model runs, a set of the
    // step's parts only when the parameters turn it on.
    VkPipeline& p = pipelines_[{pass, stepPartsOf(pass)}];
    if (p == VK_NULL_HANDLE) {
        const bool int64 = pass == Pass::Particles || pass == Pass::ParticlesApply ||
                           (pass >= Pass::FluvialControl && pass <= Pass::FluvialLakeFill);
        if (int64 && !ctx_.int64_atomics)
            throw DeviceError(ctx_.device_name + " lacks 64-bit integer atomics on buffers (shaderInt64, "
                              "shaderBufferInt64Atomics), which the " + std::string(pass >= Pass::FluvialControl ? "fluvial" : "particles") +
                              " model needs");
        const auto reloaded = reloaded_code_.find(pass);
        const std::vector<uint32_t> code = reloaded != reloaded_code_.end()
                                               ? reloaded->second
                                               : loadSpirv(shaderDirectory() / (std::string(passName(pass)) + ".spv"));
        VkShaderModule module = createShaderModule(ctx_, code);
        p = createPipeline(module, pass);
        vkDestroyShaderModule(ctx_.device, module, nullptr);
    }
    return p;
}

uint32_t Simulation::stepPartsOf(Pass pass) const { return passHasStepParts(pass) ? builtStepParts() : STEP_ALL; }

int Simulation::sumRows(Pass pass) const {
    // CPU drivers: the pipe step's passes with sums in every step run kSumRows rows of cells per
    // invocation (partials.glsl's SUM_ROWS): one subgroup reduction per kSumRows cells, which
    // llvmpipe runs as a loop over the lanes. The tile stays the grid passes' (shape_.y rows),
    // so the sums are grouped the same with partials per workgroup or per subgroup (whose places
    // the tile's subgroups fill: partials_per_group_ of them).
    const int rows = cpuSumRows(pass);
    const bool cpu = ctx_.properties.deviceType == VK_PHYSICAL_DEVICE_TYPE_CPU;
    return cpu && shape_.y % rows == 0 && (partials_per_group_ == 1 || partials_per_group_ % rows == 0) ? rows : 1;
}

VkPipeline Simulation::createPipeline(VkShaderModule module, Pass pass) const {
    // The layout of 4-channel fields (common.glsl's SPLIT_WIDE), the grid passes' workgroup
    // shape (the fluvial passes and the folds have fixed sizes and ignore it), where the sums'
    // partials go, the pipe step's parts (passes without parts ignore them) and the rows of
    // cells per invocation (the workgroup is then the tile's height / rows high).
    const uint32_t parts = stepPartsOf(pass);
    const int rows = sumRows(pass);
    struct {
        VkBool32 split;
        uint32_t x, y;
        VkBool32 subgroup_partials;
        uint32_t parts;
        int32_t rows;
    } const values{split_wide_ ? VK_TRUE : VK_FALSE, uint32_t(shape_.x), uint32_t(shape_.y / rows),
                   partials_per_group_ > 1 ? VK_TRUE : VK_FALSE, parts, rows};
    const VkSpecializationMapEntry entries[6] = {{SPEC_SPLIT_WIDE, 0, sizeof(VkBool32)},
                                                 {SPEC_WG_X, 4, sizeof(uint32_t)},
                                                 {SPEC_WG_Y, 8, sizeof(uint32_t)},
                                                 {SPEC_SUBGROUP_PARTIALS, 12, sizeof(VkBool32)},
                                                 {SPEC_STEP_PARTS, 16, sizeof(uint32_t)},
                                                 {SPEC_SUM_ROWS, 20, sizeof(int32_t)}};
    const VkSpecializationInfo spec{6, entries, sizeof values, &values};
    return createComputePipeline(ctx_, pipeline_layout_, module, &spec);
}

void Simulation::pushConstants(VkCommandBuffer cmd, const PushConstants& push) {
    vkCmdPushConstants(cmd, pipeline_layout_, VK_SHADER_STAGE_COMPUTE_BIT, 0, sizeof push, &push);
}

void Simulation::dispatch(VkCommandBuffer cmd, Pass pass, int mode) {
    vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, pipeline(pass));
    pushConstants(cmd, PushConstants{step_index_, mode, 0, 0, 0, seaSurface()});
    if (pass == Pass::FluvialControl || pass == Pass::GridTotals || pass == Pass::SeaControl) // one workgroup
        vkCmdDispatch(cmd, 1, 1, 1);
    else if (pass == Pass::Particles) // one invocation per droplet
        vkCmdDispatch(cmd, (static_cast<uint32_t>(std::max(params_.particle_count, 0)) + WG_SIZE - 1) / WG_SIZE, 1, 1);
    else if (pass >= Pass::FluvialControl && pass <= Pass::FluvialLakeFill) // FLUVIAL_TILE^2 tiles
        vkCmdDispatch(cmd, groupsCovering(width_, FLUVIAL_TILE), groupsCovering(height_, FLUVIAL_TILE), 1);
    else
        vkCmdDispatch(cmd, groupsCovering(width_, shape_.x), groupsCovering(height_, shape_.y), 1);
}

void Simulation::dispatchJob(VkCommandBuffer cmd, Pass pass, int job, int mode) {
    vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, pipeline(pass));
    pushConstants(cmd, PushConstants{step_index_, mode, 0, 0, 0, 0});
    vkCmdDispatchIndirect(cmd, fluvial_control_.buffer, VkDeviceSize(job) * 3 * sizeof(uint32_t));
}

void Simulation::dispatchIndirect(VkCommandBuffer cmd, Pass pass, int mode, const Buffer& args) {
    vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, pipeline(pass));
    pushConstants(cmd, PushConstants{step_index_, mode, 0, 0, 0, seaSurface()});
    vkCmdDispatchIndirect(cmd, args.buffer, 0); // dispatch_x/y/z lead the control block
}

void Simulation::bindSet(VkCommandBuffer cmd) {
    vkCmdBindDescriptorSets(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, pipeline_layout_, 0, 1,
                            &sets_[static_cast<size_t>(parity_)], 0, nullptr);
}

void Simulation::recordPass(VkCommandBuffer cmd, Pass pass) {
    requireSettled("recordPass");
    bindSet(cmd);
    if (pass == Pass::ReducePartials || pass == Pass::ReduceTotals)
        recordFold(cmd); // the whole fold: its levels are one unit
    else if (pass == Pass::SeaSpill) {
        if (seaInStep()) recordSeaRounds(cmd);
    } else if (pass == Pass::WaterExchange)
        recordExchangePass(cmd);
    else if (pass == Pass::GroundwaterFlow)
        recordGroundwaterFlow(cmd);
    else
        dispatch(cmd, pass);
    computeBarrier(cmd);
}

void Simulation::recordStep(VkCommandBuffer cmd, GpuTimer* timer, bool another_follows) {
    const int model = params_.model;
    if (model != MODEL_PIPE) requireSettled("recordStep");
    if (split_wide_ && (model == MODEL_MUSGRAVE || model == MODEL_SIMPLE))
        throw DeviceError(std::string("the ") + modelName(model) + " model does not run on a grid this large (" +
                          std::to_string(width_) + "x" + std::to_string(height_) + " on " + ctx_.device_name +
                          ") yet: its transfer images exceed the device's largest allocation");
    bindSet(cmd);
    if (timer) writeTimestamp(*timer, cmd);
    if (model == MODEL_PIPE) {
        // Each sub-step is a whole step of dt / n, ping-pong included.
        for (int i = 0; i < substeps_; ++i) {
            if (i > 0) {
                parity_ ^= kAllPingPong;
                bindSet(cmd);
            }
            recordPipeStep(cmd, timer, another_follows || i + 1 < substeps_);
        }
        substeps_taken_ += substeps_;
    } else if (model == MODEL_FLUVIAL) {
        recordFluvialStep(cmd, timer);
    } else if (model == MODEL_MUSGRAVE || model == MODEL_SIMPLE) {
        for (Pass pass : stepPasses()) {
            if (pass == Pass::SeaSpill) break; // the groundwater's passes follow (gpu/groundwater.cpp)
            dispatch(cmd, pass);
            computeBarrier(cmd);
            if (timer) writeTimestamp(*timer, cmd);
        }
        recordGridModelGroundwater(cmd, timer);
    } else {
        // Every pass reads what the one before wrote: a full compute barrier between each.
        for (Pass pass : stepPasses()) {
            dispatch(cmd, pass);
            computeBarrier(cmd);
            if (timer) writeTimestamp(*timer, cmd);
        }
    }
    parity_ ^= writtenPingPong(model);
    ++step_index_;
    sim_time_ += double(params_.time_step);
}

void Simulation::setSubsteps(int n) {
    substeps_ = std::clamp(n, 1, MAX_SUBSTEPS);
    max_substeps_ = std::max(max_substeps_, substeps_);
    params_dirty_ = true;
}

void Simulation::adaptSubsteps(bool anywhere) {
    if (params_.model != MODEL_PIPE || (!anywhere && !substepsDue())) return;
    const Totals t = totals();
    const double cfl = double(t.step_wave) * double(params_.time_step) / double(params_.cell_size);
    // The CFL bound is the outflow flux's: without flow, water stands where it falls, and sub-steps
    // would only add rain in smaller float increments (64 sub-steps of 0.09 m onto 1,000 m of
    // standing water lose 2e-5 of the budget to rounding).
    const int n = !params_.enable_flow ? 1
                  : std::isfinite(cfl) ? std::clamp(int(std::ceil(cfl / CFL_TARGET)), 1, MAX_SUBSTEPS)
                                       : MAX_SUBSTEPS;
    if (n != substeps_) {
        substeps_ = n;
        params_dirty_ = true;
    }
    max_substeps_ = std::max(max_substeps_, substeps_);
}

void Simulation::run(int steps, const std::function<void(int)>& progress) {
    // Batches of roughly 4M cell-steps keep each submission short (so progress shows) while
    // amortising the submit and wait. The pipe model's batches end where its sub-steps are due
    // (substepsDue): at block boundaries, or after every step while it sub-steps.
    const int cells = width_ * height_;
    const int batch = std::clamp((1 << 22) / std::max(cells, 1), 1, 200);
    // Before the first step nothing has measured the flow (a state loaded with deep water).
    if (params_.model == MODEL_PIPE && step_index_ == 0 && steps > 0 && totals().step_wave == 0.0f) measureWaveSpeed();
    int done = 0;
    while (done < steps) {
        adaptSubsteps();
        int n = std::min(batch, steps - done);
        if (params_.model == MODEL_PIPE)
            n = std::min(n, substeps_ > 1 ? 1 : kSubstepBlock - step_index_ % kSubstepBlock);
        if (fluvialLakesOn()) { // one iteration per submission, the lakes solved before it
            n = 1;
            prepareFluvialLakes();
        }
        VkCommandBuffer cmd = beginOneShot(ctx_);
        recordUpdates(cmd);
        for (int i = 0; i < n; ++i) recordStep(cmd, nullptr, i + 1 < n);
        endOneShot(ctx_, cmd);
        done += n;
        if (progress) progress(done);
    }
}

void Simulation::reloadPass(Pass pass, const std::vector<uint32_t>& spirv) {
    // Built now for the parts in use, so a bad module fails here; other sets of parts at first use.
    VkShaderModule module = createShaderModule(ctx_, spirv);
    VkPipeline fresh = createPipeline(module, pass);
    vkDestroyShaderModule(ctx_.device, module, nullptr);
    vkDeviceWaitIdle(ctx_.device); // frames in flight may still use the old ones
    for (auto it = pipelines_.begin(); it != pipelines_.end();) {
        if (it->first.first == pass) {
            vkDestroyPipeline(ctx_.device, it->second, nullptr);
            it = pipelines_.erase(it);
        } else {
            ++it;
        }
    }
    pipelines_[{pass, stepPartsOf(pass)}] = fresh;
    reloaded_code_[pass] = spirv;
}

void Simulation::runPass(Pass pass) {
    if (pass >= Pass::FluvialControl && pass <= Pass::FluvialLakeFill) allocateFluvial();
    VkCommandBuffer cmd = beginOneShot(ctx_);
    recordUpdates(cmd);
    recordPass(cmd, pass);
    endOneShot(ctx_, cmd);
}

} // namespace alluvium::gpu
