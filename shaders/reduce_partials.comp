#version 450
// One level of the fold of the step's sums: workgroup (g, slot) folds partials g * REDUCE_SIZE ..
// of that slot's input level into one partial of the output level. As many levels as the grid
// needs run one after another (gpu/simulation.cpp); each is spread over many workgroups.
#include "reduce.glsl"

void main() {
    int slot = int(gl_WorkGroupID.y);
    if (!slotActive(p, slot)) return; // uniform over the workgroup
    uint count_in = pc.reduce_count;
    uint count_out = (count_in + REDUCE_SIZE - 1u) / REDUCE_SIZE;
    uint first = gl_WorkGroupID.x * REDUCE_SIZE;
    double sum = foldBlock(pc.reduce_in + uint(slot) * count_in + first, min(REDUCE_SIZE, count_in - first),
                           slotIsMax(slot));
    if (gl_LocalInvocationIndex == 0) partials[pc.reduce_out + uint(slot) * count_out + gl_WorkGroupID.x] = sum;
}
