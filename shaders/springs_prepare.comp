#version 450
// The springs' water source per cell (m/s of depth), rebuilt when the springs or the cell size
// change (not every step): a spring adds its rate (m^3/s per cell) to every cell whose centre
// lies within its radius. The pipe step reads it through springDepth() (common.glsl).
#include "common.glsl"

void main() {
    ivec2 c = cellId();
    if (!insideGrid(c)) return;
    vec2 centre = vec2(wholeCell(c)) + 0.5; // springs sit in whole-grid cells
    float rate = 0.0;
    for (int k = 0; k < p.spring_count; ++k) {
        vec4 sp = springs[k];
        vec2 delta = centre - sp.xy;
        if (dot(delta, delta) <= sp.z * sp.z) rate += sp.w / cellArea();
    }
    imageStore(spring_rate_img, c, vec4(rate));
}
