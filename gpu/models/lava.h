// Lava (shaders/lava.glsl): a part of the pipe model's step, each CFL sub-step, on the step's new
// ground, before snow, groundwater, vegetation and the fold of its sums.
#pragma once
#include "model.h"

namespace alluvium::gpu {

// Whether lava flows in the step of the parameters' model (not in the split layout: its outflow
// image would need 16 bytes a cell in one allocation).
bool lavaInStep(const SimParams& p, bool split_wide);
// lava_flux then lava, a timestamp after each when timed (written whether or not lava is on, so
// the bench's rows stay the model's timed passes).
void recordLava(Step& step);

} // namespace alluvium::gpu
