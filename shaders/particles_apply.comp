#version 450
// Particles model, second pass: b_next = b + delta * 2^-20 m (one rounding per cell per step),
// delta back to zero for the next step, and the other ping-pong fields carried over unchanged.
#include "common.glsl"

void main() {
    ivec2 c = cellId();
    if (!insideGrid(c)) return;
    const uint i = uint(c.y) * uint(p.width) + uint(c.x);
    const int d = delta[i];
    const float b = imageLoad(terrain_cur, c).r;
    imageStore(terrain_next, c, vec4(d == 0 ? b : b + float(d) * (1.0 / PARTICLE_FIXED_ONE)));
    delta[i] = 0;
    imageStore(water_next, c, imageLoad(water_cur, c));
    imageStore(sediment_next, c, imageLoad(sediment_cur, c));
    imageStore(outflow_next, c, imageLoad(outflow_cur, c));
}
