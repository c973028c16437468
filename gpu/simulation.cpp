// The simulation (gpu/simulation.h): its resources and descriptor sets, its parameters, a step
// (the model's row records it), sub-steps and run().
// [SECTION] creation: size checks, buffers, descriptor sets
// [SECTION] fields and parameters
// [SECTION] steps: recording, sub-steps, run()
// [SECTION] the sea, the water table and the fluvial model's analysis
#include "simulation.h"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <cstring>
#include <stdexcept>
#include <string>

#include "models/groundwater.h"
#include "models/sea.h"
#include "models/water_table.h"
#include "pipeline.h"
#include "resources.h"

namespace alluvium::gpu {

namespace {

constexpr uint32_t kMaxSprings = 4096; // 64 KiB: the limit of vkCmdUpdateBuffer

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
    if ((subgroup.supportedOperations & needed) != needed ||
        !(subgroup.supportedStages & VK_SHADER_STAGE_COMPUTE_BIT) || subgroup.subgroupSize < 4)
        throw DeviceError(ctx.device_name + " lacks subgroup arithmetic and votes in compute shaders (subgroups of 4 "
                                            "or more lanes)");
}

// One partial per subgroup (CPU drivers) while the partials buffer stays one allocation and one
// binding (maxStorageBufferRange: 128 MiB on lavapipe, about 2600^2 cells).
uint32_t resolvePartials(const Context& ctx, int width, int height, WorkgroupShape shape) {
    const uint32_t per_group = resolvePartialsPerGroup(ctx);
    if (per_group == 1) return 1;
    const uint64_t bytes = partialsBufferDoubles(workgroupCount(width, height, shape), per_group) * sizeof(double);
    const bool fits = bytes <= ctx.properties.limits.maxStorageBufferRange &&
                      (ctx.max_allocation_bytes == 0 || bytes <= ctx.max_allocation_bytes);
    return fits ? per_group : 1;
}

} // namespace

// [SECTION] creation

uint64_t simulationBytes(int width, int height, uint32_t partials_per_group) {
    const uint64_t cells = uint64_t(width) * uint64_t(height);
    // The fields, and the particles' height changes (the sums per workgroup follow).
    const uint64_t per_cell = fieldBytesPerCell() + sizeof(int64_t);
    uint64_t sums = 0;
    for (const WorkgroupShape& s : workgroupShapes()) {
        const uint32_t groups = workgroupCount(width, height, s);
        sums = std::max(
            sums, (partialsBufferDoubles(groups, partials_per_group) + 2 * uint64_t(groups) * partials_per_group) *
                      sizeof(double));
    }
    return cells * per_cell + sums + sizeof(SimParams) + sizeof(Totals) + kMaxSprings * sizeof(Spring) +
           sizeof(SeaControl);
}

Simulation::Simulation(const Context& ctx, int full_width, int full_height, PipePasses pipe, WorkgroupShape shape,
                       SplitOver split)
    : ctx_(ctx), full_width_(full_width), full_height_(full_height), shape_(resolveWorkgroupShape(ctx, shape)) {
    assert(full_width > 0 && full_height > 0);
    width_ = full_width;
    height_ = full_height;
    // A split grid's choices that size buffers or messages are made for its largest block, so
    // every process (on one kind of device) makes the same ones.
    int choose_w = full_width, choose_h = full_height;
    if (split.transport && split.transport->size() > 1) {
        band_steps_ = bandSteps();
        checkLayoutAlike(*split.transport);
        blocks_ = std::make_unique<BlockExchange>(
            ctx, *split.transport,
            splitGrid(full_width, full_height, split.transport->size(), shape_, split.reach * band_steps_));
        width_ = blocks_->local().w;
        height_ = blocks_->local().h;
        choose_w = choose_h = 0;
        for (int r = 0; r < blocks_->ranks(); ++r) {
            choose_w = std::max(choose_w, blocks_->grid().local(r).w);
            choose_h = std::max(choose_h, blocks_->grid().local(r).h);
        }
    }
    const int width = width_, height = height_;
    state_.pipe.passes = resolvePipePasses(pipe);
    partials_per_group_ = resolvePartials(ctx, choose_w, choose_h, shape_);
    const uint64_t need = simulationBytes(width, height, partials_per_group_);
    if (ctx.device_local_bytes > 0 && need > ctx.device_local_bytes)
        throw DeviceError("a " + std::to_string(width) + "x" + std::to_string(height) + " grid needs " +
                          std::to_string(need >> 20) + " MiB of GPU memory; " + ctx.device_name + " has " +
                          std::to_string(ctx.device_local_bytes >> 20) + " MiB");
    checkSubgroups(ctx);
    const bool split_wide = splitsWideFields(ctx, choose_w, choose_h);
    fields_ = std::make_unique<FieldImages>(ctx, width, height, split_wide, state_.pipe.passes == PipePasses::Direct);
    createBuffers();
    mail_ = std::make_unique<DropletMail>(ctx, blocks_.get());
    fluvial_ = std::make_unique<FluvialState>(ctx, width, height);
    state_.fluvial = fluvial_.get();
    createDescriptorSets();
    StepRecorderSetup setup;
    setup.width = width;
    setup.height = height;
    setup.shape = shape_;
    setup.partials_per_group = partials_per_group_;
    setup.split_wide = split_wide;
    setup.params = &params_;
    rec_ = std::make_unique<StepRecorder>(ctx, pipeline_layout_, setup);
    if (blocks_) {
        checkProcessesAlike(split_wide);
        rec_->setExchange([this](Exchange what) { return exchange(what); });
    }
    setParams(SimParams{});
}

