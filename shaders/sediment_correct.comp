#version 450
// Pass 8: apply the sediment correction computed by reduce_sediment, s *= scale, in place.
#include "common.glsl"
layout(std430, binding = B_TOTALS) readonly buffer TotalsBlock { Totals totals; };

void main() {
    ivec2 c = cellId();
    if (!insideGrid(c)) return;
    imageStore(sediment_next, c, vec4(imageLoad(sediment_next, c).r * totals.sediment_scale));
}
