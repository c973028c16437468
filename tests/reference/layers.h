// The double-precision twins of shaders/layers.glsl: layered ground (a loose layer over the
// bedrock) as every model's reference erodes and deposits it. Strata are not twinned here: the
// band a cell falls in flips at a boundary with the last bit of its height, so the strata tests
// measure what they make (steps in a slope), not bits.
#pragma once
#include <algorithm>

#include "shared.h"

namespace alluvium::ref {

inline bool layersOn(const gpu::SimParams& p) { return p.enable_layers != 0; }

// The loose layer once a cell's ground went from `before` to `after`.
inline double looseAfter(double loose, double before, double after) { return std::max(loose + (after - before), 0.0); }

// What a cell loses to an erosion demand (what bare rock of hardness 0 would lose), in T (the
// particles' reference also runs in float, as the GPU).
template <typename T> T layeredErosion(const gpu::SimParams& p, T demand, T loose, T hardness) {
    if (!layersOn(p) || loose <= T(0)) return demand * (T(1) - hardness);
    const T loose_demand = demand * static_cast<T>(p.loose_erodibility);
    if (loose_demand <= loose) return loose_demand;
    return loose + demand * (T(1) - loose / loose_demand) * (T(1) - hardness);
}

// A thermal move at one talus slope: the factor (moved / total excess), the slope, and the
// volume that leaves per area.
struct ThermalChoice {
    double factor = 0.0, tan_talus = 0.0, moved = 0.0;
};

// Rock's move, or on a loose layer the loose material's (at its angle of repose, at most the
// layer): whichever moves more.
inline ThermalChoice layeredThermal(const gpu::SimParams& p, const ThermalChoice& rock, const ThermalChoice& slide,
                                    double loose) {
    if (!layersOn(p) || loose <= 0.0) return rock;
    const double moved = std::min(slide.moved, loose);
    if (moved <= rock.moved) return rock;
    return {slide.factor * (moved / slide.moved), slide.tan_talus, moved};
}

} // namespace alluvium::ref
