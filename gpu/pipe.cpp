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
// with, before the fold, the sea and groundwater of issue 12 (gpu/groundwater.cpp).
// Every pass reads what the one before wrote: a full compute barrier between each.
#include "simulation.h"

namespace alluvium::gpu {

void Simulation::recordPipeStep(VkCommandBuffer cmd, GpuTimer* timer) {
    auto pass = [&](Pass p) {
        dispatch(cmd, p);
        computeBarrier(cmd);
        if (timer) writeTimestamp(*timer, cmd);
    };
    pass(Pass::SourcesFlux);
    pass(Pass::WaterVelocity);
    if (pipe_passes_ == PipePasses::Direct) {
        pass(Pass::Erosion);
        pass(Pass::TransportThermalOutflowEvaporation);
        pass(Pass::ThermalGather);
    } else {
        pass(Pass::ErosionTransportThermalEvaporation);
    }
    // Issue 12: the sea's spill rounds, the water exchange (seepage, infiltration, the ocean held
    // at the sea's surface) and the groundwater's flow, on the new ground and water; their sums
    // are folded with the step's (gpu/groundwater.cpp).
    recordWaterExchange(cmd, timer);
    recordFoldLevels(cmd);
    if (timer) writeTimestamp(*timer, cmd);
    recordFoldTotals(cmd);
    if (timer) writeTimestamp(*timer, cmd);
    // Without transport the scale is exactly 1: nothing to correct.
    if (params_.enable_transport != 0) {
        dispatch(cmd, Pass::SedimentCorrect);
        computeBarrier(cmd);
    }
    if (timer) writeTimestamp(*timer, cmd);
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

std::vector<uint32_t> foldLevelSizes(uint32_t workgroups) {
    std::vector<uint32_t> levels = {workgroups};
    while (levels.back() > REDUCE_SIZE) levels.push_back((levels.back() + REDUCE_SIZE - 1) / REDUCE_SIZE);
    return levels;
}

} // namespace alluvium::gpu
