#version 450
// Thermal and Olsen models, second pass: b_next = b - what this cell sends + what each
// neighbour sends here (its amount toward us), every amount from talusSent (talus.glsl). Only the
// ground changes: the other fields keep their halves (gpu/simulation.cpp flips only the
// terrain's parity after this model's step).
#include "common.glsl"
#include "talus.glsl"

void main() {
    ivec2 c = cellId();
    if (!insideGrid(c)) return;
    float b = imageLoad(terrain_cur, c).r;
    vec2 rate = imageLoad(thermal_rate_img, c).rg;
    float out_sum = 0.0, in_sum = 0.0;
    for (int k = 0; k < 8; ++k) {
        out_sum += talusSent(c, b, rate, k);
        ivec2 n = c + kTalusOffsets[k], q = clampToGrid(n); // loads outside any branch (common.glsl)
        float sent_here = talusSent(n, imageLoad(terrain_cur, q).r, imageLoad(thermal_rate_img, q).rg, kTalusOpposite[k]);
        if (inNeighbourhood(k) && inGrid(n)) in_sum += sent_here;
    }
    float after = b - out_sum + in_sum;
    imageStore(terrain_next, c, vec4(after));
    if (layersOn()) imageStore(loose_next, c, vec4(looseAfter(imageLoad(loose_cur, c).r, b, after)));
}
