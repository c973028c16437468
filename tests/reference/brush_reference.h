// Double-precision twin of the viewer's brush passes (shaders/brush*.comp).
#pragma once
#include <array>
#include <vector>

#include "brush_shared.h"

namespace alluvium::ref {

struct BrushFields {
    int w = 0, h = 0;
    std::vector<double> terrain, water, hardness;
    std::vector<double> uplift; // the uplift multiplier (empty: the test does not paint it)
    std::vector<double> rain;   // the rain mask (empty: the test does not paint it)
};

// Tallies by BRUSH_* slot (m^3), as brush_reduce.comp accumulates them.
using BrushSums = std::array<double, BRUSH_SLOTS>;

double brushWeight(const gpu::BrushParams& p, int x, int y);
// One application of the brush (smoothing included), in place; adds its tallies to `sums`
// (the drop reads the volume held from them, as the shader reads its totals).
void applyBrush(BrushFields& f, const gpu::BrushParams& p, BrushSums& sums);

} // namespace alluvium::ref
