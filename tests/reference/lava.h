// The double-precision twin of shaders/lava.glsl (lava_flux.comp, lava.comp): one step of the
// lava on the step's new ground (s.terrain), water (s.water) and hardness.
#pragma once
#include "reference.h"

namespace alluvium::ref {

// What each cell sends through its faces (left, right, top, bottom; m^3) this step.
std::vector<Vec4> lavaOutflows(const State& s, const gpu::SimParams& p);
// The gather, the vent, cooling, boiling and rock: s.lava, s.terrain, s.hardness, s.water (and
// s.loose) change; sums[SLOT_LAVA_ERUPTED], [SLOT_LAVA_SOLIDIFIED], [SLOT_BOILED].
// `sensitive` (if given): per cell, 1 where the outcome hangs on the last bits of float arithmetic
// (a film under 1 mm after the flow, or a temperature within 1 K of the solidus: rock or not).
void lavaStep(State& s, const gpu::SimParams& p, Sums& sums, std::vector<double>* sensitive = nullptr);
// Cooling of lava of depth h from temperature t over a step under `water` m of water: the new
// temperature and the water boiled (m).
double lavaCooled(const gpu::SimParams& p, double t, double h, double water, double& boiled);

} // namespace alluvium::ref
