#version 450
// Groundwater, flow sub-step part 2 of 2 (gpu/groundwater.cpp): Dupuit-Forchheimer,
// porosity dH/dt = div(K h grad H), one explicit sub-step of dt / groundwater_substeps. Each face
// moves f = coef (H_a - H_b) times the sender's limiter (groundwater_head.comp) from the higher
// head to the lower; both cells compute f from the same stored numbers, so what one loses the
// other gains to the bit. No flow crosses the grid's edges (the sea, held at its surface, is the
// outlet). Reads groundwater_head and aquifer_base at the cell and its 4 neighbours and the
// sub-step's groundwater (push mode bit 0: groundwater_mid, else the groundwater); writes the
// other one (the sub-steps come in pairs: the last writes the groundwater).
#include "common.glsl"
#include "groundwater.glsl"

const ivec2 kFaces[4] = ivec2[4](ivec2(-1, 0), ivec2(1, 0), ivec2(0, -1), ivec2(0, 1));

void main() {
    ivec2 c = cellId();
    if (!insideGrid(c)) return;
    bool from_mid = (pc.mode & 1) != 0;
    vec2 own = imageLoad(groundwater_head_img, c).xy;
    float h_own = max(own.x - imageLoad(aquifer_base_img, c).r, 0.0);
    float g = from_mid ? imageLoad(groundwater_mid_img, c).r : imageLoad(groundwater_img, c).r;
    for (int k = 0; k < 4; ++k) {
        ivec2 n = c + kFaces[k], q = clampToGrid(n); // loads outside any branch (common.glsl)
        vec2 other = imageLoad(groundwater_head_img, q).xy;
        float h_other = max(other.x - imageLoad(aquifer_base_img, q).r, 0.0);
        precise float drop = own.x - other.x;
        precise float moved = faceCoefficient(h_own, h_other) * drop;
        precise float sent = moved * (drop > 0.0 ? own.y : other.y);
        precise float after = g - sent;
        g = inGrid(n) ? after : g;
    }
    // (rounding may leave a limited sender a hair below zero; the ocean, which the sea supplies,
    // may go below: the next water_exchange restores and counts it)
    if (!isOcean(c, imageLoad(terrain_next, c).r, pc.sea_surface)) g = max(g, 0.0);
    if (from_mid) imageStore(groundwater_img, c, vec4(g));
    else imageStore(groundwater_mid_img, c, vec4(g));
}
