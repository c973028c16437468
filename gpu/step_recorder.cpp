// The step recorder (gpu/step_recorder.h).
#include "step_recorder.h"

#include <algorithm>
#include <string>

#include "pipeline.h"
#include "resources.h"
#include "vk_check.h"

namespace alluvium::gpu {

StepRecorder::StepRecorder(const Context& ctx, VkPipelineLayout layout, const StepRecorderSetup& setup)
    : ctx_(ctx), layout_(layout), setup_(setup),
      fold_levels_(foldLevelSizes(workgroupCount(setup.width, setup.height, setup.shape))) {
    ALLUVIUM_ASSERT(setup.params != nullptr);
}

StepRecorder::~StepRecorder() {
    for (const auto& [key, p] : pipelines_) vkDestroyPipeline(ctx_.device, p, nullptr);
}

void StepRecorder::begin(VkCommandBuffer cmd, GpuTimer* timer) {
    cmd_ = cmd;
    timer_ = timer;
}

void StepRecorder::end() {
    cmd_ = VK_NULL_HANDLE;
    timer_ = nullptr;
}

void StepRecorder::bind(VkDescriptorSet set) {
    bound_ = set;
    vkCmdBindDescriptorSets(cmd_, VK_PIPELINE_BIND_POINT_COMPUTE, layout_, 0, 1, &set, 0, nullptr);
}

void StepRecorder::setStep(int step_index, float sea_surface, double sim_time) {
    step_index_ = step_index;
    sea_surface_ = sea_surface;
    sim_time_ = float(sim_time);
}

void StepRecorder::push(int mode, uint32_t in, uint32_t count, uint32_t out, float sea) {
    const PushConstants push{step_index_, mode, in, count, out, sea, sim_time_};
    vkCmdPushConstants(cmd_, layout_, VK_SHADER_STAGE_COMPUTE_BIT, 0, sizeof push, &push);
}

int StepRecorder::handOver(Exchange what) {
    if (!exchange_) return 0;
    const int answer = exchange_(what);
    bind(bound_); // a command buffer begun again binds nothing
    return answer;
}

void StepRecorder::handDroplets() {
    // A droplet is handed on at most three times an iteration (to move, to look ahead, back to
    // exchange) and once more to end: more rounds than that are a fault, not a slow step.
    const int most = 3 * std::max(setup_.params->particle_lifetime, 1) + 2;
    for (int round = 0;; ++round) {
        const int arrived = handOver(Exchange::Droplets);
        if (arrived < 0) return;
        if (round >= most)
            throw DeviceError("droplets still in flight after " + std::to_string(round) + " rounds between blocks");
        if (arrived == 0) continue; // others' droplets still run: this block takes part in their rounds
        vkCmdBindPipeline(cmd_, VK_PIPELINE_BIND_POINT_COMPUTE, pipeline(Pass::Particles));
        push(PARTICLES_RESUME, 0, uint32_t(arrived));
        vkCmdDispatch(cmd_, groupsCovering(arrived, WG_SIZE), 1, 1);
    }
}

void StepRecorder::dispatch(Pass pass, int mode) {
    if (split()) {
        if (pass == Pass::GridTotals) { // the gathered sums, added on the host
            handOver(Exchange::GridTotals);
            return;
        }
        // The sea's rounds: their bands and their counts of changed cells, every block's.
        if (pass == Pass::SeaControl && mode == 0) exchange_(Exchange::SeaStart);
        if (pass == Pass::SeaControl && mode != 0) handOver(Exchange::SeaRound);
        if (pass == Pass::SeaCommit && (mode & kSeaCommitAlways) == 0) handOver(Exchange::SeaStep);
        // A water table half-round reads the neighbours in the half of its mode's bit 0 (relax_b
        // if set), which the last one wrote.
        if (pass == Pass::WaterTable) handOver((mode & 1) != 0 ? Exchange::TableReadsB : Exchange::TableReadsA);
    }
    if (pass == Pass::Particles && split()) mode = PARTICLES_BORN; // then run in rounds (handDroplets)
    vkCmdBindPipeline(cmd_, VK_PIPELINE_BIND_POINT_COMPUTE, pipeline(pass));
    push(mode, 0, 0, 0, sea_surface_);
    const int w = setup_.width, h = setup_.height;
    switch (passInfo(pass).dispatch) {
    case Dispatch::Grid:
        vkCmdDispatch(cmd_, groupsCovering(w, setup_.shape.x), groupsCovering(h, setup_.shape.y), 1);
        return;
    case Dispatch::Tiles:
        vkCmdDispatch(cmd_, groupsCovering(w, FLUVIAL_TILE), groupsCovering(h, FLUVIAL_TILE), 1);
        return;
    case Dispatch::One: vkCmdDispatch(cmd_, 1, 1, 1); return;
    case Dispatch::Particles:
        vkCmdDispatch(cmd_, groupsCovering(std::max(setup_.params->particle_count, 0), WG_SIZE), 1, 1);
        if (split()) handDroplets();
        return;
    case Dispatch::Fold: break;
    }
    ALLUVIUM_ASSERT(!"a fold pass is recorded by foldLevels()");
}

void StepRecorder::dispatchIndirect(Pass pass, int mode, VkBuffer args, VkDeviceSize offset) {
    vkCmdBindPipeline(cmd_, VK_PIPELINE_BIND_POINT_COMPUTE, pipeline(pass));
    push(mode, 0, 0, 0, sea_surface_);
    vkCmdDispatchIndirect(cmd_, args, offset);
}

void StepRecorder::barrier() { computeBarrier(cmd_); }

void StepRecorder::timestamp() {
    if (timer_) writeTimestamp(*timer_, cmd_);
}

// Level k of the fold holds fold_levels_[k] partials per slot, at its offset in the partials
// buffer.
void StepRecorder::foldLevels() {
    const std::vector<uint32_t>& levels = fold_levels_;
    if (setup_.partials_per_group > 1) {
        // CPU drivers: each workgroup's subgroups into the first level (reduce_subgroups.comp).
        vkCmdBindPipeline(cmd_, VK_PIPELINE_BIND_POINT_COMPUTE, pipeline(Pass::ReduceSubgroups));
        vkCmdDispatch(cmd_, groupsCovering(int(levels[0]), 64), REDUCE_SLOTS, 1);
        barrier();
    }
    if (split()) { // the whole grid's first level, folded on the host into one value a slot
        handOver(Exchange::Fold);
        return;
    }
    vkCmdBindPipeline(cmd_, VK_PIPELINE_BIND_POINT_COMPUTE, pipeline(Pass::ReducePartials));
    uint32_t offset = 0;
    for (size_t k = 0; k + 1 < levels.size(); ++k) {
        const uint32_t next_offset = offset + levels[k] * REDUCE_SLOTS;
        push(0, offset, levels[k], next_offset);
        vkCmdDispatch(cmd_, levels[k + 1], REDUCE_SLOTS, 1);
        barrier();
        offset = next_offset;
    }
}

void StepRecorder::foldTotals(int mode) {
    const std::vector<uint32_t>& levels = fold_levels_;
    uint32_t offset = 0;
    for (size_t k = 0; k + 1 < levels.size(); ++k) offset += levels[k] * REDUCE_SLOTS;
    vkCmdBindPipeline(cmd_, VK_PIPELINE_BIND_POINT_COMPUTE, pipeline(Pass::ReduceTotals));
    if (split())
        push(mode, 0, 1); // where the hand-over left the folded values
    else
        push(mode, offset, levels.back());
    vkCmdDispatch(cmd_, 1, 1, 1);
    barrier();
}

VkPipeline StepRecorder::pipeline(Pass pass) {
    // Created at first use: a model's shaders are loaded only when that model runs, a set of the
    // step's parts only when the parameters turn it on.
    VkPipeline& p = pipelines_[{pass, partsOf(pass)}];
    if (p == VK_NULL_HANDLE) {
        if ((passInfo(pass).needs & kInt64) && !ctx_.int64_atomics)
            throw DeviceError(ctx_.device_name +
                              " lacks 64-bit integer atomics on buffers (shaderInt64, "
                              "shaderBufferInt64Atomics), which the " +
                              passName(pass) + " pass needs");
        const auto reloaded = reloaded_code_.find(pass);
        p = createPipeline(reloaded != reloaded_code_.end() ? reloaded->second : loadShader(passName(pass)), pass);
    }
    return p;
}

int StepRecorder::sumRows(Pass pass) const {
    // CPU drivers: the pipe step's passes with sums in every step run kSumRowsPerInvocation rows
    // of cells per invocation (partials.glsl's SUM_ROWS): one subgroup reduction per that many
    // cells, which llvmpipe runs as a loop over the lanes. The tile stays the grid passes'
    // (shape.y rows), so the sums are grouped the same with partials per workgroup or per
    // subgroup (whose places the tile's subgroups fill: partials_per_group of them).
    const int rows = cpuSumRows(pass);
    const bool cpu = ctx_.properties.deviceType == VK_PHYSICAL_DEVICE_TYPE_CPU;
    const uint32_t per_group = setup_.partials_per_group;
    return cpu && setup_.shape.y % rows == 0 && (per_group == 1 || per_group % uint32_t(rows) == 0) ? rows : 1;
}

VkPipeline StepRecorder::createPipeline(const std::vector<uint32_t>& code, Pass pass) const {
    // The layout of 4-channel fields (common.glsl's SPLIT_WIDE), the grid passes' workgroup
    // shape (the fluvial passes and the folds have fixed sizes and ignore it), where the sums'
    // partials go, the pipe step's parts (passes without parts ignore them) and the rows of
    // cells per invocation (the workgroup is then the tile's height / rows high).
    const int rows = sumRows(pass);
    struct {
        VkBool32 split;
        uint32_t x, y;
        VkBool32 subgroup_partials;
        uint32_t parts;
        int32_t rows;
    } const values{setup_.split_wide ? VK_TRUE : VK_FALSE,
                   uint32_t(setup_.shape.x),
                   uint32_t(setup_.shape.y / rows),
                   setup_.partials_per_group > 1 ? VK_TRUE : VK_FALSE,
                   partsOf(pass),
                   rows};
    const VkSpecializationMapEntry entries[6] = {
        {SPEC_SPLIT_WIDE, 0, sizeof(VkBool32)},  {SPEC_WG_X, 4, sizeof(uint32_t)},
        {SPEC_WG_Y, 8, sizeof(uint32_t)},        {SPEC_SUBGROUP_PARTIALS, 12, sizeof(VkBool32)},
        {SPEC_STEP_PARTS, 16, sizeof(uint32_t)}, {SPEC_SUM_ROWS, 20, sizeof(int32_t)}};
    const VkSpecializationInfo spec{6, entries, sizeof values, &values};
    return createComputePipeline(ctx_, layout_, code, &spec);
}

void StepRecorder::reload(Pass pass, const std::vector<uint32_t>& spirv) {
    VkPipeline fresh = createPipeline(spirv, pass);
    vkDeviceWaitIdle(ctx_.device); // frames in flight may still use the old ones
    for (auto it = pipelines_.begin(); it != pipelines_.end();) {
        if (it->first.first == pass) {
            vkDestroyPipeline(ctx_.device, it->second, nullptr);
            it = pipelines_.erase(it);
        } else {
            ++it;
        }
    }
    pipelines_[{pass, partsOf(pass)}] = fresh;
    reloaded_code_[pass] = spirv;
}

} // namespace alluvium::gpu
