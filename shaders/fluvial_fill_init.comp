#version 450
// Fluvial model, lake filling: outlets start at (z, 0), every other cell at +infinity.
#include "fluvial.glsl"

void main() {
    ivec2 c = cellId();
    if (gl_LocalInvocationIndex == 0u)
        fluvial_tiles[gl_WorkGroupID.y * uint(p.group_count_x) + gl_WorkGroupID.x] = 0u;
    if (!insideGrid(c)) return;
    fluvial_key[cellIndex(c)] =
        isOutlet(c) ? packKey(orderedBits(imageLoad(terrain_cur, c).r), 0u) : KEY_INF;
}