Simulation::~Simulation() {
    vkDeviceWaitIdle(ctx_.device);
    rec_.reset();
    destroyCompute(ctx_, {}, descriptor_pool_, pipeline_layout_, set_layout_);
    for (Buffer* b : {&params_buffer_, &partials_, &totals_, &springs_buffer_, &delta_, &drained_, &state_.sea.control})
        destroyBuffer(*b, ctx_);
}

void Simulation::createBuffers() {
    const VkBufferUsageFlags storage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT;
    const uint32_t groups = workgroupCount(width_, height_, shape_);
    createBuffer(params_buffer_, ctx_, sizeof(SimParams), storage, false);
    createBuffer(partials_, ctx_, partialsBufferDoubles(groups, partials_per_group_) * sizeof(double), storage, false);
    createBuffer(totals_, ctx_, sizeof(Totals), storage, true);
    createBuffer(springs_buffer_, ctx_, kMaxSprings * sizeof(Spring), storage, false);
    createBuffer(delta_, ctx_, uint64_t(width_) * uint64_t(height_) * sizeof(int64_t), storage,
                 false); // particles.glsl
    // The model totals: the droplets' five int64 counters, then musgrave's and simple's water sums
    // per workgroup (two slots; per subgroup on CPU drivers).
    createBuffer(drained_, ctx_,
                 DROPLET_COUNTERS * sizeof(int64_t) + 2 * uint64_t(groups) * partials_per_group_ * sizeof(double),
                 storage, false);
    createBuffer(state_.sea.control, ctx_, sizeof(SeaControl), storage | VK_BUFFER_USAGE_INDIRECT_BUFFER_BIT, true);
    std::memset(state_.sea.control.mapped, 0, sizeof(SeaControl));
    resetTotals();
    // Partials of slots a step does not produce are folded as zeros.
    VkCommandBuffer cmd = beginOneShot(ctx_);
    for (const Buffer* b : {&partials_, &springs_buffer_, &delta_, &drained_})
        vkCmdFillBuffer(cmd, b->buffer, 0, VK_WHOLE_SIZE, 0);
    endOneShot(ctx_, cmd);
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
    const std::pair<uint32_t, const Buffer*> buffers[] = {{B_PARAMS, &params_buffer_},
                                                          {B_PARTIALS, &partials_},
                                                          {B_TOTALS, &totals_},
                                                          {B_SPRINGS, &springs_buffer_},
                                                          {B_DELTA, &delta_},
                                                          {B_DRAINED, &drained_},
                                                          {B_SEA_CONTROL, &state_.sea.control},
                                                          {B_DROPLETS_IN, &mail_->in()},
                                                          {B_DROPLETS_OUT, &mail_->out()}};
    DescriptorWrites writes;
    for (int key = 0; key < kParityKeys; ++key) {
        fields_->describe(sets_[size_t(key)], key, writes);
        for (const auto& [slot, buffer] : buffers) writes.buffer(sets_[size_t(key)], slot, buffer->buffer);
    }
    writes.apply(ctx_);
    fluvial_->bind(sets_);
}

// [SECTION] fields and parameters

int Simulation::half(Field f, bool next) const {
    const int bit = fieldPingPongBit(f);
    return bit < 0 ? 0 : ((parity_ >> bit) & 1) ^ (next ? 1 : 0);
}

const Image& Simulation::currentImage(Field f, int key, int part) const {
    const int bit = fieldPingPongBit(f);
    return fields_->image(f, bit < 0 ? 0 : (key >> bit) & 1, part);
}

