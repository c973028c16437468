#version 450
// Particles model, second pass: b_next = b + delta * 2^-20 m (one rounding per cell per step),
// delta back to zero for the next step, the soil carried off open edges folded into the run's
// totals (as drained sediment), and the other ping-pong fields carried over unchanged.
#include "common.glsl"
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require
layout(std430, binding = B_DRAINED) buffer DrainedBlock { int64_t drained_units; };
layout(std430, binding = B_TOTALS) buffer TotalsBlock { Totals totals; };

void main() {
    ivec2 c = cellId();
    if (!insideGrid(c)) return;
    if (c == ivec2(0)) { // the soil droplets carried off open edges this step, into the totals
        totals.acc[SLOT_SED_DRAINED] += double(drained_units) * (1.0lf / PARTICLE_FIXED_ONE) *
                                        double(cellArea());
        drained_units = 0;
    }
    const uint i = uint(c.y) * uint(p.width) + uint(c.x);
    const int d = delta[i];
    const float b = imageLoad(terrain_cur, c).r;
    imageStore(terrain_next, c, vec4(d == 0 ? b : b + float(d) * (1.0 / PARTICLE_FIXED_ONE)));
    delta[i] = 0;
    imageStore(water_next, c, imageLoad(water_cur, c));
    imageStore(sediment_next, c, imageLoad(sediment_cur, c));
    storeOutflowNext(c, loadOutflowCur(c));
}
