// CPU twin of the particles model (shaders/particles.comp, particles_apply.comp): the same
// droplets (same hash, same order of operations, same fixed-point rounding of every exchange),
// one after another. Templated on the scalar: `float` reproduces the shader operation for
// operation; `double` is the physics oracle (a droplet may take another cell at a near-tie of
// floor(), which `margin` reports).
#pragma once
#include <array>
#include <cstdint>
#include <vector>

#include "reference.h"

namespace alluvium::ref {

std::array<uint32_t, 3> pcg3d(std::array<uint32_t, 3> v);

struct DropletTrace {
    double margin = 1.0; // smallest distance (cells) of the droplet's position to a cell boundary
    int iterations = 0;
    bool left_map = false; // through an open edge, with its load
    int64_t lost = 0;      // load taken off the map (fixed-point units)
    int64_t moved = 0;     // sum of |exchange| (fixed-point units)
};

// Droplet `index` of step `step`: adds its height changes (units of 2^-20 m) to delta.
template <class T>
DropletTrace particleDroplet(const State& s, const gpu::SimParams& p, int step, uint32_t index,
                             std::vector<int64_t>& delta);

// All p.particle_count droplets of one step on s.terrain, then b += delta 2^-20 rounded to float
// as particles_apply does. Returns the traces; delta (optional) receives the integer changes.
template <class T>
std::vector<DropletTrace> particlesStep(State& s, const gpu::SimParams& p, int step,
                                        std::vector<int64_t>* delta = nullptr);

// b + d 2^-20 as particles_apply computes it in float.
double applyDelta(double b, int64_t d);

} // namespace alluvium::ref
