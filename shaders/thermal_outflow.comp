#version 450
// Pass 9, thermal erosion, first half (design step 7): for each of the 8 neighbours lower than
// the talus slope allows, excess = (b - b_n) - tan(talus) * distance. The talus angle grows with
// hardness (rock stands steeper). Half the largest excess (times min(1, dt * rate)) leaves the
// cell, shared in proportion to the excesses: it never overshoots. Writes the amounts only;
// thermal_gather moves them, so the pass is mass-exact.
#include "common.glsl"

// Height of neighbour c + o, or +inf outside the grid (so it is never lower).
float heightOr(ivec2 c, ivec2 o) {
    ivec2 n = c + o;
    return inGrid(n) ? imageLoad(terrain_next, n).r : 1.0 / 0.0;
}

void main() {
    ivec2 c = cellId();
    if (!insideGrid(c)) return;
    vec4 axis = vec4(0.0), diag = vec4(0.0);
    if (p.enable_thermal != 0) {
        float b = imageLoad(terrain_next, c).r;
        float angle = min(p.talus_angle + imageLoad(hardness_img, c).r * p.talus_hardness_gain,
                          radians(89.0));
        float tan_talus = tan(angle);
        // Neighbours: left, right, top, bottom; top-left, top-right, bottom-left, bottom-right.
        vec4 h_axis = vec4(heightOr(c, ivec2(-1, 0)), heightOr(c, ivec2(1, 0)),
                           heightOr(c, ivec2(0, -1)), heightOr(c, ivec2(0, 1)));
        vec4 h_diag = vec4(heightOr(c, ivec2(-1, -1)), heightOr(c, ivec2(1, -1)),
                           heightOr(c, ivec2(-1, 1)), heightOr(c, ivec2(1, 1)));
        vec4 e_axis = max((b - h_axis) - tan_talus * p.cell_size, 0.0);
        vec4 e_diag = max((b - h_diag) - tan_talus * (sqrt(2.0) * p.cell_size), 0.0);
        vec4 m = max(e_axis, e_diag);
        float largest = max(max(m.x, m.y), max(m.z, m.w));
        float total = (e_axis.x + e_axis.y + e_axis.z + e_axis.w) +
                      (e_diag.x + e_diag.y + e_diag.z + e_diag.w);
        if (total > 0.0) {
            float moved = 0.5 * min(1.0, p.dt * p.thermal_rate) * largest;
            axis = moved * e_axis / total;
            diag = moved * e_diag / total;
        }
    }
    imageStore(thermal_axis, c, axis);
    imageStore(thermal_diag, c, diag);
}
