// The pipe model's step (seed 004; design, "One step of the pipe model"), recorded as four passes
// over the grid and the fold of its sums:
//   sources_flux                            design steps 1-2: rain and springs, outflow flux
//   water_velocity                          steps 1, 3-4: water update, velocity (flow map)
//   erosion_transport_thermal_evaporation   steps 5-8 (wear map); on CPU drivers as three passes
//                                           that read neighbours from images instead of shared
//                                           memory (PipePasses::Direct): erosion,
//                                           transport_thermal_outflow_evaporation, thermal_gather
//   reduce_partials (levels), reduce_totals the step's sums into the run's totals, and the
//                                           sediment correction's scale
//   sediment_correct                        the semi-Lagrangian transport's global correction
//                                           (left to the next step's erosion when one follows)
// with, before the fold, the sea and groundwater of issue 12 (gpu/groundwater.cpp).
// Every pass reads what the one before wrote: a full compute barrier between each.
#include <stdexcept>
#include <string>

#include "simulation.h"

namespace alluvium::gpu {

// The sediment correction scales every cell by the factor reduce_totals leaves in the totals
// buffer. The next step's erosion is the first pass to read the sediment, and it keeps that factor
// until the next step's own fold, so when steps are recorded back to back the erosion multiplies
// as it loads (sedimentAtStart, shaders/pipe_erosion.glsl): the same product, one pass over the
// grid (8 bytes a cell) fewer per step. The last step of a command buffer corrects in its own pass.
void Simulation::recordPipeStep(VkCommandBuffer cmd, GpuTimer* timer, bool another_follows) {
    auto pass = [&](Pass p, int mode = 0) {
        dispatch(cmd, p, mode);
        computeBarrier(cmd);
        if (timer) writeTimestamp(*timer, cmd);
    };
    pass(Pass::SourcesFlux);
    pass(Pass::WaterVelocity);
    const int erode_mode = correction_carried_ ? ERODE_CARRIED_CORRECTION : 0;
    correction_carried_ = false;
    if (pipe_passes_ == PipePasses::Direct) {
        pass(Pass::Erosion, erode_mode);
        pass(Pass::TransportThermalOutflowEvaporation);
        pass(Pass::ThermalGather);
    } else {
        pass(Pass::ErosionTransportThermalEvaporation, erode_mode);
    }
    // Issue 12: the sea's spill rounds, the water exchange (seepage, infiltration, the ocean held
    // at the sea's surface) and the groundwater's flow, on the new ground and water; their sums
    // are folded with the step's (gpu/groundwater.cpp).
    recordWaterExchange(cmd, timer);
    recordFoldLevels(cmd);
    if (timer) writeTimestamp(*timer, cmd);
    recordFoldTotals(cmd);
    if (timer) writeTimestamp(*timer, cmd);
    // Without transport the scale is exactly 1: nothing to correct. A step that follows corrects
    // as it erodes (its timestamp is still written: the bench's table keeps one row per pass).
    if (params_.enable_transport != 0) {
        if (another_follows) {
            correction_carried_ = true;
            ++corrections_carried_;
        } else {
            dispatch(cmd, Pass::SedimentCorrect);
            computeBarrier(cmd);
        }
    }
    if (timer) writeTimestamp(*timer, cmd);
}

void Simulation::requireSettled(const char* what) const {
    if (correction_carried_)
        throw std::logic_error(std::string(what) + ": a pipe step left its sediment correction to a next step that "
                                                   "was not recorded (recordStep's another_follows)");
}

// Level k of the fold holds levels[k] partials per slot, at offset(k) in the partials buffer.
void Simulation::recordFoldLevels(VkCommandBuffer cmd) {
    const std::vector<uint32_t> levels = foldLevelSizes(width_, height_, shape_);
    if (partials_per_group_ > 1) {
        // CPU drivers: each workgroup's subgroups into the first level (reduce_subgroups.comp).
        vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, pipeline(Pass::ReduceSubgroups));
        vkCmdDispatch(cmd, groupsCovering(int(levels[0]), 64), REDUCE_SLOTS, 1);
        computeBarrier(cmd);
    }
    vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, pipeline(Pass::ReducePartials));
    uint32_t offset = 0;
    for (size_t k = 0; k + 1 < levels.size(); ++k) {
        const uint32_t next_offset = offset + levels[k] * REDUCE_SLOTS;
        pushConstants(cmd, PushConstants{step_index_, 0, offset, levels[k], next_offset, 0});
        vkCmdDispatch(cmd, levels[k + 1], REDUCE_SLOTS, 1);
        computeBarrier(cmd);
        offset = next_offset;
    }
}

void Simulation::recordFoldTotals(VkCommandBuffer cmd, int mode) {
    const std::vector<uint32_t> levels = foldLevelSizes(width_, height_, shape_);
    uint32_t offset = 0;
    for (size_t k = 0; k + 1 < levels.size(); ++k) offset += levels[k] * REDUCE_SLOTS;
    vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, pipeline(Pass::ReduceTotals));
    pushConstants(cmd, PushConstants{step_index_, mode, offset, levels.back(), 0, 0});
    vkCmdDispatch(cmd, 1, 1, 1);
    computeBarrier(cmd);
}

void Simulation::measureWaveSpeed() {
    VkCommandBuffer cmd = beginOneShot(ctx_);
    recordUpdates(cmd);
    bindSet(cmd);
    dispatch(cmd, Pass::WaveSpeed);
    computeBarrier(cmd);
    recordFoldLevels(cmd);
    recordFoldTotals(cmd, REDUCE_WAVE_ONLY);
    endOneShot(ctx_, cmd);
}

void Simulation::recordFold(VkCommandBuffer cmd) {
    recordFoldLevels(cmd);
    recordFoldTotals(cmd);
}

// Down to one partial per slot: the last level runs one workgroup per slot side by side, so
// reduce_totals only adds (one invocation; it folded the last <= REDUCE_SIZE partials of every
// slot one after another before, 0.6 ms of a 30 ms step at 512^2 on lavapipe).
std::vector<uint32_t> foldLevelSizes(uint32_t workgroups) {
    std::vector<uint32_t> levels = {workgroups};
    while (levels.back() > 1) levels.push_back((levels.back() + REDUCE_SIZE - 1) / REDUCE_SIZE);
    return levels;
}

} // namespace alluvium::gpu
