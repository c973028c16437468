#version 450
// CPU drivers: the first half of the fold of the step's sums. The producing passes left one
// partial per subgroup (partials.glsl with SUBGROUP_PARTIALS, at p.subgroup_partials_at:
// [slot][workgroup][subgroup]); one invocation per workgroup and slot sums its workgroup's
// p.partials_per_group subgroups in order, from 0, exactly as partials.glsl does in shared memory
// on GPUs, into the fold's first level (one partial per workgroup, at offset 0). No barrier, no
// shared memory: on a CPU driver both cost more than these few loads.
#extension GL_GOOGLE_include_directive : require
#include "shared.h"

layout(local_size_x = 64) in;
layout(std430, binding = B_PARAMS) readonly buffer ParamsBlock { SimParams p; };
layout(std430, binding = B_PARTIALS) buffer PartialsBlock { double partials[]; };

void main() {
    uint groups = uint(p.group_count_x) * uint(p.group_count_y);
    uint group = gl_GlobalInvocationID.x;
    int slot = int(gl_WorkGroupID.y);
    if (group >= groups || !slotActive(p, slot)) return;
    bool is_max = slotIsMax(slot);
    uint per_group = uint(p.partials_per_group);
    uint first = uint(p.subgroup_partials_at) + (uint(slot) * groups + group) * per_group;
    double acc = 0.0lf;
    for (uint g = 0; g < per_group; ++g) {
        double v = partials[first + g];
        acc = is_max ? max(acc, v) : acc + v;
    }
    partials[uint(slot) * groups + group] = acc;
}
