#version 450
// Pipe step, pass 4 of 4: the sediment correction that reduce_totals computed from the step's
// sums (see there), s *= scale, in place.
#include "common.glsl"
layout(std430, binding = B_TOTALS) readonly buffer TotalsBlock { Totals totals; };

void main() {
    ivec2 c = cellId();
    if (!insideGrid(c)) return;
    imageStore(sediment_next, c, vec4(imageLoad(sediment_next, c).r * totals.sediment_scale));
}
