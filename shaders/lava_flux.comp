#version 450
// Lava, first pass (lava.glsl): each cell's outflow through its four faces this step (m^3) into
// the lava_outflow image, from the step's new ground and the lava at its start; lava.comp moves
// it.
#include "common.glsl"
#include "lava.glsl"

void main() {
    if (!lavaOn()) return; // uniform: off, a pass run on its own (tests) does nothing
    ivec2 c = cellId();
    if (!insideGrid(c)) return;
    vec2 lava = imageLoad(lava_cur, c).rg;
    float surface = imageLoad(terrain_next, c).r + lava.x;
    vec4 out_flow = vec4(0.0);
    for (int k = 0; k < 4; ++k) {
        ivec2 n = c + kLavaOffsets[k], q = clampToGrid(n); // loads outside any branch (common.glsl)
        float neighbour = imageLoad(terrain_next, q).r + imageLoad(lava_cur, q).r;
        out_flow[k] = inGrid(n) ? lavaFaceFlow(lava.x, lava.y, surface - neighbour) : 0.0;
    }
    // At most the lava the cell holds (the 1 - 2^-20 keeps the sum within it after rounding).
    float total = out_flow.x + out_flow.y + out_flow.z + out_flow.w;
    float held = lava.x * cellArea() * (1.0 - 1.0 / 1048576.0);
    if (total > held) out_flow *= held / total;
    imageStore(lava_outflow_img, c, out_flow);
}