std::vector<const Image*> Simulation::fieldImages(Field f, bool next) const {
    return fields_->images(f, half(f, next));
}

void Simulation::upload(Field f, const std::vector<float>& data, bool next) {
    const std::vector<float> block = blocks_ ? blocks_->scatter(data, fieldChannels(f)) : std::vector<float>();
    const std::vector<float>& mine = blocks_ ? block : data;
    if (f == Field::RainMask) {
        rain_uniform_ = std::all_of(mine.begin(), mine.end(), [](float v) { return v == 1.0f; });
        if (blocks_) // the whole grid's mask, as one device sees it
            for (double uniform : blocks_->everyProcess(rain_uniform_ ? 1.0 : 0.0)) rain_uniform_ &= uniform != 0.0;
    }
    if (f == Field::Terrain) state_.sea.host.dirty = true; // a new ground: a new spill surface for the sea
    fields_->upload(f, half(f, next), mine);
    if (f == Field::RainMask) setParams(params_);
}

void Simulation::rainMaskChanged() {
    rain_uniform_ = false;
    setParams(params_);
}

void Simulation::resetFields() {
    requireSettled("resetFields");
    fields_->reset();
    rain_uniform_ = fieldInfo(Field::RainMask).initial == 1.0f;
    state_.sea.host.dirty = true; // a new ground: a new spill surface for the sea
    setParams(params_);
}

std::vector<float> Simulation::download(Field f, bool next) const {
    requireSettled("download");
    if (blocks_) return blocks_->gather(fields_->download(f, half(f, next)), fieldChannels(f));
    return fields_->download(f, half(f, next));
}

void Simulation::setParams(const SimParams& params) {
    if (blocks_) checkSplit(params);                      // throws before anything changes
    if (params.model == MODEL_FLUVIAL) allocateFluvial(); // throws before anything changes
    if (blocks_ && params.model == MODEL_PARTICLES && mail_->reserve(uint32_t(std::max(params.particle_count, 0))))
        bindDroplets(); // every droplet of a step may be in flight at once
    // The sea's edges (or whether there is a sea at all) changed: run its spill surface anew.
    if (params.enable_sea != params_.enable_sea || params.edge_mode != params_.edge_mode ||
        params.model != params_.model || params.fluvial_outlets != params_.fluvial_outlets)
        state_.sea.host.dirty = true;
    params_ = params;
    // Lakes that balance evaporation are the fluvial model's (fluvialLakesOn): another model's
    // analysis (its maps) has no lakes prepared, and its passes must not look for them.
    if (params.model != MODEL_FLUVIAL) params_.lake_evaporation = 0.0f;
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
    params_.origin_x = blocks_ ? blocks_->local().x : 0;
    params_.origin_y = blocks_ ? blocks_->local().y : 0;
    params_.full_width = full_width_;
    params_.full_height = full_height_;
    const Rect own = blocks_ ? blocks_->owned() : Rect{0, 0, width_, height_};
    params_.own_x0 = own.x - params_.origin_x;
    params_.own_y0 = own.y - params_.origin_y;
    params_.own_x1 = params_.own_x0 + own.w;
    params_.own_y1 = params_.own_y0 + own.h;
    params_dirty_ = true;
    if (blocks_) chooseBands();
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

void Simulation::setTotals(const Totals& totals) { std::memcpy(totals_.mapped, &totals, sizeof(Totals)); }

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
        // The shaders see the sub-step's time step (the pipe model's CFL sub-steps; 1 otherwise).
        SimParams uploaded = params_;
        if (params_.model == MODEL_PIPE) uploaded.time_step = params_.time_step / float(state_.pipe.substeps);
        vkCmdUpdateBuffer(cmd, params_buffer_.buffer, 0, sizeof(SimParams), &uploaded);
        rec_->setStepParts(stepParts(uploaded));
        params_dirty_ = false;
    }
    if (springs_dirty_ && !springs_.empty())
        vkCmdUpdateBuffer(cmd, springs_buffer_.buffer, 0, springs_.size() * sizeof(Spring), springs_.data());
    springs_dirty_ = false;
    computeBarrier(cmd);
    if (springs_changed && !springs_.empty()) {
        rec_->begin(cmd);
        rec_->bind(sets_[size_t(parity_)]);
        rec_->setStep(step_index_, seaSurface(), simTime());
        rec_->pass(Pass::SpringsPrepare);
        rec_->end();
    }
    if (state_.sea.host.dirty && seaInStep(params_)) {
        rec_->begin(cmd);
        rec_->bind(sets_[size_t(parity_)]);
        rec_->setStep(step_index_, seaSurface(), simTime());
        Step s = step(false);
        recordSeaSpillFull(s);
        rec_->end();
    }
}

