// Snow (shaders/snow.glsl): a part of the pipe model's step, each CFL sub-step, on the step's new
// ground and water, before groundwater and the fold of its sums.
#pragma once
#include "model.h"

namespace alluvium::gpu {

// Whether snow lies, falls, melts and slides in the step of the parameters' model.
bool snowInStep(const SimParams& p);
// snow_slide then snow, a timestamp after each when timed (written whether or not snow is on, so
// the bench's rows stay the model's timed passes).
void recordSnow(Step& step);

} // namespace alluvium::gpu
