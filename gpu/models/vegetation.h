// Vegetation (shaders/vegetation.glsl): a part of the pipe model's step, each CFL sub-step, after
// its water moved (groundwater and the sea included), before the fold of its sums.
#pragma once
#include "model.h"

namespace alluvium::gpu {

// Whether vegetation grows in the step of the parameters' model.
bool vegetationInStep(const SimParams& p);
// The vegetation pass, a timestamp after it when timed (written whether or not vegetation is
// on, so the bench's rows stay the model's timed passes).
void recordVegetation(Step& step);

} // namespace alluvium::gpu
