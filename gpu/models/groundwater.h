// Groundwater and the sea's water exchange: a part of the pipe model's step (each CFL sub-step,
// between erosion and evaporation and the fold of its sums) and of the musgrave and simple
// models' (after their passes), on the step's new ground and water.
#pragma once
#include "model.h"

namespace alluvium::gpu {

// Whether groundwater runs in the step of the parameters' model.
bool groundwaterInStep(const SimParams& p);
// The groundwater's flow sub-steps per step (even: they go through groundwater_mid and back).
inline int groundwaterSubsteps(const SimParams& p) { return evenGroundwaterSubsteps(p.groundwater_substeps); }

// The sea's spill rounds (the pipe model), the water exchange and the Dupuit flow's sub-steps, a
// timestamp after each of the three when timed.
void recordWaterExchange(Step& step);
// Musgrave and simple: the exchange and the flow after their own passes, then a fold of the
// groundwater's two sums only (their rain and evaporation went through grid_totals).
void recordGridModelGroundwater(Step& step);
// Each on its own (tests record them as single passes): nothing while it is off.
void recordExchangePass(Step& step);
void recordGroundwaterFlow(Step& step);

} // namespace alluvium::gpu
