#version 450
// Fluvial model, lake filling: outlets start at (z, 0), every other cell at +infinity.
#include "fluvial.glsl"

void main() {
    ivec2 c = cellId();
    if (!insideGrid(c)) return;
    fluvial_key[cellIndex(c)] =
        isOutlet(c) ? packKey(orderedBits(imageLoad(terrain_cur, c).r), 0u) : KEY_INF;
}
