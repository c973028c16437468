#version 450
// Pass 10, thermal erosion, second half: b -= what this cell sends, b += what each neighbour
// sends here (its slot facing us). Every amount is subtracted once and added once.
#include "common.glsl"

float sent(ivec2 n, int k) {
    if (!inGrid(n)) return 0.0;
    return k < 4 ? imageLoad(thermal_axis, n)[k] : imageLoad(thermal_diag, n)[k - 4];
}

void main() {
    ivec2 c = cellId();
    if (!insideGrid(c) || p.enable_thermal == 0) return;
    vec4 axis = imageLoad(thermal_axis, c), diag = imageLoad(thermal_diag, c);
    float out_sum = axis.x + axis.y + axis.z + axis.w + diag.x + diag.y + diag.z + diag.w;
    // The neighbour to our left sends through its "right" slot, and so on.
    float in_sum = sent(c + ivec2(-1, 0), 1) + sent(c + ivec2(1, 0), 0) + sent(c + ivec2(0, -1), 3) +
                   sent(c + ivec2(0, 1), 2) + sent(c + ivec2(-1, -1), 7) + sent(c + ivec2(1, -1), 6) +
                   sent(c + ivec2(-1, 1), 5) + sent(c + ivec2(1, 1), 4);
    imageStore(terrain_next, c, vec4(imageLoad(terrain_next, c).r - out_sum + in_sum));
}
