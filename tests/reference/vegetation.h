// The double-precision twin of shaders/vegetation.comp (and vegetation.glsl's factors on the
// pipe step): one step of the vegetation on the step's old ground `before`, new ground s.terrain,
// new water s.water, velocity s.velocity and, with groundwater, the water table s.water_table.
#pragma once
#include "reference.h"

namespace alluvium::ref {

inline bool vegetationOn(const gpu::SimParams& p) { return p.enable_vegetation != 0 && p.model == MODEL_PIPE; }
inline double vegetationDensity(const State& s, const gpu::SimParams& p, size_t i) {
    return vegetationOn(p) ? s.vegetation[i][0] : 0.0;
}
// Roots bind the ground: erosion times this.
inline double rootBinding(const State& s, const gpu::SimParams& p, size_t i) {
    return 1.0 - p.vegetation_roots * vegetationDensity(s, p, i);
}
// Stems slow creep: thermal erosion times this.
inline double creepSlowing(const State& s, const gpu::SimParams& p, size_t i) {
    return 1.0 - p.vegetation_creep * vegetationDensity(s, p, i);
}
// Manning's n over the face between cells i and j.
inline double faceRoughness(const State& s, const gpu::SimParams& p, size_t i, size_t j) {
    return p.manning_n + p.vegetation_roughness * 0.5 * (vegetationDensity(s, p, i) + vegetationDensity(s, p, j));
}

void vegetationStep(State& s, const std::vector<double>& before, const gpu::SimParams& p);

} // namespace alluvium::ref
