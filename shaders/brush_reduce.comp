#version 450
// Adds the brush's per-workgroup sums to the run's totals, in double precision, in a fixed
// order (deterministic). One workgroup.
#include "brush.glsl"

layout(local_size_x = 256) in;

shared double acc[256];

void main() {
    uint i = gl_LocalInvocationIndex;
    for (int s = 0; s < 4; ++s) {
        double sum = 0.0;
        for (uint g = i; g < uint(b.group_count); g += 256u) sum += double(partials[g * 4u + uint(s)]);
        acc[i] = sum;
        barrier();
        for (uint stride = 128u; stride > 0u; stride >>= 1) {
            if (i < stride) acc[i] += acc[i + stride];
            barrier();
        }
        if (i == 0u) {
            if (b.tool == BRUSH_TOOL_LAVA && s == BRUSH_TERRAIN_ADDED)
                totals[BRUSH_LAVA_POURED] += acc[0];
            else
                totals[s] += acc[0];
            if (b.tool == BRUSH_TOOL_PICK_UP && s == BRUSH_TERRAIN_REMOVED) totals[BRUSH_HAND_PICKED] += acc[0];
            if (b.tool == BRUSH_TOOL_DROP && s == BRUSH_TERRAIN_ADDED) totals[BRUSH_HAND_DROPPED] += acc[0];
        }
        barrier();
    }
}