// [SECTION] steps

Step Simulation::step(bool another_follows) {
    return Step{*rec_, params_, state_, parity_, sets_, another_follows, livePingPong(params_)};
}

void Simulation::requireSettled(const char* what) const {
    if (state_.pipe.correction_carried)
        throw std::logic_error(std::string(what) + ": a pipe step left its sediment correction to a next step that "
                                                   "was not recorded (recordStep's another_follows)");
}

void Simulation::recordStep(VkCommandBuffer cmd, GpuTimer* timer, bool another_follows) {
    const Model& m = model(params_.model);
    if (m.id != MODEL_PIPE) requireSettled("recordStep");
    // A model whose images are 1x1 in the split layout cannot run on such a grid (the parts it
    // runs under these parameters: lava, off there, is not one).
    for (Pass pass : m.timed)
        for (const Access& a : passInfo(pass).accesses)
            if (splitWide() && fieldInfo(a.field).size == FieldSize::GridUnlessSplit && happens(a.when, params_) &&
                a.when != When::Lava)
                throw DeviceError(std::string("the ") + m.name + " model does not run on a grid this large (" +
                                  std::to_string(width_) + "x" + std::to_string(height_) + " on " + ctx_.device_name +
                                  ") yet: its transfer images exceed the device's largest allocation");
    rec_->begin(cmd, timer);
    rec_->setStep(step_index_, seaSurface(), simTime());
    rec_->bind(sets_[size_t(parity_)]);
    rec_->timestamp();
    Step s = step(another_follows);
    if (m.record) {
        m.record(s);
    } else {
        for (Pass pass : m.timed) {
            rec_->pass(pass);
            rec_->timestamp();
        }
    }
    rec_->settle(); // a split grid's bands, before the next step reads them
    rec_->end();
    parity_ ^= writtenPingPong(m) & livePingPong(params_);
    ++step_index_;
    state_.sea.host.sim_time += double(params_.time_step);
}

void Simulation::recordPass(VkCommandBuffer cmd, Pass pass) {
    requireSettled("recordPass");
    rec_->begin(cmd);
    rec_->setStep(step_index_, seaSurface(), simTime());
    rec_->bind(sets_[size_t(parity_)]);
    Step s = step(false);
    switch (passInfo(pass).bytes) {
    case Bytes::FoldLevels:
    case Bytes::FoldTotals: rec_->fold(); break; // the whole fold: its levels are one unit
    case Bytes::PerSeaRound:
        if (seaInStep(params_)) recordSeaRounds(s);
        break;
    case Bytes::PerSubstep: recordGroundwaterFlow(s); break;
    default:
        if (pass == Pass::WaterExchange)
            recordExchangePass(s);
        else
            rec_->dispatch(pass);
    }
    rec_->barrier();
    rec_->end();
}

void Simulation::runPass(Pass pass) {
    if (passInfo(pass).needs & kFluvialBuffers) allocateFluvial();
    VkCommandBuffer cmd = beginOneShot(ctx_);
    recordUpdates(cmd);
    recordPass(cmd, pass);
    endOneShot(ctx_, cmd);
}

void Simulation::submit(const std::function<void(Step&)>& record) {
    VkCommandBuffer cmd = beginOneShot(ctx_);
    recordUpdates(cmd);
    rec_->begin(cmd);
    rec_->setStep(step_index_, seaSurface(), simTime());
    rec_->bind(sets_[size_t(parity_)]);
    Step s = step(false);
    record(s);
    rec_->end();
    endOneShot(ctx_, cmd);
}

bool Simulation::substepsDue() const {
    return params_.model == MODEL_PIPE && (step_index_ % kSubstepBlock == 0 || state_.pipe.substeps > 1);
}

void Simulation::setSubsteps(int n) {
    PipeState& pipe = state_.pipe;
    pipe.substeps = std::clamp(n, 1, MAX_SUBSTEPS);
    pipe.max_substeps = std::max(pipe.max_substeps, pipe.substeps);
    params_dirty_ = true;
}

