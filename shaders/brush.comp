#version 450
// The viewer's brush, once per frame on the current images (any erosion model). Each cell
// changes only itself, except smoothing, which reads its neighbours and so writes the scratch
// image (brush_commit.comp copies it back). Every volume moved is tallied per workgroup.
#include "brush.glsl"

layout(local_size_x = BRUSH_WG, local_size_y = BRUSH_WG) in;

shared float sums[BRUSH_WG * BRUSH_WG][4]; // water +, water -, ground +, ground -

void main() {
    ivec2 c = ivec2(gl_GlobalInvocationID.xy);
    uint lid = gl_LocalInvocationIndex;
    vec4 tally = vec4(0.0);
    if (inGrid(c)) {
        float w = brushWeight(c);
        if (b.tool == BRUSH_TOOL_SMOOTH) {
            // Diffusion with symmetric face weights 0.5 (w_i + w_j): what one cell gives, its
            // neighbour takes, so the ground's volume is unchanged (closed at the grid's edge).
            float h = imageLoad(terrain_img, c).r;
            float flow = 0.0;
            const ivec2 offsets[4] = ivec2[4](ivec2(-1, 0), ivec2(1, 0), ivec2(0, -1), ivec2(0, 1));
            for (int k = 0; k < 4; ++k) {
                ivec2 n = c + offsets[k];
                if (!inGrid(n)) continue;
                float wn = 0.5 * (w + brushWeight(n));
                flow += wn * (imageLoad(terrain_img, n).r - h);
            }
            imageStore(scratch_img, c, vec4(h + b.amount * flow));
        } else if (w > 0.0) {
            float a = b.amount * w;
            // The hand holds what it picked minus what it dropped; the GPU knows it exactly now,
            // the host only a frame later.
            if (b.tool == BRUSH_TOOL_DROP) a *= float(totals[BRUSH_HAND_PICKED] - totals[BRUSH_HAND_DROPPED]);
            if (b.tool == BRUSH_TOOL_ADD_WATER) {
                imageStore(water_img, c, vec4(imageLoad(water_img, c).r + a));
                tally.x = a;
            } else if (b.tool == BRUSH_TOOL_SNOW) {
                imageStore(snow_img, c, vec4(imageLoad(snow_img, c).r + a));
                tally.x = a;
            } else if (b.tool == BRUSH_TOOL_REMOVE_WATER) {
                float d = imageLoad(water_img, c).r;
                float removed = min(d, a);
                imageStore(water_img, c, vec4(d - removed));
                tally.y = removed;
            } else if (b.tool == BRUSH_TOOL_RAISE || b.tool == BRUSH_TOOL_DROP || b.tool == BRUSH_TOOL_SAND) {
                imageStore(terrain_img, c, vec4(imageLoad(terrain_img, c).r + a));
                changeLoose(c, a, b.tool != BRUSH_TOOL_RAISE);
                tally.z = a;
            } else if (b.tool == BRUSH_TOOL_LOWER || b.tool == BRUSH_TOOL_PICK_UP) {
                imageStore(terrain_img, c, vec4(imageLoad(terrain_img, c).r - a));
                changeLoose(c, -a, false);
                tally.w = a;
            } else if (b.tool == BRUSH_TOOL_FLATTEN) {
                float h = imageLoad(terrain_img, c).r;
                float dh = (b.target - h) * min(a, 1.0);
                imageStore(terrain_img, c, vec4(h + dh));
                changeLoose(c, dh, false);
                if (dh > 0.0)
                    tally.z = dh;
                else
                    tally.w = -dh;
            } else if (b.tool == BRUSH_TOOL_HARDNESS) {
                float r = imageLoad(hardness_img, c).r;
                imageStore(hardness_img, c, vec4(clamp(r + (b.target - r) * min(a, 1.0), 0.0, 1.0)));
            } else if (b.tool == BRUSH_TOOL_UPLIFT) {
                float u = imageLoad(uplift_img, c).r;
                imageStore(uplift_img, c, vec4(clamp(u + (b.target - u) * min(a, 1.0), 0.0, 10.0)));
            } else if (b.tool == BRUSH_TOOL_LAVA) {
                vec2 l = imageLoad(lava_img, c).rg;
                float h = l.x + a;
                imageStore(lava_img, c, vec4(h, (l.x * l.y + a * b.target) / h, 0.0, 0.0));
                tally.z = a;
            } else if (b.tool == BRUSH_TOOL_VEGETATION) {
                vec2 v = imageLoad(vegetation_img, c).rg;
                v.x = clamp(v.x + (b.target - v.x) * min(a, 1.0), 0.0, 1.0);
                imageStore(vegetation_img, c, vec4(v, 0.0, 0.0));
            } else if (b.tool == BRUSH_TOOL_RAIN) {
                float r = imageLoad(rain_img, c).r;
                imageStore(rain_img, c, vec4(clamp(r + (b.target - r) * min(a, 1.0), 0.0, 1.0)));
            }
        }
    }
    // Workgroup sums (in m^3) into this group's partials; brush_reduce.comp adds them up.
    for (int s = 0; s < 4; ++s) sums[lid][s] = tally[s] * b.cell_area;
    barrier();
    for (uint stride = BRUSH_WG * BRUSH_WG / 2; stride > 0; stride >>= 1) {
        if (lid < stride)
            for (int s = 0; s < 4; ++s) sums[lid][s] += sums[lid + stride][s];
        barrier();
    }
    if (lid == 0) {
        uint group = gl_WorkGroupID.y * uint(b.group_count_x) + gl_WorkGroupID.x;
        for (int s = 0; s < 4; ++s) partials[group * 4u + uint(s)] = sums[0][s];
    }
}
