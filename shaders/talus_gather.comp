#version 450
// Thermal and Olsen models, second pass: b_next = b - what this cell sends + what each
// neighbour sends here (its slot facing us). The other fields are carried over unchanged, so
// the state's ping-pong stays consistent whichever model ran the step.
#include "common.glsl"

float sent(ivec2 n, int k) {
    if (!inGrid(n)) return 0.0;
    return k < 4 ? imageLoad(thermal_axis, n)[k] : imageLoad(thermal_diag, n)[k - 4];
}

void main() {
    ivec2 c = cellId();
    if (!insideGrid(c)) return;
    vec4 axis = imageLoad(thermal_axis, c), diag = imageLoad(thermal_diag, c);
    float out_sum = axis.x + axis.y + axis.z + axis.w + diag.x + diag.y + diag.z + diag.w;
    float in_sum = sent(c + ivec2(-1, 0), 1) + sent(c + ivec2(1, 0), 0) + sent(c + ivec2(0, -1), 3) +
                   sent(c + ivec2(0, 1), 2) + sent(c + ivec2(-1, -1), 7) + sent(c + ivec2(1, -1), 6) +
                   sent(c + ivec2(-1, 1), 5) + sent(c + ivec2(1, 1), 4);
    imageStore(terrain_next, c, vec4(imageLoad(terrain_cur, c).r - out_sum + in_sum));
    imageStore(water_next, c, imageLoad(water_cur, c));
    imageStore(sediment_next, c, imageLoad(sediment_cur, c));
    storeOutflowNext(c, loadOutflowCur(c));
}
