#version 450
// Pipe step, pass 3c of the direct passes (CPU drivers; see erosion.comp): the second half of
// thermal erosion. b = eroded ground - what this cell sends + what each neighbour sends here
// (through its slot facing us), every amount computed by thermalSent (pipe_erosion.glsl) from
// the sender's thermal rate, in the same order as the fused pass.
#include "common.glsl"
#include "pipe_erosion.glsl"

const ivec2 kNeighbours[8] = ivec2[8](ivec2(-1, 0), ivec2(1, 0), ivec2(0, -1), ivec2(0, 1),
                                      ivec2(-1, -1), ivec2(1, -1), ivec2(-1, 1), ivec2(1, 1));
const int kOpposite[8] = int[8](1, 0, 3, 2, 7, 6, 5, 4);

float erodedGround(ivec2 q) {
    float b = imageLoad(eroded_img, clampToGrid(q)).r;
    return inGrid(q) ? b : 1.0 / 0.0;
}

void main() {
    ivec2 c = cellId();
    if (!insideGrid(c)) return;
    float b = imageLoad(eroded_img, c).r;
    if (p.enable_thermal != 0) {
        vec2 rate = imageLoad(thermal_rate_img, c).rg;
        float out_sum = 0.0, in_sum = 0.0;
        for (int k = 0; k < 8; ++k) {
            ivec2 y = c + kNeighbours[k];
            float b_y = erodedGround(y);
            out_sum += thermalSent(rate, b, b_y, k);
            float sent_here = thermalSent(imageLoad(thermal_rate_img, clampToGrid(y)).rg, b_y, b, kOpposite[k]);
            if (inGrid(y)) in_sum += sent_here;
        }
        b = b - out_sum + in_sum;
    }
    imageStore(terrain_next, c, vec4(b));
    if (layersOn()) imageStore(loose_next, c, vec4(looseAfter(imageLoad(loose_cur, c).r, imageLoad(terrain_cur, c).r, b)));
}
