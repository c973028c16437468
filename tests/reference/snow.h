// The double-precision twin of shaders/snow.glsl (snow_slide.comp, snow.comp): one step of the
// snow on the step's new ground (s.terrain) and water (s.water), the rain mask alone (no weather).
#pragma once
#include "reference.h"

namespace alluvium::ref {

// The air's temperature (C) at height z (m) and time t (s).
double airTemperature(const gpu::SimParams& p, double z, double t);
// The avalanches' rates (moved / total excess) of every cell, from s.terrain and s.snow.
std::vector<double> snowSlideRates(const State& s, const gpu::SimParams& p);
// The slide, snowfall and melt: s.snow and s.water change; sums[SLOT_SNOWFALL], sums[SLOT_MELT].
void snowStep(State& s, const gpu::SimParams& p, double t, Sums& sums);

} // namespace alluvium::ref
