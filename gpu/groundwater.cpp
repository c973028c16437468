// Groundwater and the sea's water exchange, recorded in the pipe model's step (each CFL sub-step)
// between erosion/evaporation and the fold of its sums (gpu/pipe.cpp), and after the musgrave and
// simple models' passes (groundwater only; the sea is the pipe model's), on the step's new ground
// and water:
//   sea_spill          a few rounds of the sea's spill relaxation, behind the surface in use
//   (gpu/sea.cpp) water_exchange     seepage and infiltration between the water and the ground, the
//   ocean held
//                      at the sea's surface (shaders/water_exchange.comp); the groundwater in place
//   groundwater_head,  Dupuit-Forchheimer flow, an even number of explicit sub-steps, each of two
//   groundwater_flow   passes (the head and the outflow limiter, then the flow), from the
//                      groundwater to groundwater_mid and back
// The groundwater is one image (not a ping-pong pair): the models without groundwater leave it as
// it is, and a snapshot or a session holds it whole.
#include <algorithm>

#include "simulation.h"

namespace alluvium::gpu {

bool Simulation::groundwaterInStep() const {
    const int m = params_.model;
    return params_.enable_groundwater != 0 && (m == MODEL_PIPE || m == MODEL_MUSGRAVE || m == MODEL_SIMPLE);
}

bool Simulation::seaInStep() const {
    return params_.enable_sea != 0 && params_.model == MODEL_PIPE;
}

int Simulation::groundwaterSubsteps() const {
    return evenGroundwaterSubsteps(params_.groundwater_substeps);
}

void Simulation::recordWaterExchange(VkCommandBuffer cmd, GpuTimer* timer) {
    if (seaInStep()) recordSeaRounds(cmd);
    if (timer) writeTimestamp(*timer, cmd);
    recordExchangePass(cmd);
    if (timer) writeTimestamp(*timer, cmd);
    recordGroundwaterFlow(cmd);
    if (timer) writeTimestamp(*timer, cmd);
}

// Musgrave and simple (the grid models with surface water): the exchange and the flow after their
// own passes, on the ground and water they wrote, then a fold of the groundwater's two sums only
// (their rain and evaporation went through grid_totals). The timestamps are written whether or
// not groundwater is on, so the bench's rows stay those of modelPasses.
void Simulation::recordGridModelGroundwater(VkCommandBuffer cmd, GpuTimer* timer) {
    recordWaterExchange(cmd, timer);
    if (groundwaterInStep()) recordFoldLevels(cmd);
    if (timer) writeTimestamp(*timer, cmd);
    if (groundwaterInStep()) recordFoldTotals(cmd, REDUCE_GROUNDWATER_ONLY);
    if (timer) writeTimestamp(*timer, cmd);
}

void Simulation::recordExchangePass(VkCommandBuffer cmd) {
    if (!groundwaterInStep() && !seaInStep()) return;
    dispatch(cmd, Pass::WaterExchange, 0);
    computeBarrier(cmd);
}

void Simulation::recordGroundwaterFlow(VkCommandBuffer cmd) {
    if (!groundwaterInStep()) return;
    const int substeps = groundwaterSubsteps();
    int from_mid = 0; // water_exchange left it in the groundwater image
    for (int k = 0; k < substeps; ++k) {
        dispatch(cmd, Pass::GroundwaterHead, from_mid);
        computeBarrier(cmd);
        dispatch(cmd, Pass::GroundwaterFlow, from_mid);
        computeBarrier(cmd);
        from_mid ^= 1;
    }
}

} // namespace alluvium::gpu