void Simulation::adaptSubsteps(bool anywhere) {
    if (params_.model != MODEL_PIPE || (!anywhere && !substepsDue())) return;
    PipeState& pipe = state_.pipe;
    const Totals t = totals();
    const double cfl = double(t.step_wave) * double(params_.time_step) / double(params_.cell_size);
    // The CFL bound is the outflow flux's: without flow, water stands where it falls, and sub-steps
    // would only add rain in smaller float increments (64 sub-steps of 0.09 m onto 1,000 m of
    // standing water lose 2e-5 of the budget to rounding).
    const int n = !params_.enable_flow ? 1
                  : std::isfinite(cfl) ? std::clamp(int(std::ceil(cfl / CFL_TARGET)), 1, MAX_SUBSTEPS)
                                       : MAX_SUBSTEPS;
    if (n != pipe.substeps) {
        pipe.substeps = n;
        params_dirty_ = true;
    }
    pipe.max_substeps = std::max(pipe.max_substeps, pipe.substeps);
}

void Simulation::measureWaveSpeed() {
    submit([](Step& s) {
        s.rec.pass(Pass::WaveSpeed);
        s.rec.foldLevels();
        s.rec.foldTotals(REDUCE_WAVE_ONLY);
    });
}

void Simulation::run(int steps, const std::function<void(int)>& progress) {
    // Batches of roughly 4M cell-steps keep each submission short (so progress shows) while
    // amortising the submit and wait. The pipe model's batches end where its sub-steps are due
    // (substepsDue): at block boundaries, or after every step while it sub-steps.
    // From the whole grid: every process of a split grid batches alike (a step's last in a batch
    // corrects its sediment in a pass, the others leave it to the next: the bands must agree).
    const Model& m = model(params_.model);
    const int cells = full_width_ * full_height_;
    const int batch = std::clamp((1 << 22) / std::max(cells, 1), 1, 200);
    // Before the first step nothing has measured the flow (a state loaded with deep water).
    if (m.id == MODEL_PIPE && step_index_ == 0 && steps > 0 && totals().step_wave == 0.0f) measureWaveSpeed();
    int done = 0;
    while (done < steps) {
        adaptSubsteps();
        int n = std::min(batch, steps - done);
        if (m.id == MODEL_PIPE)
            n = std::min(n, state_.pipe.substeps > 1 ? 1 : kSubstepBlock - step_index_ % kSubstepBlock);
        if (m.prepares && m.prepares(params_)) { // one step per submission, prepared before it
            n = 1;
            m.prepare(*this);
        }
        VkCommandBuffer cmd = beginOneShot(ctx_);
        recordUpdates(cmd);
        for (int i = 0; i < n; ++i) recordStep(cmd, nullptr, i + 1 < n);
        endOneShot(ctx_, cmd);
        done += n;
        if (progress) progress(done);
    }
}

// [SECTION] the sea, the water table and the fluvial model's analysis

float Simulation::seaSurface() const { return gpu::seaSurface(params_, state_.sea.host.sim_time); }

int Simulation::updateSeaSpill() {
    state_.sea.host.dirty = false; // recorded here, once
    submit([](Step& s) { recordSeaSpillFull(s); });
    return static_cast<int>(gpu::seaControl(state_.sea).rounds);
}

uint32_t Simulation::computeWaterTable(int iterations, const std::function<void(int)>& progress) {
    // The fluvial family's outlets: the spill relaxation reads them from the model. Only the
    // shaders see the fluvial model here (setParams would allocate its buffers).
    const SimParams saved = params_;
    params_.model = MODEL_FLUVIAL;
    params_dirty_ = true;
    submit(recordWaterTableStart);
    const int batch = std::clamp((1 << 22) / std::max(width_ * height_, 1), 1, 256);
    for (int done = 0; done < iterations;) {
        const int n = std::min(batch, iterations - done);
        submit([&](Step& s) {
            for (int i = 0; i < n; ++i) recordWaterTableRound(s, done + i, iterations);
        });
        done += n;
        if (progress) progress(done);
    }
    submit(recordWaterTableStore);
    uint32_t moved = waterTableMoved(state_.sea, iterations);
    if (blocks_) { // each block counts the cells it owns
        double sum = 0.0;
        for (double v : blocks_->everyProcess(double(moved))) sum += v;
        moved = uint32_t(sum);
    }
    params_ = saved;
    params_dirty_ = true;
    state_.sea.host.dirty = true;   // the spill surface in use was the fluvial outlets'
    state_.sea.host.restart = true; // and the relax pair held the table
    return moved;
}

void Simulation::allocateFluvial() { fluvial_->allocate(simulationBytes(width_, height_, partials_per_group_), sets_); }

FluvialControl Simulation::fluvialAnalyse(bool drainage) {
    allocateFluvial();
    return gpu::fluvialAnalyse(*this, drainage);
}

void Simulation::prepareFluvialLakes() {
    if (!fluvialLakesOn()) return;
    allocateFluvial();
    gpu::prepareFluvialLakes(*this);
}

} // namespace alluvium::gpu
