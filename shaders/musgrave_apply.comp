#version 450
// Musgrave model, second pass: gather the water each lower-lying cell received and the
// sediment that came with it (each sender's sediment split like its water), then evaporate
// (counted for the water budget).
#include "common.glsl"
#include "grid_models.glsl"

// One cell's gather; returns the water that evaporated (m).
float gather(ivec2 c) {
    float w = imageLoad(water_next, c).r;
    float s = imageLoad(sediment_next, c).r;
    for (int k = 0; k < 8; ++k) {
        ivec2 n = c + kNeighbours[k], q = clampToGrid(n); // loads outside any branch (common.glsl)
        float share = sentToUs(q, k);
        vec2 sender = imageLoad(scratch_img, q).xy; // water moved, sediment sent
        bool gets = inGrid(n) && share > 0.0;
        w = gets ? w + share : w;
        s = gets ? s + sender.y * (share / sender.x) : s;
    }
    precise float kept = w * (1.0 - p.musgrave_evaporation);
    imageStore(water_next, c, vec4(kept));
    imageStore(sediment_next, c, vec4(s));
    precise float evaporated = w - kept;
    return evaporated;
}

void main() {
    ivec2 c = cellId();
    float evaporated = insideGrid(c) ? gather(c) : 0.0;
    addWaterSum(WATER_EVAPORATED, evaporated * cellArea());
}
