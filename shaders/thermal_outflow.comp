#version 450
// Pass 9, thermal erosion, first half (design step 7): for each of the 8 neighbours lower than
// the talus slope allows, excess = (b - b_n) - tan(talus) * distance. The talus angle grows with
// hardness (rock stands steeper). Half the largest excess (times min(1, dt * rate)) leaves the
// cell, shared in proportion to the excesses: it never overshoots. Writes the amounts only;
// thermal_gather moves them, so the pass is mass-exact.
#include "common.glsl"

const ivec2 kOffsets[8] = ivec2[8](ivec2(-1, 0), ivec2(1, 0), ivec2(0, -1), ivec2(0, 1),
                                   ivec2(-1, -1), ivec2(1, -1), ivec2(-1, 1), ivec2(1, 1));

void main() {
    ivec2 c = cellId();
    if (!insideGrid(c)) return;
    vec4 axis = vec4(0.0), diag = vec4(0.0);
    if (p.enable_thermal != 0) {
        float b = imageLoad(terrain_next, c).r;
        float angle = min(p.talus_angle + imageLoad(hardness_img, c).r * p.talus_hardness_gain,
                          radians(89.0));
        float tan_talus = tan(angle);
        float excess[8];
        float largest = 0.0, total = 0.0;
        for (int k = 0; k < 8; ++k) {
            excess[k] = 0.0;
            ivec2 n = c + kOffsets[k];
            if (!inGrid(n)) continue;
            float dist = (k < 4 ? 1.0 : sqrt(2.0)) * p.cell_size;
            float e = (b - imageLoad(terrain_next, n).r) - tan_talus * dist;
            if (e > 0.0) {
                excess[k] = e;
                largest = max(largest, e);
                total += e;
            }
        }
        if (total > 0.0) {
            float moved = 0.5 * min(1.0, p.dt * p.thermal_rate) * largest;
            axis = moved * vec4(excess[0], excess[1], excess[2], excess[3]) / total;
            diag = moved * vec4(excess[4], excess[5], excess[6], excess[7]) / total;
        }
    }
    imageStore(thermal_axis, c, axis);
    imageStore(thermal_diag, c, diag);
}
