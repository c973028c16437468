#version 450
// Groundwater, flow sub-step part 1 of 2 (gpu/groundwater.cpp): each cell's head H
// (groundwater.glsl) and the limiter of its outflow. A face carries coef (H_a - H_b) metres of
// water from the higher head to the lower (faceCoefficient: Dupuit-Forchheimer's K h grad H over
// the sub-step, capped for stability). A cell whose faces would send out more than it holds
// sends that fraction of each: `scale` = min(1, g / outflow); the flow pass applies the sender's.
// The ocean sends what its fixed head drives (the sea supplies it).
// Reads the groundwater of the sub-step (push mode bit 0: groundwater_mid, else
// the groundwater), terrain_next, water_next and aquifer_base at the cell and its 4 neighbours;
// writes groundwater_head (H, scale).
#include "common.glsl"
#include "groundwater.glsl"

float groundwaterAt(ivec2 q) {
    return (pc.mode & 1) != 0 ? imageLoad(groundwater_mid_img, q).r : imageLoad(groundwater_img, q).r;
}

// Head and saturated thickness of cell q.
vec2 headOf(ivec2 q) {
    float base = imageLoad(aquifer_base_img, q).r;
    float b = imageLoad(terrain_next, q).r;
    float H = groundwaterHead(b, imageLoad(water_next, q).r, groundwaterAt(q), base, isOcean(q, b, pc.sea_surface));
    return vec2(H, max(H - base, 0.0));
}

const ivec2 kFaces[4] = ivec2[4](ivec2(-1, 0), ivec2(1, 0), ivec2(0, -1), ivec2(0, 1));

void main() {
    ivec2 c = cellId();
    if (!insideGrid(c)) return;
    vec2 own = headOf(c);
    float outflow = 0.0;
    for (int k = 0; k < 4; ++k) {
        ivec2 n = c + kFaces[k];
        vec2 other = headOf(clampToGrid(n)); // loads outside any branch (common.glsl)
        float sent = faceCoefficient(own.y, other.y) * max(own.x - other.x, 0.0);
        outflow = inGrid(n) ? outflow + sent : outflow;
    }
    float g = groundwaterAt(c);
    float scale = outflow > g ? g / outflow : 1.0;
    if (isOcean(c, imageLoad(terrain_next, c).r, pc.sea_surface)) scale = 1.0; // the sea supplies it
    imageStore(groundwater_head_img, c, vec4(own.x, scale, 0.0, 0.0));
}
