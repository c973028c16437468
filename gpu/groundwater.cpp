// Groundwater and the sea's water exchange (issue 12), recorded after a step's own passes: in the
// pipe step between erosion/evaporation and the fold of its sums (gpu/pipe.cpp), after the other
// grid models' passes (then with a fold of its own sums). On the step's new ground and water:
//   sea_spill          a few rounds of the sea's spill relaxation, behind the surface in use (gpu/sea.cpp)
//   water_exchange     seepage and infiltration between the water and the ground, the ocean held
//                      at the sea's surface (shaders/water_exchange.comp)
//   groundwater_head,  Dupuit-Forchheimer flow, groundwater_substeps explicit sub-steps each of two
//   groundwater_flow   passes (the head and the outflow limiter, then the flow), ping-pong between
//                      groundwater_next and groundwater_mid so that the last one writes next
#include <algorithm>

#include "simulation.h"

namespace alluvium::gpu {

bool Simulation::groundwaterInStep() const {
    return params_.enable_groundwater != 0 && params_.model != MODEL_FLUVIAL;
}

bool Simulation::seaInStep() const { return params_.enable_sea != 0 && params_.model == MODEL_PIPE; }

int Simulation::groundwaterSubsteps() const {
    return std::clamp(params_.groundwater_substeps, 1, GROUNDWATER_MAX_SUBSTEPS);
}

void Simulation::recordWaterExchange(VkCommandBuffer cmd, GpuTimer* timer) {
    if (params_.model == MODEL_PIPE) { // the sea is the pipe model's (the fluvial model's is its fill)
        if (seaInStep()) recordSeaRounds(cmd);
        if (timer) writeTimestamp(*timer, cmd);
    }
    recordExchangePass(cmd);
    if (timer) writeTimestamp(*timer, cmd);
    recordGroundwaterFlow(cmd);
    // The pipe step folds these sums with its own; the other models fold them here.
    if (params_.model != MODEL_PIPE && groundwaterInStep()) recordFold(cmd);
    if (timer) writeTimestamp(*timer, cmd);
}

void Simulation::recordExchangePass(VkCommandBuffer cmd) {
    if (!groundwaterInStep() && !seaInStep()) return;
    // Mode bit 0: write groundwater_mid when an odd number of sub-steps follows (the last one
    // then writes groundwater_next); bit 1: the latest groundwater is in the next half (steps
    // without groundwater left it there).
    const int substeps = groundwaterInStep() ? groundwaterSubsteps() : 0;
    const int mode = (substeps % 2) | (groundwater_half_ != parity_ ? 2 : 0);
    dispatch(cmd, Pass::WaterExchange, mode);
    computeBarrier(cmd);
    groundwater_half_ = parity_ ^ 1; // the next half: cur once the step flips the parity
}

void Simulation::recordGroundwaterFlow(VkCommandBuffer cmd) {
    if (!groundwaterInStep()) return;
    const int substeps = groundwaterSubsteps();
    int from_mid = substeps % 2; // where water_exchange wrote
    for (int k = 0; k < substeps; ++k) {
        dispatch(cmd, Pass::GroundwaterHead, from_mid);
        computeBarrier(cmd);
        dispatch(cmd, Pass::GroundwaterFlow, from_mid);
        computeBarrier(cmd);
        from_mid ^= 1;
    }
}

} // namespace alluvium::gpu
