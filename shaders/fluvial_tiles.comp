#version 450
// Fluvial model, before each fill sweep: lists the tiles the sweep must visit, those with a
// cell lowered in or next to them in the previous sweep (or in none yet: the first sweep), and
// counts them into the sweep's indirect dispatch. Nothing once the fill has converged.
#extension GL_GOOGLE_include_directive : require
#include "shared.h"

layout(local_size_x = TILES_SIZE) in;
layout(std430, binding = B_PARAMS) readonly buffer ParamsBlock { SimParams p; };
layout(push_constant) uniform PushBlock { PushConstants pc; };
layout(std430, binding = B_FLUVIAL_CONTROL) buffer ControlBlock { FluvialControl ctl; };
layout(std430, binding = B_FLUVIAL_TILES) buffer TilesBlock { uint fluvial_tiles[]; };

void main() {
    uint tiles = uint(p.group_count_x) * uint(p.group_count_y);
    uint t = gl_GlobalInvocationID.x;
    if (t >= tiles || ctl.converged != 0u) return;
    uint sweep = uint(pc.mode) >> 2;
    ivec2 tile = ivec2(int(t % uint(p.group_count_x)), int(t / uint(p.group_count_x)));
    uint latest = 0u;
    for (int dy = -1; dy <= 1; ++dy)
        for (int dx = -1; dx <= 1; ++dx) {
            ivec2 n = tile + ivec2(dx, dy);
            if (n.x >= 0 && n.y >= 0 && n.x < p.group_count_x && n.y < p.group_count_y)
                latest = max(latest, fluvial_tiles[uint(n.y) * uint(p.group_count_x) + uint(n.x)]);
        }
    if (latest + 1u < sweep) return;
    fluvial_tiles[tiles + atomicAdd(ctl.dispatch_x, 1u)] = t;
}
