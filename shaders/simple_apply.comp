#version 450
// Simple model, second pass: gather what neighbours moved here (their lowest neighbour is us),
// then step 4: evaporate Ke of the water (counted for the water budget) and settle the sediment
// above the capacity Kc w.
#include "common.glsl"
#include "grid_models.glsl"

// One cell's gather and step 4; returns the water that evaporated (m).
float gather(ivec2 c) {
    float w = imageLoad(water_next, c).r;
    float s = imageLoad(sediment_next, c).r;
    float a = imageLoad(terrain_next, c).r;
    for (int k = 0; k < 8; ++k) {
        ivec2 n = c + kNeighbours[k];
        vec4 move = imageLoad(scratch_img, clampToGrid(n)); // outside any branch (common.glsl)
        bool gets = inGrid(n) && int(move.z) == kOpposite[k] && move.x > 0.0;
        w = gets ? w + move.x : w;
        s = gets ? s + move.y : s;
    }
    precise float before = w;
    w *= 1.0 - p.simple_evaporation;
    precise float evaporated = before - w;
    float capacity = p.simple_capacity * w;
    if (s > capacity) {
        float settled;
        a = raiseGround(a, s - capacity, settled);
        s = max(0.0, s - settled);
    }
    imageStore(terrain_next, c, vec4(a));
    if (layersOn()) imageStore(loose_next, c, vec4(looseAfter(imageLoad(loose_cur, c).r, imageLoad(terrain_cur, c).r, a)));
    imageStore(water_next, c, vec4(w));
    imageStore(sediment_next, c, vec4(s));
    return evaporated;
}

void main() {
    ivec2 c = cellId();
    float evaporated = insideGrid(c) ? gather(c) : 0.0;
    addWaterSum(WATER_EVAPORATED, evaporated * cellArea());
}
