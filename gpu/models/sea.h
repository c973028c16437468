// The sea: the spill surface that decides which cells are ocean, and the sea's surface with the
// tide (models/sea.cpp). A part of the pipe model's step (models/groundwater.cpp).
#pragma once
#include "model.h"

namespace alluvium::gpu {

// Whether the sea runs in the step of the parameters' model (the pipe model's).
bool seaInStep(const SimParams& p);
// The sea's surface at `sim_time` simulated seconds: sea_level plus the tide (m).
float seaSurface(const SimParams& p, double sim_time);
// The rounds of a step behind the surface in use (and the commit when they finish).
void recordSeaRounds(Step& step);
// A whole relaxation from the ground in terrain_cur, ended early on the GPU (indirect dispatches),
// put in use at its end.
void recordSeaSpillFull(Step& step);
SeaControl seaControl(const SeaState& sea);                   // after the GPU work finished
void setSeaControl(SeaState& sea, const SeaControl& control); // a resumed session's (the GPU idle)

} // namespace alluvium::gpu
