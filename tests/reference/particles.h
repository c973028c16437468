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

// One iteration of a droplet: where it moved and what it exchanged.
struct DropletStep {
    double x = 0, y = 0;  // position after the move (cells), before the edge test
    double volume = 0;    // after evaporation (0 if the droplet left or stopped at a wall)
    int64_t load = 0;     // S before the exchange (fixed-point units)
    int64_t exchange = 0; // q, from the ground into the droplet (fixed-point units)
};

struct DropletTrace {
    double margin = 1.0; // smallest distance (cells) of the droplet's position to a cell boundary
    int iterations = 0;
    bool left_map = false; // through an open edge, with its load
    int64_t lost = 0;      // load taken off the map (fixed-point units)
    int64_t moved = 0;     // sum of |exchange| (fixed-point units)
    double x0 = 0, y0 = 0; // where it was released
    std::vector<DropletStep> steps;
    int64_t final_load = 0; // dropped where it ended, or taken off the map
    bool unborn = false;    // drawn where the rain mask kept it from falling
};

// Where a droplet's path may fork between two devices. Its position on another device differs
// from the float twin's by rounding: GPUs add and multiply exactly rounded (`precise`), divide and
// take square roots to within 2.5-3 ulp where the twin has 0.5, so their difference stays within
// a small multiple of the float twin's difference from the double one, which the twins measure
// along the path (kForkFactor times it, at least kForkFloor cells; the same for the volume,
// relative to particle_min_volume). The path may fork at the first iteration where the double
// position is closer than that to a cell boundary (it may take another cell or another edge) or
// its volume that close to the minimum (it may die an iteration sooner or later).
inline constexpr double kForkFactor = 20.0;
inline constexpr double kForkFloor = 1e-5;

struct DropletFork {
    int age = 0; // the first iteration that may differ; the lifetime if none may
    // What the droplet moves from there on: its load at the fork, every later exchange and its
    // final drop (fixed-point units); 0 if it never forks. A forked droplet on another device
    // moves about as much, elsewhere.
    int64_t uncertain = 0;
};
DropletFork findFork(const DropletTrace& twin_float, const DropletTrace& twin_double, const gpu::SimParams& p);

// Droplet `index` of step `step`: adds its height changes (units of 2^-20 m) to delta.
template <class T>
DropletTrace particleDroplet(const State& s, const gpu::SimParams& p, int step, uint32_t index,
                             std::vector<int64_t>& delta);

// All p.particle_count droplets of one step on s.terrain, then applyDelta on every cell.
// Returns the traces; delta (optional) receives the integer changes.
template <class T>
std::vector<DropletTrace> particlesStep(State& s, const gpu::SimParams& p, int step,
                                        std::vector<int64_t>* delta = nullptr);

// particles_apply: b + s + d 2^-20 in double, split into the largest float at or below it (the
// new ground b) and the rest (the new sediment s).
void applyDelta(double& b, double& sediment, int64_t d);

} // namespace alluvium::ref
