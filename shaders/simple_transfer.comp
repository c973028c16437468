#version 450
// Simple model (seed 001; Olsen 2004's hydraulic erosion), first pass of the four steps:
//   1. rain: w += Kr (times the rain mask);  2. erosion: Ks w of ground (times 1 - hardness) dissolves into s;
//   3. movement to the lowest neighbour l by water surface (h = a + w, after steps 1-2):
//      h_l >= h: nothing moves; w + h_l <= a: all the water moves; else half the difference.
//      The sediment moves with its share of the water.
// Kept amounts go to the "next" images, the move (dw, ds, direction) to the scratch image: a
// difference map, applied by simple_apply. The rain is counted for the water budget.
#include "common.glsl"
#include "grid_models.glsl"

// Ground and water of cell n after rain and dissolution (steps 1 and 2).
vec2 groundAndWater(ivec2 n) {
    float w = imageLoad(water_cur, n).r + p.simple_rain_amount * rainMaskAt(n);
    float a = imageLoad(terrain_cur, n).r, loose = looseAt(n);
    float dissolved = layeredErosion(p.simple_solubility * w, loose, cellHardness(n, a, loose));
    return vec2(a - dissolved, w);
}

// One cell's move; returns the rain it received (m).
float transfer(ivec2 c) {
    precise float w0 = imageLoad(water_cur, c).r;
    precise float w = w0 + p.simple_rain_amount * rainMaskAt(c);
    precise float rained = w - w0;
    float dissolved, a0 = imageLoad(terrain_cur, c).r, loose = looseAt(c);
    float a = lowerGround(a0, layeredErosion(p.simple_solubility * w, loose, cellHardness(c, a0, loose)), dissolved);
    float s = imageLoad(sediment_cur, c).r + dissolved;
    float h = a + w;
    int lowest = -1;
    float h_lowest = h;
    for (int k = 0; k < 8; ++k) {
        ivec2 n = c + kNeighbours[k];
        vec2 n_aw = groundAndWater(clampToGrid(n)); // loads outside any branch (common.glsl)
        bool lower = inGrid(n) && n_aw.x + n_aw.y < h_lowest;
        h_lowest = lower ? n_aw.x + n_aw.y : h_lowest;
        lowest = lower ? k : lowest;
    }
    float dw = 0.0, ds = 0.0;
    if (lowest >= 0 && w > 0.0) {
        dw = w + h_lowest <= a ? w : min(w, 0.5 * (h - h_lowest));
        ds = s * (dw / w);
    }
    imageStore(scratch_img, c, vec4(dw, ds, float(lowest), 0.0));
    imageStore(terrain_next, c, vec4(a));
    imageStore(water_next, c, vec4(w - dw));
    imageStore(sediment_next, c, vec4(s - ds));
    return rained;
}

void main() {
    ivec2 c = cellId();
    float rained = insideGrid(c) ? transfer(c) : 0.0;
    addWaterSum(WATER_RAIN, rained * cellArea());
}
