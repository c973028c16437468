// Groundwater and the sea's water exchange (models/groundwater.h), recorded on the step's new
// ground and water:
//   sea_spill          a few rounds of the sea's spill relaxation, behind the surface in use
//                      (models/sea.cpp)
//   water_exchange     seepage and infiltration between the water and the ground, the ocean held
//                      at the sea's surface (shaders/water_exchange.comp); the groundwater in place
//   groundwater_head,  Dupuit-Forchheimer flow, an even number of explicit sub-steps, each of two
//   groundwater_flow   passes (the head and the outflow limiter, then the flow), from the
//                      groundwater to groundwater_mid and back
// The groundwater is one image (not a ping-pong pair): the models without groundwater leave it as
// it is, and a snapshot or a session holds it whole.
#include "groundwater.h"

#include "sea.h"

namespace alluvium::gpu {

bool groundwaterInStep(const SimParams& p) {
    return p.enable_groundwater != 0 && (p.model == MODEL_PIPE || p.model == MODEL_MUSGRAVE || p.model == MODEL_SIMPLE);
}

void recordWaterExchange(Step& step) {
    if (seaInStep(step.params)) recordSeaRounds(step);
    step.rec.timestamp();
    recordExchangePass(step);
    step.rec.timestamp();
    recordGroundwaterFlow(step);
    step.rec.timestamp();
}

// The timestamps are written whether or not groundwater is on, so the bench's rows stay the
// model's timed passes.
void recordGridModelGroundwater(Step& step) {
    recordWaterExchange(step);
    const bool on = groundwaterInStep(step.params);
    if (on) step.rec.foldLevels();
    step.rec.timestamp();
    if (on) step.rec.foldTotals(REDUCE_GROUNDWATER_ONLY);
    step.rec.timestamp();
}

void recordExchangePass(Step& step) {
    if (!groundwaterInStep(step.params) && !seaInStep(step.params)) return;
    step.rec.pass(Pass::WaterExchange);
}

void recordGroundwaterFlow(Step& step) {
    if (!groundwaterInStep(step.params)) return;
    int from_mid = 0; // water_exchange left it in the groundwater image
    for (int k = 0, n = groundwaterSubsteps(step.params); k < n; ++k) {
        step.rec.pass(Pass::GroundwaterHead, from_mid);
        step.rec.pass(Pass::GroundwaterFlow, from_mid);
        from_mid ^= 1;
    }
}

} // namespace alluvium::gpu
