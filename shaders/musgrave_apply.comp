#version 450
// Musgrave model, second pass: gather the water each lower-lying cell received and the
// sediment that came with it (each sender's sediment split like its water), then evaporate.
#include "common.glsl"
#include "grid_models.glsl"

void main() {
    ivec2 c = cellId();
    if (!insideGrid(c)) return;
    float w = imageLoad(water_next, c).r;
    float s = imageLoad(sediment_next, c).r;
    for (int k = 0; k < 8; ++k) {
        ivec2 n = c + kNeighbours[k];
        if (!inGrid(n)) continue;
        float share = sentToUs(n, k);
        if (share > 0.0) {
            vec2 sender = imageLoad(scratch_img, n).xy; // water moved, sediment sent
            w += share;
            s += sender.y * (share / sender.x);
        }
    }
    imageStore(water_next, c, vec4(w * (1.0 - p.musgrave_evaporation)));
    imageStore(sediment_next, c, vec4(s));
}
